//! The in-memory continuation store: the embedded default.
//!
//! Entries live in a hash map by token and in an index by insertion order.
//! Every entry has the same TTL, so insertion order is also expiry order.
//! Beside them, what each caller holds, so that room is made from the
//! callers holding the most. An entry too large for memory keeps only its
//! owner and digest here, and its body and index in the disk tier
//! ([`disk`]). What an entry costs and what goes to make room for it is in
//! [`budget`]; reading entries back, in [`read`]. The slots, the state
//! they sit in and what every file here shares are [`kept`]'s.

mod budget;
mod clock;
mod config;
mod disk;
mod kept;
mod lock;
mod read;
mod state;
mod writer;

use std::fmt;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use super::{
    BoxFuture, ContinuationStore, Entry, EntryInfo, EntryWriter, Origin, Owner, StoreError,
    StoredItems,
};
use super::{MemoryTasks, TaskStore};
use crate::token::Token;

#[cfg(test)]
use budget::cost_of;
pub use clock::{Clock, ManualClock, SystemClock};
pub(crate) use config::DEFAULT_TTL;
pub use config::MemoryStoreConfig;
pub use kept::MemoryStore;
use kept::{
    Body, IndexCell, Inner, NewSlot, STORE_NAME, Slot, State, disk_error, is_expired, unfinished,
};
use lock::lock;

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
        STORE_NAME
    }

    /// An entry too large for memory is written to the disk tier, as if it
    /// had been streamed.
    fn put<'a>(&'a self, token: &'a Token, entry: Entry) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            if self.inner.fits_in_memory(token, &entry) || self.inner.config.max_disk_bytes == 0 {
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

#[cfg(test)]
mod tests;
