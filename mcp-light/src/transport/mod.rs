//! Serving a [`Server`] over MCP with rmcp: stdio and Streamable HTTP.
//!
//! The rmcp handler is thin: `tools/list` publishes the registry and the
//! dispatchers, `tools/call` hands the call to [`Server::call`] with the
//! caller the transport identified. Framing, sessions and HTTP are rmcp's.

#[cfg(feature = "http")]
mod http;
#[cfg(feature = "http")]
mod sessions;
#[cfg(feature = "stdio")]
mod stdio;

#[cfg(feature = "http")]
pub use http::{HttpOptions, HttpService};
#[cfg(feature = "http")]
pub use sessions::ValidatedSessions;

use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, InitializeResult, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
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
/// serve it over another rmcp transport.
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
    #[allow(deprecated)] // rmcp marks logging deprecated; 2025-11-25 clients use it.
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_logging()
            .build();
        InitializeResult::new(capabilities).with_server_info(self.server.implementation().clone())
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
