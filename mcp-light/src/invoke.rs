//! One call of one tool: its arguments in, its answer out.
//!
//! The server prepares an [`Invocation`] (arguments stripped of
//! mcp-light's own fields, and a [`Responder`] that knows what the caller's
//! published schema discloses); the macro-generated code parses the
//! arguments, runs the function and hands its result to the responder, which
//! picks the answer: a lean envelope, a probe, or the result itself. Whatever
//! is kept for a token goes through [`Continuations`]. The flat path and the
//! dispatcher share all of it.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{self, Poll};

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::call::args;
use crate::call::content::ContentAnswer;
use crate::call::outcome::call_error::Takes;
use crate::call::outcome::{
    Answer, AnswerShape, CallError, Counts, EnvelopeShape, TokenUse, WriteOutcome,
};
use crate::call::wrappers::{self, Closed, WholeArguments};
use crate::context::Context;
use crate::continuation::keep;
use crate::continuation::{Called, Continuations};
use crate::error::tool::ToolError;
use crate::heavy;
use crate::store::{BoxFuture, Origin};
use crate::token::Token;
use crate::tool::kind::ToolKind;
use crate::tool::schema;
use crate::usage::UsageReport;
use crate::writes::envelope::{
    BulkEnvelope, BulkReach, DestroyEnvelope, LeanEnvelope, SingleEnvelope, data_size,
};
use crate::writes::light_key::{BulkResult, KeyFields, LightKey};

/// Runs a tool on one call: what each definition's generated code provides.
/// A tool that never waits (an `inline` synchronous read) answers in
/// place; any other answers a boxed future.
pub type InvokeFn = fn(Invocation) -> Answering;

/// A call on its way into a tool. Built by the server; consumed by the code
/// `#[mcp_tool]`, `#[mcp_light]` and `#[mcp_heavy]` generate.
pub struct Invocation {
    pub(crate) ctx: Context,
    pub(crate) args: Map<String, Value>,
    pub(crate) responder: Responder,
    /// Set when a dispatcher routed the call: bad arguments are then
    /// answered with the schema of the dispatcher's `params`. Boxed, so a
    /// flat call moves one word for it.
    pub(crate) routed: Option<Box<RoutedAction>>,
}

/// The action a dispatcher routed a call to, and the schema its `params`
/// must match: what one failed call needs to teach the caller the shape.
pub(crate) struct RoutedAction {
    pub(crate) resource: &'static str,
    pub(crate) action: &'static str,
    /// The routed tool's parameters, as its flat tool publishes them
    /// without the fields the dispatcher takes at its top level.
    pub(crate) params_schema: Arc<Map<String, Value>>,
}

impl RoutedAction {
    /// `problem`, followed by the schema the caller's `params` must match.
    pub(crate) fn teach(&self, problem: &str) -> String {
        format!(
            "{problem}. Through a dispatcher these arguments go in `params`, which for resource `{}` and action `{}` takes: {}",
            self.resource,
            self.action,
            Value::Object((*self.params_schema).clone())
        )
    }
}

impl Invocation {
    /// Parses the call's arguments into the tool's argument struct. A wrong
    /// type, a missing field or an unknown field is answered with an
    /// `isError` result naming the field.
    #[allow(clippy::result_large_err)]
    pub fn parse<A: DeserializeOwned>(self) -> Result<(Context, A, Responder), Answer> {
        let args = Value::Object(self.args);
        // The plain deserializer first: tracking the path costs more than the
        // parse itself, and only a failure needs it, to name the field.
        if let Ok(parsed) = A::deserialize(&args) {
            let responder = self.responder;
            self.ctx
                .bind(&responder.called.tool, responder.tool.name, args);
            return Ok((self.ctx, parsed, responder));
        }
        let tracked = serde_path_to_error::deserialize::<_, A>(&args).err();
        Err(refused(
            &self.responder,
            self.routed.as_deref(),
            tracked,
            &args,
        ))
    }

    /// Parses the call's arguments as the whole arguments object of rmcp's
    /// `Parameters<T>`: as `T` reads them, except that an argument its
    /// struct does not declare is refused, naming the ones it does.
    #[allow(clippy::result_large_err)]
    pub fn parse_whole<P: WholeArguments>(self) -> Result<(Context, P, Responder), Answer> {
        let args = Value::Object(self.args);
        if let Ok(parsed) = wrappers::parse_closed::<P>(&args) {
            let responder = self.responder;
            self.ctx
                .bind(&responder.called.tool, responder.tool.name, args);
            return Ok((self.ctx, parsed, responder));
        }
        let tracked = serde_path_to_error::deserialize::<_, P>(Closed(&args)).err();
        Err(refused(
            &self.responder,
            self.routed.as_deref(),
            tracked,
            &args,
        ))
    }

    /// The argument that identifies what a destroy taking rmcp's
    /// `Parameters<T>` deletes, for its envelope: `id`, else `pk`, as the
    /// call sent it (`null` when it sent neither).
    pub fn identifier(&self) -> (&'static str, Value) {
        ["id", "pk"]
            .into_iter()
            .find_map(|key| self.args.get(key).map(|id| (key, id.clone())))
            .unwrap_or(("id", Value::Null))
    }
}

/// The answer to arguments the tool `responder` answers for cannot take: the field to blame and why,
/// as the path-tracking parse found them, and what the tool takes, so that
/// the caller corrects the call without reading `tools/list` again; through
/// a dispatcher, the schema its `params` must match. An unknown argument
/// whose value is an object is most likely the fields wrapped in one more
/// level: the refusal says they go at the top level.
#[cold]
#[inline(never)]
fn refused(
    responder: &Responder,
    routed: Option<&RoutedAction>,
    tracked: Option<serde_path_to_error::Error<serde_json::Error>>,
    args: &Value,
) -> Answer {
    let (at, message) = match tracked {
        Some(error) => {
            let at = error.path().to_string();
            ((at != ".").then_some(at), error.into_inner().to_string())
        }
        // Not reached: the same value just failed to deserialize.
        None => (None, "they do not match its schema".to_owned()),
    };
    let tool = responder.tool.name.into();
    // Through a dispatcher the schema its `params` must match says it all.
    if let Some(routed) = routed {
        let error = CallError::InvalidArguments {
            tool,
            at,
            problem: args::json_terms(&message),
        };
        return Answer::error(CallError::Taught(routed.teach(&error.to_string())));
    }
    let takes = Takes(schema::declared_fields(&(responder.tool.params_schema)()));
    Answer::error(match (&at, args::unknown_field(&message)) {
        (None, Some(field)) => CallError::UnknownArgument {
            wrapped: args.get(field).is_some_and(Value::is_object),
            field: field.to_owned(),
            tool,
            takes,
        },
        _ => CallError::ArgumentsRefused {
            tool,
            at,
            problem: args::json_terms(&message),
            takes,
        },
    })
}

/// An answer in the making: ready already, or still to be worked out (a
/// tool that waits, a result stored for its probe). Awaiting it gives the
/// answer.
#[expect(
    clippy::large_enum_variant,
    reason = "the answer of a tool that never waits is returned in place: boxing it would allocate on every such call"
)]
pub enum Answering {
    /// Answered in place.
    Now(std::future::Ready<Answer>),
    /// Answered once this future is.
    Later(BoxFuture<'static, Answer>),
}

impl Answering {
    pub(crate) fn now(answer: Answer) -> Self {
        Answering::Now(std::future::ready(answer))
    }
}

impl From<Answer> for Answering {
    fn from(answer: Answer) -> Self {
        Answering::now(answer)
    }
}

impl Future for Answering {
    type Output = Answer;

    fn poll(self: Pin<&mut Self>, cx: &mut task::Context<'_>) -> Poll<Answer> {
        match self.get_mut() {
            Answering::Now(ready) => Pin::new(ready).poll(cx),
            Answering::Later(later) => later.as_mut().poll(cx),
        }
    }
}

/// What an answer needs of the tool that runs besides its code: kept once
/// in the tool's definition, so a call carries one pointer to it.
#[derive(Debug)]
pub(crate) struct ToolFacts {
    /// The tool's name on the wire.
    pub(crate) name: &'static str,
    /// Its parameters' schema, which a refusal of its arguments reads for
    /// what it takes.
    pub(crate) params_schema: fn() -> schemars::Schema,
    /// The OAuth scopes a call needs: what a result it keeps asks of every
    /// redemption.
    pub(crate) scopes: &'static [&'static str],
    /// A heavy read's own inline budget (`#[mcp_heavy(inline = N)]`), else
    /// `None` for the server's.
    pub(crate) inline_budget: Option<usize>,
}

/// Shapes a tool's result into its answer: a lean envelope, a probe, or the
/// result itself, and says which in the answer's outcome.
pub struct Responder {
    pub(crate) continuations: Arc<Continuations>,
    /// The tool that runs (the routed one, behind a dispatcher).
    pub(crate) tool: &'static ToolFacts,
    pub(crate) kind: ToolKind,
    /// Who called which tool (the dispatcher, when routed): the owner of
    /// anything this call stores.
    pub(crate) called: Called,
    /// Whether the schema of the tool the caller called discloses
    /// continuation.
    pub(crate) discloses: bool,
    pub(crate) retrieve_published: bool,
    pub(crate) verify: bool,
    /// The server's usage report, if it keeps one: an answer that stands
    /// for another result has that result counted here, where it is at
    /// hand.
    pub(crate) usage: Option<Arc<UsageReport>>,
    /// The bytes of an answer the calling client keeps: no answer built
    /// here is larger where another answer can stand in for it.
    pub(crate) keeps: usize,
    /// The most bytes a bulk write's envelope takes listing its ids.
    pub(crate) envelope_bytes: usize,
}

impl Responder {
    /// A plain read's answer: the result, or a probe when the schema
    /// discloses continuation and the result passes the size backstop.
    ///
    /// Answered in place unless a probe is made: only storing the result
    /// awaits anything.
    pub fn read<T: Serialize>(self, out: Result<T, ToolError>) -> Answering {
        let value = match self.value_or_error(out) {
            Ok(value) => value,
            Err(reply) => return Answering::now(*reply),
        };
        let Some(limit) = self.backstop().filter(|_| self.can_mint()) else {
            return Answering::now(Answer::full(value));
        };
        match data_size(&value) {
            Ok(size) if size <= limit => Answering::now(Answer::full(value)),
            Ok(_) => Answering::Later(Box::pin(async move {
                let job = keep::whole_job(value);
                self.kept_as(false, job, std::future::ready(())).await
            })),
            Err(error) => Answering::now(self.unserializable(error)),
        }
    }

    /// A content answer ([`ContentAnswer`]): the blocks as they are, with
    /// no probe and nothing stored.
    pub fn content<T: ContentAnswer>(self, out: Result<T, ToolError>) -> Answer {
        match out {
            Ok(answer) => Answer::as_built(answer.into_call_tool_result()),
            Err(error) => self.failed(error),
        }
    }

    /// A heavy read's answer: the result, as `job` gives it (and `feeder`
    /// for a stream), answered whole when it is within the inline budget
    /// (or fits the probe's preview), else kept item by item and answered
    /// with a probe.
    pub(crate) async fn kept(self, job: keep::Job, feeder: impl Future<Output = ()>) -> Answer {
        self.kept_as(true, job, feeder).await
    }

    async fn kept_as(
        &self,
        heavy: bool,
        job: keep::Job,
        feeder: impl Future<Output = ()>,
    ) -> Answer {
        let config = self.continuations.heavy();
        keep::Keep {
            continuations: &self.continuations,
            called: &self.called,
            scopes: self.tool.scopes,
            can_mint: self.can_mint(),
            inline_budget: heavy
                .then(|| self.tool.inline_budget.unwrap_or(config.inline_budget))
                .map(|budget| budget.min(config.max_full_bytes).min(self.room())),
            backstop: self.backstop(),
            usage: self.usage.clone(),
        }
        .run(job, feeder)
        .await
    }

    /// The most bytes of compact JSON an answer may take for this client.
    fn room(&self) -> usize {
        self.keeps.saturating_sub(heavy::WRAPPING)
    }

    /// The size over which a plain read answers a probe (with a token
    /// where one may be minted): the server's size backstop, or less where
    /// the client keeps less; `None` with the backstop off.
    fn backstop(&self) -> Option<usize> {
        self.continuations
            .heavy()
            .size_backstop
            .map(|limit| limit.min(self.room()))
    }

    /// A single write's answer: `{id, url?, name?, <light keys>, status_code,
    /// data_size}`, with a token, without one, or the full result.
    pub async fn single<T: Serialize + LightKey>(self, out: Result<T, ToolError>) -> Answer {
        let (value, verify) = match self.accept(out) {
            Ok(accepted) => accepted,
            Err(reply) => return *reply,
        };
        let mut key = KeyFields::new();
        value.light_key(&mut key);
        let reachable = key.has_id() && self.retrieve_published;
        let status_code = self.status_code();
        let note = verify.map(|size| self.verify_note(size, None));
        self.lean(
            &value,
            Origin::SingleWrite,
            || reachable.then_some(()),
            |data_size, reach| {
                let token = match reach {
                    Reach::Token(token) => Some(token),
                    Reach::Tokenless(()) => None,
                };
                let envelope = SingleEnvelope::new(key, status_code, data_size, token).noting(note);
                (LeanEnvelope::Single(envelope), EnvelopeShape::Single)
            },
        )
        .await
    }

    /// A bulk write's answer: `{accepted, status_code, data_size}` with a
    /// token (and `ids` too, while the envelope stays within its bound) or
    /// with every id, in order; else the full result (never a partial `ids`
    /// list). `verify: true` answers the full result when it fits the
    /// client, else its first page and the token that pages the rest.
    pub async fn bulk<T: BulkResult>(self, out: Result<T, ToolError>) -> Answer {
        let (value, verify) = match self.accept(out) {
            Ok(accepted) => accepted,
            Err(reply) => return *reply,
        };
        if let Some(size) = verify
            && self.can_mint()
        {
            return self.verify_page(&value, size).await;
        }
        let items = value.items();
        let status_code = self.status_code();
        // Every id or none: one missing id makes the whole list unreachable.
        let ids = || {
            items
                .iter()
                .map(LightKey::light_id)
                .collect::<Option<Vec<_>>>()
        };
        let bound = self.envelope_bytes.min(self.room());
        let note = verify.map(|size| self.verify_note(size, None));
        self.lean(
            &value,
            Origin::BulkWrite,
            || self.retrieve_published.then(ids).flatten(),
            |data_size, reach| {
                let (envelope, shape) = match reach {
                    Reach::Token(token) => {
                        let envelope = BulkEnvelope::new(
                            items.len(),
                            status_code,
                            data_size,
                            BulkReach::Token(token),
                        );
                        // The ids too, while they keep the envelope within its bound.
                        let envelope = match ids() {
                            Some(ids) => envelope.listing(ids, bound),
                            None => envelope,
                        };
                        (envelope, EnvelopeShape::BulkToken)
                    }
                    Reach::Tokenless(ids) => (
                        BulkEnvelope::new(items.len(), status_code, data_size, BulkReach::Ids(ids)),
                        EnvelopeShape::BulkIds,
                    ),
                };
                (LeanEnvelope::Bulk(envelope.noting(note)), shape)
            },
        )
        .await
    }

    /// `verify: true` on a bulk write whose full result, `size` bytes, is
    /// more than the client keeps: the result kept behind a token, and its
    /// first page, as much as fits, with the token and a note naming the
    /// calls that read the rest.
    async fn verify_page<T: BulkResult>(&self, value: &T, size: usize) -> Answer {
        let (token, stored, full) = match self.stash(value, Origin::BulkWrite).await {
            Ok(kept) => kept,
            Err(Stash::Unserializable(error)) => return self.unserializable(error),
            // No store after all: the envelope, which reaches every id.
            Err(Stash::Refused(_)) => return self.echo_or_note(value, size),
        };
        let items = match serde_json::to_value(value) {
            Ok(Value::Array(items)) => items,
            // An object that carries the list (a built result's structured
            // content): the list, as its token pages it.
            Ok(other) => other.items().to_vec(),
            Err(error) => return self.unserializable(error),
        };
        let config = self.continuations.heavy();
        let total = items.len();
        let sizes: Vec<usize> = items
            .iter()
            .take(config.default_page_size)
            .map(|item| data_size(item).unwrap_or(0))
            .collect();
        let room = heavy::items_room(self.keeps, &Map::new());
        let page_size = heavy::fitting_page_size(&sizes, room, config.default_page_size);
        let first = heavy::Negotiation {
            mode: heavy::Mode::Paginated,
            page: 1,
            page_size,
            page_size_asked: false,
            filter_keys: Vec::new(),
            keeps: self.keeps,
        };
        let page_items: Vec<Value> = items.into_iter().take(page_size).collect();
        let page = match heavy::fit(
            Map::new(),
            page_items,
            &sizes[..page_size.min(sizes.len())],
            total,
            &first,
        ) {
            Ok(page) => page,
            Err(error) => return Answer::error(error.invalid_arguments(&self.called.tool)),
        };
        let note = self.verify_note(size, Some(page_size.min(total)));
        Answer::shaped(
            &page.with_token(&token).with_note(note),
            AnswerShape::Envelope(EnvelopeShape::BulkToken),
        )
        .standing_for(stored as u64)
        .with_token(TokenUse::Minted, self.continuations.store_name())
        .counting(full)
    }

    /// What a `verify: true` answer says when the full result, `size`
    /// bytes, is more than the client keeps: where the rest is, in pages of
    /// `page_size` when it answered a first page.
    fn verify_note(&self, size: usize, page_size: Option<usize>) -> String {
        let keeps = self.keeps;
        let tool = &self.called.tool;
        match page_size {
            Some(page_size) => format!(
                "the full result is {size} bytes, more than this client keeps of an answer \
                 ({keeps} bytes): this is its first page; call {tool} again with this \
                 continuation_token, page 2 and page_size {page_size} for the objects after it"
            ),
            None => format!(
                "the full result is {size} bytes, more than this client keeps of an answer \
                 ({keeps} bytes), so this is its envelope; read the written objects through \
                 their ids, or with the continuation_token where there is one"
            ),
        }
    }

    /// The full result where it fits the client, else the lean answer with
    /// a note: for a write whose `verify` found no store to page from.
    fn echo_or_note<T: BulkResult>(&self, value: &T, size: usize) -> Answer {
        let items = value.items();
        match items
            .iter()
            .map(LightKey::light_id)
            .collect::<Option<Vec<_>>>()
        {
            Some(ids) if self.retrieve_published => {
                let envelope =
                    BulkEnvelope::new(items.len(), self.status_code(), size, BulkReach::Ids(ids))
                        .noting(Some(self.verify_note(size, None)));
                Answer::shaped(
                    &LeanEnvelope::Bulk(envelope),
                    AnswerShape::Envelope(EnvelopeShape::BulkIds),
                )
                .standing_for(size as u64)
            }
            _ => self.echo(value),
        }
    }

    /// The answer of a write whose result is `value`, by the outcome
    /// [`WriteOutcome::decide`] picks: a token where one may be minted and
    /// the store takes the result; else the tokenless envelope where `reach`
    /// finds what lets the caller reach the objects (their ids); else the
    /// full result.
    async fn lean<T: Serialize + ?Sized, R>(
        &self,
        value: &T,
        origin: Origin,
        reach: impl FnOnce() -> Option<R>,
        envelope_of: impl FnOnce(usize, Reach<R>) -> (LeanEnvelope, EnvelopeShape),
    ) -> Answer {
        let mut stored_size = None;
        if self.can_mint() {
            match self.stash(value, origin).await {
                Ok((token, size, full)) => {
                    let (envelope, shape) = envelope_of(size, Reach::Token(token));
                    return Answer::shaped(&envelope, AnswerShape::Envelope(shape))
                        .standing_for(size as u64)
                        .with_token(TokenUse::Minted, self.continuations.store_name())
                        .counting(full);
                }
                Err(Stash::Unserializable(error)) => return self.unserializable(error),
                // Refused: answer as if undisclosed, the size known.
                Err(Stash::Refused(size)) => stored_size = Some(size),
            }
        }
        let reached = reach();
        match (WriteOutcome::decide(false, reached.is_some()), reached) {
            (WriteOutcome::Tokenless, Some(reached)) => {
                match stored_size.map_or_else(|| data_size(value), Ok) {
                    Ok(size) => {
                        let (envelope, shape) = envelope_of(size, Reach::Tokenless(reached));
                        Answer::shaped(&envelope, AnswerShape::Envelope(shape))
                            .standing_for(size as u64)
                            .counting(self.counted(value))
                    }
                    Err(error) => self.unserializable(error),
                }
            }
            _ => self.echo(value),
        }
    }

    /// A destroy's answer: `{id, deleted: true, status_code}`, the id taken
    /// from the call's arguments. `verify: true` answers the function's
    /// own result instead.
    pub async fn destroy<T: Serialize>(
        self,
        id_name: &'static str,
        id: Value,
        out: Result<T, ToolError>,
    ) -> Answer {
        let value = match self.accept(out) {
            Ok((value, _)) => value,
            Err(reply) => return *reply,
        };
        let envelope = DestroyEnvelope::new(id_name, id, self.status_code());
        let answer = Answer::shaped(
            &LeanEnvelope::Destroy(envelope),
            AnswerShape::Envelope(EnvelopeShape::Delete),
        );
        // The function's own result is what the report counts as full; its
        // bytes are not measured, which would serialize it for nothing.
        answer.counting(self.counted(&value))
    }

    /// The counts of `value` in the usage report's encodings, serialized
    /// only when the server keeps a report.
    fn counted<T: Serialize + ?Sized>(&self, value: &T) -> Option<Counts> {
        self.usage.as_ref().map(|usage| usage.count_value(value))
    }

    fn status_code(&self) -> u16 {
        match self.kind {
            ToolKind::Write { status_code, .. } => status_code,
            ToolKind::Read | ToolKind::Heavy => 200,
        }
    }

    /// A token may be minted for this call.
    fn can_mint(&self) -> bool {
        self.continuations.can_mint(self.discloses)
    }

    /// Serializes `value` and keeps it in the store under a fresh token;
    /// with a usage report, its counts too.
    async fn stash<T: Serialize + ?Sized>(
        &self,
        value: &T,
        origin: Origin,
    ) -> Result<(Token, usize, Option<Counts>), Stash> {
        let body = serde_json::to_vec(value).map_err(Stash::Unserializable)?;
        let size = body.len();
        let full = self.usage.as_ref().map(|usage| usage.count_stored(&body));
        self.continuations
            .keep(&self.called, self.tool.scopes, origin, body)
            .await
            .map(|token| (token, size, full))
            .ok_or(Stash::Refused(size))
    }

    /// A write's result, unless the answer is already decided: the tool
    /// failed, or the caller asked for the full result with `verify: true`
    /// and it fits the client (nothing cached, no token). A `verify` whose
    /// full result does not fit comes back with that result's size: the
    /// write answers what fits and the way to the rest.
    fn accept<T: Serialize>(
        &self,
        out: Result<T, ToolError>,
    ) -> Result<(T, Option<usize>), Box<Answer>> {
        match out {
            Err(error) => Err(Box::new(self.failed(error))),
            Ok(value) if self.verify => {
                let echo = self.echo(&value);
                let size = echo.outcome().answer_bytes as usize;
                if size <= self.room() || echo.outcome().error().is_some() {
                    return Err(Box::new(echo));
                }
                Ok((value, Some(size)))
            }
            Ok(value) => Ok((value, None)),
        }
    }

    /// The result as JSON, or the error answer when the tool failed or its
    /// result cannot be serialized.
    fn value_or_error<T: Serialize>(
        &self,
        out: Result<T, ToolError>,
    ) -> Result<Value, Box<Answer>> {
        match out {
            Ok(value) => serde_json::to_value(value).map_err(|e| Box::new(self.unserializable(e))),
            Err(error) => Err(Box::new(self.failed(error))),
        }
    }

    /// The full result, inline (`verify: true`, or outcome 3).
    fn echo<T: Serialize + ?Sized>(&self, value: &T) -> Answer {
        match serde_json::to_value(value) {
            Ok(value) => Answer::full(value),
            Err(error) => self.unserializable(error),
        }
    }

    /// The answer of a tool that returned `Err`: an `isError` result with
    /// its message; over MCP, rmcp's `ErrorData` answers as the JSON-RPC
    /// error it is, as rmcp would have sent it. Cold: the calls that
    /// succeed carry none of it.
    #[cold]
    #[inline(never)]
    pub(crate) fn failed(&self, error: ToolError) -> Answer {
        let error = match crate::call::built::into_built(error) {
            Ok(result) => return Answer::as_built(result),
            Err(error) => error,
        };
        let protocol = error
            .source()
            .and_then(|source| source.downcast_ref::<rmcp::ErrorData>())
            .cloned();
        let answer = Answer::error(CallError::Failed {
            tool: self.tool.name.into(),
            why: error.into(),
        });
        match protocol {
            Some(protocol) => answer.answered_over_mcp_as(protocol),
            None => answer,
        }
    }

    fn unserializable(&self, error: serde_json::Error) -> Answer {
        Answer::error(CallError::Unserializable {
            tool: self.tool.name.into(),
            error,
        })
    }
}

/// How a lean envelope lets the caller reach what was written.
enum Reach<R> {
    /// Outcome 1: the full result is stored behind this token.
    Token(Token),
    /// Outcome 2: what the envelope carries instead (a bulk write's ids).
    Tokenless(R),
}

enum Stash {
    Unserializable(serde_json::Error),
    /// The store could not take it; the result's size is known.
    Refused(usize),
}
