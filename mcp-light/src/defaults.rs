//! The limits a server keeps unless it is told otherwise, each beside the
//! setting that changes it: every default a server, its store, its heavy
//! reads, its tasks and its transports start with, named once, here.
//! The contract's [table of bounds](crate::docs::contract#bounds) lists
//! them with what happens past each.
//!
//! ```
//! use std::time::Duration;
//!
//! use mcp_light::defaults;
//!
//! assert_eq!(defaults::TOOL_DEADLINE, Duration::from_secs(300));
//! assert_eq!(defaults::MAX_ARGUMENT_STRING, 64 * 1024);
//! ```

use std::time::Duration;

pub use crate::args::DEFAULT_MAX_ARGUMENT_STRING as MAX_ARGUMENT_STRING;
pub use crate::limits::DEFAULT_TOOL_DEADLINE as TOOL_DEADLINE;
pub use crate::roundtrip::{
    DEFAULT_ASK_TIMEOUT as ASK_TIMEOUT, DEFAULT_REQUEST_STATE_TTL as REQUEST_STATE_TTL,
};
#[cfg(feature = "http")]
pub use crate::transport::http::{
    DEFAULT_HEADER_READ_TIMEOUT as HEADER_READ_TIMEOUT, DEFAULT_MAX_BODY_BYTES as MAX_BODY_BYTES,
    DEFAULT_MAX_CONNECTIONS as MAX_CONNECTIONS, DEFAULT_MAX_SESSIONS as MAX_SESSIONS,
    DEFAULT_MAX_SESSIONS_PER_PRINCIPAL as MAX_SESSIONS_PER_PRINCIPAL,
    DEFAULT_SESSION_IDLE_TIMEOUT as SESSION_IDLE_TIMEOUT,
};
#[cfg(feature = "stdio")]
pub use crate::transport::stdio::DEFAULT_MAX_LINE_BYTES as MAX_LINE_BYTES;

/// How long a graceful shutdown waits for the requests in flight unless
/// [`HttpOptions::with_drain_timeout`](crate::transport::HttpOptions::with_drain_timeout)
/// or [`StdioOptions::with_drain_timeout`](crate::transport::StdioOptions::with_drain_timeout)
/// says otherwise: 30 s, Kubernetes' default grace period.
#[cfg(any(feature = "http", feature = "stdio"))]
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a continuation result, and a task, is kept unless
/// [`MemoryStoreConfig::with_ttl`](crate::store::MemoryStoreConfig::with_ttl)
/// or `RedisStoreConfig::with_ttl` says otherwise: 300 s.
pub const STORE_TTL: Duration = Duration::from_secs(300);

/// The in-memory store's bytes in memory unless
/// [`MemoryStoreConfig::with_max_bytes`](crate::store::MemoryStoreConfig::with_max_bytes)
/// says otherwise: 64 MiB.
pub const STORE_MAX_BYTES: usize = 64 << 20;

/// The in-memory store's entries unless
/// [`MemoryStoreConfig::with_max_entries`](crate::store::MemoryStoreConfig::with_max_entries)
/// says otherwise: 10,000.
pub const STORE_MAX_ENTRIES: usize = 10_000;

/// The largest result the in-memory store keeps in memory (a larger one
/// spills to disk) unless
/// [`MemoryStoreConfig::with_max_entry_bytes`](crate::store::MemoryStoreConfig::with_max_entry_bytes)
/// says otherwise: 16 MiB.
pub const STORE_MAX_ENTRY_BYTES: usize = 16 << 20;

/// The in-memory store's disk tier unless
/// [`MemoryStoreConfig::with_max_disk_bytes`](crate::store::MemoryStoreConfig::with_max_disk_bytes)
/// says otherwise: 2 GiB.
pub const STORE_MAX_DISK_BYTES: u64 = 2 << 30;

/// A caller's share of the in-memory store, in percent, unless
/// [`MemoryStoreConfig::with_caller_share_percent`](crate::store::MemoryStoreConfig::with_caller_share_percent)
/// says otherwise: 25.
pub const STORE_CALLER_SHARE_PERCENT: u8 = 25;

/// The largest entry the Redis store keeps unless
/// `RedisStoreConfig::with_max_entry_bytes` says otherwise: 1 GiB.
pub const REDIS_MAX_ENTRY_BYTES: u64 = 1 << 30;

/// The size of the parts the Redis store writes an entry in unless
/// `RedisStoreConfig::with_part_bytes` says otherwise: 1 MiB.
pub const REDIS_PART_BYTES: u64 = 1 << 20;

/// How long one Redis operation may take unless
/// `RedisStoreConfig::with_timeout` says otherwise: 1 s.
pub const REDIS_TIMEOUT: Duration = Duration::from_secs(1);

/// A heavy read's page size when the caller names none, unless
/// [`HeavyConfig::with_default_page_size`](crate::heavy::HeavyConfig::with_default_page_size)
/// says otherwise: 20.
pub const PAGE_SIZE: usize = 20;

/// The largest page a caller may ask for unless
/// [`HeavyConfig::with_max_page_size`](crate::heavy::HeavyConfig::with_max_page_size)
/// says otherwise: 200.
pub const MAX_PAGE_SIZE: usize = 200;

/// The most distinct `filter_keys` one call may name unless
/// [`HeavyConfig::with_max_filter_keys`](crate::heavy::HeavyConfig::with_max_filter_keys)
/// says otherwise: 64.
pub const MAX_FILTER_KEYS: usize = 64;

/// The size above which a plain read whose schema discloses continuation
/// answers a probe unless
/// [`HeavyConfig::with_size_backstop`](crate::heavy::HeavyConfig::with_size_backstop)
/// says otherwise: 25,000 bytes.
pub const SIZE_BACKSTOP: usize = 25_000;

/// The most characters of a probe's `preview` unless
/// [`HeavyConfig::with_preview_chars`](crate::heavy::HeavyConfig::with_preview_chars)
/// says otherwise: 200.
pub const PREVIEW_CHARS: usize = 200;

/// The largest result answered whole (`full`) unless
/// [`HeavyConfig::with_max_full_bytes`](crate::heavy::HeavyConfig::with_max_full_bytes)
/// says otherwise: 16 MiB.
pub const MAX_FULL_BYTES: usize = 16 << 20;

/// How long a task-capable call runs before it answers as a task unless
/// [`TaskConfig::with_after`](crate::tasks::TaskConfig::with_after) says
/// otherwise: 1 s.
pub const TASK_AFTER: Duration = Duration::from_secs(1);

/// How often a client is asked to poll a task unless
/// [`TaskConfig::with_poll_interval`](crate::tasks::TaskConfig::with_poll_interval)
/// says otherwise: 500 ms.
pub const TASK_POLL_INTERVAL: Duration = Duration::from_millis(500);

/// How long a task's replica may stay silent before the task is `failed`
/// unless [`TaskConfig::with_lease`](crate::tasks::TaskConfig::with_lease)
/// says otherwise: 30 s.
pub const TASK_LEASE: Duration = Duration::from_secs(30);

/// How often the replica running a task looks for a cancellation or an
/// answer unless
/// [`TaskConfig::with_watch_interval`](crate::tasks::TaskConfig::with_watch_interval)
/// says otherwise: 100 ms.
pub const TASK_WATCH_INTERVAL: Duration = Duration::from_millis(100);
