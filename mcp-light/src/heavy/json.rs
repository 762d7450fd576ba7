//! JSON values, as the heavy modes build and describe them.

use serde_json::Value;

/// Marks a shortened string in a preview or a summary.
pub(crate) const ELLIPSIS: char = '…';

/// One of the answer shapes as a JSON value.
pub(crate) fn to_json(answer: impl serde::Serialize) -> Value {
    // The shapes hold strings, numbers and JSON values: nothing in them can
    // fail to serialize.
    serde_json::to_value(answer).expect("an answer shape serializes to JSON")
}

/// What a value is, with its article, for messages.
pub(crate) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
        Value::String(_) => "a string",
        Value::Number(_) => "a number",
        Value::Bool(_) => "a boolean",
        Value::Null => "null",
    }
}
