//! What the in-memory store's entries cost, and the room it keeps within
//! its limits: admitting an entry and choosing what to evict for it in
//! memory, reserving the disk tier, charging a list's index once built.

use super::lock::lock;
use super::{Body, Inner, NewSlot};
use crate::store::index::OFFSET_BYTES;
use crate::store::{Entry, Owner, StoreError};
use crate::token::Token;

/// What the store spends on one entry beyond the bytes of its body, its
/// owner strings and its token, on a 64-bit target.
///
/// Covers the hash-map slot (token + [`Slot`](super::Slot), about 250
/// bytes, plus a control byte, in a table 44–87% full), the order index's
/// `(u64, Token)` in B-tree nodes that fill to about 6 of 11 on append, the
/// `Arc`'s two reference counts, and malloc's header and rounding on the
/// three heap blocks (body, caller, tool; ~16 bytes each).
/// `overhead_per_entry_is_measured` counts the heap really held: 347–531
/// bytes per entry beyond the payload (531 just after the table doubles),
/// so 640 covers the worst case with the malloc headers the count cannot
/// see.
pub(super) const ENTRY_OVERHEAD: usize = 640;

impl Inner {
    /// Whether an entry put whole is kept in memory: its cost fits the
    /// memory the store may use.
    pub(super) fn fits_in_memory(&self, token: &Token, entry: &Entry) -> bool {
        cost_of(token, entry) <= self.memory_limit()
    }

    /// The most one entry may cost in memory.
    pub(super) fn memory_limit(&self) -> usize {
        self.config.max_bytes.min(self.config.max_entry_bytes)
    }

    /// Makes `new` redeemable under `token`, evicting what must go to make
    /// room in memory. `disk` is what it holds on disk, already reserved
    /// (and released here).
    pub(super) fn insert(&self, token: &Token, new: NewSlot, disk: u64) -> Result<(), StoreError> {
        let cost = cost_of_slot(token, &new);
        let limit = self.memory_limit();
        let refused = if cost > limit {
            Some(StoreError::TooLarge {
                size: cost as u64,
                limit: limit as u64,
            })
        } else if self.config.max_entries == 0 {
            Some(StoreError::Unavailable(
                "the in-memory store is configured with max_entries = 0; set it to at least 1"
                    .to_owned(),
            ))
        } else {
            None
        };
        let mut state = lock(&self.state);
        state.disk_reserved -= disk;
        // Refuse before touching anything: a refused put evicts nothing.
        if let Some(refused) = refused {
            return Err(refused);
        }
        // Read the clock under the lock so sequence order is time order.
        let now = self.clock.now();
        // A token put again is a new entry: it replaces the old one.
        state.remove(token);
        state.sweep_expired(now, self.config.ttl);
        let (share_bytes, share_entries) = self.config.caller_share();
        while state.entries.len() >= self.config.max_entries
            || state.bytes + cost > self.config.max_bytes
        {
            // A caller over its share makes room from its own entries;
            // otherwise from the caller holding the most, so a quiet
            // caller's entries are the last to go. Cannot run dry: an empty
            // store has room for this entry.
            let own = state.callers.get(new.owner.caller.as_str()).filter(|held| {
                held.bytes + cost > share_bytes || held.seqs.len() + 1 > share_entries
            });
            let victim = own
                .or_else(|| {
                    let (_, largest) = state.by_bytes.last()?;
                    state.callers.get(largest)
                })
                .and_then(|held| held.seqs.first().copied());
            match victim {
                Some(seq) => state.evict(seq),
                None => state.evict_oldest(),
            }
        }
        state.insert(token.clone(), new, now, cost, disk);
        Ok(())
    }

    /// Reserves `bytes` on disk for an entry being written, which already
    /// holds `held` there: the oldest entries on disk are evicted to make
    /// room.
    pub(super) fn reserve_disk(&self, bytes: u64, held: u64) -> Result<(), StoreError> {
        let limit = self.config.max_disk_bytes;
        if held + bytes > limit {
            return Err(StoreError::TooLarge {
                size: held + bytes,
                limit,
            });
        }
        let mut state = lock(&self.state);
        let now = self.clock.now();
        state.sweep_expired(now, self.config.ttl);
        while state.disk_bytes + state.disk_reserved + bytes > limit {
            let Some(&oldest) = state.on_disk.first() else {
                return Err(StoreError::Full(format!(
                    "the disk tier's {limit} bytes are taken by other results still being written"
                )));
            };
            state.evict(oldest);
        }
        state.disk_reserved += bytes;
        Ok(())
    }

    /// Gives back a reservation of an entry that was not committed.
    pub(super) fn release_disk(&self, bytes: u64) {
        lock(&self.state).disk_reserved -= bytes;
    }

    /// Adds an index's bytes to the cost of the entry it indexes, if that
    /// entry is still the one stored, and evicts the oldest entries until
    /// the store is within `max_bytes` again.
    pub(super) fn charge_index(&self, token: &Token, seq: u64, bytes: usize) {
        let mut state = lock(&self.state);
        let Some(slot) = state.entries.get_mut(token).filter(|slot| slot.seq == seq) else {
            return;
        };
        slot.cost += bytes;
        let caller = slot.owner.caller.clone();
        state.bytes += bytes;
        state.hold(&caller, bytes, None);
        while state.bytes > self.config.max_bytes {
            state.evict_oldest();
        }
    }
}

/// The bytes an entry is accounted at in memory: its body there (and the
/// index it was written with), its digest, owner and token.
fn cost_of_slot(token: &Token, new: &NewSlot) -> usize {
    let body = match &new.body {
        Body::Memory { body, index } => {
            let starts = index.get().and_then(Option::as_ref);
            body.len() + starts.map_or(0, |starts| starts.len() * OFFSET_BYTES)
        }
        Body::Disk { .. } => 0,
    };
    cost(token, &new.owner, new.digest.as_deref(), body)
}

/// [`cost_of_slot`] of an entry put whole, kept in memory.
pub(super) fn cost_of(token: &Token, entry: &Entry) -> usize {
    cost(
        token,
        &entry.owner,
        entry.digest.as_deref(),
        entry.body.len(),
    )
}

/// The bytes of an entry whose body costs `body` in memory.
fn cost(token: &Token, owner: &Owner, digest: Option<&[u8]>, body: usize) -> usize {
    body + digest.map_or(0, <[u8]>::len)
        + owner.caller.len()
        + owner.tool.len()
        + owner.scopes.iter().map(String::len).sum::<usize>()
        + token.as_str().len()
        + ENTRY_OVERHEAD
}
