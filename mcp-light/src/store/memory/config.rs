//! The limits of the in-memory store: how many bytes and entries it holds,
//! in memory and on disk, and for how long.

use std::path::PathBuf;
use std::time::Duration;

use crate::error::config::{ConfigError, Unit};

/// The limits of a [`MemoryStore`](super::MemoryStore).
///
/// Start from [`MemoryStoreConfig::new`] (the defaults) and change what you
/// need with the `with_*` methods; the fields stay readable. A method whose
/// value can be out of range (a limit of 0 bytes) returns
/// `Result<MemoryStoreConfig, ConfigError>`. The struct is
/// `#[non_exhaustive]` so that later limits can be added without breaking
/// callers, which is why it cannot be written as a literal outside
/// mcp-light.
///
/// ```
/// use std::time::Duration;
/// use mcp_light::store::{MemoryStore, MemoryStoreConfig};
///
/// let store = MemoryStore::new(
///     MemoryStoreConfig::new()
///         .with_max_bytes(16 << 20)?
///         .with_ttl(Duration::from_secs(60)),
/// );
/// assert_eq!(store.config().max_entries, 10_000);
/// # Ok::<(), mcp_light::ConfigError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MemoryStoreConfig {
    /// Where the disk tier keeps results too large for memory (default
    /// `None`: the system's temporary directory, [`std::env::temp_dir`]).
    /// The store makes a directory of its own inside it at its first
    /// spill and removes it when dropped; directories there that a killed
    /// process left are removed when a store is made.
    pub disk_dir: Option<PathBuf>,
    /// The most bytes the disk tier holds at once, bodies and indexes
    /// (default 2 GiB); 0 switches the disk tier off, so that a result
    /// larger than [`max_entry_bytes`](MemoryStoreConfig::max_entry_bytes)
    /// is refused. The oldest files make room for new ones.
    pub max_disk_bytes: u64,
    /// The most bytes the store accounts for at once (default 64 MiB). An
    /// entry costs its body, owner strings and token plus a fixed overhead
    /// for the store's own bookkeeping; one that alone costs more than this
    /// is refused with [`StoreError::TooLarge`](crate::store::StoreError::TooLarge).
    pub max_bytes: usize,
    /// The most entries the store holds at once (default 10,000). Zero makes
    /// every `put` fail with [`StoreError::Unavailable`](crate::store::StoreError::Unavailable).
    pub max_entries: usize,
    /// How long an entry stays redeemable after it was stored (default
    /// 300 s). Reading an entry does not extend it.
    pub ttl: Duration,
    /// The most one entry may cost in memory (default 16 MiB): a larger one
    /// spills to the disk tier, or, with the disk tier off, is refused with
    /// [`StoreError::TooLarge`](crate::store::StoreError::TooLarge) before
    /// anything is evicted, so one huge result cannot empty the store.
    /// [`max_bytes`](MemoryStoreConfig::max_bytes) bounds an entry too: the
    /// smaller of the two applies.
    pub max_entry_bytes: usize,
    /// The share of [`max_bytes`](MemoryStoreConfig::max_bytes) and of
    /// [`max_entries`](MemoryStoreConfig::max_entries) one caller may hold,
    /// in percent (default 25). When the store is full, a caller over its
    /// share makes room from its own oldest entries; any other caller makes
    /// room from the oldest entries of the caller holding the most. So one
    /// caller's flood evicts its own earlier results, and a quiet caller's
    /// tokens are the last to go however many callers flood. A caller alone
    /// may still fill the whole store.
    pub caller_share_percent: u8,
}

impl MemoryStoreConfig {
    /// The most bytes the store accounts for at once, unless set.
    pub(crate) const DEFAULT_MAX_BYTES: usize = crate::defaults::STORE_MAX_BYTES;
    /// The most one entry may cost in memory, unless set.
    pub(crate) const DEFAULT_MAX_ENTRY_BYTES: usize = crate::defaults::STORE_MAX_ENTRY_BYTES;
    /// The share of the store one caller may hold, in percent, unless set.
    pub(crate) const DEFAULT_CALLER_SHARE_PERCENT: u8 = crate::defaults::STORE_CALLER_SHARE_PERCENT;

    /// The defaults: 64 MiB, 10,000 entries, a TTL of 300 s, at most
    /// 16 MiB an entry in memory, a caller's share 25%, and a disk tier of
    /// 2 GiB in the system's temporary directory. The same as
    /// [`MemoryStoreConfig::default`], but usable in a `const`.
    ///
    /// ```
    /// use mcp_light::store::MemoryStoreConfig;
    ///
    /// assert_eq!(MemoryStoreConfig::new(), MemoryStoreConfig::default());
    /// ```
    pub const fn new() -> MemoryStoreConfig {
        MemoryStoreConfig {
            max_bytes: MemoryStoreConfig::DEFAULT_MAX_BYTES,
            max_entries: crate::defaults::STORE_MAX_ENTRIES,
            ttl: DEFAULT_TTL,
            max_entry_bytes: MemoryStoreConfig::DEFAULT_MAX_ENTRY_BYTES,
            caller_share_percent: MemoryStoreConfig::DEFAULT_CALLER_SHARE_PERCENT,
            disk_dir: None,
            max_disk_bytes: crate::defaults::STORE_MAX_DISK_BYTES,
        }
    }

    /// Sets [`disk_dir`](MemoryStoreConfig::disk_dir), the directory under
    /// which the disk tier keeps results too large for memory.
    ///
    /// ```
    /// use mcp_light::store::MemoryStoreConfig;
    ///
    /// let config = MemoryStoreConfig::new().with_disk_dir("/var/cache/inventory");
    /// assert_eq!(config.disk_dir.unwrap().to_str(), Some("/var/cache/inventory"));
    /// ```
    pub fn with_disk_dir(mut self, dir: impl Into<PathBuf>) -> MemoryStoreConfig {
        self.disk_dir = Some(dir.into());
        self
    }

    /// Sets [`max_disk_bytes`](MemoryStoreConfig::max_disk_bytes), the most
    /// bytes the disk tier holds (default 2 GiB); 0 switches it off.
    ///
    /// ```
    /// use mcp_light::store::MemoryStoreConfig;
    ///
    /// assert_eq!(MemoryStoreConfig::new().with_max_disk_bytes(0).max_disk_bytes, 0);
    /// ```
    pub const fn with_max_disk_bytes(mut self, max_disk_bytes: u64) -> MemoryStoreConfig {
        self.max_disk_bytes = max_disk_bytes;
        self
    }

    /// The directory the disk tier's own directory is made in.
    pub(super) fn disk_base(&self) -> PathBuf {
        self.disk_dir.clone().unwrap_or_else(std::env::temp_dir)
    }

    /// Sets [`max_bytes`](MemoryStoreConfig::max_bytes), the most bytes the
    /// store accounts for at once (default 64 MiB).
    ///
    /// Fails when `max_bytes` is 0: such a store could keep nothing.
    ///
    /// ```
    /// use mcp_light::store::MemoryStoreConfig;
    ///
    /// assert_eq!(MemoryStoreConfig::new().with_max_bytes(1 << 20)?.max_bytes, 1 << 20);
    /// assert!(MemoryStoreConfig::new().with_max_bytes(0).is_err());
    /// # Ok::<(), mcp_light::ConfigError>(())
    /// ```
    pub fn with_max_bytes(mut self, max_bytes: usize) -> Result<MemoryStoreConfig, ConfigError> {
        check_max_bytes(max_bytes)?;
        self.max_bytes = max_bytes;
        Ok(self)
    }

    /// Sets [`max_entries`](MemoryStoreConfig::max_entries), the most
    /// entries the store holds at once (default 10,000).
    ///
    /// ```
    /// use mcp_light::store::MemoryStoreConfig;
    ///
    /// assert_eq!(MemoryStoreConfig::new().with_max_entries(500).max_entries, 500);
    /// ```
    pub const fn with_max_entries(mut self, max_entries: usize) -> MemoryStoreConfig {
        self.max_entries = max_entries;
        self
    }

    /// Sets [`ttl`](MemoryStoreConfig::ttl), how long an entry stays
    /// redeemable after it was stored (default 300 s).
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_light::store::MemoryStoreConfig;
    ///
    /// let config = MemoryStoreConfig::new().with_ttl(Duration::from_secs(60));
    /// assert_eq!(config.ttl, Duration::from_secs(60));
    /// ```
    pub const fn with_ttl(mut self, ttl: Duration) -> MemoryStoreConfig {
        self.ttl = ttl;
        self
    }

    /// Sets [`max_entry_bytes`](MemoryStoreConfig::max_entry_bytes), the
    /// most one entry may cost (default 16 MiB).
    ///
    /// Fails when `max_entry_bytes` is 0: such a store could keep nothing.
    ///
    /// ```
    /// use mcp_light::store::MemoryStoreConfig;
    ///
    /// let config = MemoryStoreConfig::new().with_max_entry_bytes(4 << 20)?;
    /// assert_eq!(config.max_entry_bytes, 4 << 20);
    /// # Ok::<(), mcp_light::ConfigError>(())
    /// ```
    pub fn with_max_entry_bytes(
        mut self,
        max_entry_bytes: usize,
    ) -> Result<MemoryStoreConfig, ConfigError> {
        check_max_entry_bytes(max_entry_bytes)?;
        self.max_entry_bytes = max_entry_bytes;
        Ok(self)
    }

    /// Sets [`caller_share_percent`](MemoryStoreConfig::caller_share_percent),
    /// the share of the store one caller may hold before its own entries
    /// are evicted first (default 25). 100 makes the store one queue for
    /// every caller.
    ///
    /// Fails when `percent` is 0 or over 100.
    ///
    /// ```
    /// use mcp_light::store::MemoryStoreConfig;
    ///
    /// let config = MemoryStoreConfig::new().with_caller_share_percent(50)?;
    /// assert_eq!(config.caller_share_percent, 50);
    /// assert!(MemoryStoreConfig::new().with_caller_share_percent(101).is_err());
    /// # Ok::<(), mcp_light::ConfigError>(())
    /// ```
    pub fn with_caller_share_percent(
        mut self,
        percent: u8,
    ) -> Result<MemoryStoreConfig, ConfigError> {
        check_share(percent)?;
        self.caller_share_percent = percent;
        Ok(self)
    }

    /// Checks the limits, naming the first one that makes no sense. The
    /// `with_*` methods refuse those values already; this catches a field
    /// set directly. [`MemoryStore::new`](super::MemoryStore::new) calls it.
    ///
    /// ```
    /// use mcp_light::store::MemoryStoreConfig;
    ///
    /// assert!(MemoryStoreConfig::new().check().is_ok());
    /// let mut config = MemoryStoreConfig::new();
    /// config.caller_share_percent = 0;
    /// assert_eq!(config.check().unwrap_err().setting(), "MemoryStoreConfig::caller_share_percent");
    /// ```
    pub fn check(&self) -> Result<(), ConfigError> {
        check_max_bytes(self.max_bytes)?;
        check_max_entry_bytes(self.max_entry_bytes)?;
        check_share(self.caller_share_percent)
    }

    /// The bytes and entries one caller may hold before its own entries are
    /// evicted first: its share of each limit, at least one entry.
    pub(super) fn caller_share(&self) -> (usize, usize) {
        let share = |limit: usize| {
            let share = limit as u128 * u128::from(self.caller_share_percent) / 100;
            usize::try_from(share).unwrap_or(usize::MAX)
        };
        (share(self.max_bytes), share(self.max_entries).max(1))
    }
}

/// How long an entry lives by default.
pub(crate) const DEFAULT_TTL: Duration = crate::defaults::STORE_TTL;

fn check_max_bytes(max_bytes: usize) -> Result<(), ConfigError> {
    match max_bytes {
        0 => Err(ConfigError::zero(
            "MemoryStoreConfig::max_bytes",
            Unit::Bytes,
            MemoryStoreConfig::DEFAULT_MAX_BYTES as u64,
            "a store of 0 bytes keeps nothing",
        )),
        _ => Ok(()),
    }
}

fn check_max_entry_bytes(max_entry_bytes: usize) -> Result<(), ConfigError> {
    match max_entry_bytes {
        0 => Err(ConfigError::zero(
            "MemoryStoreConfig::max_entry_bytes",
            Unit::Bytes,
            MemoryStoreConfig::DEFAULT_MAX_ENTRY_BYTES as u64,
            "an entry of 0 bytes keeps nothing",
        )),
        _ => Ok(()),
    }
}

fn check_share(percent: u8) -> Result<(), ConfigError> {
    match percent {
        1..=100 => Ok(()),
        _ => Err(ConfigError::between(
            "MemoryStoreConfig::caller_share_percent",
            u64::from(percent),
            (1, 100),
            (
                Unit::Count,
                MemoryStoreConfig::DEFAULT_CALLER_SHARE_PERCENT as u64,
            ),
            "the share of the store one caller may hold, in percent",
        )),
    }
}

impl Default for MemoryStoreConfig {
    fn default() -> MemoryStoreConfig {
        MemoryStoreConfig::new()
    }
}
