//! What a server publishes (every tool, only its dispatchers, or both), and
//! how an agent given only a dispatcher learns an action's parameters: on
//! demand with `describe: true`, or from the error of one wrong call.

use mcp_light::catalog::Surface;
use mcp_light::{Caller, Server};
use serde_json::{Map, Value, json};

use crate::fixtures::{Harness, error_text, new_devices, ok_json};

fn served(surface: Surface) -> (Harness, Server) {
    let h = Harness::new();
    let server = h
        .builder()
        .with_dispatcher("inventory")
        .with_surface(surface)
        .build()
        .unwrap();
    (h, server)
}

fn listed(server: &Server) -> Vec<String> {
    server
        .tools()
        .iter()
        .map(|tool| tool.name.to_string())
        .collect()
}

/// The tools no dispatcher can reach: those without a resource or an action.
fn unrouted(server: &Server) -> Vec<String> {
    server
        .registry()
        .iter()
        .filter(|tool| tool.def().resource().is_none() || tool.def().action().is_none())
        .map(|tool| tool.name().to_owned())
        .collect()
}

/// The flat tool's published schema without the fields `without` names.
fn flat_schema_without(server: &Server, tool: &str, without: &[&str]) -> Value {
    let mut schema: Map<String, Value> =
        (**server.registry().get(tool).unwrap().input_schema()).clone();
    let properties = schema["properties"].as_object_mut().unwrap();
    for field in without {
        properties.shift_remove(*field);
    }
    Value::Object(schema)
}

/// `schema` as a dispatcher spells it for a model that reads it: each union
/// with a `null` branch loses it, and a union left with one branch is that
/// branch, beside the keys the union had; `additionalProperties: false`
/// goes, and so does `type: object` beside `properties`.
fn for_reader(schema: Value) -> Value {
    match schema {
        Value::Array(items) => Value::Array(items.into_iter().map(for_reader).collect()),
        Value::Object(map) => {
            let mut out: Map<String, Value> = map
                .into_iter()
                .map(|(key, value)| (key, for_reader(value)))
                .collect();
            if let Some(Value::Array(branches)) = out.get("anyOf").cloned() {
                let kept: Vec<Value> = branches
                    .iter()
                    .filter(|branch| branch["type"] != "null")
                    .cloned()
                    .collect();
                if kept.len() < branches.len() {
                    out.shift_remove("anyOf");
                    if out.get("default") == Some(&Value::Null) {
                        out.shift_remove("default");
                    }
                    match <[Value; 1]>::try_from(kept) {
                        Ok([Value::Object(only)]) => {
                            for (key, value) in only {
                                out.entry(key).or_insert(value);
                            }
                        }
                        Ok([other]) => {
                            out.insert("anyOf".to_owned(), Value::Array(vec![other]));
                        }
                        Err(kept) => {
                            out.insert("anyOf".to_owned(), Value::Array(kept));
                        }
                    }
                }
            }
            if out.get("additionalProperties") == Some(&Value::Bool(false)) {
                out.shift_remove("additionalProperties");
            }
            if out.get("type") == Some(&json!("object")) && out.contains_key("properties") {
                out.shift_remove("type");
            }
            Value::Object(out)
        }
        other => other,
    }
}

/// The schema an error carries after "takes: ".
fn taught_schema(text: &str) -> Value {
    let (_, schema) = text
        .split_once("takes: ")
        .unwrap_or_else(|| panic!("no schema in: {text}"));
    serde_json::from_str(schema).unwrap()
}

#[tokio::test]
async fn both_publishes_every_tool_then_the_dispatcher() {
    let (_h, server) = served(Surface::Both);
    let names = listed(&server);
    assert_eq!(names.len(), server.registry().len() + 1);
    assert_eq!(names.last().unwrap(), "inventory");
}

#[tokio::test]
async fn flat_publishes_no_dispatcher_and_does_not_serve_one() {
    let (_h, server) = served(Surface::Flat);
    let names = listed(&server);
    assert_eq!(names.len(), server.registry().len());
    assert!(!names.contains(&"inventory".to_owned()));
    let text = error_text(
        &server
            .call(
                "inventory",
                json!({"resource": "device", "action": "list"}),
                Caller::Process,
            )
            .await,
    );
    assert!(
        text.starts_with("unknown tool `inventory`; this server has: "),
        "{text}"
    );
    assert!(!text.ends_with("inventory"), "{text}");
}

#[tokio::test]
async fn dispatcher_publishes_the_dispatcher_and_only_the_tools_it_cannot_reach() {
    let (_h, server) = served(Surface::Dispatcher);
    let mut expected = unrouted(&server);
    assert!(
        !expected.is_empty(),
        "the fixtures have tools without a route"
    );
    expected.push("inventory".to_owned());
    assert_eq!(listed(&server), expected);
    // An unrouted tool is still served.
    let counted = ok_json(&server.call("count", json!({"n": 3}), Caller::Process).await);
    assert_eq!(counted, json!([1, 2, 3]));
}

#[tokio::test]
async fn a_tool_published_only_through_the_dispatcher_says_how_to_reach_it_and_runs_nothing() {
    let (h, server) = served(Surface::Dispatcher);
    let args = json!({"device": new_devices(1)[0]});
    let text = error_text(&server.call("device_create", args, Caller::Process).await);
    assert_eq!(
        text,
        r#"`device_create` is published only through `inventory` here: call `inventory` with "resource": "device", "action": "create" and the arguments in "params" ("describe": true answers their schema)"#
    );
    assert_eq!(h.runs(), 0);
}

#[tokio::test]
async fn describe_answers_the_flat_tools_params_spelled_for_a_reader() {
    let (h, server) = served(Surface::Dispatcher);
    let describe = async |resource: &str, action: &str| {
        let args = json!({"resource": resource, "action": action, "describe": true});
        ok_json(&server.call("inventory", args, Caller::Process).await)
    };
    // A read: its flat schema is its parameters.
    let read = describe("device", "retrieve").await;
    assert_eq!(read["description"], "Fetch one device by id.");
    assert_eq!(
        read["params_schema"],
        for_reader(Value::Object(
            (**server.registry().get("device_get").unwrap().input_schema()).clone()
        ))
    );
    // A write: without `verify`, which goes at the dispatcher's top level.
    let write = describe("device", "create").await;
    assert_eq!(
        write["params_schema"],
        for_reader(flat_schema_without(&server, "device_create", &["verify"]))
    );
    // A heavy read: without the negotiation fields, top level too.
    let heavy = describe("device", "list").await;
    let negotiation = [
        "continuation_token",
        "mode",
        "page",
        "page_size",
        "filter_keys",
    ];
    let flat = flat_schema_without(&server, "device_list", &negotiation);
    assert_eq!(heavy["params_schema"], for_reader(flat.clone()));
    // An optional argument: published with a null branch, which strict
    // function schemas need; described as what it is, and not required.
    assert_eq!(
        flat["properties"]["role"],
        json!({"anyOf": [{"type": "string"}, {"type": "null"}]})
    );
    assert_eq!(
        heavy["params_schema"]["properties"]["role"],
        json!({"type": "string"})
    );
    assert!(heavy["params_schema"].get("required").is_none(), "{heavy}");
    assert!(!heavy.to_string().contains("null"), "{heavy}");
    assert_eq!(h.runs(), 0, "describe runs nothing");
}

#[tokio::test]
async fn wrong_params_answer_the_problem_and_the_schema_they_must_match() {
    let (h, server) = served(Surface::Dispatcher);
    let expected = for_reader(flat_schema_without(&server, "device_create", &["verify"]));
    for params in [
        json!({"device": {"name": "a"}}),
        json!({}),
        json!({"devices": []}),
    ] {
        let args = json!({"resource": "device", "action": "create", "params": params});
        let text = error_text(&server.call("inventory", args, Caller::Process).await);
        assert!(
            text.starts_with("invalid arguments for `device_create`"),
            "{text}"
        );
        assert!(
            text.contains("missing field") || text.contains("unknown field"),
            "{text}"
        );
        assert!(
            text.contains("for resource `device` and action `create` takes: "),
            "{text}"
        );
        assert_eq!(taught_schema(&text), expected);
    }
    let args = json!({"resource": "device", "action": "create", "params": ["x"]});
    let text = error_text(&server.call("inventory", args, Caller::Process).await);
    assert!(
        text.starts_with(r#"`params` must be a JSON object of the action's arguments; got ["x"]."#),
        "{text}"
    );
    assert_eq!(taught_schema(&text), expected);
    assert_eq!(h.runs(), 0);
}

#[tokio::test]
async fn what_one_failed_call_teaches_makes_the_next_call_succeed() {
    let (h, server) = served(Surface::Dispatcher);
    let text = error_text(
        &server
            .call(
                "inventory",
                json!({"resource": "device", "action": "create", "params": {}}),
                Caller::Process,
            )
            .await,
    );
    let schema = taught_schema(&text);
    let required: Vec<&str> = schema["required"]
        .as_array()
        .unwrap()
        .iter()
        .map(|field| field.as_str().unwrap())
        .collect();
    assert_eq!(required, ["device"]);
    let params = json!({"device": new_devices(1)[0]});
    let created = ok_json(
        &server
            .call(
                "inventory",
                json!({"resource": "device", "action": "create", "params": params}),
                Caller::Process,
            )
            .await,
    );
    assert_eq!(created["status_code"], 201);
    assert_eq!(h.device_count(), 1);
}

#[tokio::test]
async fn flat_calls_with_wrong_arguments_carry_no_dispatcher_schema() {
    let (_h, server) = served(Surface::Both);
    let text = error_text(
        &server
            .call("device_create", json!({}), Caller::Process)
            .await,
    );
    assert_eq!(
        text,
        "invalid arguments for `device_create`: missing field `device`; `device_create` takes `device`"
    );
}

#[tokio::test]
async fn describe_must_be_a_boolean_and_needs_an_action() {
    let (_h, server) = served(Surface::Dispatcher);
    let text = error_text(
        &server
            .call(
                "inventory",
                json!({"resource": "device", "action": "create", "describe": "yes"}),
                Caller::Process,
            )
            .await,
    );
    assert_eq!(
        text,
        r#"`describe` must be true (to get the action's `params` schema) or false; got "yes""#
    );
    let text = error_text(
        &server
            .call(
                "inventory",
                json!({"resource": "device", "describe": true}),
                Caller::Process,
            )
            .await,
    );
    assert!(
        text.starts_with("`inventory` needs `action`; for `device` one of: "),
        "{text}"
    );
}
