//! The in-memory store's readers: a whole entry, what an entry is, and a
//! page of a stored list, from memory or from the disk tier's files.

use std::ops::Range;
use std::sync::Arc;

use super::disk::SpillFile;
use super::lock::lock;
use super::{Body, IndexCell, MemoryStore, disk_error, is_expired, unfinished};
use crate::runtime::{off_workers, run_sync};
use crate::store::index::{self, OFFSET_BYTES};
use crate::store::{Entry, EntryInfo, ListItems, Origin, Owner, StoreError, StoredItems};
use crate::token::Token;

/// A live slot's contents, read under the lock and used outside it.
struct Found {
    seq: u64,
    owner: Owner,
    origin: Origin,
    digest: Option<Arc<[u8]>>,
    body: FoundBody,
}

enum FoundBody {
    Memory(Arc<[u8]>, IndexCell),
    Disk(Arc<SpillFile>, u64, Option<usize>),
}

impl MemoryStore {
    /// The live slot under `token`, its contents cloned out of the lock; an
    /// expired one is dropped.
    fn found(&self, token: &Token) -> Option<Found> {
        let inner = &self.inner;
        let mut state = lock(&inner.state);
        let now = inner.clock.now();
        let slot = state.entries.get(token)?;
        if is_expired(slot, now, inner.config.ttl) {
            state.remove(token);
            return None;
        }
        Some(Found {
            seq: slot.seq,
            owner: slot.owner.clone(),
            origin: slot.origin,
            digest: slot.digest.clone(),
            body: match &slot.body {
                Body::Memory { body, index } => FoundBody::Memory(body.clone(), index.clone()),
                Body::Disk {
                    file, size, items, ..
                } => FoundBody::Disk(file.clone(), *size, *items),
            },
        })
    }

    pub(super) async fn get_now(&self, token: &Token) -> Result<Option<Entry>, StoreError> {
        let Some(found) = self.found(token) else {
            return Ok(None);
        };
        let body = match found.body {
            FoundBody::Memory(body, _) => body,
            FoundBody::Disk(file, ..) => run_sync(move || file.read_body())
                .await
                .map_err(unfinished)?
                .map_err(|error| disk_error("read", &error))?
                .into(),
        };
        Ok(Some(
            Entry::new(found.owner, found.origin, body).with_digest(found.digest),
        ))
    }

    pub(super) fn info_now(&self, token: &Token) -> Option<EntryInfo> {
        let found = self.found(token)?;
        let size = match &found.body {
            FoundBody::Memory(body, _) => body.len() as u64,
            FoundBody::Disk(_, size, _) => *size,
        };
        Some(EntryInfo {
            owner: found.owner,
            origin: found.origin,
            size,
            digest: found.digest,
        })
    }

    /// The items `range` of the list under `token`. The first read of a
    /// list put whole builds where its items start, off the async workers
    /// when the list is large ([`off_workers`]), and keeps it beside the
    /// entry; a list written in chunks has it already, in memory or on disk.
    pub(super) async fn get_items_now(
        &self,
        token: &Token,
        range: Range<usize>,
    ) -> Result<Option<StoredItems>, StoreError> {
        let Some(found) = self.found(token) else {
            return Ok(None);
        };
        let list = |items, total| {
            StoredItems::List(ListItems {
                owner: found.owner.clone(),
                origin: found.origin,
                total,
                items,
            })
        };
        let (body, cell) = match &found.body {
            _ if !found.origin.is_pageable() => {
                return self
                    .get_now(token)
                    .await
                    .map(|found| found.map(StoredItems::Whole));
            }
            FoundBody::Disk(file, size, Some(total)) => {
                let (file, size, total) = (file.clone(), *size, *total);
                let items = run_sync(move || file.read_items(range, total, size))
                    .await
                    .map_err(unfinished)?
                    .map_err(|error| disk_error("read", &error))?;
                return Ok(Some(list(items, total)));
            }
            FoundBody::Disk(_, _, None) => {
                return self
                    .get_now(token)
                    .await
                    .map(|found| found.map(StoredItems::Whole));
            }
            FoundBody::Memory(body, cell) => (body.clone(), cell.clone()),
        };
        let starts = match cell.get() {
            Some(starts) => starts.clone(),
            None => {
                let indexed = Arc::clone(&body);
                let built: Option<Arc<[u64]>> = off_workers(indexed.len(), move || {
                    index::index_list(&indexed).map(Arc::from)
                })
                .await
                .map_err(unfinished)?;
                // Two first reads at once both build it; one is kept and
                // charged.
                if cell.set(built.clone()).is_ok()
                    && let Some(starts) = &built
                {
                    self.inner
                        .charge_index(token, found.seq, starts.len() * OFFSET_BYTES);
                }
                built
            }
        };
        Ok(Some(match starts {
            Some(starts) => list(index::slice_items(&body, &starts, range), starts.len()),
            None => StoredItems::Whole(
                Entry::new(found.owner, found.origin, body).with_digest(found.digest),
            ),
        }))
    }
}
