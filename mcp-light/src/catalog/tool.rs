//! What a tool is: the static definition each annotated function registers.

use crate::extract::StateNeed;
use crate::invoke::{InvokeFn, ToolFacts};
use crate::tasks::TaskSupport;
use crate::tool::kind::ToolKind;

/// The definition one annotated function registers.
///
/// The macros build it and keep it in a hidden static beside the function,
/// which [`tools!`](crate::tools) reaches from the function's path; a host
/// reads it to see what is registered. Its
/// fields are private so that it can grow without breaking anyone: the
/// generated code builds it through a hidden constructor that only the
/// macros of the same version call.
#[derive(Debug)]
pub struct ToolDef {
    parts: ToolParts,
    /// What a call's answer reads of it, in one place.
    facts: ToolFacts,
}

/// Everything a definition is made of, as the macros write it down.
#[doc(hidden)]
#[derive(Debug)]
pub struct ToolParts {
    pub name: &'static str,
    pub function: &'static str,
    pub description: &'static str,
    pub kind: ToolKind,
    pub resource: Option<&'static str>,
    pub action: Option<&'static str>,
    pub retrieve: Option<&'static str>,
    pub params_schema: fn() -> schemars::Schema,
    /// Pushes the host state the function's extractors read.
    pub state_needs: fn(&mut Vec<StateNeed>),
    pub invoke: InvokeFn,
    /// Whether the function's success is MCP content, decided by the
    /// compiler as the call path decides it.
    pub answers_content: fn() -> bool,
    /// Whether any parameter reaches the client behind the call
    /// ([`FromCall::NEEDS_CLIENT`](crate::extract::FromCall::NEEDS_CLIENT)).
    pub needs_client: bool,
    /// Whether a call may, or must, become a task (`task`).
    pub task: TaskSupport,
    /// Whether the input schema is published as schemars writes it
    /// (`schema = "as_written"`).
    pub schema_as_written: bool,
    /// The OAuth scopes a call needs (`scopes = [...]`); empty for none.
    pub scopes: &'static [&'static str],
    /// Whether a client that shows views is pointed at the viewer for the
    /// tool's answers (`view = false` turns it off).
    pub view: bool,
    /// A heavy read's own inline budget in bytes (`inline = N`); `None`
    /// for the server's.
    pub inline_budget: Option<usize>,
    /// What the author states in `annotations(...)`.
    pub annotations: StatedAnnotations,
}

/// The MCP tool annotations a tool's author states in its attribute
/// (`annotations(...)`, in rmcp's spelling), each `None` where the author
/// said nothing: what is stated is published as it is, and only the rest
/// is derived from the attribute.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, Default)]
pub struct StatedAnnotations {
    pub title: Option<&'static str>,
    pub read_only_hint: Option<bool>,
    pub destructive_hint: Option<bool>,
    pub idempotent_hint: Option<bool>,
    pub open_world_hint: Option<bool>,
}

impl ToolDef {
    /// Builds a definition; only generated code calls it.
    #[doc(hidden)]
    pub const fn __from_parts(parts: ToolParts) -> ToolDef {
        ToolDef {
            facts: ToolFacts {
                name: parts.name,
                params_schema: parts.params_schema,
                scopes: parts.scopes,
                inline_budget: parts.inline_budget,
            },
            parts,
        }
    }

    /// The tool's name on the wire: the function's name unless the attribute
    /// says `name = "..."`.
    pub const fn name(&self) -> &'static str {
        self.parts.name
    }

    /// The function's full path (`module_path!()::name`), used in errors.
    pub const fn function(&self) -> &'static str {
        self.parts.function
    }

    /// The function's doc comment, lines joined.
    pub const fn description(&self) -> &'static str {
        self.parts.description
    }

    /// Read, heavy or write.
    pub const fn kind(&self) -> ToolKind {
        self.parts.kind
    }

    /// The resource the tool acts on (`resource = "device"`), if given.
    pub const fn resource(&self) -> Option<&'static str> {
        self.parts.resource
    }

    /// The action the tool performs: `action = "..."`, else the write kind.
    pub const fn action(&self) -> Option<&'static str> {
        self.parts.action
    }

    /// The name of the retrieve tool a write's envelope points to
    /// (`retrieve = path`, checked by the compiler).
    pub const fn retrieve(&self) -> Option<&'static str> {
        self.parts.retrieve
    }

    /// The schema of the function's parameters, before mcp-light adds its own
    /// fields (`verify`, the negotiation fields).
    pub fn params_schema(&self) -> schemars::Schema {
        (self.parts.params_schema)()
    }

    /// What a call's answer reads of the tool: its name, its parameters'
    /// schema, its scopes and its inline budget.
    pub(crate) const fn facts(&'static self) -> &'static ToolFacts {
        &self.facts
    }

    /// The host state the function takes (`State<T>` parameters), which
    /// [`ServerBuilder::build`](crate::ServerBuilder::build) looks for.
    pub fn state_needs(&self) -> Vec<StateNeed> {
        let mut needs = Vec::new();
        self.push_state_needs(&mut needs);
        needs
    }

    pub(crate) fn push_state_needs(&self, needs: &mut Vec<StateNeed>) {
        (self.parts.state_needs)(needs);
    }

    /// Whether the tool answers MCP content ([`ContentAnswer`](crate::ContentAnswer))
    /// rather than JSON: such a tool publishes no output schema, since its
    /// answers carry no `structuredContent`.
    pub fn answers_content(&self) -> bool {
        (self.parts.answers_content)()
    }

    /// Whether the function takes anything that reaches the client behind
    /// the call (`&Context`, or an extractor that says so): a tool that
    /// takes only arguments, host state and the caller is called without
    /// the talk-back machinery.
    pub fn needs_client(&self) -> bool {
        self.parts.needs_client
    }

    /// Whether a call of the tool may, or must, answer as a task
    /// (`task` in its attribute; [`crate::tasks`]).
    pub const fn task_support(&self) -> TaskSupport {
        self.parts.task
    }

    /// Whether the input schema is published as schemars writes it
    /// (`schema = "as_written"`: `$schema`, `$defs` and titles kept) rather
    /// than compacted.
    pub const fn schema_as_written(&self) -> bool {
        self.parts.schema_as_written
    }

    /// The OAuth scopes a call of the tool needs (`scopes = ["..."]` in its
    /// attribute), in the order written; empty when it needs none.
    ///
    /// They are checked only for a caller whose access token says what it
    /// grants ([`GrantedScopes`](crate::auth::GrantedScopes), which the
    /// OAuth layer of [`Auth`](crate::auth::Auth) records): over HTTP, a
    /// call without one of them is refused `403 insufficient_scope` before
    /// the tool runs. Without authentication, over stdio, through
    /// [`Server::call`](crate::Server::call) and for a static bearer token,
    /// nothing is checked.
    pub const fn scopes(&self) -> &'static [&'static str] {
        self.parts.scopes
    }

    /// The annotations the author states (`annotations(...)` in its
    /// attribute), which win over what mcp-light derives.
    pub(crate) const fn stated_annotations(&self) -> &StatedAnnotations {
        &self.parts.annotations
    }

    /// Whether a client that shows MCP Apps views is pointed at mcp-light's
    /// viewer for this tool's answers: a heavy read's or a write's unless
    /// its attribute says `view = false`; a plain read never is. Only a
    /// server built with the `apps` feature names a viewer at all.
    pub const fn has_view(&self) -> bool {
        self.parts.view && !matches!(self.parts.kind, ToolKind::Read)
    }

    /// The inline budget a heavy read sets for itself with
    /// `#[mcp_heavy(inline = N)]`: a first call whose whole result is at
    /// most this many bytes answers it, a larger one a probe. `None` when
    /// the tool leaves it to the server
    /// ([`HeavyConfig::inline_budget`](crate::heavy::HeavyConfig::inline_budget)),
    /// and for every tool that is not a heavy read.
    pub const fn inline_budget(&self) -> Option<usize> {
        self.parts.inline_budget
    }

    pub(crate) fn invoke_fn(&self) -> InvokeFn {
        self.parts.invoke
    }
}
