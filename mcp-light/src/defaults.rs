//! The limits a server keeps unless it is told otherwise, each beside the
//! setting that changes it.
//!
//! ```
//! use std::time::Duration;
//!
//! use mcp_light::defaults;
//!
//! assert_eq!(defaults::TOOL_DEADLINE, Duration::from_secs(300));
//! assert_eq!(defaults::MAX_ARGUMENT_STRING, 64 * 1024);
//! ```

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
pub use crate::transport::DEFAULT_DRAIN_TIMEOUT as DRAIN_TIMEOUT;
