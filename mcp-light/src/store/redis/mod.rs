//! The Redis continuation store: one store for several replicas (cargo
//! feature `redis`).
//!
//! An entry is a few Redis strings under one key prefix, all with the same
//! expiry (`PX`):
//!
//! - `<prefix>{<token>}:m` — the owner (caller and tool), the origin, the
//!   body's length and part size and, for a pageable list, its item count;
//!   written last, at commit: an entry without it is not there;
//! - `<prefix>{<token>}:d` — mcp-light's digest of the result (its summary);
//! - `<prefix>{<token>}:i` — for a pageable list, where each item starts in
//!   the body, eight bytes an item;
//! - `<prefix>{<token>}:b0`, `:b1`, … — the body, the result's compact
//!   JSON, [`part_bytes`](RedisStoreConfig::part_bytes) to a key (a Redis
//!   string holds at most 512 MB).
//!
//! The body and index are written chunk by chunk as the result streams (a
//! key's first bytes `SET`, the rest `APPEND`ed), each chunk in one round
//! trip that also sets the keys' expiry, so a replica that dies half-way
//! leaves keys that expire. The commit writes
//! `:m` and `:d` and renews every key's expiry in one `MULTI`.
//!
//! The token in braces is a hash tag: Redis Cluster (and Valkey's) puts all
//! the keys of an entry in one slot, so the `MULTI` and the pipelines that
//! span them are legal there, while different entries spread over the
//! cluster. No pipeline of the store names keys of two entries
//! ([`RedisStore::open_cluster`]). A page is two round trips that move only the page: the owner
//! and the page's offsets (`GET`, `GETRANGE`), then the page's bytes of the
//! body (`GETRANGE` on the one or two parts it lies in).
//!
//! Redis expires entries itself, so every replica agrees on what is live;
//! its `maxmemory` policy (not this store) bounds what it holds.
//!
//! Opening the store and running its commands are in [`connection`], the
//! readers in [`read`], the writer of an entry in [`writer`].

mod audit;
mod cluster;
mod config;
mod connection;
mod read;
mod tasks;
mod writer;

use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

use redis::aio::{ConnectionLike, ConnectionManager};
use serde::{Deserialize, Serialize};

use super::TaskStore;
use super::index;
use super::{
    BoxFuture, Chunk, ContinuationStore, Entry, EntryInfo, EntryWriter, Origin, Owner, Sealed,
    StoreError, StoredItems,
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
/// once Redis is back tokens are minted again without a restart. A
/// connection Redis dropped while the store sat idle (a restart, a
/// failover) costs no call and no probe anything: a read, a write that
/// sets its keys whole, or the readiness `PING`, that meets it runs once
/// more on a fresh connection; only an `APPEND` of a later chunk of a
/// streamed entry is never run twice.
///
/// Bounds: one entry at most
/// [`max_entry_bytes`](RedisStoreConfig::max_entry_bytes), each for its
/// TTL. There is no per-caller share as in
/// [`MemoryStore`](super::MemoryStore): what Redis holds in all is bounded
/// by its own `maxmemory` and eviction policy (`volatile-ttl` evicts the
/// entries closest to expiry first), so size Redis for the callers it
/// serves. [`RedisStore::open_cluster`] keeps the entries on a Redis
/// Cluster; [`RedisStore::with_connection`] takes any other async
/// connection.
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
/// let server = mcp_light::Server::from_registry().with_store(store).build()?;
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
    /// The scopes the tool that made the entry required; absent for none
    /// (and in a record written before they were kept).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    scopes: Vec<String>,
    origin: StoredOrigin,
    /// The body's length in bytes.
    len: u64,
    /// How many bytes each body key holds, the last fewer.
    part_bytes: u64,
    /// For a pageable list, its number of items: the `:i` key holds their
    /// offsets.
    items: Option<u64>,
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
            scopes: self.scopes.clone(),
        }
    }

    /// How many keys the body spans (one even when empty).
    fn parts(&self) -> u64 {
        self.len.div_ceil(self.part_bytes).max(1)
    }
}

impl<C> RedisStore<C>
where
    C: ConnectionLike + Clone + Send + Sync + 'static,
{
    /// A store on `connection`: a [`ConnectionManager`], a multiplexed
    /// connection, or a Redis Cluster connection (the `redis` crate's
    /// `cluster-async` feature), whose keys the hash tags keep together.
    ///
    /// # Panics
    ///
    /// When a setting makes no sense ([`RedisStoreConfig::check`]): a field
    /// set to 0 directly, say.
    pub fn with_connection(connection: C, config: RedisStoreConfig) -> RedisStore<C> {
        if let Err(problem) = config.check() {
            panic!("{problem}");
        }
        RedisStore { connection, config }
    }

    /// The configuration this store was made with.
    pub fn config(&self) -> &RedisStoreConfig {
        &self.config
    }

    /// Whether Redis answers, within the configured timeout. A connection
    /// Redis dropped while the store sat idle is tried once more on a fresh
    /// one, as a read is: a probe after a restart sees Redis as it is now.
    pub async fn ping(&self) -> Result<(), StoreError> {
        let mut pipe = redis::pipe();
        pipe.cmd("PING");
        self.run::<(String,)>(&pipe).await.map(drop)
    }

    /// The key of `part` (`m`, `d`, `i`, or `b<n>`) of the entry under
    /// `token`.
    fn key(&self, token: &Token, part: &str) -> String {
        format!("{}{{{}}}:{part}", self.config.prefix, token.as_str())
    }

    /// The key of body part `n` of the entry under `token`.
    fn body_key(&self, token: &Token, n: u64) -> String {
        self.key(token, &format!("b{n}"))
    }
}

impl<C> ContinuationStore for RedisStore<C>
where
    C: ConnectionLike + Clone + Send + Sync + 'static,
{
    fn name(&self) -> &'static str {
        "redis"
    }

    /// Writes the entry as one chunk ([`begin`](ContinuationStore::begin)).
    fn put<'a>(&'a self, token: &'a Token, entry: Entry) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let starts = if entry.origin.is_pageable() {
                index::index_list(&entry.body)
            } else {
                None
            };
            let items = starts.as_ref().map(|starts| starts.len() as u64);
            let sealed = Sealed::new(
                entry.body.len() as u64,
                items,
                entry.digest.clone().unwrap_or_default(),
            );
            let mut writer = self.writer(token.clone(), entry.owner, entry.origin);
            if !entry.body.is_empty() {
                writer
                    .write_now(Chunk::new(entry.body.to_vec(), starts.unwrap_or_default()))
                    .await?;
            }
            writer.commit_now(sealed).await
        })
    }

    fn get<'a>(&'a self, token: &'a Token) -> BoxFuture<'a, Result<Option<Entry>, StoreError>> {
        Box::pin(self.get_now(token))
    }

    fn ttl(&self) -> Duration {
        self.config.ttl
    }

    /// Tasks in the same Redis, under the same prefix: every replica on
    /// it follows every task.
    fn tasks(&self) -> Option<Arc<dyn TaskStore>> {
        Some(Arc::new(RedisStore {
            connection: self.connection.clone(),
            config: self.config.clone(),
        }))
    }

    /// Appends each chunk to the entry's keys as it comes, so no body is
    /// ever held whole.
    fn begin<'a>(
        &'a self,
        token: Token,
        owner: Owner,
        origin: Origin,
    ) -> BoxFuture<'a, Result<Box<dyn EntryWriter + 'a>, StoreError>> {
        Box::pin(async move {
            Ok(Box::new(self.writer(token, owner, origin)) as Box<dyn EntryWriter + 'a>)
        })
    }

    /// One round trip: the meta record and the digest.
    fn info<'a>(
        &'a self,
        token: &'a Token,
    ) -> BoxFuture<'a, Result<Option<EntryInfo>, StoreError>> {
        Box::pin(self.info_now(token))
    }

    /// Reads the page's offsets, then the page's bytes of the body:
    /// `GETRANGE` twice (three times when the page straddles two parts),
    /// whatever the size of the list.
    fn get_items<'a>(
        &'a self,
        token: &'a Token,
        items: Range<usize>,
    ) -> BoxFuture<'a, Result<Option<StoredItems>, StoreError>> {
        Box::pin(self.get_items_now(token, items))
    }

    /// A `PING` through the store's connection, within the configured
    /// [`timeout`](RedisStoreConfig::timeout) (1 s by default), once more
    /// on a connection Redis dropped ([`RedisStore::ping`]).
    fn ready(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(self.ping())
    }

    /// A `PING`, then whether Redis keeps entries across its restart and
    /// for their whole TTL ([`crate::audit`]).
    fn audit(&self) -> BoxFuture<'_, Vec<crate::audit::Finding>> {
        Box::pin(self.audit_now())
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
    async fn a_redis_that_is_not_there_is_not_ready() {
        let config = RedisStoreConfig::new().with_timeout(Duration::from_millis(500));
        let store = RedisStore::open("redis://127.0.0.1:1", config).unwrap();
        let error = store.ready().await.unwrap_err();
        assert!(matches!(error, StoreError::Unavailable(_)), "{error:?}");
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
