//! What a tool does, as its attribute declares it: read, heavy read, or one
//! of the write kinds. Everything that shapes an answer starts from this.

/// What kind of write a `#[mcp_light]` tool performs. The kind decides
/// the envelope's shape and its default `status_code`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
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
    pub(crate) const fn is_bulk(self) -> bool {
        matches!(self, WriteKind::BulkCreate | WriteKind::BulkUpdate)
    }
}

/// How a tool answers, decided at compile time by its attribute (a
/// function with both `#[mcp_heavy]` and `#[mcp_light]` is [`ToolKind::Heavy`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
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
    /// Whether the tool writes.
    pub const fn is_write(self) -> bool {
        matches!(self, ToolKind::Write { .. })
    }

    /// Whether the tool is heavy.
    pub const fn is_heavy(self) -> bool {
        matches!(self, ToolKind::Heavy)
    }

    /// Whether the tool's schema publishes the negotiation fields
    /// (`continuation_token`, `mode`, `page`, `page_size`, `filter_keys`):
    /// a heavy read, whose result is kept behind a token, and a bulk
    /// write, whose written objects are, so that a bulk of any size has a
    /// slot for the token that reaches every id.
    pub(crate) const fn negotiates(self) -> bool {
        match self {
            ToolKind::Heavy => true,
            ToolKind::Write { kind, .. } => kind.is_bulk(),
            ToolKind::Read => false,
        }
    }
}
