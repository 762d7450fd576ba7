//! Freezing a built server: the dispatchers built over the registry, what
//! `tools/list` publishes and what every name reaches, worked out once.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use rmcp::model::Tool;

use crate::call::roundtrip::Talkback;
use crate::catalog::dispatch::Dispatcher;
use crate::catalog::registry::Registry;
use crate::catalog::tool::ToolDef;
use crate::context::StateMap;
use crate::continuation::Continuations;
use crate::error::tool::BuildError;
use crate::heavy::HeavyConfig;
use crate::limits::CallLimits;
use crate::server::compose::Delegate;
use crate::store::{ContinuationStore, MemoryTasks};
use crate::tasks::{TaskConfig, Tasks};
use crate::telemetry::ToolMetrics;
use crate::tool::surface::Surface;
use crate::usage::UsageReport;

use super::shown::{self, Cuts, Listed, listed_dispatcher, listed_tool};
use super::{Built, NameTarget, Server};

/// The settings a [`ServerBuilder`] checked, frozen into a [`Server`].
pub(super) struct Frozen {
    pub(super) registry: Registry,
    pub(super) dispatchers: Vec<String>,
    pub(super) implementation: rmcp::model::Implementation,
    pub(super) surface: Surface,
    pub(super) output_schemas: bool,
    pub(super) state: Arc<StateMap>,
    pub(super) store: Option<Arc<dyn ContinuationStore>>,
    pub(super) heavy: HeavyConfig,
    pub(super) usage: Option<Arc<UsageReport>>,
    pub(super) delegate: Arc<dyn Delegate>,
    pub(super) handler_tools: super::HandlerToolsSet,
    pub(super) talkback: Arc<Talkback>,
    pub(super) limits: CallLimits,
    pub(super) tasks: TaskConfig,
}

impl Server {
    /// Freezes what a builder checked: the dispatchers built over the
    /// registry, the published list and every name's place in it.
    pub(super) fn freeze(frozen: Frozen) -> Result<Server, BuildError> {
        let Frozen {
            registry,
            dispatchers,
            implementation,
            surface,
            output_schemas,
            state,
            store,
            heavy,
            usage,
            delegate,
            mut handler_tools,
            talkback,
            limits,
            tasks,
        } = frozen;
        let offers_tasks = handler_tools.tasks
            || registry
                .iter()
                .any(|tool| tool.def().task_support().allows_tasks());
        let scoped = registry.iter().any(|tool| !tool.def().scopes().is_empty());
        let tasks = {
            let kept = store.as_ref().and_then(|store| store.tasks());
            let store_ttl = store
                .as_ref()
                .map_or(crate::defaults::TASK_TTL, |store| store.ttl());
            let kept = kept.unwrap_or_else(|| Arc::new(MemoryTasks::new()));
            Tasks::new(kept, tasks, store_ttl, limits.clock.clone())
        };
        let dispatchers = build_dispatchers(dispatchers, &registry, &heavy)?;
        handler_tools.build_dispatchers(&heavy, |name| {
            registry.get(name).is_some() || dispatchers.iter().any(|d| d.name() == name)
        })?;
        let published = Published::of(&registry, &dispatchers, surface, output_schemas);
        #[cfg(feature = "apps")]
        let viewed_tools = published.for_views(&heavy)?;
        let Published {
            tools,
            listed,
            metrics,
            names,
            ..
        } = published;
        let composed_tools = delegate.get_info().capabilities.tools.is_some();
        let known = known_names(&tools, composed_tools);
        let cuts = match scoped {
            true => Cuts::new(shown::named_scopes(&registry, &listed, &dispatchers)),
            false => Cuts::default(),
        };
        let server = Server {
            inner: Arc::new(Built {
                continuations: Arc::new(Continuations::new(store, heavy)),
                registry,
                dispatchers,
                implementation,
                surface,
                state,
                usage,
                delegate,
                composed_tools,
                handler_tools,
                talkback,
                limits,
                tools,
                listed,
                output_schemas,
                cuts,
                #[cfg(feature = "apps")]
                viewed_tools,
                metrics,
                other_metrics: Arc::new(ToolMetrics::other()),
                names,
                known,
                tasks,
                offers_tasks,
                scoped,
            }),
        };
        server.refuse_tools_served_twice()?;
        Ok(server)
    }

    /// Refuses a composed handler that serves a tool under a name this
    /// server serves too, as far as the handler's `get_tool` tells: every
    /// name mcp-light answers a call of (a tool, one only a dispatcher
    /// reaches, a dispatcher, and with the `apps` feature a tool of the
    /// viewer) is asked about once, when the server is built. A handler
    /// whose `get_tool` knows nothing is caught by `tools/list` instead.
    fn refuse_tools_served_twice(&self) -> Result<(), BuildError> {
        if !self.inner.composed_tools {
            return Ok(());
        }
        let names = self.inner.names.keys().map(|name| &**name);
        #[cfg(feature = "apps")]
        let names = names.chain(crate::apps::ViewTool::ALL.map(crate::apps::ViewTool::name));
        for name in names {
            if self.delegate().get_tool(name).is_some()
                && let Some(served_by) = self.served_by(name)
            {
                return Err(crate::server::compose::served_twice(name, served_by));
            }
        }
        Ok(())
    }
}

/// The dispatchers named `names`, built over `registry`; two of one name
/// are refused.
fn build_dispatchers(
    names: Vec<String>,
    registry: &Registry,
    heavy: &HeavyConfig,
) -> Result<Vec<Dispatcher>, BuildError> {
    let mut dispatchers: Vec<Dispatcher> = Vec::with_capacity(names.len());
    for name in names {
        let dispatcher = Dispatcher::build(name, registry, heavy)?;
        if dispatchers.iter().any(|d| d.name() == dispatcher.name()) {
            return Err(BuildError::DuplicateName {
                name: dispatcher.name().to_owned(),
                first: "a dispatcher".to_owned(),
                second: "another dispatcher".to_owned(),
            });
        }
        dispatchers.push(dispatcher);
    }
    Ok(dispatchers)
}

/// What `tools/list` publishes, and what every name a call may give
/// reaches.
struct Published {
    /// The published tools, then the published dispatchers.
    tools: Vec<Tool>,
    /// What each of `tools` is.
    listed: Vec<Listed>,
    /// Which of `tools` a client that shows views is pointed at the viewer
    /// for.
    #[cfg(feature = "apps")]
    viewed: Vec<bool>,
    /// Each of `tools`' call metrics.
    metrics: Vec<Arc<ToolMetrics>>,
    /// Every name a call may give, and what it reaches.
    names: HashMap<Box<str>, NameTarget, foldhash::fast::RandomState>,
}

impl Published {
    /// The tools of `registry` the surface publishes (a tool a dispatcher
    /// routes to only when the surface publishes routed tools), then the
    /// dispatchers when it publishes them.
    fn of(
        registry: &Registry,
        dispatchers: &[Dispatcher],
        surface: Surface,
        output_schemas: bool,
    ) -> Published {
        let mut published = Published {
            tools: Vec::new(),
            listed: Vec::new(),
            #[cfg(feature = "apps")]
            viewed: Vec::new(),
            metrics: Vec::new(),
            names: HashMap::with_hasher(foldhash::fast::RandomState::default()),
        };
        for (place, tool) in registry.iter().enumerate() {
            let routed = dispatchers.iter().enumerate().find_map(|(i, dispatcher)| {
                dispatcher.route_to(tool.name()).map(|route| (i, route))
            });
            let named = match routed {
                Some((dispatcher, (resource, action))) if !surface.publishes_routed_tools() => {
                    NameTarget::Routed {
                        dispatcher,
                        resource,
                        action,
                    }
                }
                _ => {
                    published.tools.push(listed_tool(tool, output_schemas));
                    published.listed.push(Listed::Tool(place));
                    #[cfg(feature = "apps")]
                    published.viewed.push(tool.def().has_view());
                    let name = Cow::Borrowed(tool.name());
                    published.metrics.push(Arc::new(ToolMetrics::new(name)));
                    NameTarget::Tool {
                        tool: place,
                        listed: published.tools.len() - 1,
                    }
                }
            };
            published.names.insert(tool.name().into(), named);
        }
        if surface.publishes_dispatchers() {
            for (place, dispatcher) in dispatchers.iter().enumerate() {
                let tool = listed_dispatcher(dispatcher, registry, output_schemas);
                published.tools.push(tool);
                published.listed.push(Listed::Dispatcher(place));
                #[cfg(feature = "apps")]
                published
                    .viewed
                    .push(crate::apps::dispatcher_has_view(dispatcher, registry));
                let name = Cow::Owned(dispatcher.name().to_owned());
                published.metrics.push(Arc::new(ToolMetrics::new(name)));
                published.names.insert(
                    dispatcher.name().into(),
                    NameTarget::Dispatcher {
                        dispatcher: place,
                        listed: published.tools.len() - 1,
                    },
                );
            }
        }
        published
    }

    /// The `tools/list` answer of a client that shows MCP Apps views; a
    /// published name the viewer's own tools take is refused.
    #[cfg(feature = "apps")]
    fn for_views(&self, heavy: &HeavyConfig) -> Result<Vec<Tool>, BuildError> {
        if let Some(taken) = crate::apps::ViewTool::ALL
            .into_iter()
            .find(|view| self.names.contains_key(view.name()))
        {
            return Err(BuildError::DuplicateName {
                name: taken.name().to_owned(),
                first: "a tool of the viewer (the `apps` feature)".to_owned(),
                second: "a registered tool or dispatcher".to_owned(),
            });
        }
        Ok(crate::apps::listed_for_views(
            &self.tools,
            &self.viewed,
            heavy,
        ))
    }
}

/// The published names, as an unknown tool's error lists them, with a word
/// of the composed handler's tools when it has some.
fn known_names(tools: &[Tool], composed_tools: bool) -> String {
    let mut known = tools
        .iter()
        .map(|tool| tool.name.as_ref())
        .collect::<Vec<_>>()
        .join(", ");
    if composed_tools {
        if !known.is_empty() {
            known.push_str(", and ");
        }
        known.push_str("the tools of ");
        known.push_str(crate::server::compose::HANDLER);
        known.push_str(" that tools/list shows");
    }
    known
}

/// The first tool of `defs` that needs state `state` lacks, as an error
/// naming the tool and the type.
pub(crate) fn missing_state<'a>(
    defs: impl IntoIterator<Item = &'a ToolDef>,
    state: &StateMap,
) -> Result<(), BuildError> {
    let mut needs = Vec::new();
    for def in defs {
        needs.clear();
        def.push_state_needs(&mut needs);
        if let Some(need) = needs.iter().find(|need| !state.contains(need.type_id())) {
            return Err(BuildError::MissingState {
                tool: def.name().to_owned(),
                function: def.function().to_owned(),
                type_name: need.type_name().to_owned(),
            });
        }
    }
    Ok(())
}
