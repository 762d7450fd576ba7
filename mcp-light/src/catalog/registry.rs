//! The tools a server serves, checked and published: every tool linked into
//! the binary, or the ones a program names.

use std::sync::Arc;

use rmcp::model::{Tool, ToolAnnotations};
use serde_json::{Map, Value};

use crate::catalog::tool::ToolDef;
use crate::error::tool::BuildError;
use crate::heavy::HeavyConfig;
use crate::tool::kind::{ToolKind, WriteKind};
use crate::tool::schema::{self, PublishedSchema};

/// Every tool annotated with `#[mcp_tool]`, `#[mcp_light]` or `#[mcp_heavy]`
/// anywhere in the binary, gathered by the linker (`linkme`): a dependency's
/// tools included.
///
/// Read it through [`Registry::collect`], which checks it. To serve some
/// tools and not others, name them instead, with [`tools!`](crate::tools).
/// Only the macros' generated code names it, to register into it.
#[doc(hidden)]
#[linkme::distributed_slice]
pub static TOOLS: [ToolDef];

/// A checked set of tools with their published schemas.
///
/// Built once at startup, from the tools a program names
/// ([`Registry::from_tools`] with [`tools!`](crate::tools)) or from every
/// tool linked into the binary ([`Registry::collect`]). Two tools with one
/// name are refused with an error naming both functions.
///
/// ```standalone_crate
/// use mcp_light::prelude::*;
/// use mcp_light::catalog::Registry;
///
/// /// Count the devices.
/// #[mcp_tool]
/// fn device_count() -> u32 {
///     3
/// }
///
/// /// Delete every device.
/// #[mcp_light(destroy)]
/// fn device_purge(id: u32) {
///     let _ = id;
/// }
///
/// let registry = Registry::from_tools(tools![device_count])?;
/// let names: Vec<_> = registry.iter().map(|tool| tool.name()).collect();
/// assert_eq!(names, ["device_count"]);
/// assert_eq!(Registry::collect()?.len(), 2);
/// # Ok::<(), mcp_light::BuildError>(())
/// ```
#[derive(Debug)]
pub struct Registry {
    /// Sorted by name, names unique: looked up by binary search.
    tools: Vec<PublishedTool>,
}

/// One tool as callers see it: its definition and its published schema.
#[derive(Debug)]
pub struct PublishedTool {
    def: &'static ToolDef,
    /// The parameters' schema, before mcp-light's own fields are added.
    params_schema: Arc<Map<String, Value>>,
    /// The same, spelled for a model that reads it ([`schema::for_reader`]):
    /// what a dispatcher's `describe` answers.
    described_schema: Arc<Map<String, Value>>,
    input_schema: PublishedSchema,
    retrieve_published: bool,
}

impl Registry {
    /// Every tool linked into the binary, each function annotated with
    /// `#[mcp_tool]`, `#[mcp_light]` or `#[mcp_heavy]`: the program's own
    /// and those of every crate it depends on.
    pub fn collect() -> Result<Registry, BuildError> {
        Registry::from_tools(TOOLS.iter())
    }

    /// A registry of the given tools only: usually the tools a program names
    /// with [`tools!`](crate::tools).
    pub fn from_tools(
        defs: impl IntoIterator<Item = &'static ToolDef>,
    ) -> Result<Registry, BuildError> {
        let heavy = HeavyConfig::default();
        let mut defs: Vec<&'static ToolDef> = defs.into_iter().collect();
        // The linker's order is not the source order; sort so that tools/list
        // and error messages are stable from build to build.
        defs.sort_by_key(|def| (def.name(), def.function()));
        if let Some(pair) = defs
            .windows(2)
            .find(|pair| pair[0].name() == pair[1].name())
        {
            return Err(BuildError::DuplicateName {
                name: pair[1].name().to_owned(),
                first: pair[0].function().to_owned(),
                second: pair[1].function().to_owned(),
            });
        }
        let registered = |name: &str| defs.binary_search_by_key(&name, |def| def.name()).is_ok();
        let tools = defs
            .iter()
            .map(|&def| {
                let params = schema::params(def.params_schema(), def.schema_as_written()).map_err(
                    |problem| BuildError::BadSchema {
                        tool: def.name().to_owned(),
                        reason: problem.to_string(),
                    },
                )?;
                if let Some((field, added_to)) = schema::added_field_taken(&params, def.kind()) {
                    return Err(BuildError::AddedFieldTaken {
                        tool: def.name().to_owned(),
                        function: def.function().to_owned(),
                        field,
                        added_to,
                    });
                }
                Ok(PublishedTool {
                    def,
                    input_schema: PublishedSchema::new(schema::publish(
                        &params,
                        def.kind(),
                        &heavy,
                    )),
                    described_schema: Arc::new(schema::for_reader(&params)),
                    params_schema: Arc::new(params),
                    retrieve_published: def.retrieve().is_some_and(registered),
                })
            })
            .collect::<Result<_, BuildError>>()?;
        Ok(Registry { tools })
    }

    /// The same tools, their schemas published with the limits of `heavy`.
    pub(crate) fn republish(&self, heavy: &HeavyConfig) -> Registry {
        let tools = self
            .tools
            .iter()
            .map(|tool| PublishedTool {
                def: tool.def,
                input_schema: PublishedSchema::new(schema::publish(
                    &tool.params_schema,
                    tool.def.kind(),
                    heavy,
                )),
                params_schema: Arc::clone(&tool.params_schema),
                described_schema: Arc::clone(&tool.described_schema),
                retrieve_published: tool.retrieve_published,
            })
            .collect();
        Registry { tools }
    }

    /// The tool at `place`, in name order.
    pub(crate) fn at(&self, place: usize) -> &PublishedTool {
        &self.tools[place]
    }

    /// The tool named `name`.
    pub fn get(&self, name: &str) -> Option<&PublishedTool> {
        let i = self
            .tools
            .binary_search_by_key(&name, |tool| tool.def.name())
            .ok()?;
        Some(&self.tools[i])
    }

    /// The tools, sorted by name.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &PublishedTool> {
        self.tools.iter()
    }

    /// How many tools there are.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }
}

impl PublishedTool {
    /// The definition the function registered.
    pub fn def(&self) -> &'static ToolDef {
        self.def
    }

    /// The tool's name.
    pub fn name(&self) -> &'static str {
        self.def.name()
    }

    /// The input schema `tools/list` publishes.
    pub fn input_schema(&self) -> &Arc<Map<String, Value>> {
        self.input_schema.schema()
    }

    /// The schema of the function's own parameters: the published schema
    /// without the fields mcp-light adds (`verify`, the negotiation fields).
    /// A dispatcher's `describe: true` answers it, since those fields sit
    /// at the dispatcher's top level rather than in its `params`.
    pub fn params_schema(&self) -> &Arc<Map<String, Value>> {
        &self.params_schema
    }

    /// [`PublishedTool::params_schema`] spelled for a model that reads it:
    /// an optional argument is one left out of `required`, without the
    /// `null` branch the published spelling gives it. What a dispatcher's
    /// `describe` answers, and the schema a routed call's refusal teaches.
    pub fn described_schema(&self) -> &Arc<Map<String, Value>> {
        &self.described_schema
    }

    /// Whether the published schema gives the caller a slot to send a
    /// continuation token back, read from the schema itself.
    pub fn discloses_continuation(&self) -> bool {
        self.input_schema.discloses_continuation()
    }

    /// Whether the retrieve tool this write names is served beside it.
    pub fn retrieve_published(&self) -> bool {
        self.retrieve_published
    }

    /// The tool's MCP annotations: what its author states
    /// (`annotations(...)` in the attribute), and for every hint the author
    /// left out, what the attribute implies, written where it says more
    /// than its absence: MCP reads a missing `readOnlyHint` or
    /// `idempotentHint` as false, and a missing `destructiveHint` as true,
    /// so a write names whether it destroys and only an idempotent one says
    /// so.
    pub fn annotations(&self) -> ToolAnnotations {
        let mut annotations = ToolAnnotations::default();
        match self.def.kind() {
            ToolKind::Read | ToolKind::Heavy => annotations.read_only_hint = Some(true),
            ToolKind::Write { kind, .. } => {
                annotations.destructive_hint = Some(kind == WriteKind::Destroy);
                if matches!(
                    kind,
                    WriteKind::Update | WriteKind::BulkUpdate | WriteKind::Destroy
                ) {
                    annotations.idempotent_hint = Some(true);
                }
            }
        }
        let stated = self.def.stated_annotations();
        if let Some(title) = stated.title {
            annotations.title = Some(title.to_owned());
        }
        let hints = [
            (&mut annotations.read_only_hint, stated.read_only_hint),
            (&mut annotations.destructive_hint, stated.destructive_hint),
            (&mut annotations.idempotent_hint, stated.idempotent_hint),
            (&mut annotations.open_world_hint, stated.open_world_hint),
        ];
        for (published, stated) in hints {
            if stated.is_some() {
                *published = stated;
            }
        }
        annotations
    }

    /// The tool as `tools/list` describes it.
    pub fn to_tool(&self) -> Tool {
        let mut tool = Tool::new(
            self.def.name(),
            self.def.description(),
            Arc::clone(self.input_schema.schema()),
        );
        if self.def.description().is_empty() {
            tool.description = None;
        }
        tool.annotations = Some(self.annotations());
        tool
    }
}
