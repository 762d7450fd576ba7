//! The tools of a handler composed with
//! [`ServerBuilder::with_handler`](crate::ServerBuilder::with_handler),
//! answered within what the calling client keeps when the server says so
//! ([`HandlerTools::Kept`]).
//!
//! A kept tool publishes `continuation_token` and the negotiation fields
//! beside its own arguments, as a heavy read does, and no output schema:
//! the handler's would not admit a probe or a page. A call carrying a token
//! is served from the store (bound to the caller and the tool, like every
//! entry) and never reaches the handler; any other call does, and an
//! answer larger than the client keeps is kept whole and answered with a
//! probe: its `structuredContent`, else the JSON of a text block that is
//! JSON, else its text as a list of pieces (each line with its newline, a
//! long line cut), which page and join back into the text. An error, an
//! answer that fits, and an
//! answer of other content pass as the handler gave them. A tool whose own
//! schema already names one of the fields is left as it is: the token
//! would have no slot of its own to come back in.

use std::borrow::Cow;

use rmcp::model::{CallToolResult, Tool};
use serde_json::{Map, Value};

use super::Server;
use super::handler_config::{HandlerTool, HandlerTools};
use super::handler_writes::{HandlerWrite, Named, NamedList, WriteCall, facts_of, interned};
use crate::call::built;
use crate::call::outcome::Answer;
use crate::context::Caller;
use crate::continuation::{Called, Continuations, keep};
use crate::heavy;
use crate::invoke::Responder;
use crate::tool::kind::{ToolKind, WriteKind};
use crate::tool::schema::VERIFY;
use crate::writes::light_key::BulkResult;

impl Server {
    /// What the server does with the handler's tools' answers.
    pub fn handler_tools(&self) -> HandlerTools {
        self.inner.handler_tools.all
    }

    /// Whether a call of the handler's tools may become a task
    /// ([`ServerBuilder::with_handler_tasks`](crate::ServerBuilder::with_handler_tasks)).
    pub(crate) fn tasks_handler_calls(&self) -> bool {
        self.inner.handler_tools.tasks
    }

    /// Whether `tool`, the handler's, is kept: the server keeps it (all the
    /// handler's tools, or this one by name) and the tool's own schema
    /// leaves the negotiation fields free.
    pub(crate) fn keeps_handler_tool(&self, tool: &Tool) -> bool {
        self.keeps_tool_of_handler(tool, false)
    }

    /// Whether `tool`, the handler's, is kept: as
    /// [`keeps_handler_tool`](Server::keeps_handler_tool) says, or, when it
    /// is `routed` by a dispatcher (whose schema has the token's slot),
    /// unless it is answered as the handler answers it by name.
    pub(crate) fn keeps_tool_of_handler(&self, tool: &Tool, routed: bool) -> bool {
        let set = &self.inner.handler_tools;
        let kept = match set.each.get(tool.name.as_ref()) {
            Some(HandlerTool::AsAnswered) => false,
            Some(HandlerTool::KeptAt(_) | HandlerTool::Write(_)) => true,
            None => routed || set.all == HandlerTools::Kept,
        };
        let writes = matches!(
            set.each.get(tool.name.as_ref()),
            Some(HandlerTool::Write(_))
        );
        kept && !tool
            .input_schema
            .get("properties")
            .and_then(Value::as_object)
            .is_some_and(|properties| {
                heavy::NEGOTIATION_FIELDS
                    .iter()
                    .chain(writes.then_some(&VERIFY))
                    .any(|field| properties.contains_key(*field))
            })
    }

    /// Whether any of the handler's tools may be kept: all of them, or
    /// some by name.
    pub(crate) fn keeps_handler_tools(&self) -> bool {
        let set = &self.inner.handler_tools;
        set.all == HandlerTools::Kept
            || set
                .each
                .values()
                .any(|how| !matches!(how, HandlerTool::AsAnswered))
    }

    /// The handler's tools as `tools/list` shows them: a kept one with the
    /// negotiation fields beside its own arguments, and without the
    /// handler's output schema, which a probe or a page does not match (a
    /// client that validates `structuredContent` against it would refuse
    /// them).
    pub(crate) fn handler_tools_listed(&self, tools: &mut [Tool]) {
        let set = &self.inner.handler_tools;
        if set.all != HandlerTools::Kept && set.each.is_empty() {
            return;
        }
        let fields = heavy::negotiation_properties(self.inner.continuations.heavy());
        for tool in tools
            .iter_mut()
            .filter(|tool| self.keeps_handler_tool(tool))
        {
            let schema = std::sync::Arc::make_mut(&mut tool.input_schema);
            let properties = schema
                .entry("properties")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(properties) = properties {
                if let Some(HandlerTool::Write(_)) = set.each.get(tool.name.as_ref()) {
                    properties.insert(VERIFY.to_owned(), crate::tool::schema::verify_property());
                }
                properties.extend(fields.clone());
            }
            tool.output_schema = None;
        }
    }

    /// A call of the kept handler tool `tool`, before the handler: its
    /// token redeemed, or its negotiation fields (or a write's `verify`)
    /// refused without one, as `Err`; `Ok` when the call goes on to the
    /// handler, with what a write took off its arguments.
    ///
    /// `owner` is the tool the caller called: `tool` itself, or the
    /// dispatcher that routed to it, which owns what the call keeps.
    pub(crate) async fn before_handler(
        &self,
        (tool, owner): (&str, &str),
        args: &mut Map<String, Value>,
        caller: &Caller,
        keeps: usize,
    ) -> Result<Option<WriteCall>, Answer> {
        if let Some(redeemed) = self.redeemed_for(owner, args, caller, keeps).await {
            return Err(redeemed);
        }
        if let Err(error) = heavy::refuse_negotiation(args) {
            return Err(Answer::error(
                error.invalid_arguments(&Cow::Owned(owner.to_owned())),
            ));
        }
        match self.inner.handler_tools.each.get(tool) {
            Some(HandlerTool::Write(write)) => WriteCall::take(write, tool, args)
                .map(Some)
                .map_err(|refused| *refused),
            _ => Ok(None),
        }
    }

    /// The answer of a call of `owner` (a kept handler tool, or a
    /// dispatcher over them) that carries a token: what the token stands
    /// for, in the mode the call asks; `None` without a token.
    pub(crate) async fn redeemed_for(
        &self,
        owner: &str,
        args: &mut Map<String, Value>,
        caller: &Caller,
        keeps: usize,
    ) -> Option<Answer> {
        let token = Continuations::take_token(true, args)?;
        let called = Called::new(caller.clone(), Cow::Owned(owner.to_owned()));
        let usage = self.inner.usage.as_deref();
        let args = std::mem::take(args);
        let redeemed = self
            .inner
            .continuations
            .redeem(&called, token, args, usage, None, keeps);
        Some(Box::pin(redeemed).await)
    }

    /// The handler's `result` of a call of the kept tool `tool`: as it is
    /// when it fits what the client keeps (or is an error, or other
    /// content), else kept and answered with a probe; a write's, its
    /// envelope where it carries JSON.
    pub(crate) async fn after_handler(
        &self,
        (tool, owner): (&str, &str),
        result: CallToolResult,
        caller: &Caller,
        keeps: usize,
        write: Option<WriteCall>,
    ) -> Result<CallToolResult, Answer> {
        if let (Some(call), Some(HandlerTool::Write(how))) =
            (write, self.inner.handler_tools.each.get(tool))
        {
            return match built::carried_by_write(result) {
                Ok(value) => Err(self
                    .write_answer(owner, how, value, call, caller, keeps)
                    .await),
                Err(as_built) => Ok(*as_built),
            };
        }
        let room = keeps.saturating_sub(heavy::WRAPPING);
        let continuations = &*self.inner.continuations;
        if result.is_error == Some(true)
            || answer_bytes(&result) <= room
            || !continuations.can_mint(true)
        {
            return Ok(result);
        }
        let mut value = match built::carried_by_read(result) {
            Ok(value) => value,
            Err(as_built) => return Ok(*as_built),
        };
        if let Some(HandlerTool::KeptAt(pointer)) = self.inner.handler_tools.each.get(tool)
            && let Some(items) = value.pointer_mut(pointer)
        {
            value = items.take();
        }
        let called = Called::new(caller.clone(), Cow::Owned(owner.to_owned()));
        let keep = keep::Keep {
            continuations,
            called: &called,
            scopes: &[],
            can_mint: true,
            inline_budget: Some(room),
            backstop: None,
            usage: self.inner.usage.clone(),
        };
        Err(keep
            .run(keep::whole_job(value), std::future::ready(()))
            .await)
    }
}

/// The bytes of `result` a client keeps: its `structuredContent`'s compact
/// JSON when it has one, else its text.
fn answer_bytes(result: &CallToolResult) -> usize {
    match &result.structured_content {
        Some(value) => crate::writes::envelope::data_size(value).unwrap_or(usize::MAX),
        None => result
            .content
            .iter()
            .map(|block| block.as_text().map_or(0, |text| text.text.len()))
            .sum(),
    }
}

impl Server {
    /// The answer of a call of the handler's write `tool` whose answer
    /// carries `value`: its envelope, with a token for the whole answer.
    pub(crate) async fn write_answer(
        &self,
        tool: &str,
        write: &HandlerWrite,
        mut value: Value,
        call: WriteCall,
        caller: &Caller,
        keeps: usize,
    ) -> Answer {
        let facts = facts_of(tool);
        let responder = Responder {
            continuations: std::sync::Arc::clone(&self.inner.continuations),
            tool: facts,
            kind: ToolKind::Write {
                kind: write.kind,
                status_code: write.status_code,
            },
            called: Called::new(caller.clone(), std::borrow::Cow::Borrowed(facts.name)),
            // A kept tool publishes `continuation_token`.
            discloses: true,
            // Nothing tells the server which of the handler's tools reads
            // an object back: without a token, the whole answer.
            retrieve_published: false,
            verify: call.verify,
            usage: self.inner.usage.clone(),
            keeps,
            envelope_bytes: self.inner.limits.envelope_bytes,
        };
        let named = &write.id[..];
        match write.kind {
            WriteKind::BulkCreate | WriteKind::BulkUpdate => {
                if let Some(pointer) = &write.items
                    && let Some(items) = value.pointer_mut(pointer)
                {
                    value = items.take();
                }
                let items = value
                    .items()
                    .iter()
                    .map(|item| Named {
                        id: named,
                        value: item.clone(),
                    })
                    .collect();
                responder
                    .bulk(Ok(NamedList {
                        whole: value,
                        items,
                    }))
                    .await
            }
            WriteKind::Destroy => match call.destroyed {
                Some(id) => {
                    responder
                        .destroy(interned(write.identifier()), id, Ok(value))
                        .await
                }
                None => Answer::full(value),
            },
            WriteKind::Create | WriteKind::Update | WriteKind::PartialUpdate => {
                responder.single(Ok(Named { id: named, value })).await
            }
        }
    }
}
