//! Which tools may become tasks ([`TaskSupport`]) and how tasks run ([`TaskConfig`]).

use crate::error::config::TaskConfigError;
use std::time::Duration;

/// Whether a tool may answer a call as a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TaskSupport {
    /// Never: every call is answered when the tool finishes (the default).
    #[default]
    Forbidden,
    /// When the request declares the extension and the call outlasts
    /// [`TaskConfig::with_after`] (`task` in the tool's attribute).
    Optional,
    /// Only as a task: a request that does not declare the extension is
    /// refused (`task = "required"`).
    Required,
}

impl TaskSupport {
    /// Whether a call of the tool may become a task.
    pub const fn allows_tasks(self) -> bool {
        !matches!(self, TaskSupport::Forbidden)
    }
}

/// How long a call runs before it becomes a task, and how tasks are kept
/// and followed. [`ServerBuilder::with_task_config`](crate::ServerBuilder::with_task_config)
/// sets it.
///
/// | Setting | Default | |
/// |---|---|---|
/// | [`with_after`](Self::with_after) | 1 s | a call running longer becomes a task; zero makes every call that waits one |
/// | [`with_ttl`](Self::with_ttl) | the store's TTL | how long a task is kept after it was created (`ttlMs`) |
/// | [`with_poll_interval`](Self::with_poll_interval) | 500 ms | how often a client should poll (`pollIntervalMs`) |
/// | [`with_lease`](Self::with_lease) | 30 s | a task whose replica is silent this long is `failed` |
/// | [`with_watch_interval`](Self::with_watch_interval) | 100 ms | how often the running replica looks for a cancellation or answers |
/// | [`with_cancel_grace`](Self::with_cancel_grace) | 1 s | how long a cancelled task's tool has to end on its own once told |
#[derive(Debug, Clone)]
pub struct TaskConfig {
    pub(crate) after: Duration,
    pub(crate) ttl: Option<Duration>,
    pub(crate) poll_interval: Duration,
    pub(crate) lease: Duration,
    pub(crate) watch_interval: Duration,
    pub(crate) cancel_grace: Duration,
}

impl Default for TaskConfig {
    fn default() -> Self {
        TaskConfig {
            after: crate::defaults::TASK_AFTER,
            ttl: None,
            poll_interval: crate::defaults::TASK_POLL_INTERVAL,
            lease: crate::defaults::TASK_LEASE,
            watch_interval: crate::defaults::TASK_WATCH_INTERVAL,
            cancel_grace: crate::defaults::TASK_CANCEL_GRACE,
        }
    }
}

impl TaskConfig {
    /// The defaults (see the table above).
    pub fn new() -> TaskConfig {
        TaskConfig::default()
    }

    /// Answers a task-capable call inline when it finishes within `after`,
    /// as a task otherwise. With zero, a call still pending at its first
    /// poll becomes a task; one that finishes at its first poll is
    /// answered inline, whatever `after` is.
    pub fn with_after(mut self, after: Duration) -> TaskConfig {
        self.after = after;
        self
    }

    /// Keeps a task, and its result, this long after it was created;
    /// without it, as long as the continuation store keeps a token.
    pub fn with_ttl(mut self, ttl: Duration) -> TaskConfig {
        self.ttl = Some(ttl);
        self
    }

    /// The polling interval a task suggests to its client.
    pub fn with_poll_interval(mut self, interval: Duration) -> TaskConfig {
        self.poll_interval = interval;
        self
    }

    /// How long a task stays `working` without its replica renewing the
    /// lease before it is reported `failed`. The replica renews it every
    /// third of this; the replicas' clocks must agree to well within it.
    pub fn with_lease(mut self, lease: Duration) -> TaskConfig {
        self.lease = lease;
        self
    }

    /// How often the replica running a task looks in the store for a
    /// cancellation or answers sent to another replica. A store that can
    /// wake the task itself ([`MemoryTasks`](crate::store::MemoryTasks)) does not wait this long.
    pub fn with_watch_interval(mut self, interval: Duration) -> TaskConfig {
        self.watch_interval = interval;
        self
    }

    /// How long a cancelled task's tool has, once told
    /// ([`Context::cancelled`](crate::Context::cancelled) completes), to
    /// end on its own before it is dropped. A tool that ends with a success
    /// within it (a write past its last chance to roll back) leaves its task
    /// `completed` with that result; otherwise the task is `cancelled`.
    /// With zero, the tool is dropped unless it is done at the poll that
    /// tells it.
    pub fn with_cancel_grace(mut self, grace: Duration) -> TaskConfig {
        self.cancel_grace = grace;
        self
    }

    /// Why this configuration cannot be used, if it cannot.
    pub(crate) fn check(&self) -> Result<(), TaskConfigError> {
        for (setting, value) in [
            ("poll interval", self.poll_interval),
            ("lease", self.lease),
            ("watch interval", self.watch_interval),
        ] {
            if value.is_zero() {
                return Err(TaskConfigError::Zero { setting });
            }
        }
        if self.ttl.is_some_and(|ttl| ttl.is_zero()) {
            return Err(TaskConfigError::Zero { setting: "TTL" });
        }
        if self.watch_interval >= self.lease {
            return Err(TaskConfigError::WatchNotWithinLease {
                watch_interval: self.watch_interval,
                lease: self.lease,
            });
        }
        Ok(())
    }
}
