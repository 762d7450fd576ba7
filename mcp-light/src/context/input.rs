//! A tool asking its client: elicitation, sampling, roots.
//!
//! On protocol 2025-11-25 an ask is a request to the client, sent through
//! rmcp's peer, awaited with a timeout. On 2026-07-28 the server cannot
//! send the client requests: a call whose tool asks answers an
//! input-required result instead, and the client retries it with the
//! answers. The tool then runs again from its start, and each ask finds its
//! answer — in the retry's `inputResponses`, or in the sealed
//! `requestState` that carries the answers of earlier rounds — by its key,
//! a name the tool gives it ([`Context::ask`]) or its place among the
//! call's asks (`mcp-light/0`, `mcp-light/1`, …).

use std::borrow::Cow;
use std::future::Future;
use std::sync::{Mutex, OnceLock, PoisonError};

use rmcp::ErrorData;
use rmcp::model::{
    ClientCapabilities, ClientResult, ElicitRequest, ElicitRequestParams, ElicitationAction,
    ElicitationSchema, InputRequest, InputRequests, InputRequiredResult, InputResponses,
    ServerRequest,
};
#[allow(deprecated)]
use rmcp::model::{
    CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult, ListRootsRequest,
    ListRootsResult,
};
use rmcp::service::{PeerRequestOptions, ServiceError};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use tokio::sync::Notify;

use super::Context;
use super::peer::Talk;
use crate::ToolError;
use crate::roundtrip::{self, Carried};

/// What the user did with an elicitation: answered it, declined it, or
/// dismissed it without choosing.
#[derive(Debug, Clone, PartialEq)]
pub enum Elicitation<T> {
    /// The user submitted the form (or, for a URL, agreed to open it).
    Accept(T),
    /// The user explicitly refused.
    Decline,
    /// The user dismissed the request without choosing.
    Cancel,
}

/// One of a tool's asks, named: see [`Context::ask`].
#[derive(Debug)]
pub struct Ask<'c> {
    ctx: &'c Context,
    key: Option<Cow<'c, str>>,
}

/// What an ask wants from the client.
#[allow(deprecated)]
enum Want {
    Elicit(ElicitRequestParams),
    Sample(CreateMessageRequestParams),
    Roots,
}

/// What the client answered.
#[allow(deprecated)]
enum Answer {
    Elicit(rmcp::model::ElicitResult),
    Sample(Box<CreateMessageResult>),
    Roots(ListRootsResult),
}

#[allow(deprecated)]
impl Want {
    /// What the request is, for messages.
    fn what(&self) -> &'static str {
        match self {
            Want::Elicit(ElicitRequestParams::UrlElicitationParams { .. }) => {
                "a URL elicitation (elicitation/create)"
            }
            Want::Elicit(_) => "an elicitation (elicitation/create)",
            Want::Sample(_) => "a sampling request (sampling/createMessage)",
            Want::Roots => "a roots request (roots/list)",
        }
    }

    /// Why the client cannot answer it, if it cannot: the capability it
    /// did not declare, or a request it would refuse.
    fn unanswerable(&self, capabilities: Option<&ClientCapabilities>) -> Option<Unanswerable> {
        let undeclared = |capability: &'static str| Unanswerable::Undeclared {
            capability,
            message: format!(
                "the client did not declare the `{capability}` capability, so it cannot answer \
                 {}; check `ctx.client_capabilities()` first, or do without",
                self.what()
            ),
        };
        let caps = capabilities.cloned().unwrap_or_default();
        match self {
            Want::Elicit(ElicitRequestParams::UrlElicitationParams { .. }) => caps
                .elicitation
                .is_none_or(|e| e.url.is_none())
                .then(|| undeclared("elicitation.url")),
            Want::Elicit(_) => caps
                .elicitation
                // A bare `elicitation: {}` declares form mode.
                .is_none_or(|e| e.form.is_none() && e.url.is_some())
                .then(|| undeclared("elicitation.form")),
            Want::Sample(params) => match &caps.sampling {
                None => Some(undeclared("sampling")),
                Some(sampling)
                    if (params.tools.is_some() || params.tool_choice.is_some())
                        && sampling.tools.is_none() =>
                {
                    Some(undeclared("sampling.tools"))
                }
                Some(_) => params.validate().err().map(|problem| {
                    Unanswerable::Invalid(format!("the sampling request is invalid: {problem}"))
                }),
            },
            Want::Roots => caps.roots.is_none().then(|| undeclared("roots")),
        }
    }

    fn into_input_request(self) -> InputRequest {
        match self {
            Want::Elicit(params) => InputRequest::Elicitation(ElicitRequest::new(params)),
            Want::Sample(params) => InputRequest::CreateMessage(CreateMessageRequest::new(params)),
            Want::Roots => InputRequest::ListRoots(ListRootsRequest::default()),
        }
    }

    fn into_server_request(self) -> ServerRequest {
        match self {
            Want::Elicit(params) => ServerRequest::ElicitRequest(ElicitRequest::new(params)),
            Want::Sample(params) => {
                ServerRequest::CreateMessageRequest(CreateMessageRequest::new(params))
            }
            Want::Roots => ServerRequest::ListRootsRequest(ListRootsRequest::default()),
        }
    }

    fn kind(&self) -> Kind {
        match self {
            Want::Elicit(_) => Kind::Elicit,
            Want::Sample(_) => Kind::Sample,
            Want::Roots => Kind::Roots,
        }
    }
}

/// What kind of answer a request expects.
#[derive(Clone, Copy)]
enum Kind {
    Elicit,
    Sample,
    Roots,
}

impl Kind {
    /// The client's answer, from an `inputResponses` entry.
    fn parse(self, value: Value) -> Result<Answer, serde_json::Error> {
        Ok(match self {
            Kind::Elicit => Answer::Elicit(serde_json::from_value(value)?),
            Kind::Sample => Answer::Sample(Box::new(serde_json::from_value(value)?)),
            Kind::Roots => Answer::Roots(serde_json::from_value(value)?),
        })
    }

    /// The client's answer, from its response to the request.
    fn accept(self, result: ClientResult) -> Option<Answer> {
        match (self, result) {
            (Kind::Elicit, ClientResult::ElicitResult(result)) => Some(Answer::Elicit(result)),
            (Kind::Sample, ClientResult::CreateMessageResult(result)) => {
                Some(Answer::Sample(result))
            }
            (Kind::Roots, ClientResult::ListRootsResult(result)) => Some(Answer::Roots(result)),
            _ => None,
        }
    }
}

/// One call's asks on protocol 2026-07-28: the answers it came with, and
/// the requests its tool made that no answer met yet.
#[derive(Debug)]
pub(crate) struct Rounds {
    responses: Option<InputResponses>,
    state: Option<String>,
    /// What the sealed state is bound to, set before the tool runs.
    binding: OnceLock<[u8; 32]>,
    inner: Mutex<RoundsInner>,
    /// Signalled when an ask is left waiting, or refused the call.
    waiting: Notify,
}

#[derive(Debug, Default)]
struct RoundsInner {
    /// The answers of earlier rounds, once the state was opened.
    carried: Option<Carried>,
    /// Every answer this round's asks found, carried into the next round.
    used: Carried,
    /// The requests no answer met yet.
    pending: InputRequests,
    /// Why the call is refused instead: a forged state, an answer of the
    /// wrong shape.
    refusal: Option<ErrorData>,
    /// How many asks the tool made so far.
    asks: usize,
}

/// What an ask comes to.
enum Found {
    Answer(Answer),
    /// Left waiting for the next round, or the call is refused: the tool
    /// never gets past this ask in this round.
    Wait,
}

impl Rounds {
    pub(crate) fn new(responses: Option<InputResponses>, state: Option<String>) -> Rounds {
        Rounds {
            responses,
            state,
            binding: OnceLock::new(),
            inner: Mutex::new(RoundsInner::default()),
            waiting: Notify::new(),
        }
    }

    /// Binds the state to the caller, the tools and the arguments.
    pub(crate) fn bind(&self, identity: &str, called: &str, tool: &str, args: &Map<String, Value>) {
        let _ = self
            .binding
            .set(roundtrip::binding(identity, called, tool, args));
    }

    fn binding(&self) -> &[u8] {
        self.binding.get().map_or(&[], |binding| binding.as_slice())
    }

    /// The answer to the ask `key` wanting `want`, or none yet.
    fn find(&self, talk: &Talk, key: Option<&str>, want: Want) -> Found {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        let key = match key {
            Some(key) => key.to_owned(),
            None => format!("mcp-light/{}", inner.asks),
        };
        inner.asks += 1;
        if inner.refusal.is_some() {
            return Found::Wait;
        }
        if inner.carried.is_none() {
            let carried = match &self.state {
                None => Some(Carried::default()),
                Some(sealed) => talk.talkback.open(sealed, self.binding()),
            };
            match carried {
                Some(carried) => inner.carried = Some(carried),
                None => return self.refuse(&mut inner, forged_state()),
            }
        }
        let answer = inner
            .carried
            .as_ref()
            .and_then(|carried| carried.answers.get(&key))
            .or_else(|| self.responses.as_ref().and_then(|r| r.get(&key)))
            .cloned();
        match answer {
            Some(value) => match want.kind().parse(value.clone()) {
                Ok(answer) => {
                    inner.used.answers.insert(key, value);
                    Found::Answer(answer)
                }
                Err(error) => {
                    let problem = format!(
                        "inputResponses[\"{key}\"] is not an answer to {}: {error}; \
                         send the client's result for that request",
                        want.what()
                    );
                    self.refuse(&mut inner, ErrorData::invalid_params(problem, None))
                }
            },
            None => {
                inner.pending.insert(key, want.into_input_request());
                self.waiting.notify_one();
                Found::Wait
            }
        }
    }

    fn refuse(&self, inner: &mut RoundsInner, error: ErrorData) -> Found {
        inner.refusal = Some(error);
        self.waiting.notify_one();
        Found::Wait
    }

    /// Refuses the whole call with `error` (the first refusal stands); the
    /// tool is stopped at the ask that caused it.
    fn refuse_call(&self, error: ErrorData) {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if inner.refusal.is_none() {
            self.refuse(&mut inner, error);
        }
    }

    /// Completes when an ask is left waiting or refused the call.
    pub(crate) fn waiting(&self) -> impl Future<Output = ()> + '_ {
        self.waiting.notified()
    }

    /// The answer of a call whose tool was stopped at its asks: the
    /// input-required result asking for what is missing, with the answers so
    /// far sealed in its `requestState`, or the error that refuses the call.
    pub(crate) fn input_required(&self, talk: &Talk) -> Result<InputRequiredResult, ErrorData> {
        let mut inner = self.inner.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(refusal) = inner.refusal.take() {
            return Err(refusal);
        }
        let sealed = talk
            .talkback
            .seal(&inner.used, self.binding())
            .map_err(|error| {
                ErrorData::internal_error(
                    format!("the request state cannot be sealed: {error}"),
                    None,
                )
            })?;
        let pending = std::mem::take(&mut inner.pending);
        Ok(InputRequiredResult::new(Some(pending), Some(sealed)))
    }
}

/// Why a client cannot answer an ask.
enum Unanswerable {
    /// It did not declare `capability` (a dotted path such as
    /// `sampling.tools`).
    Undeclared {
        capability: &'static str,
        message: String,
    },
    /// It would refuse the request as sent.
    Invalid(String),
}

/// The protocol's missing-capability error (-32021) for `capability`, a
/// dotted path: `data.requiredCapabilities` is the client capabilities
/// object that declares it, `{"sampling": {"tools": {}}}` for
/// `sampling.tools`.
fn missing_capability(capability: &str, message: String) -> ErrorData {
    let required = capability
        .rsplit('.')
        .fold(Value::Object(Map::new()), |inner, part| {
            let mut outer = Map::new();
            outer.insert(part.to_owned(), inner);
            Value::Object(outer)
        });
    let mut data = Map::new();
    data.insert("requiredCapabilities".to_owned(), required);
    ErrorData::new(
        rmcp::model::ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
        message,
        Some(Value::Object(data)),
    )
}

/// The one error every refused `requestState` answers.
fn forged_state() -> ErrorData {
    ErrorData::invalid_params(
        "the requestState of this tools/call does not verify: it was altered, has expired, \
         or was issued for another caller, tool or arguments; call the tool again without \
         requestState and inputResponses",
        None,
    )
}

impl Context {
    /// Names the next ask `key`, for a client that answers by name: on
    /// protocol 2026-07-28 it becomes the key of the request in the
    /// input-required result and of the answer in the retry's
    /// `inputResponses`. Unnamed asks are keyed by their place among the
    /// call's asks (`mcp-light/0`, `mcp-light/1`, …). Keys are unique
    /// within a call. On 2025-11-25 the name is not sent.
    ///
    /// ```
    /// use mcp_light::prelude::*;
    /// use mcp_light::Elicitation;
    ///
    /// #[derive(Deserialize, JsonSchema)]
    /// struct Name { name: String }
    ///
    /// /// Greets the user by name.
    /// #[mcp_tool]
    /// async fn greet_user(ctx: &Context) -> Result<String, ToolError> {
    ///     match ctx.ask("user_name").elicit::<Name>("What is your name?").await? {
    ///         Elicitation::Accept(Name { name }) => Ok(format!("Hello, {name}!")),
    ///         Elicitation::Decline | Elicitation::Cancel => Ok("Hello!".to_owned()),
    ///     }
    /// }
    /// ```
    pub fn ask<'c>(&'c self, key: impl Into<Cow<'c, str>>) -> Ask<'c> {
        Ask {
            ctx: self,
            key: Some(key.into()),
        }
    }

    fn unnamed(&self) -> Ask<'_> {
        Ask {
            ctx: self,
            key: None,
        }
    }

    /// Asks the user to fill in a form whose schema is `T`'s (form-mode
    /// elicitation): `Accept(T)` with the answer, `Decline` or `Cancel`.
    /// `T` is an object of primitive fields (strings, numbers, booleans,
    /// enums), as MCP allows.
    ///
    /// Fails with an error naming the capability when the client did not
    /// declare form elicitation, when it does not answer within the server's
    /// ask timeout ([`ServerBuilder::with_ask_timeout`](crate::ServerBuilder::with_ask_timeout)),
    /// or when the call came through [`Server::call`](crate::Server::call),
    /// with no client to ask.
    ///
    /// On protocol 2026-07-28 the call answers an input-required result and
    /// the tool runs again, from its start, once the client retries with the
    /// answer: whatever the tool does before an ask runs once per round, so
    /// writes belong after the asks.
    pub async fn elicit<T: DeserializeOwned + JsonSchema>(
        &self,
        message: impl Into<String>,
    ) -> Result<Elicitation<T>, ToolError> {
        self.unnamed().elicit(message).await
    }

    /// Like [`Context::elicit`], with the requested schema written by hand
    /// (defaults, titled enums, multi-select): the answer is the submitted
    /// object as it came. Fails when `schema` is not an elicitation schema
    /// (an object of primitive properties).
    pub async fn elicit_schema(
        &self,
        message: impl Into<String>,
        schema: Value,
    ) -> Result<Elicitation<Map<String, Value>>, ToolError> {
        self.unnamed().elicit_schema(message, schema).await
    }

    /// Asks the user to open `url` (URL-mode elicitation), for what must not
    /// pass through the client: credentials, payment, an OAuth consent.
    /// `elicitation_id` names the interaction. `Accept(())` means the user
    /// agreed to open it, not that they finished there.
    pub async fn elicit_url(
        &self,
        message: impl Into<String>,
        url: impl Into<String>,
        elicitation_id: impl Into<String>,
    ) -> Result<Elicitation<()>, ToolError> {
        self.unnamed()
            .elicit_url(message, url, elicitation_id)
            .await
    }

    /// Asks the client's model for a completion (`sampling/createMessage`).
    /// rmcp marks the sampling types deprecated, as the protocol plans to
    /// drop sampling; a tool using them allows `deprecated`.
    #[allow(deprecated)]
    pub async fn sample(
        &self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, ToolError> {
        self.unnamed().sample(params).await
    }

    /// Asks the client for its roots (`roots/list`): the directories or
    /// files it lets the server work in.
    #[allow(deprecated)]
    pub async fn roots(&self) -> Result<ListRootsResult, ToolError> {
        self.unnamed().roots().await
    }
}

impl Ask<'_> {
    /// [`Context::elicit`], under this ask's name.
    pub async fn elicit<T: DeserializeOwned + JsonSchema>(
        self,
        message: impl Into<String>,
    ) -> Result<Elicitation<T>, ToolError> {
        let schema = ElicitationSchema::from_type::<T>().map_err(|error| {
            ToolError::new(format!(
                "`{}` cannot be asked for: its schema is not an elicitation schema \
                 (an object of primitive fields): {error}",
                std::any::type_name::<T>()
            ))
        })?;
        let form = self.form(message.into(), schema).await?;
        Ok(match form {
            Elicitation::Accept(content) => {
                let content = Value::Object(content);
                Elicitation::Accept(serde_json::from_value(content).map_err(|error| {
                    ToolError::new(format!(
                        "the user's answer does not match `{}`: {error}",
                        std::any::type_name::<T>()
                    ))
                })?)
            }
            Elicitation::Decline => Elicitation::Decline,
            Elicitation::Cancel => Elicitation::Cancel,
        })
    }

    /// [`Context::elicit_schema`], under this ask's name.
    pub async fn elicit_schema(
        self,
        message: impl Into<String>,
        schema: Value,
    ) -> Result<Elicitation<Map<String, Value>>, ToolError> {
        let schema: ElicitationSchema = serde_json::from_value(schema).map_err(|error| {
            ToolError::new(format!(
                "the requested schema is not an elicitation schema (an object of primitive \
                 properties): {error}"
            ))
        })?;
        self.form(message.into(), schema).await
    }

    async fn form(
        self,
        message: String,
        requested_schema: ElicitationSchema,
    ) -> Result<Elicitation<Map<String, Value>>, ToolError> {
        let params = ElicitRequestParams::FormElicitationParams {
            meta: None,
            message,
            requested_schema,
        };
        let Answer::Elicit(result) = self.send(Want::Elicit(params)).await? else {
            unreachable!("an elicitation is answered by an elicitation result")
        };
        Ok(match result.action {
            ElicitationAction::Accept => match result.content {
                None | Some(Value::Null) => Elicitation::Accept(Map::new()),
                Some(Value::Object(content)) => Elicitation::Accept(content),
                Some(other) => {
                    return Err(ToolError::new(format!(
                        "the client accepted the elicitation with content that is not an \
                         object: {other}"
                    )));
                }
            },
            ElicitationAction::Decline => Elicitation::Decline,
            // `Cancel`, and any action a later protocol adds.
            _ => Elicitation::Cancel,
        })
    }

    /// [`Context::elicit_url`], under this ask's name.
    pub async fn elicit_url(
        self,
        message: impl Into<String>,
        url: impl Into<String>,
        elicitation_id: impl Into<String>,
    ) -> Result<Elicitation<()>, ToolError> {
        let params = ElicitRequestParams::UrlElicitationParams {
            meta: None,
            message: message.into(),
            url: url.into(),
            elicitation_id: elicitation_id.into(),
        };
        let Answer::Elicit(result) = self.send(Want::Elicit(params)).await? else {
            unreachable!("an elicitation is answered by an elicitation result")
        };
        Ok(match result.action {
            ElicitationAction::Accept => Elicitation::Accept(()),
            ElicitationAction::Decline => Elicitation::Decline,
            // `Cancel`, and any action a later protocol adds.
            _ => Elicitation::Cancel,
        })
    }

    /// [`Context::sample`], under this ask's name.
    #[allow(deprecated)]
    pub async fn sample(
        self,
        params: CreateMessageRequestParams,
    ) -> Result<CreateMessageResult, ToolError> {
        let Answer::Sample(result) = self.send(Want::Sample(params)).await? else {
            unreachable!("a sampling request is answered by a message")
        };
        Ok(*result)
    }

    /// [`Context::roots`], under this ask's name.
    #[allow(deprecated)]
    pub async fn roots(self) -> Result<ListRootsResult, ToolError> {
        let Answer::Roots(result) = self.send(Want::Roots).await? else {
            unreachable!("a roots request is answered by roots")
        };
        Ok(result)
    }

    /// Puts `want` to the client and awaits its answer.
    async fn send(self, want: Want) -> Result<Answer, ToolError> {
        let Some(talk) = self.ctx.talk.as_deref() else {
            return Err(ToolError::new(format!(
                "this call has no MCP client to answer {}: it was made with Server::call, \
                 not over a transport",
                want.what()
            )));
        };
        match want.unanswerable(talk.client_capabilities().as_ref()) {
            None => {}
            // On 2026-07-28 the protocol has an error for this: the call is
            // refused with it, naming the capability the tool needs.
            Some(Unanswerable::Undeclared {
                capability,
                message,
            }) if talk.rounds.is_some() => {
                if let Some(rounds) = &talk.rounds {
                    rounds.refuse_call(missing_capability(capability, message));
                }
                return std::future::pending().await;
            }
            Some(Unanswerable::Undeclared { message, .. } | Unanswerable::Invalid(message)) => {
                return Err(ToolError::new(message));
            }
        }
        match &talk.rounds {
            Some(rounds) => match rounds.find(talk, self.key.as_deref(), want) {
                Found::Answer(answer) => Ok(answer),
                // The server stops the tool here and answers for it.
                Found::Wait => std::future::pending().await,
            },
            None => request(talk, want).await,
        }
    }
}

/// Sends `want` to the client as a request (protocol 2025-11-25).
async fn request(talk: &Talk, want: Want) -> Result<Answer, ToolError> {
    let what = want.what();
    let timeout = talk.ask_timeout();
    let options = PeerRequestOptions::with_timeout(timeout);
    let kind = want.kind();
    let sent = match talk
        .request
        .peer
        .send_request_with_option(want.into_server_request(), options)
        .await
    {
        Ok(handle) => handle.await_response().await,
        Err(error) => Err(error),
    };
    match sent {
        Ok(result) => kind.accept(result).ok_or_else(|| {
            ToolError::new(format!(
                "the client answered {what} with the wrong kind of result"
            ))
        }),
        Err(ServiceError::Timeout { .. }) => Err(ToolError::new(format!(
            "the client did not answer {what} within {timeout:?} (the server's ask timeout, \
             ServerBuilder::with_ask_timeout)"
        ))),
        Err(ServiceError::McpError(error)) => Err(ToolError::new(format!(
            "the client refused {what}: {}",
            error.message
        ))),
        Err(error) => Err(ToolError::new(format!(
            "{what} to the client failed: {error}"
        ))),
    }
}
