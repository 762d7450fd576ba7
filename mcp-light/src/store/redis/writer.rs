//! An entry of the Redis store written chunk by chunk: each chunk appended
//! to the body's keys as it comes, the meta record written at commit, the
//! keys of an entry dropped half-written deleted.

use redis::aio::ConnectionLike;

use super::{Meta, RedisStore, expiry_ms};
use crate::store::index;
use crate::store::{BoxFuture, Chunk, EntryWriter, Origin, Owner, Sealed, StoreError};
use crate::token::Token;

/// One entry being written to Redis: its chunks appended as they come, its
/// meta record written at commit.
pub(super) struct RedisWriter<'a, C: ConnectionLike + Clone + Send + Sync + 'static> {
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
    pub(super) async fn write_now(&mut self, chunk: Chunk) -> Result<(), StoreError> {
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

    pub(super) async fn commit_now(mut self, sealed: Sealed) -> Result<(), StoreError> {
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

impl<C> RedisStore<C>
where
    C: ConnectionLike + Clone + Send + Sync + 'static,
{
    pub(super) fn writer(&self, token: Token, owner: Owner, origin: Origin) -> RedisWriter<'_, C> {
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
