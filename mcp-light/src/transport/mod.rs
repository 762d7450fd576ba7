//! Serving a [`Server`] over MCP: the options of the stdio and Streamable
//! HTTP transports, the rmcp handler that serves it over any other rmcp
//! transport, and the error serving ends with. A server served with the
//! defaults ([`Server::serve_stdio`], [`Server::serve_http`]) names none of
//! them.
//!
//! The rmcp handler is thin: `tools/list` publishes the registry and the
//! dispatchers, `tools/call` hands the call to [`Server::call`] with the
//! caller the transport identified, `logging/setLevel` sets the session's
//! level. Every other request and every notification (prompts, resources,
//! completions, skills, tasks, progress, cancellations) goes to the rmcp
//! handler composed with [`ServerBuilder::with_handler`](crate::ServerBuilder::with_handler), if any, and the
//! handshake answers what that handler says with mcp-light's tools added.
//! A handler that advertises tools has them listed after mcp-light's, and
//! called for the names mcp-light does not serve.
//! With the `apps` feature, the MCP Apps viewer's resource and tools are
//! mcp-light's too (`crate::apps`).
//! Framing, sessions and HTTP are rmcp's.

mod handler;
pub(crate) use handler::CALL_TOOL;
#[cfg(any(feature = "stdio", feature = "http"))]
pub(crate) use handler::Serving;
pub use handler::{McpHandler, ServeError};
#[cfg(feature = "http")]
mod deadline;
#[cfg(feature = "http")]
mod drain;
#[cfg(feature = "http")]
mod guard;
#[cfg(feature = "http")]
mod health;
#[cfg(feature = "http")]
pub(crate) mod http;
#[cfg(any(feature = "http", feature = "stdio"))]
mod jsonrpc;
#[cfg(feature = "http")]
mod listen;
#[cfg(not(feature = "http"))]
mod no_http;
#[cfg(feature = "http")]
mod origins;
mod own;
#[cfg(feature = "http")]
mod request;
#[cfg(feature = "http")]
mod sessions;
#[cfg(any(feature = "http", feature = "stdio"))]
mod signal;
#[cfg(feature = "stdio")]
pub(crate) mod stdio;
mod traced;

#[cfg(feature = "http")]
pub use health::{HEALTHZ, READYZ};
#[cfg(feature = "http")]
pub use http::{HttpOptions, HttpService};
#[cfg(any(feature = "http", feature = "stdio"))]
pub use signal::shutdown_signal;
#[cfg(feature = "stdio")]
pub use stdio::StdioOptions;

use crate::context::{Caller, SessionKeeps, SessionLogLevel};
use crate::server::Server;

#[cfg(not(feature = "http"))]
use no_http::NoHttp as HttpRequest;
#[cfg(feature = "http")]
use request::HttpRequest;

// The methods mcp-light answers itself, as their spans and metrics name
// them.
impl Server {
    /// The rmcp handler for this server; requests that carry no principal
    /// and no session are attributed to `default_caller`.
    pub fn into_handler(self, default_caller: Caller) -> McpHandler {
        McpHandler {
            server: self,
            default_caller,
            log_level: SessionLogLevel::default(),
            keeps: SessionKeeps::default(),
        }
    }
}

impl Server {
    /// Whether this server can serve every answer it promises now: its
    /// continuation store answers its cheap probe
    /// ([`ContinuationStore::ready`](crate::store::ContinuationStore::ready)), within the store's short timeout.
    /// While it does not, calls still answer, without continuation tokens.
    /// `GET /readyz` of [`Server::serve_http`](crate::Server::serve_http)
    /// answers this; a host serving its own router can too.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// let server = mcp_light::Server::from_registry().build()?;
    /// // The in-memory store is always ready.
    /// assert!(server.ready().await.is_ok());
    /// # Ok::<(), mcp_light::BuildError>(())
    /// # }).unwrap();
    /// ```
    pub async fn ready(&self) -> Result<(), crate::store::StoreError> {
        self.continuations().ready().await
    }
}

#[cfg(test)]
mod tests;
