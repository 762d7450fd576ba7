//! Bounded sessions: past the number of open 2025-era sessions a server
//! keeps, overall or for one principal, `initialize` is refused with a
//! JSON-RPC error (`503`, `429`), and a session that closes or expires
//! frees its place.

use std::net::SocketAddr;
use std::time::Duration;

use mcp_light::auth::Auth;
use mcp_light::prelude::*;
use mcp_light::tools;
use mcp_light::transport::HttpOptions;
use serde_json::Value;

use crate::raw_http::{INITIALIZE, Reply, post, request, serve};

/// Answers `pong`.
#[mcp_tool]
fn sessions_ping() -> &'static str {
    "pong"
}

fn server() -> Server {
    Server::from_tools(tools![sessions_ping]).build().unwrap()
}

/// An `initialize` with `headers`: the reply, and the session it opened.
async fn initialize(addr: SocketAddr, headers: &[(&str, &str)]) -> (Reply, Option<String>) {
    let reply = post(addr, INITIALIZE, headers).await;
    let session = reply.header("mcp-session-id").map(str::to_owned);
    (reply, session)
}

/// Opens a session, which must be let in.
async fn open(addr: SocketAddr, headers: &[(&str, &str)]) -> String {
    let (reply, session) = initialize(addr, headers).await;
    assert_eq!(reply.status, 200, "{}", reply.text());
    session.unwrap_or_else(|| panic!("no session opened: {}", reply.text()))
}

/// The JSON-RPC error a refused `initialize` answers.
fn refusal(reply: &Reply) -> Value {
    assert_eq!(
        reply.header("content-type"),
        Some("application/json"),
        "{}",
        reply.text()
    );
    let message: Value = serde_json::from_slice(&reply.body).unwrap();
    assert_eq!(message["id"], 1, "{message}");
    assert_eq!(message["error"]["code"], -32000, "{message}");
    message["error"].clone()
}

async fn close(addr: SocketAddr, session: &str, headers: &[(&str, &str)]) -> u16 {
    let mut all = vec![
        ("Mcp-Session-Id", session),
        ("MCP-Protocol-Version", "2025-06-18"),
    ];
    all.extend_from_slice(headers);
    request(addr, "DELETE", "/mcp", &all, b"")
        .await
        .expect("an answer")
        .status
}

#[tokio::test]
async fn past_the_cap_initialize_answers_503_and_a_closed_session_frees_its_place() {
    let options = HttpOptions::new().with_max_sessions(2).unwrap();
    let served = serve(server(), options).await;
    let first = open(served.addr, &[]).await;
    let _second = open(served.addr, &[]).await;
    for _ in 0..3 {
        let (refused, session) = initialize(served.addr, &[]).await;
        assert_eq!(refused.status, 503, "{}", refused.text());
        assert_eq!(session, None);
        let error = refusal(&refused);
        let message = error["message"].as_str().unwrap();
        assert!(message.contains("most open sessions (2)"), "{message}");
        assert!(message.contains("2026-07-28"), "{message}");
    }
    // A client on 2026-07-28 opens no session and is served.
    let stateless = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"sessions_ping","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let headers = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "sessions_ping"),
    ];
    let answered = post(served.addr, stateless, &headers).await;
    assert_eq!(answered.status, 200, "{}", answered.text());
    assert!(answered.text().contains("pong"), "{}", answered.text());

    let closed = close(served.addr, &first, &[]).await;
    assert!((200..300).contains(&closed), "DELETE answered {closed}");
    let third = open(served.addr, &[]).await;
    assert_ne!(third, first);
    let (refused, _) = initialize(served.addr, &[]).await;
    assert_eq!(refused.status, 503, "{}", refused.text());
}

#[tokio::test]
async fn a_principal_past_its_own_cap_answers_429_while_others_still_open_sessions() {
    let auth = Auth::new()
        .with_bearer_token("alice", "alice-secret-0123456789abcdef")
        .unwrap()
        .with_bearer_token("bob", "bob-secret-0123456789abcdefgh")
        .unwrap();
    let options = HttpOptions::new()
        .with_auth(auth)
        .with_max_sessions(10)
        .unwrap()
        .with_max_sessions_per_principal(1)
        .unwrap();
    let served = serve(server(), options).await;
    let alice = [("Authorization", "Bearer alice-secret-0123456789abcdef")];
    let bob = [("Authorization", "Bearer bob-secret-0123456789abcdefgh")];

    let hers = open(served.addr, &alice).await;
    let (refused, session) = initialize(served.addr, &alice).await;
    assert_eq!(refused.status, 429, "{}", refused.text());
    assert_eq!(session, None);
    let message = refusal(&refused)["message"].as_str().unwrap().to_owned();
    assert!(message.contains("`alice`"), "{message}");
    assert!(message.contains("(1)"), "{message}");

    let _his = open(served.addr, &bob).await;
    let closed = close(served.addr, &hers, &alice).await;
    assert!((200..300).contains(&closed), "DELETE answered {closed}");
    open(served.addr, &alice).await;
}

#[tokio::test]
async fn a_session_that_expires_idle_frees_its_place() {
    let options = HttpOptions::new()
        .with_max_sessions(1)
        .unwrap()
        .with_session_idle_timeout(Duration::from_millis(300));
    let served = serve(server(), options).await;
    let expired = open(served.addr, &[]).await;
    // The one place is taken until the session expires: nothing else
    // closes it, so an `initialize` let in means it did.
    let reopened = tokio::time::timeout(Duration::from_secs(30), async {
        loop {
            let (reply, session) = initialize(served.addr, &[]).await;
            match reply.status {
                200 => return session.expect("a session"),
                503 => tokio::time::sleep(Duration::from_millis(50)).await,
                status => panic!("initialize answered {status}: {}", reply.text()),
            }
        }
    })
    .await
    .expect("the idle session expires and frees its place");
    assert_ne!(reopened, expired);
    let in_expired = [
        ("Mcp-Session-Id", expired.as_str()),
        ("MCP-Protocol-Version", "2025-06-18"),
    ];
    let ping = r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#;
    assert_eq!(post(served.addr, ping, &in_expired).await.status, 404);
}
