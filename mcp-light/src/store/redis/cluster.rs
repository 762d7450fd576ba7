//! The Redis store on a Redis Cluster (or Valkey's): the same keys, each
//! entry's and each task's under one hash tag, so every pipeline the store
//! runs stays on one slot while entries spread over the masters.

use redis::cluster::{ClusterClient, ClusterConfig};
use redis::cluster_async::ClusterConnection;

use super::{RedisStore, RedisStoreConfig};
use crate::store::StoreError;

impl RedisStore<ClusterConnection> {
    /// A store on the Redis Cluster that `urls` lead to: one or more of its
    /// nodes (`redis://HOST:PORT`, `redis://:PASSWORD@HOST:PORT`); the
    /// client learns the others, and which node holds which slot, from
    /// them.
    ///
    /// Like [`RedisStore::open`] it does not connect yet: the first
    /// operation does, so a cluster that is down when the server starts only
    /// means no tokens until it is up. Every operation, connecting and
    /// following a `MOVED` redirection included, is bounded by the
    /// configured [`timeout`](RedisStoreConfig::timeout). All of an entry's
    /// keys share its token as hash tag (a task's, its id), so each
    /// pipeline and `MULTI` the store sends touches one slot, as a cluster
    /// requires. [`RedisStore::ping`] asks every master. Call it inside a
    /// Tokio runtime.
    ///
    /// Fails, naming the node, when `urls` is empty or one is not a Redis
    /// URL.
    ///
    /// ```no_run
    /// use mcp_light::store::{RedisStore, RedisStoreConfig};
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let store = RedisStore::open_cluster(
    ///     &["redis://10.0.0.1:7000", "redis://10.0.0.2:7000", "redis://10.0.0.3:7000"],
    ///     RedisStoreConfig::new(),
    /// )?;
    /// store.ping().await?; // optional: every master answers
    /// let server = mcp_light::Server::from_registry().with_store(store).build()?;
    /// # Ok(()) }
    /// ```
    pub fn open_cluster(
        urls: &[&str],
        config: RedisStoreConfig,
    ) -> Result<RedisStore<ClusterConnection>, StoreError> {
        if urls.is_empty() {
            return Err(StoreError::Unavailable(
                "no Redis Cluster node given; give at least one, such as \
                 redis://127.0.0.1:7000"
                    .to_owned(),
            ));
        }
        for url in urls {
            redis::Client::open(*url).map_err(|error| {
                StoreError::Unavailable(format!(
                    "`{url}` is not a Redis Cluster node's URL ({error}); give one such as \
                     redis://127.0.0.1:7000"
                ))
            })?;
        }
        let client = ClusterClient::builder(urls.iter().copied())
            .connection_timeout(config.timeout)
            .response_timeout(config.timeout)
            .build()
            .map_err(|error| {
                StoreError::Unavailable(format!(
                    "cannot set up the Redis Cluster client for {}: {error}",
                    urls.join(", ")
                ))
            })?;
        let connection = client.get_pending_async_connection_with_config(
            ClusterConfig::new()
                .set_connection_timeout(config.timeout)
                .set_response_timeout(config.timeout),
        );
        Ok(RedisStore::with_connection(connection, config))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn no_node_is_refused_with_an_example() {
        let error = RedisStore::open_cluster(&[], RedisStoreConfig::new()).unwrap_err();
        assert!(error.to_string().contains("at least one"), "{error}");
    }

    #[tokio::test]
    async fn a_bad_node_is_named() {
        let error = RedisStore::open_cluster(
            &["redis://127.0.0.1:7000", "127.0.0.1:7001"],
            RedisStoreConfig::new(),
        )
        .unwrap_err();
        let error = error.to_string();
        assert!(error.contains("`127.0.0.1:7001`"), "{error}");
        assert!(error.contains("redis://127.0.0.1:7000"), "{error}");
    }

    #[tokio::test]
    async fn a_cluster_that_is_not_there_is_not_ready() {
        let config = RedisStoreConfig::new().with_timeout(std::time::Duration::from_millis(500));
        let store = RedisStore::open_cluster(&["redis://127.0.0.1:1"], config).unwrap();
        let error = store.ping().await.unwrap_err();
        assert!(matches!(error, StoreError::Unavailable(_)), "{error:?}");
    }
}
