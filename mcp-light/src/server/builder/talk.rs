//! The builder's settings for what is not one of its tools: a handler
//! served beside them, and the line back to the client of a tool that
//! talks back.

use std::sync::Arc;
use std::time::Duration;

use rmcp::handler::server::ServerHandler;
use rmcp::model::RequestStateCodec;

use crate::error::config::ConfigError;

use super::ServerBuilder;
use crate::server::{HandlerTool, HandlerTools};

impl ServerBuilder {
    /// Serves `handler` beside this server's tools: `tools/list`,
    /// `tools/call` and `logging/setLevel` are mcp-light's (with the
    /// handler's own tools after mcp-light's, when it advertises some:
    /// see "The handler's own tools" below), every other
    /// request (prompts, resources, their templates and directories,
    /// subscriptions, completions, skills, tasks, custom requests) and
    /// every notification (progress, cancellations, roots, custom ones) is
    /// `handler`'s. The handshake (`initialize`, `server/discover`) answers
    /// what `handler` answers, its capabilities, instructions and protocol
    /// versions, with mcp-light's tools and logging added; the server's
    /// name and version stay [`ServerBuilder::with_implementation`]'s. So
    /// every capability the client is told of is served.
    /// [`Server::serve_stdio`](crate::Server::serve_stdio), [`Server::serve_http`](crate::Server::serve_http) and
    /// [`Server::http_service`](crate::Server::http_service) serve the composition; a second call
    /// replaces the handler.
    ///
    /// A client's cancellation of a tool call still stops the tool
    /// ([`Context::cancelled`](crate::Context::cancelled)); `handler` hears of it too.
    ///
    /// Write the handler with [`mcp_light::rmcp`](https://docs.rs/rmcp/3.11), the rmcp
    /// this server is built on.
    ///
    /// ```
    /// use mcp_light::prelude::*;
    /// use mcp_light::rmcp::ErrorData;
    /// use mcp_light::rmcp::handler::server::ServerHandler;
    /// use mcp_light::rmcp::model::{
    ///     GetPromptRequestParams, GetPromptResponse, GetPromptResult, ListPromptsResult,
    ///     PaginatedRequestParams, Prompt, PromptMessage, Role, ServerCapabilities,
    ///     ServerConfig,
    /// };
    /// use mcp_light::rmcp::service::{RequestContext, RoleServer};
    ///
    /// /// One prompt, written with rmcp.
    /// #[derive(Clone)]
    /// struct Prompts;
    ///
    /// impl ServerHandler for Prompts {
    ///     fn get_info(&self) -> ServerConfig {
    ///         ServerConfig::new(ServerCapabilities::builder().enable_prompts().build())
    ///     }
    ///
    ///     async fn list_prompts(
    ///         &self,
    ///         _: Option<PaginatedRequestParams>,
    ///         _: RequestContext<RoleServer>,
    ///     ) -> Result<ListPromptsResult, ErrorData> {
    ///         Ok(ListPromptsResult::with_all_items(vec![Prompt::new("triage", None::<String>, None)]))
    ///     }
    ///
    ///     async fn get_prompt(
    ///         &self,
    ///         _: GetPromptRequestParams,
    ///         _: RequestContext<RoleServer>,
    ///     ) -> Result<GetPromptResponse, ErrorData> {
    ///         let text = PromptMessage::new_text(Role::User, "Triage the open alerts.");
    ///         Ok(GetPromptResult::new(vec![text]).into())
    ///     }
    /// }
    ///
    /// let server = Server::from_registry().with_handler(Prompts).build()?;
    /// # Ok::<(), mcp_light::BuildError>(())
    /// ```
    ///
    /// # The handler's own tools
    ///
    /// A handler that advertises tools in its `get_info` has them served
    /// beside this server's: an rmcp server ported to mcp-light one tool at
    /// a time keeps the tools not ported yet in its `#[tool_router]`, and
    /// clients see one server.
    ///
    /// - `tools/list` answers this server's tools, as this client is shown
    ///   them, then the handler's, as the handler lists them. When the
    ///   handler pages its list, its cursor is the answer's, and a request
    ///   that brings one gets the handler's later page alone.
    /// - A `tools/call` of a name this server serves is this server's. Any
    ///   other name goes to the handler, as it came (its `task` too: the
    ///   handler decides its own tasks, and a handler that advertises tasks
    ///   answers `tasks/*` for the ones it made), when the handler's
    ///   `get_tool` knows it. rmcp's `#[tool_handler]` answers `get_tool` from the
    ///   router; a handler written by hand implements it for each tool it
    ///   serves (rmcp's Streamable HTTP server reads it too, to check
    ///   `Mcp-Param-*` headers). A name neither knows answers mcp-light's
    ///   unknown-tool error, which lists this server's tools and points to
    ///   `tools/list` for the handler's.
    /// - A name both serve is refused: by [`ServerBuilder::build`] when the
    ///   handler's `get_tool` knows a name this server answers (a tool, one
    ///   only a dispatcher reaches, a dispatcher, a tool of the `apps`
    ///   viewer), with an error naming the function and the handler; by
    ///   `tools/list`, with the same sentence as a JSON-RPC error, logged,
    ///   when only the handler's list shows it.
    /// - A call of the handler's runs in the request's span and is counted
    ///   under its tool's name, like any call; the transport's bounds and
    ///   authentication apply to it as to every request. mcp-light's
    ///   settings of its own tools do not: OAuth scopes per tool
    ///   (`scopes = [...]`), the argument-string bound
    ///   ([`ServerBuilder::with_max_argument_string`]) and the deadline
    ///   ([`ServerBuilder::with_tool_deadline`]) are for mcp-light's tools,
    ///   and the handler checks its own.
    /// - [`Server::call`](crate::Server::call) does not call them: rmcp's `call_tool` takes an
    ///   MCP request's context, which a call in process has none of, so
    ///   their names answer an `isError` result saying the tool is the
    ///   handler's and is reached over MCP.
    ///
    /// Whether the handler advertises tools is read once, by `build`: a
    /// handler without tools costs nothing per request.
    ///
    /// rmcp's macros need its `macros` feature: on the `rmcp` the ported
    /// server already depends on, which must be the rmcp mcp-light is built
    /// on (3.11), or `with_handler` does not take the handler.
    ///
    /// ```standalone_crate
    /// use mcp_light::prelude::*;
    /// use mcp_light::rmcp::handler::server::ServerHandler;
    /// use mcp_light::rmcp::handler::server::router::tool::ToolRouter;
    /// use mcp_light::rmcp::handler::server::wrapper::Parameters;
    /// // rmcp's macros write `rmcp::...` paths.
    /// use mcp_light::rmcp::{self, tool, tool_handler, tool_router};
    ///
    /// /// What `legacy_echo` takes.
    /// #[derive(Deserialize, JsonSchema)]
    /// struct Echo {
    ///     text: String,
    /// }
    ///
    /// /// The tools not ported yet, in rmcp's own router.
    /// #[derive(Clone)]
    /// struct Legacy {
    ///     tool_router: ToolRouter<Legacy>,
    /// }
    ///
    /// #[tool_router]
    /// impl Legacy {
    ///     fn new() -> Legacy {
    ///         Legacy { tool_router: Self::tool_router() }
    ///     }
    ///
    ///     #[tool(description = "Answers its text")]
    ///     fn legacy_echo(&self, Parameters(Echo { text }): Parameters<Echo>) -> String {
    ///         text
    ///     }
    /// }
    ///
    /// #[tool_handler(router = self.tool_router)]
    /// impl ServerHandler for Legacy {}
    ///
    /// /// Counts the open tickets; ported already.
    /// #[mcp_tool]
    /// fn ticket_count() -> u32 {
    ///     3
    /// }
    ///
    /// let server = Server::from_tools(tools![ticket_count]).with_handler(Legacy::new()).build()?;
    /// // Over MCP both are served: `tools/list` shows `ticket_count`, then
    /// // `legacy_echo`, and a call of `legacy_echo` reaches `Legacy`.
    /// let served = server.clone().into_handler(Caller::Process);
    /// assert!(served.get_tool("ticket_count").is_some());
    /// assert!(served.get_tool("legacy_echo").is_some());
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// // In process, only mcp-light's own are called.
    /// let answer = server.call("legacy_echo", serde_json::json!({"text": "hi"}), Caller::Process).await;
    /// assert_eq!(answer.is_error, Some(true));
    /// # });
    ///
    /// /// Counts the open tickets, the rmcp way: the name is taken.
    /// #[derive(Clone)]
    /// struct Clashing {
    ///     tool_router: ToolRouter<Clashing>,
    /// }
    ///
    /// #[tool_router]
    /// impl Clashing {
    ///     #[tool(description = "Counts the open tickets")]
    ///     fn ticket_count(&self) -> String {
    ///         "3".to_owned()
    ///     }
    /// }
    ///
    /// #[tool_handler(router = self.tool_router)]
    /// impl ServerHandler for Clashing {}
    ///
    /// let clashing = Clashing { tool_router: Clashing::tool_router() };
    /// let refused = Server::from_tools(tools![ticket_count]).with_handler(clashing).build();
    /// let message = refused.unwrap_err().to_string();
    /// assert!(message.contains("ticket_count"), "{message}");
    /// assert!(message.contains("the handler composed with `with_handler`"), "{message}");
    /// # Ok::<(), mcp_light::BuildError>(())
    /// ```
    pub fn with_handler<H: ServerHandler>(mut self, handler: H) -> ServerBuilder {
        self.delegate = Arc::new(handler);
        self
    }

    /// What the server does with the answers of the tools of the handler
    /// composed with [`ServerBuilder::with_handler`]: as the handler
    /// answers them ([`HandlerTools::AsAnswered`], the default, which a
    /// server moving one tool at a time wants), or within what the calling
    /// client keeps ([`HandlerTools::Kept`]): each such tool publishes
    /// `continuation_token` and the negotiation fields, an answer larger
    /// than the client keeps is kept behind a token bound to the caller
    /// and the tool and answered with a probe, and a call with the token
    /// is served from the store without calling the handler again.
    ///
    /// ```
    /// use mcp_light::{HandlerTools, Server};
    ///
    /// let server = Server::from_registry()
    ///     .with_handler_tools(HandlerTools::Kept)
    ///     .build()?;
    /// assert_eq!(server.handler_tools(), HandlerTools::Kept);
    /// # Ok::<(), mcp_light::BuildError>(())
    /// ```
    pub fn with_handler_tools(mut self, tools: HandlerTools) -> ServerBuilder {
        self.handler_tools.all = tools;
        self
    }

    /// What the server does with the answers of the handler's tool `name`,
    /// over [`ServerBuilder::with_handler_tools`]: as the handler answers
    /// it ([`HandlerTool::AsAnswered`]), or kept, an answer too large for
    /// the client narrowed to the value at a JSON pointer
    /// ([`HandlerTool::KeptAt`]). Given again for one name, the last wins.
    ///
    /// ```
    /// use mcp_light::{HandlerTool, HandlerTools, Server};
    ///
    /// let server = Server::from_registry()
    ///     .with_handler_tools(HandlerTools::Kept)
    ///     // Its answers are read whole, whatever their size.
    ///     .with_handler_tool("read_config", HandlerTool::AsAnswered)
    ///     // Its items are the graph's entities.
    ///     .with_handler_tool("read_graph", HandlerTool::KeptAt("/entities".to_owned()))
    ///     .build()?;
    /// # Ok::<(), mcp_light::BuildError>(())
    /// ```
    pub fn with_handler_tool(mut self, name: impl Into<String>, how: HandlerTool) -> ServerBuilder {
        self.handler_tools.each.insert(name.into(), how);
        self
    }

    /// Publishes the handler's tools that `groups` names behind one tool,
    /// `name`, which takes `resource` (a group's name), `action` (a tool's
    /// name), `params` (its arguments), `describe` (answer the action's
    /// schema, run nothing), `verify` and the negotiation fields, as
    /// [`ServerBuilder::with_dispatcher`] does for mcp-light's own tools:
    /// `tools/list` shows the dispatcher instead of the tools it reaches,
    /// so a server of ninety tools costs a caller one.
    ///
    /// A routed tool is kept as [`HandlerTools::Kept`] keeps one (the
    /// dispatcher's schema has the slot for a token), or answered as
    /// [`ServerBuilder::with_handler_tool`] says; a token it answers is
    /// bound to the dispatcher and redeemed through it.
    ///
    /// ```
    /// use mcp_light::Server;
    ///
    /// let server = Server::from_registry()
    ///     .with_handler_dispatcher(
    ///         "files",
    ///         [
    ///             ("read", vec!["read_text_file", "directory_tree"]),
    ///             ("write", vec!["write_file"]),
    ///         ],
    ///     )
    ///     .build()?;
    /// # Ok::<(), mcp_light::BuildError>(())
    /// ```
    pub fn with_handler_dispatcher<R, T>(
        mut self,
        name: impl Into<String>,
        groups: impl IntoIterator<Item = (R, T)>,
    ) -> ServerBuilder
    where
        R: Into<String>,
        T: IntoIterator,
        T::Item: Into<String>,
    {
        let groups = groups
            .into_iter()
            .map(|(resource, tools)| (resource.into(), tools.into_iter().map(Into::into).collect()))
            .collect();
        self.handler_tools
            .asked
            .push(crate::server::AskedDispatcher {
                name: name.into(),
                groups,
            });
        self
    }

    /// Lets a call of the composed handler's tools become a task, as a
    /// tool marked for tasks does: for a client that declared the tasks
    /// extension, a call still running after
    /// [`TaskConfig::with_after`](crate::tasks::TaskConfig::with_after)
    /// is answered with a task, run on, and its answer read with
    /// `tasks/get`; `tasks/cancel` stops it. The server then advertises
    /// the extension. A handler with tasks of its own keeps them: the
    /// tasks this server issues are told apart by their ids.
    ///
    /// ```
    /// use mcp_light::Server;
    ///
    /// let server = Server::from_registry().with_handler_tasks().build()?;
    /// assert!(server.offers_tasks());
    /// # Ok::<(), mcp_light::BuildError>(())
    /// ```
    pub fn with_handler_tasks(mut self) -> ServerBuilder {
        self.handler_tools.tasks = true;
        self
    }

    /// Signs the `requestState` of input-required results (protocol
    /// 2026-07-28) with `key`, at least 32 bytes, instead of a key drawn
    /// at random when the server is built. Replicas behind one load balancer
    /// share a key, so a retry that lands on another replica still opens the
    /// state the first one sealed.
    ///
    /// Fails when `key` is shorter than 32 bytes; the error gives its
    /// length, never the key.
    ///
    /// ```
    /// let server = mcp_light::Server::from_registry()
    ///     .with_request_state_key(*b"a 32-byte secret shared by all!!")?
    ///     .build()?;
    /// let short = mcp_light::Server::from_registry().with_request_state_key(*b"short");
    /// assert_eq!(short.unwrap_err().setting(), "Server::request_state_key (its length in bytes)");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_request_state_key(
        mut self,
        key: impl Into<Vec<u8>>,
    ) -> Result<ServerBuilder, ConfigError> {
        let key = key.into();
        if key.len() < RequestStateCodec::MIN_KEY_LENGTH {
            return Err(ConfigError::at_least(
                "Server::request_state_key (its length in bytes)",
                key.len() as u64,
                RequestStateCodec::MIN_KEY_LENGTH as u64,
                "a shorter key is too easy to guess; draw one at random",
            ));
        }
        // Its length, checked above, is all `try_new` would check.
        self.talkback.key = Some(RequestStateCodec::new_unchecked(key));
        Ok(self)
    }

    /// How long a client has to retry a call that answered an
    /// input-required result (protocol 2026-07-28) before its
    /// `requestState` expires; 10 minutes by default
    /// ([`defaults::REQUEST_STATE_TTL`](crate::defaults::REQUEST_STATE_TTL)). An expired state is refused like a
    /// forged one, and the client starts the call again.
    pub fn with_request_state_ttl(mut self, ttl: Duration) -> ServerBuilder {
        self.talkback.state_ttl = ttl;
        self
    }

    /// How long a tool's request to the client — elicitation, sampling,
    /// roots — waits for the answer on protocol 2025-11-25 before the ask
    /// fails with an error naming the timeout; 5 minutes by default
    /// ([`defaults::ASK_TIMEOUT`](crate::defaults::ASK_TIMEOUT)), as a person may be answering.
    pub fn with_ask_timeout(mut self, timeout: Duration) -> ServerBuilder {
        self.talkback.ask_timeout = timeout;
        self
    }
}
