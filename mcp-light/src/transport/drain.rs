//! The requests an HTTP server is answering, counted so that a graceful
//! shutdown lets them finish before the server ends its sessions.
//!
//! A request is in flight from the moment it reaches `/mcp` until its
//! answer's body is written or dropped: a `tools/call` answered over SSE
//! (a 2025-era session's) is done when its last event is, not when its
//! headers are. Only `POST`s count: a `GET` is a stream that listens for
//! as long as the session lives, and ends when the sessions do.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::Method;
use axum::middleware::Next;
use axum::response::Response;
use hyper::body::{Body as HttpBody, Frame, SizeHint};
use tokio::sync::Notify;

/// How many requests are being answered, and a way to wait until none
/// are. Cheap to clone: the clones count together.
#[derive(Debug, Clone, Default)]
pub(super) struct InFlight(Arc<Count>);

#[derive(Debug, Default)]
struct Count {
    requests: AtomicUsize,
    /// Woken each time the count falls to zero.
    idle: Notify,
}

impl InFlight {
    /// Counts one request until the returned guard is dropped.
    fn start(&self) -> Answering {
        self.0.requests.fetch_add(1, Ordering::AcqRel);
        Answering(self.clone())
    }

    /// How many requests are being answered now.
    pub(super) fn count(&self) -> usize {
        self.0.requests.load(Ordering::Acquire)
    }

    /// Completes when no request is being answered.
    pub(super) async fn idle(&self) {
        loop {
            let woken = self.0.idle.notified();
            tokio::pin!(woken);
            // Registered before the count is read: a fall to zero between
            // the two still wakes this waiter.
            woken.as_mut().enable();
            if self.count() == 0 {
                return;
            }
            woken.await;
        }
    }
}

/// One request being answered; dropped with its answer's body.
#[derive(Debug)]
struct Answering(InFlight);

impl Drop for Answering {
    fn drop(&mut self) {
        if self.0.0.requests.fetch_sub(1, Ordering::AcqRel) == 1 {
            self.0.0.idle.notify_waiters();
        }
    }
}

/// axum middleware counting each `POST` in `in_flight` until its answer's
/// body is done (`axum::middleware::from_fn_with_state`).
pub(super) async fn count(
    State(in_flight): State<InFlight>,
    request: Request,
    next: Next,
) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let answering = in_flight.start();
    let response = next.run(request).await;
    response.map(|body| {
        Body::new(Counted {
            body,
            _answering: answering,
        })
    })
}

/// An answer's body, counted in flight until hyper drops it: once it
/// wrote the last frame, or the connection broke.
struct Counted {
    body: Body,
    _answering: Answering,
}

impl HttpBody for Counted {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn idle_waits_for_the_last_request_and_not_longer() {
        let in_flight = InFlight::default();
        in_flight.idle().await;
        let first = in_flight.start();
        let second = in_flight.start();
        assert_eq!(in_flight.count(), 2);
        let waiting = tokio::spawn({
            let in_flight = in_flight.clone();
            async move { in_flight.idle().await }
        });
        drop(first);
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(
            !waiting.is_finished(),
            "idle with a request still in flight"
        );
        drop(second);
        waiting.await.unwrap();
        assert_eq!(in_flight.count(), 0);
    }
}
