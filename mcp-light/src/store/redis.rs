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

mod audit;
mod cluster;
mod config;
mod tasks;

use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

use redis::aio::{ConnectionLike, ConnectionManager, ConnectionManagerConfig};
use serde::{Deserialize, Serialize};

use super::TaskStore;
use super::index::{self, OFFSET_BYTES};
use super::{
    BoxFuture, Chunk, ContinuationStore, Entry, EntryInfo, EntryWriter, ListItems, Origin, Owner,
    Sealed, StoreError, StoredItems,
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

    /// Runs `operation` within the configured timeout.
    async fn deadline<T>(
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
    async fn run_once<T: redis::FromRedisValue>(
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
    async fn run<T: redis::FromRedisValue>(&self, pipe: &redis::Pipeline) -> Result<T, StoreError> {
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

    async fn read_meta(
        &self,
        token: &Token,
    ) -> Result<Option<(Meta, Option<Vec<u8>>)>, StoreError> {
        let mut pipe = redis::pipe();
        pipe.cmd("GET").arg(self.key(token, "m"));
        pipe.cmd("GET").arg(self.key(token, "d"));
        let (meta, digest): (Option<Vec<u8>>, Option<Vec<u8>>) = self.run(&pipe).await?;
        match meta {
            Some(meta) => Ok(Some((read_meta(&meta)?, digest.filter(|d| !d.is_empty())))),
            None => Ok(None),
        }
    }

    async fn get_now(&self, token: &Token) -> Result<Option<Entry>, StoreError> {
        let Some((meta, digest)) = self.read_meta(token).await? else {
            return Ok(None);
        };
        let mut pipe = redis::pipe();
        for n in 0..meta.parts() {
            pipe.cmd("GET").arg(self.body_key(token, n));
        }
        let parts: Vec<Option<Vec<u8>>> = self.run(&pipe).await?;
        let mut body = Vec::with_capacity(meta.len as usize);
        for part in parts {
            // A part expired between the two reads: the entry is gone.
            let Some(part) = part else {
                return Ok(None);
            };
            body.extend_from_slice(&part);
        }
        if body.len() as u64 != meta.len {
            return Ok(None);
        }
        Ok(Some(
            Entry::new(meta.owner(), meta.origin.into(), body).with_digest(digest.map(Arc::from)),
        ))
    }

    async fn info_now(&self, token: &Token) -> Result<Option<EntryInfo>, StoreError> {
        Ok(self
            .read_meta(token)
            .await?
            .map(|(meta, digest)| EntryInfo {
                owner: meta.owner(),
                origin: meta.origin.into(),
                size: meta.len,
                digest: digest.map(Arc::from),
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
        let mut pipe = redis::pipe();
        pipe.cmd("GET").arg(self.key(token, "m"));
        pipe.cmd("GETRANGE")
            .arg(self.key(token, "i"))
            .arg(redis_index(first as u64))
            .arg(redis_index(last as u64));
        let (meta, offsets): (Option<Vec<u8>>, Vec<u8>) = self.run(&pipe).await?;
        let Some(meta) = meta else {
            return Ok(None);
        };
        let meta = read_meta(&meta)?;
        let Some(total) = meta.items.map(|items| items as usize) else {
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
        let chunk_start = starts[0];
        let chunk_end = if through_the_end {
            meta.len
        } else {
            starts[range.len()]
        };
        // The parts the page's bytes lie in, each read by range.
        let mut pipe = redis::pipe();
        let mut at = chunk_start;
        while at < chunk_end {
            let part = at / meta.part_bytes;
            let part_end = ((part + 1) * meta.part_bytes).min(chunk_end);
            pipe.cmd("GETRANGE")
                .arg(self.body_key(token, part))
                .arg(redis_index(at - part * meta.part_bytes))
                .arg(redis_index(part_end - part * meta.part_bytes - 1));
            at = part_end;
        }
        let pieces: Vec<Vec<u8>> = self.run(&pipe).await?;
        let chunk = pieces.concat();
        if chunk.len() as u64 != chunk_end - chunk_start {
            return Ok(None);
        }
        Ok(list(index::split_items(
            &chunk,
            &starts[..range.len()],
            through_the_end,
        )))
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

/// One entry being written to Redis: its chunks appended as they come, its
/// meta record written at commit.
struct RedisWriter<'a, C: ConnectionLike + Clone + Send + Sync + 'static> {
    store: &'a RedisStore<C>,
    token: Token,
    owner: Owner,
    origin: Origin,
    /// The body's bytes so far.
    size: u64,
    /// The items so far.
    items: u64,
    /// Whether any key was written, to delete if the entry is dropped.
    wrote: bool,
    committed: bool,
}

impl<C> RedisWriter<'_, C>
where
    C: ConnectionLike + Clone + Send + Sync + 'static,
{
    async fn write_now(&mut self, chunk: Chunk) -> Result<(), StoreError> {
        let config = &self.store.config;
        let size = self.size + chunk.bytes.len() as u64;
        if size > config.max_entry_bytes {
            return Err(StoreError::TooLarge {
                size,
                limit: config.max_entry_bytes,
            });
        }
        let ttl = expiry_ms(config.ttl);
        let mut pipe = redis::pipe();
        let mut rest = &chunk.bytes[..];
        let mut at = self.size;
        while !rest.is_empty() {
            let part = at / config.part_bytes;
            let room = ((part + 1) * config.part_bytes - at) as usize;
            let (piece, after) = rest.split_at(room.min(rest.len()));
            let key = self.store.body_key(&self.token, part);
            // A part this chunk starts is set whole, so the chunk that
            // starts an entry can run twice with the same effect.
            let verb = if at.is_multiple_of(config.part_bytes) {
                "SET"
            } else {
                "APPEND"
            };
            pipe.cmd(verb).arg(&key).arg(piece).ignore();
            pipe.cmd("PEXPIRE").arg(&key).arg(ttl).ignore();
            at += piece.len() as u64;
            rest = after;
        }
        if !chunk.item_starts.is_empty() {
            let key = self.store.key(&self.token, "i");
            pipe.cmd(if self.items == 0 { "SET" } else { "APPEND" })
                .arg(&key)
                .arg(index::to_bytes(&chunk.item_starts))
                .ignore();
            pipe.cmd("PEXPIRE").arg(&key).arg(ttl).ignore();
        }
        self.wrote = true;
        // The first chunk sets every key it writes: a dropped connection
        // retries it. A later one appends to a part begun before, so it
        // runs once.
        if self.size == 0 {
            self.store.run::<()>(&pipe).await?;
        } else {
            self.store.run_once::<()>(&pipe).await?;
        }
        self.size = size;
        self.items += chunk.item_starts.len() as u64;
        Ok(())
    }

    async fn commit_now(mut self, sealed: Sealed) -> Result<(), StoreError> {
        let store = self.store;
        let meta = Meta {
            caller: self.owner.caller.clone(),
            tool: self.owner.tool.clone(),
            scopes: self.owner.scopes.clone(),
            origin: self.origin.into(),
            len: self.size,
            part_bytes: store.config.part_bytes,
            items: sealed.items,
        };
        let meta_bytes = serde_json::to_vec(&meta).expect("the meta record serializes");
        let ttl = expiry_ms(store.config.ttl);
        let mut pipe = redis::pipe();
        pipe.atomic();
        if self.size == 0 {
            pipe.cmd("SET")
                .arg(store.body_key(&self.token, 0))
                .arg("")
                .arg("PX")
                .arg(ttl)
                .ignore();
        }
        for n in 0..meta.parts() {
            pipe.cmd("PEXPIRE")
                .arg(store.body_key(&self.token, n))
                .arg(ttl)
                .ignore();
        }
        if sealed.items.is_some() {
            pipe.cmd("PEXPIRE")
                .arg(store.key(&self.token, "i"))
                .arg(ttl)
                .ignore();
        }
        if !sealed.digest.is_empty() {
            pipe.cmd("SET")
                .arg(store.key(&self.token, "d"))
                .arg(&*sealed.digest)
                .arg("PX")
                .arg(ttl)
                .ignore();
        }
        pipe.cmd("SET")
            .arg(store.key(&self.token, "m"))
            .arg(meta_bytes)
            .arg("PX")
            .arg(ttl)
            .ignore();
        let committed = store.run::<()>(&pipe).await;
        self.committed = committed.is_ok();
        committed
    }
}

impl<C> EntryWriter for RedisWriter<'_, C>
where
    C: ConnectionLike + Clone + Send + Sync + 'static,
{
    fn write(&mut self, chunk: Chunk) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(self.write_now(chunk))
    }

    fn commit<'s>(self: Box<Self>, sealed: Sealed) -> BoxFuture<'s, Result<(), StoreError>>
    where
        Self: 's,
    {
        Box::pin((*self).commit_now(sealed))
    }
}

impl<C: ConnectionLike + Clone + Send + Sync + 'static> Drop for RedisWriter<'_, C> {
    /// An entry dropped half-written: its keys are deleted in the
    /// background where a runtime allows, and expire anyway.
    fn drop(&mut self) {
        if self.committed || !self.wrote {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let config = &self.store.config;
        let parts = self.size.div_ceil(config.part_bytes).max(1);
        let mut keys: Vec<String> = (0..parts)
            .map(|n| self.store.body_key(&self.token, n))
            .collect();
        keys.push(self.store.key(&self.token, "i"));
        let mut connection = self.store.connection.clone();
        let timeout = config.timeout;
        runtime.spawn(async move {
            let mut delete = redis::cmd("DEL");
            delete.arg(keys);
            let _ = tokio::time::timeout(timeout, delete.query_async::<()>(&mut connection)).await;
        });
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

impl<C> RedisStore<C>
where
    C: ConnectionLike + Clone + Send + Sync + 'static,
{
    fn writer(&self, token: Token, owner: Owner, origin: Origin) -> RedisWriter<'_, C> {
        RedisWriter {
            store: self,
            token,
            owner,
            origin,
            size: 0,
            items: 0,
            wrote: false,
            committed: false,
        }
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
fn redis_index(position: u64) -> i64 {
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
