//! Dispatchers over a composed handler's tools
//! ([`ServerBuilder::with_handler_dispatcher`](crate::ServerBuilder::with_handler_dispatcher)):
//! one published tool in place of the tools it routes to, built from the
//! names a host gives when the server is built.

use std::collections::BTreeMap;

use rmcp::model::Tool;

use super::Server;
use super::handler_config::{AskedDispatcher, HandlerToolsSet};
use super::handler_writes::interned;
use crate::catalog::dispatch::Dispatcher;
use crate::error::tool::BuildError;
use crate::heavy::HeavyConfig;

impl HandlerToolsSet {
    /// Builds the dispatchers asked for, refusing a name that `taken`
    /// says is one of the server's own tools or dispatchers, or that two
    /// of them claim.
    pub(crate) fn build_dispatchers(
        &mut self,
        heavy: &HeavyConfig,
        taken: impl Fn(&str) -> bool,
    ) -> Result<(), BuildError> {
        for AskedDispatcher { name, groups } in std::mem::take(&mut self.asked) {
            if taken(&name) || self.dispatchers.iter().any(|built| built.name() == name) {
                return Err(BuildError::HandlerDispatcherNameTaken { name });
            }
            let mut routes: BTreeMap<&'static str, BTreeMap<&'static str, &'static str>> =
                BTreeMap::new();
            for (resource, tools) in groups {
                let actions = routes.entry(interned(&resource)).or_default();
                for tool in tools {
                    let tool = interned(&tool);
                    actions.insert(tool, tool);
                }
            }
            routes.retain(|_, actions| !actions.is_empty());
            self.dispatchers.push(Dispatcher::over(name, routes, heavy));
        }
        Ok(())
    }
}

impl Server {
    /// The dispatcher over the handler's tools named `name`, if there is
    /// one.
    pub(crate) fn handler_dispatcher(&self, name: &str) -> Option<&Dispatcher> {
        self.inner
            .handler_tools
            .dispatchers
            .iter()
            .find(|dispatcher| dispatcher.name() == name)
    }

    /// The handler's tools as `tools/list` shows them behind its
    /// dispatchers: each routed tool gone, and on the list's first page
    /// the dispatchers first.
    pub(crate) fn handler_dispatchers_listed(&self, tools: &mut Vec<Tool>, first_page: bool) {
        let dispatchers = &self.inner.handler_tools.dispatchers;
        if dispatchers.is_empty() {
            return;
        }
        tools.retain(|tool| {
            !dispatchers
                .iter()
                .any(|dispatcher| dispatcher.route_to(&tool.name).is_some())
        });
        if first_page {
            tools.splice(0..0, dispatchers.iter().map(Dispatcher::to_tool));
        }
    }
}
