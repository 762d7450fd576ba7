//! `tasks/get`, `tasks/update` and `tasks/cancel`, answered on any
//! replica from the task store.

use std::sync::Arc;
use std::time::Duration;

use rmcp::ErrorData;
use rmcp::model::{
    DetailedTask, ErrorCode, GetTaskResult, InputRequests, InputResponses, TaskPayload,
};

use super::TaskConfig;
use super::record::{Record, error_object, is_task_id};
use crate::context::Caller;
use crate::limits::AlarmClock;
use crate::store::TaskStore;

/// A server's tasks: where they are kept and how they run.
#[derive(Clone)]
pub(crate) struct Tasks {
    inner: Arc<Inner>,
}

struct Inner {
    store: Arc<dyn TaskStore>,
    config: TaskConfig,
    /// How long a task is kept: the configured TTL, else the continuation
    /// store's.
    ttl: Duration,
    /// What a call waits on before it becomes a task, and a running task
    /// between looks at the store: the server's clock.
    clock: AlarmClock,
}

impl std::fmt::Debug for Tasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tasks")
            .field("config", &self.inner.config)
            .field("ttl", &self.inner.ttl)
            .finish_non_exhaustive()
    }
}

impl Tasks {
    pub(crate) fn new(
        store: Arc<dyn TaskStore>,
        config: TaskConfig,
        store_ttl: Duration,
        clock: AlarmClock,
    ) -> Tasks {
        let ttl = config.ttl.unwrap_or(store_ttl);
        Tasks {
            inner: Arc::new(Inner {
                store,
                config,
                ttl,
                clock,
            }),
        }
    }

    pub(crate) fn store(&self) -> &dyn TaskStore {
        &*self.inner.store
    }

    pub(crate) fn config(&self) -> &TaskConfig {
        &self.inner.config
    }

    pub(crate) fn ttl(&self) -> Duration {
        self.inner.ttl
    }

    pub(crate) fn clock(&self) -> &AlarmClock {
        &self.inner.clock
    }

    /// The record of task `id` if `caller` owns it, with the keys answered
    /// but not yet taken by its tool; every other case is the same error,
    /// so that a task id tells another caller nothing.
    async fn owned(&self, id: &str, caller: &Caller) -> Result<(Record, Vec<String>), ErrorData> {
        let not_found = || {
            ErrorData::invalid_params(
                format!(
                    "no task `{id}` here: it never existed, has expired, or belongs to another \
                     caller"
                ),
                None,
            )
        };
        if !is_task_id(id) {
            return Err(not_found());
        }
        let found = self.store().read(id).await.map_err(|error| {
            ErrorData::internal_error(format!("the task store cannot be read: {error}"), None)
        })?;
        let Some(stored) = found else {
            return Err(not_found());
        };
        match Record::decode(&stored.record) {
            Some(record) if record.owner == caller.identity() => Ok((record, stored.answered)),
            _ => Err(not_found()),
        }
    }

    /// `tasks/get`: the task as it stands. Questions already answered on
    /// any replica are left out; a task whose replica stopped renewing its
    /// lease is `failed` (and written so).
    pub(crate) async fn get(&self, id: &str, caller: &Caller) -> Result<GetTaskResult, ErrorData> {
        let (mut record, answered) = self.owned(id, caller).await?;
        if record.lapsed() {
            let error = error_object(
                ErrorCode::INTERNAL_ERROR.0,
                format!(
                    "the server running `{}` stopped while the task was in progress (its lease \
                     of {} ms lapsed); the call may or may not have had its effect, so read \
                     before retrying a write",
                    record.tool,
                    self.config().lease.as_millis()
                ),
            );
            let message = Some("the server running this task stopped".to_owned());
            record.moved(TaskPayload::Failed { error }, message, Duration::ZERO);
            if let Err(error) = self.store().write(id, record.encode()).await {
                tracing::warn!(task = id, %error, "a lapsed task could not be marked failed");
            }
        }
        let mut task = record.task;
        if let TaskPayload::InputRequired { input_requests } = &task.payload {
            let open: InputRequests = input_requests
                .iter()
                .filter(|(key, _)| !answered.contains(key))
                .map(|(key, request)| (key.clone(), request.clone()))
                .collect();
            let payload = if open.is_empty() {
                TaskPayload::Working
            } else {
                TaskPayload::InputRequired {
                    input_requests: open,
                }
            };
            task = DetailedTask::new(task.task, payload);
        }
        Ok(GetTaskResult::new(task))
    }

    /// `tasks/update`: hands `responses` to the task, wherever it runs.
    /// Answers to a task that ended, and answers under keys it never asked,
    /// are acknowledged and have no effect.
    pub(crate) async fn update(
        &self,
        id: &str,
        responses: InputResponses,
        caller: &Caller,
    ) -> Result<(), ErrorData> {
        let (record, _) = self.owned(id, caller).await?;
        if record.task.status().is_terminal() || responses.is_empty() {
            return Ok(());
        }
        let responses = responses
            .into_iter()
            .map(|(key, value)| (key, serde_json::to_vec(&value).unwrap_or_default()))
            .collect();
        self.store()
            .respond(id, responses, self.ttl())
            .await
            .map_err(|error| {
                ErrorData::internal_error(format!("the answers cannot be stored: {error}"), None)
            })
    }

    /// `tasks/cancel`: asks the replica running the task to stop it. A
    /// task that ended is acknowledged as it is.
    pub(crate) async fn cancel(&self, id: &str, caller: &Caller) -> Result<(), ErrorData> {
        let (record, _) = self.owned(id, caller).await?;
        if record.task.status().is_terminal() {
            return Ok(());
        }
        self.store().cancel(id, self.ttl()).await.map_err(|error| {
            ErrorData::internal_error(format!("the cancellation cannot be stored: {error}"), None)
        })
    }
}
