//! The usage report: each answer's tokens and those of the full result it
//! stands for, in `_meta`, counted with the real encodings.

use mcp_light::telemetry::USAGE_META_KEY;
use mcp_light::{CallToolResult, Caller, Server};
use serde_json::{Value, json};

use crate::fixtures::{Harness, error_text, new_devices, ok_json};

/// `(cl100k, o200k)` of `text`, counted here independently of the server.
fn tokens(text: &str) -> (u64, u64) {
    let cl100k = tiktoken_rs::cl100k_base_singleton();
    let o200k = tiktoken_rs::o200k_base_singleton();
    (
        cl100k.encode_ordinary(text).len() as u64,
        o200k.encode_ordinary(text).len() as u64,
    )
}

/// The answer's text content.
fn text(result: &CallToolResult) -> &str {
    &result.content[0].as_text().unwrap().text
}

/// What a client's model reads of the answer: the compact JSON of its
/// `structuredContent` (Codex, Claude Code), else its text.
fn read(result: &CallToolResult) -> String {
    match &result.structured_content {
        Some(structured) => serde_json::to_string(structured).unwrap(),
        None => text(result).to_owned(),
    }
}

/// `(answer, full)` counts the report gives, each as `(cl100k, o200k)`.
fn usage(result: &CallToolResult) -> ((u64, u64), (u64, u64)) {
    let meta = result.meta.as_ref().expect("the answer carries _meta");
    let report = &meta.0[USAGE_META_KEY];
    let count = |encoding: &str, which: &str| report[encoding][which].as_u64().unwrap();
    (
        (
            count("cl100k_base", "answer"),
            count("o200k_base", "answer"),
        ),
        (count("cl100k_base", "full"), count("o200k_base", "full")),
    )
}

fn reporting(h: &Harness) -> Server {
    reporting_builder(h).build().unwrap()
}

fn reporting_builder(h: &Harness) -> mcp_light::ServerBuilder {
    h.builder()
        .with_usage_report(true)
        .with_dispatcher("inventory")
}

async fn call(server: &Server, tool: &str, args: Value) -> CallToolResult {
    server
        .call(tool, args, Caller::Session("alice".into()))
        .await
}

#[tokio::test]
async fn an_envelope_reports_its_own_tokens_and_those_of_the_echo_it_replaced() {
    let h = Harness::new();
    let server = reporting(&h);
    let envelope = call(
        &server,
        "device_bulk_create",
        json!({"devices": new_devices(30)}),
    )
    .await;
    ok_json(&envelope);
    let echo = serde_json::to_string(&*h.inventory.devices.lock().unwrap()).unwrap();
    assert_eq!(usage(&envelope), (tokens(&read(&envelope)), tokens(&echo)));
    let ((answer, _), (full, _)) = usage(&envelope);
    assert!(answer < full, "{answer} ≥ {full}");
}

#[tokio::test]
async fn an_envelope_with_a_token_reports_the_result_it_stored_and_so_does_its_redemption() {
    let h = Harness::new();
    let server = reporting(&h);
    let routed = json!({"resource": "device", "action": "bulk_create", "params": {"devices": new_devices(30)}});
    let envelope = call(&server, "inventory", routed).await;
    let token = ok_json(&envelope)["continuation_token"].clone();
    // 30 devices whole: more than an unknown client keeps, within Claude Code's.
    let full = server
        .call_from(
            "claude-code",
            "inventory",
            json!({"continuation_token": token, "mode": "full"}),
            Caller::Session("alice".into()),
        )
        .await;
    let stored = tokens(text(&full));
    assert_eq!(usage(&envelope), (tokens(&read(&envelope)), stored));
    // The list as the model reads it, inside `{"result":…}`.
    assert_eq!(usage(&full), (tokens(&read(&full)), stored));
    assert!(tokens(&read(&full)).0 > stored.0);

    let page = call(
        &server,
        "inventory",
        json!({"continuation_token": token, "page_size": 2}),
    )
    .await;
    assert_eq!(ok_json(&page)["items"].as_array().unwrap().len(), 2);
    assert_eq!(usage(&page), (tokens(&read(&page)), stored));
}

#[tokio::test]
async fn a_probe_and_a_summary_report_the_stored_list_they_stand_for() {
    let h = Harness::new();
    let server = reporting(&h);
    ok_json(
        &call(
            &server,
            "device_bulk_create",
            json!({"devices": new_devices(40)}),
        )
        .await,
    );
    let probe = call(&server, "device_list", json!({})).await;
    let token = ok_json(&probe)["continuation_token"].clone();
    let listed = serde_json::to_string(&*h.inventory.devices.lock().unwrap()).unwrap();
    assert_eq!(usage(&probe), (tokens(&read(&probe)), tokens(&listed)));

    let summary = call(
        &server,
        "device_list",
        json!({"continuation_token": token, "mode": "summary"}),
    )
    .await;
    assert_eq!(ok_json(&summary)["count"], 40);
    assert_eq!(usage(&summary), (tokens(&read(&summary)), tokens(&listed)));
}

#[tokio::test]
async fn a_heavy_read_answered_whole_is_its_own_full_result() {
    let h = Harness::new();
    let server = reporting(&h);
    // Within the inline budget, whether it fits the preview or not.
    for n in [0, 3] {
        let whole = call(&server, "inline_rows", json!({"n": n})).await;
        assert!(ok_json(&whole).is_array(), "{whole:?}");
        let counted = tokens(&read(&whole));
        assert_eq!(usage(&whole), (counted, counted), "{n} rows");
    }
}

#[tokio::test]
async fn a_destroy_reports_what_verify_would_have_answered() {
    let h = Harness::new();
    let server = reporting(&h);
    let created = ok_json(
        &call(
            &server,
            "device_create",
            json!({"device": new_devices(1)[0]}),
        )
        .await,
    );
    let gone = call(&server, "device_destroy", json!({"id": created["id"]})).await;
    assert_eq!(ok_json(&gone)["deleted"], true);
    // The function answers `()`, which `verify: true` would echo as `null`.
    assert_eq!(usage(&gone), (tokens(&read(&gone)), tokens("null")));
}

#[tokio::test]
async fn a_plain_answer_a_verify_echo_and_an_error_are_their_own_full_result() {
    let h = Harness::new();
    let server = reporting(&h);
    let plain = call(&server, "count", json!({"n": 5})).await;
    let verified = call(
        &server,
        "device_create",
        json!({"device": new_devices(1)[0], "verify": true}),
    )
    .await;
    let failed = call(&server, "device_get", json!({"id": "not-a-uuid"})).await;
    error_text(&failed);
    for result in [&plain, &verified, &failed] {
        let own = tokens(&read(result));
        assert_eq!(usage(result), (own, own), "{result:?}");
    }
}

#[tokio::test]
async fn an_unknown_tool_and_refused_arguments_are_reported_too() {
    let h = Harness::new();
    let server = reporting(&h);
    for result in [
        call(&server, "no_such_tool", json!({})).await,
        server.call("count", json!([1]), Caller::Process).await,
        call(&server, "inventory", json!({"continuation_token": "nope"})).await,
    ] {
        error_text(&result);
        let own = tokens(&read(&result));
        assert_eq!(usage(&result), (own, own));
    }
}

#[tokio::test]
async fn without_the_report_no_answer_carries_meta() {
    let h = Harness::new();
    let server = h.builder().with_dispatcher("inventory").build().unwrap();
    let routed = json!({"resource": "device", "action": "bulk_create", "params": {"devices": new_devices(3)}});
    let envelope = call(&server, "inventory", routed).await;
    let token = ok_json(&envelope)["continuation_token"].clone();
    let redeemed = call(&server, "inventory", json!({"continuation_token": token})).await;
    let switched_off = reporting_builder(&h)
        .with_usage_report(false)
        .build()
        .unwrap();
    let plain = call(&switched_off, "count", json!({"n": 2})).await;
    for result in [envelope, redeemed, plain] {
        assert!(result.meta.is_none(), "{result:?}");
    }
}
