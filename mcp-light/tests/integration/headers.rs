//! `#[header("Name")]`: an argument published with `x-mcp-header`, which
//! rmcp's Streamable HTTP server then checks against the `Mcp-Param-Name`
//! header of every 2026-07-28 request.

use mcp_light::prelude::*;
use serde_json::{Value, json};
#[cfg(feature = "http")]
use tokio::io::{AsyncReadExt, AsyncWriteExt};
#[cfg(feature = "http")]
use tokio::net::{TcpListener, TcpStream};

/// Says which region answered.
#[mcp_tool]
fn header_region_echo(
    #[header("Region")] region: String,
    #[serde(default)] detail: bool,
) -> String {
    format!("{region} {detail}")
}

/// A numeric argument mirrored too.
#[mcp_tool]
fn header_priority(#[header("Priority")] priority: u32) -> u32 {
    priority
}

fn schema_of(server: &Server, tool: &str) -> Value {
    let tool = server.tools().iter().find(|t| t.name == tool).unwrap();
    Value::Object((*tool.input_schema).clone())
}

#[test]
fn the_argument_is_published_with_its_header_name_and_no_other_is() {
    let server = crate::fixtures::linked().build().unwrap();
    let schema = schema_of(&server, "header_region_echo");
    assert_eq!(
        schema["properties"]["region"],
        json!({"type": "string", "x-mcp-header": "Region"})
    );
    assert!(
        schema["properties"]["detail"].get("x-mcp-header").is_none(),
        "{schema}"
    );
    let priority = schema_of(&server, "header_priority");
    assert_eq!(
        priority["properties"]["priority"]["x-mcp-header"],
        "Priority"
    );
    assert_eq!(priority["properties"]["priority"]["type"], "integer");
}

/// One 2026-07-28 `tools/call` over HTTP: the status and the JSON body.
#[cfg(feature = "http")]
async fn call(port: u16, tool: &str, arguments: Value, headers: &[(&str, &str)]) -> (u16, Value) {
    let body = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": tool,
            "arguments": arguments,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    })
    .to_string();
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\nMcp-Name: {tool}\r\nConnection: close\r\n\
         Content-Length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(&body);
    let mut stream = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();
    let status = response[9..12].parse().unwrap();
    let (head, payload) = response.split_once("\r\n\r\n").unwrap();
    assert!(
        !head
            .to_ascii_lowercase()
            .contains("transfer-encoding: chunked"),
        "{head}"
    );
    (status, serde_json::from_str(payload).unwrap_or(Value::Null))
}

#[cfg(feature = "http")]
#[tokio::test]
async fn rmcp_checks_the_mirrored_header_against_the_argument() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    // Only this module's tools: the others need host state.
    let server = Server::from_tools(tools![header_region_echo, header_priority])
        .build()
        .unwrap();
    let serving = tokio::spawn(server.serve_http(listener, async {
        let _ = stopped.await;
    }));

    let args = json!({"region": "eu-west"});
    let (status, answer) = call(
        port,
        "header_region_echo",
        args.clone(),
        &[("Mcp-Param-Region", "eu-west")],
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(
        answer["result"]["structuredContent"],
        json!({"result": "eu-west false"})
    );

    let (status, answer) = call(
        port,
        "header_region_echo",
        args.clone(),
        &[("Mcp-Param-Region", "us-east")],
    )
    .await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(answer["error"]["code"], -32020, "{answer}");

    let (status, answer) = call(port, "header_region_echo", args, &[]).await;
    assert_eq!(status, 400, "{answer}");
    assert_eq!(answer["error"]["code"], -32020, "{answer}");

    let (status, answer) = call(
        port,
        "header_priority",
        json!({"priority": 7}),
        &[("Mcp-Param-Priority", "7")],
    )
    .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["result"]["structuredContent"], json!({"result": 7}));

    stop.send(()).unwrap();
    serving.await.unwrap().unwrap();
}
