//! MCP over Streamable HTTP, at `/mcp`.

use std::convert::Infallible;
use std::future::Future;
use std::task::Poll;
use std::time::Duration;

use axum::body::{Bytes, HttpBody};
use axum::http::{Request, Response};
use http_body_util::combinators::BoxBody;
use tower_service::Service;

use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;

use crate::auth::Auth;
use crate::context::Caller;
use crate::error::config::{ConfigError, Unit};
use crate::server::Server;

use super::drain::InFlight;
use super::guard::JsonRpcGuard;
use super::listen::{self, ConnectionLimits, Drain};
use super::origins::AllowedOrigins;
use super::sessions::{SessionSlots, ValidatedSessions};
use super::{ServeError, Serving};
use crate::store::BoxFuture;

pub(crate) use crate::defaults::MAX_BODY_BYTES as DEFAULT_MAX_BODY_BYTES;

pub(crate) use crate::defaults::HEADER_READ_TIMEOUT as DEFAULT_HEADER_READ_TIMEOUT;

pub(crate) use crate::defaults::MAX_CONNECTIONS as DEFAULT_MAX_CONNECTIONS;

pub(crate) use crate::defaults::MAX_SESSIONS as DEFAULT_MAX_SESSIONS;

pub(crate) use crate::defaults::MAX_SESSIONS_PER_PRINCIPAL as DEFAULT_MAX_SESSIONS_PER_PRINCIPAL;

pub(crate) use crate::defaults::SESSION_IDLE_TIMEOUT as DEFAULT_SESSION_IDLE_TIMEOUT;

/// The hosts a request may name in `Host` unless
/// [`HttpOptions::with_allowed_hosts`] says otherwise: the loopback ones.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// How [`Server::serve_http_with`] serves: who may call, from which hosts
/// and origins, and how much a client may ask of it.
///
/// Each `with_*` method says its default and what happens past it; the
/// [table of bounds](crate::docs::contract#bounds) lists them all, beside
/// the store's and the heavy reads'.
///
/// A request without an `Origin` header (any client that is not a browser)
/// is accepted; one whose `Origin` is not allowed, `null` included, is
/// refused `403` before anything runs, so a web page cannot drive a
/// server on the user's machine (DNS rebinding).
///
/// ```
/// use mcp_light::auth::Auth;
/// use mcp_light::transport::HttpOptions;
///
/// let auth = Auth::new().with_bearer_token("ci", "a-long-random-secret-of-ci")?;
/// let options = HttpOptions::new().with_auth(auth);
/// assert!(options.auth().is_some());
/// # Ok::<(), mcp_light::auth::AuthError>(())
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct HttpOptions {
    auth: Option<Auth>,
    allowed_hosts: Vec<String>,
    /// `None`: the origins of the allowed hosts.
    allowed_origins: Option<Vec<String>>,
    max_body_bytes: usize,
    header_read_timeout: Duration,
    max_connections: usize,
    drain_timeout: Duration,
    sessions: SessionBounds,
}

/// The bounds on 2025-era sessions.
#[derive(Debug, Clone, Copy)]
struct SessionBounds {
    max: usize,
    max_per_principal: usize,
    idle_timeout: Duration,
}

impl Default for SessionBounds {
    fn default() -> Self {
        SessionBounds {
            max: DEFAULT_MAX_SESSIONS,
            max_per_principal: DEFAULT_MAX_SESSIONS_PER_PRINCIPAL,
            idle_timeout: DEFAULT_SESSION_IDLE_TIMEOUT,
        }
    }
}

impl Default for HttpOptions {
    fn default() -> Self {
        HttpOptions {
            auth: None,
            allowed_hosts: LOOPBACK_HOSTS.map(str::to_owned).to_vec(),
            allowed_origins: None,
            max_body_bytes: DEFAULT_MAX_BODY_BYTES,
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            drain_timeout: crate::defaults::DRAIN_TIMEOUT,
            sessions: SessionBounds::default(),
        }
    }
}

impl HttpOptions {
    /// Serve everyone, as [`Server::serve_http`] does, with the default
    /// bounds.
    pub fn new() -> HttpOptions {
        HttpOptions::default()
    }

    /// Accepts requests whose `Host` is one of `hosts` (`example.com`, or
    /// `example.com:8443` for one port) instead of the loopback names; a
    /// server reached under a public name lists it here. An empty list
    /// accepts any `Host`, and then any `Origin` too unless
    /// [`HttpOptions::with_allowed_origins`] names some.
    pub fn with_allowed_hosts(
        mut self,
        hosts: impl IntoIterator<Item = impl Into<String>>,
    ) -> HttpOptions {
        self.allowed_hosts = hosts.into_iter().map(Into::into).collect();
        self
    }

    /// Accepts browser requests whose `Origin` is one of `origins` —
    /// `https://app.example.com`, `http://localhost:*` (any port), `null`
    /// for a sandboxed page — instead of the origins of the allowed hosts.
    /// A request without `Origin` is always accepted.
    pub fn with_allowed_origins(
        mut self,
        origins: impl IntoIterator<Item = impl Into<String>>,
    ) -> HttpOptions {
        self.allowed_origins = Some(origins.into_iter().map(Into::into).collect());
        self
    }

    /// Reads request bodies of at most `bytes`; a larger one is answered
    /// `413 Payload Too Large` with a JSON-RPC error.
    ///
    /// Fails when `bytes` is 0: every request would be refused.
    ///
    /// ```
    /// let options = mcp_light::transport::HttpOptions::new().with_max_body_bytes(1 << 20)?;
    /// # Ok::<(), mcp_light::ConfigError>(())
    /// ```
    pub fn with_max_body_bytes(mut self, bytes: usize) -> Result<HttpOptions, ConfigError> {
        if bytes == 0 {
            return Err(ConfigError::zero(
                "HttpOptions::max_body_bytes",
                Unit::Bytes,
                DEFAULT_MAX_BODY_BYTES as u64,
                "with 0 every request is refused",
            ));
        }
        self.max_body_bytes = bytes;
        Ok(self)
    }

    /// Closes a connection whose client has not sent a request's headers
    /// within `timeout` of the server waiting for them — a half-sent
    /// request, or a kept-alive connection left idle that long.
    pub fn with_header_read_timeout(mut self, timeout: Duration) -> HttpOptions {
        self.header_read_timeout = timeout;
        self
    }

    /// Serves at most `connections` connections at once; further clients
    /// wait in the listen backlog until one closes.
    ///
    /// Fails when `connections` is 0: no client would ever be served.
    ///
    /// ```
    /// let options = mcp_light::transport::HttpOptions::new().with_max_connections(64)?;
    /// assert!(mcp_light::transport::HttpOptions::new().with_max_connections(0).is_err());
    /// # Ok::<(), mcp_light::ConfigError>(())
    /// ```
    pub fn with_max_connections(mut self, connections: usize) -> Result<HttpOptions, ConfigError> {
        if connections == 0 {
            return Err(ConfigError::zero(
                "HttpOptions::max_connections",
                Unit::Count,
                DEFAULT_MAX_CONNECTIONS as u64,
                "with 0 no client is ever served",
            ));
        }
        self.max_connections = connections;
        Ok(self)
    }

    /// At a graceful shutdown (the `shutdown` future of
    /// [`Server::serve_http_with`] completing), waits at most `timeout` for
    /// the requests in flight to be answered before cutting them. New
    /// connections are refused from the moment the shutdown starts, idle
    /// ones are closed, and once no request is in flight the sessions and
    /// their streams end. Give an orchestrator's grace period a little
    /// more than this (Kubernetes' `terminationGracePeriodSeconds`, 30 s by
    /// default).
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let options = mcp_light::transport::HttpOptions::new().with_drain_timeout(Duration::from_secs(10));
    /// assert_eq!(options.drain_timeout(), Duration::from_secs(10));
    /// ```
    pub fn with_drain_timeout(mut self, timeout: Duration) -> HttpOptions {
        self.drain_timeout = timeout;
        self
    }

    /// How long a graceful shutdown waits for the requests in flight.
    pub fn drain_timeout(&self) -> Duration {
        self.drain_timeout
    }

    /// Keeps at most `sessions` 2025-era sessions open at once (clients
    /// that `initialize`, then send `Mcp-Session-Id`); past it, an
    /// `initialize` that would open one is answered `503 Service
    /// Unavailable` with a JSON-RPC error saying so, until a session
    /// closes (`DELETE`) or sits idle past
    /// [`with_session_idle_timeout`](Self::with_session_idle_timeout).
    /// Each session holds a task and its buffers in this process; clients
    /// on protocol 2026-07-28 hold none and are not counted.
    ///
    /// Fails when `sessions` is 0; to serve no 2025-era client at all,
    /// leave this bound alone and put a gateway in front.
    ///
    /// ```
    /// let options = mcp_light::transport::HttpOptions::new().with_max_sessions(200)?;
    /// assert_eq!(options.max_sessions(), 200);
    /// # Ok::<(), mcp_light::ConfigError>(())
    /// ```
    pub fn with_max_sessions(mut self, sessions: usize) -> Result<HttpOptions, ConfigError> {
        if sessions == 0 {
            return Err(ConfigError::zero(
                "HttpOptions::max_sessions",
                Unit::Count,
                DEFAULT_MAX_SESSIONS as u64,
                "with 0 no 2025-era client could ever initialize",
            ));
        }
        self.sessions.max = sessions;
        Ok(self)
    }

    /// How many 2025-era sessions may be open at once.
    pub fn max_sessions(&self) -> usize {
        self.sessions.max
    }

    /// Keeps at most `sessions` 2025-era sessions open for one
    /// authenticated principal ([`with_auth`](Self::with_auth)); past it,
    /// that principal's `initialize` is answered `429 Too Many Requests`
    /// with a JSON-RPC error, while other callers still open theirs.
    /// Without authentication there is no principal to count by (behind a
    /// load balancer every client has its address), and only
    /// [`with_max_sessions`](Self::with_max_sessions) bounds.
    ///
    /// Fails when `sessions` is 0: no principal could ever initialize.
    pub fn with_max_sessions_per_principal(
        mut self,
        sessions: usize,
    ) -> Result<HttpOptions, ConfigError> {
        if sessions == 0 {
            return Err(ConfigError::zero(
                "HttpOptions::max_sessions_per_principal",
                Unit::Count,
                DEFAULT_MAX_SESSIONS_PER_PRINCIPAL as u64,
                "with 0 no principal could ever initialize",
            ));
        }
        self.sessions.max_per_principal = sessions;
        Ok(self)
    }

    /// How many 2025-era sessions one principal may hold open.
    pub fn max_sessions_per_principal(&self) -> usize {
        self.sessions.max_per_principal
    }

    /// Closes a 2025-era session that has had no request for `timeout`,
    /// freeing its place under [`with_max_sessions`](Self::with_max_sessions);
    /// its client must `initialize` again. A client holding the session's
    /// `GET` stream open keeps it alive.
    pub fn with_session_idle_timeout(mut self, timeout: Duration) -> HttpOptions {
        self.sessions.idle_timeout = timeout;
        self
    }

    /// rmcp's configuration for these options.
    fn rmcp_config(&self) -> StreamableHttpServerConfig {
        // Plain JSON answers where rmcp can give them (requests without a
        // legacy session): a multi-megabyte `full` redemption then reaches
        // clients whose SSE event limit (1 MiB in the Python SDK) it exceeds.
        let config = StreamableHttpServerConfig::default()
            .with_json_response(true)
            .with_max_request_body_bytes(self.max_body_bytes)
            .with_allowed_hosts(self.allowed_hosts.iter().cloned());
        let origins = match &self.allowed_origins {
            Some(origins) => origins.clone(),
            None => self
                .allowed_hosts
                .iter()
                .flat_map(|host| origins_of(host))
                .collect(),
        };
        match (origins.is_empty(), self.allowed_origins.is_some()) {
            (false, _) => config.with_allowed_origins(origins),
            // Origins explicitly none: every browser request is refused.
            (true, true) => config.enforce_origin_validation(),
            // Any host, no origins named: no Origin check either.
            (true, false) => config,
        }
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

/// rmcp's Streamable HTTP service over a [`Server`], behind mcp-light's
/// JSON-RPC checks, as [`Server::http_service`] builds it: a tower
/// [`Service`] of HTTP requests, cheap to clone, to mount in a router.
#[derive(Clone, Debug)]
pub struct HttpService(JsonRpcGuard);

impl<B> Service<Request<B>> for HttpService
where
    B: HttpBody + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = Response<BoxBody<Bytes, Infallible>>;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Self::Response, Infallible>>;

    fn poll_ready(&mut self, cx: &mut std::task::Context<'_>) -> Poll<Result<(), Infallible>> {
        Service::<Request<B>>::poll_ready(&mut self.0, cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        self.0.call(request)
    }
}

impl Server {
    /// The Streamable HTTP service for this server, to mount in a host's own
    /// router (axum: `Router::new().nest_service("/mcp", service)`, as in
    /// the [axum guide](crate::docs::axum), which also mounts the health
    /// routes and sets `TCP_NODELAY`).
    /// `config` is rmcp's: allowed hosts (loopback only by default), the
    /// request body limit (4 MiB by default; larger requests answer 413),
    /// sessions. With sessions on (the default), each MCP session is a
    /// caller of its own and continuation tokens are bound to it — a session
    /// rmcp validated, never a bare `Mcp-Session-Id` header on a request
    /// served statelessly. A client on protocol 2026-07-28 has no session:
    /// without an authenticated [`Principal`](crate::Principal) it is [`Caller::Anonymous`],
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
    ///
    /// In front of rmcp, a JSON POST whose body is no well-formed JSON-RPC
    /// message is answered `400 Bad Request` with a JSON-RPC error (`-32700`
    /// for bytes that are not JSON, `-32600` for JSON that is no message,
    /// `-32602` for a protocol method's params of the wrong shape) instead
    /// of rmcp's `415` in plain text.
    ///
    /// 2025-era sessions are bounded by the defaults of [`HttpOptions`]:
    /// at most [`MAX_SESSIONS`](crate::defaults::MAX_SESSIONS) open, [`MAX_SESSIONS_PER_PRINCIPAL`](crate::defaults::MAX_SESSIONS_PER_PRINCIPAL)
    /// for one principal, each closed after [`SESSION_IDLE_TIMEOUT`](crate::defaults::SESSION_IDLE_TIMEOUT)
    /// without a request.
    pub fn http_service(self, config: StreamableHttpServerConfig) -> HttpService {
        self.bounded_http_service(config, SessionBounds::default())
    }

    /// [`Server::http_service`] with its sessions bounded by `bounds`.
    fn bounded_http_service(
        self,
        config: StreamableHttpServerConfig,
        bounds: SessionBounds,
    ) -> HttpService {
        // Only a server with scoped tools looks into a call for them.
        let scoped = self.scoped().then(|| self.clone());
        let handler = self.into_handler(Caller::Anonymous);
        let max_body_bytes = config.max_request_body_bytes;
        let sessions = ValidatedSessions::new(bounds.idle_timeout);
        let slots = SessionSlots::new(bounds.max, bounds.max_per_principal);
        let (config, origins) = AllowedOrigins::take(config);
        let rmcp = StreamableHttpService::new(
            move || Ok(handler.clone()),
            std::sync::Arc::new(sessions),
            config,
        );
        HttpService(JsonRpcGuard::new(
            rmcp,
            max_body_bytes,
            origins,
            slots,
            scoped,
        ))
    }

    /// Serves MCP over Streamable HTTP at `/mcp` on `listener` until
    /// `shutdown` completes, to everyone: [`Server::serve_http_with`] with
    /// no authentication.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
    /// let server = mcp_light::Server::from_registry().build()?;
    /// server.serve_http(listener, async { tokio::signal::ctrl_c().await.unwrap() }).await?;
    /// # Ok(()) }
    /// ```
    pub fn serve_http(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> impl Future<Output = Result<(), ServeError>> + Send + 'static {
        self.serve_http_with(listener, HttpOptions::new(), shutdown)
    }

    /// Serves MCP over Streamable HTTP/1.1 at `/mcp` on `listener` until
    /// `shutdown` completes, as `options` say: their hosts, origins and
    /// bounds (see [`HttpOptions`]), plain JSON answers to a client without
    /// a session (protocol 2026-07-28), `TCP_NODELAY` on every accepted
    /// socket, and — with [`HttpOptions::with_auth`] — every request
    /// authenticated, the OAuth protected resource metadata served beside
    /// `/mcp`. The health probes `GET /healthz` and `GET /readyz` are
    /// served beside it, unauthenticated ([`Server::health_routes`]).
    ///
    /// When `shutdown` completes (a signal: [`shutdown_signal`](super::shutdown_signal)
    /// waits for SIGTERM or ctrl-c), the server drains: it accepts no new
    /// connection, closes idle ones, lets the requests in flight answer
    /// within [`HttpOptions::with_drain_timeout`] (30 s by default), then
    /// ends the sessions and their streams and returns `Ok(())`.
    ///
    /// A client on an earlier revision (2025-06-18, 2025-11-25) opens a
    /// session, and rmcp answers every request of a session over SSE,
    /// `initialize` included; some clients cap an SSE event (the Python
    /// SDK at 1 MiB), so such a client reads a result larger than that in
    /// pages (`mode: paginated`) rather than with `mode: full`.
    ///
    /// ```no_run
    /// use mcp_light::auth::Auth;
    /// use mcp_light::transport::HttpOptions;
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// let auth = Auth::new().with_bearer_token("ci", &std::env::var("CI_TOKEN")?)?;
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
    /// let server = mcp_light::Server::from_registry().build()?;
    /// let options = HttpOptions::new().with_auth(auth).with_max_sessions(256)?;
    /// let shutdown = mcp_light::transport::shutdown_signal();
    /// server.serve_http_with(listener, options, shutdown).await?;
    /// # Ok(()) }
    /// ```
    pub fn serve_http_with(
        self,
        listener: TcpListener,
        options: HttpOptions,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> impl Future<Output = Result<(), ServeError>> + Send + 'static {
        self.serve_boxed_http(listener, options, Box::pin(shutdown))
    }

    /// [`Server::serve_http_with`] with the shutdown boxed, returning a
    /// boxed future: the HTTP stack is compiled once, here (see
    /// [`Serving`]).
    fn serve_boxed_http(
        self,
        listener: TcpListener,
        options: HttpOptions,
        shutdown: BoxFuture<'static, ()>,
    ) -> Serving {
        Box::pin(self.serve_http_now(listener, options, shutdown))
    }

    async fn serve_http_now(
        self,
        listener: TcpListener,
        options: HttpOptions,
        shutdown: BoxFuture<'static, ()>,
    ) -> Result<(), ServeError> {
        let config = options.rmcp_config();
        let in_flight = InFlight::default();
        let drain = Drain {
            in_flight: in_flight.clone(),
            timeout: options.drain_timeout,
            end_sessions: config.cancellation_token.clone(),
        };
        let health = self.health_routes();
        let service = self.bounded_http_service(config, options.sessions);
        let mcp = axum::Router::new().nest_service("/mcp", service);
        // The probes sit beside the authentication and rmcp's Host and
        // Origin checks, not behind them (see `health_routes`).
        let router = match options.auth {
            Some(auth) => mcp.layer(auth.layer()).merge(auth.metadata_router()),
            None => mcp,
        }
        .merge(health);
        let limits = ConnectionLimits {
            header_read_timeout: options.header_read_timeout,
            max_connections: options.max_connections,
        };
        listen::serve(listener, router, limits, shutdown, drain).await;
        Ok(())
    }
}

/// The browser origins of `host` (`example.com`, `example.com:8443`,
/// `::1`): `http` and `https`, on its port or on any.
fn origins_of(host: &str) -> [String; 2] {
    let authority = match host.parse::<std::net::Ipv6Addr>() {
        Ok(_) => format!("[{host}]:*"),
        Err(_) if host.contains(':') => host.to_owned(),
        Err(_) => format!("{host}:*"),
    };
    [
        format!("http://{authority}"),
        format!("https://{authority}"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_origins_are_those_of_the_loopback_hosts() {
        let origins: Vec<String> = LOOPBACK_HOSTS.iter().flat_map(|h| origins_of(h)).collect();
        assert_eq!(
            origins,
            [
                "http://localhost:*",
                "https://localhost:*",
                "http://127.0.0.1:*",
                "https://127.0.0.1:*",
                "http://[::1]:*",
                "https://[::1]:*",
            ]
        );
        assert_eq!(
            origins_of("example.com:8443"),
            ["http://example.com:8443", "https://example.com:8443"]
        );
    }
}
