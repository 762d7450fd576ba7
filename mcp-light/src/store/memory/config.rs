//! The limits of the in-memory store: how many bytes and entries it holds,
//! and for how long.

use std::time::Duration;

/// The limits of a [`MemoryStore`](super::MemoryStore).
///
/// Start from [`MemoryStoreConfig::new`] (the defaults) and change what you
/// need with the `with_*` methods; the fields stay readable. The struct is
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
///         .with_max_bytes(16 << 20)
///         .with_ttl(Duration::from_secs(60)),
/// );
/// assert_eq!(store.config().max_entries, 10_000);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct MemoryStoreConfig {
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
}

impl MemoryStoreConfig {
    /// The defaults: 64 MiB, 10,000 entries, a TTL of 300 s. The same as
    /// [`MemoryStoreConfig::default`], but usable in a `const`.
    ///
    /// ```
    /// use mcp_light::store::MemoryStoreConfig;
    ///
    /// assert_eq!(MemoryStoreConfig::new(), MemoryStoreConfig::default());
    /// ```
    pub const fn new() -> MemoryStoreConfig {
        MemoryStoreConfig {
            max_bytes: 64 << 20,
            max_entries: 10_000,
            ttl: Duration::from_secs(300),
        }
    }

    /// Sets [`max_bytes`](MemoryStoreConfig::max_bytes), the most bytes the
    /// store accounts for at once (default 64 MiB).
    ///
    /// ```
    /// use mcp_light::store::MemoryStoreConfig;
    ///
    /// assert_eq!(MemoryStoreConfig::new().with_max_bytes(1 << 20).max_bytes, 1 << 20);
    /// ```
    pub const fn with_max_bytes(mut self, max_bytes: usize) -> MemoryStoreConfig {
        self.max_bytes = max_bytes;
        self
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
}

impl Default for MemoryStoreConfig {
    fn default() -> MemoryStoreConfig {
        MemoryStoreConfig::new()
    }
}
