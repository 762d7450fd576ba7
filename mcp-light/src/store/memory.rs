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
mod tests {
    use super::*;
    use crate::store::{Origin, Owner};

    const TTL: Duration = Duration::from_secs(300);

    fn entry(body_len: usize) -> Entry {
        Entry {
            owner: Owner {
                caller: "session-4f2a".to_owned(),
                tool: "device_list".to_owned(),
            },
            origin: Origin::Read,
            body: vec![b'x'; body_len].into(),
        }
    }

    fn token() -> Token {
        Token::mint().unwrap()
    }

    fn store_with(config: MemoryStoreConfig) -> (MemoryStore, Arc<ManualClock>) {
        let clock = Arc::new(ManualClock::new());
        (MemoryStore::with_clock(config, clock.clone()), clock)
    }

    fn store() -> (MemoryStore, Arc<ManualClock>) {
        store_with(MemoryStoreConfig::default())
    }

    /// Entries the store holds, without the sweep `len()` does first.
    fn held(store: &MemoryStore) -> usize {
        lock(&store.state).entries.len()
    }

    #[test]
    fn defaults_are_64_mib_10_000_entries_300_s() {
        let config = MemoryStoreConfig::default();
        assert_eq!(config.max_bytes, 64 * 1024 * 1024);
        assert_eq!(config.max_entries, 10_000);
        assert_eq!(config.ttl, TTL);
    }

    #[test]
    fn the_futures_can_cross_threads() {
        fn assert_send<T: Send>(_: T) {}
        let store = MemoryStore::default();
        let token = token();
        assert_send(store.put(&token, entry(1)));
        assert_send(store.get(&token));
    }

    #[tokio::test]
    async fn put_then_get_returns_the_entry() {
        let (store, _) = store();
        let token = token();
        let stored = Entry {
            owner: Owner {
                caller: "alice".to_owned(),
                tool: "crm".to_owned(),
            },
            origin: Origin::BulkWrite,
            body: Arc::from(&br#"[{"id":1},{"id":2}]"#[..]),
        };
        store.put(&token, stored.clone()).await.unwrap();
        assert_eq!(store.get(&token).await.unwrap(), Some(stored.clone()));
        // Reading does not consume: a result is paged through many gets.
        assert_eq!(store.get(&token).await.unwrap(), Some(stored.clone()));
        assert_eq!(store.len(), 1);
        assert!(!store.is_empty());
        assert_eq!(store.bytes(), cost_of(&token, &stored));
    }

    #[tokio::test]
    async fn a_missing_token_reads_as_none() {
        let (store, _) = store();
        store.put(&token(), entry(10)).await.unwrap();
        assert_eq!(store.get(&token()).await.unwrap(), None);
        assert_eq!(store.len(), 1);
    }

    #[tokio::test]
    async fn an_entry_expires_at_its_ttl_not_before() {
        let (store, clock) = store();
        clock.set(Duration::from_secs(1_000));
        let token = token();
        store.put(&token, entry(10)).await.unwrap();

        clock.set(Duration::from_secs(1_000) + TTL - Duration::from_nanos(1));
        assert!(store.get(&token).await.unwrap().is_some());
        clock.set(Duration::from_secs(1_000) + TTL);
        assert_eq!(store.get(&token).await.unwrap(), None);
        // Dropped on that read, not only hidden.
        assert_eq!(held(&store), 0);
        assert_eq!(store.bytes(), 0);

        clock.advance(TTL);
        assert_eq!(store.get(&token).await.unwrap(), None);
    }

    #[tokio::test]
    async fn get_does_not_refresh_the_ttl() {
        let (store, clock) = store();
        let token = token();
        store.put(&token, entry(10)).await.unwrap();
        for _ in 0..4 {
            clock.advance(TTL / 5);
            assert!(store.get(&token).await.unwrap().is_some());
        }
        clock.advance(TTL / 5);
        assert_eq!(store.get(&token).await.unwrap(), None);
    }

    #[tokio::test]
    async fn put_sweeps_expired_entries_without_a_read() {
        let (store, clock) = store();
        for _ in 0..3 {
            store.put(&token(), entry(10)).await.unwrap();
        }
        clock.advance(TTL / 2);
        let younger = token();
        store.put(&younger, entry(10)).await.unwrap();
        clock.advance(TTL / 2);
        store.put(&token(), entry(10)).await.unwrap();
        // The three old ones are gone; the younger and the newest remain.
        assert_eq!(held(&store), 2);
        assert!(store.get(&younger).await.unwrap().is_some());
    }

    #[tokio::test]
    async fn a_flood_stays_under_the_byte_cap_and_keeps_the_newest() {
        let max_bytes = 16 << 20;
        let (store, _) = store_with(MemoryStoreConfig::new().with_max_bytes(max_bytes));
        let mut puts = Vec::with_capacity(10_000);
        for i in 0..10_000 {
            // ~7 KB bodies of varying size, so eviction is not in lockstep.
            let (token, entry) = (token(), entry(7_000 + i % 257));
            let cost = cost_of(&token, &entry);
            store.put(&token, entry).await.unwrap();
            assert!(store.bytes() <= max_bytes, "over the cap after put {i}");
            puts.push((token, cost));
        }

        // The survivors are the longest run of newest entries that fits.
        let mut kept = 0;
        let mut kept_bytes = 0;
        for (_, cost) in puts.iter().rev() {
            if kept_bytes + cost > max_bytes {
                break;
            }
            kept += 1;
            kept_bytes += cost;
        }
        assert!(kept > 2_000 && kept < 2_400, "kept {kept}");
        assert_eq!(store.len(), kept);
        assert_eq!(store.bytes(), kept_bytes);
        let (evicted, survivors) = puts.split_at(puts.len() - kept);
        for (token, _) in evicted {
            assert_eq!(store.get(token).await.unwrap(), None);
        }
        for (token, _) in survivors {
            assert!(store.get(token).await.unwrap().is_some());
        }
    }

    fn entry_of(caller: &str, body_len: usize) -> Entry {
        let mut entry = entry(body_len);
        entry.owner.caller = caller.to_owned();
        entry
    }

    #[tokio::test]
    async fn a_caller_flooding_the_store_evicts_its_own_entries_not_anothers() {
        let (store, _) = store_with(MemoryStoreConfig::new().with_max_bytes(200_000));
        let small = token();
        store.put(&small, entry_of("bob", 100)).await.unwrap();
        let mut flood = Vec::new();
        for _ in 0..40 {
            let token = token();
            store
                .put(&token, entry_of("mallory", 20_000))
                .await
                .unwrap();
            assert!(store.bytes() <= 200_000);
            flood.push(token);
        }
        assert!(
            store.get(&small).await.unwrap().is_some(),
            "bob's token survives mallory's flood"
        );
        // Mallory keeps her newest entries.
        assert!(store.get(flood.last().unwrap()).await.unwrap().is_some());
        assert!(store.get(&flood[0]).await.unwrap().is_none());
    }

    #[tokio::test]
    async fn an_entry_over_max_entry_bytes_is_refused_and_evicts_nothing() {
        let (store, _) = store_with(MemoryStoreConfig::new().with_max_entry_bytes(5_000));
        store.put(&token(), entry(100)).await.unwrap();
        let err = store.put(&token(), entry(5_000)).await.unwrap_err();
        assert!(
            matches!(err, StoreError::TooLarge { limit: 5_000, .. }),
            "{err:?}"
        );
        assert_eq!(store.len(), 1);
    }

    #[tokio::test]
    async fn a_caller_under_its_share_makes_room_from_the_largest_holder() {
        let (store, _) = store_with(
            MemoryStoreConfig::new()
                .with_max_entries(4)
                .with_caller_share_percent(50),
        );
        let bob = token();
        store.put(&bob, entry_of("bob", 10)).await.unwrap();
        let carols: Vec<Token> = (0..4).map(|_| token()).collect();
        for carol in &carols {
            store.put(carol, entry_of("carol", 10)).await.unwrap();
        }
        // The store was full and carol over her share of 2: her fourth
        // evicted her own oldest.
        assert!(store.get(&carols[0]).await.unwrap().is_none());
        assert!(store.get(&bob).await.unwrap().is_some());
        // Erin and dave hold nothing; carol holds the most, so her oldest
        // go, although bob's entry is older.
        store.put(&token(), entry_of("erin", 10)).await.unwrap();
        store.put(&token(), entry_of("dave", 10)).await.unwrap();
        assert!(store.get(&carols[2]).await.unwrap().is_none());
        assert!(store.get(&carols[3]).await.unwrap().is_some());
        assert!(store.get(&bob).await.unwrap().is_some());
        let state = lock(&store.state);
        let mut held: Vec<(&str, usize, usize)> = state
            .by_bytes
            .iter()
            .map(|(bytes, name)| (&**name, *bytes, state.callers[name].seqs.len()))
            .collect();
        assert!(held.is_sorted_by_key(|(_, bytes, _)| *bytes), "{held:?}");
        held.sort();
        let counts: Vec<(&str, usize)> = held.iter().map(|(name, _, n)| (*name, *n)).collect();
        assert_eq!(counts, [("bob", 1), ("carol", 1), ("dave", 1), ("erin", 1)]);
    }

    #[test]
    #[should_panic(expected = "caller_share_percent must be from 1 to 100")]
    fn a_share_of_zero_is_refused_with_a_sentence() {
        let _ = MemoryStoreConfig::new().with_caller_share_percent(0);
    }

    #[test]
    #[should_panic(expected = "max_bytes is 0")]
    fn a_zero_limit_set_directly_is_refused_when_the_store_is_made() {
        let mut config = MemoryStoreConfig::new();
        config.max_bytes = 0;
        let _ = MemoryStore::new(config);
    }

    #[tokio::test]
    async fn the_entry_cap_evicts_the_oldest() {
        let (store, _) = store_with(MemoryStoreConfig::new().with_max_entries(3));
        let tokens: Vec<Token> = (0..5).map(|_| token()).collect();
        for token in &tokens {
            store.put(token, entry(10)).await.unwrap();
            assert!(store.len() <= 3);
        }
        assert_eq!(store.len(), 3);
        for (i, token) in tokens.iter().enumerate() {
            assert_eq!(
                store.get(token).await.unwrap().is_some(),
                i >= 2,
                "token {i}"
            );
        }
    }

    #[tokio::test]
    async fn too_large_leaves_the_store_untouched() {
        let (store, clock) = store_with(MemoryStoreConfig::new().with_max_bytes(10_000));
        let small = token();
        store.put(&small, entry(100)).await.unwrap();
        let expired = token();
        clock.advance(TTL);
        lock(&store.state).insert(expired.clone(), entry(100), Duration::ZERO, 1_000);
        let (len, bytes) = (held(&store), lock(&store.state).bytes);

        let big = token();
        let err = store.put(&big, entry(10_000)).await.unwrap_err();
        match err {
            StoreError::TooLarge { size, limit } => {
                assert_eq!(limit, 10_000);
                assert_eq!(size, cost_of(&big, &entry(10_000)));
            }
            other => panic!("expected TooLarge, got {other:?}"),
        }
        // Nothing evicted, nothing swept, nothing stored.
        assert_eq!((held(&store), lock(&store.state).bytes), (len, bytes));
        assert!(lock(&store.state).entries.contains_key(&expired));
        assert_eq!(store.get(&big).await.unwrap(), None);
    }

    #[tokio::test]
    async fn an_entry_of_exactly_max_bytes_fits_alone() {
        let body = 5_000;
        // Two tokens of one length, so each costs exactly `max_bytes`.
        let first = Token::parse("000001aa000000aa000000aa000000aa").unwrap();
        let second = Token::parse("000002aa000000aa000000aa000000aa").unwrap();
        let max_bytes = cost_of(&first, &entry(body));
        let (store, _) = store_with(MemoryStoreConfig::new().with_max_bytes(max_bytes));
        store.put(&first, entry(body)).await.unwrap();
        store.put(&second, entry(body)).await.unwrap();
        assert_eq!(store.bytes(), max_bytes);
        assert_eq!(store.get(&first).await.unwrap(), None);
        assert!(store.get(&second).await.unwrap().is_some());
    }

    #[tokio::test]
    async fn putting_a_token_again_replaces_its_entry() {
        let (store, _) = store();
        let token = token();
        store.put(&token, entry(10)).await.unwrap();
        store.put(&token, entry(20)).await.unwrap();
        assert_eq!(store.len(), 1);
        assert_eq!(lock(&store.state).order.len(), 1);
        assert_eq!(store.bytes(), cost_of(&token, &entry(20)));
        assert_eq!(store.get(&token).await.unwrap().unwrap().body.len(), 20);
    }

    #[tokio::test]
    async fn bytes_return_to_zero_when_everything_expires() {
        let (store, clock) = store_with(MemoryStoreConfig::new().with_max_entries(50));
        // More puts than the cap, so eviction's bookkeeping is exercised too.
        for i in 0..200 {
            store.put(&token(), entry(i * 13)).await.unwrap();
            clock.advance(Duration::from_millis(10));
        }
        assert_eq!(store.len(), 50);
        clock.advance(TTL);
        assert_eq!(store.bytes(), 0);
        assert!(store.is_empty());
        let state = lock(&store.state);
        assert!(state.order.is_empty() && state.entries.is_empty());
        assert!(
            state.callers.is_empty() && state.by_bytes.is_empty(),
            "no caller record outlives its entries"
        );
    }

    #[tokio::test]
    async fn a_page_read_moves_only_its_items_and_charges_the_index_once() {
        let (store, _) = store();
        let token = token();
        let list: Vec<String> = (0..100).map(|i| format!("item-{i}")).collect();
        let stored = Entry {
            owner: entry(0).owner,
            origin: Origin::Read,
            body: serde_json::to_vec(&list).unwrap().into(),
        };
        store.put(&token, stored.clone()).await.unwrap();
        let before = store.bytes();
        let Some(StoredItems::List(page)) = store.get_items(&token, 20..40).await.unwrap() else {
            panic!("a stored list reads as a list");
        };
        assert_eq!((page.total, page.items.len()), (100, 20));
        assert_eq!(page.items[0], br#""item-20""#);
        assert_eq!(page.owner, stored.owner);
        assert_eq!(store.bytes(), before + 100 * OFFSET_BYTES);
        // The index is built once: a second read charges nothing more.
        store.get_items(&token, 90..200).await.unwrap();
        assert_eq!(store.bytes(), before + 100 * OFFSET_BYTES);
    }

    #[tokio::test]
    async fn a_large_list_is_indexed_off_the_workers_once() {
        let (store, _) = store();
        let token = token();
        let list: Vec<String> = (0..20_000).map(|i| format!("item-{i:010}")).collect();
        let body = serde_json::to_vec(&list).unwrap();
        assert!(body.len() >= crate::offload::OFF_WORKERS_BYTES);
        let stored = Entry {
            owner: entry(0).owner,
            origin: Origin::Read,
            body: body.into(),
        };
        store.put(&token, stored).await.unwrap();
        let before = store.bytes();
        let Some(StoredItems::List(page)) = store.get_items(&token, 19_990..20_010).await.unwrap()
        else {
            panic!("a stored list reads as a list");
        };
        assert_eq!((page.total, page.items.len()), (20_000, 10));
        assert_eq!(page.items[9], br#""item-0000019999""#);
        store.get_items(&token, 0..20).await.unwrap();
        assert_eq!(store.bytes(), before + 20_000 * OFFSET_BYTES);
    }

    #[tokio::test]
    async fn a_single_write_or_an_object_reads_whole() {
        let (store, _) = store();
        for (origin, body) in [
            (Origin::SingleWrite, &b"[1,2,3]"[..]),
            (Origin::Read, br#"{"a":[1]}"#),
        ] {
            let token = token();
            let stored = Entry {
                owner: entry(0).owner,
                origin,
                body: Arc::from(body),
            };
            store.put(&token, stored.clone()).await.unwrap();
            let found = store.get_items(&token, 0..20).await.unwrap();
            assert_eq!(found, Some(StoredItems::Whole(stored)));
        }
        assert_eq!(store.get_items(&token(), 0..20).await.unwrap(), None);
    }

    #[tokio::test]
    async fn zero_max_entries_is_unavailable() {
        let (store, _) = store_with(MemoryStoreConfig::new().with_max_entries(0));
        let err = store.put(&token(), entry(1)).await.unwrap_err();
        assert!(matches!(err, StoreError::Unavailable(_)), "{err:?}");
        assert!(store.is_empty());
    }

    #[test]
    fn debug_shows_the_limits_not_the_tokens() {
        let (store, _) = store();
        let token = token();
        store.put_now(&token, entry(1)).unwrap();
        let debug = format!("{store:?}");
        assert!(debug.contains("len: 1"), "{debug}");
        assert!(!debug.contains(token.as_str()));
    }

    #[test]
    fn manual_clock_moves_only_when_told() {
        let clock = ManualClock::new();
        assert_eq!(clock.now(), Duration::ZERO);
        clock.advance(Duration::from_secs(1));
        clock.advance(Duration::from_secs(2));
        assert_eq!(clock.now(), Duration::from_secs(3));
        clock.set(Duration::from_secs(1));
        assert_eq!(clock.now(), Duration::from_secs(1));
    }

    #[test]
    fn system_clock_is_monotonic_from_its_origin() {
        let clock = SystemClock::new();
        let first = clock.now();
        std::thread::sleep(Duration::from_millis(2));
        let second = clock.now();
        assert!(second >= first + Duration::from_millis(2));
        assert!(second < Duration::from_secs(60));
    }

    /// Reports, with `--nocapture`, what the store spends per entry: the
    /// bytes it accounts against the heap it really holds.
    #[test]
    fn overhead_per_entry_is_measured() {
        const BODY: usize = 1_024;
        let (store, _) = store_with(
            MemoryStoreConfig::new()
                .with_max_bytes(usize::MAX)
                .with_max_entries(usize::MAX)
                .with_ttl(TTL),
        );
        let tokens: Vec<Token> = (0..10_000).map(|_| token()).collect();
        let token_bytes: usize = tokens.iter().map(|t| t.as_str().len()).sum();
        let owner = entry(BODY).owner.caller.len() + entry(BODY).owner.tool.len();
        let payload = owner + token_bytes / tokens.len();
        let start = heap::held();
        let mut worst_heap_overhead = 0.0f64;
        for (n, token) in tokens.iter().enumerate() {
            store.put_now(token, entry(BODY)).unwrap();
            let n = n + 1;
            // 7,169 is just past a hash-table doubling (8,192 buckets hold
            // 7,168): the emptiest table, the most heap per entry.
            if [1_000, 7_168, 7_169, 10_000].contains(&n) {
                let heap = (heap::held() - start) as f64 / n as f64;
                let accounted = store.bytes() as f64 / n as f64;
                let heap_overhead = heap - (BODY + payload) as f64;
                worst_heap_overhead = worst_heap_overhead.max(heap_overhead);
                println!(
                    "{n:>6} entries: body {BODY} B, owner+token {payload} B, \
                     accounted {accounted:.0} B, heap {heap:.0} B per entry \
                     (overhead: accounted {ENTRY_OVERHEAD} B, heap {heap_overhead:.0} B; \
                     accounted/body {:.3})",
                    accounted / BODY as f64
                );
                assert!(
                    heap <= accounted,
                    "the store holds more than it accounts for"
                );
            }
        }
        println!("worst heap overhead {worst_heap_overhead:.0} B, accounted {ENTRY_OVERHEAD} B");
        assert_eq!(
            store.bytes(),
            10_000 * (BODY + owner + ENTRY_OVERHEAD) + token_bytes
        );
    }

    /// A global allocator that counts, per thread, the bytes requested and
    /// not yet freed, so one test measures its own heap while others run.
    mod heap {
        use std::alloc::{GlobalAlloc, Layout, System};
        use std::cell::Cell;

        struct Counting;

        thread_local! {
            static HELD: Cell<isize> = const { Cell::new(0) };
        }

        fn add(bytes: isize) {
            // `try_with`: allocations during thread teardown go uncounted.
            let _ = HELD.try_with(|held| held.set(held.get() + bytes));
        }

        // SAFETY: every method forwards to `System` unchanged; counting
        // touches only a const-initialised thread-local, which never
        // allocates.
        unsafe impl GlobalAlloc for Counting {
            unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
                let ptr = unsafe { System.alloc(layout) };
                if !ptr.is_null() {
                    add(layout.size() as isize);
                }
                ptr
            }

            unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
                let ptr = unsafe { System.alloc_zeroed(layout) };
                if !ptr.is_null() {
                    add(layout.size() as isize);
                }
                ptr
            }

            unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
                unsafe { System.dealloc(ptr, layout) };
                add(-(layout.size() as isize));
            }

            unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
                let new = unsafe { System.realloc(ptr, layout, new_size) };
                if !new.is_null() {
                    add(new_size as isize - layout.size() as isize);
                }
                new
            }
        }

        #[global_allocator]
        static COUNTING: Counting = Counting;

        /// The bytes this thread has allocated and not freed.
        pub(super) fn held() -> isize {
            HELD.with(Cell::get)
        }
    }
}
