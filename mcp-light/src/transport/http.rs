//! MCP over Streamable HTTP, at `/mcp`.

use crate::{Caller, Server};

use super::{McpHandler, Principal, ServeError};

/// The caller an HTTP request names: its authenticated [`Principal`], else
/// its MCP session; `None` for a request with neither (a stateless one).
pub(super) fn http_caller(parts: &axum::http::request::Parts) -> Option<Caller> {
    if let Some(Principal(principal)) = parts.extensions.get::<Principal>() {
        return Some(Caller::Principal(principal.clone()));
    }
    let session = parts.headers.get("mcp-session-id")?.to_str().ok()?;
    Some(Caller::Session(session.to_owned()))
}

impl Server {
    /// The Streamable HTTP service for this server, to mount in a host's own
    /// router (axum: `Router::new().nest_service("/mcp", service)`). Call
    /// [`Server::check_state`] first: a tool whose host state is missing
    /// would answer every call with an error.
    ///
    /// `config` is rmcp's: allowed hosts (loopback only by default), the
    /// request body limit (4 MiB by default; larger requests answer 413),
    /// sessions. With sessions on (the default), each MCP session is a
    /// caller of its own and continuation tokens are bound to it. A client
    /// on a protocol version without sessions, and with no authenticated
    /// [`Principal`], is [`Caller::Anonymous`]: its 128-bit token alone is
    /// the capability to redeem.
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
    /// Fails before serving when a tool takes host state that was never
    /// registered ([`Server::check_state`]).
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
    /// let server = mcp_light::Server::from_registry()?;
    /// server.serve_http(listener, async { tokio::signal::ctrl_c().await.unwrap() }).await?;
    /// # Ok(()) }
    /// ```
    pub async fn serve_http(
        self,
        listener: tokio::net::TcpListener,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        self.check_state()?;
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

#[cfg(test)]
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
