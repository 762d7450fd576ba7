//! Output schemas, when a host asks for them: object-rooted, listing every
//! shape each tool answers, and admitting the answers the server really
//! gives. (The official Python client validates real answers against them
//! in the inventory example's Python suite too.)

use mcp_light::{Caller, Server};
use rmcp::model::Tool;
use serde_json::{Value, json};

use crate::fixtures::{Harness, new_devices};

fn tools(server: &Server) -> Vec<Tool> {
    server.tools().to_vec()
}

/// The titles of the shapes a tool's output schema lists.
fn shapes(tool: &Tool) -> Vec<String> {
    let schema = tool.output_schema.as_ref().expect("an output schema");
    assert_eq!(
        schema["type"], "object",
        "{}: the root is an object",
        tool.name
    );
    match schema.get("anyOf") {
        None => vec!["result".to_owned()],
        Some(branches) => branches
            .as_array()
            .unwrap()
            .iter()
            .map(|branch| branch["title"].as_str().unwrap().to_owned())
            .collect(),
    }
}

fn find<'t>(tools: &'t [Tool], name: &str) -> &'t Tool {
    tools.iter().find(|tool| tool.name == name).unwrap()
}

#[test]
fn without_the_option_no_tool_publishes_an_output_schema() {
    let h = Harness::new();
    let server = h.builder().with_dispatcher("inventory").build().unwrap();
    assert!(
        tools(&server)
            .iter()
            .all(|tool| tool.output_schema.is_none())
    );
}

#[test]
fn every_tool_lists_the_shapes_of_its_kind() {
    let h = Harness::new();
    let server = h
        .builder()
        .with_dispatcher("inventory")
        .with_output_schemas(true)
        .build()
        .unwrap();
    let tools = tools(&server);
    // Every tool but those answering MCP content, which carry no
    // `structuredContent` (the `content` module's).
    let answers_content = |tool: &Tool| {
        server
            .registry()
            .get(&tool.name)
            .is_some_and(|published| published.def().answers_content())
    };
    assert!(
        tools
            .iter()
            .all(|tool| tool.output_schema.is_some() != answers_content(tool))
    );
    assert_eq!(shapes(find(&tools, "device_get")), ["result"]);
    assert_eq!(
        shapes(find(&tools, "device_create")),
        ["envelope", "result"]
    );
    // A bulk write's token is redeemed through the tool itself: its pages
    // and summary too (and `verify` past what the client keeps, a page).
    assert_eq!(
        shapes(find(&tools, "device_bulk_create")),
        ["envelope", "page", "summary", "result"]
    );
    assert_eq!(
        shapes(find(&tools, "device_destroy")),
        ["envelope", "result"]
    );
    assert_eq!(
        shapes(find(&tools, "device_list")),
        ["probe", "page", "summary", "result"]
    );
    // The dispatcher answers for every kind it routes, redemptions, and
    // its `describe`.
    assert_eq!(
        shapes(find(&tools, "inventory")),
        [
            "envelope", "envelope", "envelope", "probe", "page", "summary", "describe", "result"
        ]
    );
}

#[test]
fn the_envelope_branches_of_the_dispatcher_are_those_of_the_flat_writes() {
    let h = Harness::new();
    let server = h
        .builder()
        .with_dispatcher("inventory")
        .with_output_schemas(true)
        .build()
        .unwrap();
    let tools = tools(&server);
    let first_branch = |name: &str| -> Value {
        find(&tools, name).output_schema.as_ref().unwrap()["anyOf"][0].clone()
    };
    let dispatcher = &find(&tools, "inventory").output_schema.as_ref().unwrap()["anyOf"];
    for (i, write) in ["device_create", "device_bulk_create", "device_destroy"]
        .into_iter()
        .enumerate()
    {
        assert_eq!(dispatcher[i], first_branch(write), "{write}");
    }
}

/// Whether `value` matches `schema`, for the keywords output schemas use.
fn admits(schema: &Value, value: &Value) -> bool {
    let Some(schema) = schema.as_object() else {
        return schema != &Value::Bool(false);
    };
    let typed = |name: &str| match name {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "integer" => value.is_u64() || value.is_i64(),
        "boolean" => value.is_boolean(),
        other => panic!("no check for type {other}"),
    };
    schema.iter().all(|(keyword, rule)| match keyword.as_str() {
        "type" => typed(rule.as_str().unwrap()),
        "const" => value == rule,
        "enum" => rule.as_array().unwrap().contains(value),
        "required" => rule
            .as_array()
            .unwrap()
            .iter()
            .all(|key| value.get(key.as_str().unwrap()).is_some()),
        "properties" => rule
            .as_object()
            .unwrap()
            .iter()
            .all(|(key, sub)| value.get(key).is_none_or(|field| admits(sub, field))),
        "items" => value
            .as_array()
            .is_none_or(|items| items.iter().all(|item| admits(rule, item))),
        "anyOf" => rule
            .as_array()
            .unwrap()
            .iter()
            .any(|sub| admits(sub, value)),
        "title" | "description" => true,
        other => panic!("no check for keyword {other}"),
    })
}

/// The keys of `answer` that no branch of `tool`'s output schema titled
/// `title` and admitting it names (of the branches that do, the one naming
/// the most); fails unless such a branch admits the answer (the `result`
/// branch admits any object, so matching it would prove nothing).
fn unnamed_keys<'a>(tool: &Tool, title: &str, answer: &'a Value) -> Vec<&'a str> {
    let schema = Value::Object((**tool.output_schema.as_ref().unwrap()).clone());
    assert!(admits(&schema, answer), "{}: {answer}", tool.name);
    let unnamed_by = |branch: &Value| -> Vec<&'a str> {
        let named = |key: &str| {
            branch["properties"].get(key).is_some()
                || branch["required"]
                    .as_array()
                    .is_some_and(|required| required.iter().any(|k| k == key))
        };
        answer
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .filter(|key| !named(key))
            .collect()
    };
    schema["anyOf"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|branch| branch["title"] == title && admits(branch, answer))
        .map(unnamed_by)
        .min_by_key(Vec::len)
        .unwrap_or_else(|| panic!("{}: no {title} branch admits {answer}", tool.name))
}

/// Real answers, called through the server, against the schemas it
/// publishes: each is admitted by the branch of its own shape, and names
/// no key that branch leaves out, but the ones that are the result's own
/// (an object's identity in an envelope, a summary's per-type details).
#[tokio::test]
async fn real_answers_match_their_own_branch_of_the_published_schema() {
    let h = Harness::with_devices(30).await;
    let server = h
        .dispatched_builder()
        .with_output_schemas(true)
        .build()
        .unwrap();
    let tools = tools(&server);
    let call = async |tool: &str, args: Value| {
        crate::fixtures::ok_json(
            &server
                .call(tool, args, Caller::Session("alice".into()))
                .await,
        )
    };
    let new_device = json!({"name": "edge-99", "site_slug": "hq-1", "role": "leaf"});
    let light_keys = ["id", "url", "name", "site_slug", "role"];

    // Writes, flat (a single write's id reaches what was written; a bulk
    // write's schema has a slot, so a token and its ids) and routed (a
    // token).
    let flat = find(&tools, "device_create");
    let created = call("device_create", json!({"device": new_device})).await;
    assert_eq!(unnamed_keys(flat, "envelope", &created), light_keys);
    let dispatcher = find(&tools, "inventory");
    let routed =
        json!({"resource": "device", "action": "create", "params": {"device": new_device}});
    let created = call("inventory", routed).await;
    assert!(created.get("continuation_token").is_some(), "{created}");
    assert_eq!(unnamed_keys(dispatcher, "envelope", &created), light_keys);

    let bulk = json!({"devices": new_devices(3)});
    let written = call("device_bulk_create", bulk.clone()).await;
    assert!(written.get("ids").is_some(), "{written}");
    let none: [&str; 0] = [];
    assert_eq!(
        unnamed_keys(find(&tools, "device_bulk_create"), "envelope", &written),
        none
    );
    let routed = json!({"resource": "device", "action": "bulk_create", "params": bulk});
    let written = call("inventory", routed).await;
    assert_eq!(unnamed_keys(dispatcher, "envelope", &written), none);

    let id = created["id"].clone();
    let destroyed = call("device_destroy", json!({"id": id})).await;
    assert_eq!(
        unnamed_keys(find(&tools, "device_destroy"), "envelope", &destroyed),
        ["id"]
    );

    // A heavy read: its probe, then a page, a filtered page and a summary.
    let list = find(&tools, "device_list");
    let probe = call("device_list", json!({})).await;
    assert_eq!(unnamed_keys(list, "probe", &probe), none);
    let token = &probe["continuation_token"];
    let page = call("device_list", json!({"continuation_token": token})).await;
    assert_eq!(unnamed_keys(list, "page", &page), none);
    let asked = json!({"continuation_token": token, "mode": "filtered", "filter_keys": ["id"]});
    let filtered = call("device_list", asked).await;
    assert_eq!(unnamed_keys(list, "page", &filtered), none);
    let asked = json!({"continuation_token": token, "mode": "summary"});
    let summary = call("device_list", asked).await;
    assert_eq!(unnamed_keys(list, "summary", &summary), ["fields"]);

    // A heavy read within its inline budget answers the list itself, whose
    // structured content, `{"result": [...]}`, the `result` branch admits
    // (naming none of its keys: it admits any object).
    let whole = server
        .call("inline_rows", json!({"n": 2}), Caller::Process)
        .await;
    let listed = crate::fixtures::ok_json(&whole);
    assert_eq!(listed.as_array().map(Vec::len), Some(2), "{listed}");
    let structured = whole.structured_content.unwrap();
    assert_eq!(
        unnamed_keys(find(&tools, "inline_rows"), "result", &structured),
        ["result"]
    );

    // The dispatcher's `describe`.
    let asked = json!({"resource": "device", "action": "create", "describe": true});
    let described = call("inventory", asked).await;
    assert_eq!(unnamed_keys(dispatcher, "describe", &described), none);
}
