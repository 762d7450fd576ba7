//! What a tool is: the static definition each annotated function registers.

use crate::__private::InvokeFn;

/// What kind of write a `#[mcp_light]` tool performs (C4). The kind decides
/// the envelope's shape and its default `status_code`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WriteKind {
    /// Creates one object: single envelope, 201.
    Create,
    /// Replaces one object: single envelope, 200.
    Update,
    /// Changes some fields of one object: single envelope, 200.
    PartialUpdate,
    /// Deletes one object: destroy envelope, 204.
    Destroy,
    /// Creates a list of objects: bulk envelope, 201.
    BulkCreate,
    /// Replaces a list of objects: bulk envelope, 200.
    BulkUpdate,
}

impl WriteKind {
    /// Every kind, in the order the attribute documents them.
    pub const ALL: [WriteKind; 6] = [
        WriteKind::Create,
        WriteKind::Update,
        WriteKind::PartialUpdate,
        WriteKind::Destroy,
        WriteKind::BulkCreate,
        WriteKind::BulkUpdate,
    ];

    /// The kind's name as written in `#[mcp_light(...)]`, which is also the
    /// default action name.
    pub const fn as_str(self) -> &'static str {
        match self {
            WriteKind::Create => "create",
            WriteKind::Update => "update",
            WriteKind::PartialUpdate => "partial_update",
            WriteKind::Destroy => "destroy",
            WriteKind::BulkCreate => "bulk_create",
            WriteKind::BulkUpdate => "bulk_update",
        }
    }

    /// The status code the envelope reports unless the attribute overrides
    /// it with `status = N`.
    pub const fn default_status(self) -> u16 {
        match self {
            WriteKind::Create | WriteKind::BulkCreate => 201,
            WriteKind::Update | WriteKind::PartialUpdate | WriteKind::BulkUpdate => 200,
            WriteKind::Destroy => 204,
        }
    }

    /// Whether the kind writes a list of objects.
    pub const fn is_bulk(self) -> bool {
        matches!(self, WriteKind::BulkCreate | WriteKind::BulkUpdate)
    }
}

/// How a tool answers, decided at compile time by its attribute (C19: a
/// function with both `#[mcp_heavy]` and `#[mcp_light]` is [`ToolKind::Heavy`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolKind {
    /// `#[mcp_tool]`: answers its result (or a probe, past the size backstop,
    /// where its schema discloses continuation).
    Read,
    /// `#[mcp_heavy]`: answers a probe and keeps the result for redemption.
    Heavy,
    /// `#[mcp_light]`: answers a lean envelope.
    Write {
        /// The write kind.
        kind: WriteKind,
        /// The status code reported in the envelope.
        status_code: u16,
    },
}

impl ToolKind {
    /// Whether the tool writes (`is_write` in C1).
    pub const fn is_write(self) -> bool {
        matches!(self, ToolKind::Write { .. })
    }

    /// Whether the tool is heavy (`is_heavy` in C1).
    pub const fn is_heavy(self) -> bool {
        matches!(self, ToolKind::Heavy)
    }
}

/// The definition one annotated function registers in [`TOOLS`](crate::TOOLS).
///
/// The macros build it; the fields are public so a host can inspect what is
/// registered, but a definition is not meant to be written by hand.
#[derive(Debug)]
pub struct ToolDef {
    /// The tool's name on the wire: the function's name unless the attribute
    /// says `name = "..."`.
    pub name: &'static str,
    /// The function's full path (`module_path!()::name`), used in errors.
    pub function: &'static str,
    /// The function's doc comment, lines joined.
    pub description: &'static str,
    /// Read, heavy or write.
    pub kind: ToolKind,
    /// The resource the tool acts on (`resource = "device"`), if given.
    pub resource: Option<&'static str>,
    /// The action the tool performs: `action = "..."`, else the write kind.
    pub action: Option<&'static str>,
    /// The name of the retrieve tool a write's envelope points to
    /// (`retrieve = path`, checked by the compiler).
    pub retrieve: Option<&'static str>,
    /// The schema of the function's parameters, before mcp-light adds its own
    /// fields (`verify`, the negotiation fields).
    pub params_schema: fn() -> schemars::Schema,
    /// Runs the tool on one call.
    #[doc(hidden)]
    pub invoke: InvokeFn,
}
