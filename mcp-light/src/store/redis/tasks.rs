//! Tasks in Redis, beside the store's entries: under the store's prefix,
//! each task's keys share one hash tag (its id), so they stay together on
//! a Redis Cluster.
//!
//! - `<prefix>{<id>}:t` — the record, written by the replica running it;
//! - `<prefix>{<id>}:tc` — set by `tasks/cancel`, on any replica;
//! - `<prefix>{<id>}:ta` — a hash of the answers `tasks/update` brought.

use std::time::Duration;

use redis::aio::ConnectionLike;

use super::{RedisStore, expiry_ms};
use crate::store::tasks::{StoredTask, TaskSignals, TaskStore};
use crate::store::{BoxFuture, StoreError};

impl<C> RedisStore<C> {
    fn task_key(&self, id: &str, part: &str) -> String {
        format!("{}{{{id}}}:{part}", self.config.prefix)
    }
}

/// Every operation sets keys whole, adds hash fields or reads: each runs
/// once more on a connection Redis dropped.
impl<C> TaskStore for RedisStore<C>
where
    C: ConnectionLike + Clone + Send + Sync + 'static,
{
    fn create<'a>(
        &'a self,
        id: &'a str,
        record: Vec<u8>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let mut pipe = redis::pipe();
            pipe.cmd("SET")
                .arg(self.task_key(id, "t"))
                .arg(record)
                .arg("PX")
                .arg(expiry_ms(ttl))
                .ignore();
            self.run::<()>(&pipe).await
        })
    }

    fn read<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<StoredTask>, StoreError>> {
        Box::pin(async move {
            let mut pipe = redis::pipe();
            pipe.cmd("GET").arg(self.task_key(id, "t"));
            pipe.cmd("HKEYS").arg(self.task_key(id, "ta"));
            let (record, answered): (Option<Vec<u8>>, Vec<String>) = self.run(&pipe).await?;
            Ok(record.map(|record| StoredTask::new(record, answered)))
        })
    }

    fn write<'a>(&'a self, id: &'a str, record: Vec<u8>) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let mut pipe = redis::pipe();
            // XX: an expired task stays expired; KEEPTTL: it expires when
            // it was going to.
            pipe.cmd("SET")
                .arg(self.task_key(id, "t"))
                .arg(record)
                .arg("XX")
                .arg("KEEPTTL")
                .ignore();
            self.run::<()>(&pipe).await
        })
    }

    fn cancel<'a>(&'a self, id: &'a str, ttl: Duration) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let mut pipe = redis::pipe();
            pipe.cmd("SET")
                .arg(self.task_key(id, "tc"))
                .arg(1)
                .arg("PX")
                .arg(expiry_ms(ttl))
                .ignore();
            self.run::<()>(&pipe).await
        })
    }

    fn respond<'a>(
        &'a self,
        id: &'a str,
        responses: Vec<(String, Vec<u8>)>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            if responses.is_empty() {
                return Ok(());
            }
            let key = self.task_key(id, "ta");
            let mut pipe = redis::pipe();
            let hset = pipe.cmd("HSET").arg(&key);
            for (field, value) in responses {
                hset.arg(field).arg(value);
            }
            hset.ignore();
            pipe.cmd("PEXPIRE").arg(&key).arg(expiry_ms(ttl)).ignore();
            self.run::<()>(&pipe).await
        })
    }

    fn signals<'a>(
        &'a self,
        id: &'a str,
        with_responses: bool,
    ) -> BoxFuture<'a, Result<TaskSignals, StoreError>> {
        Box::pin(async move {
            let mut pipe = redis::pipe();
            pipe.cmd("EXISTS").arg(self.task_key(id, "tc"));
            if with_responses {
                pipe.cmd("HGETALL").arg(self.task_key(id, "ta"));
                let (cancelled, responses): (bool, Vec<(String, Vec<u8>)>) =
                    self.run(&pipe).await?;
                Ok(TaskSignals {
                    cancelled,
                    responses,
                })
            } else {
                let (cancelled,): (bool,) = self.run(&pipe).await?;
                Ok(TaskSignals {
                    cancelled,
                    responses: Vec::new(),
                })
            }
        })
    }
}
