//! Long calls as tasks: a call the client may follow by its task id
//! instead of holding its request open (the `io.modelcontextprotocol/tasks`
//! extension of protocol 2026-07-28).
//!
//! # What a client sees
//!
//! A tool says it may run as a task with `task` in its attribute
//! (`#[mcp_tool(task)]`, `#[mcp_light(bulk_create, task)]`,
//! `#[mcp_heavy(task)]`), or that it runs only as one with
//! `task = "required"`. The server decides per call, and only for a
//! request that declares the extension (in its `_meta` client
//! capabilities): a call that finishes within
//! [`TaskConfig::with_after`] (default 1 s) is answered as any other; one
//! still running then answers a task (`resultType: "task"`, a `taskId`,
//! `ttlMs`, `pollIntervalMs`), and the tool runs on. The client follows it
//! with `tasks/get`, which inlines the result once the task completed:
//! exactly what the call would have answered, a write's lean envelope
//! with its continuation token, a heavy read's probe. `tasks/cancel`
//! stops the tool: [`Context::cancelled`](crate::Context::cancelled)
//! completes, and the tool has a grace ([`TaskConfig::with_cancel_grace`],
//! default 1 s) to end on its own before it is dropped. One that ends with
//! a success then (a write past its last chance to roll back) is
//! `completed`, with its result; otherwise the task is `cancelled`.
//! `tasks/update` answers its questions.
//!
//! A request without the extension always gets a plain result, and a
//! `task = "required"` tool refuses it with the protocol's
//! missing-capability error (-32021) naming the extension. Clients of
//! protocol 2025-11-25 have no tasks: their calls are answered as before.
//!
//! # Questions inside a task
//!
//! Before a call becomes a task, its tool's asks ([`Context::elicit`],
//! [`Context::sample`], …) are answered as any call's are: on 2026-07-28
//! the call answers an input-required result and the tool runs again with
//! the answers. A call whose tool stops at an ask on its first poll is
//! answered that way, and becomes a task only on a later round: a tool
//! gathers its input first and then works as a task. Once the call is a
//! task, an ask parks it in `input_required`, its request in
//! `inputRequests`, until `tasks/update` brings the answer; the tool waits
//! where it asked, and is not run again. Progress
//! ([`Context::progress`]) becomes the task's `statusMessage`.
//!
//! # Replicas
//!
//! A task's state — status, timestamps, status message, questions and the
//! final result — lives in the server's continuation store when that store
//! keeps tasks ([`MemoryStore`](crate::store::MemoryStore) and, with the
//! `redis` feature, [`RedisStore`] do;
//! [`ContinuationStore::tasks`](crate::store::ContinuationStore::tasks)),
//! in the process otherwise. On Redis every replica answers `tasks/get`,
//! `tasks/update` and `tasks/cancel` for every task: the replica running
//! the tool looks for a cancellation and for answers every
//! [`TaskConfig::with_watch_interval`] (100 ms), and renews its lease on
//! the task. A task whose replica stopped renewing its lease
//! ([`TaskConfig::with_lease`], 30 s) is reported `failed`, never
//! `working` forever. A task belongs to the caller that started it, as a
//! continuation token does: another caller's `tasks/get` finds nothing.
//!
//! [`Context::elicit`]: crate::Context::elicit
//! [`Context::sample`]: crate::Context::sample
//! [`Context::progress`]: crate::Context::progress
// `RedisStore` exists with the `redis` feature; without it, the link goes to
// the page docs.rs builds with every feature.
#![cfg_attr(feature = "redis", doc = "[`RedisStore`]: crate::store::RedisStore")]
#![cfg_attr(
    not(feature = "redis"),
    doc = "[`RedisStore`]: https://docs.rs/mcp-light/latest/mcp_light/store/struct.RedisStore.html"
)]

mod config;
pub use config::{TaskConfig, TaskSupport};
mod record;
mod run;
mod serve;

pub use crate::error::config::TaskConfigError;
pub use crate::store::tasks::{MemoryTasks, StoredTask, TaskSignals, TaskStore};

pub(crate) use record::is_task_id;
pub(crate) use run::{Escalation, Tasking, tasks_required};
pub(crate) use serve::Tasks;
