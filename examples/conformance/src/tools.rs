//! The tools the conformance suite calls, each written with mcp-light's
//! macros: content answers, logging and progress, asks of the client
//! (sampling, elicitation, roots), on 2025-11-25 sessions and as
//! 2026-07-28 input-required rounds.

#![allow(deprecated)] // rmcp marks sampling and roots deprecated; the suite tests them.

use std::time::Duration;

use mcp_light::context::{Elicitation, LogLevel};
use mcp_light::prelude::*;
use mcp_light::rmcp::model::{CreateMessageRequestParams, ResourceContents, SamplingMessage};
use serde_json::{Map, Value, json};

/// A 1×1 red PNG.
pub const PNG: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// A minimal WAV file.
const WAV: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// Tests simple text content response
#[mcp_tool]
fn test_simple_text() -> Content {
    Content::text("This is a simple text response for testing.")
}

/// Tests image content response
#[mcp_tool]
fn test_image_content() -> Content {
    Content::image(PNG, "image/png")
}

/// Tests audio content response
#[mcp_tool]
fn test_audio_content() -> Content {
    Content::audio(WAV, "audio/wav")
}

/// Tests embedded resource content response
#[mcp_tool]
fn test_embedded_resource() -> Content {
    Content::resource(
        ResourceContents::text(
            "This is an embedded resource content.",
            "test://embedded-resource",
        )
        .with_mime_type("text/plain"),
    )
}

/// Tests response with multiple content types (text, image, resource)
#[mcp_tool]
fn test_multiple_content_types() -> Vec<Content> {
    let data = json!({"test": "data", "value": 123}).to_string();
    vec![
        Content::text("Multiple content types test:"),
        Content::image(PNG, "image/png"),
        Content::resource(
            ResourceContents::text(data, "test://mixed-content-resource")
                .with_mime_type("application/json"),
        ),
    ]
}

/// Tests tool that emits log messages during execution
#[mcp_tool]
async fn test_tool_with_logging(ctx: &Context) -> Content {
    ctx.log(LogLevel::Info, "Tool execution started").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LogLevel::Info, "Tool processing data").await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    ctx.log(LogLevel::Info, "Tool execution completed").await;
    Content::text("Tool with logging executed successfully")
}

/// Tests tool that reports progress notifications
#[mcp_tool]
async fn test_tool_with_progress(ctx: &Context) -> Content {
    for (step, done) in [0.0, 50.0, 100.0].into_iter().enumerate() {
        if step > 0 {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let message = format!("Completed step {done} of 100");
        ctx.progress(done, Some(100.0), Some(&message)).await;
    }
    let token = ctx.meta().get("progressToken").cloned();
    Content::text(token.map_or_else(|| "0".to_owned(), |t| t.to_string()))
}

/// Tests error response handling
#[mcp_tool]
fn test_error_handling() -> Result<Content, ToolError> {
    Err(ToolError::new(
        "This tool intentionally returns an error for testing",
    ))
}

/// Tests SSE stream disconnection and client reconnection (SEP-1699)
#[mcp_tool]
async fn test_reconnection() -> Content {
    tokio::time::sleep(Duration::from_millis(100)).await;
    Content::text(
        "Reconnection test completed successfully. If you received this, the client properly \
         reconnected after stream closure.",
    )
}

/// The text of a sampling answer.
fn sampled_text(result: &impl serde::Serialize) -> String {
    let value = serde_json::to_value(result).unwrap_or_default();
    let content = &value["message"]["content"];
    content["text"]
        .as_str()
        .or_else(|| content[0]["text"].as_str())
        .unwrap_or("No response")
        .to_owned()
}

/// Tests server-initiated sampling (LLM completion request)
#[mcp_tool]
async fn test_sampling(ctx: &Context, prompt: String) -> Result<Content, ToolError> {
    let params = CreateMessageRequestParams::new(vec![SamplingMessage::user_text(prompt)], 100);
    let result = ctx.sample(params).await?;
    Ok(Content::text(format!(
        "LLM response: {}",
        sampled_text(&result)
    )))
}

/// `action=..., content={...}` as the suite's elicitation tools report it.
fn elicited(answer: Elicitation<Map<String, Value>>) -> String {
    let (action, content) = match answer {
        Elicitation::Accept(content) => ("accept", content),
        Elicitation::Decline => ("decline", Map::new()),
        Elicitation::Cancel => ("cancel", Map::new()),
    };
    format!("action={action}, content={}", Value::Object(content))
}

/// Tests server-initiated elicitation (user input request)
#[mcp_tool]
async fn test_elicitation(ctx: &Context, message: String) -> Result<Content, ToolError> {
    let schema = json!({
        "type": "object",
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"},
        },
        "required": ["username", "email"],
    });
    let answer = ctx.elicit_schema(message, schema).await?;
    Ok(Content::text(format!(
        "User response: {}",
        elicited(answer)
    )))
}

/// Tests elicitation with default values per SEP-1034
#[mcp_tool]
async fn test_elicitation_sep1034_defaults(ctx: &Context) -> Result<Content, ToolError> {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "User name", "default": "John Doe"},
            "age": {"type": "integer", "description": "User age", "default": 30},
            "score": {"type": "number", "description": "User score", "default": 95.5},
            "status": {
                "type": "string",
                "description": "User status",
                "enum": ["active", "inactive", "pending"],
                "default": "active",
            },
            "verified": {"type": "boolean", "description": "Verification status", "default": true},
        },
        "required": [],
    });
    let answer = ctx
        .elicit_schema(
            "Please review and update the form fields with defaults",
            schema,
        )
        .await?;
    Ok(Content::text(format!(
        "Elicitation completed: {}",
        elicited(answer)
    )))
}

/// Tests elicitation with enum schema improvements per SEP-1330
#[mcp_tool]
async fn test_elicitation_sep1330_enums(ctx: &Context) -> Result<Content, ToolError> {
    let titled = |title: &str| {
        (1..=3)
            .zip(["First", "Second", "Third"])
            .map(|(n, ordinal)| json!({"const": format!("value{n}"), "title": format!("{ordinal} {title}")}))
            .collect::<Vec<_>>()
    };
    let schema = json!({
        "type": "object",
        "properties": {
            "untitledSingle": {
                "type": "string",
                "description": "Select one option",
                "enum": ["option1", "option2", "option3"],
            },
            "titledSingle": {
                "type": "string",
                "description": "Select one option with titles",
                "oneOf": titled("Option"),
            },
            "legacyEnum": {
                "type": "string",
                "description": "Select one option (legacy)",
                "enum": ["opt1", "opt2", "opt3"],
                "enumNames": ["Option One", "Option Two", "Option Three"],
            },
            "untitledMulti": {
                "type": "array",
                "description": "Select multiple options",
                "minItems": 1,
                "maxItems": 3,
                "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
            },
            "titledMulti": {
                "type": "array",
                "description": "Select multiple options with titles",
                "minItems": 1,
                "maxItems": 3,
                "items": {"anyOf": titled("Choice")},
            },
        },
        "required": [],
    });
    let answer = ctx
        .elicit_schema("Please select options from the enum fields", schema)
        .await?;
    Ok(Content::text(format!(
        "Elicitation completed: {}",
        elicited(answer)
    )))
}

/// A street address; its schema is a `$defs` entry with an anchor.
// Its nullable fields are `anyOf` branches, as mcp-light publishes them.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[schemars(
    rename = "address",
    extend("$anchor" = "addressDef"),
    transform = mcp_light::catalog::split_type_unions
)]
pub struct Address {
    #[serde(default)]
    street: Option<String>,
    #[serde(default)]
    city: Option<String>,
}

/// How to reach someone.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ContactMethod {
    Phone,
    Email,
}

/// Tool with JSON Schema 2020-12 features for conformance testing
/// (SEP-1613, SEP-2106): its input schema is published as written, with
/// `$schema`, `$defs` (an `$anchor` in one), `allOf`/`anyOf` and
/// `if`/`then`/`else`.
// Its nullable fields are split into `anyOf` branches all the same, so
// that every client can read it.
#[mcp_tool(schema = "as_written")]
#[schemars(
    extend(
        "allOf" = [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if" = {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then" = {"required": ["phone"]},
        "else" = {"required": ["email"]},
    ),
    transform = mcp_light::catalog::split_type_unions
)]
fn json_schema_2020_12_tool(
    #[serde(default)] name: Option<String>,
    #[serde(default)] address: Option<Address>,
    #[serde(default, rename = "contactMethod")] contact_method: Option<ContactMethod>,
    #[serde(default)] phone: Option<String>,
    #[serde(default)] email: Option<String>,
) -> Content {
    let args = json!({
        "name": name,
        "address": address,
        "contactMethod": contact_method,
        "phone": phone,
        "email": email,
    });
    Content::text(format!("JSON Schema 2020-12 tool called with: {args}"))
}

/// Test tool requiring sampling
#[mcp_tool]
async fn test_missing_capability(ctx: &Context) -> Result<Content, ToolError> {
    let params =
        CreateMessageRequestParams::new(vec![SamplingMessage::user_text("Say success")], 10);
    ctx.sample(params).await?;
    Ok(Content::text("Success"))
}

/// The string field `field` of an accepted elicitation, or `unknown`.
fn field(answer: Elicitation<Map<String, Value>>, field: &str) -> String {
    match answer {
        Elicitation::Accept(content) => content
            .get(field)
            .and_then(Value::as_str)
            .unwrap_or("unknown")
            .to_owned(),
        Elicitation::Decline | Elicitation::Cancel => "unknown".to_owned(),
    }
}

/// A form of one required property.
fn one_field(name: &str, ty: &str) -> Value {
    json!({
        "type": "object",
        "properties": {name: {"type": ty}},
        "required": [name],
    })
}

/// MRTR: returns InputRequiredResult with elicitation request
#[mcp_tool]
async fn test_input_required_result_elicitation(ctx: &Context) -> Result<Content, ToolError> {
    let answer = ctx
        .ask("user_name")
        .elicit_schema("What is your name?", one_field("name", "string"))
        .await?;
    Ok(Content::text(format!("Hello, {}!", field(answer, "name"))))
}

/// MRTR: returns InputRequiredResult with sampling request
#[mcp_tool]
async fn test_input_required_result_sampling(ctx: &Context) -> Result<Content, ToolError> {
    let question = SamplingMessage::user_text("What is the capital of France?");
    let result = ctx
        .ask("sample_request")
        .sample(CreateMessageRequestParams::new(vec![question], 100))
        .await?;
    Ok(Content::text(format!(
        "Sampling result: {}",
        sampled_text(&result)
    )))
}

/// MRTR: returns InputRequiredResult with roots/list request
#[mcp_tool]
async fn test_input_required_result_list_roots(ctx: &Context) -> Result<Content, ToolError> {
    let roots = ctx.ask("roots_request").roots().await?;
    Ok(Content::text(format!(
        "Found {} root(s)",
        roots.roots.len()
    )))
}

/// MRTR: returns InputRequiredResult with requestState
#[mcp_tool]
async fn test_input_required_result_request_state(ctx: &Context) -> Result<Content, ToolError> {
    let answer = ctx
        .ask("confirm")
        .elicit_schema("Please confirm", one_field("ok", "boolean"))
        .await?;
    match answer {
        Elicitation::Accept(content) if content.get("ok") == Some(&Value::Bool(true)) => {
            Ok(Content::text("state-ok: requestState validated"))
        }
        _ => Ok(Content::text("state-not-confirmed")),
    }
}

/// MRTR: returns InputRequiredResult with multiple input requests
#[mcp_tool]
async fn test_input_required_result_multiple_inputs(ctx: &Context) -> Result<Content, ToolError> {
    let greeting = SamplingMessage::user_text("Generate a greeting");
    let (name, greeting, roots) = tokio::join!(
        ctx.ask("user_name")
            .elicit_schema("What is your name?", one_field("name", "string")),
        ctx.ask("greeting")
            .sample(CreateMessageRequestParams::new(vec![greeting], 50)),
        ctx.ask("client_roots").roots(),
    );
    Ok(Content::text(format!(
        "Name: {}; Greeting: {}; Roots: {}",
        field(name?, "name"),
        sampled_text(&greeting?),
        roots?.roots.len()
    )))
}

/// MRTR: multi-round InputRequiredResult workflow
#[mcp_tool]
async fn test_input_required_result_multi_round(ctx: &Context) -> Result<Content, ToolError> {
    let name = ctx
        .ask("step1")
        .elicit_schema("Step 1: What is your name?", one_field("name", "string"))
        .await?;
    let color = ctx
        .ask("step2")
        .elicit_schema(
            "Step 2: What is your favorite color?",
            one_field("color", "string"),
        )
        .await?;
    Ok(Content::text(format!(
        "Multi-round complete for {} who likes {}",
        field(name, "name"),
        field(color, "color")
    )))
}

/// MRTR: HMAC-signed requestState integrity test
#[mcp_tool]
async fn test_input_required_result_tampered_state(ctx: &Context) -> Result<Content, ToolError> {
    ctx.ask("confirm")
        .elicit_schema("Please confirm", one_field("ok", "boolean"))
        .await?;
    Ok(Content::text("integrity-ok: state verified"))
}

/// MRTR: respects client capabilities in inputRequests
#[mcp_tool]
async fn test_input_required_result_capabilities(ctx: &Context) -> Result<Content, ToolError> {
    let capabilities = ctx.client_capabilities().unwrap_or_default();
    let mut received = Vec::new();
    if capabilities.elicitation.is_some() && capabilities.sampling.is_some() {
        let sample = SamplingMessage::user_text("Sample request");
        let (elicited, sampled) = tokio::join!(
            ctx.ask("elicit_input")
                .elicit_schema("Elicitation input", one_field("value", "string")),
            ctx.ask("sample_input")
                .sample(CreateMessageRequestParams::new(vec![sample], 50)),
        );
        elicited?;
        sampled?;
        received.extend(["elicit_input", "sample_input"]);
    } else if capabilities.elicitation.is_some() {
        ctx.ask("elicit_input")
            .elicit_schema("Elicitation input", one_field("value", "string"))
            .await?;
        received.push("elicit_input");
    } else if capabilities.sampling.is_some() {
        let sample = SamplingMessage::user_text("Sample request");
        ctx.ask("sample_input")
            .sample(CreateMessageRequestParams::new(vec![sample], 50))
            .await?;
        received.push("sample_input");
    }
    if received.is_empty() {
        return Ok(Content::text("No supported capabilities declared"));
    }
    Ok(Content::text(format!(
        "capabilities-ok: received {}",
        received.join(",")
    )))
}

/// Echoes the region the call was routed to, which an HTTP client mirrors
/// in the `Mcp-Param-Region` header (SEP-2243)
#[mcp_tool]
fn test_custom_headers(#[header("Region")] region: String, query: String) -> Content {
    Content::text(format!("region={region}, query={query}"))
}
