//! Tools that answer MCP content instead of JSON, called directly and
//! through rmcp's client.

use mcp_light::testing::AnswerExt;
use mcp_light::{CallToolResult, Caller, ContentAnswer, prelude::*};
use rmcp::model::{CallToolRequestParams, ResourceContents};
use serde_json::{Value, json};

const PIXEL: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// One image.
#[mcp_tool]
fn content_image() -> Content {
    Content::image(PIXEL, "image/png")
}

/// Text, an image and an embedded resource, in that order.
#[mcp_tool]
async fn content_mixed(caption: String) -> Result<Vec<Content>, ToolError> {
    Ok(vec![
        Content::text(caption),
        Content::image(PIXEL, "image/png"),
        Content::resource(ResourceContents::text("inside", "test://inside")),
    ])
}

/// Fails before answering any content.
#[mcp_tool]
fn content_refused(why: String) -> Result<[Content; 1], ToolError> {
    Err(ToolError::new(why))
}

/// A whole result, its own error flag included.
#[mcp_tool]
fn content_whole() -> CallToolResult {
    CallToolResult::error(vec![Content::text("the printer is on fire")])
}

/// A type of the application's own that renders as content.
struct Chart(&'static str);

impl ContentAnswer for Chart {
    fn into_call_tool_result(self) -> CallToolResult {
        CallToolResult::success(vec![Content::text(format!("chart of {}", self.0))])
    }
}

/// A chart.
#[mcp_tool]
fn content_chart() -> Chart {
    Chart("load")
}

/// Plain text stays a JSON answer: only content types answer content.
#[mcp_tool]
fn content_json_text() -> String {
    "plain".to_owned()
}

/// Records created at once, answered as rmcp's examples build a result: a
/// line of text, and the list inside an object as structured content.
#[mcp_light(bulk_create)]
fn built_bulk_create(titles: Vec<String>) -> CallToolResult {
    let created: Vec<Value> = titles
        .iter()
        .enumerate()
        .map(|(n, title)| json!({"id": n + 1, "title": title, "notes": "x".repeat(200)}))
        .collect();
    let mut result = CallToolResult::success(vec![Content::text(format!(
        "created {} records",
        created.len()
    ))]);
    result.structured_content = Some(json!({ "created": created }));
    result
}

/// A log, as plain text built by hand: one block a line.
#[mcp_heavy]
fn built_log(lines: usize) -> CallToolResult {
    CallToolResult::success(
        (1..=lines)
            .map(|n| Content::text(format!("line {n}: the pump started and stopped again")))
            .collect(),
    )
}

/// The tool's own error, built by hand, under a heavy read.
#[mcp_heavy]
fn built_refusal() -> Result<CallToolResult, rmcp::ErrorData> {
    Ok(CallToolResult::error(vec![Content::text(
        "the log is sealed",
    )]))
}

fn built_server() -> Server {
    Server::from_tools(tools![built_bulk_create, built_log, built_refusal])
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_built_bulk_result_counts_the_list_its_structured_content_carries() {
    let server = built_server();
    let titles: Vec<String> = (1..=40).map(|n| format!("record {n}")).collect();
    let answer = server
        .call(
            "built_bulk_create",
            json!({"titles": titles}),
            Caller::Process,
        )
        .await;
    let envelope = answer.json().unwrap();
    assert_eq!(envelope["accepted"], 40, "{envelope}");
    assert_eq!(envelope["status_code"], 201, "{envelope}");
    let token = envelope["continuation_token"].as_str().expect("a token");
    let ids = server
        .call(
            "built_bulk_create",
            json!({"continuation_token": token, "mode": "filtered", "filter_keys": ["id"], "page_size": 40}),
            Caller::Process,
        )
        .await
        .json()
        .unwrap();
    let ids: Vec<Value> = ids["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["id"].clone())
        .collect();
    assert_eq!(ids, (1..=40).map(|n| json!(n)).collect::<Vec<_>>());
}

#[tokio::test]
async fn a_built_text_result_is_a_heavy_reads_string_and_its_error_passes_through() {
    let server = built_server();
    let small = server
        .call("built_log", json!({"lines": 2}), Caller::Process)
        .await;
    assert_eq!(
        small.json().unwrap(),
        json!({"result": "line 1: the pump started and stopped again\nline 2: the pump started and stopped again"})
    );
    let large = server
        .call("built_log", json!({"lines": 2_000}), Caller::Process)
        .await;
    let probe = large.json().unwrap();
    let token = probe["continuation_token"].as_str().expect("a probe");
    let summary = server
        .call(
            "built_log",
            json!({"continuation_token": token, "mode": "summary"}),
            Caller::Process,
        )
        .await
        .json()
        .unwrap();
    assert_eq!(summary["type"], "string", "{summary}");
    let refused = server
        .call("built_refusal", json!({}), Caller::Process)
        .await;
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(refused.error_text().unwrap(), "the log is sealed");
}

fn server() -> Server {
    crate::fixtures::linked()
        .build()
        .expect("the test tools register")
}

fn builder() -> ServerBuilder {
    crate::fixtures::linked()
}

#[tokio::test]
async fn a_single_block_is_the_whole_content_without_structured_content() {
    let result = server()
        .call("content_image", json!({}), Caller::Process)
        .await;
    assert_eq!(result.is_error, Some(false));
    assert_eq!(result.content, vec![Content::image(PIXEL, "image/png")]);
    assert!(result.structured_content.is_none());
}

#[tokio::test]
async fn several_blocks_arrive_in_order_and_an_error_is_an_error() {
    let server = server();
    let mixed = server
        .call("content_mixed", json!({"caption": "look"}), Caller::Process)
        .await;
    let kinds: Vec<_> = mixed
        .content
        .iter()
        .map(|block| serde_json::to_value(block).unwrap()["type"].clone())
        .collect();
    assert_eq!(kinds, ["text", "image", "resource"]);
    assert_eq!(mixed.content[0].as_text().unwrap().text, "look");

    let refused = server
        .call(
            "content_refused",
            json!({"why": "no paper"}),
            Caller::Process,
        )
        .await;
    assert_eq!(refused.is_error, Some(true));
    assert!(
        refused.content[0]
            .as_text()
            .unwrap()
            .text
            .contains("no paper"),
        "{refused:?}"
    );
}

#[tokio::test]
async fn a_whole_result_and_an_own_type_answer_as_they_say() {
    let server = server();
    let whole = server
        .call("content_whole", json!({}), Caller::Process)
        .await;
    assert_eq!(
        whole,
        CallToolResult::error(vec![Content::text("the printer is on fire")])
    );
    let chart = server
        .call("content_chart", json!({}), Caller::Process)
        .await;
    assert_eq!(chart.content, vec![Content::text("chart of load")]);
}

#[tokio::test]
async fn text_that_is_not_content_is_still_json() {
    let result = server()
        .call("content_json_text", json!({}), Caller::Process)
        .await;
    assert_eq!(result.structured_content, Some(json!({"result": "plain"})));
    assert_eq!(result.content[0].as_text().unwrap().text, "\"plain\"");
}

#[tokio::test]
async fn content_reaches_an_rmcp_client_as_sent() {
    let client = crate::fixtures::connect(server()).await;
    let params = CallToolRequestParams::new("content_mixed")
        .with_arguments(json!({"caption": "wire"}).as_object().unwrap().clone());
    let result = client.call_tool(params).await.expect("tools/call answers");
    assert_eq!(result.content.len(), 3);
    assert_eq!(result.content[1].as_image().unwrap().mime_type, "image/png");
    assert_eq!(
        result.content[2].as_resource().unwrap().get_text(),
        "inside"
    );
}

#[test]
fn a_content_tool_publishes_no_output_schema_a_json_tool_does() {
    let server = builder().with_output_schemas(true).build().unwrap();
    let tools = server.tools();
    let schema_of = |name: &str| {
        tools
            .iter()
            .find(|tool| tool.name == name)
            .unwrap_or_else(|| panic!("{name} listed"))
            .output_schema
            .clone()
    };
    // Its answers carry no `structuredContent`, which a published output
    // schema would make clients require.
    for content in [
        "content_image",
        "content_mixed",
        "content_whole",
        "content_chart",
    ] {
        assert!(schema_of(content).is_none(), "{content}");
    }
    assert!(schema_of("content_json_text").is_some());
}
