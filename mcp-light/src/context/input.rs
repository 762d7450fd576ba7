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

use rmcp::ErrorData;
#[allow(deprecated)]
use rmcp::model::{CreateMessageRequestParams, CreateMessageResult, ListRootsResult};
use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema};
use rmcp::service::{PeerRequestOptions, ServiceError};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::Context;
use super::peer::Talk;
use super::rounds::{Found, Parked};
use super::want::{Roots, Unanswerable, Want};
use crate::error::tool::ToolError;

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
    /// use mcp_light::context::Elicitation;
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
        let result = self.send(params).await?;
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
        let result = self.send(params).await?;
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
        self.send(params).await
    }

    /// [`Context::roots`], under this ask's name.
    #[allow(deprecated)]
    pub async fn roots(self) -> Result<ListRootsResult, ToolError> {
        self.send(Roots).await
    }

    /// Puts `want` to the client and awaits its answer.
    async fn send<W: Want>(self, want: W) -> Result<W::Answer, ToolError> {
        let Some(talk) = self.ctx.talk.as_deref() else {
            return Err(ToolError::new(format!(
                "this call has no MCP client to answer {}: it was made with Server::call, \
                 not over a transport",
                want.what()
            )));
        };
        let capabilities = talk.client_capabilities().unwrap_or_default();
        match want.unanswerable(&capabilities) {
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
            Some(rounds) => match rounds.find(&talk.talkback, self.key.as_deref(), want) {
                Found::Answer(answer) => Ok(answer),
                // The server stops the tool here and answers for it.
                Found::Wait => std::future::pending().await,
                Found::InTask(parked) => {
                    let Parked {
                        task,
                        key,
                        request,
                        what,
                    } = *parked;
                    let shown = key.clone();
                    let Some(value) = task.answer(key, request).await else {
                        // The task ended (cancelled): the tool is stopped.
                        return std::future::pending().await;
                    };
                    serde_json::from_value(value).map_err(|error| {
                        ToolError::new(format!(
                            "the answer under `{shown}` is not an answer to {what}: {error}"
                        ))
                    })
                }
            },
            None => request(talk, want).await,
        }
    }
}

/// Sends `want` to the client as a request (protocol 2025-11-25).
async fn request<W: Want>(talk: &Talk, want: W) -> Result<W::Answer, ToolError> {
    let what = want.what();
    let timeout = talk.ask_timeout();
    let options = PeerRequestOptions::with_timeout(timeout);
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
        Ok(result) => W::answer(result).ok_or_else(|| {
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
