//! The Redis store's connection: opening it on one Redis through a
//! connection manager, and running the store's commands on it, each within
//! the configured timeout and, where running twice does no harm, once more
//! on a connection Redis dropped.

use std::time::Duration;

use redis::aio::{ConnectionLike, ConnectionManager, ConnectionManagerConfig};

use super::{RedisStore, RedisStoreConfig};
use crate::store::StoreError;

impl RedisStore {
    /// A store at `url` (`redis://HOST:PORT`, `rediss://` for TLS when the
    /// `redis` crate's TLS feature is on, `redis://:PASSWORD@HOST:PORT/DB`).
    ///
    /// Does not connect yet: the first operation does, and a Redis that is
    /// down when the server starts only means no tokens until it is up.
    /// Use [`RedisStore::ping`] to check at startup. Call it inside a Tokio
    /// runtime, which the connection's background work runs on.
    pub fn open(url: &str, config: RedisStoreConfig) -> Result<RedisStore, StoreError> {
        let client = redis::Client::open(url).map_err(|error| {
            StoreError::Unavailable(format!(
                "`{url}` is not a Redis URL ({error}); give one such as redis://127.0.0.1:6379"
            ))
        })?;
        // One connection attempt per operation while Redis is down, each
        // bounded: an outage costs a call a refused connection, not a
        // backoff of several seconds.
        let manager = ConnectionManagerConfig::new()
            .set_number_of_retries(0)
            .set_connection_timeout(Some(config.timeout))
            .set_response_timeout(Some(config.timeout));
        let connection = ConnectionManager::new_lazy_with_config(client, manager)
            .map_err(|error| StoreError::Unavailable(format!("cannot set up Redis: {error}")))?;
        Ok(RedisStore::with_connection(connection, config))
    }
}

impl<C> RedisStore<C>
where
    C: ConnectionLike + Clone + Send + Sync + 'static,
{
    /// Runs `operation` within the configured timeout.
    pub(super) async fn deadline<T>(
        &self,
        operation: impl Future<Output = redis::RedisResult<T>>,
    ) -> Result<T, StoreError> {
        self.attempt(operation)
            .await
            .map_err(Failed::into_store_error)
    }

    /// `operation` within the configured timeout, its failure kept as
    /// Redis reported it.
    async fn attempt<T>(
        &self,
        operation: impl Future<Output = redis::RedisResult<T>>,
    ) -> Result<T, Failed> {
        match tokio::time::timeout(self.config.timeout, operation).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(error)) => Err(Failed::Redis(error)),
            Err(_) => Err(Failed::Timeout(self.config.timeout)),
        }
    }

    /// Runs `pipe` within the configured timeout, once: for a pipe whose
    /// effect would differ run twice (an `APPEND` to a key written
    /// before).
    pub(super) async fn run_once<T: redis::FromRedisValue>(
        &self,
        pipe: &redis::Pipeline,
    ) -> Result<T, StoreError> {
        let mut connection = self.connection.clone();
        self.deadline(pipe.query_async::<T>(&mut connection)).await
    }

    /// Runs `pipe`, whose effect is the same run once or twice (reads, and
    /// writes that set keys whole), within the configured timeout; on a
    /// connection Redis dropped (a restart, a failover, an idle connection
    /// closed) it runs once more, on the fresh connection the connection
    /// manager (or the cluster connection) makes. A Redis that is really down fails both, each within
    /// the timeout, and the call answers as it does without a store.
    pub(super) async fn run<T: redis::FromRedisValue>(
        &self,
        pipe: &redis::Pipeline,
    ) -> Result<T, StoreError> {
        let mut connection = self.connection.clone();
        match self.attempt(pipe.query_async::<T>(&mut connection)).await {
            Err(Failed::Redis(error)) if error.is_connection_dropped() => {
                tracing::debug!(%error, "the Redis connection was dropped; trying once more");
                let mut connection = self.connection.clone();
                self.deadline(pipe.query_async::<T>(&mut connection)).await
            }
            done => done.map_err(Failed::into_store_error),
        }
    }
}

/// How one Redis operation failed.
enum Failed {
    Redis(redis::RedisError),
    Timeout(Duration),
}

impl Failed {
    fn into_store_error(self) -> StoreError {
        match self {
            Failed::Redis(error) => StoreError::Unavailable(format!("Redis: {error}")),
            Failed::Timeout(timeout) => StoreError::Unavailable(format!(
                "Redis did not answer within {} ms",
                timeout.as_millis()
            )),
        }
    }
}
