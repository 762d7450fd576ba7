//! The in-memory continuation store: the embedded default.
//!
//! Entries live in a hash map by token and in an index by insertion order.
//! Every entry has the same TTL, so insertion order is also expiry order.
//! Beside them, what each caller holds, so that room is made from the
//! callers holding the most. An entry too large for memory keeps only its
//! owner and digest here, and its body and index in the disk tier
//! ([`disk`]). What an entry costs and what goes to make room for it is in
//! [`budget`]; reading entries back, in [`read`].

mod budget;
mod clock;
mod config;
mod disk;
mod read;
mod state;
mod writer;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError, Weak};
use std::time::Duration;

use super::{
    BoxFuture, ContinuationStore, Entry, EntryInfo, EntryWriter, Origin, Owner, StoreError,
    StoredItems,
};
use super::{MemoryTasks, TaskStore};
use crate::runtime::Unfinished;
use crate::token::Token;

use budget::cost_of;
pub use clock::{Clock, ManualClock, SystemClock};
pub(crate) use config::DEFAULT_TTL;
pub use config::MemoryStoreConfig;
use disk::{SpillDir, SpillFile};

/// The in-memory continuation store, the embedded default.
///
/// Bounded: after every `put`, the accounted bytes in memory are at most
/// [`max_bytes`](MemoryStoreConfig::max_bytes) and the entries at most
/// [`max_entries`](MemoryStoreConfig::max_entries). An entry that would
/// cost more than [`max_entry_bytes`](MemoryStoreConfig::max_entry_bytes)
/// in memory *spills*: its body and index go to files on local disk (the
/// disk tier, under [`disk_dir`](MemoryStoreConfig::disk_dir) or the
/// system's temporary directory), at most
/// [`max_disk_bytes`](MemoryStoreConfig::max_disk_bytes) in all, while its
/// owner and digest stay in memory; a page of it is read from the files by
/// range. With the disk tier off (`max_disk_bytes` 0) such an entry is
/// refused.
///
/// To make room in memory, a caller over its share
/// ([`caller_share_percent`](MemoryStoreConfig::caller_share_percent))
/// evicts its own oldest entries, and any other the oldest entries of the
/// caller holding the most bytes: one caller's flood, or many callers',
/// does not push out a quiet caller's tokens. With one caller this is
/// oldest first. The disk tier makes room oldest first. An entry older
/// than the [`ttl`](MemoryStoreConfig::ttl) reads as absent and is dropped,
/// its files removed, when met or by a sweep that runs while there are
/// files; `get` does not refresh the TTL, so a token lives at most `ttl`
/// after its result was stored however often it is redeemed. A store is
/// local to one process: replicas behind a load balancer need a shared
/// store.
///
/// ```
/// use mcp_light::store::{ContinuationStore, Entry, MemoryStore, Origin, Owner};
/// use mcp_light::token::Token;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let store = MemoryStore::default();
/// let token = Token::mint().unwrap();
/// let owner = Owner::new("process", "device_list");
/// let entry = Entry::new(owner, Origin::Read, &b"[1,2,3]"[..]);
/// store.put(&token, entry.clone()).await.unwrap();
/// assert_eq!(store.get(&token).await.unwrap(), Some(entry));
/// assert_eq!(store.len(), 1);
/// # });
/// ```
pub struct MemoryStore {
    inner: Arc<Inner>,
}

/// What a store and its disk sweeper share.
struct Inner {
    config: MemoryStoreConfig,
    clock: Arc<dyn Clock>,
    state: Mutex<State>,
    /// The disk tier's directory, made at the first spill; `None` inside
    /// until then, or after it could not be made (tried again next time).
    spill_dir: Mutex<Option<Arc<SpillDir>>>,
    /// Set once the sweeper that removes expired files runs.
    sweeper: OnceLock<()>,
    /// Tasks of the servers sharing this store.
    tasks: Arc<MemoryTasks>,
}

/// Where a stored list's items start, once a page read has built it (or
/// as it was written); `None` inside for a body that is not a list.
type IndexCell = Arc<OnceLock<Option<Arc<[u64]>>>>;

/// What the lock guards.
#[derive(Default)]
struct State {
    entries: HashMap<Token, Slot>,
    /// Tokens by insertion sequence: the first is the oldest.
    order: BTreeMap<u64, Token>,
    /// The sum of the entries' accounted costs in memory.
    bytes: usize,
    next_seq: u64,
    /// What each caller holds in memory; a caller holding nothing has no
    /// record.
    callers: HashMap<Arc<str>, Held>,
    /// The callers by the bytes they hold: the last holds the most.
    by_bytes: BTreeSet<(usize, Arc<str>)>,
    /// The bytes of the committed entries on disk.
    disk_bytes: u64,
    /// The bytes on disk of entries still being written.
    disk_reserved: u64,
    /// The sequence numbers of the entries on disk, oldest first.
    on_disk: BTreeSet<u64>,
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
    /// What it costs in memory.
    cost: usize,
    owner: Owner,
    origin: Origin,
    digest: Option<Arc<[u8]>>,
    body: Body,
}

/// Where an entry's body is.
enum Body {
    Memory {
        body: Arc<[u8]>,
        /// Where each item of a stored list starts, built by the first page
        /// read of an entry that was put whole (outside the lock; a put
        /// never pays for it) and charged to the cost then, or kept as it
        /// was written. `None` inside: not a list.
        index: IndexCell,
    },
    Disk {
        file: Arc<SpillFile>,
        size: u64,
        /// How many items the list has; `None` for anything else.
        items: Option<usize>,
        /// What it costs on disk: its body and index.
        cost: u64,
    },
}

/// What a committed entry is made of, for [`MemoryStore::insert`].
pub(super) struct NewSlot {
    owner: Owner,
    origin: Origin,
    digest: Option<Arc<[u8]>>,
    body: Body,
}

impl MemoryStore {
    /// A store with `config`'s limits and the real clock.
    ///
    /// With the disk tier on, spill directories under its directory that
    /// no live store holds (left by a process that was killed) are removed
    /// now.
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
        if config.max_disk_bytes > 0 {
            let removed = disk::remove_stale(&config.disk_base());
            if removed > 0 {
                tracing::info!(
                    removed,
                    "removed continuation spill directories left by stopped processes"
                );
            }
        }
        MemoryStore {
            inner: Arc::new(Inner {
                config,
                clock,
                state: Mutex::new(State::default()),
                spill_dir: Mutex::new(None),
                sweeper: OnceLock::new(),
                tasks: Arc::new(MemoryTasks::new()),
            }),
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
        &self.inner.config
    }

    /// How many entries the store holds, after dropping expired ones.
    ///
    /// ```
    /// use mcp_light::store::MemoryStore;
    ///
    /// assert_eq!(MemoryStore::default().len(), 0);
    /// ```
    pub fn len(&self) -> usize {
        self.inner.live_state().entries.len()
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

    /// The bytes the store accounts for in memory, after dropping expired
    /// entries: per entry its body (when in memory), digest, owner strings
    /// and token, plus a fixed overhead for the store's bookkeeping. Never
    /// more than [`max_bytes`](MemoryStoreConfig::max_bytes).
    ///
    /// ```
    /// use mcp_light::store::MemoryStore;
    ///
    /// assert_eq!(MemoryStore::default().bytes(), 0);
    /// ```
    pub fn bytes(&self) -> usize {
        self.inner.live_state().bytes
    }

    /// The bytes the store's entries hold on disk (bodies and indexes),
    /// after dropping expired entries. Never more than
    /// [`max_disk_bytes`](MemoryStoreConfig::max_disk_bytes).
    ///
    /// ```
    /// use mcp_light::store::MemoryStore;
    ///
    /// assert_eq!(MemoryStore::default().disk_bytes(), 0);
    /// ```
    pub fn disk_bytes(&self) -> u64 {
        self.inner.live_state().disk_bytes
    }

    /// The directory this store spills to, once it has spilled: a
    /// directory of its own under [`disk_dir`](MemoryStoreConfig::disk_dir),
    /// removed when the store is dropped.
    ///
    /// ```
    /// use mcp_light::store::MemoryStore;
    ///
    /// assert!(MemoryStore::default().spill_dir().is_none());
    /// ```
    pub fn spill_dir(&self) -> Option<PathBuf> {
        lock(&self.inner.spill_dir)
            .as_ref()
            .map(|dir| dir.path().to_owned())
    }

    fn put_now(&self, token: &Token, entry: Entry) -> Result<(), StoreError> {
        let new = NewSlot {
            owner: entry.owner,
            origin: entry.origin,
            digest: entry.digest,
            body: Body::Memory {
                body: entry.body,
                index: IndexCell::default(),
            },
        };
        self.inner.insert(token, new, 0)
    }
}

impl Inner {
    /// The state with expired entries swept, so introspection counts only
    /// what is still redeemable.
    fn live_state(&self) -> MutexGuard<'_, State> {
        let mut state = lock(&self.state);
        let now = self.clock.now();
        state.sweep_expired(now, self.config.ttl);
        state
    }

    /// The spill directory, made (and its sweeper started) on first use.
    fn spill_dir(self: &Arc<Self>) -> Result<Arc<SpillDir>, StoreError> {
        let mut dir = lock(&self.spill_dir);
        // Made again if something removed it (a cleaner of the temporary
        // directory, say).
        if let Some(dir) = dir.as_ref().filter(|dir| dir.exists()) {
            return Ok(dir.clone());
        }
        let base = self.config.disk_base();
        let made = Arc::new(SpillDir::create(&base).map_err(|error| {
            StoreError::Full(format!(
                "cannot use the spill directory {}: {error}",
                base.display()
            ))
        })?);
        *dir = Some(made.clone());
        drop(dir);
        self.start_sweeper();
        Ok(made)
    }

    /// Sweeps expired entries (and so their files) every half TTL (between
    /// 1 s and 60 s) while the store lives, so that files do not outlive
    /// their TTL on an idle server. Needs a Tokio runtime; without one,
    /// files are removed when the store is next used.
    fn start_sweeper(self: &Arc<Self>) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        if self.sweeper.set(()).is_err() {
            return;
        }
        let every = (self.config.ttl / 2).clamp(Duration::from_secs(1), Duration::from_secs(60));
        let store: Weak<Inner> = Arc::downgrade(self);
        runtime.spawn(async move {
            loop {
                tokio::time::sleep(every).await;
                let Some(store) = store.upgrade() else {
                    return;
                };
                drop(store.live_state());
            }
        });
    }
}

/// A failure of the disk tier, as the store reports it.
fn disk_error(doing: &str, error: &std::io::Error) -> StoreError {
    StoreError::Full(format!("cannot {doing} a spilled result: {error}"))
}

/// The store's work on the blocking pool did not finish (it panicked, or
/// the runtime dropped it): the store could not do what was asked.
pub(super) fn unfinished(unfinished: Unfinished) -> StoreError {
    StoreError::Unavailable(format!(
        "the store's work off the async workers failed: {unfinished}"
    ))
}

impl Default for MemoryStore {
    /// A store with the default limits and the real clock.
    fn default() -> MemoryStore {
        MemoryStore::new(MemoryStoreConfig::default())
    }
}

impl fmt::Debug for MemoryStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = lock(&self.inner.state);
        f.debug_struct("MemoryStore")
            .field("config", &self.inner.config)
            .field("len", &state.entries.len())
            .field("bytes", &state.bytes)
            .field("disk_bytes", &state.disk_bytes)
            .finish_non_exhaustive()
    }
}

impl ContinuationStore for MemoryStore {
    fn name(&self) -> &'static str {
        state::STORE_NAME
    }

    /// An entry too large for memory is written to the disk tier, as if it
    /// had been streamed.
    fn put<'a>(&'a self, token: &'a Token, entry: Entry) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            if cost_of(token, &entry) <= self.inner.memory_limit()
                || self.inner.config.max_disk_bytes == 0
            {
                return self.put_now(token, entry);
            }
            writer::put_on_disk(self, token, entry).await
        })
    }

    fn get<'a>(&'a self, token: &'a Token) -> BoxFuture<'a, Result<Option<Entry>, StoreError>> {
        Box::pin(self.get_now(token))
    }

    fn ttl(&self) -> Duration {
        self.inner.config.ttl
    }

    /// The store's tasks, in this process: servers sharing the store share
    /// them.
    fn tasks(&self) -> Option<Arc<dyn TaskStore>> {
        Some(Arc::clone(&self.inner.tasks) as Arc<dyn TaskStore>)
    }

    /// Keeps the entry in memory while it fits
    /// [`max_entry_bytes`](MemoryStoreConfig::max_entry_bytes), and moves
    /// it to the disk tier once it does not.
    fn begin<'a>(
        &'a self,
        token: Token,
        owner: Owner,
        origin: Origin,
    ) -> BoxFuture<'a, Result<Box<dyn EntryWriter + 'a>, StoreError>> {
        Box::pin(async move {
            Ok(
                Box::new(writer::MemoryWriter::new(self, token, owner, origin))
                    as Box<dyn EntryWriter + 'a>,
            )
        })
    }

    fn info<'a>(
        &'a self,
        token: &'a Token,
    ) -> BoxFuture<'a, Result<Option<EntryInfo>, StoreError>> {
        Box::pin(std::future::ready(Ok(self.info_now(token))))
    }

    /// Reads the items from the body in memory, or from the files of a
    /// spilled one. The first page read of a list put whole scans it once
    /// for where its items start and keeps that beside it, so every later
    /// page costs only its own items.
    fn get_items<'a>(
        &'a self,
        token: &'a Token,
        items: Range<usize>,
    ) -> BoxFuture<'a, Result<Option<StoredItems>, StoreError>> {
        Box::pin(self.get_items_now(token, items))
    }
}

/// Whether `slot` is at or past its TTL. A clock set back makes the age
/// zero rather than negative.
fn is_expired(slot: &Slot, now: Duration, ttl: Duration) -> bool {
    now.saturating_sub(slot.stored_at) >= ttl
}

/// Locks `mutex`, recovering from poisoning: nothing panics while the state
/// is half-updated (the clock is read before any change), so a poisoned
/// lock still guards consistent data.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests;
