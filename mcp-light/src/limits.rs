//! Bounds on one call, whatever the transport: how long a string its
//! arguments may carry, and how long its tool may run.

use std::future::Future;
use std::panic::catch_unwind;
use std::pin::Pin;
use std::sync::{Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use rmcp::model::CallToolResult;

use crate::answer::error_result;
use crate::args::DEFAULT_MAX_ARGUMENT_STRING;

/// How long a tool may run unless the server says otherwise
/// ([`ServerBuilder::with_tool_deadline`](crate::ServerBuilder::with_tool_deadline)).
pub const DEFAULT_TOOL_DEADLINE: Duration = Duration::from_secs(300);

/// A server's bounds on one call.
#[derive(Debug, Clone)]
pub(crate) struct CallLimits {
    /// The longest string (or object key) a call's arguments may hold, in
    /// bytes.
    pub(crate) max_argument_string: usize,
    /// How long a tool may run; `None` lets it run as long as it takes.
    pub(crate) tool_deadline: Option<Duration>,
}

impl Default for CallLimits {
    fn default() -> Self {
        CallLimits {
            max_argument_string: DEFAULT_MAX_ARGUMENT_STRING,
            tool_deadline: Some(DEFAULT_TOOL_DEADLINE),
        }
    }
}

impl CallLimits {
    /// `run`, answered with an error naming `tool` and the deadline if it
    /// has not finished by then; its future is then dropped.
    pub(crate) fn within_deadline<'t, F>(&self, tool: &'t str, run: F) -> Deadline<'t, F>
    where
        F: Future<Output = CallToolResult>,
    {
        Deadline {
            run,
            limit: self.tool_deadline,
            sleep: None,
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
    sleep: Option<Pin<Box<tokio::time::Sleep>>>,
    tool: &'t str,
}

impl<F: Future<Output = CallToolResult> + Unpin> Future for Deadline<'_, F> {
    type Output = CallToolResult;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<CallToolResult> {
        let this = &mut *self;
        if let Poll::Ready(result) = Pin::new(&mut this.run).poll(cx) {
            return Poll::Ready(result);
        }
        let Some(limit) = this.limit else {
            return Poll::Pending;
        };
        let sleep = match &mut this.sleep {
            Some(sleep) => sleep,
            None => match timer(limit) {
                Some(sleep) => this.sleep.insert(sleep),
                None => {
                    this.limit = None;
                    return Poll::Pending;
                }
            },
        };
        match sleep.as_mut().poll(cx) {
            Poll::Ready(()) => {
                tracing::warn!(tool = %this.tool, ?limit, "a tool ran past its deadline and was stopped");
                Poll::Ready(error_result(format!(
                    "`{}` did not finish within {}, this server's deadline for one tool run, \
                     and was stopped; a write may or may not have happened, so read before \
                     retrying it",
                    this.tool,
                    human(limit)
                )))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

/// The runtimes found built without their time driver.
static WITHOUT_TIMER: Mutex<Vec<tokio::runtime::Id>> = Mutex::new(Vec::new());

/// A sleep of `limit` on the runtime's timer; `None` on a runtime built
/// without its time driver (`Builder::enable_time`), whose tool runs then
/// have no deadline. Tokio offers no way to ask, so the first sleep on such
/// a runtime panics, once, and the runtime is remembered.
fn timer(limit: Duration) -> Option<Pin<Box<tokio::time::Sleep>>> {
    let runtime = tokio::runtime::Handle::try_current().ok()?.id();
    let without = || WITHOUT_TIMER.lock().unwrap_or_else(PoisonError::into_inner);
    if without().contains(&runtime) {
        return None;
    }
    match catch_unwind(|| Box::pin(tokio::time::sleep(limit))) {
        Ok(sleep) => Some(sleep),
        Err(_) => {
            tracing::warn!(
                "this tokio runtime was built without its time driver, so tools run on it \
                 without a deadline: build it with `enable_time()` or `enable_all()`"
            );
            without().push(runtime);
            None
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
    use super::*;

    #[test]
    fn deadlines_read_as_people_write_them() {
        assert_eq!(human(Duration::from_secs(60)), "60 s");
        assert_eq!(human(Duration::from_millis(1_500)), "1.5 s");
        assert_eq!(human(Duration::from_millis(250)), "250 ms");
    }
}
