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

/// Reads every row of the things: a result kept behind a token.
#[mcp_heavy(resource = "thing", action = "rows", scopes = ["things:read"])]
fn scope_rows() -> Vec<String> {
    (0..2_000)
        .map(|i| format!("row {i:06} of the things"))
        .collect()
}

fn server() -> Server {
    Server::from_tools(tools![scope_list, scope_wipe, scope_hello, scope_rows])
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

    // The read it may do, and its schema.
    let list = json!({"resource": "thing", "action": "list"});
    let answer = result(&call(addr, "things", list, &reader).await);
    assert_eq!(answer["isError"], false, "{answer}");
    let describe = json!({"resource": "thing", "action": "list", "describe": true});
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

/// One 2026-07-28 `tools/list`, with `headers`: the tools it answers.
async fn list(addr: SocketAddr, headers: &[(&str, &str)]) -> Value {
    list_declaring(addr, json!({}), headers).await
}

/// One 2026-07-28 `tools/list` from a client whose request declares
/// `capabilities`, with `headers`: the tools it answers.
async fn list_declaring(addr: SocketAddr, capabilities: Value, headers: &[(&str, &str)]) -> Value {
    let body = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/list",
        "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": capabilities,
        }},
    })
    .to_string();
    let mut all = vec![
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/list"),
    ];
    all.extend_from_slice(headers);
    let reply = post(addr, &body, &all).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    reply.message(1).expect("an answer")["result"]["tools"].clone()
}

/// A request from `tester` whose token grants `things:read`.
const READER: &[(&str, &str)] = &[("x-test-scopes", "things:read")];

/// The token the first call of the heavy `tool` with `arguments` answers,
/// for [`READER`].
async fn minted(addr: SocketAddr, tool: &str, arguments: Value) -> Value {
    let probe = result(&call(addr, tool, arguments, READER).await);
    let token = probe["structuredContent"]["continuation_token"].clone();
    assert!(token.is_string(), "{probe}");
    token
}

fn names(tools: &Value) -> Vec<&str> {
    tools
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect()
}

/// The dispatcher `things` as `tools` lists it.
fn things(tools: &Value) -> &Value {
    tools
        .as_array()
        .unwrap()
        .iter()
        .find(|tool| tool["name"] == "things")
        .expect("the dispatcher is listed")
}

#[tokio::test]
async fn tools_list_shows_a_caller_only_the_tools_and_actions_its_scopes_allow() {
    let addr = serve_granting(server()).await;
    let all = list(
        addr,
        &[("x-test-scopes", "things:read things:write things:admin")],
    )
    .await;
    assert_eq!(
        names(&all),
        [
            "scope_hello",
            "scope_list",
            "scope_rows",
            "scope_wipe",
            "things"
        ]
    );
    let schema = &things(&all)["inputSchema"]["properties"];
    assert_eq!(schema["action"]["enum"], json!(["list", "rows", "wipe"]));

    // A reader: no wipe, flat or routed; the dispatcher's enums and its
    // description name only what it may do.
    let reader = list(addr, &[("x-test-scopes", "openid things:read")]).await;
    assert_eq!(
        names(&reader),
        ["scope_hello", "scope_list", "scope_rows", "things"]
    );
    let dispatcher = things(&reader);
    assert_eq!(
        dispatcher["inputSchema"]["properties"]["action"]["enum"],
        json!(["list", "rows"])
    );
    assert_eq!(
        dispatcher["inputSchema"]["properties"]["resource"]["enum"],
        json!(["thing"])
    );
    let description = dispatcher["description"].as_str().unwrap();
    assert!(description.contains("thing: list, rows"), "{description}");
    assert!(!description.contains("wipe"), "{description}");

    // A writer without `things:admin` may not wipe either; a token with no
    // scope the tools name sees only what needs none, and no dispatcher.
    let partial = list(addr, &[("x-test-scopes", "things:write")]).await;
    assert_eq!(names(&partial), ["scope_hello"]);
    let none = list(addr, &[("x-test-scopes", "")]).await;
    assert_eq!(names(&none), ["scope_hello"]);
}

#[tokio::test]
async fn a_caller_whose_token_does_not_say_what_it_grants_sees_the_list_byte_for_byte() {
    let server = server();
    let built = serde_json::to_value(server.tools()).unwrap();
    let addr = serve_granting(server.clone()).await;
    // No authentication: the list the server was built with.
    let unauthenticated = list(addr, &[]).await;
    assert_eq!(unauthenticated.to_string(), built.to_string());
    // A token that grants every scope the tools name sees it too.
    let every = list(
        addr,
        &[("x-test-scopes", "things:admin things:write things:read")],
    )
    .await;
    assert_eq!(every.to_string(), built.to_string());

    // A static bearer token is not narrowed by scopes.
    let auth = Auth::new()
        .with_bearer_token("ci", "ci-secret-0123456789abcdef")
        .unwrap();
    let served = serve(server, HttpOptions::new().with_auth(auth)).await;
    let bearer = [("Authorization", "Bearer ci-secret-0123456789abcdef")];
    assert_eq!(
        list(served.addr, &bearer).await.to_string(),
        built.to_string()
    );

    // A server none of whose tools names a scope lists every tool to a
    // caller with scopes.
    let plain = Server::from_tools(tools![scope_hello]).build().unwrap();
    let plain_built = serde_json::to_value(plain.tools()).unwrap();
    let addr = serve_granting(plain).await;
    let listed = list(addr, &[("x-test-scopes", "openid")]).await;
    assert_eq!(listed.to_string(), plain_built.to_string());
}

#[test]
fn the_cut_for_a_set_of_scopes_is_worked_out_once_and_kept() {
    let server = server();
    let reader = GrantedScopes::new(["things:read"]);
    let first = server.tools_granted(&reader);
    // The same named scopes, among others the tools do not name: the
    // same cut.
    let again = server.tools_granted(&GrantedScopes::new(["openid", "things:read", "email"]));
    assert_eq!(first, again);
    assert_eq!(
        first.iter().map(|tool| &*tool.name).collect::<Vec<_>>(),
        ["scope_hello", "scope_list", "scope_rows", "things"]
    );
    // Every scope the tools name: the server's own list.
    let every = GrantedScopes::new(["things:read", "things:write", "things:admin"]);
    assert_eq!(server.tools_granted(&every), server.tools());
}

#[tokio::test]
async fn a_describe_of_an_action_the_caller_is_not_shown_is_refused_403_naming_the_scope() {
    let addr = serve_granting(server()).await;
    let reader = [("x-test-scopes", "things:read")];
    let describe = json!({"resource": "thing", "action": "wipe", "describe": true});
    let reply = call(addr, "things", describe, &reader).await;
    assert_eq!(reply.status, 403, "{}", reply.text());
    assert_eq!(
        reply.header("www-authenticate"),
        Some(r#"bearer error="insufficient_scope", scope="things:write things:admin""#)
    );
    // In process no token says what it grants: the schema is answered.
    let answer = server()
        .call(
            "things",
            json!({"resource": "thing", "action": "wipe", "describe": true}),
            Caller::Anonymous,
        )
        .await;
    assert_eq!(answer.is_error, Some(false), "no scopes said, none checked");
}

#[tokio::test]
async fn a_dispatchers_refusal_lists_only_the_actions_the_caller_is_shown() {
    let addr = serve_granting(server()).await;
    let reader = [("x-test-scopes", "things:read")];
    let unknown = json!({"resource": "thing", "action": "burn"});
    let answer = result(&call(addr, "things", unknown.clone(), &reader).await);
    let message = answer["content"][0]["text"].as_str().unwrap();
    assert!(message.contains("actions: list, rows"), "{message}");
    assert!(!message.contains("wipe"), "{message}");
    // A caller with every scope is told of every action.
    let admin = [("x-test-scopes", "things:read things:write things:admin")];
    let answer = result(&call(addr, "things", unknown, &admin).await);
    let message = answer["content"][0]["text"].as_str().unwrap();
    assert!(message.contains("actions: list, rows, wipe"), "{message}");
}

#[tokio::test]
async fn a_dispatcher_routed_list_is_redeemed_only_while_the_token_grants_its_scope() {
    let addr = serve_granting(server()).await;
    let token = minted(
        addr,
        "things",
        json!({"resource": "thing", "action": "rows"}),
    )
    .await;
    let page = json!({"continuation_token": token, "page": 2, "page_size": 10});

    // The same subject (`tester`), whose access token lost `things:read`.
    let lost = result(&call(addr, "things", page.clone(), &[("x-test-scopes", "openid")]).await);
    assert_eq!(lost["isError"], true, "{lost}");
    // Word for word what a token this caller cannot redeem here gets: one
    // minted through another tool.
    let flat = minted(addr, "scope_rows", json!({})).await;
    let elsewhere = json!({"continuation_token": flat, "page": 2});
    let dead = result(&call(addr, "things", elsewhere, READER).await);
    assert_eq!(lost["content"], dead["content"], "{lost}\n{dead}");

    // With the scope, the same token pages.
    let paged = result(&call(addr, "things", page, READER).await);
    assert_eq!(paged["isError"], false, "{paged}");
    assert_eq!(paged["structuredContent"]["total"], 2_000, "{paged}");
    assert_eq!(paged["structuredContent"]["page"], 2, "{paged}");
}

#[tokio::test]
async fn a_flat_redemption_without_the_tools_scope_is_refused_before_the_store_is_read() {
    let addr = serve_granting(server()).await;
    let token = minted(addr, "scope_rows", json!({})).await;
    let page = json!({"continuation_token": token, "page": 1});
    let reply = call(
        addr,
        "scope_rows",
        page.clone(),
        &[("x-test-scopes", "openid")],
    )
    .await;
    assert_eq!(reply.status, 403, "{}", reply.text());
    let paged = result(&call(addr, "scope_rows", page, READER).await);
    assert_eq!(paged["isError"], false, "{paged}");
}

/// The viewer's own tools redeem a dispatcher's token only while the
/// caller's access token grants what the routed tool required; a client
/// that shows views is listed them only beside a tool it may use.
#[cfg(feature = "apps")]
#[tokio::test]
async fn the_viewers_tools_are_re_authorized_and_cut_like_the_models() {
    use mcp_light::apps::{EXTENSION_ID, VIEWER_MIME_TYPE};

    let addr = serve_granting(server()).await;
    let declaring = json!({"extensions": {EXTENSION_ID: {"mimeTypes": [VIEWER_MIME_TYPE]}}});
    let call = |tool: &'static str, arguments: Value, granted: &'static str| {
        let declaring = declaring.clone();
        async move {
            let headers = [("x-test-scopes", granted)];
            result(&call_declaring(addr, tool, arguments, declaring, &headers).await)
        }
    };
    let rows = json!({"resource": "thing", "action": "rows"});
    let probe = call("things", rows, "things:read").await;
    let token = probe["structuredContent"]["continuation_token"].clone();
    assert!(token.is_string(), "{probe}");
    let view = json!({"tool": "things", "continuation_token": token});
    let lost = call("view_page", view.clone(), "openid").await;
    assert_eq!(lost["isError"], true, "{lost}");
    let text = lost["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("unknown, has expired"), "{text}");
    let page = call("view_page", view, "things:read").await;
    assert_eq!(page["structuredContent"]["total"], 2_000, "{page}");

    // Listed: with a tool that has a view, the viewer's tools; with none,
    // not them either.
    let listed = |granted: &'static str| {
        let declaring = declaring.clone();
        async move { list_declaring(addr, declaring, &[("x-test-scopes", granted)]).await }
    };
    let reader = listed("things:read").await;
    assert!(names(&reader).contains(&"view_page"), "{reader}");
    let nobody = listed("").await;
    assert_eq!(names(&nobody), ["scope_hello"]);
}
