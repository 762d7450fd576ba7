//! The call path every transport uses: a call prepared (tool found,
//! arguments checked, continuation token redeemed or the tool invoked) and
//! answered.

use std::borrow::Cow;
use std::convert::Infallible;
use std::future::Future;
use std::mem;
use std::sync::Arc;
use std::task::{self, Poll};

use rmcp::model::{CallToolResponse, CallToolResult};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer};
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::call::args;
use crate::call::outcome::{Answer, AnswerShape, CallError, ErrorKind};
use crate::catalog::dispatch::{Dispatcher, Route};
use crate::catalog::registry::PublishedTool;
use crate::catalog::tool::ToolDef;
use crate::context::{Caller, Context, SessionKeeps, Stopped, Stops, Talk, run_until_cancelled};
use crate::continuation::{Called, Continuations};
use crate::heavy;
use crate::invoke::{Answering, Invocation, Responder, RoutedAction};
use crate::limits::Deadline;
use crate::principal::GrantedScopes;
use crate::store::BoxFuture;
use crate::tasks::{Escalation, TaskSupport, Tasking, tasks_required};
use crate::tool::schema::VERIFY;

use super::poll::{Escape, FirstPoll, Waited, caught};
use super::{NameTarget, Server};

/// One call as it goes down the call path: the tool it names, its
/// arguments, who calls and what their access token grants, the line back
/// to the client and what may make it a task (both for a call over MCP),
/// and the request's span. Preparing the call takes its arguments, its
/// caller, its granted scopes and its line to the client; what is left is
/// what a call that waits still reads.
pub(crate) struct Call<'a> {
    /// What `tool` reaches on this server ([`Server::named`], looked up
    /// once, by the transport).
    named: Option<NameTarget>,
    /// The name the caller called.
    tool: &'a str,
    /// A JSON object, or `null` for none.
    arguments: Value,
    /// Who calls.
    caller: Caller,
    /// The scopes the caller's access token grants, when the call must be
    /// checked against them (see [`GrantedScopes`]).
    granted: Option<GrantedScopes>,
    /// The call's line to its client, when its tool takes one.
    talk: Option<Arc<Talk>>,
    /// What a call over MCP brings to the decision to become a task.
    tasking: Option<Tasking<'a>>,
    /// The request's span, which the call runs in.
    span: &'a tracing::Span,
    /// The bytes of an answer the calling client keeps; `None` for the
    /// server's default (a client that named itself to no entry of its
    /// [`ClientTable`](crate::clients::ClientTable)).
    keeps: Option<usize>,
}

impl<'a> Call<'a> {
    /// A call of `tool` (which reaches `named`) with `arguments`, by
    /// `caller`, whose access token grants `granted`, in `span`.
    #[inline]
    pub(crate) fn new(
        named: Option<NameTarget>,
        tool: &'a str,
        arguments: Value,
        caller: Caller,
        granted: Option<GrantedScopes>,
        span: &'a tracing::Span,
    ) -> Self {
        Call {
            named,
            tool,
            arguments,
            caller,
            granted,
            talk: None,
            tasking: None,
            span,
            keeps: None,
        }
    }

    /// The call, from a client that keeps `keeps` bytes of an answer.
    #[inline]
    pub(crate) fn keeping(mut self, keeps: usize) -> Self {
        self.keeps = Some(keeps);
        self
    }
}

impl Server {
    /// Calls `tool` with `arguments` (a JSON object, or `null` for none) on
    /// behalf of `caller`.
    ///
    /// Never panics and never fails: bad arguments, an unknown tool, a tool
    /// that returns `Err` or panics, and a refused continuation token all
    /// answer an `isError` result that says what is wrong. The
    /// [testing recipe](crate::docs::recipes#testing-a-tool-with-servercall)
    /// uses it in unit tests.
    ///
    /// A tool of the rmcp handler composed with
    /// [`ServerBuilder::with_handler`](crate::ServerBuilder::with_handler)
    /// is not called: rmcp's `call_tool` takes the context of an MCP
    /// request, which a call in process has none of. Its name answers an
    /// `isError` result saying so; call it over MCP (a transport, or the
    /// handler [`Server::into_handler`] makes).
    pub async fn call(&self, tool: &str, arguments: Value, caller: Caller) -> CallToolResult {
        self.call_in_process(tool, arguments, caller, None).await
    }

    /// [`Server::call`] as the client that names itself `client` in
    /// `clientInfo` would make it: its answers sized to what that client
    /// keeps ([`ClientTable`](crate::clients::ClientTable)).
    ///
    /// ```standalone_crate
    /// use mcp_light::prelude::*;
    /// use mcp_light::testing::AnswerExt;
    ///
    /// /// Every number up to `n`, with its square.
    /// #[mcp_heavy]
    /// fn squares(n: u32) -> Vec<(u32, u64)> {
    ///     (1..=n).map(|i| (i, u64::from(i) * u64::from(i))).collect()
    /// }
    ///
    /// # tokio::runtime::Builder::new_multi_thread().build().unwrap().block_on(async {
    /// let server = Server::from_registry().build()?;
    /// let probe = server
    ///     .call_from("codex-mcp-client", "squares", serde_json::json!({"n": 5000}), Caller::Process)
    ///     .await;
    /// // Codex keeps 10,000 bytes: the list is kept behind a token.
    /// assert!(probe.json().unwrap()["continuation_token"].is_string());
    /// # Ok::<(), mcp_light::BuildError>(())
    /// # }).unwrap();
    /// ```
    pub async fn call_from(
        &self,
        client: &str,
        tool: &str,
        arguments: Value,
        caller: Caller,
    ) -> CallToolResult {
        let keeps = self.inner.limits.clients.keeps(Some(client));
        self.call_in_process(tool, arguments, caller, Some(keeps))
            .await
    }

    async fn call_in_process(
        &self,
        tool: &str,
        arguments: Value,
        caller: Caller,
        keeps: Option<usize>,
    ) -> CallToolResult {
        let run = |run| async { Ok::<_, Infallible>(run.await) };
        let named = self.named(tool);
        if self.reaches_composed(named, tool) {
            let reached = crate::server::compose::ReachedOverMcp(tool).to_string();
            let mut answer = Answer::error(CallError::Protocol(reached));
            self.report(&mut answer);
            return answer.into_result();
        }
        let span = tracing::Span::none();
        let mut call = Call::new(named, tool, arguments, caller, None, &span);
        call.keeps = keeps;
        let Ok(answer) = self.answer(call, run).await;
        answer.into_result()
    }

    /// [`Server::call`] for `call`, which came over MCP from `client`; the
    /// client declared the tasks extension or not. The client cancelling
    /// the call stops the tool; on protocol 2026-07-28 a tool stopped at
    /// its asks answers an input-required result, and a refused
    /// `requestState` an error: those come back as `Err`, the response as
    /// it goes out ([`responded`]).
    ///
    /// The result comes as an [`Answer`]: with its outcome, for the
    /// request's span and metrics.
    ///
    /// Not an `async fn`: the call path's own future is what the transport
    /// awaits, not a wrapper that would hold (and copy) it.
    #[inline]
    pub(crate) fn call_over_mcp<'s>(
        &'s self,
        mut call: Call<'s>,
        client: Client<'s>,
        tasks_declared: bool,
    ) -> impl Future<Output = Result<Answer, Stopped>> + 's {
        let (stops, talking) = match client {
            Client::Talking(talk) => {
                call.talk = Some(Arc::clone(talk));
                (talk.stops(), Some(talk))
            }
            Client::Quiet(cancelled) => (
                Stops {
                    cancelled,
                    rounds: None,
                },
                None,
            ),
        };
        call.tasking = Some(Tasking {
            declared: tasks_declared,
            stops,
            talk: talking,
        });
        let run = move |run| run_until_cancelled(run, stops);
        self.answer(call, run)
    }

    /// The one call path: the call prepared, its tool run by `run` (which
    /// may stop it for an answer of its own, `Err`) or its token redeemed.
    /// A call over MCP brings `tasking`: a task-capable tool left waiting
    /// may then answer as a task. A panic anywhere in it, in mcp-light or
    /// in the tool, answers the call as the tool failing and goes no
    /// further. The answer ends with the usage report, where the server
    /// keeps one: the one step every answered call takes.
    ///
    /// Everything up to the tool's first poll is done at the future's
    /// first poll, in place: a refusal, and the answer of a tool that
    /// answers at once, leave from there, and the future holds nothing
    /// but what the call was given. Only a call left waiting boxes the
    /// rest ([`Server::waited`]), so the future a transport moves around
    /// (into the task it spawns for the request, for one) stays small.
    fn answer<'a, S, R>(
        &'a self,
        mut call: Call<'a>,
        run: impl FnOnce(Run<'a>) -> R + Unpin + 'a,
    ) -> impl Future<Output = Result<Answer, S>> + 'a
    where
        R: Future<Output = Result<Answer, S>> + 'a,
        S: Escape + 'a,
    {
        FirstPoll::new(move |cx: &mut task::Context<'_>| {
            // Only a request that may get a task pays for its owner's
            // identity.
            let declared = call.tasking.as_ref().map(|tasking| tasking.declared);
            let owner = (declared == Some(true)).then(|| call.caller.identity());
            let (tool, span) = (call.tool, call.span);
            let prepared = caught(span, || self.prepare(&mut call, declared));
            // The answer, or what the call still waits for.
            let settled = match prepared {
                Ok(Prepared::Answer(answer)) => Ok(answer),
                Ok(Prepared::Refuse(error)) => match S::escape(Err(error)) {
                    Ok(answer) => Ok(answer),
                    Err(stopped) => return Ok(Err(stopped)),
                },
                // Most tools answer at their first poll, made here, bare;
                // only one left waiting runs within the deadline and what
                // stops it (or as a task), which poll it again at once.
                Ok(Prepared::Wait(Waits::Run(mut invoked, support, name))) => {
                    match caught(span, || invoked.as_mut().poll(cx)) {
                        Ok(Poll::Ready(answer)) => Ok(answer),
                        Ok(Poll::Pending) => Err(Waits::Run(invoked, support, name)),
                        Err(unfinished) => Ok(Answer::unfinished(tool, unfinished)),
                    }
                }
                Ok(Prepared::Wait(waits)) => Err(waits),
                Err(unfinished) => Ok(Answer::unfinished(tool, unfinished)),
            };
            match settled {
                Ok(mut answer) => {
                    self.report(&mut answer);
                    Ok(Ok(answer))
                }
                Err(waits) => Err(Box::pin(self.waited(waits, call, owner, run))),
            }
        })
    }

    /// Puts the usage report's counts on `answer`, where the server keeps
    /// one (in place: an answer is moved as little as it can be).
    #[inline]
    pub(super) fn report(&self, answer: &mut Answer) {
        if let Some(usage) = &self.inner.usage {
            usage.report(answer);
        }
    }

    /// The part of a call that waits ([`Server::wait`]), polled in place
    /// in the request's span within the call's panic boundary, its answer
    /// with the usage report's counts. Boxed by [`Server::answer`]: only a
    /// call that waits carries it. A struct rather than an `async fn` around
    /// the wait, which would hold the wait's arguments twice: the box stays
    /// small enough for the allocator's fast path.
    fn waited<'a, S, R>(
        &'a self,
        waits: Waits,
        call: Call<'a>,
        owner: Option<String>,
        run: impl FnOnce(Run<'a>) -> R + 'a,
    ) -> Waited<'a, impl Future<Output = Result<Answer, S>> + 'a>
    where
        R: Future<Output = Result<Answer, S>> + 'a,
        S: Escape + 'a,
    {
        Waited {
            call: self.wait(waits, call.named, call.tool, call.tasking, owner, run),
            server: self,
            tool: call.tool,
            span: call.span,
        }
    }

    /// What a call waits for: a token redeemed, or a tool left waiting at
    /// its first poll, run within the deadline and what stops it, or as a
    /// task.
    async fn wait<'t, S, R>(
        &self,
        waits: Waits,
        named: Option<NameTarget>,
        tool: &'t str,
        tasking: Option<Tasking<'_>>,
        owner: Option<String>,
        run: impl FnOnce(Run<'t>) -> R,
    ) -> Result<Answer, S>
    where
        R: Future<Output = Result<Answer, S>>,
        S: Escape,
    {
        Ok(match waits {
            Waits::Redeem(called, token, args, granted, keeps) => {
                let usage = self.inner.usage.as_deref();
                let redeemed = self.inner.continuations.redeem(
                    &called,
                    token,
                    args,
                    usage,
                    granted.as_ref(),
                    keeps,
                );
                Box::pin(redeemed).await
            }
            Waits::Run(invoked, support, name) => match (tasking, owner) {
                (Some(tasking), Some(owner)) if support.allows_tasks() => {
                    let work = self.inner.limits.within_deadline(name, invoked);
                    let escalation = Escalation {
                        tasks: &self.inner.tasks,
                        owner,
                        tool: name,
                        counted_as: Arc::clone(self.tool_metrics(named)),
                        usage: self.inner.usage.clone(),
                    };
                    // Boxed: only a call that may become a task carries
                    // what becoming one takes.
                    match Box::pin(tasking.run(work, escalation)).await {
                        Ok(answer) => answer,
                        Err(stopped) => return S::escape(stopped),
                    }
                }
                _ => run(self.inner.limits.within_deadline(tool, invoked)).await?,
            },
        })
    }

    /// Resolves the tool a call names, takes mcp-light's own fields off its
    /// arguments and readies what answers it. It takes the call's
    /// arguments, caller, granted scopes and line to the client; what it
    /// leaves is what a call that waits reads. With scopes granted, a call
    /// of a tool whose scopes they lack is refused before it runs.
    fn prepare(&self, call: &mut Call<'_>, tasks_declared: Option<bool>) -> Prepared {
        let tool = call.tool;
        let mut args = match mem::take(&mut call.arguments) {
            Value::Object(args) => args,
            Value::Null => Map::new(),
            other => {
                return Prepared::refused(CallError::NotAnObject {
                    tool: tool.to_owned().into(),
                    found: json_kind(&other),
                });
            }
        };
        if let Err(message) =
            args::check_strings(tool, &args, self.inner.limits.max_argument_string)
        {
            return Prepared::refused(CallError::Bounds(message));
        }
        let target = match self.target(call.named, tool) {
            Ok(target) => target,
            Err(error) => return Prepared::refused(error),
        };
        let taken = call.granted.take();
        let granted = taken.as_ref();
        let keeps = call
            .keeps
            .unwrap_or_else(|| self.inner.limits.clients.keeps(None));
        // The schema of the tool the caller called decides whether a token
        // may come back, and whom what is stored belongs to.
        let (name, discloses) = match target {
            Target::Dispatcher(dispatcher, _) => (
                Cow::Owned(dispatcher.name().to_owned()),
                dispatcher.discloses_continuation(),
            ),
            Target::Tool(published) => (
                Cow::Borrowed(published.name()),
                published.discloses_continuation(),
            ),
        };
        if let (Target::Tool(published), Some(granted)) = (target, granted)
            && let Some(refused) = scope_refusal(published.def(), granted)
        {
            return Prepared::Answer(refused);
        }
        let called = Called::new(mem::replace(&mut call.caller, Caller::Anonymous), name);
        if let Some(token) = Continuations::take_token(discloses, &mut args) {
            if let Target::Dispatcher(dispatcher, _) = target {
                dispatcher.drop_routing(&mut args);
            }
            return Prepared::Wait(Waits::Redeem(called, token, args, taken, keeps));
        }
        let (published, args, routed) = match target {
            Target::Dispatcher(dispatcher, place) => {
                // A caller with scopes is told only of the actions it may use.
                let cut = granted.and_then(|granted| self.cut(granted));
                let shown = cut.as_ref().map(|cut| cut.dispatcher(place));
                match dispatcher.route(&self.inner.registry, args, shown) {
                    Ok(Route::Run { tool, args, routed }) => (tool, args, Some(Box::new(routed))),
                    Ok(Route::Describe { tool, answer }) => {
                        if let Some(granted) = granted
                            && let Some(refused) = scope_refusal(tool.def(), granted)
                        {
                            return Prepared::Answer(refused);
                        }
                        return Prepared::Answer(Answer::shaped(&answer, AnswerShape::Full));
                    }
                    Err(error) => return Prepared::refused(CallError::Route(error.to_string())),
                }
            }
            Target::Tool(published) => (published, args, None),
        };
        let def = published.def();
        if routed.is_some()
            && let Some(granted) = granted
            && let Some(refused) = scope_refusal(def, granted)
        {
            return Prepared::Answer(refused);
        }
        let support = def.task_support();
        if support == TaskSupport::Required && tasks_declared != Some(true) {
            return match tasks_declared {
                Some(_) => Prepared::Refuse(tasks_required(def.name())),
                None => Prepared::refused(CallError::TaskOnly {
                    tool: def.name().into(),
                }),
            };
        }
        let invocation = self.invocation(
            published,
            (discloses, keeps),
            called,
            args,
            routed,
            call.talk.take(),
        );
        match invocation {
            Ok(invocation) => match def.invoke_fn()(invocation) {
                // A tool that never waits ran already, inside the call's
                // panic boundary: no deadline or cancellation to watch.
                Answering::Now(answer) => Prepared::Answer(answer.into_inner()),
                Answering::Later(run) => Prepared::Wait(Waits::Run(run, support, def.name())),
            },
            Err(answer) => Prepared::Answer(*answer),
        }
    }

    /// What the call's `named` reaches, or the error of a name that
    /// reaches no tool the caller may call directly (`tool` as called).
    fn target(&self, named: Option<NameTarget>, tool: &str) -> Result<Target<'_>, CallError> {
        match named {
            Some(NameTarget::Dispatcher { dispatcher, .. }) => Ok(Target::Dispatcher(
                &self.inner.dispatchers[dispatcher],
                dispatcher,
            )),
            Some(NameTarget::Tool { tool: place, .. }) => {
                Ok(Target::Tool(self.inner.registry.at(place)))
            }
            Some(NameTarget::Routed {
                dispatcher,
                resource,
                action,
            }) => Err(CallError::OnlyThroughDispatcher {
                tool: tool.to_owned().into(),
                dispatcher: self.inner.dispatchers[dispatcher].name().to_owned().into(),
                resource,
                action,
            }),
            None => Err(CallError::UnknownTool {
                tool: tool.to_owned().into(),
                known: self.inner.known.to_string(),
            }),
        }
    }

    /// What the client behind `request` keeps of an answer: the entry of
    /// the name it gives itself in `clientInfo` (in the request's `_meta`
    /// on protocol 2026-07-28, at `initialize` before, looked up once per
    /// `session`), else the default.
    pub(crate) fn client_keeps(
        &self,
        request: &RequestContext<RoleServer>,
        session: &SessionKeeps,
    ) -> usize {
        let clients = &self.inner.limits.clients;
        // Read where it lies: no `Implementation` is cloned on the call path.
        let named = if request.meta.is_empty() {
            None
        } else {
            request
                .meta
                .get(CLIENT_INFO_KEY)
                .and_then(|info| info.get("name"))
                .and_then(Value::as_str)
        };
        if let Some(name) = named {
            return clients.keeps(Some(name));
        }
        session.get_or_read(|| {
            let info = request.peer.peer_info();
            clients.keeps(info.as_ref().map(|info| info.client_info.name.as_str()))
        })
    }

    /// The invocation of `tool` for a caller who called the tool
    /// `called.tool`, whose published schema `discloses` continuation or not,
    /// from a client that `keeps` so many bytes of an answer. The flat path
    /// and a dispatcher differ only in the first two.
    fn invocation(
        &self,
        tool: &PublishedTool,
        (discloses, keeps): (bool, usize),
        called: Called,
        mut args: Map<String, Value>,
        routed: Option<Box<RoutedAction>>,
        talk: Option<Arc<Talk>>,
    ) -> Result<Invocation, Box<Answer>> {
        let def = tool.def();
        // `verify` is taken off every call: a write honors it, a read ignores
        // it.
        let verify = match args::take(&mut args, VERIFY) {
            None | Some(Value::Null) => false,
            Some(Value::Bool(verify)) => verify,
            Some(other) if def.kind().is_write() => {
                return Err(Box::new(Answer::error(CallError::InvalidArguments {
                    tool: def.name().into(),
                    at: Some(VERIFY.to_owned()),
                    problem: format!("expected true or false, got {other}"),
                })));
            }
            Some(_) => false,
        };
        // A first call of a heavy tool, or of a bulk write, has nothing
        // stored to negotiate.
        if def.kind().negotiates()
            && let Err(error) = heavy::refuse_negotiation(&mut args)
        {
            return Err(Box::new(Answer::error(CallError::InvalidArguments {
                tool: def.name().into(),
                at: None,
                problem: error.to_string(),
            })));
        }
        Ok(Invocation {
            ctx: Context::new(Arc::clone(&self.inner.state), called.caller.clone(), talk),
            args,
            responder: Responder {
                continuations: Arc::clone(&self.inner.continuations),
                tool: def.facts(),
                kind: def.kind(),
                called,
                discloses,
                retrieve_published: tool.retrieve_published(),
                verify,
                usage: self.inner.usage.clone(),
                keeps,
                envelope_bytes: self.inner.limits.envelope_bytes,
            },
            routed,
        })
    }
}

/// The response to a call over MCP, from what [`Server::call_over_mcp`]
/// came to. A tool's `Err(ErrorData)` goes out as that JSON-RPC error; the
/// test for it reads the answer where it lies, and the conversion is cold,
/// so that every other answer is built in place as before.
#[inline]
pub(crate) fn responded(done: Result<Answer, Stopped>) -> Result<CallToolResponse, ErrorData> {
    if let Ok(answer) = &done
        && answer.outcome.shape == AnswerShape::Error(ErrorKind::JsonRpc)
    {
        return protocol_error(done);
    }
    match done {
        Ok(answer) => Ok(answer.into_result().into()),
        Err(stopped) => stopped,
    }
}

/// The JSON-RPC error a tool's `Err(ErrorData)` answered.
#[cold]
#[inline(never)]
fn protocol_error(done: Result<Answer, Stopped>) -> Result<CallToolResponse, ErrorData> {
    match done {
        Ok(mut answer) => Err(answer.take_protocol_error()),
        Err(stopped) => stopped,
    }
}

/// The `_meta` key of the client's `clientInfo` on a request of protocol
/// 2026-07-28.
const CLIENT_INFO_KEY: &str = "io.modelcontextprotocol/clientInfo";

/// The client behind a call that came over MCP.
#[derive(Clone, Copy)]
pub(crate) enum Client<'c> {
    /// A client the tool may reach: its request's `_meta`, progress, log
    /// messages, questions.
    Talking(&'c Arc<Talk>),
    /// A client the tool never reaches (it takes nothing that would): only
    /// its cancellation of the call, through the request's token.
    Quiet(&'c CancellationToken),
}

/// What a call comes to once prepared.
enum Prepared {
    /// Answered already: an error found before any tool ran, a dispatcher's
    /// `describe`, or the answer of a tool that never waits.
    Answer(Answer),
    /// Refused with a protocol error before any tool ran.
    Refuse(ErrorData),
    /// Something to wait for.
    Wait(Waits),
}

impl Prepared {
    /// Refused before any tool ran, for what `error` says.
    fn refused(error: CallError) -> Prepared {
        Prepared::Answer(Answer::error(error))
    }
}

/// What a prepared call waits for.
enum Waits {
    /// A continuation token to redeem for this caller, with the
    /// negotiation fields left in the arguments, and what the caller's
    /// access token grants when it says.
    /// What the calling client keeps of an answer comes last.
    Redeem(
        Called,
        Value,
        Map<String, Value>,
        Option<GrantedScopes>,
        usize,
    ),
    /// A tool to run (its first poll made bare before anything else waits),
    /// whether it may answer as a task, and its name.
    Run(BoxFuture<'static, Answer>, TaskSupport, &'static str),
}

/// A tool's run, within the server's deadline.
type Run<'t> = Deadline<'t, BoxFuture<'static, Answer>>;

/// The tool a call names: a dispatcher, or a registered tool.
#[derive(Clone, Copy)]
enum Target<'s> {
    /// A dispatcher, at its place among the server's.
    Dispatcher(&'s Dispatcher, usize),
    Tool(&'s PublishedTool),
}

/// The answer to a call of `def` that `granted` lacks one of its scopes
/// for: an error naming the missing scopes, before anything runs. Over
/// HTTP the guard refuses such a call `403` first; this answers what it
/// could not read (a dispatcher's route it could not scan).
pub(super) fn scope_refusal(def: &ToolDef, granted: &GrantedScopes) -> Option<Answer> {
    if def.scopes().is_empty() {
        return None;
    }
    let missing = granted.missing(def.scopes());
    if missing.is_empty() {
        return None;
    }
    Some(Answer::error(CallError::MissingScope {
        tool: def.name().into(),
        missing: missing.join(" "),
    }))
}

pub(super) fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
