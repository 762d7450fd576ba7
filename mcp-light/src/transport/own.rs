//! What the handler adds to the handler composed with
//! [`ServerBuilder::with_handler`](crate::ServerBuilder::with_handler) and
//! passes on to it: mcp-light's capabilities beside the composed handler's,
//! the tasks it answers, and the calls of the composed handler's own tools.

use rmcp::ErrorData;
use rmcp::model::{CallToolRequestParams, CallToolResponse, ServerConfig};
use rmcp::service::{RequestContext, RoleServer};
use tracing::Instrument;

use std::borrow::Cow;
use std::sync::Arc;

use crate::call::outcome::{Answer, AnswerShape, CallError};
use crate::catalog::dispatch::Dispatcher;
use crate::catalog::dispatch::Refused;
use crate::context::{Caller, Stops, is_stateless};
use crate::server::responded;
use crate::store::BoxFuture;
use crate::tasks::{Escalation, Tasking};
use crate::telemetry::ToolMetrics;
use crate::tool::output_schema::Described;

use super::handler::add_own_capabilities;
use super::{CALL_TOOL, HttpRequest, McpHandler};

impl McpHandler {
    /// Whether mcp-light answers `tasks/*` for the task `id`: when a tool
    /// may answer as a task, unless the composed handler advertises tasks
    /// of its own and `id` is not one mcp-light issues.
    pub(super) fn answers_task(&self, id: &str) -> bool {
        self.server.offers_tasks()
            && (crate::tasks::is_task_id(id)
                || !self.composed().get_info().capabilities.supports_tasks())
    }

    /// `config`, the composed handler's, with mcp-light's tools, logging
    /// and name, and the tasks extension when `tasks` and a tool may
    /// answer as a task.
    pub(super) fn with_own(&self, mut config: ServerConfig, tasks: bool) -> ServerConfig {
        add_own_capabilities(
            &mut config.capabilities,
            tasks && self.server.offers_tasks(),
        );
        config.server_info = self.server.implementation().clone();
        config
    }

    /// A call of one of the composed handler's tools: handed to it as it
    /// came (its `task` too: the handler decides its own tasks), in the
    /// request's span, timed and counted under the tool's name like any
    /// call. mcp-light's per-tool settings (scopes, the argument-string
    /// bound, the deadline) are its own tools'; the transport's bounds and
    /// authentication were met before the request got here.
    ///
    /// Boxed, and out of line: the call path's own future and code carry
    /// neither.
    #[cold]
    #[inline(never)]
    pub(super) fn call_composed(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> BoxFuture<'_, Result<CallToolResponse, ErrorData>> {
        Box::pin(self.traced_composed_call(request, context))
    }

    /// [`McpHandler::call_composed`]'s call, in its request's span.
    async fn traced_composed_call(
        &self,
        mut request: CallToolRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let mut http = HttpRequest::take(&mut context.extensions);
        let metrics = self.server.tool_metrics(None);
        let traced = self.traced_request(
            CALL_TOOL,
            Some(&request.name),
            &context,
            &http,
            metrics.listened(),
        );
        // The arguments the HTTP guard took out of the body, put back.
        if let Some(taken) = http.arguments() {
            request.arguments = Some(taken);
        }
        // The handler's tools are not known when the server is built: their
        // keys are registered per call, and only when a recorder takes them.
        let counted = metrics.listened().then(|| {
            crate::telemetry::ToolMetrics::new(std::borrow::Cow::Owned(request.name.to_string()))
        });
        let caller = self.caller(&mut http);
        let tasked = self.server.tasks_handler_calls()
            && context.protocol_version().is_some_and(|v| is_stateless(&v))
            && context
                .client_capabilities()
                .is_some_and(|capabilities| capabilities.supports_tasks());
        let done = if tasked {
            self.tasked_composed_call(request, context, caller)
                .instrument(traced.span().clone())
                .await
        } else {
            self.composed_call(request, context, &caller)
                .instrument(traced.span().clone())
                .await
        };
        let keys = counted.as_ref().unwrap_or(metrics);
        traced.finish_composed_call(keys, &done);
        done
    }
}

impl McpHandler {
    /// A call of the composed handler's tool: through its dispatcher, kept,
    /// or handed to it as it came.
    async fn composed_call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
        caller: &Caller,
    ) -> Result<CallToolResponse, ErrorData> {
        if let Some(dispatcher) = self.server.handler_dispatcher(&request.name) {
            return self
                .dispatched_call(dispatcher, request, context, caller)
                .await;
        }
        let kept = self.server.keeps_handler_tools()
            && self
                .composed()
                .get_tool(&request.name)
                .is_some_and(|tool| self.server.keeps_handler_tool(&tool));
        if kept {
            let owner = request.name.to_string();
            self.kept_call(request, context, caller, &owner).await
        } else {
            self.composed().call_tool(request, context).await
        }
    }

    /// [`McpHandler::composed_call`] for a client that declared the tasks
    /// extension, on a server whose handler's calls may become tasks
    /// ([`ServerBuilder::with_handler_tasks`](crate::ServerBuilder::with_handler_tasks)):
    /// answered in place when it finishes within the tasks' configured
    /// wait, else answered as a task that runs on, its answer read with
    /// `tasks/get`.
    async fn tasked_composed_call(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
        caller: Caller,
    ) -> Result<CallToolResponse, ErrorData> {
        let mut context = context;
        // The request ends when the call becomes a task: the call runs on
        // under a token of its own, dropped when the task is cancelled.
        let cancelled = std::mem::take(&mut context.ct);
        let name = request.name.to_string();
        let owner = caller.identity();
        let this = self.clone();
        let tool = name.clone();
        let work = Box::pin(async move {
            let done = this.composed_call(request, context, &caller).await;
            answer_of(&tool, done)
        });
        let escalation = Escalation {
            tasks: self.server.tasks(),
            owner,
            tool: crate::server::interned(&name),
            counted_as: Arc::new(ToolMetrics::new(Cow::Owned(name))),
            usage: self.server.usage().cloned(),
        };
        let tasking = Tasking {
            declared: true,
            stops: Stops {
                cancelled: &cancelled,
                rounds: None,
            },
            talk: None,
        };
        match tasking.run(work, escalation).await {
            Ok(answer) => responded(Ok(answer)),
            Err(stopped) => stopped,
        }
    }

    /// A call of a kept tool of the composed handler
    /// ([`HandlerTools::Kept`](crate::HandlerTools::Kept)): its token redeemed here, else the
    /// handler's answer, kept and answered with a probe where it is larger
    /// than the client keeps.
    ///
    /// `owner` is the tool the caller called, which owns what the call
    /// keeps: the tool itself, or the dispatcher that routed to it.
    async fn kept_call(
        &self,
        mut request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
        caller: &Caller,
        owner: &str,
    ) -> Result<CallToolResponse, ErrorData> {
        let keeps = self.server.client_keeps(&context, &self.keeps);
        let tool = request.name.to_string();
        let mut args = request.arguments.take().unwrap_or_default();
        let write = match self
            .server
            .before_handler((&tool, owner), &mut args, caller, keeps)
            .await
        {
            Ok(write) => write,
            Err(answer) => return responded(Ok(answer)),
        };
        request.arguments = Some(args);
        match self.composed().call_tool(request, context).await? {
            CallToolResponse::Complete(result) => {
                match self
                    .server
                    .after_handler((&tool, owner), result, caller, keeps, write)
                    .await
                {
                    Ok(result) => Ok(CallToolResponse::Complete(result)),
                    Err(answer) => responded(Ok(answer)),
                }
            }
            other => Ok(other),
        }
    }
}

impl McpHandler {
    /// A call of a dispatcher over the composed handler's tools
    /// ([`ServerBuilder::with_handler_dispatcher`](crate::ServerBuilder::with_handler_dispatcher)):
    /// a token redeemed whatever the routing fields say, `describe: true`
    /// answered with the action's schema, else the routed tool called with
    /// `params` (and `verify` and the negotiation fields from the top
    /// level), kept under the dispatcher's name unless it is answered as
    /// the handler answers it.
    async fn dispatched_call(
        &self,
        dispatcher: &Dispatcher,
        mut request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
        caller: &Caller,
    ) -> Result<CallToolResponse, ErrorData> {
        let owner = dispatcher.name();
        let mut args = request.arguments.take().unwrap_or_default();
        if args
            .get(crate::token::CONTINUATION_TOKEN)
            .is_some_and(|token| !token.is_null())
        {
            // The token names its result: the routing fields say nothing more.
            dispatcher.drop_routing(&mut args);
            let keeps = self.server.client_keeps(&context, &self.keeps);
            if let Some(redeemed) = self
                .server
                .redeemed_for(owner, &mut args, caller, keeps)
                .await
            {
                return responded(Ok(redeemed));
            }
        }
        let refused = |error: &dyn std::fmt::Display| {
            responded(Ok(Answer::error(CallError::Route(error.to_string()))))
        };
        let picked = match dispatcher.pick(&mut args, dispatcher) {
            Ok(picked) => picked,
            Err(error) => return refused(&error),
        };
        let Some(tool) = self.composed().get_tool(picked.tool) else {
            return refused(&format_args!(
                "the action `{}` of `{}` reaches the tool `{}`, which the server no longer \
                 lists; `tools/list` names what it serves now",
                picked.action, picked.resource, picked.tool
            ));
        };
        if picked.describe {
            let described = Described::new(tool.description.as_deref(), &tool.input_schema);
            return responded(Ok(Answer::shaped(&described, AnswerShape::Full)));
        }
        let params = match dispatcher.params(args) {
            Ok(params) => params,
            Err(Refused::Route(error)) => return refused(&error),
            Err(Refused::ParamsNotAnObject(problem)) => return refused(&problem),
        };
        request.name = tool.name.clone();
        request.arguments = Some(params);
        if self.server.keeps_tool_of_handler(&tool, true) {
            self.kept_call(request, context, caller, owner).await
        } else {
            self.composed().call_tool(request, context).await
        }
    }
}

/// The answer a task keeps of a composed call's response: its result as
/// the handler built it, its JSON-RPC error as that error, and a refusal
/// of the other kinds of response, which a task cannot carry.
fn answer_of(tool: &str, done: Result<CallToolResponse, ErrorData>) -> Answer {
    match done {
        Ok(CallToolResponse::Complete(result)) => Answer::as_built(result),
        Ok(_) => Answer::error(CallError::Route(format!(
            "`{tool}` asked for the client's input or answered with a task of its own, which a \
             call answered as a task cannot carry; call it again without the tasks extension"
        ))),
        Err(error) => {
            Answer::error(CallError::Route(error.message.to_string())).answered_over_mcp_as(error)
        }
    }
}
