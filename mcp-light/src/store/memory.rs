//! The in-memory continuation store: the embedded default.
//!
//! Entries live in a hash map by token and in an index by insertion order.
//! Every entry has the same TTL, so insertion order is also expiry order.
//! Beside them, what each caller holds, so that room is made from the
//! callers holding the most.

mod clock;
mod config;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::ops::Range;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::Duration;

use super::index::{self, OFFSET_BYTES};
use super::{BoxFuture, ContinuationStore, Entry, StoreError, StoredItems};
use crate::offload::off_workers;
use crate::token::Token;

pub use clock::{Clock, ManualClock, SystemClock};
pub use config::MemoryStoreConfig;

/// What the store spends on one entry beyond the bytes of its body, its
/// owner strings and its token, on a 64-bit target.
///
/// Covers the hash-map slot (token + [`Slot`], 144 bytes, plus a control
/// byte, in a table 44–87% full), the order index's `(u64, Token)` in B-tree
/// nodes that fill to about 6 of 11 on append, the `Arc`'s two reference
/// counts, and malloc's header and rounding on the three heap blocks (body,
/// caller, tool; ~16 bytes each). `overhead_per_entry_is_measured` counts
/// the heap really held: 234–400 bytes per entry beyond the payload (400
/// just after the table doubles), so 512 covers the worst case with the
/// malloc headers the count cannot see.
const ENTRY_OVERHEAD: usize = 512;

/// The in-memory continuation store, the embedded default.
///
/// Bounded: after every `put`, the accounted bytes are at most
/// [`max_bytes`](MemoryStoreConfig::max_bytes) and the entries at most
/// [`max_entries`](MemoryStoreConfig::max_entries); an entry over
/// [`max_entry_bytes`](MemoryStoreConfig::max_entry_bytes) is refused. To
/// make room, a caller over its share
/// ([`caller_share_percent`](MemoryStoreConfig::caller_share_percent))
/// evicts its own oldest entries, and any other the oldest entries of the
/// caller holding the most bytes: one caller's flood, or many callers',
/// does not push out a quiet caller's tokens. With one caller this is
/// oldest first. An entry older than the
/// [`ttl`](MemoryStoreConfig::ttl) reads as absent and is dropped when met;
/// `get` does not refresh the TTL, so a token lives at most `ttl` after its
/// result was stored however often it is redeemed. A store is local to one
/// process: replicas behind a load balancer need a shared store.
///
/// ```
/// use std::sync::Arc;
/// use mcp_light::store::{ContinuationStore, Entry, MemoryStore, Origin, Owner};
/// use mcp_light::token::Token;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let store = MemoryStore::default();
/// let token = Token::mint().unwrap();
/// let entry = Entry {
///     owner: Owner { caller: "process".into(), tool: "device_list".into() },
///     origin: Origin::Read,
///     body: Arc::from(&b"[1,2,3]"[..]),
/// };
/// store.put(&token, entry.clone()).await.unwrap();
/// assert_eq!(store.get(&token).await.unwrap(), Some(entry));
/// assert_eq!(store.len(), 1);
/// # });
/// ```
pub struct MemoryStore {
    config: MemoryStoreConfig,
    clock: Arc<dyn Clock>,
    state: Mutex<State>,
}

/// Where a stored list's items start, once a page read has built it;
/// `None` inside for a body that is not a list.
type IndexCell = Arc<OnceLock<Option<Arc<[u32]>>>>;

/// What the lock guards.
#[derive(Default)]
struct State {
    entries: HashMap<Token, Slot>,
    /// Tokens by insertion sequence: the first is the oldest.
    order: BTreeMap<u64, Token>,
    /// The sum of the entries' accounted costs.
    bytes: usize,
    next_seq: u64,
    /// What each caller holds; a caller holding nothing has no record.
    callers: HashMap<Arc<str>, Held>,
    /// The callers by the bytes they hold: the last holds the most.
    by_bytes: BTreeSet<(usize, Arc<str>)>,
}

/// What one caller holds: its entries' costs and their sequence numbers,
/// oldest first.
#[derive(Default)]
struct Held {
    bytes: usize,
    seqs: BTreeSet<u64>,
}

/// One stored entry and what the store needs to expire and evict it.
struct Slot {
    seq: u64,
    stored_at: Duration,
    cost: usize,
    entry: Entry,
    /// Where each item of a stored list starts, built by the first page read
    /// (outside the lock; a put never pays for it) and charged to `cost`
    /// then. `None` inside: not a list.
    index: IndexCell,
}

impl MemoryStore {
    /// A store with `config`'s limits and the real clock.
    ///
    /// # Panics
    ///
    /// When a limit makes no sense ([`MemoryStoreConfig::check`]): a field
    /// set to 0 directly, say.
    ///
    /// ```
    /// use mcp_light::store::{MemoryStore, MemoryStoreConfig};
    ///
    /// let store = MemoryStore::new(MemoryStoreConfig::default());
    /// assert!(store.is_empty());
    /// ```
    pub fn new(config: MemoryStoreConfig) -> MemoryStore {
        MemoryStore::with_clock(config, Arc::new(SystemClock::new()))
    }

    /// A store with `config`'s limits that reads the time from `clock`.
    ///
    /// # Panics
    ///
    /// As [`MemoryStore::new`].
    ///
    /// ```
    /// use std::sync::Arc;
    /// use mcp_light::store::{ManualClock, MemoryStore, MemoryStoreConfig};
    ///
    /// let store = MemoryStore::with_clock(MemoryStoreConfig::default(), Arc::new(ManualClock::new()));
    /// assert_eq!(store.bytes(), 0);
    /// ```
    pub fn with_clock(config: MemoryStoreConfig, clock: Arc<dyn Clock>) -> MemoryStore {
        if let Err(problem) = config.check() {
            panic!("{problem}");
        }
        MemoryStore {
            config,
            clock,
            state: Mutex::new(State::default()),
        }
    }

    /// The limits this store was made with.
    ///
    /// ```
    /// use mcp_light::store::{MemoryStore, MemoryStoreConfig};
    ///
    /// assert_eq!(MemoryStore::default().config(), &MemoryStoreConfig::default());
    /// ```
    pub fn config(&self) -> &MemoryStoreConfig {
        &self.config
    }

    /// How many entries the store holds, after dropping expired ones.
    ///
    /// ```
    /// use mcp_light::store::MemoryStore;
    ///
    /// assert_eq!(MemoryStore::default().len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.live_state().entries.len()
    }

    /// Whether the store holds no entries, after dropping expired ones.
    ///
    /// ```
    /// use mcp_light::store::MemoryStore;
    ///
    /// assert!(MemoryStore::default().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes the store accounts for, after dropping expired entries:
    /// per entry its body, owner strings and token, plus a fixed overhead
    /// for the store's bookkeeping. Never more than
    /// [`max_bytes`](MemoryStoreConfig::max_bytes).
    ///
    /// ```
    /// use mcp_light::store::MemoryStore;
    ///
    /// assert_eq!(MemoryStore::default().bytes(), 0);
    /// ```
    pub fn bytes(&self) -> usize {
        self.live_state().bytes
    }

    /// The state with expired entries swept, so introspection counts only
    /// what is still redeemable.
    fn live_state(&self) -> MutexGuard<'_, State> {
        let mut state = lock(&self.state);
        let now = self.clock.now();
        state.sweep_expired(now, self.config.ttl);
        state
    }

    fn put_now(&self, token: &Token, entry: Entry) -> Result<(), StoreError> {
        let cost = cost_of(token, &entry);
        // Refuse before touching anything: a refused put evicts nothing.
        let limit = self.config.max_bytes.min(self.config.max_entry_bytes);
        if cost > limit {
            return Err(StoreError::TooLarge { size: cost, limit });
        }
        if self.config.max_entries == 0 {
            return Err(StoreError::Unavailable(
                "the in-memory store is configured with max_entries = 0; set it to at least 1"
                    .to_owned(),
            ));
        }

        let mut state = lock(&self.state);
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
            let own = state
                .callers
                .get(entry.owner.caller.as_str())
                .filter(|held| {
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
        state.insert(token.clone(), entry, now, cost);
        Ok(())
    }

    fn get_now(&self, token: &Token) -> Option<Entry> {
        self.live_slot(token).map(|(entry, ..)| entry)
    }

    /// The live entry under `token` with its sequence number and its index
    /// cell; an expired one is dropped.
    fn live_slot(&self, token: &Token) -> Option<(Entry, u64, IndexCell)> {
        let mut state = lock(&self.state);
        let now = self.clock.now();
        let slot = state.entries.get(token)?;
        if !is_expired(slot, now, self.config.ttl) {
            return Some((slot.entry.clone(), slot.seq, Arc::clone(&slot.index)));
        }
        state.remove(token);
        None
    }

    /// The items `range` of the list under `token`. The first read of a
    /// list builds where its items start, off the async workers when the
    /// list is large ([`off_workers`]), and keeps it beside the entry.
    async fn get_items_now(&self, token: &Token, range: Range<usize>) -> Option<StoredItems> {
        let (entry, seq, cell) = self.live_slot(token)?;
        if !entry.origin.is_pageable() {
            return Some(StoredItems::Whole(entry));
        }
        let starts = match cell.get() {
            Some(starts) => starts.clone(),
            None => {
                let body = Arc::clone(&entry.body);
                let built: Option<Arc<[u32]>> =
                    off_workers(body.len(), move || index::index_list(&body).map(Arc::from)).await;
                // Two first reads at once both build it; one is kept and
                // charged.
                if cell.set(built.clone()).is_ok()
                    && let Some(starts) = &built
                {
                    self.charge_index(token, seq, starts.len() * OFFSET_BYTES);
                }
                built
            }
        };
        Some(match starts {
            Some(starts) => index::items_of_indexed(entry, &starts, range),
            None => StoredItems::Whole(entry),
        })
    }

    /// Adds an index's bytes to the cost of the entry it indexes, if that
    /// entry is still the one stored, and evicts the oldest entries until
    /// the store is within `max_bytes` again.
    fn charge_index(&self, token: &Token, seq: u64, bytes: usize) {
        let mut state = lock(&self.state);
        let Some(slot) = state.entries.get_mut(token).filter(|slot| slot.seq == seq) else {
            return;
        };
        slot.cost += bytes;
        let caller = slot.entry.owner.caller.clone();
        state.bytes += bytes;
        state.hold(&caller, bytes, None);
        while state.bytes > self.config.max_bytes {
            state.evict_oldest();
        }
    }
}

impl Default for MemoryStore {
    /// A store with the default limits and the real clock.
    fn default() -> MemoryStore {
        MemoryStore::new(MemoryStoreConfig::default())
    }
}

impl fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = lock(&self.state);
        f.debug_struct("MemoryStore")
            .field("config", &self.config)
            .field("len", &state.entries.len())
            .field("bytes", &state.bytes)
            .finish_non_exhaustive()
    }
}

impl ContinuationStore for MemoryStore {
    fn put<'a>(&'a self, token: &'a Token, entry: Entry) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move { self.put_now(token, entry) })
    }

    fn get<'a>(&'a self, token: &'a Token) -> BoxFuture<'a, Result<Option<Entry>, StoreError>> {
        Box::pin(async move { Ok(self.get_now(token)) })
    }

    /// Reads the items from the body in memory. The first page read of a
    /// list scans it once for where its items start and keeps that beside
    /// it, so every later page costs only its own items.
    fn get_items<'a>(
        &'a self,
        token: &'a Token,
        items: Range<usize>,
    ) -> BoxFuture<'a, Result<Option<StoredItems>, StoreError>> {
        Box::pin(async move { Ok(self.get_items_now(token, items).await) })
    }

    fn ttl(&self) -> Duration {
        self.config.ttl
    }
}

impl State {
    fn insert(&mut self, token: Token, entry: Entry, now: Duration, cost: usize) {
        let seq = self.next_seq;
        self.next_seq += 1;
        self.order.insert(seq, token.clone());
        self.bytes += cost;
        self.hold(&entry.owner.caller, cost, Some(seq));
        let slot = Slot {
            seq,
            stored_at: now,
            cost,
            entry,
            index: Arc::default(),
        };
        self.entries.insert(token, slot);
    }

    fn remove(&mut self, token: &Token) {
        if let Some(slot) = self.entries.remove(token) {
            self.order.remove(&slot.seq);
            self.forget(slot);
        }
    }

    fn evict_oldest(&mut self) {
        if let Some(&seq) = self.order.keys().next() {
            self.evict(seq);
        }
    }

    /// Drops the entry stored with sequence number `seq`.
    fn evict(&mut self, seq: u64) {
        if let Some(token) = self.order.remove(&seq) {
            let slot = self
                .entries
                .remove(&token)
                .expect("every ordered token has an entry");
            self.forget(slot);
        }
    }

    /// Takes a removed slot off the byte count and its caller's record.
    fn forget(&mut self, slot: Slot) {
        self.bytes -= slot.cost;
        let caller = slot.entry.owner.caller.as_str();
        let Some(name) = self
            .callers
            .get_key_value(caller)
            .map(|(name, _)| name.clone())
        else {
            return;
        };
        let held = self.callers.get_mut(caller).expect("just found");
        self.by_bytes.remove(&(held.bytes, name.clone()));
        held.bytes -= slot.cost;
        held.seqs.remove(&slot.seq);
        if held.seqs.is_empty() {
            self.callers.remove(caller);
        } else {
            self.by_bytes.insert((held.bytes, name));
        }
    }

    /// Adds `bytes` (and the entry `seq`, if a new one) to what `caller`
    /// holds.
    fn hold(&mut self, caller: &str, bytes: usize, seq: Option<u64>) {
        let name = match self.callers.get_key_value(caller) {
            Some((name, _)) => name.clone(),
            None => Arc::from(caller),
        };
        let held = self.callers.entry(name.clone()).or_default();
        self.by_bytes.remove(&(held.bytes, name.clone()));
        held.bytes += bytes;
        held.seqs.extend(seq);
        self.by_bytes.insert((held.bytes, name));
    }

    /// Drops expired entries from the oldest on, stopping at the first live
    /// one: with one TTL for all, everything newer is live too.
    fn sweep_expired(&mut self, now: Duration, ttl: Duration) {
        while let Some((_, token)) = self.order.first_key_value() {
            if !is_expired(&self.entries[token], now, ttl) {
                break;
            }
            self.evict_oldest();
        }
    }
}

/// Whether `slot` is at or past its TTL. A clock set back makes the age
/// zero rather than negative.
fn is_expired(slot: &Slot, now: Duration, ttl: Duration) -> bool {
    now.saturating_sub(slot.stored_at) >= ttl
}

/// The bytes an entry is accounted at.
fn cost_of(token: &Token, entry: &Entry) -> usize {
    entry.body.len()
        + entry.owner.caller.len()
        + entry.owner.tool.len()
        + token.as_str().len()
        + ENTRY_OVERHEAD
}

/// Locks `mutex`, recovering from poisoning: nothing panics while the state
/// is half-updated (the clock is read before any change), so a poisoned
/// lock still guards consistent data.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests;
