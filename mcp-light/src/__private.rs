//! What the macros' generated code calls. Not a public API: names and
//! signatures here change without notice.

pub use linkme;
pub use schemars;
pub use serde;
pub use serde_json;

pub use crate::call::args::ToolArgument;
pub use crate::call::built::built_kind;
pub use crate::call::outcome::Answer;
pub use crate::call::wrappers::{WholeArguments, json_kind};
pub use crate::catalog::registry::TOOLS;
pub use crate::catalog::tool::{StatedAnnotations, ToolDef, ToolParts};
pub use crate::error::tool::IntoToolError;
pub use crate::extract::{FromCall, FromCallRef, StateNeed};
pub use crate::invoke::{Answering, Invocation, InvokeFn, Responder};
pub use crate::items::heavy::{OnlyHeavy, StreamItem, heavy_kind};
pub use crate::output::{ToolResult, answer_kind, kind};
pub use crate::runtime::{Unfinished, run_sync};
pub use crate::state::StateIsNotAnArgument;
pub use crate::store::BoxFuture;
pub use crate::tool::kind::{ToolKind, WriteKind};
pub use crate::writes::light_key::BulkItem;

/// The schema of a tool's generated argument struct, before compaction.
pub fn params_schema<A: schemars::JsonSchema>() -> schemars::Schema {
    crate::tool::schema::generate::<A>()
}

/// The schema of a tool's arguments as schemars writes it, `$schema`
/// included (`schema = "as_written"`).
pub fn params_schema_as_written<A: schemars::JsonSchema>() -> schemars::Schema {
    crate::tool::schema::generate_as_written::<A>()
}

/// The schema of rmcp's `Parameters<T>`, the whole arguments of a tool,
/// closed at the top level where the call refuses an argument `T` does
/// not declare.
pub fn whole_params_schema<A: WholeArguments>() -> schemars::Schema {
    crate::call::wrappers::close_whole::<A>(crate::tool::schema::generate::<A>())
}

/// [`whole_params_schema`] as schemars writes it (`schema = "as_written"`).
pub fn whole_params_schema_as_written<A: WholeArguments>() -> schemars::Schema {
    crate::call::wrappers::close_whole::<A>(crate::tool::schema::generate_as_written::<A>())
}

/// An identifying argument (a destroy's `id`) as it goes into the envelope.
pub fn id_value<T: serde::Serialize + ?Sized>(value: &T) -> serde_json::Value {
    serde_json::to_value(value).unwrap_or(serde_json::Value::Null)
}

/// The answer of a call whose extractor failed (host state missing): the
/// tool does not run.
pub fn rejected(responder: &Responder, error: crate::error::tool::ToolError) -> Answer {
    responder.failed(error)
}

/// The answer of a call whose synchronous function did not finish on the
/// blocking pool: it panicked, or the runtime dropped it.
pub fn unfinished(responder: &Responder, unfinished: Unfinished) -> Answer {
    Answer::unfinished(responder.tool.name, unfinished)
}

/// Whether `def` is a retrieve tool (`#[mcp_tool(action = "retrieve")]`),
/// which a write's `retrieve = path` may name. Evaluated by the compiler.
pub const fn is_retrieve_tool(def: &ToolDef) -> bool {
    matches!(def.kind(), ToolKind::Read)
        && matches!(def.action(), Some(action) if same_str(action, "retrieve"))
}

/// Whether `def` names `resource` as its own. Evaluated by the compiler.
pub const fn is_resource(def: &ToolDef, resource: &str) -> bool {
    matches!(def.resource(), Some(own) if same_str(own, resource))
}

const fn same_str(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Checks at compile time that a tool's success type is `Serialize`. It
/// takes the converted result, so the type checked is the one the compiler
/// inferred, whatever alias the function was written with.
pub fn assert_tool_result<T: ToolResult>(_: &Result<T, crate::error::tool::ToolError>) {}

/// What a tool without extractors needs of the host state: nothing.
pub fn no_state_needs(_: &mut Vec<StateNeed>) {}

/// What an argument mirrored in an HTTP header (`#[header("Name")]`) may
/// be: a value that is one header's text.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be mirrored in an HTTP header",
    label = "`#[header]` takes a string, integer or boolean argument",
    note = "MCP mirrors only a required string, integer or boolean argument in a header (`Mcp-Param-...`): change the type or drop `#[header]`"
)]
pub trait HeaderArgument {}

impl HeaderArgument for String {}
impl HeaderArgument for bool {}
impl HeaderArgument for i8 {}
impl HeaderArgument for i16 {}
impl HeaderArgument for i32 {}
impl HeaderArgument for i64 {}
impl HeaderArgument for isize {}
impl HeaderArgument for u8 {}
impl HeaderArgument for u16 {}
impl HeaderArgument for u32 {}
impl HeaderArgument for u64 {}
impl HeaderArgument for usize {}

/// Checks at compile time that a `#[header]` argument's type is one.
pub fn assert_header_argument<T: HeaderArgument>() {}

/// What a tool that cannot answer content says when asked.
pub fn answers_json() -> bool {
    false
}
