//! The same server behind rmcp's own client, over an in-process byte pipe
//! framed exactly as stdio is.

use mcp_light::Server;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Value, json};

use crate::fixtures::{Harness, new_devices};

struct Wire {
    client: RunningService<RoleClient, ()>,
}

impl Wire {
    async fn connect(server: Server) -> Wire {
        Wire {
            client: crate::fixtures::connect(server).await,
        }
    }

    async fn call(&self, tool: &str, args: Value) -> CallToolResult {
        let Value::Object(args) = args else {
            panic!("arguments are an object")
        };
        let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(args);
        self.client
            .call_tool(params)
            .await
            .expect("tools/call answers")
    }
}

fn json_of(result: &CallToolResult) -> Value {
    assert_eq!(result.is_error, Some(false), "{result:?}");
    let text = &result.content[0].as_text().unwrap().text;
    serde_json::from_str(text).unwrap()
}

fn error_of(result: &CallToolResult) -> String {
    assert_eq!(result.is_error, Some(true), "{result:?}");
    result.content[0].as_text().unwrap().text.clone()
}

#[tokio::test]
async fn tools_list_publishes_verify_on_writes_and_continuation_where_it_redeems() {
    let h = Harness::new();
    let wire = Wire::connect(h.builder().with_dispatcher("inventory").build().unwrap()).await;
    let tools = wire.client.list_all_tools().await.unwrap();
    let find = |name: &str| {
        tools
            .iter()
            .find(|t| t.name == name)
            .unwrap_or_else(|| panic!("{name} listed"))
    };

    for name in [
        "device_create",
        "device_bulk_create",
        "device_destroy",
        "device_rename",
    ] {
        assert!(
            find(name).input_schema["properties"]
                .get("verify")
                .is_some(),
            "{name}"
        );
        assert_ne!(
            find(name).annotations.as_ref().unwrap().read_only_hint,
            Some(true)
        );
    }
    assert!(
        find("device_get").input_schema["properties"]
            .get("verify")
            .is_none()
    );
    for name in ["device_list", "inventory"] {
        assert!(
            find(name).input_schema["properties"]
                .get("continuation_token")
                .is_some(),
            "{name}"
        );
    }
    assert_eq!(
        find("device_bulk_create").description.as_deref(),
        Some("Create many devices at once.")
    );
}

#[tokio::test]
async fn a_bulk_create_answers_the_envelope_as_text_and_structured_content() {
    let h = Harness::new();
    let wire = Wire::connect(h.server.clone()).await;
    let result = wire
        .call("device_bulk_create", json!({"devices": new_devices(60)}))
        .await;
    let envelope = json_of(&result);
    assert_eq!(result.structured_content.as_ref(), Some(&envelope));
    assert_eq!(envelope["accepted"], 60);
    // 60 ids would take the envelope past its bound: the token reaches them.
    assert!(envelope.get("ids").is_none(), "{envelope}");
    let token = envelope["continuation_token"].clone();
    assert!(token.is_string(), "{envelope}");

    let result = wire
        .call(
            "device_bulk_create",
            json!({"continuation_token": token, "mode": "filtered", "filter_keys": ["id"]}),
        )
        .await;
    let page = json_of(&result);
    assert_eq!(result.structured_content.as_ref(), Some(&page));
    let ids: Vec<Value> = h
        .inventory
        .devices
        .lock()
        .unwrap()
        .iter()
        .map(|device| json!({"id": device.id}))
        .collect();
    assert_eq!(page["items"], Value::Array(ids), "{page}");
}

#[tokio::test]
async fn a_routed_token_redeems_a_multi_megabyte_result_whole() {
    let h = Harness::new();
    // rmcp's plain client is one the table does not know: the server says
    // such a client keeps 8 MB, so `full` answers the 3 MB whole.
    let clients = mcp_light::clients::ClientTable::new()
        .with_unknown_client(8_000_000)
        .unwrap();
    let server = h
        .builder()
        .with_dispatcher("inventory")
        .with_clients(clients)
        .build()
        .unwrap();
    let wire = Wire::connect(server).await;
    let records: Vec<Value> = (0..3_000)
        .map(|i| json!({"id": i, "blob": "x".repeat(1_000)}))
        .collect();
    let args =
        json!({"resource": "record", "action": "bulk_create", "params": {"records": records}});
    let envelope = json_of(&wire.call("inventory", args).await);
    assert!(
        envelope["data_size"].as_u64().unwrap() > 3_000_000,
        "{envelope}"
    );

    let full = wire
        .call(
            "inventory",
            json!({"continuation_token": envelope["continuation_token"], "mode": "full"}),
        )
        .await;
    let full = json_of(&full);
    assert_eq!(full.as_array().unwrap().len(), 3_000);
    assert_eq!(full[2_999]["id"], 2_999);
}

#[tokio::test]
async fn errors_over_the_wire_are_tool_results_and_the_server_keeps_serving() {
    let h = Harness::new();
    let wire = Wire::connect(h.builder().with_dispatcher("inventory").build().unwrap()).await;

    let text = error_of(
        &wire
            .call("device_create", json!({"device": {"name": 1}}))
            .await,
    );
    assert!(text.contains("`device.name`"), "{text}");
    let text = error_of(&wire.call("no_such_tool", json!({})).await);
    assert!(text.starts_with("unknown tool `no_such_tool`"), "{text}");
    let text = error_of(
        &wire
            .call("inventory", json!({"resource": "device", "action": "fly"}))
            .await,
    );
    assert!(text.starts_with("unknown action `fly`"), "{text}");
    let text = error_of(&wire.call("explode", json!({"depth": 1})).await);
    assert!(text.contains("panicked"), "{text}");

    assert_eq!(
        json_of(&wire.call("count", json!({"n": 2})).await),
        json!([1, 2])
    );
}
