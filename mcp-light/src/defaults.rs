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

/// The longest string a call's arguments may carry, in bytes, unless the
/// server says otherwise ([`ServerBuilder::with_max_argument_string`](crate::ServerBuilder::with_max_argument_string)).
pub const MAX_ARGUMENT_STRING: usize = 64 * 1024;

/// How long a tool may run unless the server says otherwise
/// ([`ServerBuilder::with_tool_deadline`](crate::ServerBuilder::with_tool_deadline)).
pub const TOOL_DEADLINE: Duration = Duration::from_secs(300);

/// How long a task's record is kept when the server has no continuation
/// store to take the TTL from (with one, a task lives as long as the
/// store keeps a result): 15 minutes.
pub const TASK_TTL: Duration = Duration::from_secs(15 * 60);

/// How long a question to the client (on protocol 2025-11-25) waits for
/// its answer unless
/// [`ServerBuilder::with_ask_timeout`](crate::ServerBuilder::with_ask_timeout)
/// says otherwise: 5 minutes.
pub const ASK_TIMEOUT: Duration = Duration::from_secs(300);

/// How long a sealed `requestState` (protocol 2026-07-28) stays valid
/// unless
/// [`ServerBuilder::with_request_state_ttl`](crate::ServerBuilder::with_request_state_ttl)
/// says otherwise: 10 minutes.
pub const REQUEST_STATE_TTL: Duration = Duration::from_secs(600);

/// The largest request body [`Server::serve_http_with`](crate::Server::serve_http_with) reads unless
/// [`HttpOptions::with_max_body_bytes`](crate::transport::HttpOptions::with_max_body_bytes) says otherwise: 4 MiB.
#[cfg(feature = "http")]
pub const MAX_BODY_BYTES: usize = 4 * 1024 * 1024;

/// How long a client may take to send a request's headers unless
/// [`HttpOptions::with_header_read_timeout`](crate::transport::HttpOptions::with_header_read_timeout) says otherwise: 10 s.
#[cfg(feature = "http")]
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// How many connections are served at once unless
/// [`HttpOptions::with_max_connections`](crate::transport::HttpOptions::with_max_connections) says otherwise: 512.
#[cfg(feature = "http")]
pub const MAX_CONNECTIONS: usize = 512;

/// How many 2025-era sessions may be open at once unless
/// [`HttpOptions::with_max_sessions`](crate::transport::HttpOptions::with_max_sessions) says otherwise: 1,024.
#[cfg(feature = "http")]
pub const MAX_SESSIONS: usize = 1024;

/// How many 2025-era sessions one authenticated principal may hold open
/// unless [`HttpOptions::with_max_sessions_per_principal`](crate::transport::HttpOptions::with_max_sessions_per_principal) says otherwise:
/// 64.
#[cfg(feature = "http")]
pub const MAX_SESSIONS_PER_PRINCIPAL: usize = 64;

/// How long a 2025-era session may sit without a request before it is
/// closed unless [`HttpOptions::with_session_idle_timeout`](crate::transport::HttpOptions::with_session_idle_timeout) says
/// otherwise: 5 minutes.
#[cfg(feature = "http")]
pub const SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(300);

/// The longest line [`Server::serve_stdio`](crate::Server::serve_stdio) reads unless
/// [`StdioOptions::with_max_line_bytes`](crate::transport::StdioOptions::with_max_line_bytes) says otherwise: 4 MiB, the HTTP
/// body limit.
#[cfg(feature = "stdio")]
pub const MAX_LINE_BYTES: usize = 4 * 1024 * 1024;

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

/// The largest result a heavy read's first call answers whole, in bytes of
/// its compact JSON, unless
/// [`HeavyConfig::with_inline_budget`](crate::heavy::HeavyConfig::with_inline_budget)
/// or the tool's `#[mcp_heavy(inline = N)]` says otherwise: 14 KiB (14,336
/// bytes). A larger result answers a probe.
///
/// Measured on the inventory example's devices (about 710 bytes each), in
/// cl100k tokens: a list of up to 20 devices (one default page, 14,166
/// bytes) costs less whole than the probe and the page an agent reads after
/// it (5,233 against 5,453), and 21 devices (14,875 bytes) more (5,488); the
/// budget sits between the two. The [contract](crate::docs::contract#heavy-reads)
/// has the whole table.
pub const INLINE_BUDGET: usize = 14 * 1024;

/// The most items a heavy read's page holds when the caller names no
/// `page_size`, unless
/// [`HeavyConfig::with_default_page_size`](crate::heavy::HeavyConfig::with_default_page_size)
/// says otherwise: 200, the largest page. Such a page holds fewer when
/// they would not fit what the calling client keeps: as many as fit, at
/// least one.
pub const PAGE_SIZE: usize = 200;

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

/// How long a cancelled task's tool has, once told
/// ([`Context::cancelled`](crate::Context::cancelled)), to end on its own
/// before it is dropped, unless
/// [`TaskConfig::with_cancel_grace`](crate::tasks::TaskConfig::with_cancel_grace)
/// says otherwise: 1 s.
pub const TASK_CANCEL_GRACE: Duration = Duration::from_secs(1);

/// What a client that does not name itself, or that
/// [`clients::KNOWN_CLIENTS`](crate::clients::KNOWN_CLIENTS) does not know,
/// is taken to keep of an answer, in bytes, unless
/// [`ClientTable::with_unknown_client`](crate::clients::ClientTable::with_unknown_client)
/// says otherwise: 10,000, the smallest cut of a known client (OpenAI
/// Codex's).
pub const UNKNOWN_CLIENT_KEEPS: usize = 10_000;

/// The most bytes a bulk write's envelope takes listing the written
/// objects' ids, unless
/// [`ServerBuilder::with_envelope_bytes`](crate::ServerBuilder::with_envelope_bytes)
/// says otherwise: 1,024, about 23 UUIDs beside the count and a token. A
/// bulk write whose envelope would take more answers its count and the
/// continuation token that pages what was written, so its envelope is the
/// same few dozen tokens at 100 objects and at 10,000.
pub const ENVELOPE_BYTES: usize = 1024;
