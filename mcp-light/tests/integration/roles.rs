//! Results and parameters take their roles from traits: a `Result` alias or
//! any convertible error answers `isError`, a plain value answers itself,
//! `State<T>` reads host state, `&Caller` sees the caller, and missing state
//! is reported before serving.

use std::error::Error;
use std::sync::Arc;

use anyhow::Context as _;
use mcp_light::BuildError;
use mcp_light::catalog::ToolDef;
use mcp_light::prelude::*;
use serde_json::json;
use uuid::Uuid;

use crate::fixtures::{Device, Harness, Inventory, NewDevice, error_text, ok_json};

/// An application's own result alias.
type ApiResult<T> = Result<T, ToolError>;

/// Find a device, through the alias.
#[mcp_tool]
fn roles_find(State(inventory): State<Inventory>, id: Uuid) -> ApiResult<Device> {
    let devices = inventory.devices.lock().unwrap();
    devices
        .iter()
        .find(|d| d.id == id)
        .cloned()
        .ok_or_else(|| ToolError::new(format!("no device with id {id}")))
}

/// Count devices: a plain value.
#[mcp_tool]
fn roles_count(State(inventory): State<Inventory>) -> usize {
    inventory.devices.lock().unwrap().len()
}

/// Add a device through the alias (no retrieve tool: the full result).
#[mcp_light(create)]
fn roles_add(State(inventory): State<Inventory>, device: NewDevice) -> ApiResult<Device> {
    let _ = device;
    Err(ToolError::new(format!(
        "the inventory is read-only ({} devices)",
        inventory.devices.lock().unwrap().len()
    )))
}

/// Say who calls.
#[mcp_tool]
async fn roles_whoami(caller: &Caller) -> String {
    caller.identity()
}

/// Load settings, with anyhow.
#[mcp_tool]
fn roles_load(path: String) -> anyhow::Result<String> {
    anyhow::ensure!(!path.is_empty(), "the path is empty");
    std::fs::read_to_string(&path).with_context(|| format!("cannot read settings at {path}"))
}

/// Parse a port, with a boxed error.
#[mcp_tool]
fn roles_port(text: String) -> Result<u16, Box<dyn Error + Send + Sync>> {
    Ok(text.parse::<u16>()?)
}

fn roles_tools() -> impl Iterator<Item = &'static ToolDef> {
    tools![
        roles_find,
        roles_count,
        roles_add,
        roles_whoami,
        roles_load,
        roles_port,
    ]
    .into_iter()
}

fn server_without_state() -> ServerBuilder {
    Server::from_tools(roles_tools())
}

#[tokio::test]
async fn a_result_alias_answers_err_as_an_error_with_its_message() {
    let h = Harness::new();
    let id = Uuid::new_v4();
    let text = error_text(&h.call("roles_find", json!({"id": id})).await);
    assert_eq!(text, format!("`roles_find` failed: no device with id {id}"));

    let created = ok_json(
        &h.call(
            "device_create",
            json!({"device": {"name": "edge-01", "site_slug": "hq", "role": "leaf"}, "verify": true}),
        )
        .await,
    );
    let found = ok_json(&h.call("roles_find", json!({"id": created["id"]})).await);
    assert_eq!(found["name"], "edge-01");

    let args = json!({"device": {"name": "x", "site_slug": "s", "role": "r"}});
    let text = error_text(&h.call("roles_add", args).await);
    assert!(
        text.contains("the inventory is read-only (1 devices)"),
        "{text}"
    );
}

#[tokio::test]
async fn a_plain_value_answers_itself() {
    let h = Harness::new();
    assert_eq!(ok_json(&h.call("roles_count", json!({})).await), json!(0));
    h.call(
        "device_bulk_create",
        json!({"devices": crate::fixtures::new_devices(3)}),
    )
    .await;
    assert_eq!(ok_json(&h.call("roles_count", json!({})).await), json!(3));
}

#[tokio::test]
async fn any_error_that_converts_answers_an_error() {
    let h = Harness::new();
    let text = error_text(&h.call("roles_load", json!({"path": ""})).await);
    assert_eq!(text, "`roles_load` failed: the path is empty");
    let text = error_text(
        &h.call("roles_load", json!({"path": "/no/such/settings"}))
            .await,
    );
    assert!(
        text.contains("cannot read settings at /no/such/settings"),
        "{text}"
    );

    assert_eq!(
        ok_json(&h.call("roles_port", json!({"text": "8080"})).await),
        json!(8080)
    );
    let text = error_text(&h.call("roles_port", json!({"text": "http"})).await);
    assert!(text.contains("invalid digit"), "{text}");
}

#[tokio::test]
async fn state_reads_the_host_state_the_server_shares() {
    let inventory = Arc::new(Inventory::default());
    let server = server_without_state()
        .with_shared_state(Arc::clone(&inventory))
        .build()
        .unwrap();
    let answer = server.call("roles_count", json!({}), Caller::Process).await;
    assert_eq!(ok_json(&answer), json!(0));
}

#[tokio::test]
async fn a_borrowed_caller_sees_who_calls() {
    let h = Harness::new();
    let answer = h
        .server
        .call("roles_whoami", json!({}), Caller::Principal("ada".into()))
        .await;
    assert_eq!(ok_json(&answer), json!("principal:ada"));
    let answer = h.call("roles_whoami", json!({})).await;
    assert_eq!(ok_json(&answer), json!("session:alice"));
}

#[test]
fn definitions_list_the_state_their_extractors_need() {
    let def = |name: &str| roles_tools().find(|def| def.name() == name).unwrap();
    let needs = def("roles_count").state_needs();
    assert_eq!(needs.len(), 1);
    assert!(
        needs[0].type_name().ends_with("fixtures::Inventory"),
        "{needs:?}"
    );
    assert!(def("roles_whoami").state_needs().is_empty());
    assert!(def("roles_port").state_needs().is_empty());
    // Host state, the caller and arguments reach no client.
    for name in ["roles_count", "roles_whoami", "roles_port"] {
        assert!(!def(name).needs_client(), "{name}");
    }
}

#[test]
fn a_server_missing_state_is_not_built() {
    let error = server_without_state().build().unwrap_err();
    let BuildError::MissingState {
        tool,
        function,
        type_name,
    } = &error
    else {
        panic!("expected MissingState, got {error:?}");
    };
    // Tools are checked in name order.
    assert_eq!(tool, "roles_add");
    assert!(function.ends_with("roles::roles_add"), "{function}");
    assert!(type_name.ends_with("fixtures::Inventory"), "{type_name}");
    let message = error.to_string();
    assert!(
        message.contains("`roles_add`") && message.contains("ServerBuilder::with_state"),
        "{message}"
    );

    // Every tool the harness serves finds its state.
    Harness::new().builder().build().unwrap();
}
