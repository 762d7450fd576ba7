//! MCP over Streamable HTTP, at `/mcp`.

use axum::serve::{ListenerExt, TapIo};
use rmcp::model::Extensions;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::{TcpListener, TcpStream};

use crate::auth::Auth;
use crate::{Caller, Server};

use super::sessions::{ValidatedSession, ValidatedSessions};
use super::{McpHandler, ServeError};
use crate::principal::Principal;

/// The caller an HTTP request names: its authenticated [`Principal`], else
/// the MCP session rmcp routed it into; `None` for a request with neither
/// (a stateless one). An `Mcp-Session-Id` header that rmcp did not validate
/// — on a 2026-07-28 request, which is served statelessly — names nobody.
pub(super) fn http_caller(extensions: &Extensions) -> Option<Caller> {
    let principal = extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<Principal>());
    if let Some(Principal(principal)) = principal {
        return Some(Caller::Principal(principal.clone()));
    }
    let ValidatedSession(session) = extensions.get::<ValidatedSession>()?;
    Some(Caller::Session(session.to_string()))
}

/// How [`Server::serve_http_with`] serves: who may call, and how answers go
/// out.
///
/// ```
/// use mcp_light::HttpOptions;
/// use mcp_light::auth::Auth;
///
/// let auth = Auth::new().with_bearer_token("ci", "a-long-random-secret-of-ci")?;
/// let options = HttpOptions::new().with_auth(auth);
/// assert!(options.auth().is_some());
/// # Ok::<(), mcp_light::auth::AuthError>(())
/// ```
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct HttpOptions {
    auth: Option<Auth>,
}

impl HttpOptions {
    /// Serve everyone, as [`Server::serve_http`] does.
    pub fn new() -> HttpOptions {
        HttpOptions::default()
    }

    /// Authenticate every request with `auth`: a request without valid
    /// credentials is answered 401 before any tool runs, and the principal
    /// of one that has them owns its continuation tokens.
    pub fn with_auth(mut self, auth: Auth) -> HttpOptions {
        self.auth = Some(auth);
        self
    }

    /// The authentication, if any.
    pub fn auth(&self) -> Option<&Auth> {
        self.auth.as_ref()
    }
}

/// rmcp's Streamable HTTP service over a [`Server`], as
/// [`Server::http_service`] builds it.
pub type HttpService = StreamableHttpService<McpHandler, ValidatedSessions>;

impl Server {
    /// The Streamable HTTP service for this server, to mount in a host's own
    /// router (axum: `Router::new().nest_service("/mcp", service)`, as in
    /// the [axum recipe](crate::docs::recipes#mounting-mcp-light-in-an-axum-application)).
    /// Call [`Server::check_state`] first: a tool whose host state is
    /// missing would answer every call with an error.
    ///
    /// `config` is rmcp's: allowed hosts (loopback only by default), the
    /// request body limit (4 MiB by default; larger requests answer 413),
    /// sessions. With sessions on (the default), each MCP session is a
    /// caller of its own and continuation tokens are bound to it — a session
    /// rmcp validated, never a bare `Mcp-Session-Id` header on a request
    /// served statelessly. A client on protocol 2026-07-28 has no session:
    /// without an authenticated [`Principal`] it is [`Caller::Anonymous`],
    /// and its 130-bit token alone is the capability to redeem. To bind
    /// tokens to who is calling, authenticate requests with
    /// [`Auth::layer`](crate::auth::Auth::layer).
    ///
    /// A host serving the router itself should turn Nagle's algorithm off on
    /// every accepted socket, as [`Server::serve_http`] does; otherwise
    /// answers a session streams in several writes wait for the client's
    /// delayed ACK (about 40 ms each on Linux):
    ///
    /// ```no_run
    /// use axum::serve::ListenerExt;
    ///
    /// # async fn run(server: mcp_light::Server) -> std::io::Result<()> {
    /// let config = rmcp::transport::streamable_http_server::StreamableHttpServerConfig::default();
    /// let router = axum::Router::new().nest_service("/mcp", server.http_service(config));
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080")
    ///     .await?
    ///     .tap_io(|tcp| {
    ///         let _ = tcp.set_nodelay(true);
    ///     });
    /// axum::serve(listener, router).await
    /// # }
    /// ```
    pub fn http_service(self, config: StreamableHttpServerConfig) -> HttpService {
        let handler = self.into_handler(Caller::Anonymous);
        StreamableHttpService::new(move || Ok(handler.clone()), Default::default(), config)
    }

    /// Serves MCP over Streamable HTTP at `/mcp` on `listener` until
    /// `shutdown` completes, to everyone: [`Server::serve_http_with`] with
    /// no authentication.
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
        listener: TcpListener,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        self.serve_http_with(listener, HttpOptions::new(), shutdown)
            .await
    }

    /// Serves MCP over Streamable HTTP at `/mcp` on `listener` until
    /// `shutdown` completes, as `options` say: with rmcp's default
    /// configuration (see [`Server::http_service`]), JSON rather than SSE
    /// answers wherever rmcp allows them, `TCP_NODELAY` on every accepted
    /// socket, and — with [`HttpOptions::with_auth`] — every request
    /// authenticated, the OAuth protected resource metadata served beside
    /// `/mcp`.
    ///
    /// A client on a legacy protocol version with sessions is always
    /// answered over SSE by rmcp; some clients cap an SSE event (the Python
    /// SDK at 1 MiB), so such a client reads a result larger than that in
    /// pages (`mode: paginated`) rather than with `mode: full`.
    ///
    /// ```no_run
    /// use mcp_light::HttpOptions;
    /// use mcp_light::auth::Auth;
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let auth = Auth::new().with_bearer_token("ci", &std::env::var("CI_TOKEN")?)?;
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
    /// let server = mcp_light::Server::from_registry()?;
    /// let shutdown = async { tokio::signal::ctrl_c().await.unwrap() };
    /// server.serve_http_with(listener, HttpOptions::new().with_auth(auth), shutdown).await?;
    /// # Ok(()) }
    /// ```
    pub async fn serve_http_with(
        self,
        listener: TcpListener,
        options: HttpOptions,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        self.check_state()?;
        // Plain JSON answers where rmcp can give them (requests without a
        // legacy session): a multi-megabyte `full` redemption then reaches
        // clients whose SSE event limit (1 MiB in the Python SDK) it exceeds.
        let config = StreamableHttpServerConfig::default().with_json_response(true);
        let cancel = config.cancellation_token.clone();
        let mcp = axum::Router::new().nest_service("/mcp", self.http_service(config));
        let router = match options.auth {
            Some(auth) => mcp.layer(auth.layer()).merge(auth.metadata_router()),
            None => mcp,
        };
        axum::serve(no_delay(listener), router)
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

/// `listener` with Nagle's algorithm off on every socket it accepts: an
/// answer written in several pieces (an SSE stream's headers, then its
/// events) goes out at once instead of waiting for the client's delayed
/// ACK.
fn no_delay(listener: TcpListener) -> TapIo<TcpListener, fn(&mut TcpStream)> {
    listener.tap_io(set_nodelay)
}

fn set_nodelay(tcp: &mut TcpStream) {
    if let Err(error) = tcp.set_nodelay(true) {
        tracing::warn!(
            %error,
            "cannot set TCP_NODELAY on an accepted socket; its answers may wait for delayed ACKs"
        );
    }
}

#[cfg(test)]
mod tests {
    use axum::http::Request;
    use axum::serve::Listener;
    use rmcp::transport::streamable_http_server::SessionId;

    use super::*;

    fn extensions(
        header: Option<&str>,
        validated: Option<&str>,
        principal: Option<&str>,
    ) -> Extensions {
        let mut request = Request::builder().uri("/mcp");
        if let Some(session) = header {
            request = request.header("mcp-session-id", session);
        }
        let (mut parts, ()) = request.body(()).unwrap().into_parts();
        if let Some(principal) = principal {
            parts.extensions.insert(Principal(principal.to_owned()));
        }
        let mut extensions = Extensions::new();
        extensions.insert(parts);
        if let Some(session) = validated {
            extensions.insert(ValidatedSession(SessionId::from(session.to_owned())));
        }
        extensions
    }

    #[test]
    fn an_authenticated_principal_comes_before_the_session() {
        let caller = http_caller(&extensions(Some("s-1"), Some("s-1"), Some("alice")));
        assert_eq!(caller, Some(Caller::Principal("alice".into())));
    }

    #[test]
    fn without_a_principal_the_validated_session_is_the_caller() {
        assert_eq!(
            http_caller(&extensions(Some("s-1"), Some("s-1"), None)),
            Some(Caller::Session("s-1".into()))
        );
    }

    #[test]
    fn a_bare_session_header_names_nobody() {
        assert_eq!(http_caller(&extensions(Some("s-1"), None, None)), None);
    }

    #[test]
    fn a_request_with_neither_falls_back_to_the_transport_default() {
        assert_eq!(http_caller(&extensions(None, None, None)), None);
    }

    #[tokio::test]
    async fn every_accepted_socket_has_nodelay() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut listener = no_delay(listener);
        for _ in 0..3 {
            let client = TcpStream::connect(addr).await.unwrap();
            let (accepted, _) = listener.accept().await;
            assert!(
                accepted.nodelay().unwrap(),
                "an accepted socket kept Nagle's algorithm"
            );
            drop(client);
        }
    }
}
