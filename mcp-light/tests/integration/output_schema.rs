//! Output schemas, when a host asks for them: object-rooted, listing every
//! shape each tool answers. (The official Python client validates real
//! answers against them in the inventory example's Python suite.)

use mcp_light::Server;
use rmcp::model::Tool;
use serde_json::Value;

use crate::fixtures::Harness;

fn tools(server: &Server) -> Vec<Tool> {
    server.list_tools()
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
    let server = h.server.with_dispatcher("inventory").unwrap();
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
        .server
        .with_dispatcher("inventory")
        .unwrap()
        .with_output_schemas(true);
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
    assert_eq!(
        shapes(find(&tools, "device_bulk_create")),
        ["envelope", "result"]
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
        .server
        .with_dispatcher("inventory")
        .unwrap()
        .with_output_schemas(true);
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
