//! The line between a call that became a task and the replica running
//! it: the tool's questions and their answers, its progress, its
//! cancellation.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, PoisonError};

use rmcp::model::{InputRequest, InputRequests, TaskPayload};
use serde_json::Value;
use tokio::sync::{Notify, oneshot};
use tokio_util::sync::CancellationToken;

/// What a task's tool shares with the replica running it: its questions
/// and their answers, its progress, its cancellation.
#[derive(Debug, Default)]
pub(crate) struct TaskLink {
    pub(crate) cancelled: CancellationToken,
    inner: Mutex<LinkInner>,
    /// Signalled when a question or the progress changed.
    pub(crate) changed: Notify,
}

#[derive(Debug, Default)]
struct LinkInner {
    /// Questions waiting for their answer, by key.
    pending: BTreeMap<String, (InputRequest, oneshot::Sender<Value>)>,
    /// Answers that came before their question was asked.
    early: HashMap<String, Value>,
    /// Keys whose answer was handed over: later copies are ignored.
    answered: Vec<String>,
    message: Option<String>,
}

/// What the task's record shows of its tool, as last written.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct View {
    pub(crate) pending: Vec<String>,
    pub(crate) message: Option<String>,
}

impl TaskLink {
    pub(crate) fn new() -> TaskLink {
        TaskLink::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, LinkInner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The answer to the question `request` under `key`: waits until a
    /// `tasks/update` on any replica brings it; `None` when the task ends
    /// first.
    pub(crate) async fn answer(&self, key: String, request: InputRequest) -> Option<Value> {
        let receiver = {
            let mut inner = self.lock();
            if let Some(value) = inner.early.remove(&key) {
                inner.answered.push(key);
                return Some(value);
            }
            let (sender, receiver) = oneshot::channel();
            inner.pending.insert(key, (request, sender));
            receiver
        };
        self.changed.notify_one();
        receiver.await.ok()
    }

    /// Sets the task's status message.
    pub(crate) fn progress(&self, message: String) {
        self.lock().message = Some(message);
        self.changed.notify_one();
    }

    /// Completes when the task is cancelled.
    pub(crate) async fn cancelled(&self) {
        self.cancelled.cancelled().await;
    }

    /// Whether the task is cancelled.
    pub(crate) fn is_cancelled(&self) -> bool {
        self.cancelled.is_cancelled()
    }

    pub(crate) fn has_pending(&self) -> bool {
        !self.lock().pending.is_empty()
    }

    /// Hands each answer in `responses` to its question, or keeps it for a
    /// question not asked yet.
    pub(crate) fn deliver(&self, responses: Vec<(String, Vec<u8>)>) {
        let mut inner = self.lock();
        for (key, bytes) in responses {
            if inner.answered.contains(&key) {
                continue;
            }
            let Ok(value) = serde_json::from_slice::<Value>(&bytes) else {
                continue;
            };
            match inner.pending.remove(&key) {
                Some((_, sender)) => {
                    // The tool may have stopped waiting: nothing to hand.
                    let _ = sender.send(value);
                    inner.answered.push(key);
                }
                None => {
                    inner.early.insert(key, value);
                }
            }
        }
    }

    pub(crate) fn view(&self) -> View {
        let inner = self.lock();
        View {
            pending: inner.pending.keys().cloned().collect(),
            message: inner.message.clone(),
        }
    }

    /// The payload of the task's record as its tool stands.
    pub(crate) fn payload(&self) -> (TaskPayload, Option<String>) {
        let inner = self.lock();
        let payload = if inner.pending.is_empty() {
            TaskPayload::Working
        } else {
            let requests: InputRequests = inner
                .pending
                .iter()
                .map(|(key, (request, _))| (key.clone(), request.clone()))
                .collect();
            TaskPayload::InputRequired {
                input_requests: requests,
            }
        };
        (payload, inner.message.clone())
    }
}
