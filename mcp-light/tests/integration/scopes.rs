//! Per-tool OAuth scopes: a tool's `scopes = [...]` against what the
//! request's token grants ([`GrantedScopes`], which a host's layer puts
//! beside the principal here, as the OAuth layer does). A flat call without
//! a scope is refused `403 insufficient_scope` at the HTTP layer before the
//! tool runs; a dispatcher's call is checked against the routed tool; a
//! request that carries no granted scopes (no authentication, a static
//! bearer token, [`Server::call`]) is not checked.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};

use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use mcp_light::Principal;
use mcp_light::auth::{Auth, GrantedScopes};
use mcp_light::prelude::*;
use mcp_light::transport::HttpOptions;
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use serde_json::{Value, json};

use crate::raw_http::{Reply, post, serve};

/// How many times `scope_wipe` ran.
static WIPES: AtomicUsize = AtomicUsize::new(0);

/// Lists the things.
#[mcp_tool(resource = "thing", action = "list", scopes = ["things:read"])]
fn scope_list() -> Vec<String> {
    vec!["a".to_owned()]
}

/// Wipes the things.
#[mcp_tool(resource = "thing", action = "wipe", scopes = ["things:write", "things:admin"])]
fn scope_wipe() -> &'static str {
    WIPES.fetch_add(1, Ordering::SeqCst);
    "wiped"
}

/// Says hello; needs no scope.
#[mcp_tool]
fn scope_hello() -> &'static str {
    "hello"
}

fn server() -> Server {
    Server::from_tools(tools![scope_list, scope_wipe, scope_hello])
        .with_dispatcher("things")
        .build()
        .unwrap()
}

/// The scopes a request names in `x-test-scopes`, granted to the principal
/// `tester`, as an OAuth layer would; a request without the header is
/// let through as it is.
async fn grant(mut request: Request, next: Next) -> Response {
    let scopes = request
        .headers()
        .get("x-test-scopes")
        .and_then(|value| value.to_str().ok())
        .map(|value| GrantedScopes::new(value.split_whitespace()));
    if let Some(scopes) = scopes {
        request
            .extensions_mut()
            .insert(Principal("tester".to_owned()));
        request.extensions_mut().insert(scopes);
    }
    next.run(request).await
}

/// `server` mounted behind [`grant`] on a loopback port.
pub(crate) async fn serve_granting(server: Server) -> SocketAddr {
    let router = axum::Router::new()
        .nest_service(
            "/mcp",
            server.http_service(StreamableHttpServerConfig::default()),
        )
        .layer(axum::middleware::from_fn(grant));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, router).await });
    addr
}

/// One 2026-07-28 `tools/call` of `tool` with `arguments`.
async fn call(addr: SocketAddr, tool: &str, arguments: Value, headers: &[(&str, &str)]) -> Reply {
    call_declaring(addr, tool, arguments, json!({}), headers).await
}

/// One 2026-07-28 `tools/call` of `tool` with `arguments`, from a client
/// whose request declares `capabilities`.
pub(crate) async fn call_declaring(
    addr: SocketAddr,
    tool: &str,
    arguments: Value,
    capabilities: Value,
    headers: &[(&str, &str)],
) -> Reply {
    let body = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": tool,
            "arguments": arguments,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": capabilities,
            },
        },
    })
    .to_string();
    call_raw(addr, tool, &body, headers).await
}

async fn call_raw(addr: SocketAddr, tool: &str, body: &str, headers: &[(&str, &str)]) -> Reply {
    let mut all = vec![
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", tool),
    ];
    all.extend_from_slice(headers);
    post(addr, body, &all).await
}

/// The tool result of a call answered 200.
pub(crate) fn result(reply: &Reply) -> Value {
    assert_eq!(reply.status, 200, "{}", reply.text());
    reply.message(1).expect("an answer")["result"].clone()
}

#[test]
fn a_tools_scopes_are_in_its_definition_in_the_order_written() {
    assert_eq!(scope_wipe_def().scopes(), ["things:write", "things:admin"]);
    assert_eq!(scope_list_def().scopes(), ["things:read"]);
    assert!(scope_hello_def().scopes().is_empty());
}

fn scope_wipe_def() -> &'static mcp_light::catalog::ToolDef {
    tools![scope_wipe][0]
}

fn scope_list_def() -> &'static mcp_light::catalog::ToolDef {
    tools![scope_list][0]
}

fn scope_hello_def() -> &'static mcp_light::catalog::ToolDef {
    tools![scope_hello][0]
}

#[tokio::test]
async fn a_flat_call_without_a_scope_is_refused_403_naming_the_missing_ones_before_it_runs() {
    let addr = serve_granting(server()).await;
    let before = WIPES.load(Ordering::SeqCst);
    let reply = call(
        addr,
        "scope_wipe",
        json!({}),
        &[("x-test-scopes", "things:write")],
    )
    .await;
    assert_eq!(reply.status, 403, "{}", reply.text());
    assert_eq!(
        reply.header("www-authenticate"),
        Some(r#"bearer error="insufficient_scope", scope="things:admin""#),
        "the head is read lowercase"
    );
    assert!(reply.text().contains("`things:admin`"), "{}", reply.text());

    let reply = call(
        addr,
        "scope_wipe",
        json!({}),
        &[("x-test-scopes", "openid")],
    )
    .await;
    assert_eq!(reply.status, 403, "{}", reply.text());
    assert_eq!(
        reply.header("www-authenticate"),
        Some(r#"bearer error="insufficient_scope", scope="things:write things:admin""#)
    );
    assert_eq!(WIPES.load(Ordering::SeqCst), before, "the tool never ran");
}

#[tokio::test]
async fn a_token_with_every_scope_of_the_tool_calls_it() {
    let addr = serve_granting(server()).await;
    let scopes = [("x-test-scopes", "things:admin openid things:write")];
    let reply = call(addr, "scope_wipe", json!({}), &scopes).await;
    let answer = result(&reply);
    assert_eq!(answer["isError"], false, "{answer}");
    assert_eq!(answer["structuredContent"], json!({"result": "wiped"}));
    // A tool without scopes needs none.
    let reply = call(addr, "scope_hello", json!({}), &[("x-test-scopes", "")]).await;
    assert_eq!(result(&reply)["isError"], false);
}

#[tokio::test]
async fn a_dispatcher_call_is_refused_403_for_the_routed_tools_scopes() {
    let addr = serve_granting(server()).await;
    let reader = [("x-test-scopes", "things:read")];
    let before = WIPES.load(Ordering::SeqCst);
    let wipe = json!({"resource": "thing", "action": "wipe"});
    let reply = call(addr, "things", wipe, &reader).await;
    assert_eq!(reply.status, 403, "{}", reply.text());
    assert_eq!(
        reply.header("www-authenticate"),
        Some(r#"bearer error="insufficient_scope", scope="things:write things:admin""#)
    );
    assert!(
        reply.text().contains("things (thing wipe)"),
        "{}",
        reply.text()
    );
    assert_eq!(WIPES.load(Ordering::SeqCst), before, "the tool never ran");

    // The read it may do, and the wipe's schema, which runs nothing.
    let list = json!({"resource": "thing", "action": "list"});
    let answer = result(&call(addr, "things", list, &reader).await);
    assert_eq!(answer["isError"], false, "{answer}");
    let describe = json!({"resource": "thing", "action": "wipe", "describe": true});
    let answer = result(&call(addr, "things", describe, &reader).await);
    assert_eq!(answer["isError"], false, "{answer}");
}

#[tokio::test]
async fn a_dispatcher_call_the_http_layer_cannot_read_is_refused_once_routed() {
    let addr = serve_granting(server()).await;
    let before = WIPES.load(Ordering::SeqCst);
    // `resource` twice: the HTTP layer's scan gives up on it, the call
    // reads the last one and routes to the wipe.
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"things",
        "arguments":{"resource":"thing","resource":"thing","action":"wipe"},
        "_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
        "io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let reply = call_raw(addr, "things", body, &[("x-test-scopes", "things:read")]).await;
    let answer = result(&reply);
    assert_eq!(answer["isError"], true, "{answer}");
    let message = answer["content"][0]["text"].as_str().unwrap();
    assert!(message.contains("insufficient_scope"), "{message}");
    assert!(message.contains("`things:write things:admin`"), "{message}");
    assert_eq!(WIPES.load(Ordering::SeqCst), before, "the tool never ran");
}

#[tokio::test]
async fn a_request_without_granted_scopes_is_not_checked() {
    // No authentication: nothing grants or refuses a scope.
    let addr = serve_granting(server()).await;
    let answer = result(&call(addr, "scope_wipe", json!({}), &[]).await);
    assert_eq!(answer["isError"], false, "{answer}");
    let list = json!({"resource": "thing", "action": "list"});
    assert_eq!(
        result(&call(addr, "things", list, &[]).await)["isError"],
        false
    );
}

#[tokio::test]
async fn a_static_bearer_token_may_call_every_scoped_tool() {
    let auth = Auth::new()
        .with_bearer_token("ci", "ci-secret-0123456789abcdef")
        .unwrap();
    let served = serve(server(), HttpOptions::new().with_auth(auth)).await;
    let bearer = [("Authorization", "Bearer ci-secret-0123456789abcdef")];
    let answer = result(&call(served.addr, "scope_wipe", json!({}), &bearer).await);
    assert_eq!(answer["isError"], false, "{answer}");
    let wipe = json!({"resource": "thing", "action": "wipe"});
    let answer = result(&call(served.addr, "things", wipe, &bearer).await);
    assert_eq!(answer["isError"], false, "{answer}");
}

#[tokio::test]
async fn server_call_checks_no_scopes() {
    let answer = server()
        .call("scope_wipe", Value::Null, Caller::Anonymous)
        .await;
    assert_eq!(answer.is_error, Some(false), "{answer:?}");
}
