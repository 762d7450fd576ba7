//! Registration and published schemas.

use mcp_light::catalog::{Registry, ToolKind, WriteKind};
use mcp_light::prelude::*;
use mcp_light::testing::AnswerExt;
use serde_json::{Value, json};

use crate::fixtures::{self, Harness};

fn schema(registry: &Registry, tool: &str) -> Value {
    Value::Object((**registry.get(tool).expect("registered").input_schema()).clone())
}

#[test]
fn every_write_schema_carries_verify_and_reads_do_not() {
    let registry = Registry::collect().unwrap();
    for tool in registry.iter() {
        let properties = &tool.input_schema()["properties"];
        let verify = properties.get("verify");
        if tool.def().kind().is_write() {
            assert_eq!(
                verify,
                Some(
                    &json!({"type": "boolean", "default": false, "description": "Answer the full result instead of a lean envelope."})
                ),
                "{}",
                tool.name()
            );
        } else {
            assert_eq!(verify, None, "{}", tool.name());
        }
    }
}

#[test]
fn several_parameters_form_one_closed_object_schema() {
    let registry = Registry::collect().unwrap();
    let rename = schema(&registry, "device_rename");
    assert_eq!(rename["type"], "object");
    assert_eq!(rename["additionalProperties"], false);
    assert_eq!(rename["required"], json!(["id", "name"]));
    let properties: Vec<&str> = rename["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        properties,
        ["id", "name", "verify"],
        "the context parameter is not part of the schema"
    );
}

#[test]
fn published_schemas_are_compact() {
    let registry = Registry::collect().unwrap();
    for tool in registry.iter() {
        let text = Value::Object((**tool.input_schema()).clone()).to_string();
        assert!(!text.contains("$schema"), "{}: {text}", tool.name());
        assert!(!text.contains("\"title\""), "{}: {text}", tool.name());
    }
    let create = schema(&registry, "device_create");
    assert_eq!(
        create["properties"]["device"]["type"], "object",
        "a type used once is inlined"
    );
    assert!(create.get("$defs").is_none());
}

#[test]
fn doc_comments_become_descriptions() {
    let registry = Registry::collect().unwrap();
    assert_eq!(
        registry
            .get("device_bulk_create")
            .unwrap()
            .def()
            .description(),
        "Create many devices at once."
    );
}

#[test]
fn write_kinds_status_codes_and_retrieve_links_are_registered() {
    let registry = Registry::collect().unwrap();
    let def = registry.get("device_bulk_create").unwrap().def();
    assert_eq!(
        def.kind(),
        ToolKind::Write {
            kind: WriteKind::BulkCreate,
            status_code: 201
        }
    );
    assert_eq!(def.resource(), Some("device"));
    assert_eq!(def.action(), Some("bulk_create"));
    assert_eq!(def.retrieve(), Some("device_get"));
    assert!(
        def.function().ends_with("fixtures::device_bulk_create"),
        "{}",
        def.function()
    );
    assert!(registry.get("device_create").unwrap().retrieve_published());
    assert!(!registry.get("gadget_create").unwrap().retrieve_published());
    assert_eq!(
        registry.get("device_destroy").unwrap().def().kind(),
        ToolKind::Write {
            kind: WriteKind::Destroy,
            status_code: 204
        }
    );
    assert_eq!(
        registry.get("device_get").unwrap().def().kind(),
        ToolKind::Read
    );
}

#[test]
fn annotations_follow_the_kind() {
    let registry = Registry::collect().unwrap();
    let get = registry.get("device_get").unwrap().annotations();
    assert_eq!(get.read_only_hint, Some(true));
    let destroy = registry.get("device_destroy").unwrap().annotations();
    assert_eq!(
        (
            destroy.read_only_hint,
            destroy.destructive_hint,
            destroy.idempotent_hint
        ),
        (None, Some(true), Some(true))
    );
    // A hint is written where it says more than its absence (MCP reads a
    // missing read-only or idempotent hint as false, destructive as true).
    let create = registry.get("device_create").unwrap().annotations();
    assert_eq!(
        (
            create.read_only_hint,
            create.destructive_hint,
            create.idempotent_hint
        ),
        (None, Some(false), None)
    );
}

#[test]
fn only_schemas_with_a_continuation_slot_disclose() {
    let h = Harness::new();
    let server = h.builder().with_dispatcher("inventory").build().unwrap();
    // A heavy read and a bulk write publish the negotiation fields; a
    // plain read and a single write do not.
    let mut bulk = 0;
    for tool in server.registry().iter() {
        let negotiates = match tool.def().kind() {
            ToolKind::Heavy => true,
            ToolKind::Write {
                kind: WriteKind::BulkCreate | WriteKind::BulkUpdate,
                ..
            } => {
                bulk += 1;
                true
            }
            _ => false,
        };
        assert_eq!(tool.discloses_continuation(), negotiates, "{}", tool.name());
    }
    assert!(bulk > 0, "the fixtures have bulk writes");
    let single = server.registry().get("device_create").unwrap();
    assert!(!single.discloses_continuation());
    let dispatcher = server.dispatcher("inventory").unwrap();
    assert!(dispatcher.discloses_continuation());
    let properties: Vec<&str> = dispatcher.input_schema()["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        properties,
        [
            "resource",
            "action",
            "params",
            "describe",
            "verify",
            "continuation_token",
            "mode",
            "page",
            "page_size",
            "filter_keys"
        ]
    );
}

#[test]
fn a_dispatcher_may_not_take_a_tool_name() {
    let h = Harness::new();
    let error = h
        .builder()
        .with_dispatcher("device_get")
        .build()
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("`device_get`") && error.contains("pick another name"),
        "{error}"
    );
}

#[test]
fn tools_list_shows_tools_then_dispatchers() {
    let h = Harness::new();
    let server = h.builder().with_dispatcher("inventory").build().unwrap();
    let names: Vec<String> = server.tools().iter().map(|t| t.name.to_string()).collect();
    assert_eq!(names.last().map(String::as_str), Some("inventory"));
    assert!(
        names.windows(2).take(names.len() - 2).all(|w| w[0] < w[1]),
        "tools are sorted: {names:?}"
    );
}

/// A server of named tools serves those and no other: a tool linked into
/// the binary (the fixtures' `count`) but not named is neither listed nor
/// called.
#[tokio::test]
async fn a_tool_linked_in_but_not_named_is_not_served() {
    let server = Server::from_tools(tools![fixtures::record_get, fixtures::record_create])
        .build()
        .unwrap();
    let listed: Vec<String> = server
        .tools()
        .iter()
        .map(|tool| tool.name.to_string())
        .collect();
    assert_eq!(listed, ["record_create", "record_get"]);

    assert!(Registry::collect().unwrap().get("count").is_some());
    let unnamed = server.call("count", json!({"n": 2}), Caller::Process).await;
    let message = unnamed.error_text().unwrap();
    assert!(message.starts_with("unknown tool `count`"), "{message}");
    let named = server
        .call("record_get", json!({"id": 7}), Caller::Process)
        .await;
    assert_eq!(named.json().unwrap(), json!({"id": 7}));
}

/// A write's retrieve tool is published only when it is named beside it.
#[test]
fn a_retrieve_tool_not_named_is_not_published() {
    let alone = Registry::from_tools(tools![fixtures::record_create]).unwrap();
    assert!(!alone.get("record_create").unwrap().retrieve_published());
    let both = Registry::from_tools(tools![fixtures::record_create, fixtures::record_get]).unwrap();
    assert!(both.get("record_create").unwrap().retrieve_published());
}
