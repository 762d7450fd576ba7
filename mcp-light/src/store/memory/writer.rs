//! An entry of the in-memory store written chunk by chunk: in memory while
//! it fits, then in the disk tier.

use std::sync::{Arc, OnceLock};

use super::disk::Spilling;
use super::{Body, IndexCell, MemoryStore, NewSlot, disk_error, unfinished};
use crate::runtime::run_sync;
use crate::store::index::{self, OFFSET_BYTES};
use crate::store::{BoxFuture, Chunk, Entry, EntryWriter, Origin, Owner, Sealed, StoreError};
use crate::token::Token;

/// One entry being written to a [`MemoryStore`].
pub(super) struct MemoryWriter<'a> {
    store: &'a MemoryStore,
    token: Token,
    owner: Owner,
    origin: Origin,
    /// The body's bytes so far.
    size: u64,
    /// The body and item starts while in memory.
    body: Vec<u8>,
    starts: Vec<u64>,
    /// The entry's files once it spilled. Taken while a write runs on the
    /// blocking pool; a write cancelled there drops them, and so removes
    /// the files.
    spilling: Option<Spilling>,
    /// The disk bytes reserved for it so far.
    reserved: u64,
    /// A write failed: the entry can no longer be committed.
    broken: bool,
}

impl<'a> MemoryWriter<'a> {
    pub(super) fn new(store: &'a MemoryStore, token: Token, owner: Owner, origin: Origin) -> Self {
        MemoryWriter {
            store,
            token,
            owner,
            origin,
            size: 0,
            body: Vec::new(),
            starts: Vec::new(),
            spilling: None,
            reserved: 0,
            broken: false,
        }
    }

    async fn write_now(&mut self, chunk: Chunk) -> Result<(), StoreError> {
        if self.broken {
            return Err(StoreError::Unavailable(
                "an earlier write of this entry failed".to_owned(),
            ));
        }
        let result = self.append(chunk).await;
        if result.is_err() {
            self.broken = true;
            // Free what was gathered now: the entry will never be committed.
            self.body = Vec::new();
            self.starts = Vec::new();
            self.spilling = None;
        }
        result
    }

    async fn append(&mut self, chunk: Chunk) -> Result<(), StoreError> {
        self.size += chunk.bytes.len() as u64;
        let inner = &self.store.inner;
        if self.spilling.is_none() {
            let in_memory = self.body.len()
                + chunk.bytes.len()
                + (self.starts.len() + chunk.item_starts.len()) * OFFSET_BYTES;
            let limit = inner.memory_limit();
            if in_memory <= limit {
                // Grown by doubling, but never past the limit: a body about
                // to spill does not hold twice its size first.
                let needed = self.body.len() + chunk.bytes.len();
                if needed > self.body.capacity() {
                    let grown = (self.body.capacity() * 2).clamp(needed, limit.max(needed));
                    self.body.reserve_exact(grown - self.body.len());
                }
                self.body.extend_from_slice(&chunk.bytes);
                self.starts.extend_from_slice(&chunk.item_starts);
                return Ok(());
            }
            if inner.config.max_disk_bytes == 0 {
                return Err(StoreError::TooLarge {
                    size: self.size,
                    limit: limit as u64,
                });
            }
            // Over the memory limit: everything so far moves to disk.
            let dir = inner.spill_dir()?;
            self.reserve(in_memory as u64)?;
            let (body, starts) = (
                std::mem::take(&mut self.body),
                std::mem::take(&mut self.starts),
            );
            let spilling = run_sync(move || {
                let mut spilling = Spilling::start(&dir)?;
                spilling.append(&body, &starts)?;
                spilling.append(&chunk.bytes, &chunk.item_starts)?;
                Ok::<_, std::io::Error>(spilling)
            })
            .await
            .map_err(unfinished)?
            .map_err(|error| disk_error("write", &error))?;
            self.spilling = Some(spilling);
            return Ok(());
        }
        self.reserve((chunk.bytes.len() + chunk.item_starts.len() * OFFSET_BYTES) as u64)?;
        let mut spilling = self.spilling.take().expect("checked above");
        self.spilling = Some(
            run_sync(move || {
                spilling.append(&chunk.bytes, &chunk.item_starts)?;
                Ok::<_, std::io::Error>(spilling)
            })
            .await
            .map_err(unfinished)?
            .map_err(|error| disk_error("write", &error))?,
        );
        Ok(())
    }

    fn reserve(&mut self, bytes: u64) -> Result<(), StoreError> {
        self.store.inner.reserve_disk(bytes, self.reserved)?;
        self.reserved += bytes;
        Ok(())
    }

    async fn commit_now(mut self, sealed: Sealed) -> Result<(), StoreError> {
        if self.broken {
            return Err(StoreError::Unavailable(
                "an earlier write of this entry failed".to_owned(),
            ));
        }
        let items = sealed.items.map(|items| items as usize);
        // An empty digest is none (a whole entry put without one).
        let digest = Some(sealed.digest).filter(|digest| !digest.is_empty());
        let (new, disk) = match self.spilling.take() {
            None => {
                let starts: Option<Arc<[u64]>> =
                    items.map(|_| std::mem::take(&mut self.starts).into());
                let index = IndexCell::new(OnceLock::from(starts));
                let body = std::mem::take(&mut self.body).into();
                (Body::Memory { body, index }, 0)
            }
            Some(spilling) => {
                let file = run_sync(move || spilling.finish())
                    .await
                    .map_err(unfinished)?
                    .map_err(|error| disk_error("write", &error))?;
                let body = Body::Disk {
                    file: Arc::new(file),
                    size: self.size,
                    items,
                    cost: self.reserved,
                };
                (body, self.reserved)
            }
        };
        let new = NewSlot {
            owner: self.owner.clone(),
            origin: self.origin,
            digest,
            body: new,
        };
        // The reservation becomes the entry's cost on disk.
        self.reserved = 0;
        self.store.inner.insert(&self.token, new, disk)
    }
}

impl EntryWriter for MemoryWriter<'_> {
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

impl Drop for MemoryWriter<'_> {
    fn drop(&mut self) {
        // Not committed (or committed: then nothing is reserved any more).
        if self.reserved > 0 {
            self.store.inner.release_disk(self.reserved);
        }
    }
}

/// Puts a whole entry too large for memory in the disk tier, indexed if it
/// is a pageable list.
pub(super) async fn put_on_disk(
    store: &MemoryStore,
    token: &Token,
    entry: Entry,
) -> Result<(), StoreError> {
    let Entry {
        owner,
        origin,
        body,
        digest,
        ..
    } = entry;
    let indexed = Arc::clone(&body);
    let starts = run_sync(move || {
        if origin.is_pageable() {
            index::index_list(&indexed)
        } else {
            None
        }
    })
    .await
    .map_err(unfinished)?;
    let items = starts.as_ref().map(|starts| starts.len() as u64);
    let mut writer = MemoryWriter::new(store, token.clone(), owner, origin);
    writer
        .write_now(Chunk::new(body.to_vec(), starts.unwrap_or_default()))
        .await?;
    let sealed = Sealed::new(body.len() as u64, items, digest.unwrap_or_default());
    writer.commit_now(sealed).await
}
