//! `GET /healthz` and `GET /readyz`: what a load balancer or an
//! orchestrator asks before it sends a server traffic.
//!
//! Both are served beside `/mcp`, not behind it: no authentication, no
//! `Host` or `Origin` check. A probe carries no credentials, and a
//! Kubernetes `httpGet` probe names the pod's IP address in `Host`, which
//! no allowed-hosts list holds. Nothing is lost by it: the two answer
//! `GET` and `HEAD` only, change nothing, and say no more than whether the
//! process serves and whether its store answers; and a web page cannot
//! read their answers, which carry no CORS header.

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::server::Server;

/// The path of the liveness probe.
pub const HEALTHZ: &str = "/healthz";

/// The path of the readiness probe.
pub const READYZ: &str = "/readyz";

impl Server {
    /// The health probes of this server, as [`Server::serve_http`] serves
    /// them beside `/mcp`, for a host that serves its own router:
    ///
    /// - `GET /healthz` answers `200 ok` while the process serves HTTP. It
    ///   looks at nothing else, so a restart never fixes what it reports:
    ///   use it as a liveness probe.
    /// - `GET /readyz` answers `200 ready` while the continuation store
    ///   answers its probe ([`Server::ready`]: nothing for the in-memory
    ///   store, a `PING` within its timeout for Redis), and `503` with the
    ///   reason while it does not. Calls still answer then, without
    ///   continuation tokens: use it to send traffic to the replicas whose
    ///   store answers.
    ///
    /// Both answer `text/plain` with `Cache-Control: no-store`, and `HEAD`
    /// as `GET`. Mount them outside any authentication: probes carry no
    /// credentials.
    ///
    /// ```
    /// # async fn run(server: mcp_light::Server) {
    /// let config = rmcp::transport::streamable_http_server::StreamableHttpServerConfig::default();
    /// let router = axum::Router::new()
    ///     .nest_service("/mcp", server.clone().http_service(config))
    ///     .merge(server.health_routes());
    /// # }
    /// ```
    pub fn health_routes(&self) -> Router {
        Router::new()
            .route(HEALTHZ, get(healthz))
            .route(READYZ, get(readyz))
            .with_state(self.clone())
    }
}

async fn healthz() -> Response {
    plain(StatusCode::OK, "ok\n".to_owned())
}

async fn readyz(State(server): State<Server>) -> Response {
    match server.ready().await {
        Ok(()) => plain(StatusCode::OK, "ready\n".to_owned()),
        Err(error) => plain(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("not ready: {error}\n"),
        ),
    }
}

fn plain(status: StatusCode, body: String) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, "text/plain; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body,
    )
        .into_response()
}
