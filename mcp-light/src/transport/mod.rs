//! Serving a [`Server`] over MCP with rmcp: stdio and Streamable HTTP.
//!
//! The rmcp handler is thin: `tools/list` publishes the registry and the
//! dispatchers, `tools/call` hands the call to [`Server::call`] with the
//! caller the transport identified. Everything else (prompts, resources,
//! completions) goes to the rmcp handler composed with
//! [`Server::with_handler`], if any. Framing, sessions and HTTP are rmcp's.

#[cfg(feature = "http")]
mod guard;
#[cfg(feature = "http")]
mod http;
#[cfg(any(feature = "http", feature = "stdio"))]
mod jsonrpc;
#[cfg(feature = "http")]
mod listen;
#[cfg(feature = "http")]
mod sessions;
#[cfg(feature = "stdio")]
mod stdio;

#[cfg(feature = "http")]
pub use guard::JsonRpcGuard;
#[cfg(feature = "http")]
pub use http::{
    DEFAULT_HEADER_READ_TIMEOUT, DEFAULT_MAX_BODY_BYTES, DEFAULT_MAX_CONNECTIONS, HttpOptions,
    HttpService,
};
#[cfg(feature = "http")]
pub use sessions::ValidatedSessions;
#[cfg(feature = "stdio")]
pub use stdio::{DEFAULT_MAX_LINE_BYTES, StdioOptions};

use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CompleteRequestParams, CompleteResult,
    CustomNotification, CustomRequest, CustomResult, GetPromptRequestParams, GetPromptResponse,
    InitializeResult, ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
    ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
    ServerCapabilities, ServerConfig, SubscribeRequestParams, SubscriptionFilter, Tool,
    UnsubscribeRequestParams,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer, SubscriptionContext};
use serde_json::Value;

use crate::context::{SessionLogLevel, Talk, is_stateless};
use crate::{Caller, Server};

/// Why serving stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The MCP session could not be set up or broke.
    #[error("serving MCP failed: {0}")]
    Transport(String),
    /// Reading or writing the socket failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The server cannot serve its tools: a tool takes host state that was
    /// never registered ([`Server::check_state`]).
    #[error(transparent)]
    Registry(#[from] crate::RegistryError),
}

/// The rmcp [`ServerHandler`] over a [`Server`]. [`Server::serve_stdio`] and
/// [`Server::serve_http`] use it; build one with [`Server::into_handler`] to
/// serve it over another rmcp transport. Requests that are not about tools
/// go to the handler composed with [`Server::with_handler`].
#[derive(Debug, Clone)]
pub struct McpHandler {
    server: Server,
    /// Who the caller is when the request carries no principal and no
    /// session: the process on stdio, nobody in particular on stateless HTTP.
    default_caller: Caller,
    /// The session's `logging/setLevel` (protocol 2025-11-25); a clone of
    /// the handler, a new session, starts unset.
    log_level: SessionLogLevel,
}

impl McpHandler {
    /// The caller a request comes from: the authenticated principal, the MCP
    /// session, then the transport's default.
    fn caller(&self, context: &RequestContext<RoleServer>) -> Caller {
        #[cfg(feature = "http")]
        if let Some(caller) = http::http_caller(&context.extensions) {
            return caller;
        }
        #[cfg(not(feature = "http"))]
        let _ = context;
        self.default_caller.clone()
    }
}

impl ServerHandler for McpHandler {
    /// The composed handler's capabilities and instructions
    /// ([`Server::with_handler`]), with mcp-light's tools, logging and name.
    #[allow(deprecated)] // rmcp marks logging deprecated; 2025-11-25 clients use it.
    fn get_info(&self) -> ServerConfig {
        let delegated = self.server.delegate.info();
        let mut capabilities = delegated.capabilities;
        let own = ServerCapabilities::builder()
            .enable_tools()
            .enable_logging()
            .build();
        capabilities.tools = own.tools;
        capabilities.logging = own.logging;
        let mut info = InitializeResult::new(capabilities)
            .with_server_info(self.server.implementation().clone());
        info.instructions = delegated.instructions;
        info
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, rmcp::ErrorData> {
        Ok(ListToolsResult::with_all_items(self.server.list_tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.server
            .list_tools()
            .into_iter()
            .find(|tool| tool.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, rmcp::ErrorData> {
        let caller = self.caller(&context);
        #[cfg(feature = "http")]
        let request = http::with_taken_arguments(request, &context.extensions);
        let arguments = request.arguments.map_or(Value::Null, Value::Object);
        let talk = Talk::new(
            context,
            std::sync::Arc::clone(&self.server.talkback),
            self.log_level.get(),
            request.input_responses,
            request.request_state,
        );
        self.server
            .call_talking(&request.name, arguments, caller, talk)
            .await
    }

    #[allow(deprecated)]
    async fn set_level(
        &self,
        request: rmcp::model::SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), rmcp::ErrorData> {
        // 2026-07-28 has no `logging/setLevel`: a request names its level in
        // its `_meta`.
        if context.protocol_version().is_some_and(|v| is_stateless(&v)) {
            return Err(rmcp::ErrorData::method_not_found::<
                rmcp::model::SetLevelRequestMethod,
            >());
        }
        self.log_level.set(request.level.into());
        Ok(())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, rmcp::ErrorData> {
        self.server.delegate.complete(request, context).await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, rmcp::ErrorData> {
        self.server.delegate.get_prompt(request, context).await
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, rmcp::ErrorData> {
        self.server.delegate.list_prompts(request, context).await
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, rmcp::ErrorData> {
        self.server.delegate.list_resources(request, context).await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, rmcp::ErrorData> {
        self.server
            .delegate
            .list_resource_templates(request, context)
            .await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, rmcp::ErrorData> {
        self.server.delegate.read_resource(request, context).await
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.server.delegate.accepted_subscription_filter(requested)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), rmcp::ErrorData> {
        self.server.delegate.listen(context).await
    }

    #[allow(deprecated)] // Still what a client on 2025-11-25 sends.
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), rmcp::ErrorData> {
        self.server.delegate.subscribe(request, context).await
    }

    #[allow(deprecated)] // Still what a client on 2025-11-25 sends.
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), rmcp::ErrorData> {
        self.server.delegate.unsubscribe(request, context).await
    }

    async fn on_custom_request(
        &self,
        request: CustomRequest,
        context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, rmcp::ErrorData> {
        self.server
            .delegate
            .on_custom_request(request, context)
            .await
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.server.delegate.on_initialized(context).await
    }

    async fn on_roots_list_changed(&self, context: NotificationContext<RoleServer>) {
        self.server.delegate.on_roots_list_changed(context).await
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        context: NotificationContext<RoleServer>,
    ) {
        self.server
            .delegate
            .on_custom_notification(notification, context)
            .await
    }
}

impl Server {
    /// The rmcp handler for this server; requests that carry no principal
    /// and no session are attributed to `default_caller`.
    pub fn into_handler(self, default_caller: Caller) -> McpHandler {
        McpHandler {
            server: self,
            default_caller,
            log_level: SessionLogLevel::default(),
        }
    }
}
