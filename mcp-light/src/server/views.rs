//! The viewer's own tools answered (the `apps` feature): each a
//! redemption of the token a tool's answer carried (the tool named, or the
//! one the token was kept for), for the caller it was minted for, or the
//! written objects fetched through the named write's retrieve tool, each
//! call of it checked as any call is. What the tools are and how they are
//! listed is [`crate::apps`]'s.

use std::borrow::Cow;

use rmcp::model::CallToolResult;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::apps::{IDS, TOOL, ViewTool};
use crate::call::args;
use crate::call::outcome::{Answer, AnswerShape, CallError};
use crate::catalog::tool::ToolDef;
use crate::context::{Caller, Stopped};
use crate::continuation::Called;
use crate::principal::GrantedScopes;
use crate::tool::schema::CONTINUATION_TOKEN;

use super::call::{Call, json_kind, scope_refusal};
use super::{Client, NameTarget, Server};

impl Server {
    /// Answers a call of `view` with `arguments` from `caller`, who called
    /// the tool whose answer it reads; `granted` are the scopes the call
    /// is checked against (the read tool's, and a retrieve tool's where
    /// one is called), and `cancelled` stops it.
    pub(crate) async fn call_view(
        &self,
        view: ViewTool,
        arguments: Value,
        caller: Caller,
        granted: Option<GrantedScopes>,
        cancelled: &CancellationToken,
        span: &tracing::Span,
    ) -> Result<Answer, Stopped> {
        let name = view.name();
        let refuse = |problem: String, at: Option<&str>| view_refusal(name, problem, at);
        let mut args = match self.view_arguments(view, arguments) {
            Ok(args) => args,
            Err(refused) => return Ok(*refused),
        };
        let token = args::take(&mut args, CONTINUATION_TOKEN).filter(|token| !token.is_null());
        let tool = args::take(&mut args, TOOL);
        let read = match self.read_tool(name, tool, token.as_ref(), &caller).await {
            Ok(read) => read,
            Err(refused) => return Ok(refused),
        };
        let Some((viewed, def)) = self.viewed(&read) else {
            return Ok(refuse(
                format!("`{read}` is no tool of this server with a view"),
                Some(TOOL),
            ));
        };
        // The scopes the model's own redemption of the token needs.
        if let (Some(def), Some(granted)) = (def, granted.as_ref())
            && let Some(refused) = scope_refusal(def, granted)
        {
            return Ok(refused);
        }
        let ids = args::take(&mut args, IDS).filter(|ids| !ids.is_null());
        match (token, ids) {
            (Some(token), None) => {
                args.insert("mode".to_owned(), Value::from(view.mode()));
                let called = Called::new(caller, viewed);
                Ok(self
                    .continuations()
                    // The viewer shows a person what the model did not
                    // read: its pages answer as much as a whole answer may.
                    .redeem(
                        &called,
                        token,
                        args,
                        None,
                        granted.as_ref(),
                        self.continuations().heavy().max_full_bytes,
                    )
                    .await)
            }
            (None, Some(Value::Array(ids))) if view == ViewTool::Fetch => {
                let heavy = self.continuations().heavy();
                if ids.len() > heavy.max_page_size {
                    return Ok(refuse(
                        format!(
                            "{} ids is more than a page of {}: fetch them a page at a time",
                            ids.len(),
                            heavy.max_page_size
                        ),
                        Some(IDS),
                    ));
                }
                self.retrieved(&read, ids, caller, granted, cancelled, span)
                    .await
            }
            (Some(_), Some(_)) => Ok(refuse(
                "send a continuation_token or ids, not both".to_owned(),
                Some(IDS),
            )),
            (None, Some(_)) if view == ViewTool::Fetch => {
                Ok(refuse("expected a list of ids".to_owned(), Some(IDS)))
            }
            (None, _) => Ok(refuse(
                "expected the continuation_token of the answer to show".to_owned(),
                Some(CONTINUATION_TOKEN),
            )),
        }
    }

    /// A view's arguments: a JSON object (or `null` for none) of `tool`,
    /// `continuation_token` and the view's own fields, within the bounds
    /// on argument strings; otherwise the refusal that says so.
    fn view_arguments(
        &self,
        view: ViewTool,
        arguments: Value,
    ) -> Result<Map<String, Value>, Box<Answer>> {
        let name = view.name();
        let args = match arguments {
            Value::Object(args) => args,
            Value::Null => Map::new(),
            other => {
                return Err(Box::new(Answer::error(CallError::NotAnObject {
                    tool: Cow::Borrowed(name),
                    found: json_kind(&other),
                })));
            }
        };
        if let Err(message) = args::check_strings(name, &args, self.limits().max_argument_string) {
            return Err(Box::new(Answer::error(CallError::Bounds(message))));
        }
        if let Some(unknown) = args.keys().find(|key| {
            *key != TOOL && *key != CONTINUATION_TOKEN && !view.fields().contains(&key.as_str())
        }) {
            let takes = [TOOL, CONTINUATION_TOKEN]
                .iter()
                .chain(view.fields())
                .copied()
                .collect::<Vec<_>>()
                .join(", ");
            return Err(Box::new(view_refusal(
                name,
                format!("`{unknown}` is not a field of {name}: it takes {takes}"),
                None,
            )));
        }
        Ok(args)
    }

    /// The tool whose answer the view `name` shows: the `tool` sent, or
    /// without it the tool `token` was kept through (the host need not
    /// have said which tool answered).
    async fn read_tool(
        &self,
        name: &'static str,
        tool: Option<Value>,
        token: Option<&Value>,
        caller: &Caller,
    ) -> Result<String, Answer> {
        match (tool, token) {
            (Some(Value::String(read)), _) => Ok(read),
            (None | Some(Value::Null), Some(token)) => {
                match self.continuations().kept_through(caller, token).await {
                    Ok(Some(read)) => Ok(read),
                    Ok(None) => Err(view_refusal(
                        name,
                        "this continuation token is unknown, has expired, or was issued to \
                         another caller; call the tool that answered again for a new one"
                            .to_owned(),
                        Some(CONTINUATION_TOKEN),
                    )),
                    Err(error) => Err(Answer::error(CallError::StoreUnavailable {
                        tool: Cow::Borrowed(name),
                        error,
                    })),
                }
            }
            _ => Err(view_refusal(
                name,
                "expected the name of the tool whose answer to show (it may be left out \
                 beside a continuation_token)"
                    .to_owned(),
                Some(TOOL),
            )),
        }
    }

    /// The name a token of `tool`'s answers is kept under, when `tool` is
    /// a published tool or dispatcher with a view, and the tool's
    /// definition (a dispatcher's call names none).
    fn viewed(&self, tool: &str) -> Option<(Cow<'static, str>, Option<&'static ToolDef>)> {
        match self.named(tool)? {
            NameTarget::Tool { tool: place, .. } => {
                let def = self.registry().at(place).def();
                def.has_view()
                    .then_some((Cow::Borrowed(def.name()), Some(def)))
            }
            NameTarget::Dispatcher { dispatcher, .. } => {
                let dispatcher = &self.dispatchers()[dispatcher];
                crate::apps::dispatcher_has_view(dispatcher, self.registry())
                    .then(|| (Cow::Owned(dispatcher.name().to_owned()), None))
            }
            NameTarget::Routed { .. } => None,
        }
    }

    /// The objects `write` wrote under `ids`, each from a call of its
    /// retrieve tool by `caller`, checked as any call of it is.
    async fn retrieved(
        &self,
        write: &str,
        ids: Vec<Value>,
        caller: Caller,
        granted: Option<GrantedScopes>,
        cancelled: &CancellationToken,
        span: &tracing::Span,
    ) -> Result<Answer, Stopped> {
        let retrieve = self
            .registry()
            .get(write)
            .and_then(|written| written.def().retrieve())
            .and_then(|name| self.registry().get(name));
        let Some(retrieve) = retrieve else {
            return Ok(Answer::error(CallError::InvalidArguments {
                tool: Cow::Borrowed(ViewTool::Fetch.name()),
                at: Some(TOOL.to_owned()),
                problem: format!("`{write}` names no retrieve tool to fetch its objects by id"),
            }));
        };
        // The retrieve tool's one required argument is the id.
        let required = retrieve
            .input_schema()
            .get("required")
            .and_then(Value::as_array);
        let Some([Value::String(field)]) = required.map(Vec::as_slice) else {
            return Ok(Answer::error(CallError::InvalidArguments {
                tool: Cow::Borrowed(ViewTool::Fetch.name()),
                at: Some(TOOL.to_owned()),
                problem: format!(
                    "the retrieve tool `{}` does not take one id alone",
                    retrieve.name()
                ),
            }));
        };
        let named = self.named(retrieve.name());
        let mut items = Vec::with_capacity(ids.len());
        for id in ids {
            let arguments = json!({ field.as_str(): id });
            let call = Call::new(
                named,
                retrieve.name(),
                arguments,
                caller.clone(),
                granted.clone(),
                span,
            );
            let answer = self
                .call_over_mcp(call, Client::Quiet(cancelled), false)
                .await?;
            items.push(retrieved_item(answer.into_result()));
        }
        let total = items.len();
        Ok(Answer::shaped(
            &json!({"items": items, "total": total}),
            AnswerShape::Full,
        ))
    }
}

/// One retrieve call's object, or its error's text under `error`.
fn retrieved_item(result: CallToolResult) -> Value {
    let text = || {
        result
            .content
            .iter()
            .filter_map(|content| content.as_text().map(|text| text.text.clone()))
            .collect::<Vec<_>>()
            .join("\n")
    };
    if result.is_error == Some(true) {
        return json!({"error": text()});
    }
    match &result.structured_content {
        Some(value) => value.clone(),
        None => serde_json::from_str(&text()).unwrap_or_else(|_| Value::String(text())),
    }
}

/// The refusal of a call of the view `name` whose argument `at` (or whose
/// arguments, `None`) has the `problem`.
fn view_refusal(name: &'static str, problem: String, at: Option<&str>) -> Answer {
    Answer::error(CallError::InvalidArguments {
        tool: Cow::Borrowed(name),
        at: at.map(str::to_owned),
        problem,
    })
}
