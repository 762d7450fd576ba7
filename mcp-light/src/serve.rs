//! Serving a [`Server`] over MCP with rmcp (C23): stdio and Streamable HTTP.
//!
//! The rmcp handler is thin: `tools/list` publishes the registry and the
//! dispatchers, `tools/call` hands the call to [`Server::call`] with the
//! caller the transport identified. Framing, sessions and HTTP are rmcp's.

use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, InitializeResult, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;

use crate::{Caller, Server};

/// Why serving stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The MCP session could not be set up or broke.
    #[error("serving MCP failed: {0}")]
    Transport(String),
    /// Reading or writing the socket failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// A principal the host authenticated, for owner binding (C20).
///
/// An HTTP host that authenticates requests (a tower layer in front of
/// [`Server::http_service`]) inserts it into the request's extensions; the
/// caller is then that principal rather than the MCP session.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Principal(pub String);

/// The rmcp [`ServerHandler`] over a [`Server`]. [`Server::serve_stdio`] and
/// [`Server::serve_http`] use it; build one with [`Server::into_handler`] to
/// serve it over another rmcp transport.
#[derive(Debug, Clone)]
pub struct McpHandler {
    server: Server,
    /// Who the caller is when the request carries no principal and no
    /// session: the process on stdio, nobody in particular on stateless HTTP.
    default_caller: Caller,
}

impl McpHandler {
    /// The caller a request comes from, in C20's order: the authenticated
    /// principal, the MCP session, then the transport's default.
    fn caller(&self, context: &RequestContext<RoleServer>) -> Caller {
        #[cfg(feature = "http")]
        if let Some(caller) = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(http_caller)
        {
            return caller;
        }
        #[cfg(not(feature = "http"))]
        let _ = context;
        self.default_caller.clone()
    }
}

/// The caller an HTTP request names: its authenticated [`Principal`], else
/// its MCP session; `None` for a request with neither (a stateless one).
#[cfg(feature = "http")]
fn http_caller(parts: &axum::http::request::Parts) -> Option<Caller> {
    if let Some(Principal(principal)) = parts.extensions.get::<Principal>() {
        return Some(Caller::Principal(principal.clone()));
    }
    let session = parts.headers.get("mcp-session-id")?.to_str().ok()?;
    Some(Caller::Session(session.to_owned()))
}

impl ServerHandler for McpHandler {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder().enable_tools().build();
        InitializeResult::new(capabilities).with_server_info(self.server.implementation().clone())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, rmcp::ErrorData> {
        Ok(ListToolsResult::with_all_items(self.server.list_tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.server
            .list_tools()
            .into_iter()
            .find(|tool| tool.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, rmcp::ErrorData> {
        let caller = self.caller(&context);
        let arguments = request.arguments.map_or(Value::Null, Value::Object);
        Ok(self
            .server
            .call(&request.name, arguments, caller)
            .await
            .into())
    }
}

impl Server {
    /// The rmcp handler for this server; requests that carry no principal
    /// and no session are attributed to `default_caller`.
    pub fn into_handler(self, default_caller: Caller) -> McpHandler {
        McpHandler {
            server: self,
            default_caller,
        }
    }

    /// Serves MCP over this process's stdin and stdout until the client
    /// closes them. The caller is the client process ([`Caller::Process`]).
    ///
    /// Logs must go to stderr: stdout is the protocol channel.
    #[cfg(feature = "stdio")]
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        use rmcp::ServiceExt;

        let running = self
            .into_handler(Caller::Process)
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| ServeError::Transport(e.to_string()))?;
        running
            .waiting()
            .await
            .map_err(|e| ServeError::Transport(e.to_string()))?;
        Ok(())
    }

    /// The Streamable HTTP service for this server, to mount in a host's own
    /// router (axum: `Router::new().nest_service("/mcp", service)`).
    ///
    /// `config` is rmcp's: allowed hosts (loopback only by default), the
    /// request body limit (4 MiB by default; larger requests answer 413),
    /// sessions. With sessions on (the default), each MCP session is a
    /// caller of its own and continuation tokens are bound to it. A client
    /// on a protocol version without sessions, and with no authenticated
    /// [`Principal`], is [`Caller::Anonymous`]: its 128-bit token alone is
    /// the capability to redeem.
    #[cfg(feature = "http")]
    pub fn http_service(
        self,
        config: rmcp::transport::streamable_http_server::StreamableHttpServerConfig,
    ) -> rmcp::transport::streamable_http_server::StreamableHttpService<
        McpHandler,
        rmcp::transport::streamable_http_server::session::local::LocalSessionManager,
    > {
        let handler = self.into_handler(Caller::Anonymous);
        rmcp::transport::streamable_http_server::StreamableHttpService::new(
            move || Ok(handler.clone()),
            Default::default(),
            config,
        )
    }

    /// Serves MCP over Streamable HTTP at `/mcp` on `listener` until
    /// `shutdown` completes, with rmcp's default configuration (see
    /// [`Server::http_service`]) and JSON rather than SSE answers wherever
    /// rmcp allows them.
    ///
    /// A client on a legacy protocol version with sessions is always
    /// answered over SSE by rmcp; some clients cap an SSE event (the Python
    /// SDK at 1 MiB), so such a client reads a result larger than that in
    /// pages (`mode: paginated`) rather than with `mode: full`.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
    /// let server = mcp_light::Server::from_registry()?;
    /// server.serve_http(listener, async { tokio::signal::ctrl_c().await.unwrap() }).await?;
    /// # Ok(()) }
    /// ```
    #[cfg(feature = "http")]
    pub async fn serve_http(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        // Plain JSON answers where rmcp can give them (requests without a
        // legacy session): a multi-megabyte `full` redemption then reaches
        // clients whose SSE event limit (1 MiB in the Python SDK) it exceeds.
        let config = rmcp::transport::streamable_http_server::StreamableHttpServerConfig::default()
            .with_json_response(true);
        let cancel = config.cancellation_token.clone();
        let router = axum::Router::new().nest_service("/mcp", self.http_service(config));
        axum::serve(listener, router)
            .with_graceful_shutdown(async move {
                shutdown.await;
                // Ends open SSE streams and sessions, so the graceful
                // shutdown does not wait on clients that never hang up.
                cancel.cancel();
            })
            .await?;
        Ok(())
    }
}

#[cfg(all(test, feature = "http"))]
mod tests {
    use axum::http::Request;

    use super::*;

    fn parts(session: Option<&str>, principal: Option<&str>) -> axum::http::request::Parts {
        let mut request = Request::builder().uri("/mcp");
        if let Some(session) = session {
            request = request.header("mcp-session-id", session);
        }
        let (mut parts, ()) = request.body(()).unwrap().into_parts();
        if let Some(principal) = principal {
            parts.extensions.insert(Principal(principal.to_owned()));
        }
        parts
    }

    #[test]
    fn an_authenticated_principal_comes_before_the_session() {
        let caller = http_caller(&parts(Some("s-1"), Some("alice")));
        assert_eq!(caller, Some(Caller::Principal("alice".into())));
    }

    #[test]
    fn without_a_principal_the_session_is_the_caller() {
        assert_eq!(
            http_caller(&parts(Some("s-1"), None)),
            Some(Caller::Session("s-1".into()))
        );
    }

    #[test]
    fn a_request_with_neither_falls_back_to_the_transport_default() {
        assert_eq!(http_caller(&parts(None, None)), None);
    }
}
