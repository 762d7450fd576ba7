//! Writes routed through a group dispatcher, whose schema discloses
//! continuation: outcome 1, redemption, owner binding, and the store-failure
//! fallback.

use std::sync::Arc;

use mcp_light::store::ContinuationStore;
use mcp_light::{Caller, Server};
use serde_json::json;

use crate::fixtures::{DownStore, Harness, error_text, keys, new_devices, ok_json};

fn with_inventory(h: Harness) -> (Harness, Server) {
    let server = h.builder().with_dispatcher("inventory").build().unwrap();
    (h, server)
}

#[tokio::test]
async fn a_routed_bulk_create_answers_a_token_that_redeems_without_running_again() {
    let (h, server) = with_inventory(Harness::new());
    let alice = || Caller::Session("alice".into());
    let args = json!({"resource": "device", "action": "bulk_create", "params": {"devices": new_devices(60)}});
    let envelope = ok_json(&server.call("inventory", args, alice()).await);

    assert_eq!(
        keys(&envelope),
        ["accepted", "status_code", "data_size", "continuation_token"]
    );
    assert_eq!(envelope["accepted"], 60);
    assert_eq!(envelope["status_code"], 201);
    assert_eq!(h.store.len(), 1, "outcome 1 stores the full result");
    let runs = h.runs();
    let devices = h.inventory.devices.lock().unwrap().clone();
    assert_eq!(
        envelope["data_size"],
        serde_json::to_vec(&devices).unwrap().len()
    );

    // The 60 devices (about 20 KB) are more than a client the table does
    // not know keeps, so the token is redeemed as Claude Code (40,000
    // bytes), which keeps them whole.
    let token = envelope["continuation_token"].clone();
    let full = ok_json(
        &server
            .call_from(
                "claude-code",
                "inventory",
                json!({"continuation_token": token, "mode": "full"}),
                alice(),
            )
            .await,
    );
    assert_eq!(full, serde_json::to_value(&devices).unwrap());
    assert_eq!(h.runs(), runs, "redemption never runs the tool");
    assert_eq!(h.device_count(), 60, "nothing was written twice");
}

#[tokio::test]
async fn a_routed_single_create_answers_the_envelope_with_a_token() {
    let (h, server) = with_inventory(Harness::new());
    let args = json!({"resource": "device", "action": "create", "params": {"device": {"name": "a", "site_slug": "s", "role": "r"}}});
    let envelope = ok_json(&server.call("inventory", args, Caller::Process).await);
    assert_eq!(
        keys(&envelope),
        [
            "id",
            "url",
            "name",
            "site_slug",
            "role",
            "status_code",
            "data_size",
            "continuation_token"
        ]
    );
    let token = envelope["continuation_token"].as_str().unwrap();
    assert!(mcp_light::token::Token::parse(token).is_some(), "{token}");
    assert_eq!(h.store.len(), 1);
}

#[tokio::test]
async fn a_routed_write_without_a_retrieve_tool_still_takes_outcome_1() {
    let (h, server) = with_inventory(Harness::new());
    let args = json!({"resource": "gadget", "action": "create", "params": {"device": {"name": "g", "site_slug": "s", "role": "r"}}});
    let envelope = ok_json(&server.call("inventory", args, Caller::Process).await);
    assert!(envelope.get("continuation_token").is_some(), "{envelope}");
    assert_eq!(h.store.len(), 1);
}

#[tokio::test]
async fn verify_at_the_top_level_returns_the_full_result_through_the_dispatcher() {
    let (h, server) = with_inventory(Harness::new());
    let args = json!({"resource": "device", "action": "bulk_create", "params": {"devices": new_devices(2)}, "verify": true});
    let result = ok_json(&server.call("inventory", args, Caller::Process).await);
    assert_eq!(result.as_array().unwrap().len(), 2);
    assert_eq!(result[1]["serial"], "SN000001");
    assert!(h.store.is_empty(), "verify caches nothing");
}

#[tokio::test]
async fn a_token_is_refused_to_another_caller_and_through_another_tool() {
    let server = Harness::new()
        .dispatched_builder()
        .with_dispatcher("inventory_two")
        .build()
        .unwrap();
    let args = json!({"resource": "device", "action": "bulk_create", "params": {"devices": new_devices(2)}});
    let envelope = ok_json(
        &server
            .call("inventory", args, Caller::Session("alice".into()))
            .await,
    );
    let redeem = json!({"continuation_token": envelope["continuation_token"], "mode": "full"});

    let other_caller = error_text(
        &server
            .call(
                "inventory",
                redeem.clone(),
                Caller::Session("mallory".into()),
            )
            .await,
    );
    assert!(
        other_caller.contains("issued to another caller or through another tool"),
        "{other_caller}"
    );
    assert!(other_caller.contains("start again"), "{other_caller}");
    assert!(
        !other_caller.contains("alice"),
        "a refusal reveals nothing about other callers"
    );

    let other_tool = error_text(
        &server
            .call(
                "inventory_two",
                redeem.clone(),
                Caller::Session("alice".into()),
            )
            .await,
    );
    assert_eq!(
        other_tool.replace("inventory_two", "inventory"),
        other_caller
    );

    let owner = ok_json(
        &server
            .call("inventory", redeem, Caller::Session("alice".into()))
            .await,
    );
    assert_eq!(owner.as_array().unwrap().len(), 2);
}

#[tokio::test]
async fn an_unknown_token_is_refused_with_how_to_start_again() {
    let (_h, server) = with_inventory(Harness::new());
    let redeem = json!({"continuation_token": "481207ment930114ound552019ship118345est"});
    let text = error_text(&server.call("inventory", redeem, Caller::Process).await);
    assert!(text.contains("unknown, has expired"), "{text}");
    assert!(
        text.contains("start again by calling `inventory` without `continuation_token`"),
        "{text}"
    );
}

#[tokio::test]
async fn with_the_store_down_routed_writes_answer_without_a_token() {
    let h = Harness::new();
    let server = h
        .builder()
        .with_shared_store(Some(Arc::new(DownStore) as Arc<dyn ContinuationStore>))
        .with_dispatcher("inventory")
        .build()
        .unwrap();
    let args = json!({"resource": "device", "action": "bulk_create", "params": {"devices": new_devices(3)}});
    let envelope = ok_json(&server.call("inventory", args, Caller::Process).await);
    assert_eq!(
        keys(&envelope),
        ["accepted", "status_code", "data_size", "ids"],
        "outcome 2, as if undisclosed"
    );
    let devices = h.inventory.devices.lock().unwrap().clone();
    assert_eq!(
        envelope["data_size"],
        serde_json::to_vec(&devices).unwrap().len()
    );

    let args = json!({"resource": "gadget", "action": "create", "params": {"device": {"name": "g", "site_slug": "s", "role": "r", "serial": "Z"}}});
    let result = ok_json(&server.call("inventory", args, Caller::Process).await);
    assert_eq!(
        result["serial"], "Z",
        "outcome 3 when no retrieve tool is published"
    );
}

#[tokio::test]
async fn with_no_store_at_all_routed_writes_answer_without_a_token() {
    let h = Harness::new();
    let server = h
        .builder()
        .with_shared_store(None)
        .with_dispatcher("inventory")
        .build()
        .unwrap();
    let args = json!({"resource": "device", "action": "create", "params": {"device": {"name": "a", "site_slug": "s", "role": "r"}}});
    let envelope = ok_json(&server.call("inventory", args, Caller::Process).await);
    assert!(envelope.get("continuation_token").is_none());
    assert_eq!(envelope["status_code"], 201);
}

#[tokio::test]
async fn an_unknown_resource_or_action_lists_what_exists() {
    let (_h, server) = with_inventory(Harness::new());
    let text = error_text(
        &server
            .call(
                "inventory",
                json!({"resource": "vlan", "action": "create"}),
                Caller::Process,
            )
            .await,
    );
    assert!(
        text.starts_with("unknown resource `vlan` for `inventory`; resources: "),
        "{text}"
    );
    assert!(text.contains("device") && text.contains("record"), "{text}");

    let text = error_text(
        &server
            .call(
                "inventory",
                json!({"resource": "device", "action": "teleport"}),
                Caller::Process,
            )
            .await,
    );
    assert_eq!(
        text,
        "unknown action `teleport` for resource `device`; actions: bulk_create, create, destroy, list, partial_update, retrieve"
    );
}

#[tokio::test]
async fn routed_bad_params_name_the_field() {
    let (_h, server) = with_inventory(Harness::new());
    let args =
        json!({"resource": "device", "action": "create", "params": {"device": {"name": "a"}}});
    let text = error_text(&server.call("inventory", args, Caller::Process).await);
    assert!(
        text.contains("invalid arguments for `device_create`") && text.contains("missing field"),
        "{text}"
    );
    let args = json!({"resource": "device", "action": "create", "colour": "red"});
    let text = error_text(&server.call("inventory", args, Caller::Process).await);
    assert!(
        text.starts_with("unknown field `colour` for `inventory`"),
        "{text}"
    );
}
