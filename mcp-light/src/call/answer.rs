//! The tool results mcp-light answers with: a value in full, or an error;
//! and, in `read`, the same answers read back as a client reads them.
//!
//! Every answer leaves through these builders, so text content and
//! `structuredContent` agree everywhere.

use rmcp::model::{CallToolResult, ContentBlock};
use serde::Serialize;
use serde_json::{Map, Value};

/// The key a result that is not a JSON object is wrapped under in
/// `structuredContent`, which MCP requires to be an object. The text
/// content carries the result unwrapped.
pub(crate) const WRAPPED_RESULT_KEY: &str = "result";

/// A successful result: the JSON as text, and as `structuredContent`
/// (wrapped under [`WRAPPED_RESULT_KEY`] when it is not an object).
pub(crate) fn full_result(value: Value) -> CallToolResult {
    let text = compact_text(&value);
    full_result_with_text(value, text)
}

/// `value` as compact JSON text, written through `io::Write` into one
/// buffer: `Display` (`value.to_string()`) goes through the formatter token
/// by token, several hundred instructions more on every answer.
pub(crate) fn compact_text(value: &Value) -> String {
    // A `Value`'s keys are strings: it always serializes.
    serde_json::to_string(value).expect("a JSON value serializes")
}

/// [`full_result`] for a value whose compact JSON text is already at hand.
pub(crate) fn full_result_with_text(value: Value, text: String) -> CallToolResult {
    let structured = match value {
        Value::Object(_) => value,
        other => {
            let mut wrapper = Map::new();
            wrapper.insert(WRAPPED_RESULT_KEY.to_owned(), other);
            Value::Object(wrapper)
        }
    };
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(structured);
    result
}

/// An `isError` result carrying `message`.
pub(crate) fn error_result(message: impl Into<String>) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

/// An answer of one of mcp-light's own shapes (an envelope, a probe, a page,
/// a summary, a `describe` answer): its JSON as text and as
/// `structuredContent`. Each shape is a type whose serialization is the
/// wire form and whose schema the output schemas publish.
pub(crate) fn shaped_result(answer: &impl Serialize) -> CallToolResult {
    // The shapes are structs of strings, numbers and JSON values: nothing
    // in them can fail to serialize.
    let value = serde_json::to_value(answer).expect("an answer shape serializes to JSON");
    let text = compact_text(&value);
    full_result_with_text(value, text)
}
