//! The summary and the filter over arbitrary JSON, streamed as a heavy
//! read streams it: a heavy tool answers the fuzzed value whole, another
//! streams the fuzzed items one by one, and every mode the probe offers is
//! redeemed, `filtered` with fuzzed `filter_keys`.
//!
//! The summary's observers are the runtime's own (crate-private, as they
//! should stay): this drives them through a tool, the only way a caller
//! reaches them.
//!
//! Holds: the probe and every mode it offers answer JSON (a `summary` that
//! is offered is served), or a refusal naming what is wrong; `full`
//! answers the value exactly as the tool returned it; the pages of a list
//! hold its items in order; memory and time stay bounded.

#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use mcp_light::prelude::*;
use mcp_light::testing::AnswerExt;
use mcp_light::{ItemStream, tools};
use mcp_light_fuzz::json::{Json, Text};
use mcp_light_fuzz::{Form, answer, first_line, form, run_bounded};
use serde_json::{Value, json};

/// Answers `value` as its result.
#[mcp_heavy(inline = 0)]
fn echo_value(value: Value) -> Value {
    value
}

/// Streams `items` as its result, one by one.
#[mcp_heavy(inline = 0)]
fn echo_items(items: Vec<Value>) -> ItemStream<Value> {
    ItemStream::iter(items)
}

#[derive(Arbitrary, Debug)]
struct Input {
    streamed: bool,
    value: Json,
    filter_keys: Vec<Text>,
    page_size: Option<u16>,
}

fuzz_target!(|data: &[u8]| {
    let (streamed, value, keys, page_size): (bool, Value, Vec<String>, Option<u16>) =
        match form::<Input>(data) {
            None => return,
            Some(Form::Raw(raw)) => {
                // `items` or `value`, then the `filter_keys` as JSON on the
                // same line; then the value.
                let (first, value) = first_line(raw);
                let (how, keys) = first.split_once(' ').unwrap_or((&first, "[]"));
                let (Ok(keys), Ok(value)) =
                    (serde_json::from_str(keys), serde_json::from_slice(value))
                else {
                    return;
                };
                (how == "items", value, keys, None)
            }
            Some(Form::Built(input)) => {
                let Some(value) = input.value.to_value() else {
                    return;
                };
                let keys = input.filter_keys.iter().map(Text::to_text).collect();
                (input.streamed, value, keys, input.page_size)
            }
        };
    check(streamed, value, &keys, page_size);
});

fn check(streamed: bool, value: Value, keys: &[String], page_size: Option<u16>) {
    let server = Server::from_tools(tools![echo_value, echo_items])
        .build()
        .expect("the server builds");
    let (tool, arguments, value) = if streamed {
        let items = match value {
            Value::Array(items) => items,
            one => vec![one],
        };
        ("echo_items", json!({"items": items}), Value::Array(items))
    } else {
        ("echo_value", json!({"value": value}), value)
    };

    run_bounded("a heavy read and its redemptions", async {
        let answered = server.call(tool, arguments, Caller::Process).await;
        let Some(first) = answer::tool_result(&answered, tool) else {
            // The arguments' own bounds (a string's length, a depth) refuse
            // the value before the tool runs, in a sentence saying so.
            let text = answered.error_text().unwrap_or_default();
            assert!(
                text.starts_with("invalid arguments for"),
                "a heavy read of {value} is refused: {text}"
            );
            return;
        };
        // Answered whole, or a probe: a value may hold a field named
        // `continuation_token` itself.
        if first == wrapped(&value) {
            return;
        }
        let token = first
            .get("continuation_token")
            .cloned()
            .unwrap_or_else(|| panic!("{tool} answered neither the value nor a probe: {first}"));
        let modes: Vec<String> = first["available_modes"]
            .as_array()
            .unwrap_or_else(|| panic!("a probe without available_modes: {first}"))
            .iter()
            .map(|m| m.as_str().expect("a mode is a string").to_owned())
            .collect();
        for mode in &modes {
            let mut redeem = json!({"continuation_token": token, "mode": mode});
            match mode.as_str() {
                "filtered" => redeem["filter_keys"] = json!(keys),
                "paginated" => {
                    if let Some(size) = page_size {
                        redeem["page_size"] = json!(size);
                    }
                }
                _ => {}
            }
            let asked = format!("{tool} redeemed {redeem}");
            let answered = server.call(tool, redeem, Caller::Process).await;
            let answered = answer::tool_result(&answered, &asked);
            match mode.as_str() {
                "summary" => {
                    answered.unwrap_or_else(|| panic!("{asked}: an offered summary is refused"));
                }
                "full" => {
                    if let Some(full) = answered {
                        assert_eq!(full, wrapped(&value), "{asked}: full is not the value");
                    }
                }
                "paginated" => {
                    if let (Some(page), Value::Array(items)) = (answered, &value)
                        && page_size.is_none_or(|size| size > 0)
                    {
                        let shown = page["items"].as_array().expect("a page has items");
                        assert_eq!(
                            shown[..],
                            items[..shown.len()],
                            "{asked}: the first page is not the first items"
                        );
                    }
                }
                _ => {}
            }
        }
    });
}

/// A result as `structuredContent` carries it: an object as it is,
/// anything else under `result`.
fn wrapped(value: &Value) -> Value {
    match value {
        Value::Object(_) => value.clone(),
        other => json!({ "result": other }),
    }
}
