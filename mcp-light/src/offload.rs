//! Work too large for the async workers: it runs on the runtime's blocking
//! pool, so one large result does not stall the other calls those workers
//! serve.

/// Results of at least this many bytes are worked on (summarized,
/// filtered, parsed from the store) off the runtime's async workers, so a
/// large one does not stall the other calls those workers serve. Smaller
/// ones stay inline: handing work to another thread costs more than they do.
pub(crate) const OFF_WORKERS_BYTES: usize = 256 << 10;

/// Runs `work` on a thread of the runtime's blocking pool when `size` is
/// at least [`OFF_WORKERS_BYTES`] and a runtime is at hand, and inline
/// otherwise. A panic in `work` resumes here, as if it had run inline.
pub(crate) async fn off_workers<T: Send + 'static>(
    size: usize,
    work: impl FnOnce() -> T + Send + 'static,
) -> T {
    if size < OFF_WORKERS_BYTES {
        return work();
    }
    run_sync(work).await
}

/// Runs a synchronous tool function (and whatever else may block) on a
/// thread of the runtime's blocking pool, on a multi-thread and a
/// current-thread runtime alike, so that the async workers go on serving
/// other calls; inline when no tokio runtime is at hand. The caller's
/// tracing span goes with it. A panic in `work` resumes here, as if it had
/// run inline, where the tool's panic guard answers it.
///
/// Not `block_in_place`, though it costs less on a multi-thread runtime:
/// it panics on a current-thread one, and it keeps the calling task from
/// running until `work` returns, so a tool's deadline, the client's
/// cancellation and a `join!` sibling would all wait for a tool that
/// hangs.
pub async fn run_sync<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    let Ok(handle) = tokio::runtime::Handle::try_current() else {
        return work();
    };
    let span = tracing::Span::current();
    match handle.spawn_blocking(move || span.in_scope(work)).await {
        Ok(done) => done,
        Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
        Err(error) => panic!("work moved off the async workers did not finish: {error}"),
    }
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
        assert_eq!(off_workers(OFF_WORKERS_BYTES - 1, here).await, caller);
        assert_ne!(off_workers(OFF_WORKERS_BYTES, here).await, caller);
    }

    #[test]
    fn without_a_runtime_large_work_runs_inline() {
        let caller = here();
        let ran = outside_a_runtime::block_on(off_workers(usize::MAX, here));
        assert_eq!(ran, caller);
    }

    #[tokio::test]
    #[should_panic(expected = "the summary broke")]
    async fn a_panic_off_the_workers_resumes_in_the_caller() {
        off_workers(usize::MAX, || panic!("the summary broke")).await
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
