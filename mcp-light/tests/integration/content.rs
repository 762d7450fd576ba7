//! Tools that answer MCP content instead of JSON, called directly and
//! through rmcp's client.

use mcp_light::{CallToolResult, Caller, ContentAnswer, prelude::*};
use rmcp::model::{CallToolRequestParams, ResourceContents};
use serde_json::json;

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
