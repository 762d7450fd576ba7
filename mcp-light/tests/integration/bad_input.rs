//! Bad input answers an `isError` result that names the field, and the
//! server keeps serving.

use mcp_light::catalog::Registry;
use mcp_light::prelude::*;
use mcp_light::testing::AnswerExt;
use serde_json::json;

use crate::fixtures::{Harness, error_text, ok_json};

/// A note whose type leaves unknown fields to serde's default.
#[derive(Deserialize, JsonSchema)]
pub struct OpenNote {
    pub subject: String,
}

/// Answers a note's subject.
#[mcp_tool]
fn open_note_subject(note: OpenNote) -> String {
    note.subject
}

#[tokio::test]
async fn a_wrong_type_names_the_field_and_the_expected_type() {
    let h = Harness::new();
    let args = json!({"device": {"name": 5, "site_slug": "s", "role": "r"}});
    let text = error_text(&h.call("device_create", args).await);
    assert!(text.contains("`device.name`"), "{text}");
    assert!(text.contains("expected a string"), "{text}");
}

#[tokio::test]
async fn a_missing_field_is_named() {
    let h = Harness::new();
    let text = error_text(
        &h.call(
            "device_create",
            json!({"device": {"name": "x", "role": "r"}}),
        )
        .await,
    );
    assert!(text.contains("missing field `site_slug`"), "{text}");
    let text = error_text(&h.call("device_create", json!({})).await);
    assert!(text.contains("missing field `device`"), "{text}");
}

#[tokio::test]
async fn an_unknown_field_on_a_closed_schema_is_named() {
    let h = Harness::new();
    let args = json!({"device": {"name": "x", "site_slug": "s", "role": "r"}, "colour": "red"});
    let text = error_text(&h.call("device_create", args).await);
    assert!(text.contains("unknown field `colour`"), "{text}");
    let args = json!({"device": {"name": "x", "site_slug": "s", "role": "r", "colour": "red"}});
    let text = error_text(&h.call("device_create", args).await);
    assert!(
        text.contains("at `device.colour`: unknown field `colour`"),
        "{text}"
    );
    assert_eq!(h.device_count(), 0, "nothing was written");
}

/// The arguments' object is closed; inside an argument, its type decides:
/// `OpenNote` ignores an unknown field and publishes an open schema, while
/// the fixtures' `NewDevice` (`deny_unknown_fields`) publishes a closed one.
#[tokio::test]
async fn inside_an_argument_unknown_fields_follow_its_type() {
    let server = Server::from_tools(tools![open_note_subject])
        .build()
        .unwrap();
    let top = json!({"note": {"subject": "a"}, "colour": "red"});
    let refused = server.call("open_note_subject", top, Caller::Process).await;
    let message = refused.error_text().unwrap();
    assert!(message.contains("unknown field `colour`"), "{message}");
    let inside = json!({"note": {"subject": "a", "colour": "red"}});
    let ignored = server
        .call("open_note_subject", inside, Caller::Process)
        .await;
    assert_eq!(ignored.json().unwrap(), json!({"result": "a"}));

    let open = server.registry().get("open_note_subject").unwrap();
    assert_eq!(open.input_schema()["additionalProperties"], false);
    let note = &open.input_schema()["properties"]["note"];
    assert_eq!(note["type"], "object", "{note}");
    assert!(note.get("additionalProperties").is_none(), "{note}");
    let registry = Registry::collect().unwrap();
    let create = registry.get("device_create").unwrap().input_schema();
    assert_eq!(
        create["properties"]["device"]["additionalProperties"], false,
        "{create:?}"
    );
}

#[tokio::test]
async fn a_write_given_a_verify_that_is_not_a_boolean_is_refused() {
    let h = Harness::new();
    let args = json!({"device": {"name": "x", "site_slug": "s", "role": "r"}, "verify": "yes"});
    let text = error_text(&h.call("device_create", args).await);
    assert!(
        text.contains("`verify`") && text.contains("true or false"),
        "{text}"
    );
    assert_eq!(h.device_count(), 0);
}

#[tokio::test]
async fn verify_sent_to_a_read_tool_is_ignored() {
    let h = Harness::new();
    let result = ok_json(&h.call("count", json!({"n": 3, "verify": true})).await);
    assert_eq!(result, json!([1, 2, 3]));
}

#[tokio::test]
async fn arguments_that_are_not_an_object_are_refused() {
    let h = Harness::new();
    let text = error_text(&h.call("count", json!([3])).await);
    assert_eq!(
        text,
        "the arguments of `count` must be a JSON object, not an array"
    );
    let text = error_text(&h.call("count", json!(null)).await);
    assert!(
        text.contains("missing field `n`"),
        "null arguments are no arguments: {text}"
    );
}

#[tokio::test]
async fn an_unknown_tool_is_refused_with_the_list_of_tools() {
    let h = Harness::new();
    let text = error_text(&h.call("device_teleport", json!({})).await);
    assert!(
        text.starts_with("unknown tool `device_teleport`; this server has: "),
        "{text}"
    );
    assert!(
        text.contains("device_create") && text.contains("device_bulk_create"),
        "{text}"
    );
}

#[tokio::test]
async fn a_panicking_tool_is_an_error_and_the_server_answers_the_next_call() {
    let h = Harness::new();
    let text = error_text(&h.call("explode", json!({"depth": 3})).await);
    assert_eq!(text, "`explode` failed: it panicked: exploded at depth 3");
    assert_eq!(
        ok_json(&h.call("count", json!({"n": 2})).await),
        json!([1, 2])
    );
}

#[tokio::test]
async fn optional_parameters_may_be_left_out() {
    let h = Harness::new();
    assert_eq!(
        ok_json(&h.call("count", json!({"n": 3, "skip": 2})).await),
        json!([1, 3])
    );
}

/// The fields a vehicle's update may change.
#[derive(Deserialize, JsonSchema)]
pub struct VehiclePatch {
    pub plate: Option<String>,
    pub odometer_km: Option<u32>,
}

/// Updates a vehicle: its id, and the patch's fields beside it.
#[mcp_tool]
fn vehicle_update(id: u32, #[serde(flatten)] patch: VehiclePatch) -> u32 {
    id + patch.odometer_km.unwrap_or(0) + patch.plate.map_or(0, |plate| plate.len() as u32)
}

/// A vehicle update taken whole, as rmcp's `Parameters<T>` takes it.
#[derive(Deserialize, JsonSchema)]
pub struct VehicleUpdate {
    pub id: u32,
    pub plate: Option<String>,
}

/// Updates a vehicle, its arguments taken whole.
#[mcp_tool]
fn vehicle_update_whole(Parameters(update): Parameters<VehicleUpdate>) -> u32 {
    update.id + update.plate.map_or(0, |plate| plate.len() as u32)
}

fn vehicles() -> Server {
    Server::from_tools(mcp_light::tools![vehicle_update, vehicle_update_whole])
        .build()
        .unwrap()
}

#[tokio::test]
async fn fields_wrapped_in_an_object_are_refused_naming_the_fields_and_where_they_go() {
    let server = vehicles();
    let wrapped = json!({"id": 7, "data": {"plate": "KX-1", "odometer_km": 9}});
    let text = error_text(
        &server
            .call("vehicle_update", wrapped, Caller::Process)
            .await,
    );
    assert_eq!(
        text,
        "invalid arguments for `vehicle_update`: unknown field `data`; `vehicle_update` takes \
         `id`, `plate`, `odometer_km`; send them at the top level, not inside `data`"
    );
    // Taken whole, the same.
    let wrapped = json!({"id": 7, "data": {"plate": "KX-1"}});
    let text = error_text(
        &server
            .call("vehicle_update_whole", wrapped, Caller::Process)
            .await,
    );
    assert_eq!(
        text,
        "invalid arguments for `vehicle_update_whole`: unknown field `data`; \
         `vehicle_update_whole` takes `id`, `plate`; send them at the top level, not inside `data`"
    );
    // Sent as the refusal says, the call runs.
    let flat = json!({"id": 7, "plate": "KX-1", "odometer_km": 9});
    let answer = server.call("vehicle_update", flat, Caller::Process).await;
    assert_eq!(ok_json(&answer), json!(20));
}

#[tokio::test]
async fn every_refusal_of_arguments_names_what_the_tool_takes() {
    let server = vehicles();
    // An unknown field that wraps nothing: no word of the top level.
    let text = error_text(
        &server
            .call(
                "vehicle_update",
                json!({"id": 1, "colour": "red"}),
                Caller::Process,
            )
            .await,
    );
    assert_eq!(
        text,
        "invalid arguments for `vehicle_update`: unknown field `colour`; `vehicle_update` takes \
         `id`, `plate`, `odometer_km`"
    );
    // A missing field and a wrong type, flattened or not.
    let text = error_text(
        &server
            .call("vehicle_update", json!({}), Caller::Process)
            .await,
    );
    assert!(
        text.starts_with("invalid arguments for `vehicle_update`: missing field `id`"),
        "{text}"
    );
    assert!(
        text.ends_with("`vehicle_update` takes `id`, `plate`, `odometer_km`"),
        "{text}"
    );
    let text = error_text(
        &server
            .call(
                "vehicle_update_whole",
                json!({"id": "seven"}),
                Caller::Process,
            )
            .await,
    );
    assert!(
        text.contains("`id`: invalid type: string \"seven\""),
        "{text}"
    );
    assert!(
        text.ends_with("`vehicle_update_whole` takes `id`, `plate`"),
        "{text}"
    );
}

/// A tool with many arguments, for the bound on a refusal's list.
#[derive(Deserialize, JsonSchema)]
#[expect(dead_code, reason = "only its schema and its parse are tried")]
#[serde(deny_unknown_fields)]
pub struct Wide {
    pub f01: u8,
    pub f02: u8,
    pub f03: u8,
    pub f04: u8,
    pub f05: u8,
    pub f06: u8,
    pub f07: u8,
    pub f08: u8,
    pub f09: u8,
    pub f10: u8,
    pub f11: u8,
    pub f12: u8,
    pub f13: u8,
    pub f14: u8,
    pub f15: u8,
}

/// Takes fifteen arguments.
#[mcp_tool]
fn wide_tool(Parameters(wide): Parameters<Wide>) -> u8 {
    wide.f01
}

#[tokio::test]
async fn a_refusal_lists_a_wide_tools_arguments_up_to_a_bound() {
    let server = Server::from_tools(mcp_light::tools![wide_tool])
        .build()
        .unwrap();
    let text = error_text(
        &server
            .call("wide_tool", json!({"x": 1}), Caller::Process)
            .await,
    );
    assert!(
        text.ends_with("`f10`, `f11`, `f12` and 3 more (see its input schema)"),
        "{text}"
    );
    assert!(!text.contains("`f13`"), "{text}");
}
