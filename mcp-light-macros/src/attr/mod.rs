//! Attribute arguments, parsed into plain data. Here the vocabulary every
//! stage shares: which tool attribute ([`Attr`]), the write kinds
//! ([`WriteKind`]) and what `task` says ([`TaskArg`]). In [`tool`] a tool
//! attribute's arguments and how each is dispatched; in [`value`] the
//! parsers of the arguments' values; in [`param`] the attributes a tool
//! parameter may carry; in [`serde`] the few serde arguments the macros
//! honor.

use syn::Path;

use crate::symbol::*;

mod annotations;
mod param;
mod serde;
mod tool;
mod value;

pub use annotations::Annotations;
pub use param::ParamAttrs;
pub use serde::{SerdeContainer, SerdeField};
pub use tool::ToolArgs;
pub use value::{crate_arg, krate, skip_value};

/// Which of the three tool attributes.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Attr {
    Tool,
    Light,
    Heavy,
}

impl Attr {
    pub const ALL: [Attr; 3] = [Attr::Tool, Attr::Light, Attr::Heavy];

    pub fn symbol(self) -> Symbol {
        match self {
            Attr::Tool => MCP_TOOL,
            Attr::Light => MCP_LIGHT,
            Attr::Heavy => MCP_HEAVY,
        }
    }

    /// The tool attribute an attribute path names, by its last segment, so
    /// that `#[mcp_light::mcp_heavy]` counts as well as `#[mcp_heavy]`.
    pub fn from_path(path: &Path) -> Option<Attr> {
        let last = &path.segments.last()?.ident;
        Attr::ALL.into_iter().find(|attr| last == attr.symbol())
    }

    /// The named arguments the attribute takes.
    fn arguments(self) -> &'static [Symbol] {
        match self {
            Attr::Tool => &[
                NAME,
                DESCRIPTION,
                RESOURCE,
                ACTION,
                CRATE,
                INLINE,
                TASK,
                SCHEMA,
                SCOPES,
                ANNOTATIONS,
            ],
            Attr::Heavy => &[
                NAME,
                DESCRIPTION,
                RESOURCE,
                ACTION,
                CRATE,
                INLINE,
                TASK,
                SCHEMA,
                SCOPES,
                VIEW,
                ANNOTATIONS,
            ],
            Attr::Light => &[
                NAME,
                DESCRIPTION,
                RESOURCE,
                ACTION,
                RETRIEVE,
                STATUS,
                CRATE,
                INLINE,
                TASK,
                SCOPES,
                VIEW,
                ANNOTATIONS,
            ],
        }
    }

    /// What the attribute accepts, for error messages.
    fn accepted(self) -> String {
        let named = "`name = \"...\"`, `description = \"...\"`, `resource = \"...\"`, \
                     `action = \"...\"`";
        match self {
            Attr::Tool => format!(
                "`#[{self}]` accepts {named}, `crate = path`, `inline`, `task`, \
                 `schema = \"as_written\"`, `scopes = [\"...\"]`, `annotations(...)`"
            ),
            Attr::Heavy => format!(
                "`#[{self}]` accepts {named}, `crate = path`, `inline`, `inline = 4096`, `task`, \
                 `schema = \"as_written\"`, `scopes = [\"...\"]`, `view = false`, `annotations(...)`"
            ),
            Attr::Light => format!(
                "`#[mcp_light]` accepts a write kind ({}) and {named}, `retrieve = path`, \
                 `status = 201`, `crate = path`, `inline`, `task`, `schema = \"as_written\"`, \
                 `scopes = [\"...\"]`, `view = false`, `annotations(...)`",
                WriteKind::list()
            ),
        }
    }
}

impl std::fmt::Display for Attr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.symbol().fmt(f)
    }
}

/// The write kinds of `#[mcp_light(<kind>)]`, mirroring
/// `mcp_light::catalog::WriteKind`.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum WriteKind {
    Create,
    Update,
    PartialUpdate,
    Destroy,
    BulkCreate,
    BulkUpdate,
}

impl WriteKind {
    pub const ALL: [WriteKind; 6] = [
        WriteKind::Create,
        WriteKind::Update,
        WriteKind::PartialUpdate,
        WriteKind::Destroy,
        WriteKind::BulkCreate,
        WriteKind::BulkUpdate,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            WriteKind::Create => "create",
            WriteKind::Update => "update",
            WriteKind::PartialUpdate => "partial_update",
            WriteKind::Destroy => "destroy",
            WriteKind::BulkCreate => "bulk_create",
            WriteKind::BulkUpdate => "bulk_update",
        }
    }

    /// The name of the `mcp_light::catalog::WriteKind` variant.
    pub fn variant(self) -> &'static str {
        match self {
            WriteKind::Create => "Create",
            WriteKind::Update => "Update",
            WriteKind::PartialUpdate => "PartialUpdate",
            WriteKind::Destroy => "Destroy",
            WriteKind::BulkCreate => "BulkCreate",
            WriteKind::BulkUpdate => "BulkUpdate",
        }
    }

    pub fn default_status(self) -> u16 {
        match self {
            WriteKind::Create | WriteKind::BulkCreate => 201,
            WriteKind::Update | WriteKind::PartialUpdate | WriteKind::BulkUpdate => 200,
            WriteKind::Destroy => 204,
        }
    }

    pub fn is_bulk(self) -> bool {
        matches!(self, WriteKind::BulkCreate | WriteKind::BulkUpdate)
    }

    fn from_name(name: &str) -> Option<WriteKind> {
        WriteKind::ALL
            .into_iter()
            .find(|kind| kind.as_str() == name)
    }

    /// `create | update | ...`, for error messages.
    pub fn list() -> String {
        let names: Vec<_> = WriteKind::ALL.iter().map(|kind| kind.as_str()).collect();
        names.join(" | ")
    }
}

/// What `task` says.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum TaskArg {
    Optional,
    Required,
}

impl TaskArg {
    /// The name of the `mcp_light::tasks::TaskSupport` variant.
    pub fn variant(self) -> &'static str {
        match self {
            TaskArg::Optional => "Optional",
            TaskArg::Required => "Required",
        }
    }
}
