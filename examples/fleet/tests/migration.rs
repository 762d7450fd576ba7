//! The migration, as a client sees it: the fleet server before the move
//! (`fleet-rmcp`, served by rmcp) and after it (this package's binary,
//! over stdio), side by side behind rmcp's own client.
//!
//! - `tools/list` publishes the same tools, arguments, required lists and
//!   descriptions, plus what mcp-light adds (`verify` on the writes, the
//!   negotiation fields on the heavy read);
//! - the writes answer lean envelopes where rmcp echoed, the list a probe
//!   whose token pages, a nested wrapper is refused where rmcp ignored it,
//!   and the tool kept in rmcp's router answers as before.

use std::process::{Child, Command, Stdio};

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, Tool};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Map, Value, json};
use tokio::net::unix::pipe;

type Client = RunningService<RoleClient, ()>;

/// The server before the move, in this process, over an in-memory pipe.
async fn before() -> Client {
    let (client_io, server_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        let running = fleet_rmcp::Fleet::new()
            .serve(server_io)
            .await
            .expect("the rmcp server starts");
        let _ = running.waiting().await;
    });
    ().serve(client_io).await.expect("the handshake succeeds")
}

/// The server after the move: the `fleet` binary, over its stdin and
/// stdout. The child is killed when the guard drops.
struct After {
    client: Client,
    _child: KillOnDrop,
}

struct KillOnDrop(Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn after() -> After {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fleet"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the fleet binary starts");
    let stdout = child.stdout.take().expect("its stdout is piped");
    let stdin = child.stdin.take().expect("its stdin is piped");
    let read = pipe::Receiver::from_owned_fd(stdout.into()).expect("stdout is a pipe");
    let write = pipe::Sender::from_owned_fd(stdin.into()).expect("stdin is a pipe");
    let client = ().serve((read, write)).await.expect("the handshake succeeds");
    After {
        client,
        _child: KillOnDrop(child),
    }
}

async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(args);
    client.call_tool(params).await.expect("tools/call answers")
}

fn structured(result: &CallToolResult) -> &Value {
    assert_ne!(result.is_error, Some(true), "{result:?}");
    result
        .structured_content
        .as_ref()
        .expect("structured content")
}

fn text_len(result: &CallToolResult) -> usize {
    serde_json::to_string(&result.content).unwrap().len()
}

fn new_vehicles(range: std::ops::RangeInclusive<usize>) -> Value {
    let vehicles: Vec<Value> = range
        .map(|n| {
            let new = fleet_rmcp::new_vehicle(n);
            json!({
                "plate": new.plate, "vin": new.vin, "make": new.make, "model": new.model,
                "year": new.year, "colour": new.colour, "fuel": "diesel",
                "odometer_km": new.odometer_km, "depot": new.depot, "notes": new.notes,
            })
        })
        .collect();
    json!({ "vehicles": vehicles })
}

/// What a schema says of its arguments: each property's description, the
/// required list. A description is found however the schema spells the
/// property: on it, behind its `$ref` (rmcp keeps a type's definition in
/// `$defs`; mcp-light inlines one used once), or on a branch of its
/// `anyOf`.
fn arguments(tool: &Tool) -> (Map<String, Value>, Value) {
    let schema = Value::Object((*tool.input_schema).clone());
    let properties = schema["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let described = properties
        .into_iter()
        .map(|(name, property)| {
            let description = description(&property, &schema).unwrap_or(Value::Null);
            (name, description)
        })
        .collect();
    let mut required: Vec<Value> = schema
        .get("required")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    required.sort_by_key(Value::to_string);
    (described, Value::Array(required))
}

fn description(property: &Value, root: &Value) -> Option<Value> {
    if let Some(description) = property.get("description") {
        return Some(description.clone());
    }
    if let Some(reference) = property.get("$ref").and_then(Value::as_str) {
        let name = reference.trim_start_matches("#/$defs/");
        return description(&root["$defs"][name], root);
    }
    property
        .get("anyOf")
        .and_then(Value::as_array)?
        .iter()
        .find_map(|branch| description(branch, root))
}

#[tokio::test]
async fn the_moved_server_publishes_the_same_tools_plus_what_mcp_light_adds() {
    let before = before().await.list_all_tools().await.unwrap();
    let after = after().await;
    let moved = after.client.list_all_tools().await.unwrap();

    let names = |tools: &[Tool]| {
        let mut names: Vec<String> = tools.iter().map(|t| t.name.to_string()).collect();
        names.sort();
        names
    };
    assert_eq!(names(&moved), names(&before));
    assert_eq!(moved.len(), 7);

    let negotiation = [
        "continuation_token",
        "mode",
        "page",
        "page_size",
        "filter_keys",
    ];
    for old in &before {
        let new = moved.iter().find(|t| t.name == old.name).unwrap();
        assert_eq!(new.description, old.description, "{}", old.name);
        let (old_args, old_required) = arguments(old);
        let (mut new_args, new_required) = arguments(new);
        assert_eq!(new_required, old_required, "{}", old.name);
        // A bulk write gains the negotiation fields too: its token pages
        // what it wrote.
        let bulk = [&["verify"][..], &negotiation[..]].concat();
        let added: &[&str] = match &*old.name {
            "vehicle_create" | "vehicle_update" | "vehicle_delete" => &["verify"],
            "vehicle_bulk_create" => &bulk,
            "vehicle_list" => &negotiation,
            _ => &[],
        };
        for field in added {
            assert!(
                new_args.remove(*field).is_some(),
                "{} lacks {field}",
                old.name
            );
        }
        assert_eq!(new_args, old_args, "{}", old.name);
    }
}

#[tokio::test]
async fn the_moved_server_answers_lean_where_rmcp_echoed() {
    let before = before().await;
    let after = after().await;
    let moved = &after.client;

    // A bulk create of 60: the echo, then ids.
    let echoed = call(&before, "vehicle_bulk_create", new_vehicles(1..=60)).await;
    let lean = call(moved, "vehicle_bulk_create", new_vehicles(1..=60)).await;
    let envelope = structured(&lean);
    assert_eq!(envelope["accepted"], 60);
    assert_eq!(envelope["status_code"], 201);
    assert_eq!(envelope["ids"].as_array().unwrap().len(), 60);
    assert!(
        text_len(&lean) * 5 < text_len(&echoed),
        "lean {} vs echo {}",
        text_len(&lean),
        text_len(&echoed)
    );

    // One create: its id and plate.
    let created = call(
        moved,
        "vehicle_create",
        new_vehicles(61..=61)["vehicles"][0].clone(),
    )
    .await;
    let created = structured(&created);
    assert_eq!(created["id"], 61);
    assert_eq!(created["plate"], "FL-0061");
    assert!(created.get("vin").is_none(), "{created}");

    // A partial update and a delete: their envelopes.
    let updated = call(moved, "vehicle_update", json!({"id": 3, "odometer_km": 5})).await;
    assert_eq!(structured(&updated)["status_code"], 200);
    let got = call(moved, "vehicle_get", json!({"id": 3})).await;
    assert_eq!(structured(&got)["odometer_km"], 5);
    let deleted = call(moved, "vehicle_delete", json!({"id": 61})).await;
    assert_eq!(
        structured(&deleted),
        &json!({"id": 61, "deleted": true, "status_code": 204})
    );

    // The nested wrapper rmcp answered success to, changing nothing.
    let wrapper = json!({"id": 4, "data": {"odometer_km": 5}});
    let ignored = call(&before, "vehicle_update", wrapper.clone()).await;
    assert_eq!(structured(&ignored)["odometer_km"], 4_000);
    let refused = call(moved, "vehicle_update", wrapper).await;
    assert_eq!(refused.is_error, Some(true));
    let text = serde_json::to_string(&refused.content).unwrap();
    assert!(text.contains("unknown field `data`"), "{text}");
    assert!(text.contains("`odometer_km`"), "{text}");
    assert!(
        text.contains("send them at the top level, not inside `data`"),
        "{text}"
    );

    // The list: a probe whose token pages.
    let probe = call(moved, "vehicle_list", json!({})).await;
    let probe = structured(&probe);
    let token = probe["continuation_token"].as_str().expect("a token");
    let page = call(
        moved,
        "vehicle_list",
        json!({"continuation_token": token, "mode": "paginated", "page": 2, "page_size": 10}),
    )
    .await;
    let page = structured(&page);
    assert_eq!(page["items"].as_array().unwrap().len(), 10, "{page}");
    assert_eq!(page["items"][0]["id"], 11, "{page}");

    // The tool kept in rmcp's router answers as it did.
    call(
        &before,
        "vehicle_update",
        json!({"id": 3, "odometer_km": 5}),
    )
    .await;
    call(
        &before,
        "vehicle_create",
        new_vehicles(61..=61)["vehicles"][0].clone(),
    )
    .await;
    call(&before, "vehicle_delete", json!({"id": 61})).await;
    let old_stats = call(&before, "fleet_stats", json!({})).await;
    let new_stats = call(moved, "fleet_stats", json!({})).await;
    assert_eq!(new_stats.structured_content, old_stats.structured_content);
    assert_eq!(structured(&new_stats)["vehicles"], 60);
}
