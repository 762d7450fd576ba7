//! The signals that ask a server to stop: what an orchestrator sends
//! (SIGTERM) and what a person types (ctrl-c).

/// Completes when the process is asked to stop: SIGTERM (on Unix; what
/// Kubernetes, systemd and `docker stop` send) or ctrl-c (SIGINT). Hand it
/// to [`Server::serve_http_with`](crate::Server::serve_http_with) as its
/// `shutdown`, which then drains the requests in flight and returns.
///
/// A signal whose handler cannot be installed is waited for never, and
/// logged: the other one still stops the server.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
/// let server = mcp_light::Server::from_registry().build()?;
/// server.serve_http(listener, mcp_light::transport::shutdown_signal()).await?;
/// # Ok(()) }
/// ```
pub async fn shutdown_signal() {
    let interrupt = async {
        if let Err(error) = tokio::signal::ctrl_c().await {
            tracing::warn!(%error, "cannot listen for ctrl-c");
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let terminate = async {
        use tokio::signal::unix::{SignalKind, signal};
        match signal(SignalKind::terminate()) {
            Ok(mut terminate) => {
                terminate.recv().await;
            }
            Err(error) => {
                tracing::warn!(%error, "cannot listen for SIGTERM");
                std::future::pending::<()>().await;
            }
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! {
        () = interrupt => tracing::info!("ctrl-c: shutting down"),
        () = terminate => tracing::info!("SIGTERM: shutting down"),
    }
}
