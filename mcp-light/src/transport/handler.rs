//! [`McpHandler`]: the rmcp handler that serves a [`Server`](crate::Server) over any transport, and what serving can fail with.

#[cfg(not(feature = "http"))]
use super::no_http::NoHttp as HttpRequest;
#[cfg(feature = "http")]
use super::request::HttpRequest;
use super::traced::Traced;
use crate::context::{Caller, SessionKeeps, SessionLogLevel, Talk, is_stateless};
use crate::server::compose::{Delegate, composed_methods, listed_beside, pass_on};
use crate::server::{Call, Client, Server, responded};
use rmcp::ErrorData;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, CancelledNotificationParam,
    CompleteRequestParams, CompleteResult, CustomNotification, CustomRequest, CustomResult,
    DiscoverResult, GetPromptRequestParams, GetPromptResponse, GetSkillRequestParams,
    GetSkillResult, GetTaskParams, GetTaskResult, InitializeRequestParams, InitializeResult,
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListSkillsResult,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ProtocolVersion,
    ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult, ReadResourceRequestParams,
    ReadResourceResponse, ServerCapabilities, ServerConfig, SubscribeRequestParams,
    SubscriptionFilter, TASKS_EXTENSION_ID, Tool, UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer, SubscriptionContext};
use serde_json::Value;
use std::borrow::Cow;
use tracing::Instrument;

pub(crate) const INITIALIZE: &str = "initialize";
pub(crate) const DISCOVER: &str = "server/discover";
pub(crate) const LIST_TOOLS: &str = "tools/list";
pub(crate) const CALL_TOOL: &str = "tools/call";
pub(crate) const SET_LEVEL: &str = "logging/setLevel";
pub(crate) const GET_TASK: &str = "tasks/get";
pub(crate) const UPDATE_TASK: &str = "tasks/update";
pub(crate) const CANCEL_TASK: &str = "tasks/cancel";
pub(crate) const LIST_RESOURCES: &str = "resources/list";
pub(crate) const READ_RESOURCE: &str = "resources/read";

/// A server serving, as its transport's entry point hands it out: boxed,
/// so the whole serving stack (rmcp's service loop, the handler, the
/// answers) is compiled once, in mcp-light. A binary that awaits an
/// `async fn` of a library compiles that function's body again itself;
/// through a boxed future it compiles a call of it. One allocation for a
/// server's whole life.
#[cfg(any(feature = "stdio", feature = "http"))]
pub(crate) type Serving = crate::runtime::BoxFuture<'static, Result<(), ServeError>>;

/// Why serving stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The client's `initialize` exchange failed: the client left, sent
    /// something else first, or the connection broke before the session
    /// was set up.
    #[error("the MCP session could not start: {0}")]
    Initialize(#[source] Box<rmcp::service::ServerInitializeError>),
    /// The task serving the session panicked or was cancelled.
    #[error("the MCP session ended abnormally: {0}")]
    Session(#[source] tokio::task::JoinError),
    /// Reading or writing the socket failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

/// The rmcp [`ServerHandler`] over a [`Server`]. [`Server::serve_stdio`] and
/// [`Server::serve_http`] use it; build one with [`Server::into_handler`] to
/// serve it over another rmcp transport. Requests that are not about tools
/// or logging, and every notification, go to the handler composed with
/// [`ServerBuilder::with_handler`](crate::ServerBuilder::with_handler), and so do the calls of its own
/// tools, when it advertises some.
#[derive(Debug, Clone)]
pub struct McpHandler {
    pub(crate) server: Server,
    /// Who the caller is when the request carries no principal and no
    /// session: the process on stdio, nobody in particular on stateless HTTP.
    pub(crate) default_caller: Caller,
    /// The session's `logging/setLevel` (protocol 2025-11-25); a clone of
    /// the handler, a new session, starts unset.
    pub(crate) log_level: SessionLogLevel,
    /// What the session's client keeps of an answer, once it has asked.
    pub(crate) keeps: SessionKeeps,
}

impl McpHandler {
    /// The caller a request comes from: the authenticated principal, the MCP
    /// session, then the transport's default.
    pub(crate) fn caller(&self, http: &mut HttpRequest) -> Caller {
        http.caller().unwrap_or_else(|| self.default_caller.clone())
    }

    /// The handler composed with [`ServerBuilder::with_handler`](crate::ServerBuilder::with_handler), or rmcp's
    /// defaults.
    pub(crate) fn composed(&self) -> &dyn Delegate {
        self.server.delegate()
    }

    /// Starts the span of a `method` request (of `tool`, for a call), with
    /// the MCP session it came in, as [`HttpRequest::take`] read it; timed
    /// unless `timed` says no recorder takes its duration.
    pub(crate) fn traced_request(
        &self,
        method: &'static str,
        tool: Option<&str>,
        context: &RequestContext<RoleServer>,
        http: &HttpRequest,
        timed: bool,
    ) -> Traced {
        Traced::start(method, tool, context, http.session_id(), timed)
    }

    /// Starts the span of a `method` request passed on to the composed
    /// handler, which gets the request as it came: only its session is
    /// read.
    fn traced(&self, method: &'static str, context: &RequestContext<RoleServer>) -> Traced {
        Traced::start(
            method,
            None,
            context,
            HttpRequest::session(&context.extensions),
            true,
        )
    }
}

// Every method is written out, here or by `pass_on!`: a method rmcp adds
// would otherwise answer rmcp's default, which says "method not found" for
// what the composed handler may advertise.
#[deny(clippy::missing_trait_methods)]
impl ServerHandler for McpHandler {
    /// The composed handler's configuration ([`ServerBuilder::with_handler`](crate::ServerBuilder::with_handler)):
    /// its capabilities, instructions and protocol version, with
    /// mcp-light's tools, logging and name, and the tasks extension when
    /// a tool may answer as a task (rmcp answers `tasks/*` only for a
    /// server whose information names it).
    fn get_info(&self) -> ServerConfig {
        self.with_own(self.composed().get_info(), true)
    }

    /// The composed handler answers (and sees the client's introduction),
    /// and its answer gets mcp-light's tools, logging and name, as
    /// [`McpHandler::get_info`], but not the tasks extension: `initialize`
    /// is the 2025-11-25 handshake, whose capabilities have no
    /// `extensions`, and whose calls are never answered as tasks.
    async fn initialize(
        &self,
        request: InitializeRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        let http = HttpRequest::take(&mut context.extensions);
        let traced = self.traced_request(INITIALIZE, None, &context, &http, true);
        let answer = traced
            .run(self.composed().initialize(request, context))
            .await?;
        Ok(self.with_own(answer, false))
    }

    fn negotiate_initialize(
        &self,
        request: &InitializeRequestParams,
    ) -> Result<InitializeResult, ErrorData> {
        let answer = self.composed().negotiate_initialize(request)?;
        Ok(self.with_own(answer, false))
    }

    /// The composed handler's discovery (its caching hints included), with
    /// mcp-light's tools, logging and name.
    async fn discover(
        &self,
        mut context: RequestContext<RoleServer>,
    ) -> Result<DiscoverResult, ErrorData> {
        let http = HttpRequest::take(&mut context.extensions);
        let traced = self.traced_request(DISCOVER, None, &context, &http, true);
        let mut answer = traced.run(self.composed().discover(context)).await?;
        add_own_capabilities(&mut answer.capabilities, self.server.offers_tasks());
        answer.set_server_info(self.server.implementation().clone());
        Ok(answer)
    }

    /// mcp-light's tools, as this client is shown them; then, when the
    /// composed handler advertises tools, the handler's as it lists them
    /// (a later page of its list alone: see `compose::listed_beside`). A
    /// name both list is refused with a JSON-RPC error, and logged.
    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        mut context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let mut http = HttpRequest::take(&mut context.extensions);
        let traced = self.traced_request(LIST_TOOLS, None, &context, &http, true);
        // A client that shows MCP Apps views gets the tools naming the
        // viewer, and the viewer's own; every other the list as built.
        #[cfg(feature = "apps")]
        let views = context
            .client_capabilities()
            .is_some_and(|capabilities| crate::apps::declared(&capabilities));
        #[cfg(not(feature = "apps"))]
        let views = false;
        // A caller whose token says what it grants sees only what it may
        // use, on a server whose tools name scopes.
        let granted = if self.server.scoped() {
            http.scopes()
        } else {
            None
        };
        let tools = self.server.tools_shown(views, granted.as_ref());
        if self.server.composes_tools() {
            let first_page = request.as_ref().is_none_or(|page| page.cursor.is_none());
            let listed = self
                .composed()
                .list_tools(request, context)
                .instrument(traced.span().clone())
                .await
                .map(|mut listed| {
                    self.server.handler_tools_listed(&mut listed.tools);
                    self.server
                        .handler_dispatchers_listed(&mut listed.tools, first_page);
                    listed
                });
            let done = listed.and_then(|listed| {
                listed_beside(&tools, listed, first_page, |name| {
                    self.server.served_by(name)
                })
                .map_err(|refused| {
                    tracing::error!(error = %refused, "tools/list refused");
                    ErrorData::internal_error(refused.to_string(), None)
                })
            });
            traced.finish(&done);
            return done;
        }
        let done = Ok(ListToolsResult::with_all_items(tools.to_vec()));
        traced.finish(&done);
        done
    }

    /// The tool mcp-light publishes as `name`, else the composed handler's,
    /// when it advertises tools.
    fn get_tool(&self, name: &str) -> Option<Tool> {
        match self.server.tool(name) {
            Some(tool) => Some(tool.clone()),
            None if self.server.composes_tools() => {
                if let Some(dispatcher) = self.server.handler_dispatcher(name) {
                    return Some(dispatcher.to_tool());
                }
                let mut tool = self.composed().get_tool(name)?;
                self.server
                    .handler_tools_listed(std::slice::from_mut(&mut tool));
                Some(tool)
            }
            None => None,
        }
    }

    /// A call of a tool mcp-light serves, answered by [`Server::call`]'s
    /// path; of a name it does not, handed as it came to the composed
    /// handler when that advertises tools and its `get_tool` knows the
    /// name, in the request's span and counted under the tool's name
    /// ([`ServerBuilder::with_handler`](crate::ServerBuilder::with_handler)).
    async fn call_tool(
        &self,
        mut request: CallToolRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // Looked up once: what the call reaches, whether its metrics are
        // taken (else it is not timed), and whether the tool needs its
        // client.
        let named = self.server.named(&request.name);
        // A name mcp-light does not know may be the composed handler's.
        if self.server.reaches_composed(named, &request.name) {
            return self.call_composed(request, context).await;
        }
        // What HTTP carries for the call, read once.
        let mut http = HttpRequest::take(&mut context.extensions);
        let metrics = self.server.tool_metrics(named);
        let traced = self.traced_request(
            CALL_TOOL,
            Some(&request.name),
            &context,
            &http,
            metrics.listened(),
        );
        let caller = self.caller(&mut http);
        // Only a server with scoped tools reads what a token grants.
        let granted = if self.server.scoped() {
            http.scopes()
        } else {
            None
        };
        if let Some(taken) = http.arguments() {
            request.arguments = Some(taken);
        }
        let arguments = request.arguments.map_or(Value::Null, Value::Object);
        // Tasks are protocol 2026-07-28's, for a request that declares them.
        let tasks_declared = self.server.offers_tasks()
            && context.protocol_version().is_some_and(|v| is_stateless(&v))
            && context
                .client_capabilities()
                .is_some_and(|capabilities| capabilities.supports_tasks());
        // A name the server does not know may be one of the viewer's own
        // tools, served to a client that shows views.
        #[cfg(feature = "apps")]
        if named.is_none()
            && let Some(view) = crate::apps::ViewTool::named(&request.name)
            && context
                .client_capabilities()
                .is_some_and(|capabilities| crate::apps::declared(&capabilities))
        {
            // Boxed: the call path's own future does not carry the view's.
            let view =
                self.server
                    .call_view(view, arguments, caller, granted, &context.ct, traced.span());
            let done = Box::pin(view).await;
            traced.finish_call(metrics, &done);
            return responded(done);
        }
        // What the client keeps of an answer, by the name it gives itself.
        let keeps = self.server.client_keeps(&context, &self.keeps);
        let talk;
        let client = if self.server.needs_client(named) {
            talk = Talk::new(
                context,
                std::sync::Arc::clone(self.server.talkback()),
                self.log_level.get(),
                request.input_responses,
                request.request_state,
                tasks_declared,
            );
            Client::Talking(&talk)
        } else {
            Client::Quiet(&context.ct)
        };
        let call = Call::new(
            named,
            &request.name,
            arguments,
            caller,
            granted,
            traced.span(),
        )
        .keeping(keeps);
        let done = self
            .server
            .call_over_mcp(call, client, tasks_declared)
            .await;
        traced.finish_call(metrics, &done);
        responded(done)
    }

    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let http = HttpRequest::take(&mut context.extensions);
        let traced = self.traced_request(SET_LEVEL, None, &context, &http, true);
        // 2026-07-28 has no `logging/setLevel`: a request names its level in
        // its `_meta`.
        let done = if context.protocol_version().is_some_and(|v| is_stateless(&v)) {
            Err(ErrorData::method_not_found::<
                rmcp::model::SetLevelRequestMethod,
            >())
        } else {
            self.log_level.set(request.level.into());
            Ok(())
        };
        traced.finish(&done);
        done
    }

    /// The task's state, from the task store, when a tool may answer as a
    /// task; the composed handler's answer otherwise.
    async fn get_task(
        &self,
        request: GetTaskParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        if !self.answers_task(&request.task_id) {
            return self.composed().get_task(request, context).await;
        }
        let mut http = HttpRequest::take(&mut context.extensions);
        let traced = self.traced_request(GET_TASK, None, &context, &http, true);
        let caller = self.caller(&mut http);
        traced
            .run(self.server.tasks().get(&request.task_id, &caller))
            .await
    }

    /// Hands the answers to the task, wherever it runs.
    async fn update_task(
        &self,
        request: UpdateTaskParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if !self.answers_task(&request.task_id) {
            return self.composed().update_task(request, context).await;
        }
        let mut http = HttpRequest::take(&mut context.extensions);
        let traced = self.traced_request(UPDATE_TASK, None, &context, &http, true);
        let caller = self.caller(&mut http);
        let tasks = self.server.tasks();
        traced
            .run(tasks.update(&request.task_id, request.input_responses, &caller))
            .await
    }

    /// Asks the replica running the task to stop it.
    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if !self.answers_task(&request.task_id) {
            return self.composed().cancel_task(request, context).await;
        }
        let mut http = HttpRequest::take(&mut context.extensions);
        let traced = self.traced_request(CANCEL_TASK, None, &context, &http, true);
        let caller = self.caller(&mut http);
        traced
            .run(self.server.tasks().cancel(&request.task_id, &caller))
            .await
    }

    /// The composed handler's resources, and with the `apps` feature the
    /// viewer after them.
    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let traced = self.traced(LIST_RESOURCES, &context);
        #[cfg(feature = "apps")]
        {
            let listed = match self.composed().get_info().capabilities.resources {
                Some(_) => self.composed().list_resources(request, context).await,
                None => Ok(ListResourcesResult::default()),
            };
            let done = listed.map(crate::apps::list_with_viewer);
            traced.finish(&done);
            done
        }
        #[cfg(not(feature = "apps"))]
        traced
            .run(self.composed().list_resources(request, context))
            .await
    }

    /// The composed handler's resource, or with the `apps` feature the
    /// viewer.
    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let traced = self.traced(READ_RESOURCE, &context);
        #[cfg(feature = "apps")]
        if let Some(viewer) = crate::apps::read_viewer(&request.uri) {
            let done = Ok(ReadResourceResponse::from(viewer));
            traced.finish(&done);
            return done;
        }
        traced
            .run(self.composed().read_resource(request, context))
            .await
    }

    // Prompts, resources, subscriptions, completions, skills, custom
    // requests and every notification: the composed handler's.
    composed_methods!(pass_on);
}

/// Adds what mcp-light serves itself to what the composed handler
/// advertises: tools, logging (`logging/setLevel`), and the tasks
/// extension when a tool may answer as a task.
#[allow(deprecated)] // rmcp marks logging deprecated; 2025-11-25 clients use it.
pub(super) fn add_own_capabilities(capabilities: &mut ServerCapabilities, tasks: bool) {
    let own = ServerCapabilities::builder()
        .enable_tools()
        .enable_logging()
        .build();
    // A handler whose tools are served beside mcp-light's keeps what it
    // says of them (`listChanged`).
    if capabilities.tools.is_none() {
        capabilities.tools = own.tools;
    }
    capabilities.logging = own.logging;
    // The viewer is a resource.
    #[cfg(feature = "apps")]
    capabilities.resources.get_or_insert_with(Default::default);
    if tasks {
        capabilities
            .extensions
            .get_or_insert_with(Default::default)
            .insert(TASKS_EXTENSION_ID.to_owned(), Default::default());
    }
}
