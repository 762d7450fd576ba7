//! What every answer must be, whatever was asked: a tool's result that
//! reads as JSON or as an error naming what is wrong, a JSON-RPC message
//! of the right shape.

use mcp_light::CallToolResult;
use mcp_light::testing::AnswerExt;
use serde_json::Value;

/// A tool's answer, read as a client reads it: an error carries a
/// sentence, a success carries JSON. Returns the JSON of a success.
pub fn tool_result(answer: &CallToolResult, asked: &str) -> Option<Value> {
    if answer.is_error == Some(true) {
        let text = answer
            .error_text()
            .unwrap_or_else(|e| panic!("a refusal of {asked} carries no text: {e}"));
        refusal_names_something(text, asked);
        None
    } else {
        Some(
            answer
                .json()
                .unwrap_or_else(|e| panic!("a success of {asked} does not read as JSON: {e}")),
        )
    }
}

/// A refusal says what is wrong: a sentence, not an empty string or a
/// bare code.
pub fn refusal_names_something(text: &str, asked: &str) {
    assert!(
        text.split_whitespace().count() >= 3,
        "the refusal of {asked} names nothing: {text:?}"
    );
}

/// One JSON-RPC message the server wrote: a response (to a request it was
/// sent), a notification or a request of its own. Panics naming what is
/// malformed.
pub fn jsonrpc_message(message: &Value, context: &str) {
    let object = message
        .as_object()
        .unwrap_or_else(|| panic!("{context}: a message that is no object: {message}"));
    assert_eq!(
        object.get("jsonrpc").and_then(Value::as_str),
        Some("2.0"),
        "{context}: no `\"jsonrpc\": \"2.0\"`: {message}"
    );
    let has = |key| object.contains_key(key);
    if has("method") {
        assert!(
            object["method"].is_string(),
            "{context}: a method that is no string: {message}"
        );
        assert!(
            !has("result") && !has("error"),
            "{context}: a request that answers: {message}"
        );
        return;
    }
    // An error may leave its id out: MCP 2026-07-28 omits it when the
    // request's id could not be read (a parse error).
    assert!(
        has("id") || has("error"),
        "{context}: a result without an id: {message}"
    );
    if let Some(id) = object.get("id") {
        assert!(
            id.is_string() || id.is_number() || id.is_null(),
            "{context}: an id that is neither string nor number nor null: {message}"
        );
    }
    match (object.get("result"), object.get("error")) {
        (Some(result), None) => {
            assert!(
                result.is_object(),
                "{context}: a result that is no object: {message}"
            );
            if let Some(true) = result.get("isError").and_then(Value::as_bool) {
                let text = result["content"][0]["text"].as_str().unwrap_or_else(|| {
                    panic!("{context}: an isError result without a text: {message}")
                });
                refusal_names_something(text, context);
            }
        }
        (None, Some(error)) => {
            assert!(
                error["code"].is_i64(),
                "{context}: an error without an integer code: {message}"
            );
            // The code says what kind of wrong; the message may be as
            // short as rmcp's -32601, which names the unknown method.
            let text = error["message"]
                .as_str()
                .unwrap_or_else(|| panic!("{context}: an error without a message: {message}"));
            assert!(
                !text.trim().is_empty(),
                "{context}: an error with an empty message: {message}"
            );
        }
        _ => panic!("{context}: neither exactly a result nor an error: {message}"),
    }
}
