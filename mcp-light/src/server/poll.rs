//! How a call's future runs: everything up to the tool's first poll done
//! in place at the future's first poll, what waits boxed and polled within
//! the call's panic boundary, and how an answer that is not a tool result
//! leaves the call path.

use std::convert::Infallible;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{self, Poll};

use rmcp::model::CallToolResponse;

use crate::call::outcome::{Answer, AnswerShape, CallError, ErrorKind};
use crate::context::Stopped;
use crate::runtime::Unfinished;

use super::Server;

/// Where a call's panics end, whether in the tool, its arguments' parsing
/// or the heavy answer built from its stored result: `work` (the call's
/// synchronous part, or one poll of the rest) run in the request's span,
/// a panic in it coming back as [`Unfinished`].
pub(super) fn caught<T>(span: &tracing::Span, work: impl FnOnce() -> T) -> Result<T, Unfinished> {
    let _entered = span.enter();
    catch_unwind(AssertUnwindSafe(work)).map_err(|panic| Unfinished::panicked(panic.as_ref()))
}

/// A future whose first poll runs `start`, which answers at once (`Ok`) or
/// hands over a future to wait on (`Err`), boxed so that only a call that
/// waits carries it (and `start`'s answer stays as small as an answer);
/// that future is polled at once, and at every poll after.
pub(super) struct FirstPoll<F, W> {
    start: Option<F>,
    waiting: Option<Pin<Box<W>>>,
}

impl<F, W> FirstPoll<F, W> {
    pub(super) fn new(start: F) -> Self {
        FirstPoll {
            start: Some(start),
            waiting: None,
        }
    }
}

impl<F, W> Future for FirstPoll<F, W>
where
    F: FnOnce(&mut task::Context<'_>) -> Result<W::Output, Pin<Box<W>>> + Unpin,
    W: Future,
{
    type Output = W::Output;

    #[inline]
    fn poll(self: Pin<&mut Self>, cx: &mut task::Context<'_>) -> Poll<W::Output> {
        let this = self.get_mut();
        if let Some(waiting) = &mut this.waiting {
            return waiting.as_mut().poll(cx);
        }
        let start = this
            .start
            .take()
            .expect("a call's future polled after it answered");
        match start(cx) {
            Ok(done) => Poll::Ready(done),
            Err(waiting) => this.waiting.insert(waiting).as_mut().poll(cx),
        }
    }
}

pin_project_lite::pin_project! {
    /// A call's wait ([`Server::waited`]): each poll in the request's span,
    /// within the call's panic boundary, and the answer reported.
    pub(super) struct Waited<'a, F> {
        #[pin]
        pub(super) call: F,
        pub(super) server: &'a Server,
        pub(super) tool: &'a str,
        pub(super) span: &'a tracing::Span,
    }
}

impl<F, S> Future for Waited<'_, F>
where
    F: Future<Output = Result<Answer, S>>,
{
    type Output = Result<Answer, S>;

    fn poll(self: Pin<&mut Self>, cx: &mut task::Context<'_>) -> Poll<Self::Output> {
        let mut this = self.project();
        match caught(this.span, || this.call.as_mut().poll(cx)) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(mut done)) => {
                if let Ok(answer) = &mut done {
                    this.server.report(answer);
                }
                Poll::Ready(done)
            }
            // A panic ends the call: its future is never polled again.
            Err(unfinished) => {
                let mut answer = Answer::unfinished(this.tool, unfinished);
                this.server.report(&mut answer);
                Poll::Ready(Ok(answer))
            }
        }
    }
}

/// How a call path's answer leaves it when it is not a tool result: a
/// call over MCP sends it as it is ([`Stopped`]); [`Server::call`], which
/// has no client for an input-required result or a task, answers its error
/// as a tool error.
pub(crate) trait Escape: Sized {
    fn escape(stopped: Stopped) -> Result<Answer, Self>;
}

impl Escape for Stopped {
    fn escape(stopped: Stopped) -> Result<Answer, Stopped> {
        Err(stopped)
    }
}

impl Escape for Infallible {
    fn escape(stopped: Stopped) -> Result<Answer, Infallible> {
        Ok(match stopped {
            Ok(CallToolResponse::Complete(result)) => {
                let shape = match result.is_error {
                    Some(true) => AnswerShape::Error(ErrorKind::Unanswerable),
                    _ => AnswerShape::Full,
                };
                Answer::new(result, shape)
            }
            Ok(_) => Answer::error(CallError::NeedsClient),
            Err(error) => Answer::error(CallError::Protocol(error.message.into_owned())),
        })
    }
}
