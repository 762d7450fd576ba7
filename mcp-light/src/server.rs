//! The transport-free server: a registry, the host's state, a continuation
//! store, and the one call path every transport uses.

use std::sync::Arc;
use std::time::Duration;

use rmcp::handler::server::ServerHandler;

use crate::compose::{Delegate, no_handler};
use crate::context::StateMap;
use crate::continuation::Continuations;
use crate::dispatch::Dispatcher;
use crate::error::RegistryError;
use crate::heavy::HeavyConfig;
use crate::limits::CallLimits;
use crate::output_schema::{Shape, output_schema};
use crate::registry::{PublishedTool, Registry};
use crate::roundtrip::Talkback;
use crate::store::{ContinuationStore, MemoryStore};
use crate::surface::Surface;
use crate::tool::ToolDef;
use crate::usage::UsageReport;

mod call;

pub(crate) use call::missing_state;

/// A set of tools ready to be called: the registry, the host's state and a
/// continuation store.
///
/// [`Server::call`] is the whole protocol-facing surface: a tool name, JSON
/// arguments and a caller in, the MCP tool result out. Transports are thin
/// layers over it, and tests need none.
///
/// A program names its server for the MCP handshake with
/// [`Server::with_implementation`], usually its own package's
/// `env!("CARGO_PKG_NAME")` and `env!("CARGO_PKG_VERSION")`; otherwise the
/// server calls itself `mcp-light`, in mcp-light's version.
///
/// ```
/// use mcp_light::prelude::*;
///
/// /// Says hello.
/// #[mcp_tool]
/// fn greet(name: String) -> String {
///     format!("hello, {name}")
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let server = Server::from_registry()?;
/// let result = server.call("greet", serde_json::json!({"name": "edge"}), Caller::Anonymous).await;
/// assert_eq!(result.is_error, Some(false));
/// assert_eq!(result.json().unwrap(), serde_json::json!({"result": "hello, edge"}));
/// # Ok::<(), mcp_light::RegistryError>(())
/// # }).unwrap();
/// ```
#[derive(Clone)]
pub struct Server {
    registry: Arc<Registry>,
    implementation: rmcp::model::Implementation,
    dispatchers: Arc<Vec<Dispatcher>>,
    /// Which of the tools and dispatchers are published, and so served.
    surface: Surface,
    /// Whether `tools/list` carries output schemas.
    output_schemas: bool,
    pub(crate) state: Arc<StateMap>,
    continuations: Arc<Continuations>,
    /// Counts each answer's tokens into its `_meta`; `None` costs nothing.
    usage: Option<Arc<UsageReport>>,
    /// Answers what is not a tool: prompts, resources, completions
    /// ([`Server::with_handler`]).
    pub(crate) delegate: Arc<dyn Delegate>,
    /// The ask timeout and the request-state key of tools that talk back.
    pub(crate) talkback: Arc<Talkback>,
    /// Bounds on one call: argument strings, the tool's run time.
    pub(crate) limits: CallLimits,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("tools", &self.registry.len())
            .field(
                "dispatchers",
                &self
                    .dispatchers
                    .iter()
                    .map(Dispatcher::name)
                    .collect::<Vec<_>>(),
            )
            .field("surface", &self.surface)
            .field("output_schemas", &self.output_schemas)
            .field("state", &self.state)
            .field("continuations", &self.continuations)
            .field("usage_report", &self.usage.is_some())
            .field("limits", &self.limits)
            .finish()
    }
}

impl Server {
    /// A server for every tool linked into the binary, with an in-memory
    /// continuation store ([`MemoryStore::default`]).
    ///
    /// A convenience for a program whose binary holds its own tools and no
    /// others: a dependency's tools are linked in too, and served. To serve
    /// exactly the tools a program names, use [`Server::from_tools`].
    pub fn from_registry() -> Result<Server, RegistryError> {
        Ok(Server::new(Registry::collect()?))
    }

    /// A server for exactly the named tools, with an in-memory continuation
    /// store: a tool linked into the binary but not named is not served.
    ///
    /// ```standalone_crate
    /// use mcp_light::prelude::*;
    /// use mcp_light::tools;
    ///
    /// /// Says hello.
    /// #[mcp_tool]
    /// fn greet(name: String) -> String {
    ///     format!("hello, {name}")
    /// }
    ///
    /// /// Says goodbye.
    /// #[mcp_tool]
    /// fn part(name: String) -> String {
    ///     format!("goodbye, {name}")
    /// }
    ///
    /// let server = Server::from_tools(tools![greet])?;
    /// assert!(server.registry().get("greet").is_some());
    /// assert!(server.registry().get("part").is_none());
    /// # Ok::<(), mcp_light::RegistryError>(())
    /// ```
    pub fn from_tools(
        tools: impl IntoIterator<Item = &'static ToolDef>,
    ) -> Result<Server, RegistryError> {
        Ok(Server::new(Registry::from_tools(tools)?))
    }

    /// A server for `registry`, with an in-memory continuation store.
    pub fn new(registry: Registry) -> Server {
        Server {
            registry: Arc::new(registry),
            implementation: rmcp::model::Implementation::new(
                "mcp-light",
                env!("CARGO_PKG_VERSION"),
            ),
            dispatchers: Arc::new(Vec::new()),
            surface: Surface::default(),
            output_schemas: false,
            state: Arc::new(StateMap::default()),
            continuations: Arc::new(Continuations::new(
                Some(Arc::new(MemoryStore::default())),
                HeavyConfig::default(),
            )),
            usage: None,
            delegate: no_handler(),
            talkback: Arc::new(Talkback::default()),
            limits: CallLimits::default(),
        }
    }

    /// Hands `value` to every tool: a tool takes it with a `State(value):
    /// State<T>` parameter, or reads it with [`Context::state`](crate::Context::state). One value per
    /// type; a second of the same type replaces the first. The
    /// [host state recipe](crate::docs::recipes#a-tool-that-reads-host-state)
    /// shows both, and a host that keeps a handle of its own.
    pub fn with_state<T: Send + Sync + 'static>(self, value: T) -> Server {
        self.with_shared_state(Arc::new(value))
    }

    /// Like [`Server::with_state`], for a value the host keeps a handle on
    /// too: tools still take it as `State<T>` or read it as
    /// `ctx.state::<T>()`, and see what the host writes through its handle.
    pub fn with_shared_state<T: Send + Sync + 'static>(mut self, value: Arc<T>) -> Server {
        Arc::make_mut(&mut self.state).insert(value);
        self
    }

    /// Adds a group dispatcher named `name`: one tool taking
    /// `resource`, `action`, `params`, a top-level `verify` and the
    /// negotiation fields, routed to every registered tool that has a
    /// resource and an action. Its schema discloses continuation, so routed
    /// writes answer envelopes with a continuation token.
    ///
    /// Fails when `name` is taken or two tools claim one resource and action.
    ///
    /// ```standalone_crate
    /// use mcp_light::prelude::*;
    /// use serde_json::json;
    ///
    /// #[derive(Serialize, Deserialize, JsonSchema, LightKey)]
    /// pub struct Ticket {
    ///     pub id: u32,
    ///     pub title: String,
    /// }
    ///
    /// /// Fetch a ticket.
    /// #[mcp_tool(resource = "ticket", action = "retrieve")]
    /// fn ticket_get(id: u32) -> Ticket {
    ///     Ticket { id, title: "printer on fire".into() }
    /// }
    ///
    /// /// Open a ticket.
    /// #[mcp_light(create, resource = "ticket", retrieve = ticket_get)]
    /// fn ticket_open(title: String) -> Ticket {
    ///     Ticket { id: 1, title }
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let server = Server::from_registry()?.with_dispatcher("helpdesk")?;
    /// let route = json!({"resource": "ticket", "action": "create", "params": {"title": "printer on fire"}});
    /// let opened = server.call("helpdesk", route, Caller::Process).await;
    /// // The dispatcher's schema has a slot for a token, so the envelope
    /// // carries one and the ticket waits in the store.
    /// let envelope = opened.structured_content.unwrap();
    /// let token = envelope["continuation_token"].as_str().unwrap();
    /// let full = server
    ///     .call("helpdesk", json!({"continuation_token": token, "mode": "full"}), Caller::Process)
    ///     .await;
    /// assert_eq!(full.structured_content.unwrap(), json!({"id": 1, "title": "printer on fire"}));
    /// # Ok::<(), mcp_light::RegistryError>(())
    /// # }).unwrap();
    /// ```
    pub fn with_dispatcher(mut self, name: impl Into<String>) -> Result<Server, RegistryError> {
        let dispatcher =
            Dispatcher::build(name.into(), &self.registry, self.continuations.heavy())?;
        if self.dispatcher(dispatcher.name()).is_some() {
            return Err(RegistryError::DuplicateName {
                name: dispatcher.name().to_owned(),
                first: "a dispatcher".to_owned(),
                second: "another dispatcher".to_owned(),
            });
        }
        Arc::make_mut(&mut self.dispatchers).push(dispatcher);
        Ok(self)
    }

    /// The dispatcher named `name`.
    pub fn dispatcher(&self, name: &str) -> Option<&Dispatcher> {
        self.dispatchers.iter().find(|d| d.name() == name)
    }

    /// The dispatchers, in the order they were added.
    pub fn dispatchers(&self) -> &[Dispatcher] {
        &self.dispatchers
    }

    /// Publishes `surface`: every tool, only the dispatchers (and the tools
    /// no dispatcher reaches), or both, the default. What is not published
    /// is not served; a call to a tool that a dispatcher reaches instead
    /// answers an error naming the dispatcher, the resource and the action.
    ///
    /// An agent given only a dispatcher asks it for one action's parameters
    /// with `describe: true`, and a call whose `params` are wrong answers
    /// the schema they must match.
    ///
    /// ```standalone_crate
    /// use mcp_light::prelude::*;
    /// use mcp_light::Surface;
    ///
    /// /// Fetch one port.
    /// #[mcp_tool(resource = "port", action = "retrieve")]
    /// fn port_get(name: String) -> String {
    ///     name
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let server = Server::from_registry()?
    ///     .with_dispatcher("network")?
    ///     .with_surface(Surface::Dispatcher);
    /// let names: Vec<_> = server.list_tools().into_iter().map(|tool| tool.name).collect();
    /// assert_eq!(names, ["network"]);
    /// let asked = serde_json::json!({"resource": "port", "action": "retrieve", "describe": true});
    /// let described = server.call("network", asked, Caller::Process).await;
    /// assert_eq!(
    ///     described.structured_content.unwrap()["params_schema"],
    ///     serde_json::json!({"type": "object", "properties": {"name": {"type": "string"}},
    ///                        "required": ["name"], "additionalProperties": false})
    /// );
    /// # Ok::<(), mcp_light::RegistryError>(())
    /// # }).unwrap();
    /// ```
    pub fn with_surface(mut self, surface: Surface) -> Server {
        self.surface = surface;
        self
    }

    /// What this server publishes.
    pub fn surface(&self) -> Surface {
        self.surface
    }

    /// Publishes an `outputSchema` for every tool (`false`, the default,
    /// publishes none): an object schema whose `anyOf` lists every shape the
    /// tool answers — its lean envelope, a probe, a page, a summary, a
    /// dispatcher's `describe` answer, and its full result (the `verify`
    /// echo too), which admits any object since the result's own schema is
    /// not recorded. MCP clients validate `structuredContent` against it;
    /// every answer's `structuredContent` is an object (a result that is
    /// not one is wrapped as `{"result": ...}`), as 2025-era clients need.
    ///
    /// Each schema is paid for in every `tools/list`; the inventory
    /// example's token report counts what they add.
    ///
    /// ```
    /// use mcp_light::prelude::*;
    ///
    /// /// Delete a port.
    /// #[mcp_light(destroy, resource = "port")]
    /// fn port_delete(id: u32) {}
    ///
    /// let server = Server::from_registry()?.with_output_schemas(true);
    /// let tool = server.list_tools().into_iter().find(|t| t.name == "port_delete").unwrap();
    /// let schema = tool.output_schema.unwrap();
    /// assert_eq!(schema["type"], "object");
    /// let shapes: Vec<_> = schema["anyOf"].as_array().unwrap().iter().map(|s| &s["title"]).collect();
    /// assert_eq!(shapes, ["envelope", "result"]);
    /// # Ok::<(), mcp_light::RegistryError>(())
    /// ```
    pub fn with_output_schemas(mut self, on: bool) -> Server {
        self.output_schemas = on;
        self
    }

    /// Every tool `tools/list` shows: the registered tools, then the
    /// dispatchers, as far as the [`Surface`] publishes them.
    pub fn list_tools(&self) -> Vec<rmcp::model::Tool> {
        let tools = self
            .registry
            .iter()
            .filter(|tool| self.publishes(tool))
            .map(|published| {
                let mut tool = published.to_tool();
                // Content answers carry no `structuredContent` to validate.
                if self.output_schemas && !published.def().answers_content() {
                    let shapes =
                        Shape::of(published.def().kind(), published.discloses_continuation());
                    tool.output_schema = Some(Arc::new(output_schema(shapes)));
                }
                tool
            });
        let dispatchers = self.published_dispatchers().map(|dispatcher| {
            let mut tool = dispatcher.to_tool();
            let routes_content = dispatcher
                .routed_tools()
                .filter_map(|name| self.registry.get(name))
                .any(|routed| routed.def().answers_content());
            if self.output_schemas && !routes_content {
                let routed = dispatcher
                    .routed_tools()
                    .filter_map(|name| self.registry.get(name))
                    .flat_map(|routed| Shape::of(routed.def().kind(), true));
                let shapes = routed.chain([Shape::Described]);
                tool.output_schema = Some(Arc::new(output_schema(shapes)));
            }
            tool
        });
        tools.chain(dispatchers).collect()
    }

    /// Whether `tool` is published under this server's surface. Only the
    /// dispatcher surface looks for a dispatcher that reaches it, so a flat
    /// call on the default surface pays nothing for the question.
    fn publishes(&self, tool: &PublishedTool) -> bool {
        self.surface.publishes_routed_tools() || self.reached_through(tool.name()).is_none()
    }

    /// The dispatchers published under this server's surface.
    fn published_dispatchers(&self) -> impl Iterator<Item = &Dispatcher> {
        self.dispatchers
            .iter()
            .filter(|_| self.surface.publishes_dispatchers())
    }

    /// The dispatcher that reaches the tool named `tool`, with the resource
    /// and action it routes under.
    fn reached_through(&self, tool: &str) -> Option<(&Dispatcher, &'static str, &'static str)> {
        self.dispatchers.iter().find_map(|dispatcher| {
            dispatcher
                .route_to(tool)
                .map(|(resource, action)| (dispatcher, resource, action))
        })
    }

    /// Keeps continuation results in `store` instead of the default
    /// in-memory one ([`MemoryStore::default`]: 300 s, 64 MiB, 10,000
    /// entries).
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// use mcp_light::store::MemoryStoreConfig;
    /// use mcp_light::{MemoryStore, Server};
    ///
    /// // Results wait ten minutes for their token instead of five.
    /// let config = MemoryStoreConfig::new().with_ttl(Duration::from_secs(600));
    /// let server = Server::from_registry()?.with_store(MemoryStore::new(config));
    /// # Ok::<(), mcp_light::RegistryError>(())
    /// ```
    pub fn with_store(self, store: impl ContinuationStore) -> Server {
        self.with_shared_store(Some(Arc::new(store)))
    }

    /// Keeps continuation results in a store shared with other servers, or
    /// in none: without a store no token is ever minted, writes answer
    /// token-free envelopes or full results and heavy reads answer whole.
    ///
    /// Published schemas follow: every `continuation_token` property says
    /// how long a token lives, the store's [`ttl`](ContinuationStore::ttl).
    ///
    /// ```
    /// use std::sync::Arc;
    ///
    /// use mcp_light::{ContinuationStore, MemoryStore, Server};
    ///
    /// // Two servers, one store (one server per listener, say): a token
    /// // one mints, the other redeems, for the same caller and tool.
    /// let store: Arc<dyn ContinuationStore> = Arc::new(MemoryStore::default());
    /// let first = Server::from_registry()?.with_shared_store(Some(Arc::clone(&store)));
    /// let second = Server::from_registry()?.with_shared_store(Some(store));
    ///
    /// // No store: envelopes without tokens, heavy reads whole.
    /// let tokenless = Server::from_registry()?.with_shared_store(None);
    /// # Ok::<(), mcp_light::RegistryError>(())
    /// ```
    pub fn with_shared_store(mut self, store: Option<Arc<dyn ContinuationStore>>) -> Server {
        let mut heavy = self.continuations.heavy().clone();
        heavy.token_lifetime = store.as_ref().map(|store| store.ttl());
        self.continuations = Arc::new(self.continuations.with_store(store));
        self.republish(heavy)
    }

    /// Sets page sizes, the preview length and the size backstop of heavy
    /// reads. Published schemas follow (the maximum `page_size`).
    pub fn with_heavy_config(self, mut config: HeavyConfig) -> Server {
        // The token's lifetime is the store's, whatever `config` says.
        config.token_lifetime = self.continuations.heavy().token_lifetime;
        self.republish(config)
    }

    /// Publishes every schema again with the limits of `config`.
    fn republish(mut self, config: HeavyConfig) -> Server {
        self.registry = Arc::new(self.registry.republish(&config));
        self.dispatchers = Arc::new(
            self.dispatchers
                .iter()
                .map(|d| d.republish(&config))
                .collect(),
        );
        self.continuations = Arc::new(self.continuations.with_heavy(config));
        self
    }

    /// Reports, in the `_meta` of every `tools/call` answer, what the answer
    /// cost in model tokens and what the full result it stands for would
    /// have cost: under [`USAGE_META_KEY`](crate::USAGE_META_KEY), for the
    /// `cl100k_base` and `o200k_base` encodings, `{"answer": n, "full": m}`.
    /// Off by default; `false` switches it off again.
    ///
    /// The full result is the echo a lean envelope replaced, or the stored
    /// result behind a probe or a redemption; for an answer that is the
    /// result itself the two are equal. Counting costs time on every call
    /// (the example's figures are in the project's `BENCHMARKS.md`); a
    /// server without the report spends none.
    ///
    /// Needs the cargo feature `usage`.
    ///
    /// ```
    /// use mcp_light::prelude::*;
    ///
    /// /// Lists interface names.
    /// #[mcp_tool]
    /// fn interfaces(n: usize) -> Vec<String> {
    ///     (0..n).map(|i| format!("eth{i}")).collect()
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let server = Server::from_registry()?.with_usage_report(true);
    /// let result = server.call("interfaces", serde_json::json!({"n": 3}), Caller::Process).await;
    /// let usage = &result.meta.unwrap().0[mcp_light::USAGE_META_KEY];
    /// // `["eth0","eth1","eth2"]` is its own full result.
    /// assert_eq!(usage["cl100k_base"]["answer"], usage["cl100k_base"]["full"]);
    /// assert!(usage["o200k_base"]["answer"].as_u64().unwrap() > 0);
    /// # Ok::<(), mcp_light::RegistryError>(())
    /// # }).unwrap();
    /// ```
    #[cfg(feature = "usage")]
    pub fn with_usage_report(mut self, on: bool) -> Server {
        self.usage = on.then(|| Arc::new(UsageReport::new()));
        self
    }

    /// Refuses a call whose arguments hold a string, or an object key,
    /// longer than `bytes`, before any tool runs: the `isError` answer names
    /// where the string is (`device.name`), its length and the limit.
    /// The default is [`DEFAULT_MAX_ARGUMENT_STRING`](crate::DEFAULT_MAX_ARGUMENT_STRING),
    /// 64 KiB. A transport bounds the whole request as well (4 MiB over
    /// HTTP, one line of 4 MiB over stdio, by default).
    ///
    /// ```
    /// use mcp_light::prelude::*;
    ///
    /// /// Echoes a note.
    /// #[mcp_tool]
    /// fn note(text: String) -> String {
    ///     text
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let server = Server::from_registry()?.with_max_argument_string(8);
    /// let refused = server.call("note", serde_json::json!({"text": "far too long"}), Caller::Process).await;
    /// assert_eq!(refused.is_error, Some(true));
    /// # Ok::<(), mcp_light::RegistryError>(())
    /// # }).unwrap();
    /// ```
    pub fn with_max_argument_string(mut self, bytes: usize) -> Server {
        self.limits.max_argument_string = bytes;
        self
    }

    /// Stops a tool that has not finished within `deadline` (`None`: no
    /// deadline): the call answers an `isError` result naming the tool and
    /// the deadline, and the tool's future is dropped, so it runs no
    /// further. The default is [`DEFAULT_TOOL_DEADLINE`](crate::DEFAULT_TOOL_DEADLINE), 5 min.
    ///
    /// Time a tool spends waiting for the client — an elicitation the user
    /// answers, a sampling request — counts: keep the deadline above the ask
    /// timeout ([`Server::with_ask_timeout`]; both default to 5 min) when
    /// tools ask the user.
    ///
    /// Work the tool handed to another task (`tokio::task::spawn_blocking`,
    /// a spawned task) is not stopped with it and may still complete: the
    /// answer tells the caller to read before retrying a write. So is a
    /// synchronous tool function, which runs on the blocking pool: its call
    /// is answered at the deadline, and the function runs on to its end. The
    /// deadline is armed once the tool first waits, using tokio's timer; on
    /// a runtime built without its time driver (`#[tokio::main]` and
    /// `#[tokio::test]` enable it) tools run without a deadline.
    pub fn with_tool_deadline(mut self, deadline: Option<Duration>) -> Server {
        self.limits.tool_deadline = deadline;
        self
    }

    /// Names this server in the MCP handshake: the `serverInfo` a client
    /// shows its user and writes in its logs. Without it, a server calls
    /// itself `mcp-light`, in mcp-light's version.
    ///
    /// A program passes its own package's name and version,
    /// `.with_implementation(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))`
    /// (the quick start does):
    ///
    /// ```
    /// use mcp_light::Server;
    ///
    /// let server = Server::from_registry()?.with_implementation("my-tools", "0.1.0");
    /// assert_eq!(server.implementation().name, "my-tools");
    /// assert_eq!(server.implementation().version, "0.1.0");
    ///
    /// let unnamed = Server::from_registry()?;
    /// assert_eq!(unnamed.implementation().name, "mcp-light");
    /// # Ok::<(), mcp_light::RegistryError>(())
    /// ```
    pub fn with_implementation(
        mut self,
        name: impl Into<String>,
        version: impl Into<String>,
    ) -> Server {
        self.implementation = rmcp::model::Implementation::new(name, version);
        self
    }

    /// Serves `handler` beside this server's tools: `tools/list`,
    /// `tools/call` and `logging/setLevel` are mcp-light's, every other
    /// request (prompts, resources, their templates and directories,
    /// subscriptions, completions, skills, tasks, custom requests) and
    /// every notification (progress, cancellations, roots, custom ones) is
    /// `handler`'s. The handshake (`initialize`, `server/discover`) answers
    /// what `handler` answers, its capabilities, instructions and protocol
    /// versions, with mcp-light's tools and logging added; the server's
    /// name and version stay [`Server::with_implementation`]'s. So every
    /// capability the client is told of is served. [`Server::serve_stdio`],
    /// [`Server::serve_http`] and [`Server::http_service`] serve the
    /// composition; a second call replaces the handler.
    ///
    /// The handler's own tools, if it has any, are not served: tools are
    /// mcp-light's. A client's cancellation of a tool call still stops the
    /// tool ([`Context::cancelled`](crate::Context::cancelled)); `handler` hears of it too.
    ///
    /// Write the handler with [`mcp_light::rmcp`](crate::rmcp), the rmcp
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
    /// let server = Server::from_registry()?.with_handler(Prompts);
    /// # Ok::<(), mcp_light::RegistryError>(())
    /// ```
    pub fn with_handler<H: ServerHandler>(mut self, handler: H) -> Server {
        self.delegate = Arc::new(handler);
        self
    }

    /// What this server calls itself in the MCP handshake
    /// ([`Server::with_implementation`]).
    pub fn implementation(&self) -> &rmcp::model::Implementation {
        &self.implementation
    }

    /// The tools this server serves.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }
}

impl Server {
    /// Checks that every tool finds the host state it takes
    /// ([`State<T>`](crate::State), or any [`FromCall`](crate::FromCall) extractor that declares a
    /// need): an error names the first tool and type missing. Call it once
    /// the state is registered, before serving.
    ///
    /// ```standalone_crate
    /// use mcp_light::prelude::*;
    ///
    /// struct Clock;
    ///
    /// /// Ticks.
    /// #[mcp_tool]
    /// fn tick(State(_clock): State<Clock>) -> u32 {
    ///     1
    /// }
    ///
    /// let error = Server::from_registry()?.check_state().unwrap_err();
    /// assert!(error.to_string().contains("`tick`"));
    /// Server::from_registry()?.with_state(Clock).check_state()?;
    /// # Ok::<(), mcp_light::RegistryError>(())
    /// ```
    pub fn check_state(&self) -> Result<(), RegistryError> {
        missing_state(self.registry().iter().map(|tool| tool.def()), &self.state)
    }
}
