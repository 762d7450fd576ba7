//! The accept loop [`Server::serve_http_with`](crate::Server::serve_http_with)
//! runs: HTTP/1.1 connections with a deadline for each request's headers,
//! at most so many at once, `TCP_NODELAY` on every socket, and a graceful
//! shutdown that drains the requests in flight.
//!
//! axum's own `serve` sets no header deadline and no bound, so a client
//! that opens connections and never finishes a request holds each one
//! until the process runs out of file descriptors.

use std::future::Future;
use std::io;
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

use super::deadline;
use super::drain::{Counting, InFlight};

/// How connections are bounded.
#[derive(Debug, Clone, Copy)]
pub(super) struct ConnectionLimits {
    /// How long a client may take to send a request's headers, from the
    /// moment the server waits for them (on a kept-alive connection: from
    /// the end of the previous answer). Past it the connection is closed.
    pub(super) header_read_timeout: Duration,
    /// How many connections are served at once; further clients wait in
    /// the listen backlog until one closes.
    pub(super) max_connections: usize,
}

/// How a shutdown drains: the requests to wait for, for how long, and
/// what ends the sessions and their streams once they are answered.
#[derive(Debug, Clone)]
pub(super) struct Drain {
    pub(super) in_flight: InFlight,
    pub(super) timeout: Duration,
    /// rmcp's: cancelled, it ends every session and every stream.
    pub(super) end_sessions: CancellationToken,
}

/// Serves `router` on `listener` until `shutdown` completes, then drains:
/// no new connection is accepted, idle connections close, the requests in
/// flight are answered, then the sessions and their streams end. Past the
/// drain's timeout, what is still open is cut.
pub(super) async fn serve(
    listener: TcpListener,
    router: axum::Router,
    limits: ConnectionLimits,
    shutdown: impl Future<Output = ()>,
    drain: Drain,
) {
    let permits = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let graceful = GracefulShutdown::new();
    let mut http = http1::Builder::new();
    http.header_read_timeout(limits.header_read_timeout);
    tokio::pin!(shutdown);
    loop {
        let permit = tokio::select! {
            permit = Arc::clone(&permits).acquire_owned() => {
                permit.expect("the semaphore is never closed")
            }
            () = &mut shutdown => break,
        };
        let tcp = tokio::select! {
            accepted = accept(&listener) => accepted,
            () = &mut shutdown => break,
        };
        let service = Counting::new(router.clone(), drain.in_flight.clone());
        // Each connection keeps its own header deadline (see `deadline`).
        let (timer, watch) = deadline::per_connection();
        let mut http = http.clone();
        http.timer(timer);
        let connection =
            watch.serve(graceful.watch(http.serve_connection(TokioIo::new(tcp), service)));
        tokio::spawn(async move {
            if let Err(error) = connection.await {
                tracing::debug!(%error, "an HTTP connection ended with an error");
            }
            drop(permit);
        });
    }
    drop(listener);
    tracing::info!(
        in_flight = drain.in_flight.count(),
        timeout_s = drain.timeout.as_secs_f64(),
        "shutting down: no new connections; answering the requests in flight"
    );
    // Connections are told to close as soon as their answers are written;
    // the sessions end once no request is in flight, which ends the
    // streams that only listen (and so their connections).
    let end_sessions = async {
        drain.in_flight.idle().await;
        drain.end_sessions.cancel();
    };
    let drained = async { tokio::join!(graceful.shutdown(), end_sessions) };
    if tokio::time::timeout(drain.timeout, drained).await.is_err() {
        tracing::warn!(
            in_flight = drain.in_flight.count(),
            timeout_s = drain.timeout.as_secs_f64(),
            "the drain deadline passed; cutting the requests still in flight"
        );
    }
    drain.end_sessions.cancel();
}

/// The next connection, with Nagle's algorithm off: an answer written in
/// several pieces (an SSE stream's headers, then its events) goes out at
/// once instead of waiting for the client's delayed ACK. Accept errors are
/// logged and waited out, never returned: the listener keeps serving.
pub(super) async fn accept(listener: &TcpListener) -> TcpStream {
    loop {
        match listener.accept().await {
            Ok((tcp, _)) => {
                set_nodelay(&tcp);
                return tcp;
            }
            Err(error) if is_connection_error(&error) => {}
            Err(error) => {
                // Out of file descriptors, most likely: wait for some to
                // close rather than spin.
                tracing::error!(%error, "cannot accept a connection; retrying in a second");
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        }
    }
}

/// Errors of one connection that came and went, not of the listener.
fn is_connection_error(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::ConnectionReset
    )
}

fn set_nodelay(tcp: &TcpStream) {
    if let Err(error) = tcp.set_nodelay(true) {
        tracing::warn!(
            %error,
            "cannot set TCP_NODELAY on an accepted socket; its answers may wait for delayed ACKs"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn every_accepted_socket_has_nodelay() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        for _ in 0..3 {
            let client = TcpStream::connect(addr).await.unwrap();
            let accepted = accept(&listener).await;
            assert!(
                accepted.nodelay().unwrap(),
                "an accepted socket kept Nagle's algorithm"
            );
            drop(client);
        }
    }
}
