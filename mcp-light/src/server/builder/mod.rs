//! The builder a [`Server`] is made with: every setting, checked once by
//! [`ServerBuilder::build`].

use std::sync::Arc;
use std::time::Duration;

use crate::call::roundtrip::TalkbackConfig;
use crate::catalog::registry::Registry;
use crate::clients::ClientTable;
use crate::context::StateMap;
use crate::error::config::{ConfigError, Unit};
use crate::error::tool::BuildError;
use crate::heavy::HeavyConfig;
use crate::limits::CallLimits;
use crate::server::compose::{Delegate, no_handler};
use crate::store::{ContinuationStore, MemoryStore};
use crate::tasks::TaskConfig;
use crate::tool::surface::Surface;
use crate::usage::UsageReport;

use super::{HandlerToolsSet, Server};

mod talk;

use crate::catalog::tool::ToolDef;

/// The builders a program starts from.
impl Server {
    /// A builder for every tool linked into the binary, with an in-memory
    /// continuation store ([`MemoryStore::default`](crate::store::MemoryStore::default)).
    ///
    /// A convenience for a program whose binary holds its own tools and no
    /// others: a dependency's tools are linked in too, and served. To serve
    /// exactly the tools a program names, use [`Server::from_tools`].
    pub fn from_registry() -> ServerBuilder {
        ServerBuilder::new(Registry::collect())
    }

    /// A builder for exactly the named tools, with an in-memory
    /// continuation store: a tool linked into the binary but not named is
    /// not served.
    ///
    /// ```standalone_crate
    /// use mcp_light::prelude::*;
    /// use mcp_light::testing::AnswerExt;
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
    /// let server = Server::from_tools(tools![greet]).build()?;
    /// assert!(server.tool("greet").is_some());
    /// assert!(server.tool("part").is_none());
    /// # Ok::<(), mcp_light::BuildError>(())
    /// ```
    pub fn from_tools(tools: impl IntoIterator<Item = &'static ToolDef>) -> ServerBuilder {
        ServerBuilder::new(Registry::from_tools(tools))
    }

    /// A builder for the tools of `registry`, with an in-memory
    /// continuation store.
    pub fn builder(registry: Registry) -> ServerBuilder {
        ServerBuilder::new(Ok(registry))
    }
}

/// A [`Server`] being set up: its tools, the host's state, a continuation
/// store, dispatchers and limits. [`ServerBuilder::build`] checks them all
/// at once and freezes them into the server that serves.
///
/// Made by [`Server::from_tools`] (the tools a program names),
/// [`Server::from_registry`] (every tool linked into the binary) or
/// [`Server::builder`] (a [`Registry`] already checked). Each `with_*`
/// setting returns the builder; a setting that takes a value it cannot
/// use says so at once with a [`ConfigError`], and what depends on several
/// settings (a dispatcher's routes, the state each tool takes, the page
/// sizes) is checked by `build`.
///
/// ```standalone_crate
/// use mcp_light::prelude::*;
/// use mcp_light::tools;
///
/// struct Greeting(&'static str);
///
/// /// Greets warmly.
/// #[mcp_tool]
/// fn greet_warmly(State(greeting): State<Greeting>, name: String) -> String {
///     format!("{}, {name}", greeting.0)
/// }
///
/// let error = Server::from_tools(tools![greet_warmly]).build().unwrap_err();
/// assert!(error.to_string().contains("`greet_warmly`"), "{error}");
/// let server = Server::from_tools(tools![greet_warmly])
///     .with_state(Greeting("hello"))
///     .build()?;
/// # Ok::<(), mcp_light::BuildError>(())
/// ```
#[must_use = "a builder does nothing until `build` makes the server"]
pub struct ServerBuilder {
    /// The tools, or why they could not be gathered (reported by `build`).
    registry: Result<Registry, BuildError>,
    implementation: rmcp::model::Implementation,
    dispatchers: Vec<String>,
    surface: Surface,
    output_schemas: bool,
    state: StateMap,
    store: Option<Arc<dyn ContinuationStore>>,
    heavy: HeavyConfig,
    usage: Option<Arc<UsageReport>>,
    delegate: Arc<dyn Delegate>,
    handler_tools: HandlerToolsSet,
    talkback: TalkbackConfig,
    limits: CallLimits,
    tasks: TaskConfig,
}

impl std::fmt::Debug for ServerBuilder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerBuilder")
            .field("tools", &self.registry.as_ref().map(Registry::len))
            .field("dispatchers", &self.dispatchers)
            .field("surface", &self.surface)
            .field("output_schemas", &self.output_schemas)
            .field("state", &self.state)
            .field("store", &self.store.is_some())
            .field("heavy", &self.heavy)
            .field("usage_report", &self.usage.is_some())
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

impl ServerBuilder {
    pub(super) fn new(registry: Result<Registry, BuildError>) -> ServerBuilder {
        ServerBuilder {
            registry,
            implementation: rmcp::model::Implementation::new(
                "mcp-light",
                env!("CARGO_PKG_VERSION"),
            ),
            dispatchers: Vec::new(),
            surface: Surface::default(),
            output_schemas: false,
            state: StateMap::default(),
            store: Some(Arc::new(MemoryStore::default())),
            heavy: HeavyConfig::default(),
            usage: None,
            delegate: no_handler(),
            handler_tools: HandlerToolsSet::default(),
            talkback: TalkbackConfig::default(),
            limits: CallLimits::default(),
            tasks: TaskConfig::default(),
        }
    }

    /// Checks every setting and makes the server: the tools found and
    /// named uniquely, each tool's host state registered, each dispatcher's
    /// name free and its routes unambiguous, the page sizes consistent, a
    /// request-state key drawn at random unless one was given.
    /// Published schemas, the `tools/list` answer and the name of every
    /// tool are worked out here, once; the server never rebuilds them.
    /// The units of mcp-light's metrics are registered with the `metrics`
    /// recorder installed now ([`describe_metrics`](crate::telemetry::describe_metrics)).
    ///
    /// Fails with the first problem found, in that order.
    pub fn build(self) -> Result<Server, BuildError> {
        let registry = self.registry?;
        super::missing_state(registry.iter().map(|tool| tool.def()), &self.state)?;
        let mut heavy = self.heavy;
        check_heavy(&heavy)?;
        self.tasks.check()?;
        let talkback = self.talkback.build()?;
        // The units of mcp-light's metrics, for the recorder installed now.
        crate::telemetry::describe_metrics();
        // A token lives as long as the store keeps it, whatever was set.
        heavy.token_lifetime = self.store.as_ref().map(|store| store.ttl());
        Server::freeze(super::freeze::Frozen {
            registry: registry.republish(&heavy),
            dispatchers: self.dispatchers,
            implementation: self.implementation,
            surface: self.surface,
            output_schemas: self.output_schemas,
            state: Arc::new(self.state),
            store: self.store,
            heavy,
            usage: self.usage,
            delegate: self.delegate,
            handler_tools: self.handler_tools,
            talkback: Arc::new(talkback),
            limits: self.limits,
            tasks: self.tasks,
        })
    }

    /// Sizes answers by `clients`: what each client, by the name it gives
    /// itself in `clientInfo`, keeps of an answer, and what a client the
    /// table does not name keeps
    /// ([`clients`](crate::clients); by default [`ClientTable::new`]).
    ///
    /// ```
    /// use mcp_light::Server;
    /// use mcp_light::clients::ClientTable;
    ///
    /// let clients = ClientTable::new().with_client("acme-agent", 6_000)?;
    /// let server = Server::from_registry().with_clients(clients).build()?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn with_clients(mut self, clients: ClientTable) -> ServerBuilder {
        self.limits.clients = clients;
        self
    }

    /// Sets the most bytes a bulk write's envelope takes listing the
    /// written objects' ids beside its continuation token (default
    /// [`defaults::ENVELOPE_BYTES`](crate::defaults::ENVELOPE_BYTES),
    /// 1,024). Past it, and past what the calling client keeps, the envelope
    /// carries the count and the token, which pages every object in the
    /// order written. 0 never lists ids beside a token. Without a token
    /// (no store) the envelope lists every id whatever this says: nothing
    /// else would reach them.
    pub fn with_envelope_bytes(mut self, bytes: usize) -> ServerBuilder {
        self.limits.envelope_bytes = bytes;
        self
    }

    /// Hands `value` to every tool: a tool takes it with a `State(value):
    /// State<T>` parameter, or reads it with [`Context::state`](crate::Context::state). One value per
    /// type; a second of the same type replaces the first. The
    /// [host state recipe](crate::docs::recipes#a-tool-that-reads-host-state)
    /// shows both, and a host that keeps a handle of its own.
    pub fn with_state<T: Send + Sync + 'static>(self, value: T) -> ServerBuilder {
        self.with_shared_state(Arc::new(value))
    }

    /// Like [`ServerBuilder::with_state`], for a value the host keeps a
    /// handle on too: tools still take it as `State<T>` or read it as
    /// `ctx.state::<T>()`, and see what the host writes through its handle.
    pub fn with_shared_state<T: Send + Sync + 'static>(mut self, value: Arc<T>) -> ServerBuilder {
        self.state.insert(value);
        self
    }

    /// Adds a group dispatcher named `name`: one tool taking
    /// `resource`, `action`, `params`, a top-level `verify` and the
    /// negotiation fields, routed to every registered tool that has a
    /// resource and an action. Its schema discloses continuation, so routed
    /// writes answer envelopes with a continuation token.
    ///
    /// [`ServerBuilder::build`] fails when `name` is taken or two tools
    /// claim one resource and action.
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
    /// let server = Server::from_registry().with_dispatcher("helpdesk").build()?;
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
    /// # Ok::<(), mcp_light::BuildError>(())
    /// # }).unwrap();
    /// ```
    pub fn with_dispatcher(mut self, name: impl Into<String>) -> ServerBuilder {
        self.dispatchers.push(name.into());
        self
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
    /// use mcp_light::catalog::Surface;
    ///
    /// /// Fetch one port.
    /// #[mcp_tool(resource = "port", action = "retrieve")]
    /// fn port_get(name: String) -> String {
    ///     name
    /// }
    ///
    /// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
    /// let server = Server::from_registry()
    ///     .with_dispatcher("network")
    ///     .with_surface(Surface::Dispatcher)
    ///     .build()?;
    /// let names: Vec<_> = server.tools().iter().map(|tool| &tool.name).collect();
    /// assert_eq!(names, ["network"]);
    /// let asked = serde_json::json!({"resource": "port", "action": "retrieve", "describe": true});
    /// let described = server.call("network", asked, Caller::Process).await;
    /// assert_eq!(
    ///     described.structured_content.unwrap()["params_schema"],
    ///     // Spelled for the model that reads it: what only a validator
    ///     // reads is left to the flat tool's published schema.
    ///     serde_json::json!({"properties": {"name": {"type": "string"}}, "required": ["name"]})
    /// );
    /// # Ok::<(), mcp_light::BuildError>(())
    /// # }).unwrap();
    /// ```
    pub fn with_surface(mut self, surface: Surface) -> ServerBuilder {
        self.surface = surface;
        self
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
    /// let server = Server::from_registry().with_output_schemas(true).build()?;
    /// let schema = server.tool("port_delete").unwrap().output_schema.clone().unwrap();
    /// assert_eq!(schema["type"], "object");
    /// let shapes: Vec<_> = schema["anyOf"].as_array().unwrap().iter().map(|s| &s["title"]).collect();
    /// assert_eq!(shapes, ["envelope", "result"]);
    /// # Ok::<(), mcp_light::BuildError>(())
    /// ```
    pub fn with_output_schemas(mut self, on: bool) -> ServerBuilder {
        self.output_schemas = on;
        self
    }

    /// Keeps continuation results in `store` instead of the default
    /// in-memory one ([`MemoryStore::default`]: 300 s, 64 MiB, 10,000
    /// entries).
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// use mcp_light::Server;
    /// use mcp_light::store::{MemoryStore, MemoryStoreConfig};
    ///
    /// // Results wait ten minutes for their token instead of five.
    /// let config = MemoryStoreConfig::new().with_ttl(Duration::from_secs(600));
    /// let server = Server::from_registry().with_store(MemoryStore::new(config)).build()?;
    /// # Ok::<(), mcp_light::BuildError>(())
    /// ```
    pub fn with_store(self, store: impl ContinuationStore) -> ServerBuilder {
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
    /// use mcp_light::Server;
    /// use mcp_light::store::{ContinuationStore, MemoryStore};
    ///
    /// // Two servers, one store (one server per listener, say): a token
    /// // one mints, the other redeems, for the same caller and tool.
    /// let store: Arc<dyn ContinuationStore> = Arc::new(MemoryStore::default());
    /// let first = Server::from_registry().with_shared_store(Some(Arc::clone(&store))).build()?;
    /// let second = Server::from_registry().with_shared_store(Some(store)).build()?;
    ///
    /// // No store: envelopes without tokens, heavy reads whole.
    /// let tokenless = Server::from_registry().with_shared_store(None).build()?;
    /// # Ok::<(), mcp_light::BuildError>(())
    /// ```
    pub fn with_shared_store(mut self, store: Option<Arc<dyn ContinuationStore>>) -> ServerBuilder {
        self.store = store;
        self
    }

    /// Sets page sizes, the preview length and the size backstop of heavy
    /// reads. Published schemas follow (the maximum `page_size`), and every
    /// page is refused or served by the same numbers.
    ///
    /// [`ServerBuilder::build`] fails when a size is 0 or the default page
    /// is larger than the largest one a caller may ask for.
    pub fn with_heavy_config(mut self, config: HeavyConfig) -> ServerBuilder {
        self.heavy = config;
        self
    }

    /// Reports, in the `_meta` of every `tools/call` answer, what the answer
    /// cost in model tokens and what the full result it stands for would
    /// have cost: under [`USAGE_META_KEY`](crate::telemetry::USAGE_META_KEY), for the
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
    /// let server = Server::from_registry().with_usage_report(true).build()?;
    /// let result = server.call("interfaces", serde_json::json!({"n": 3}), Caller::Process).await;
    /// let usage = &result.meta.unwrap().0[mcp_light::telemetry::USAGE_META_KEY];
    /// // `["eth0","eth1","eth2"]` is its own full result.
    /// assert_eq!(usage["cl100k_base"]["answer"], usage["cl100k_base"]["full"]);
    /// assert!(usage["o200k_base"]["answer"].as_u64().unwrap() > 0);
    /// # Ok::<(), mcp_light::BuildError>(())
    /// # }).unwrap();
    /// ```
    #[cfg(feature = "usage")]
    pub fn with_usage_report(mut self, on: bool) -> ServerBuilder {
        self.usage = on.then(|| Arc::new(UsageReport::new()));
        self
    }

    /// Refuses a call whose arguments hold a string, or an object key,
    /// longer than `bytes`, before any tool runs: the `isError` answer names
    /// where the string is (`device.name`), its length and the limit.
    /// The default is [`defaults::MAX_ARGUMENT_STRING`](crate::defaults::MAX_ARGUMENT_STRING),
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
    /// let server = Server::from_registry().with_max_argument_string(8).build()?;
    /// let refused = server.call("note", serde_json::json!({"text": "far too long"}), Caller::Process).await;
    /// assert_eq!(refused.is_error, Some(true));
    /// # Ok::<(), mcp_light::BuildError>(())
    /// # }).unwrap();
    /// ```
    pub fn with_max_argument_string(mut self, bytes: usize) -> ServerBuilder {
        self.limits.max_argument_string = bytes;
        self
    }

    /// Stops a tool that has not finished within `deadline` (`None`: no
    /// deadline): the call answers an `isError` result naming the tool and
    /// the deadline, and the tool's future is dropped, so it runs no
    /// further. The default is [`defaults::TOOL_DEADLINE`](crate::defaults::TOOL_DEADLINE), 5 min.
    ///
    /// Time a tool spends waiting for the client — an elicitation the user
    /// answers, a sampling request — counts: keep the deadline above the ask
    /// timeout ([`ServerBuilder::with_ask_timeout`]; both default to 5 min)
    /// when tools ask the user.
    ///
    /// Work the tool handed to another task (`tokio::task::spawn_blocking`,
    /// a spawned task) is not stopped with it and may still complete: the
    /// answer tells the caller to read before retrying a write. So is a
    /// synchronous tool function, which runs on the blocking pool: its call
    /// is answered at the deadline, and the function runs on to its end. The
    /// deadline is armed once the tool first waits, on the server's own
    /// clock (one thread, started with the first deadline armed and ended
    /// once the server and its last running call are dropped), so it holds
    /// on any runtime, one built without tokio's time driver included; it
    /// follows the wall clock, so a test that pauses tokio's clock does not
    /// pause it.
    pub fn with_tool_deadline(mut self, deadline: Option<Duration>) -> ServerBuilder {
        self.limits.tool_deadline = deadline;
        self
    }

    /// Sets how calls of task-capable tools (`task` in their attribute)
    /// become tasks, and how tasks are kept and followed; see
    /// [`crate::tasks`]. [`ServerBuilder::build`] fails on a zero
    /// interval or lease, or a watch interval not shorter than the lease.
    pub fn with_task_config(mut self, config: TaskConfig) -> ServerBuilder {
        self.tasks = config;
        self
    }

    /// Answers a task-capable call inline when it finishes within `after`
    /// and as a task otherwise (default 1 s). With zero, a call still
    /// pending at its first poll becomes a task, and one that finishes at
    /// its first poll (its tool never waits, or what it waits on is
    /// already there) is answered inline. The rest of the task settings
    /// are kept ([`ServerBuilder::with_task_config`]).
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_light::Server;
    ///
    /// let server = Server::from_registry().with_task_after(Duration::ZERO).build()?;
    /// # Ok::<(), mcp_light::BuildError>(())
    /// ```
    pub fn with_task_after(mut self, after: Duration) -> ServerBuilder {
        self.tasks = self.tasks.with_after(after);
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
    /// let server = Server::from_registry().with_implementation("my-tools", "0.1.0").build()?;
    /// assert_eq!(server.implementation().name, "my-tools");
    /// assert_eq!(server.implementation().version, "0.1.0");
    ///
    /// let unnamed = Server::from_registry().build()?;
    /// assert_eq!(unnamed.implementation().name, "mcp-light");
    /// # Ok::<(), mcp_light::BuildError>(())
    /// ```
    pub fn with_implementation(
        mut self,
        name: impl Into<String>,
        version: impl Into<String>,
    ) -> ServerBuilder {
        self.implementation = rmcp::model::Implementation::new(name, version);
        self
    }
}

/// Page sizes a server can serve by: none of 0, the default no larger than
/// the largest a caller may ask for. A [`HeavyConfig`]'s fields are public,
/// so the checks of its `with_*` setters are made again, by the setters.
fn check_heavy(heavy: &HeavyConfig) -> Result<(), ConfigError> {
    heavy
        .clone()
        .with_max_page_size(heavy.max_page_size)?
        .with_default_page_size(heavy.default_page_size)?
        .with_max_filter_keys(heavy.max_filter_keys)?;
    // The field as set, not as `with_max_page_size` would bring it down.
    if heavy.default_page_size > heavy.max_page_size {
        return Err(ConfigError::between(
            "HeavyConfig::default_page_size",
            heavy.default_page_size as u64,
            (1, heavy.max_page_size as u64),
            (Unit::Count, HeavyConfig::DEFAULT_PAGE_SIZE as u64),
            "the page size when the caller gives none, at most `max_page_size`",
        ));
    }
    Ok(())
}
