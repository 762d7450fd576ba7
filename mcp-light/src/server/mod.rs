//! The transport-free server: built once from a [`ServerBuilder`], then
//! frozen — its tools, schemas, dispatchers and names worked out at build
//! time — with the one call path every transport uses.
//!
//! # Files
//!
//! - here: [`Server`], what a built server holds and what a name reaches;
//! - `builder/`: [`ServerBuilder`] and every setting, checked once;
//!   `config_error`: the error a setting answers a value it cannot take
//!   with; `freeze`: what `build` works out once;
//! - `call`: the one call path every transport uses, as one [`Call`]
//!   value; `poll`: how its future runs;
//! - `shown`: what a caller with fewer scopes is shown; `views`: the MCP
//!   Apps viewer's own tools;
//! - `compose`: serving beside an rmcp handler that answers the rest.

pub(crate) mod compose;
mod handler_dispatch;
mod handler_tools;
mod handler_writes;

use std::collections::HashMap;
use std::sync::Arc;

use rmcp::model::Tool;

use crate::context::StateMap;
use crate::call::roundtrip::Talkback;
use crate::continuation::Continuations;
use crate::limits::CallLimits;
use crate::telemetry::ToolMetrics;
use crate::usage::UsageReport;
use crate::server::compose::Delegate;
use crate::tasks::Tasks;
use crate::catalog::tool::ToolDef;
use crate::catalog::dispatch::Dispatcher;
use crate::catalog::registry::Registry;
use crate::tool::surface::Surface;

mod builder;
mod call;
mod freeze;
mod poll;
mod shown;
#[cfg(feature = "apps")]
mod views;

use shown::{Cuts, Listed};

pub use builder::ServerBuilder;
pub(crate) use call::{Call, Client, responded};
pub(crate) use freeze::missing_state;
pub(crate) use handler_tools::AskedDispatcher;
use handler_tools::HandlerToolsSet;
pub use handler_tools::{HandlerTool, HandlerTools};
pub use handler_writes::HandlerWrite;
pub(crate) use handler_writes::interned;

/// A set of tools ready to be called, built once and then frozen: its
/// tools and their schemas, the dispatchers, the host's state and a
/// continuation store.
///
/// A [`ServerBuilder`] makes it ([`Server::from_tools`],
/// [`Server::from_registry`]); [`ServerBuilder::build`] checks every
/// setting and works out what `tools/list` publishes and what each name
/// reaches, so a call looks its tool up and nothing is rebuilt per
/// request. A clone is one reference count: hand one to each listener or
/// task.
///
/// [`Server::call`] is the whole protocol-facing surface: a tool name, JSON
/// arguments and a caller in, the MCP tool result out. Transports are thin
/// layers over it ([`Server::serve_stdio`], [`Server::serve_http`]), and
/// tests need none.
///
/// A program names its server for the MCP handshake with
/// [`ServerBuilder::with_implementation`], usually its own package's
/// `env!("CARGO_PKG_NAME")` and `env!("CARGO_PKG_VERSION")`; otherwise the
/// server calls itself `mcp-light`, in mcp-light's version.
///
/// ```
/// use mcp_light::prelude::*;
/// use mcp_light::testing::AnswerExt;
///
/// /// Says hello.
/// #[mcp_tool]
/// fn greet(name: String) -> String {
///     format!("hello, {name}")
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let server = Server::from_registry().build()?;
/// let result = server.call("greet", serde_json::json!({"name": "edge"}), Caller::Anonymous).await;
/// assert_eq!(result.is_error, Some(false));
/// assert_eq!(result.json().unwrap(), serde_json::json!({"result": "hello, edge"}));
/// # Ok::<(), mcp_light::BuildError>(())
/// # }).unwrap();
/// ```
#[derive(Clone)]
pub struct Server {
    inner: Arc<Built>,
}

/// What a built server holds; nothing in it changes after `build`.
struct Built {
    registry: Registry,
    dispatchers: Vec<Dispatcher>,
    implementation: rmcp::model::Implementation,
    /// Which of the tools and dispatchers are published, and so served.
    surface: Surface,
    state: Arc<StateMap>,
    continuations: Arc<Continuations>,
    /// Counts each answer's tokens into its `_meta`; `None` costs nothing.
    usage: Option<Arc<UsageReport>>,
    /// Answers what is not a tool: prompts, resources, completions
    /// ([`ServerBuilder::with_handler`]), and its own tools if it has any.
    delegate: Arc<dyn Delegate>,
    /// Whether `delegate` advertises tools, read once from its `get_info`:
    /// only then are its tools listed and called, and only then does a
    /// name mcp-light does not serve cost a look at them.
    composed_tools: bool,
    /// What is done with the answers of `delegate`'s tools.
    handler_tools: HandlerToolsSet,
    /// The ask timeout and the request-state key of tools that talk back.
    talkback: Arc<Talkback>,
    /// Bounds on one call: argument strings, the tool's run time.
    limits: CallLimits,
    /// The `tools/list` answer: published tools, then dispatchers.
    tools: Vec<Tool>,
    /// What each of `tools` is.
    listed: Vec<Listed>,
    /// Whether `tools` carry their output schemas.
    output_schemas: bool,
    /// What callers with fewer scopes than the tools name are shown,
    /// worked out once per set.
    cuts: Cuts,
    /// The `tools/list` answer of a client that shows MCP Apps views:
    /// `tools` naming the viewer, then the viewer's own tools.
    #[cfg(feature = "apps")]
    viewed_tools: Vec<Tool>,
    /// Each published tool's call metrics, in `tools`' order.
    metrics: Vec<Arc<ToolMetrics>>,
    /// The metrics of the calls of any other name.
    other_metrics: Arc<ToolMetrics>,
    /// Every name a call may give, and what it reaches. Hashed with
    /// foldhash: the names are fixed at build time, so a caller's string
    /// is only ever looked up, never inserted.
    names: HashMap<Box<str>, NameTarget, foldhash::fast::RandomState>,
    /// The published names, as an unknown tool's error lists them (with a
    /// word of the composed handler's tools, when it has some).
    known: String,
    /// Where calls that became tasks are kept, and how they run.
    tasks: Tasks,
    /// Whether any tool may answer as a task: the server then declares
    /// the tasks extension and answers `tasks/*`.
    offers_tasks: bool,
    /// Whether any tool names the OAuth scopes a call needs: only then is
    /// a call checked against the scopes its token grants.
    scoped: bool,
}

/// What a name reaches on a built server.
#[derive(Debug, Clone, Copy)]
pub(crate) enum NameTarget {
    /// The registered tool at this place of the registry, published at
    /// this place of `tools`.
    Tool { tool: usize, listed: usize },
    /// The dispatcher at this place, published at this place of `tools`.
    Dispatcher { dispatcher: usize, listed: usize },
    /// A registered tool this surface serves only through a dispatcher.
    Routed {
        dispatcher: usize,
        resource: &'static str,
        action: &'static str,
    },
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let built = &*self.inner;
        f.debug_struct("Server")
            .field("tools", &built.registry.len())
            .field(
                "dispatchers",
                &built
                    .dispatchers
                    .iter()
                    .map(Dispatcher::name)
                    .collect::<Vec<_>>(),
            )
            .field("surface", &built.surface)
            .field("state", &built.state)
            .field("continuations", &built.continuations)
            .field("usage_report", &built.usage.is_some())
            .field("limits", &built.limits)
            .finish()
    }
}

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

    /// What serves a call of `name` on this server's side, as an error
    /// names it (code in backticks): a tool's function, a dispatcher, the
    /// viewer. `None` for a name mcp-light does not answer.
    pub(crate) fn served_by(&self, name: &str) -> Option<String> {
        match self.named(name) {
            Some(NameTarget::Tool { tool, .. }) => Some(format!(
                "`{}`",
                self.inner.registry.at(tool).def().function()
            )),
            Some(NameTarget::Routed { .. }) => self
                .inner
                .registry
                .get(name)
                .map(|routed| format!("`{}`", routed.def().function())),
            Some(NameTarget::Dispatcher { .. }) => {
                Some(format!("`ServerBuilder::with_dispatcher(\"{name}\")`"))
            }
            #[cfg(feature = "apps")]
            None if crate::apps::ViewTool::named(name).is_some() => {
                Some("the MCP Apps viewer (the `apps` feature)".to_owned())
            }
            None => None,
        }
    }

    /// Whether the handler composed with [`ServerBuilder::with_handler`]
    /// advertises tools: its tools are then served after this server's.
    pub(crate) fn composes_tools(&self) -> bool {
        self.inner.composed_tools
    }

    /// Whether a call of `name`, which reaches `named` here
    /// ([`Server::named`]), is one of the composed handler's tools: a name
    /// this server does not serve, which the handler advertises tools for
    /// and its `get_tool` knows. A name this server serves costs nothing
    /// more. `named` is taken by value: a call's own copy is never
    /// borrowed, so its future does not keep it across the handler's call.
    #[inline]
    pub(crate) fn reaches_composed(&self, named: Option<NameTarget>, name: &str) -> bool {
        named.is_none() && self.composed_knows(name)
    }

    /// Whether the composed handler advertises tools and its `get_tool`
    /// knows `name`; out of the call path's way, as a name this server
    /// does not serve is rare.
    #[cold]
    #[inline(never)]
    fn composed_knows(&self, name: &str) -> bool {
        self.inner.composed_tools
            && (self.delegate().get_tool(name).is_some() || self.handler_dispatcher(name).is_some())
    }

    /// Every tool `tools/list` shows: the registered tools, then the
    /// dispatchers, as far as the [`Surface`] publishes them, each with its
    /// output schema when the server publishes them. Worked out once, by
    /// [`ServerBuilder::build`]. Over MCP, the tools of a handler composed
    /// with [`ServerBuilder::with_handler`] follow them.
    pub fn tools(&self) -> &[Tool] {
        &self.inner.tools
    }

    /// What `tools/list` answers a client that shows MCP Apps views when
    /// `views`: every tool that has a view naming the viewer, then the
    /// viewer's own tools ([`crate::apps`]). Any other client gets
    /// [`Server::tools`].
    #[cfg(feature = "apps")]
    pub fn tools_for(&self, views: bool) -> &[Tool] {
        match views {
            true => &self.inner.viewed_tools,
            false => &self.inner.tools,
        }
    }

    /// The bounds on one call.
    #[cfg(feature = "apps")]
    pub(crate) fn limits(&self) -> &CallLimits {
        &self.inner.limits
    }

    /// The published tool or dispatcher named `name`, as `tools/list`
    /// shows it; `None` for a name this server does not publish.
    pub fn tool(&self, name: &str) -> Option<&Tool> {
        match self.named(name)? {
            NameTarget::Tool { listed, .. } | NameTarget::Dispatcher { listed, .. } => {
                Some(&self.inner.tools[listed])
            }
            NameTarget::Routed { .. } => None,
        }
    }

    /// The dispatcher named `name`, published or not.
    pub fn dispatcher(&self, name: &str) -> Option<&Dispatcher> {
        self.inner.dispatchers.iter().find(|d| d.name() == name)
    }

    /// The dispatchers, in the order they were added.
    pub fn dispatchers(&self) -> &[Dispatcher] {
        &self.inner.dispatchers
    }

    /// What this server publishes.
    pub fn surface(&self) -> Surface {
        self.inner.surface
    }

    /// What this server calls itself in the MCP handshake
    /// ([`ServerBuilder::with_implementation`]).
    pub fn implementation(&self) -> &rmcp::model::Implementation {
        &self.inner.implementation
    }

    /// The tools this server serves, with the schemas it publishes for
    /// them.
    pub fn registry(&self) -> &Registry {
        &self.inner.registry
    }

    /// The handler composed with [`ServerBuilder::with_handler`], or rmcp's
    /// defaults.
    pub(crate) fn delegate(&self) -> &dyn Delegate {
        &*self.inner.delegate
    }

    /// Where this server's tasks are kept, and how they run.
    pub(crate) fn tasks(&self) -> &Tasks {
        &self.inner.tasks
    }

    /// Whether any of this server's tools may answer as a task.
    pub fn offers_tasks(&self) -> bool {
        self.inner.offers_tasks
    }

    /// The server's usage report, if it keeps one.
    pub(crate) fn usage(&self) -> Option<&Arc<UsageReport>> {
        self.inner.usage.as_ref()
    }

    /// The continuation store and its state, for the readiness probe.
    pub(crate) fn continuations(&self) -> &Continuations {
        &self.inner.continuations
    }

    /// The settings of tools that talk back.
    pub(crate) fn talkback(&self) -> &Arc<Talkback> {
        &self.inner.talkback
    }

    /// What a call naming `name` reaches; `None` for a name this server
    /// does not know.
    pub(crate) fn named(&self, name: &str) -> Option<NameTarget> {
        self.inner.names.get(name).copied()
    }

    /// Whether any tool names the OAuth scopes a call of it needs
    /// (`scopes = [...]`): a server where none does checks no call.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn scoped(&self) -> bool {
        self.inner.scoped
    }

    /// The OAuth scopes a `tools/call` of `name` needs: the tool's own, or,
    /// for a dispatcher, those of the tool `route` (resource, action)
    /// reaches. Empty when nothing is known to need any.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn scopes_of_call(
        &self,
        name: &str,
        route: Option<(&str, &str)>,
    ) -> &'static [&'static str] {
        match self.named(name) {
            Some(NameTarget::Tool { tool, .. }) => self.inner.registry.at(tool).def().scopes(),
            Some(NameTarget::Dispatcher { dispatcher, .. }) => route
                .and_then(|(resource, action)| {
                    self.inner.dispatchers[dispatcher].routed(resource, action)
                })
                .and_then(|routed| self.inner.registry.get(routed))
                .map_or(&[], |routed| routed.def().scopes()),
            Some(NameTarget::Routed { .. }) | None => &[],
        }
    }

    /// The keys a call of what `named` reaches is counted under: a
    /// published tool's or dispatcher's, else those of every other name,
    /// which a caller may make up.
    pub(crate) fn tool_metrics(&self, named: Option<NameTarget>) -> &Arc<ToolMetrics> {
        match named {
            Some(NameTarget::Tool { listed, .. } | NameTarget::Dispatcher { listed, .. }) => {
                &self.inner.metrics[listed]
            }
            Some(NameTarget::Routed { .. }) | None => &self.inner.other_metrics,
        }
    }

    /// Whether a call of what `named` reaches may reach its client: a
    /// dispatcher's may (what it routes to is known once its arguments are
    /// read), a tool's when it takes something that does.
    pub(crate) fn needs_client(&self, named: Option<NameTarget>) -> bool {
        match named {
            Some(NameTarget::Tool { tool, .. }) => {
                self.inner.registry.at(tool).def().needs_client()
            }
            Some(NameTarget::Dispatcher { .. }) => true,
            Some(NameTarget::Routed { .. }) | None => false,
        }
    }
}
