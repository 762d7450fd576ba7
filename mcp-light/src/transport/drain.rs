//! The requests an HTTP server is answering, counted so that a graceful
//! shutdown lets them finish before the server ends its sessions.
//!
//! A request is in flight from the moment hyper hands it over until its
//! answer's body is written or dropped: a `tools/call` answered over SSE
//! (a 2025-era session's) is done when its last event is, not when its
//! headers are. Only `POST`s count: a `GET` is a stream that listens for
//! as long as the session lives, and ends when the sessions do.
//!
//! The count is kept by the service hyper calls ([`Counting`]), around the
//! router rather than as a layer inside it: the answer's body is wrapped
//! once, not boxed again, and the router is not cloned per request.

use std::cell::RefCell;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Context, Poll, ready};

use axum::body::{Body, Bytes};
use axum::http::{Method, Request, Response};
use axum::routing::future::RouteFuture;
use hyper::body::{Body as HttpBody, Frame, Incoming, SizeHint};
use pin_project_lite::pin_project;
use tokio::sync::Notify;
use tower_service::Service;

/// How many requests are being answered, and a way to wait until none
/// are. Cheap to clone: the clones count together.
#[derive(Debug, Clone, Default)]
pub(super) struct InFlight(Arc<Count>);

#[derive(Debug, Default)]
struct Count {
    requests: AtomicUsize,
    /// Set once someone waits for the count to fall to zero: until then a
    /// request that ends wakes no one, and takes no lock.
    draining: AtomicBool,
    /// Woken each time the count falls to zero while draining.
    idle: Notify,
}

impl InFlight {
    /// Counts one request until the returned guard is dropped.
    fn start(&self) -> Answering {
        self.0.requests.fetch_add(1, Ordering::SeqCst);
        Answering(self.clone())
    }

    /// How many requests are being answered now.
    pub(super) fn count(&self) -> usize {
        self.0.requests.load(Ordering::SeqCst)
    }

    /// Completes when no request is being answered.
    pub(super) async fn idle(&self) {
        // Set before the count is read: a request that ends after the read
        // sees it, and wakes this waiter.
        self.0.draining.store(true, Ordering::SeqCst);
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
        let count = &self.0.0;
        if count.requests.fetch_sub(1, Ordering::SeqCst) == 1
            && count.draining.load(Ordering::SeqCst)
        {
            count.idle.notify_waiters();
        }
    }
}

/// The service hyper calls for each request of one connection: the
/// router, with each `POST` counted in flight until its answer's body is
/// done.
#[derive(Debug)]
pub(super) struct Counting {
    // hyper calls through `&self`; the router's `call` takes `&mut self`.
    // Each connection has its own, so the borrow is never contended.
    router: RefCell<axum::Router>,
    in_flight: InFlight,
}

impl Counting {
    /// `router`, counting in `in_flight`.
    pub(super) fn new(router: axum::Router, in_flight: InFlight) -> Counting {
        Counting {
            router: RefCell::new(router),
            in_flight,
        }
    }
}

impl hyper::service::Service<Request<Incoming>> for Counting {
    type Response = Response<Counted>;
    type Error = Infallible;
    type Future = CountedRoute;

    fn call(&self, request: Request<Incoming>) -> CountedRoute {
        let answering = (request.method() == Method::POST).then(|| self.in_flight.start());
        // `Router` is always ready: it answers what it cannot route itself.
        let routed = self.router.borrow_mut().call(request);
        CountedRoute { routed, answering }
    }
}

pin_project! {
    /// The router's answer to one request, still counted.
    pub(super) struct CountedRoute {
        #[pin]
        routed: RouteFuture<Infallible>,
        answering: Option<Answering>,
    }
}

impl Future for CountedRoute {
    type Output = Result<Response<Counted>, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let response = ready!(this.routed.poll(cx))?;
        let answering = this.answering.take();
        Poll::Ready(Ok(response.map(|body| Counted {
            body,
            _answering: answering,
        })))
    }
}

/// An answer's body, counted in flight (when its request was a `POST`)
/// until hyper drops it: once it wrote the last frame, or the connection
/// broke.
#[derive(Debug)]
pub(super) struct Counted {
    body: Body,
    _answering: Option<Answering>,
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
