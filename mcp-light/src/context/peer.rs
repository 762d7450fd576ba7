//! The client behind one `tools/call`, as a tool reaches it: progress,
//! log messages, cancellation, and the request's `_meta`.
//!
//! A [`Talk`] is built once per call that came over an MCP transport, from
//! rmcp's [`RequestContext`]; a call made with [`Server::call`] has none, and
//! everything here is then a no-op.
//!
//! [`Server::call`]: crate::Server::call

use std::future::{Future, poll_fn};
use std::pin::{Pin, pin};
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};
use std::task::Poll;
use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::{
    CallToolResponse, ClientCapabilities, ErrorCode, InputResponses, JsonObject,
    ProgressNotificationParam, ProtocolVersion,
};
use rmcp::service::{RequestContext, RoleServer};
use serde::Serialize;
use tokio_util::sync::{CancellationToken, WaitForCancellationFuture};

use super::rounds::Rounds;
use super::task::TaskLink;
use crate::call::outcome::Answer;
use crate::call::roundtrip::Talkback;

/// The severity of a log message a tool sends its client
/// ([`Context::log`](crate::Context::log)), from the least to the most
/// severe; MCP's `LoggingLevel`, the syslog levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum LogLevel {
    /// Detailed information for debugging.
    Debug,
    /// Normal operation.
    Info,
    /// Normal but significant.
    Notice,
    /// Something worth a look.
    Warning,
    /// An operation failed.
    Error,
    /// A component failed.
    Critical,
    /// Action must be taken now.
    Alert,
    /// The system is unusable.
    Emergency,
}

#[allow(deprecated)]
impl From<rmcp::model::LoggingLevel> for LogLevel {
    fn from(level: rmcp::model::LoggingLevel) -> LogLevel {
        use rmcp::model::LoggingLevel as L;
        match level {
            L::Debug => LogLevel::Debug,
            L::Info => LogLevel::Info,
            L::Notice => LogLevel::Notice,
            L::Warning => LogLevel::Warning,
            L::Error => LogLevel::Error,
            L::Critical => LogLevel::Critical,
            L::Alert => LogLevel::Alert,
            L::Emergency => LogLevel::Emergency,
        }
    }
}

#[allow(deprecated)]
impl From<LogLevel> for rmcp::model::LoggingLevel {
    fn from(level: LogLevel) -> rmcp::model::LoggingLevel {
        use rmcp::model::LoggingLevel as L;
        match level {
            LogLevel::Debug => L::Debug,
            LogLevel::Info => L::Info,
            LogLevel::Notice => L::Notice,
            LogLevel::Warning => L::Warning,
            LogLevel::Error => L::Error,
            LogLevel::Critical => L::Critical,
            LogLevel::Alert => L::Alert,
            LogLevel::Emergency => L::Emergency,
        }
    }
}

impl LogLevel {
    const ALL: [LogLevel; 8] = [
        LogLevel::Debug,
        LogLevel::Info,
        LogLevel::Notice,
        LogLevel::Warning,
        LogLevel::Error,
        LogLevel::Critical,
        LogLevel::Alert,
        LogLevel::Emergency,
    ];
}

/// The `logging/setLevel` of one MCP session (protocol 2025-11-25). The
/// handler holds one; rmcp's Streamable HTTP service clones the handler for
/// each session, so a clone starts unset: one session's level never leaks
/// into another's.
#[derive(Debug, Default)]
pub(crate) struct SessionLogLevel(Arc<AtomicU8>);

impl Clone for SessionLogLevel {
    fn clone(&self) -> SessionLogLevel {
        SessionLogLevel::default()
    }
}

/// What the client of one MCP session (protocol 2025-11-25) keeps of an
/// answer, looked up once from the name it gave at `initialize` rather
/// than on every call. A clone, a new session, starts unread, as
/// [`SessionLogLevel`] does.
#[derive(Debug, Default)]
pub(crate) struct SessionKeeps(std::sync::OnceLock<usize>);

impl Clone for SessionKeeps {
    fn clone(&self) -> SessionKeeps {
        SessionKeeps::default()
    }
}

impl SessionKeeps {
    /// What the session's client keeps, `read` the first time.
    pub(crate) fn get_or_read(&self, read: impl FnOnce() -> usize) -> usize {
        *self.0.get_or_init(read)
    }
}

impl SessionLogLevel {
    /// Records the level the client asked for.
    pub(crate) fn set(&self, level: LogLevel) {
        self.0.store(level as u8 + 1, Ordering::Relaxed);
    }

    /// The level the client asked for, if it ever did.
    pub(crate) fn get(&self) -> Option<LogLevel> {
        match self.0.load(Ordering::Relaxed) {
            0 => None,
            n => LogLevel::ALL.get(usize::from(n) - 1).copied(),
        }
    }
}

/// One call's line back to its client.
pub(crate) struct Talk {
    pub(crate) request: RequestContext<RoleServer>,
    pub(crate) talkback: Arc<Talkback>,
    /// The session's `logging/setLevel`, if any (protocol 2025-11-25).
    session_level: Option<LogLevel>,
    /// Set on protocol 2026-07-28 and later, where the server cannot send
    /// the client requests: asks become input-required results.
    /// Boxed: a 2025-11-25 call does not carry its size around.
    pub(crate) rounds: Option<Box<Rounds>>,
    /// The request declared the tasks extension to a server that offers
    /// tasks: the call may become one, and its progress the task's status.
    tasks_declared: bool,
}

impl std::fmt::Debug for Talk {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Talk")
            .field("request", &self.request.id)
            .field("session_level", &self.session_level)
            .field("stateless", &self.rounds.is_some())
            .finish()
    }
}

/// Whether `version` is 2026-07-28 or later: no server-to-client requests,
/// per-request capabilities and log level.
pub(crate) fn is_stateless(version: &ProtocolVersion) -> bool {
    // ISO dates compare as strings.
    version.as_str() >= ProtocolVersion::V_2026_07_28.as_str()
}

/// Whether `request` speaks 2026-07-28 or later. Such a request names its
/// version in its `_meta` — rmcp refuses one that does not — while a
/// 2025-11-25 session negotiated it at `initialize` and names none; the
/// string is compared where it lies, without decoding or cloning it, as
/// this runs on every call.
fn speaks_stateless(request: &RequestContext<RoleServer>) -> bool {
    request
        .meta
        .get(PROTOCOL_VERSION_KEY)
        .and_then(serde_json::Value::as_str)
        .is_some_and(|version| version >= ProtocolVersion::V_2026_07_28.as_str())
}

/// The `_meta` key of a request's protocol version.
const PROTOCOL_VERSION_KEY: &str = "io.modelcontextprotocol/protocolVersion";

impl Talk {
    /// The line back to the client of the request `request`, a
    /// `tools/call` carrying `responses` and `state` on a retry after an
    /// input-required result. `session_level` is the session's
    /// `logging/setLevel`, if any; `tasks_declared`, whether the call may
    /// become a task.
    pub(crate) fn new(
        request: RequestContext<RoleServer>,
        talkback: Arc<Talkback>,
        session_level: Option<LogLevel>,
        responses: Option<InputResponses>,
        state: Option<String>,
        tasks_declared: bool,
    ) -> Arc<Talk> {
        let rounds = speaks_stateless(&request).then(|| Box::new(Rounds::new(responses, state)));
        // Built in its allocation, not moved there.
        Arc::new(Talk {
            request,
            talkback,
            session_level,
            rounds,
            tasks_declared,
        })
    }

    /// What stops this call's tool before it answers
    /// ([`run_until_cancelled`]): the client cancelling the call, and on
    /// protocol 2026-07-28 asks no answer met yet.
    pub(crate) fn stops(&self) -> Stops<'_> {
        Stops {
            cancelled: &self.request.ct,
            rounds: self
                .rounds
                .as_deref()
                .map(|rounds| (rounds, &*self.talkback)),
        }
    }

    /// Makes the call a task: from here its tool's asks, progress and
    /// cancellation go through `link`. Refused (`false`) when the tool
    /// stopped at an ask of this round, which the call answers instead.
    pub(crate) fn escalate(&self, link: &Arc<TaskLink>) -> bool {
        self.rounds
            .as_deref()
            .is_none_or(|rounds| rounds.escalate(link))
    }

    /// Whether the tool stopped at an ask of this round (2026-07-28).
    pub(crate) fn stopped_at_ask(&self) -> bool {
        self.rounds.as_deref().is_some_and(Rounds::stopped)
    }

    /// The task this call became, if it did.
    pub(crate) fn task(&self) -> Option<Arc<TaskLink>> {
        self.rounds.as_deref().and_then(Rounds::task)
    }

    /// The request's `_meta`.
    pub(crate) fn meta(&self) -> &JsonObject {
        &self.request.meta.0.0
    }

    /// What the client declared it can do: in the request's `_meta` on
    /// 2026-07-28, at `initialize` before.
    pub(crate) fn client_capabilities(&self) -> Option<ClientCapabilities> {
        self.request.client_capabilities()
    }

    /// How long a request to the client may wait for its answer.
    pub(crate) fn ask_timeout(&self) -> Duration {
        self.talkback.ask_timeout
    }

    /// Whether the request carried a progress token, or may become a task
    /// (whose status message the progress then is).
    pub(crate) fn wants_progress(&self) -> bool {
        self.tasks_declared || self.request.meta.contains_key("progressToken")
    }

    /// Sends a progress notification, if the request carried a token.
    /// In a task, sets its status message instead: the request it came
    /// with was answered.
    pub(crate) async fn progress(&self, done: f64, total: Option<f64>, message: Option<&str>) {
        if let Some(task) = self.task() {
            let done = match total {
                Some(total) => format!("{done}/{total}"),
                None => done.to_string(),
            };
            task.progress(match message {
                Some(message) => format!("{done}: {message}"),
                None => done,
            });
            return;
        }
        let Some(token) = self.request.meta.get_progress_token() else {
            return;
        };
        let mut param = ProgressNotificationParam::new(token, done);
        param.total = total;
        param.message = message.map(str::to_owned);
        if let Err(error) = self.request.peer.notify_progress(param).await {
            tracing::warn!(%error, "the progress notification could not be sent");
        }
    }

    /// The least severe level the client wants; `None` wants nothing.
    fn log_floor(&self) -> Option<LogLevel> {
        let requested = self.request.meta.log_level().map(LogLevel::from);
        if self.rounds.is_some() {
            // 2026-07-28: a request that did not ask for log messages gets none.
            requested
        } else {
            // 2025-11-25: the session's level; before any `logging/setLevel`
            // the server may send what it likes, and sends everything.
            requested.or(self.session_level).or(Some(LogLevel::Debug))
        }
    }

    /// Sends a log message, if the client asked for messages this severe.
    pub(crate) async fn log<T: Serialize + ?Sized>(
        &self,
        logger: Option<&str>,
        level: LogLevel,
        data: &T,
    ) {
        if self.log_floor().is_none_or(|floor| level < floor) {
            return;
        }
        let data = match serde_json::to_value(data) {
            Ok(data) => data,
            Err(error) => {
                tracing::warn!(%error, "a log message for the client cannot be serialized");
                return;
            }
        };
        #[allow(deprecated)]
        let sent = {
            let mut param = rmcp::model::LoggingMessageNotificationParam::new(level.into(), data);
            param.logger = logger.map(str::to_owned);
            self.request.peer.notify_logging_message(param).await
        };
        if let Err(error) = sent {
            tracing::warn!(%error, "the log message could not be sent to the client");
        }
    }
}

/// What stops a tool's run before it answers: the client cancelling the
/// call, and on protocol 2026-07-28 the tool waiting on asks no answer met
/// yet.
#[derive(Clone, Copy)]
pub(crate) struct Stops<'a> {
    pub(crate) cancelled: &'a CancellationToken,
    pub(crate) rounds: Option<(&'a Rounds, &'a Talkback)>,
}

/// A call over MCP that ended without its tool's result: stopped at its
/// asks (an input-required result), cancelled, or refused (`requestState`);
/// the response as it goes out.
pub(crate) type Stopped = Result<CallToolResponse, ErrorData>;

/// Watches what stops a call's tool before it answers ([`Stops`]): the
/// client cancelling the call, and on 2026-07-28 the tool waiting on asks
/// no answer met yet. Its futures are made only once the tool is left
/// pending: a tool that answers at its first poll pays for neither.
pub(crate) struct StopWatch<'a> {
    stops: Stops<'a>,
    cancelled: Option<Pin<Box<WaitForCancellationFuture<'a>>>>,
    waiting: Option<Pin<Box<dyn Future<Output = ()> + Send + 'a>>>,
}

impl<'a> StopWatch<'a> {
    pub(crate) fn new(stops: Stops<'a>) -> StopWatch<'a> {
        StopWatch {
            stops,
            cancelled: None,
            waiting: None,
        }
    }

    /// Ready with the call's answer once something stopped its tool.
    pub(crate) fn poll(&mut self, cx: &mut std::task::Context<'_>) -> Poll<Stopped> {
        if let Some((rounds, talkback)) = self.stops.rounds {
            let waiting = self
                .waiting
                .get_or_insert_with(|| Box::pin(rounds.waiting()));
            if waiting.as_mut().poll(cx).is_ready() {
                return Poll::Ready(rounds.input_required(talkback).map(Into::into));
            }
        }
        let ct = self.stops.cancelled;
        let cancelled = self
            .cancelled
            .get_or_insert_with(|| Box::pin(ct.cancelled()));
        match cancelled.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(ErrorData::new(
                ErrorCode::INVALID_REQUEST,
                "the client cancelled this tools/call; the tool was stopped",
                None,
            ))),
            Poll::Pending => Poll::Pending,
        }
    }
}

/// Runs `tool` until it answers or the client cancels the call, or, given
/// the call's rounds (protocol 2026-07-28), until the tool stops at asks
/// no answer met yet — every ask it made in the poll where it stopped,
/// `join!`ed asks included, goes into one input-required result.
pub(crate) async fn run_until_cancelled(
    tool: impl Future<Output = Answer>,
    stops: Stops<'_>,
) -> Result<Answer, Stopped> {
    let mut tool = pin!(tool);
    let mut watch = StopWatch::new(stops);
    poll_fn(|cx| {
        // The tool first: one that selects on `ctx.cancelled()` finishes
        // cleanly; one still pending after the client cancelled is dropped.
        if let Poll::Ready(result) = tool.as_mut().poll(cx) {
            return Poll::Ready(Ok(result));
        }
        watch.poll(cx).map(Err)
    })
    .await
}
