//! A call becoming a task, and the task running on: the tool polled on a
//! task of the runtime, its questions, progress and cancellation carried
//! through the task store, its answer written there.

use std::future::{Future, poll_fn};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Instant;

use rmcp::ErrorData;
use rmcp::model::{CallToolResponse, CreateTaskResult, ErrorCode, JsonObject, TaskPayload};
use serde_json::Value;

use super::record::{Record, error_object, new_id};
use super::serve::Tasks;
use crate::call::outcome::{Answer, CallError};
use crate::context::{StopWatch, Stopped, Stops, Talk, TaskLink, View};
use crate::runtime::Unfinished;
use crate::telemetry::{Facts, Label, ToolMetrics};
use crate::usage::UsageReport;

/// What a call over MCP brings to the decision to become a task.
pub(crate) struct Tasking<'s> {
    /// The request declared the tasks extension on protocol 2026-07-28.
    pub(crate) declared: bool,
    /// What stops the call before it is a task.
    pub(crate) stops: Stops<'s>,
    /// The call's line to its client, when its tool takes one.
    pub(crate) talk: Option<&'s Arc<Talk>>,
}

/// What becoming a task needs of the server.
pub(crate) struct Escalation<'s> {
    pub(crate) tasks: &'s Tasks,
    /// Whose task it is ([`Caller::identity`](crate::Caller::identity)).
    pub(crate) owner: String,
    pub(crate) tool: &'static str,
    /// The name its call is counted under ([`telemetry`](crate::telemetry))
    /// when the task ends.
    pub(crate) counted_as: Arc<ToolMetrics>,
    pub(crate) usage: Option<Arc<UsageReport>>,
}

impl Tasking<'_> {
    /// Runs `work`, a task-capable call's tool left waiting at its first
    /// poll: answered inline when it finishes within the server's
    /// [`TaskConfig::with_after`](super::TaskConfig::with_after) (or stops
    /// at an ask, or the client cancels), answered as a task otherwise and
    /// run on by a task of the runtime.
    pub(crate) async fn run<W>(
        self,
        mut work: W,
        escalation: Escalation<'_>,
    ) -> Result<Answer, Stopped>
    where
        W: Future<Output = Answer> + Unpin + Send + 'static,
    {
        let mut watch = StopWatch::new(self.stops);
        let after = escalation.tasks.config().after;
        if !after.is_zero() {
            let mut due = escalation.tasks.clock().alarm(after);
            let raced = poll_fn(|cx| {
                if let Poll::Ready(result) = Pin::new(&mut work).poll(cx) {
                    return Poll::Ready(Some(Ok(result)));
                }
                if let Poll::Ready(stopped) = watch.poll(cx) {
                    return Poll::Ready(Some(Err(stopped)));
                }
                match Pin::new(&mut due).poll(cx) {
                    Poll::Ready(()) => Poll::Ready(None),
                    Poll::Pending => Poll::Pending,
                }
            })
            .await;
            if let Some(done) = raced {
                return done;
            }
        }
        let tasks = escalation.tasks;
        let config = tasks.config();
        let link = Arc::new(TaskLink::new());
        // A tool stopped at an ask is answered as any call is: no task.
        let asking = self.talk.is_some_and(|talk| talk.stopped_at_ask());
        // No id is drawn and nothing stored for a call answered this round.
        let id = if asking { None } else { Some(new_id()) };
        let created = match id {
            None => None,
            Some(Ok(id)) => {
                let record = Record::new(
                    &id,
                    escalation.owner,
                    escalation.tool,
                    tasks.ttl(),
                    config.poll_interval,
                    config.lease,
                );
                match tasks
                    .store()
                    .create(&id, record.encode(), tasks.ttl())
                    .await
                {
                    Ok(()) => Some((id, record)),
                    Err(error) => {
                        tracing::warn!(tool = escalation.tool, %error, "a task could not be stored; the call is answered when it finishes");
                        None
                    }
                }
            }
            Some(Err(error)) => {
                tracing::warn!(tool = escalation.tool, %error, "no randomness for a task id; the call is answered when it finishes");
                None
            }
        };
        // From here the tool's asks park the task; a tool that stopped at
        // an ask of this round is answered as any call is instead.
        let escalated = self.talk.is_none_or(|talk| talk.escalate(&link));
        let Some((id, record)) = created.filter(|_| escalated) else {
            return poll_fn(|cx| {
                if let Poll::Ready(result) = Pin::new(&mut work).poll(cx) {
                    return Poll::Ready(Ok(result));
                }
                watch.poll(cx).map(Err)
            })
            .await;
        };
        let seed = record.task.task.clone();
        let runner = Runner {
            tasks: tasks.clone(),
            id,
            record,
            link,
            tool: escalation.tool,
            counted_as: escalation.counted_as,
            usage: escalation.usage,
        };
        tokio::spawn(runner.drive(work));
        Err(Ok(CallToolResponse::Task(CreateTaskResult::new(seed))))
    }
}

/// A task running on this replica.
struct Runner {
    tasks: Tasks,
    id: String,
    record: Record,
    link: Arc<TaskLink>,
    tool: &'static str,
    counted_as: Arc<ToolMetrics>,
    usage: Option<Arc<UsageReport>>,
}

impl Runner {
    /// Polls `work` to its end, within its panic boundary, and writes what
    /// the task comes to: its result, `failed` on a panic, `cancelled` when
    /// a `tasks/cancel` reached the store first. Meanwhile it carries
    /// questions, answers and progress between the tool and the store, and
    /// renews its lease.
    async fn drive<W>(mut self, work: W)
    where
        W: Future<Output = Answer> + Unpin + Send,
    {
        let mut work = caught(work);
        let config = self.tasks.config().clone();
        let (tasks, id) = (self.tasks.clone(), self.id.clone());
        let store = tasks.store();
        let renew_every = config.lease / 3;
        let mut written_at = Instant::now();
        let mut written = View::default();
        // One watch at a time, kept across the wake-ups a busy tool's
        // progress makes: the store is looked at every watch interval
        // however often the tool reports, or sooner when it tells. The
        // interval is kept on the server's clock, not the store's.
        let mut watch = store.wait(&id, config.watch_interval);
        let mut due = tasks.clock().alarm(config.watch_interval);
        loop {
            let watched = tokio::select! {
                biased;
                done = &mut work => return self.finish(done).await,
                () = &mut watch => true,
                () = &mut due => true,
                () = self.link.changed.notified() => false,
            };
            if watched {
                watch = store.wait(&id, config.watch_interval);
                due = tasks.clock().alarm(config.watch_interval);
                match store.signals(&id, self.link.has_pending()).await {
                    Ok(signals) if signals.cancelled => {
                        // The tool is told (`Context::cancelled`) and given
                        // a moment to say how it ended: one past its last
                        // chance to stop (a write committing) succeeds, and
                        // the task says so rather than claim it was
                        // cancelled. One that ignores the news is dropped.
                        self.link.cancelled.cancel();
                        let grace = tasks.clock().alarm(config.cancel_grace);
                        let ended = tokio::select! {
                            biased;
                            done = &mut work => Some(done),
                            () = grace => None,
                        };
                        match ended {
                            Some(Ok(answer)) if answer.outcome().error().is_none() => {
                                return self.finish(Ok(answer)).await;
                            }
                            _ => {
                                drop(work);
                                self.write(TaskPayload::Cancelled, None).await;
                                return;
                            }
                        }
                    }
                    Ok(signals) => self.link.deliver(signals.responses),
                    Err(error) => {
                        tracing::warn!(task = %id, %error, "a task's signals could not be read")
                    }
                }
            }
            // A question asked or answered is written at once; progress at
            // most once a watch interval; the lease a third of its length
            // before it would lapse.
            let view = self.link.view();
            let since = written_at.elapsed();
            let due = view.pending != written.pending
                || (view.message != written.message && since >= config.watch_interval)
                || since >= renew_every;
            if due {
                let (payload, message) = self.link.payload();
                self.write(payload, message).await;
                written_at = Instant::now();
                written = view;
            }
        }
    }

    /// Writes what the task came to, the answer's outcome counted and its
    /// usage reported as any call's are.
    async fn finish(&mut self, done: Result<Answer, Unfinished>) {
        match done {
            Ok(mut answer) => {
                if let Some(usage) = &self.usage {
                    usage.report(&mut answer);
                }
                Facts::of(answer.outcome()).count(&self.counted_as);
                let result = match serde_json::to_value(answer.into_result()) {
                    Ok(Value::Object(result)) => result,
                    _ => JsonObject::new(),
                };
                self.write(TaskPayload::Completed { result }, None).await;
            }
            Err(unfinished) => {
                tracing::error!(tool = self.tool, task = %self.id, %unfinished, "a task's tool failed");
                let failed = CallError::Failed {
                    tool: self.tool.into(),
                    why: unfinished.into(),
                };
                Facts::bare(Label::Error, None).count(&self.counted_as);
                let error = error_object(ErrorCode::INTERNAL_ERROR.0, failed.to_string());
                self.write(TaskPayload::Failed { error }, None).await;
            }
        }
        // Nothing waits on the task any longer.
        self.link.cancelled.cancel();
    }

    async fn write(&mut self, payload: TaskPayload, message: Option<String>) {
        self.record
            .moved(payload, message, self.tasks.config().lease);
        if let Err(error) = self
            .tasks
            .store()
            .write(&self.id, self.record.encode())
            .await
        {
            tracing::warn!(task = %self.id, %error, "a task's state could not be written");
        }
    }
}

/// `work` polled within a panic boundary: a panic ends it as
/// [`Unfinished`].
fn caught<W>(mut work: W) -> Pin<Box<impl Future<Output = Result<Answer, Unfinished>>>>
where
    W: Future<Output = Answer> + Unpin,
{
    Box::pin(poll_fn(move |cx| {
        match catch_unwind(AssertUnwindSafe(|| Pin::new(&mut work).poll(cx))) {
            Ok(Poll::Ready(result)) => Poll::Ready(Ok(result)),
            Ok(Poll::Pending) => Poll::Pending,
            Err(panic) => Poll::Ready(Err(Unfinished::panicked(panic.as_ref()))),
        }
    }))
}

/// The error a call refused for want of the tasks extension answers.
pub(crate) fn tasks_required(tool: &str) -> ErrorData {
    let mut extensions = serde_json::Map::new();
    extensions.insert(
        rmcp::model::TASKS_EXTENSION_ID.to_owned(),
        Value::Object(serde_json::Map::new()),
    );
    let data = serde_json::json!({"requiredCapabilities": {"extensions": extensions}});
    ErrorData::new(
        ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
        format!(
            "`{tool}` runs only as a task: call it from a client that declares the {} extension",
            rmcp::model::TASKS_EXTENSION_ID
        ),
        Some(data),
    )
}
