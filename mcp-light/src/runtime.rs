//! What runs beneath every layer: the boxed future the store's traits
//! return, and work too large for the async workers, which runs on the
//! runtime's blocking pool so one large result does not stall the other
//! calls those workers serve.

use std::future::Future;
use std::pin::Pin;

pub use crate::error::tool::Unfinished;

/// A boxed future that can cross threads, as the store trait returns.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Results of at least this many bytes are worked on (summarized,
/// filtered, parsed from the store) off the runtime's async workers, so a
/// large one does not stall the other calls those workers serve. Smaller
/// ones stay inline: handing work to another thread costs more than they do.
pub(crate) const OFF_WORKERS_BYTES: usize = 256 << 10;

/// Runs `work` on a thread of the runtime's blocking pool when `size` is
/// at least [`OFF_WORKERS_BYTES`] and a runtime is at hand, and inline
/// otherwise. A panic in `work` off the workers comes back as
/// [`Unfinished`]; inline it unwinds, as any inline code does.
pub(crate) async fn off_workers<T: Send + 'static>(
    size: usize,
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Unfinished> {
    if size < OFF_WORKERS_BYTES {
        return Ok(work());
    }
    run_sync(work).await
}

/// Runs a synchronous tool function (and whatever else may block) on a
/// thread of the runtime's blocking pool, on a multi-thread and a
/// current-thread runtime alike, so that the async workers go on serving
/// other calls; inline when no tokio runtime is at hand. The caller's
/// tracing span goes with it. A panic in `work` on the pool, or the
/// runtime dropping it, comes back as [`Unfinished`]; inline, a panic
/// unwinds to the call's own boundary.
///
/// Not `block_in_place`, though it costs less on a multi-thread runtime:
/// it panics on a current-thread one, and it keeps the calling task from
/// running until `work` returns, so a tool's deadline, the client's
/// cancellation and a `join!` sibling would all wait for a tool that
/// hangs.
///
/// ```
/// use mcp_light::__private::{Unfinished, run_sync};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// assert_eq!(run_sync(|| 6 * 7).await, Ok(42));
/// let broke = run_sync(|| -> u8 { panic!("the disk is gone") }).await;
/// assert_eq!(broke, Err(Unfinished::Panicked("the disk is gone".to_owned())));
/// # });
/// ```
pub async fn run_sync<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, Unfinished> {
    let Ok(handle) = tokio::runtime::Handle::try_current() else {
        return Ok(work());
    };
    let span = tracing::Span::current();
    handle
        .spawn_blocking(move || span.in_scope(work))
        .await
        .map_err(|error| match error.try_into_panic() {
            Ok(payload) => Unfinished::panicked(payload.as_ref()),
            Err(_) => Unfinished::Cancelled,
        })
}

#[cfg(test)]
mod tests {
    use std::thread::{self, ThreadId};

    use super::*;

    fn here() -> ThreadId {
        thread::current().id()
    }

    #[tokio::test]
    async fn small_work_runs_inline_and_large_work_on_another_thread() {
        let caller = here();
        assert_eq!(off_workers(OFF_WORKERS_BYTES - 1, here).await, Ok(caller));
        assert_ne!(off_workers(OFF_WORKERS_BYTES, here).await, Ok(caller));
    }

    #[test]
    fn without_a_runtime_large_work_runs_inline() {
        let caller = here();
        let ran = outside_a_runtime::block_on(off_workers(usize::MAX, here));
        assert_eq!(ran, Ok(caller));
    }

    #[tokio::test]
    async fn a_panic_off_the_workers_comes_back_as_an_error() {
        let broke = off_workers(usize::MAX, || -> () { panic!("the summary broke") }).await;
        assert_eq!(
            broke,
            Err(Unfinished::Panicked("the summary broke".to_owned()))
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_panic_with_a_formatted_message_keeps_it() {
        let depth = 3;
        let broke = run_sync(move || -> () { panic!("exploded at depth {depth}") }).await;
        assert_eq!(
            broke,
            Err(Unfinished::Panicked("exploded at depth 3".to_owned()))
        );
    }

    /// Work handed to the blocking pool of a runtime shutting down is
    /// dropped unstarted: an error, not a panic.
    #[test]
    fn work_the_runtime_drops_is_cancelled() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let handle = runtime.handle().clone();
        drop(runtime);
        let _inside = handle.enter();
        let ended = outside_a_runtime::block_on(run_sync(|| ()));
        assert_eq!(ended, Err(Unfinished::Cancelled));
    }

    #[test]
    fn a_panic_answers_the_tool_failing() {
        let answer = crate::call::outcome::Answer::unfinished(
            "explode",
            Unfinished::Panicked("boom".to_owned()),
        );
        assert_eq!(
            answer.outcome().error(),
            Some(crate::call::outcome::ErrorKind::Tool)
        );
        let result = answer.into_result();
        assert_eq!(result.is_error, Some(true));
        let text = serde_json::to_string(&result.content).unwrap();
        assert!(
            text.contains("`explode` failed: it panicked: boom"),
            "{text}"
        );
    }

    /// Polls a future to completion on this thread, outside any runtime.
    mod outside_a_runtime {
        use std::future::Future;
        use std::pin::pin;
        use std::task::{Context, Poll, Waker};

        pub(super) fn block_on<T>(future: impl Future<Output = T>) -> T {
            let mut future = pin!(future);
            let mut cx = Context::from_waker(Waker::noop());
            loop {
                if let Poll::Ready(done) = future.as_mut().poll(&mut cx) {
                    return done;
                }
            }
        }
    }
}
