//! Every attribute and argument name the macros read, in one place.

use std::fmt;

use syn::{Ident, Path};

/// A name the macros look for in attributes.
#[derive(Copy, Clone, PartialEq, Eq)]
pub struct Symbol(pub &'static str);

// The tool attributes.
pub const MCP_TOOL: Symbol = Symbol("mcp_tool");
pub const MCP_LIGHT: Symbol = Symbol("mcp_light");
pub const MCP_HEAVY: Symbol = Symbol("mcp_heavy");

// Their arguments.
pub const NAME: Symbol = Symbol("name");
pub const DESCRIPTION: Symbol = Symbol("description");
pub const RESOURCE: Symbol = Symbol("resource");
pub const ACTION: Symbol = Symbol("action");
pub const RETRIEVE: Symbol = Symbol("retrieve");
pub const STATUS: Symbol = Symbol("status");
pub const CRATE: Symbol = Symbol("crate");
pub const INLINE: Symbol = Symbol("inline");
pub const TASK: Symbol = Symbol("task");
pub const SCHEMA: Symbol = Symbol("schema");
pub const SCOPES: Symbol = Symbol("scopes");
pub const VIEW: Symbol = Symbol("view");
pub const ANNOTATIONS: Symbol = Symbol("annotations");

// Parameter attributes.
pub const ID: Symbol = Symbol("id");
pub const HEADER: Symbol = Symbol("header");
pub const SERDE: Symbol = Symbol("serde");
pub const SCHEMARS: Symbol = Symbol("schemars");
pub const CFG: Symbol = Symbol("cfg");
/// Lint attributes, which stay on the emitted function.
pub const LINTS: [Symbol; 5] = [
    Symbol("allow"),
    Symbol("warn"),
    Symbol("deny"),
    Symbol("expect"),
    Symbol("forbid"),
];

// The fields mcp-light adds to published input schemas, which a tool's own
// parameters may not be named: the runtime adds them, the macros refuse
// them, and the runtime's tests compare the two lists
// (`__reserved_fields!`).
/// What every write's schema gains.
pub const VERIFY: &str = "verify";
/// What every heavy read's schema gains, in the order it is published.
pub const NEGOTIATION_FIELDS: [&str; 5] = [
    "continuation_token",
    "mode",
    "page",
    "page_size",
    "filter_keys",
];

// `#[derive(LightKey)]`.
pub const LIGHT_KEY: Symbol = Symbol("light_key");
pub const DOC: Symbol = Symbol("doc");

// The serde arguments LightKey honors.
pub const RENAME: Symbol = Symbol("rename");
pub const RENAME_ALL: Symbol = Symbol("rename_all");
pub const SERIALIZE: Symbol = Symbol("serialize");
pub const SKIP: Symbol = Symbol("skip");
pub const SKIP_SERIALIZING: Symbol = Symbol("skip_serializing");
pub const SKIP_SERIALIZING_IF: Symbol = Symbol("skip_serializing_if");
pub const WITH: Symbol = Symbol("with");
pub const SERIALIZE_WITH: Symbol = Symbol("serialize_with");
pub const FLATTEN: Symbol = Symbol("flatten");

impl PartialEq<Symbol> for Ident {
    fn eq(&self, word: &Symbol) -> bool {
        self == word.0
    }
}

impl PartialEq<Symbol> for &Ident {
    fn eq(&self, word: &Symbol) -> bool {
        *self == word.0
    }
}

impl PartialEq<Symbol> for Path {
    fn eq(&self, word: &Symbol) -> bool {
        self.is_ident(word.0)
    }
}

impl PartialEq<Symbol> for &Path {
    fn eq(&self, word: &Symbol) -> bool {
        self.is_ident(word.0)
    }
}

impl fmt::Display for Symbol {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}
