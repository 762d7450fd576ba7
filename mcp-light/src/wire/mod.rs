//! The wire: serving a server over MCP, and who a request comes from.
//!
//! - `transport/` (`mcp_light::transport`): stdio and Streamable HTTP, and
//!   the rmcp handler that serves a server over any other rmcp transport.
//! - `auth/` (`mcp_light::auth`, with the `http` feature): bearer tokens,
//!   OAuth, and the scopes each tool needs, checked per request.
//! - `principal`: who an authenticated request comes from, and what its
//!   token grants.

#[cfg(feature = "http")]
pub mod auth;
pub(crate) mod principal;
pub mod transport;
