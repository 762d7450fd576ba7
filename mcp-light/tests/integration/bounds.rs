//! Hostile reads: a result the store will not hold, a token sent as
//! `null`, and floods of `filter_keys`.

use std::sync::Arc;

use mcp_light::Caller;
use mcp_light::store::MemoryStore;
use mcp_light::store::{ContinuationStore, MemoryStoreConfig};
use serde_json::{Value, json};

use crate::fixtures::{DownStore, Harness, PROBE_KEYS, error_text, keys, ok_json};

fn text_len(result: &rmcp::model::CallToolResult) -> usize {
    result.content[0]
        .as_text()
        .expect("text content")
        .text
        .len()
}

#[tokio::test]
async fn a_result_the_store_refuses_is_answered_with_a_probe_without_token_not_in_full() {
    let h = Harness::with_devices(300).await;
    // Memory only: with its disk tier the store would keep it there.
    let small = Arc::new(MemoryStore::new(
        MemoryStoreConfig::new()
            .with_max_bytes(30_000)
            .unwrap()
            .with_max_disk_bytes(0),
    ));
    let server = h
        .builder()
        .with_shared_store(Some(small.clone() as Arc<dyn ContinuationStore>))
        .build()
        .unwrap();
    let devices = serde_json::to_vec(&*h.inventory.devices.lock().unwrap()).unwrap();
    assert!(devices.len() > 30_000, "the result is over the store's cap");

    let answer = server
        .call("device_list", json!({}), Caller::Session("alice".into()))
        .await;
    assert!(
        text_len(&answer) < 6_000,
        "the full result came back: {} bytes",
        text_len(&answer)
    );
    let probe = ok_json(&answer);
    assert!(probe.get("continuation_token").is_none(), "{probe}");
    assert_eq!(probe["total_size"], devices.len());
    assert!(probe["preview"].is_array(), "{probe}");
    assert_eq!(probe["summary"]["count"], 300, "{probe}");
    let why = probe["why_no_token"].as_str().unwrap();
    assert!(why.contains("30000") || why.contains("30,000"), "{why}");
    let usage = probe["usage"].as_str().unwrap();
    assert!(
        usage.contains("device_list") && usage.contains("narrow"),
        "{usage}"
    );
    assert!(small.is_empty());
}

#[tokio::test]
async fn a_small_result_the_store_refuses_still_comes_back_whole() {
    let h = Harness::with_devices(5).await;
    let server = h
        .builder()
        .with_store(MemoryStore::new(
            MemoryStoreConfig::new().with_max_bytes(600).unwrap(),
        ))
        .build()
        .unwrap();
    let answer = ok_json(&server.call("device_list", json!({}), Caller::Process).await);
    assert_eq!(answer.as_array().map(Vec::len), Some(5), "{answer}");
}

#[tokio::test]
async fn a_null_continuation_token_is_a_first_call_not_a_redemption() {
    let h = Harness::with_devices(30).await;
    let runs = h.runs();
    let probe = ok_json(
        &h.call("device_list", json!({"continuation_token": null}))
            .await,
    );
    assert_eq!(h.runs(), runs + 1, "the tool ran");
    assert!(probe["continuation_token"].is_string(), "{probe}");
    assert_eq!(keys(&probe), PROBE_KEYS);
}

#[tokio::test]
async fn a_flood_of_filter_keys_is_refused_quickly_and_briefly() {
    let h = Harness::with_devices(50).await;
    let probe = ok_json(&h.call("device_list", json!({})).await);
    let keys: Vec<Value> = (0..100_000)
        .map(|i| Value::from(format!("nope-{i}")))
        .collect();
    let started = std::time::Instant::now();
    let refused = error_text(
        &h.call(
            "device_list",
            json!({"continuation_token": probe["continuation_token"], "mode": "filtered", "filter_keys": keys}),
        )
        .await,
    );
    assert!(
        refused.len() < 400,
        "{} bytes: {refused:.400}",
        refused.len()
    );
    assert!(refused.contains("100000"), "{refused}");
    assert!(started.elapsed() < std::time::Duration::from_secs(5));
}

#[tokio::test]
async fn a_large_plain_read_while_the_store_is_down_is_summarized_not_answered_whole() {
    let server = Harness::new()
        .dispatched_builder()
        .with_shared_store(Some(Arc::new(DownStore) as Arc<dyn ContinuationStore>))
        .build()
        .unwrap();
    let large = json!({"resource": "row", "action": "list", "params": {"n": 300, "width": 100}});
    let answer = server.call("inventory", large, Caller::Process).await;
    assert!(text_len(&answer) < 4_000, "{} bytes", text_len(&answer));
    let probe = ok_json(&answer);
    assert_eq!(probe["summary"]["count"], 300, "{probe}");
    let why = probe["why_no_token"].as_str().unwrap();
    assert!(why.contains("unavailable"), "{why}");
}
