//! [`Context`]: what one call carries, for a tool that takes it.

use super::caller::{Caller, StateMap, no_state};
use super::peer::LogLevel;
use super::peer::Talk;
use crate::error::tool::ToolError;
use rmcp::model::{ClientCapabilities, JsonObject};
use serde::Serialize;
use serde_json::Value;
use std::borrow::Cow;
use std::sync::{Arc, LazyLock};

/// A tool's view of the server and of the client behind the call: the
/// state the host registered with
/// [`ServerBuilder::with_state`](crate::ServerBuilder::with_state), who is calling, and a
/// line back to the client — progress, log messages, cancellation, the
/// request's `_meta`, and questions for the user or the client's model.
///
/// A tool borrows it from the call as a `&Context` parameter; it is not part
/// of the tool's input schema. To take one piece, borrow `&Caller` or
/// destructure [`State`](crate::State) instead: a tool that takes
/// `State(db): State<Db>` has its state checked when the server is built
/// ([`ServerBuilder::build`](crate::ServerBuilder::build)), while
/// `ctx.state::<Db>()` is only looked up when it runs.
///
/// ```
/// use mcp_light::prelude::*;
///
/// struct Inventory { site: &'static str }
///
/// /// Names the site this server manages.
/// #[mcp_tool]
/// fn home_site(ctx: &Context) -> Result<String, ToolError> {
///     Ok(ctx.state::<Inventory>()?.site.to_owned())
/// }
/// ```
///
/// # Talking back
///
/// A call that came over an MCP transport can reach its client while the
/// tool runs. [`Context::progress`] and [`Context::log`] notify it (and do
/// nothing when the client did not ask for them, or when the call came
/// through [`Server::call`](crate::Server::call)); [`Context::cancelled`]
/// completes when the client cancels the call (the server then stops
/// running the tool anyway); [`Context::elicit`], [`Context::sample`] and
/// [`Context::roots`] ask the user, the client's model or the client.
///
/// An ask is a request to the client on protocol 2025-11-25. On 2026-07-28,
/// where a server sends no requests, the call answers an input-required
/// result instead and the client calls again with the answers: **the tool
/// then runs again from its start**, and every ask it already made returns
/// its answer at once. Code before an ask runs once per round, so a tool
/// writes after its asks, not before.
///
/// ```
/// use mcp_light::prelude::*;
/// use mcp_light::context::{Elicitation, LogLevel};
///
/// #[derive(Deserialize, JsonSchema)]
/// struct Confirm { confirm: bool }
///
/// /// Wipes a rack, once the user confirms.
/// #[mcp_tool]
/// async fn rack_wipe(ctx: &Context, rack: u32, slots: u32) -> Result<String, ToolError> {
///     let question = format!("Wipe all {slots} slots of rack {rack}?");
///     let Elicitation::Accept(Confirm { confirm: true }) = ctx.elicit(question).await? else {
///         return Ok("left as it was".to_owned());
///     };
///     for slot in 0..slots {
///         if ctx.is_cancelled() {
///             return Err(ToolError::new("cancelled"));
///         }
///         // ... wipe the slot ...
///         ctx.progress(f64::from(slot + 1), Some(f64::from(slots)), None).await;
///     }
///     ctx.log(LogLevel::Notice, format!("rack {rack} wiped")).await;
///     Ok("wiped".to_owned())
/// }
/// ```
#[derive(Debug, Clone)]
pub struct Context {
    state: Arc<StateMap>,
    caller: Caller,
    /// The client behind the call; `None` for [`Server::call`](crate::Server::call).
    pub(crate) talk: Option<Arc<Talk>>,
}

/// The `_meta` of a call that has none.
static NO_META: LazyLock<JsonObject> = LazyLock::new(JsonObject::new);

impl Context {
    pub(crate) fn new(state: Arc<StateMap>, caller: Caller, talk: Option<Arc<Talk>>) -> Self {
        Context {
            state,
            caller,
            talk,
        }
    }

    /// Keeps what this call's asks are bound to on protocol 2026-07-28
    /// (`called`, the tool that runs, its parsed `args`), for an ask to
    /// hash if one is made; a call without such asks drops it.
    #[expect(
        clippy::ptr_arg,
        reason = "a `Cow` that borrows clones without allocating; a `&str` would be copied"
    )]
    pub(crate) fn bind(&self, called: &Cow<'static, str>, tool: &'static str, args: Value) {
        if let Some(rounds) = self.talk.as_deref().and_then(|talk| talk.rounds.as_deref()) {
            rounds.bind(super::rounds::Binding {
                caller: self.caller.clone(),
                called: Cow::clone(called),
                tool,
                args,
            });
        }
    }

    /// The state of type `T` the host registered, or an error naming the
    /// type when there is none.
    pub fn state<T: Send + Sync + 'static>(&self) -> Result<&T, ToolError> {
        self.state
            .get::<T>()
            .and_then(|value| value.downcast_ref::<T>())
            .ok_or_else(no_state::<T>)
    }

    /// The state of type `T`, shared: what [`State<T>`](crate::State) holds.
    pub(crate) fn shared_state<T: Send + Sync + 'static>(&self) -> Result<Arc<T>, ToolError> {
        self.state
            .get::<T>()
            .and_then(|value| Arc::clone(value).downcast::<T>().ok())
            .ok_or_else(no_state::<T>)
    }

    /// Who is calling.
    pub fn caller(&self) -> &Caller {
        &self.caller
    }

    /// The request's `_meta`, as the client sent it: `progressToken`, and
    /// on protocol 2026-07-28 `io.modelcontextprotocol/clientCapabilities`,
    /// `io.modelcontextprotocol/logLevel` and the like, with whatever keys of
    /// its own the client adds. Empty for a call through
    /// [`Server::call`](crate::Server::call).
    pub fn meta(&self) -> &serde_json::Map<String, serde_json::Value> {
        self.talk.as_deref().map_or(&NO_META, Talk::meta)
    }

    /// What the client declared it can do (elicitation, sampling, roots):
    /// in the request's `_meta` on protocol 2026-07-28, at `initialize`
    /// before. `None` when it declared nothing, or for a call through
    /// [`Server::call`](crate::Server::call).
    pub fn client_capabilities(&self) -> Option<ClientCapabilities> {
        self.talk.as_deref().and_then(Talk::client_capabilities)
    }

    /// Whether the client asked for progress (its request carried a
    /// `progressToken`), or the call may become a task, whose status
    /// message the progress then is: a tool skips the bookkeeping progress
    /// needs when nobody reads it.
    pub fn wants_progress(&self) -> bool {
        self.talk.as_deref().is_some_and(Talk::wants_progress)
    }

    /// Tells the client how far the tool got: `done` out of `total`, if
    /// known, with an optional message. `done` grows with every call.
    ///
    /// Does nothing when the request carried no `progressToken`, and never
    /// fails the tool: a notification that cannot be sent is logged (with
    /// `tracing`) and dropped.
    pub async fn progress(&self, done: f64, total: Option<f64>, message: Option<&str>) {
        if let Some(talk) = &self.talk {
            talk.progress(done, total, message).await;
        }
    }

    /// Sends the client a log message (`notifications/message`) at `level`;
    /// `data` is any `Serialize` value, a `&str` or `String` included.
    ///
    /// Sent only when the client asked for messages this severe: with
    /// `logging/setLevel` for its session on protocol 2025-11-25 (all
    /// messages before it does), with the request's `_meta`
    /// `io.modelcontextprotocol/logLevel` on 2026-07-28 (none without).
    /// Never fails the tool.
    pub async fn log(&self, level: LogLevel, data: impl Serialize) {
        if let Some(talk) = &self.talk {
            talk.log(None, level, &data).await;
        }
    }

    /// [`Context::log`], naming the logger the message comes from.
    pub async fn log_as(&self, logger: &str, level: LogLevel, data: impl Serialize) {
        if let Some(talk) = &self.talk {
            talk.log(Some(logger), level, &data).await;
        }
    }

    /// Completes when the client cancels the call (`notifications/cancelled`,
    /// or a closed connection); never, for a call through
    /// [`Server::call`](crate::Server::call). A tool selects on it to stop
    /// cleanly; without that, the server stops polling the tool's future
    /// once the call is cancelled, and the tool stops at its next `.await`.
    ///
    /// In a call that became a task, it completes when the task is
    /// cancelled (`tasks/cancel`, on any replica).
    pub async fn cancelled(&self) {
        let Some(talk) = &self.talk else {
            return std::future::pending().await;
        };
        if talk.task().is_none() {
            talk.request.ct.cancelled().await;
        }
        // A request also ends when its call becomes a task (its answer is
        // the task): from then on only the task's cancellation counts.
        if let Some(task) = talk.task() {
            task.cancelled().await;
        }
    }

    /// Whether the client cancelled the call.
    pub fn is_cancelled(&self) -> bool {
        self.talk.as_deref().is_some_and(|talk| match talk.task() {
            Some(task) => task.is_cancelled(),
            None => talk.request.ct.is_cancelled(),
        })
    }
}
