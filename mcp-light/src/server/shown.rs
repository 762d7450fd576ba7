//! What a caller whose access token says what it grants is shown: the
//! tools, the dispatchers' actions and the viewer's own tools it may use,
//! and nothing else.
//!
//! A surface an agent can see is one it can be steered toward, so on a
//! server whose tools name OAuth scopes, `tools/list` is cut to the
//! caller's granted scopes. The cut is worked out once per distinct set of
//! the scopes the tools name (a token's other scopes change nothing) and
//! kept, so a listing is a lookup; a caller whose token does not say what
//! it grants (no authentication, a static bearer token, [`Server::call`])
//! is shown the list the server was built with, unchanged.
//!
//! A call by name of a tool the caller is not shown is still answered
//! 403 `insufficient_scope` naming the scope: MCP's step-up path, for a
//! client that can ask the authorization server for more.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};

use rmcp::model::Tool;

use crate::catalog::dispatch::Dispatcher;
use crate::catalog::registry::{PublishedTool, Registry};
#[cfg(feature = "apps")]
use crate::heavy::HeavyConfig;
use crate::principal::GrantedScopes;
use crate::tool::output_schema::{OutputShape, output_schema};

/// How many distinct scope sets keep their cut. Each is a subset of the
/// scopes the tools name, so a server sees a handful; past this bound a
/// set's cut is worked out for its request and dropped, so no caller can
/// grow the server's memory by presenting ever new sets.
pub(super) const KEPT_CUTS: usize = 256;

/// What is published, in `tools/list`'s order: a registered tool at its
/// place in the registry, or a dispatcher at its place among them.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Listed {
    Tool(usize),
    Dispatcher(usize),
}

/// The cuts a scoped server has worked out, by the set of named scopes a
/// caller holds.
#[derive(Debug, Default)]
pub(crate) struct Cuts {
    /// Every scope a published tool or a dispatcher's action names, sorted:
    /// a caller's scopes are read as which of these it holds.
    named: Box<[&'static str]>,
    pub(super) kept: RwLock<HashMap<Box<[u64]>, Arc<Cut>, foldhash::fast::RandomState>>,
}

/// What one set of granted scopes is shown.
#[derive(Debug)]
pub(crate) struct Cut {
    /// `tools/list`, as [`Server::tools`] but only what the scopes allow.
    pub(super) tools: Vec<Tool>,
    /// `tools/list` for a client that shows MCP Apps views.
    #[cfg(feature = "apps")]
    pub(super) viewed_tools: Vec<Tool>,
    /// Each dispatcher as the caller sees it, at its place: only its
    /// actions the scopes allow, maybe none.
    pub(super) dispatchers: Vec<Dispatcher>,
}

/// The tools a caller is shown: the server's own list, or its cut.
#[derive(Debug)]
pub(crate) enum Shown<'s> {
    /// Everything the server publishes.
    All(&'s [Tool]),
    /// A cut of it, shared with every caller who holds the same scopes;
    /// its list for a client that shows views when `true`.
    Cut(
        Arc<Cut>,
        #[cfg_attr(not(feature = "apps"), allow(dead_code))] bool,
    ),
}

impl std::ops::Deref for Shown<'_> {
    type Target = [Tool];

    fn deref(&self) -> &[Tool] {
        match self {
            Shown::All(tools) => tools,
            #[cfg(feature = "apps")]
            Shown::Cut(cut, true) => &cut.viewed_tools,
            Shown::Cut(cut, _) => &cut.tools,
        }
    }
}

impl Cuts {
    /// The cuts of a server whose published tools and dispatchers' actions
    /// name `scopes`.
    pub(super) fn new<'a>(scopes: impl IntoIterator<Item = &'a &'static str>) -> Cuts {
        let mut named: Vec<&'static str> = scopes.into_iter().copied().collect();
        named.sort_unstable();
        named.dedup();
        Cuts {
            named: named.into(),
            kept: RwLock::default(),
        }
    }

    /// Which of the named scopes `granted` holds, one bit each; `None`
    /// when it holds them all, and so is shown everything.
    pub(super) fn key(&self, granted: &GrantedScopes) -> Option<Box<[u64]>> {
        let mut key = vec![0u64; self.named.len().div_ceil(64)];
        let mut all = true;
        for (bit, scope) in self.named.iter().enumerate() {
            if granted.contains(scope) {
                key[bit / 64] |= 1 << (bit % 64);
            } else {
                all = false;
            }
        }
        (!all).then(|| key.into())
    }
}

impl Cut {
    /// The dispatcher at `place` as this cut sees it: only the actions its
    /// scopes allow, maybe none.
    pub(super) fn dispatcher(&self, place: usize) -> &Dispatcher {
        &self.dispatchers[place]
    }
}

/// What a client that shows views is listed of a cut: the tools with their
/// view, then the viewer's own tools, when any tool listed has a view.
#[cfg(feature = "apps")]
pub(super) fn viewed_tools(tools: &[Tool], viewed: &[bool], heavy: &HeavyConfig) -> Vec<Tool> {
    if viewed.contains(&true) {
        crate::apps::listed_for_views(tools, viewed, heavy)
    } else {
        tools.to_vec()
    }
}

/// The scopes every published tool and every dispatcher's action names.
pub(super) fn named_scopes<'r>(
    registry: &'r Registry,
    listed: &'r [Listed],
    dispatchers: &'r [Dispatcher],
) -> impl Iterator<Item = &'static &'static str> + 'r {
    let tools = listed.iter().flat_map(move |listed| match *listed {
        Listed::Tool(place) => registry.at(place).def().scopes().iter(),
        Listed::Dispatcher(_) => [].iter(),
    });
    let routed = dispatchers
        .iter()
        .flat_map(|dispatcher| dispatcher.routed_tools())
        .filter_map(|name| registry.get(name))
        .flat_map(|tool| tool.def().scopes().iter());
    tools.chain(routed)
}

/// `published` as `tools/list` describes it, with its output schema when
/// the server publishes them (content answers carry no
/// `structuredContent` to validate, so they get none).
pub(super) fn listed_tool(published: &PublishedTool, output_schemas: bool) -> Tool {
    let mut tool = published.to_tool();
    if output_schemas && !published.def().answers_content() {
        let shapes = OutputShape::of(published.def().kind(), published.discloses_continuation());
        tool.output_schema = Some(Arc::new(output_schema(shapes)));
    }
    tool
}

/// `dispatcher` as `tools/list` describes it: its output schema lists what
/// every routed tool answers, and its `describe` answer.
pub(super) fn listed_dispatcher(
    dispatcher: &Dispatcher,
    registry: &Registry,
    output_schemas: bool,
) -> Tool {
    let mut tool = dispatcher.to_tool();
    let routed = || {
        dispatcher
            .routed_tools()
            .filter_map(|name| registry.get(name))
    };
    if output_schemas && !routed().any(|routed| routed.def().answers_content()) {
        let shapes = routed()
            .flat_map(|routed| OutputShape::of(routed.def().kind(), true))
            .chain([OutputShape::Described]);
        tool.output_schema = Some(Arc::new(output_schema(shapes)));
    }
    tool
}
