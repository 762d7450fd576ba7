//! [`Server`]: what [`ServerBuilder::build`](crate::ServerBuilder::build) returns, and what it serves.

use super::handler_config::HandlerToolsSet;
use super::shown::{Cuts, Listed};
use crate::call::roundtrip::Talkback;
use crate::catalog::dispatch::Dispatcher;
use crate::catalog::registry::Registry;
use crate::context::StateMap;
use crate::continuation::Continuations;
use crate::limits::CallLimits;
use crate::server::compose::Delegate;
use crate::tasks::Tasks;
use crate::telemetry::ToolMetrics;
use crate::tool::surface::Surface;
use crate::usage::UsageReport;
use rmcp::model::Tool;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::PoisonError;

#[cfg(feature = "apps")]
use super::shown::viewed_tools;
use super::shown::{Cut, KEPT_CUTS, Shown, listed_dispatcher};
use crate::principal::GrantedScopes;

/// A set of tools ready to be called, built once and then frozen: its
/// tools and their schemas, the dispatchers, the host's state and a
/// continuation store.
///
/// A [`ServerBuilder`](crate::ServerBuilder) makes it ([`Server::from_tools`],
/// [`Server::from_registry`]); [`ServerBuilder::build`](crate::ServerBuilder::build) checks every
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
/// [`ServerBuilder::with_implementation`](crate::ServerBuilder::with_implementation), usually its own package's
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
    pub(crate) inner: Arc<Built>,
}

/// What a built server holds; nothing in it changes after `build`.
pub(crate) struct Built {
    pub(crate) registry: Registry,
    pub(crate) dispatchers: Vec<Dispatcher>,
    pub(crate) implementation: rmcp::model::Implementation,
    /// Which of the tools and dispatchers are published, and so served.
    pub(crate) surface: Surface,
    pub(crate) state: Arc<StateMap>,
    pub(crate) continuations: Arc<Continuations>,
    /// Counts each answer's tokens into its `_meta`; `None` costs nothing.
    pub(crate) usage: Option<Arc<UsageReport>>,
    /// Answers what is not a tool: prompts, resources, completions
    /// ([`ServerBuilder::with_handler`](crate::ServerBuilder::with_handler)), and its own tools if it has any.
    pub(crate) delegate: Arc<dyn Delegate>,
    /// Whether `delegate` advertises tools, read once from its `get_info`:
    /// only then are its tools listed and called, and only then does a
    /// name mcp-light does not serve cost a look at them.
    pub(crate) composed_tools: bool,
    /// What is done with the answers of `delegate`'s tools.
    pub(crate) handler_tools: HandlerToolsSet,
    /// The ask timeout and the request-state key of tools that talk back.
    pub(crate) talkback: Arc<Talkback>,
    /// Bounds on one call: argument strings, the tool's run time.
    pub(crate) limits: CallLimits,
    /// The `tools/list` answer: published tools, then dispatchers.
    pub(crate) tools: Vec<Tool>,
    /// What each of `tools` is.
    pub(crate) listed: Vec<Listed>,
    /// Whether `tools` carry their output schemas.
    pub(crate) output_schemas: bool,
    /// What callers with fewer scopes than the tools name are shown,
    /// worked out once per set.
    pub(crate) cuts: Cuts,
    /// The `tools/list` answer of a client that shows MCP Apps views:
    /// `tools` naming the viewer, then the viewer's own tools.
    #[cfg(feature = "apps")]
    pub(crate) viewed_tools: Vec<Tool>,
    /// Each published tool's call metrics, in `tools`' order.
    pub(crate) metrics: Vec<Arc<ToolMetrics>>,
    /// The metrics of the calls of any other name.
    pub(crate) other_metrics: Arc<ToolMetrics>,
    /// Every name a call may give, and what it reaches. Hashed with
    /// foldhash: the names are fixed at build time, so a caller's string
    /// is only ever looked up, never inserted.
    pub(crate) names: HashMap<Box<str>, NameTarget, foldhash::fast::RandomState>,
    /// The published names, as an unknown tool's error lists them (with a
    /// word of the composed handler's tools, when it has some).
    pub(crate) known: String,
    /// Where calls that became tasks are kept, and how they run.
    pub(crate) tasks: Tasks,
    /// Whether any tool may answer as a task: the server then declares
    /// the tasks extension and answers `tasks/*`.
    pub(crate) offers_tasks: bool,
    /// Whether any tool names the OAuth scopes a call needs: only then is
    /// a call checked against the scopes its token grants.
    pub(crate) scoped: bool,
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

    /// Whether the handler composed with [`ServerBuilder::with_handler`](crate::ServerBuilder::with_handler)
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
    /// [`ServerBuilder::build`](crate::ServerBuilder::build). Over MCP, the tools of a handler composed
    /// with [`ServerBuilder::with_handler`](crate::ServerBuilder::with_handler) follow them.
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
    /// ([`ServerBuilder::with_implementation`](crate::ServerBuilder::with_implementation)).
    pub fn implementation(&self) -> &rmcp::model::Implementation {
        &self.inner.implementation
    }

    /// The tools this server serves, with the schemas it publishes for
    /// them.
    pub fn registry(&self) -> &Registry {
        &self.inner.registry
    }

    /// The handler composed with [`ServerBuilder::with_handler`](crate::ServerBuilder::with_handler), or rmcp's
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

impl Server {
    /// What `tools/list` answers a caller whose token grants `granted`
    /// (`None`: it does not say, and is shown everything), a client that
    /// shows MCP Apps views when `views`.
    pub(crate) fn tools_shown(&self, views: bool, granted: Option<&GrantedScopes>) -> Shown<'_> {
        match granted.and_then(|granted| self.cut(granted)) {
            Some(cut) => Shown::Cut(cut, views),
            #[cfg(feature = "apps")]
            None => Shown::All(self.tools_for(views)),
            #[cfg(not(feature = "apps"))]
            None => {
                let _ = views;
                Shown::All(self.tools())
            }
        }
    }

    /// What `tools/list` answers a caller whose access token grants
    /// `granted`, on a server whose tools name OAuth scopes: the tools
    /// those scopes allow, each dispatcher with only the actions they
    /// allow (left out when none is). A server none of whose tools names a
    /// scope shows every caller [`Server::tools`]. A caller may still call
    /// a tool it is not shown: the call is answered `insufficient_scope`,
    /// naming the scope to ask for.
    ///
    /// Worked out once per distinct set of the scopes the tools name, and
    /// kept.
    pub fn tools_granted(&self, granted: &GrantedScopes) -> Vec<Tool> {
        self.tools_shown(false, Some(granted)).to_vec()
    }

    /// The cut `granted` is shown, worked out the first time a set like it
    /// is seen; `None` on a server without scopes, or for scopes that
    /// allow everything.
    pub(super) fn cut(&self, granted: &GrantedScopes) -> Option<Arc<Cut>> {
        let cuts = &self.inner.cuts;
        if !self.inner.scoped {
            return None;
        }
        let key = cuts.key(granted)?;
        let kept = cuts.kept.read().unwrap_or_else(PoisonError::into_inner);
        if let Some(cut) = kept.get(&key) {
            return Some(Arc::clone(cut));
        }
        let full = kept.len() >= KEPT_CUTS;
        drop(kept);
        let cut = Arc::new(self.cut_for(granted));
        if !full {
            let mut kept = cuts.kept.write().unwrap_or_else(PoisonError::into_inner);
            kept.entry(key).or_insert_with(|| Arc::clone(&cut));
        }
        Some(cut)
    }

    /// Works out what `granted` is shown, from the list the server was
    /// built with.
    fn cut_for(&self, granted: &GrantedScopes) -> Cut {
        let built = &*self.inner;
        let registry = &built.registry;
        let allows = |name: &str| {
            registry
                .get(name)
                .is_some_and(|tool| granted.missing(tool.def().scopes()).is_empty())
        };
        let heavy = built.continuations.heavy();
        let dispatchers: Vec<Dispatcher> = built
            .dispatchers
            .iter()
            .map(|dispatcher| dispatcher.only(registry, heavy, allows))
            .collect();
        let mut tools = Vec::new();
        #[cfg(feature = "apps")]
        let mut viewed = Vec::new();
        for (listed, tool) in built.listed.iter().zip(&built.tools) {
            match *listed {
                Listed::Tool(place) => {
                    let def = registry.at(place).def();
                    if granted.missing(def.scopes()).is_empty() {
                        tools.push(tool.clone());
                        #[cfg(feature = "apps")]
                        viewed.push(def.has_view());
                    }
                }
                Listed::Dispatcher(place) => {
                    let cut = &dispatchers[place];
                    if !cut.reaches_nothing() {
                        tools.push(listed_dispatcher(cut, registry, built.output_schemas));
                        #[cfg(feature = "apps")]
                        viewed.push(crate::apps::dispatcher_has_view(cut, registry));
                    }
                }
            }
        }
        Cut {
            #[cfg(feature = "apps")]
            viewed_tools: viewed_tools(&tools, &viewed, heavy),
            tools,
            dispatchers,
        }
    }
}
