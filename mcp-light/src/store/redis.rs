//! The Redis continuation store: one store for several replicas (cargo
//! feature `redis`).
//!
//! An entry is three Redis strings under one key prefix, each set with the
//! same expiry (`PX`) in one `MULTI`:
//!
//! - `<prefix>{<token>}:m` — the owner (caller and tool), the origin, the
//!   body's length and, for a pageable list, its item count;
//! - `<prefix>{<token>}:i` — for a pageable list, where each item starts in
//!   the body, four bytes an item;
//! - `<prefix>{<token>}:b` — the body, the result's compact JSON.
//!
//! The token in braces is a hash tag: Redis Cluster (and Valkey's) puts the
//! three keys of an entry in one slot, so the `MULTI` and the `MGET` that
//! span them are legal there, while different entries spread over the
//! cluster. A page is two round trips that move only the page: the owner
//! and the page's offsets (`GET`, `GETRANGE`), then the page's bytes of the
//! body (`GETRANGE`).
//!
//! Redis expires entries itself, so every replica agrees on what is live;
//! its `maxmemory` policy (not this store) bounds what it holds.

mod config;

use std::ops::Range;
use std::time::Duration;

use redis::aio::{ConnectionLike, ConnectionManager, ConnectionManagerConfig};
use serde::{Deserialize, Serialize};

use super::index::{self, OFFSET_BYTES};
use super::{
    BoxFuture, ContinuationStore, Entry, ListItems, Origin, Owner, StoreError, StoredItems,
};
use crate::token::Token;

pub use config::RedisStoreConfig;

/// A continuation store in Redis or Valkey, shared by every replica that
/// connects to it: a token minted on one redeems on another, for the same
/// caller.
///
/// [`RedisStore::open`] connects through a [`ConnectionManager`], which
/// reconnects by itself: while Redis is down, every operation fails within
/// the configured timeout, so writes answer without a token and heavy reads
/// answer whole (or, over the size backstop, a probe without token), and
/// once Redis is back tokens are minted again without a restart.
///
/// Bounds: one entry at most
/// [`max_entry_bytes`](RedisStoreConfig::max_entry_bytes), each for its
/// TTL. There is no per-caller share as in
/// [`MemoryStore`](super::MemoryStore): what Redis holds in all is bounded
/// by its own `maxmemory` and eviction policy (`volatile-ttl` evicts the
/// entries closest to expiry first), so size Redis for the callers it
/// serves. [`RedisStore::with_connection`] takes any other async
/// connection (a Redis Cluster client's, for one).
///
/// ```no_run
/// use std::time::Duration;
/// use mcp_light::store::{RedisStore, RedisStoreConfig};
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let store = RedisStore::open(
///     "redis://127.0.0.1:6379",
///     RedisStoreConfig::new().with_ttl(Duration::from_secs(600)),
/// )?;
/// store.ping().await?; // optional: the store connects on first use
/// let server = mcp_light::Server::from_registry()?.with_store(store);
/// # Ok(()) }
/// ```
pub struct RedisStore<C = ConnectionManager> {
    connection: C,
    config: RedisStoreConfig,
}

/// What `<prefix>{<token>}:m` holds.
#[derive(Debug, Serialize, Deserialize)]
struct Meta {
    caller: String,
    tool: String,
    origin: StoredOrigin,
    /// The body's length in bytes.
    len: usize,
    /// For a pageable list, its number of items: the `:i` key holds their
    /// offsets.
    items: Option<usize>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum StoredOrigin {
    Read,
    SingleWrite,
    BulkWrite,
}

impl From<Origin> for StoredOrigin {
    fn from(origin: Origin) -> StoredOrigin {
        match origin {
            Origin::Read => StoredOrigin::Read,
            Origin::SingleWrite => StoredOrigin::SingleWrite,
            Origin::BulkWrite => StoredOrigin::BulkWrite,
        }
    }
}

impl From<StoredOrigin> for Origin {
    fn from(origin: StoredOrigin) -> Origin {
        match origin {
            StoredOrigin::Read => Origin::Read,
            StoredOrigin::SingleWrite => Origin::SingleWrite,
            StoredOrigin::BulkWrite => Origin::BulkWrite,
        }
    }
}

impl Meta {
    fn owner(&self) -> Owner {
        Owner {
            caller: self.caller.clone(),
            tool: self.tool.clone(),
        }
    }
}

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
    /// A store on `connection`: a [`ConnectionManager`], a multiplexed
    /// connection, or a Redis Cluster connection (the `redis` crate's
    /// `cluster-async` feature), whose keys the hash tags keep together.
    pub fn with_connection(connection: C, config: RedisStoreConfig) -> RedisStore<C> {
        RedisStore { connection, config }
    }

    /// The configuration this store was made with.
    pub fn config(&self) -> &RedisStoreConfig {
        &self.config
    }

    /// Whether Redis answers, within the configured timeout.
    pub async fn ping(&self) -> Result<(), StoreError> {
        let mut connection = self.connection.clone();
        self.deadline(redis::cmd("PING").query_async::<String>(&mut connection))
            .await
            .map(drop)
    }

    /// The key of `part` (`m`, `i` or `b`) of the entry under `token`.
    fn key(&self, token: &Token, part: &str) -> String {
        format!("{}{{{}}}:{part}", self.config.prefix, token.as_str())
    }

    /// Runs `operation` within the configured timeout.
    async fn deadline<T>(
        &self,
        operation: impl Future<Output = redis::RedisResult<T>>,
    ) -> Result<T, StoreError> {
        match tokio::time::timeout(self.config.timeout, operation).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(error)) => Err(StoreError::Unavailable(format!("Redis: {error}"))),
            Err(_) => Err(StoreError::Unavailable(format!(
                "Redis did not answer within {} ms",
                self.config.timeout.as_millis()
            ))),
        }
    }

    async fn put_now(&self, token: &Token, entry: Entry) -> Result<(), StoreError> {
        if entry.body.len() > self.config.max_entry_bytes {
            return Err(StoreError::TooLarge {
                size: entry.body.len(),
                limit: self.config.max_entry_bytes,
            });
        }
        let starts = if entry.origin.is_pageable() {
            index::index_list(&entry.body)
        } else {
            None
        };
        let meta = Meta {
            caller: entry.owner.caller,
            tool: entry.owner.tool,
            origin: entry.origin.into(),
            len: entry.body.len(),
            items: starts.as_ref().map(Vec::len),
        };
        let meta = serde_json::to_vec(&meta).expect("the meta record serializes");
        let ttl = expiry_ms(self.config.ttl);
        let mut pipe = redis::pipe();
        pipe.atomic();
        pipe.cmd("SET")
            .arg(self.key(token, "m"))
            .arg(meta)
            .arg("PX")
            .arg(ttl)
            .ignore();
        if let Some(starts) = &starts {
            pipe.cmd("SET")
                .arg(self.key(token, "i"))
                .arg(index::to_bytes(starts))
                .arg("PX")
                .arg(ttl)
                .ignore();
        }
        pipe.cmd("SET")
            .arg(self.key(token, "b"))
            .arg(&*entry.body)
            .arg("PX")
            .arg(ttl)
            .ignore();
        let mut connection = self.connection.clone();
        self.deadline(pipe.query_async::<()>(&mut connection)).await
    }

    async fn get_now(&self, token: &Token) -> Result<Option<Entry>, StoreError> {
        let mut connection = self.connection.clone();
        let (meta, body): (Option<Vec<u8>>, Option<Vec<u8>>) = self
            .deadline(
                redis::cmd("MGET")
                    .arg(self.key(token, "m"))
                    .arg(self.key(token, "b"))
                    .query_async(&mut connection),
            )
            .await?;
        let (Some(meta), Some(body)) = (meta, body) else {
            return Ok(None);
        };
        let meta = read_meta(&meta)?;
        Ok(Some(Entry {
            owner: meta.owner(),
            origin: meta.origin.into(),
            body: body.into(),
        }))
    }

    async fn get_items_now(
        &self,
        token: &Token,
        range: Range<usize>,
    ) -> Result<Option<StoredItems>, StoreError> {
        // The offsets of the asked items and of the one after them, which
        // is where the last asked item ends; fewer past the end of the list.
        let first = range.start.saturating_mul(OFFSET_BYTES);
        let last = range
            .end
            .saturating_add(1)
            .saturating_mul(OFFSET_BYTES)
            .saturating_sub(1);
        let mut connection = self.connection.clone();
        let (meta, offsets): (Option<Vec<u8>>, Vec<u8>) = self
            .deadline(
                redis::pipe()
                    .cmd("GET")
                    .arg(self.key(token, "m"))
                    .cmd("GETRANGE")
                    .arg(self.key(token, "i"))
                    .arg(redis_index(first))
                    .arg(redis_index(last))
                    .query_async(&mut connection),
            )
            .await?;
        let Some(meta) = meta else {
            return Ok(None);
        };
        let meta = read_meta(&meta)?;
        let Some(total) = meta.items else {
            // Not a pageable list: served whole.
            return Ok(self.get_now(token).await?.map(StoredItems::Whole));
        };
        let range = index::clamp(range, total);
        let list = |items| {
            Some(StoredItems::List(ListItems {
                owner: meta.owner(),
                origin: meta.origin.into(),
                total,
                items,
            }))
        };
        if range.is_empty() {
            return Ok(list(Vec::new()));
        }
        let starts = index::from_bytes(&offsets);
        let through_the_end = range.end == total;
        let wanted = range.len() + usize::from(!through_the_end);
        if starts.len() < wanted {
            // The entry expired between the two reads.
            return Ok(None);
        }
        let chunk_start = starts[0] as usize;
        let chunk_end = if through_the_end {
            meta.len
        } else {
            starts[range.len()] as usize
        };
        let chunk: Vec<u8> = self
            .deadline(
                redis::cmd("GETRANGE")
                    .arg(self.key(token, "b"))
                    .arg(redis_index(chunk_start))
                    .arg(redis_index(chunk_end.saturating_sub(1)))
                    .query_async(&mut connection),
            )
            .await?;
        if chunk.len() != chunk_end - chunk_start {
            return Ok(None);
        }
        Ok(list(index::split_items(
            &chunk,
            &starts[..range.len()],
            through_the_end,
        )))
    }
}

impl<C> ContinuationStore for RedisStore<C>
where
    C: ConnectionLike + Clone + Send + Sync + 'static,
{
    fn put<'a>(&'a self, token: &'a Token, entry: Entry) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(self.put_now(token, entry))
    }

    fn get<'a>(&'a self, token: &'a Token) -> BoxFuture<'a, Result<Option<Entry>, StoreError>> {
        Box::pin(self.get_now(token))
    }

    /// Reads the page's offsets, then the page's bytes of the body:
    /// `GETRANGE` twice, whatever the size of the list.
    fn get_items<'a>(
        &'a self,
        token: &'a Token,
        items: Range<usize>,
    ) -> BoxFuture<'a, Result<Option<StoredItems>, StoreError>> {
        Box::pin(self.get_items_now(token, items))
    }

    fn ttl(&self) -> Duration {
        self.config.ttl
    }
}

impl<C> std::fmt::Debug for RedisStore<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisStore")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

fn read_meta(bytes: &[u8]) -> Result<Meta, StoreError> {
    serde_json::from_slice(bytes).map_err(|error| {
        StoreError::Unavailable(format!(
            "a continuation entry in Redis is not one mcp-light wrote ({error}); \
             give this store a key prefix of its own"
        ))
    })
}

/// `ttl` in whole milliseconds, at least 1 (Redis refuses `PX 0`).
fn expiry_ms(ttl: Duration) -> u64 {
    u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1)
}

/// A byte position as Redis takes it, a signed 64-bit integer.
fn redis_index(position: usize) -> i64 {
    i64::try_from(position).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_entrys_keys_share_one_hash_tag_under_the_prefix() {
        let store = RedisStore::open("redis://127.0.0.1:1", RedisStoreConfig::new()).unwrap();
        let token = Token::parse("000042ment930114ound552019ship118345est").unwrap();
        let keys: Vec<String> = ["m", "i", "b"]
            .iter()
            .map(|p| store.key(&token, p))
            .collect();
        assert_eq!(
            keys,
            [
                "mcp-light:{000042ment930114ound552019ship118345est}:m",
                "mcp-light:{000042ment930114ound552019ship118345est}:i",
                "mcp-light:{000042ment930114ound552019ship118345est}:b",
            ]
        );
    }

    #[tokio::test]
    async fn a_bad_url_is_refused_with_an_example() {
        let error = RedisStore::open("localhost:6379", RedisStoreConfig::new()).unwrap_err();
        assert!(
            error.to_string().contains("redis://127.0.0.1:6379"),
            "{error}"
        );
    }

    #[test]
    fn expiry_is_in_milliseconds_and_never_zero() {
        assert_eq!(expiry_ms(Duration::from_secs(300)), 300_000);
        assert_eq!(expiry_ms(Duration::from_micros(10)), 1);
        assert_eq!(expiry_ms(Duration::MAX), u64::MAX);
    }

    #[tokio::test]
    async fn a_redis_that_is_not_there_is_unavailable_within_the_timeout() {
        // Port 1 on loopback: nothing listens, the connection is refused.
        let config = RedisStoreConfig::new().with_timeout(Duration::from_millis(500));
        let store = RedisStore::open("redis://127.0.0.1:1", config).unwrap();
        let started = std::time::Instant::now();
        let error = store.ping().await.unwrap_err();
        assert!(matches!(error, StoreError::Unavailable(_)), "{error:?}");
        assert!(started.elapsed() < Duration::from_secs(2));
    }
}
