//! What the memory store keeps: its entries' slots, the state they sit in,
//! and the shared parts every file of the store reaches.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, Weak};
use std::time::Duration;

use crate::runtime::Unfinished;
use crate::store::MemoryTasks;
use crate::store::{Origin, Owner, StoreError};
use crate::token::Token;

use super::clock::Clock;
use super::config::MemoryStoreConfig;
use super::disk::{SpillDir, SpillFile};
use super::lock::lock;

/// The in-memory store's name in traces and metrics.
pub(super) const STORE_NAME: &str = "memory";

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
    pub(super) inner: Arc<Inner>,
}

/// What a store and its disk sweeper share.
pub(super) struct Inner {
    pub(super) config: MemoryStoreConfig,
    pub(super) clock: Arc<dyn Clock>,
    pub(super) state: Mutex<State>,
    /// The disk tier's directory, made at the first spill; `None` inside
    /// until then, or after it could not be made (tried again next time).
    pub(super) spill_dir: Mutex<Option<Arc<SpillDir>>>,
    /// Set once the sweeper that removes expired files runs.
    pub(super) sweeper: OnceLock<()>,
    /// Tasks of the servers sharing this store.
    pub(super) tasks: Arc<MemoryTasks>,
}

/// Where a stored list's items start, once a page read has built it (or
/// as it was written); `None` inside for a body that is not a list.
pub(super) type IndexCell = Arc<OnceLock<Option<Arc<[u64]>>>>;

/// What the lock guards.
#[derive(Default)]
pub(super) struct State {
    pub(super) entries: HashMap<Token, Slot>,
    /// Tokens by insertion sequence: the first is the oldest.
    pub(super) order: BTreeMap<u64, Token>,
    /// The sum of the entries' accounted costs in memory.
    pub(super) bytes: usize,
    pub(super) next_seq: u64,
    /// What each caller holds in memory; a caller holding nothing has no
    /// record.
    pub(super) callers: HashMap<Arc<str>, Held>,
    /// The callers by the bytes they hold: the last holds the most.
    pub(super) by_bytes: BTreeSet<(usize, Arc<str>)>,
    /// The bytes of the committed entries on disk.
    pub(super) disk_bytes: u64,
    /// The bytes on disk of entries still being written.
    pub(super) disk_reserved: u64,
    /// The sequence numbers of the entries on disk, oldest first.
    pub(super) on_disk: BTreeSet<u64>,
}

/// What one caller holds: its entries' costs and their sequence numbers,
/// oldest first.
#[derive(Default)]
pub(super) struct Held {
    pub(super) bytes: usize,
    pub(super) seqs: BTreeSet<u64>,
}

/// One stored entry and what the store needs to expire and evict it.
pub(super) struct Slot {
    pub(super) seq: u64,
    pub(super) stored_at: Duration,
    /// What it costs in memory.
    pub(super) cost: usize,
    pub(super) owner: Owner,
    pub(super) origin: Origin,
    pub(super) digest: Option<Arc<[u8]>>,
    pub(super) body: Body,
}

/// Where an entry's body is.
pub(super) enum Body {
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
    pub(super) owner: Owner,
    pub(super) origin: Origin,
    pub(super) digest: Option<Arc<[u8]>>,
    pub(super) body: Body,
}

impl Inner {
    /// The state with expired entries swept, so introspection counts only
    /// what is still redeemable.
    pub(super) fn live_state(&self) -> MutexGuard<'_, State> {
        let mut state = lock(&self.state);
        let now = self.clock.now();
        state.sweep_expired(now, self.config.ttl);
        state
    }

    /// The spill directory, made (and its sweeper started) on first use.
    pub(super) fn spill_dir(self: &Arc<Self>) -> Result<Arc<SpillDir>, StoreError> {
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
    pub(super) fn start_sweeper(self: &Arc<Self>) {
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
pub(super) fn disk_error(doing: &str, error: &std::io::Error) -> StoreError {
    StoreError::Full(format!("cannot {doing} a spilled result: {error}"))
}

/// The store's work on the blocking pool did not finish (it panicked, or
/// the runtime dropped it): the store could not do what was asked.
pub(super) fn unfinished(unfinished: Unfinished) -> StoreError {
    StoreError::Unavailable(format!(
        "the store's work off the async workers failed: {unfinished}"
    ))
}

/// Whether `slot` is at or past its TTL. A clock set back makes the age
/// zero rather than negative.
pub(super) fn is_expired(slot: &Slot, now: Duration, ttl: Duration) -> bool {
    now.saturating_sub(slot.stored_at) >= ttl
}
