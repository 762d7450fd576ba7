//! Bounds on one call, whatever the transport: how long a string its
//! arguments may carry, how long its tool may run, and how large its answer
//! may be for the client that reads it.

mod alarm;

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use crate::call::args::DEFAULT_MAX_ARGUMENT_STRING;
use crate::call::outcome::{Answer, CallError};
use crate::clients::ClientTable;
pub(crate) use alarm::{Alarm, AlarmClock};

pub(crate) use crate::defaults::TOOL_DEADLINE as DEFAULT_TOOL_DEADLINE;

/// A server's bounds on one call.
#[derive(Debug, Clone)]
pub(crate) struct CallLimits {
    /// The longest string (or object key) a call's arguments may hold, in
    /// bytes.
    pub(crate) max_argument_string: usize,
    /// How long a tool may run; `None` lets it run as long as it takes.
    pub(crate) tool_deadline: Option<Duration>,
    /// What the deadlines ring on: the server's own, its thread started
    /// with the first deadline armed.
    pub(crate) clock: AlarmClock,
    /// What each client keeps of an answer.
    pub(crate) clients: ClientTable,
    /// The most bytes a bulk write's envelope takes listing its ids.
    pub(crate) envelope_bytes: usize,
}

impl Default for CallLimits {
    fn default() -> Self {
        CallLimits {
            max_argument_string: DEFAULT_MAX_ARGUMENT_STRING,
            tool_deadline: Some(DEFAULT_TOOL_DEADLINE),
            clock: AlarmClock::new(),
            clients: ClientTable::new(),
            envelope_bytes: crate::defaults::ENVELOPE_BYTES,
        }
    }
}

impl CallLimits {
    /// `run`, answered with an error naming `tool` and the deadline if it
    /// has not finished by then; its future is then dropped.
    pub(crate) fn within_deadline<'t, F>(&self, tool: &'t str, run: F) -> Deadline<'t, F>
    where
        F: Future<Output = Answer>,
    {
        Deadline {
            run,
            limit: self.tool_deadline,
            // A run without a deadline does not touch the clock at all.
            clock: self.tool_deadline.map(|_| self.clock.clone()),
            alarm: None,
            tool,
        }
    }
}

/// A tool's run, stopped at its deadline. The timer is armed only once
/// the run first waits, so a tool that finishes on its first poll never
/// touches it.
pub(crate) struct Deadline<'t, F> {
    run: F,
    limit: Option<Duration>,
    /// The clock, until the alarm is set on it; `None` without a limit.
    clock: Option<AlarmClock>,
    alarm: Option<Alarm>,
    tool: &'t str,
}

impl<F: Future<Output = Answer> + Unpin> Future for Deadline<'_, F> {
    type Output = Answer;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Answer> {
        let this = &mut *self;
        if let Poll::Ready(result) = Pin::new(&mut this.run).poll(cx) {
            return Poll::Ready(result);
        }
        let Some(limit) = this.limit else {
            return Poll::Pending;
        };
        if this.alarm.is_none() {
            this.alarm = this.clock.take().map(|clock| clock.into_alarm(limit));
        }
        let Some(alarm) = &mut this.alarm else {
            return Poll::Pending;
        };
        match Pin::new(alarm).poll(cx) {
            Poll::Ready(()) => {
                tracing::warn!(tool = %this.tool, ?limit, "a tool ran past its deadline and was stopped");
                Poll::Ready(Answer::error(CallError::Deadline {
                    tool: this.tool.to_owned().into(),
                    limit: human(limit),
                }))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

/// `limit` as a person writes it: `60 s`, `1.5 s`, `250 ms`.
fn human(limit: Duration) -> String {
    if limit.subsec_millis() == 0 && limit.as_secs() > 0 {
        format!("{} s", limit.as_secs())
    } else if limit.as_secs() > 0 {
        format!("{:.1} s", limit.as_secs_f64())
    } else {
        format!("{} ms", limit.as_millis())
    }
}

#[cfg(test)]
mod tests {
    use std::panic;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::thread;
    use std::time::Instant;

    use super::*;

    fn text(answer: &Answer) -> String {
        serde_json::to_string(&answer.result.content).unwrap()
    }

    /// A runtime without its time driver, as
    /// `Builder::new_current_thread().build()` makes.
    fn without_a_timer() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
    }

    /// A tool's run that waits `wait`, on a thread of its own, then
    /// answers.
    fn waits(wait: Duration) -> Pin<Box<dyn Future<Output = Answer> + Send>> {
        let (done, answered) = tokio::sync::oneshot::channel();
        thread::spawn(move || {
            thread::sleep(wait);
            let _ = done.send(());
        });
        Box::pin(async move {
            let _ = answered.await;
            Answer::full(serde_json::json!({}))
        })
    }

    fn limits(deadline: Duration) -> CallLimits {
        CallLimits {
            tool_deadline: Some(deadline),
            ..CallLimits::default()
        }
    }

    /// Counts the panics this thread reports to the panic hook while
    /// `work` runs; others reach the hook as before.
    fn panics_here<T>(work: impl FnOnce() -> T) -> (T, usize) {
        let counted = Arc::new(AtomicUsize::new(0));
        let previous: Arc<dyn Fn(&panic::PanicHookInfo<'_>) + Send + Sync> =
            Arc::from(panic::take_hook());
        let here = thread::current().id();
        {
            let (counted, previous) = (Arc::clone(&counted), Arc::clone(&previous));
            panic::set_hook(Box::new(move |info| {
                if thread::current().id() == here {
                    counted.fetch_add(1, Ordering::SeqCst);
                }
                previous(info);
            }));
        }
        let done = work();
        drop(panic::take_hook());
        panic::set_hook(Box::new(move |info| previous(info)));
        (done, counted.load(Ordering::SeqCst))
    }

    #[test]
    fn the_deadline_holds_on_a_runtime_without_its_time_driver_and_nothing_panics() {
        let runtime = without_a_timer();
        let started = Instant::now();
        let (answer, panics) = panics_here(|| {
            let run = limits(Duration::from_millis(50)).within_deadline("dawdle", waits(PATIENCE));
            runtime.block_on(run)
        });
        assert_eq!(panics, 0, "a panic was printed");
        assert_eq!(answer.result.is_error, Some(true));
        assert_eq!(
            answer.outcome.error(),
            Some(crate::call::outcome::ErrorKind::Deadline)
        );
        assert!(text(&answer).contains("`dawdle` did not finish within 50 ms"));
        assert!(started.elapsed() < PATIENCE);
    }

    #[test]
    fn a_run_that_waits_but_finishes_in_time_answers_on_a_runtime_without_its_time_driver() {
        let runtime = without_a_timer();
        let (answer, panics) = panics_here(|| {
            let run = limits(PATIENCE).within_deadline("brisk", waits(Duration::from_millis(20)));
            runtime.block_on(run)
        });
        assert_eq!(panics, 0, "a panic was printed");
        assert_eq!(answer.result.is_error, Some(false));
    }

    /// Long enough that a deadline of milliseconds has surely rung.
    const PATIENCE: Duration = Duration::from_secs(5);

    #[test]
    fn deadlines_read_as_people_write_them() {
        assert_eq!(human(Duration::from_secs(60)), "60 s");
        assert_eq!(human(Duration::from_millis(1_500)), "1.5 s");
        assert_eq!(human(Duration::from_millis(250)), "250 ms");
    }
}
