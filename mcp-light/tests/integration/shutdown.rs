//! Operating a server over HTTP: the health probes beside `/mcp`, and a
//! graceful shutdown that lets the calls in flight answer, within its
//! drain deadline.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use mcp_light::auth::Auth;
use mcp_light::prelude::*;
use mcp_light::store::{BoxFuture, ContinuationStore, Entry, MemoryStore, StoreError};
use mcp_light::token::Token;
use mcp_light::tools;
use mcp_light::transport::HttpOptions;
use tokio::net::TcpStream;
use tokio::sync::{Notify, Semaphore};

use crate::raw_http::{Reply, post, request, serve};

/// What the held tool and its test tell each other.
#[derive(Clone)]
struct Hold {
    started: Arc<Notify>,
    release: Arc<Semaphore>,
}

impl Default for Hold {
    fn default() -> Self {
        Hold {
            started: Arc::default(),
            release: Arc::new(Semaphore::new(0)),
        }
    }
}

/// Answers once the test lets it.
#[mcp_tool]
async fn shutdown_held(ctx: &Context) -> Result<&'static str, ToolError> {
    let hold = ctx.state::<Hold>()?;
    hold.started.notify_one();
    let _released = hold
        .release
        .acquire()
        .await
        .map_err(|_| ToolError::new("never released"))?;
    Ok("answered after the shutdown began")
}

/// A 2026-07-28 `tools/call` of `shutdown_held`.
async fn call_held(addr: std::net::SocketAddr) -> Reply {
    let body = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"shutdown_held","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}"#;
    let headers = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "shutdown_held"),
    ];
    post(addr, body, &headers).await
}

fn held_server(hold: &Hold) -> Server {
    Server::from_tools(tools![shutdown_held])
        .with_state(hold.clone())
        .build()
        .unwrap()
}

/// Waits until connecting to `addr` is refused: the listener is closed.
async fn refuses_connections(addr: std::net::SocketAddr) {
    tokio::time::timeout(Duration::from_secs(30), async {
        while TcpStream::connect(addr).await.is_ok() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("the listener closes once the shutdown starts");
}

#[tokio::test]
async fn a_call_in_flight_at_shutdown_answers_before_the_server_returns() {
    let hold = Hold::default();
    let mut served = serve(held_server(&hold), HttpOptions::new()).await;
    let addr = served.addr;
    let call = tokio::spawn(call_held(addr));
    hold.started.notified().await;

    served.shut_down();
    refuses_connections(addr).await;
    assert!(
        !served.serving.is_finished(),
        "the server returned with a call in flight"
    );
    hold.release.add_permits(1);

    let reply = call.await.unwrap();
    assert_eq!(reply.status, 200, "{}", reply.text());
    let answer = reply.message(3).expect("the call's answer");
    assert_eq!(
        answer["result"]["content"][0]["text"], "\"answered after the shutdown began\"",
        "{answer}"
    );
    let served_until = tokio::time::timeout(Duration::from_secs(30), served.serving)
        .await
        .expect("the server returns once the call answered");
    served_until.unwrap().unwrap();
}

#[tokio::test]
async fn past_the_drain_deadline_the_server_returns_and_cuts_the_call() {
    let hold = Hold::default();
    let options = HttpOptions::new().with_drain_timeout(Duration::from_millis(200));
    let mut served = serve(held_server(&hold), options).await;
    let call = tokio::spawn(call_held(served.addr));
    hold.started.notified().await;

    served.shut_down();
    // Never released: the deadline ends it.
    let served_until = tokio::time::timeout(Duration::from_secs(30), served.serving)
        .await
        .expect("the server returns at its drain deadline");
    served_until.unwrap().unwrap();
    let reply = call.await.unwrap();
    assert!(
        reply
            .message(3)
            .and_then(|m| m.get("result").cloned())
            .is_none(),
        "a cut call answered a result: {}",
        reply.text()
    );
}

/// The in-memory store, reachable or not as the test says.
#[derive(Default)]
struct Flaky {
    store: MemoryStore,
    down: Arc<AtomicBool>,
}

impl ContinuationStore for Flaky {
    fn put<'a>(&'a self, token: &'a Token, entry: Entry) -> BoxFuture<'a, Result<(), StoreError>> {
        self.store.put(token, entry)
    }

    fn get<'a>(&'a self, token: &'a Token) -> BoxFuture<'a, Result<Option<Entry>, StoreError>> {
        self.store.get(token)
    }

    fn ttl(&self) -> Duration {
        self.store.ttl()
    }

    fn ready(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        let down = self.down.load(Ordering::SeqCst);
        Box::pin(async move {
            match down {
                true => Err(StoreError::Unavailable("the test unplugged it".to_owned())),
                false => Ok(()),
            }
        })
    }
}

async fn get(addr: std::net::SocketAddr, path: &str, headers: &[(&str, &str)]) -> Reply {
    request(addr, "GET", path, headers, b"")
        .await
        .expect("an answer")
}

#[tokio::test]
async fn readyz_answers_503_while_the_store_is_unreachable_and_200_when_it_is_back() {
    let flaky = Flaky::default();
    let down = Arc::clone(&flaky.down);
    let server = Server::from_tools(tools![shutdown_held])
        .with_store(flaky)
        .build()
        .unwrap();
    let served = serve(server, HttpOptions::new()).await;

    let ready = get(served.addr, "/readyz", &[]).await;
    assert_eq!((ready.status, ready.text().as_str()), (200, "ready\n"));
    down.store(true, Ordering::SeqCst);
    let unready = get(served.addr, "/readyz", &[]).await;
    assert_eq!(unready.status, 503);
    assert!(
        unready.text().contains("the test unplugged it"),
        "{}",
        unready.text()
    );
    assert_eq!(unready.header("cache-control"), Some("no-store"));
    // The process still serves.
    assert_eq!(get(served.addr, "/healthz", &[]).await.status, 200);
    down.store(false, Ordering::SeqCst);
    assert_eq!(get(served.addr, "/readyz", &[]).await.status, 200);
}

#[tokio::test]
async fn the_probes_need_no_credentials_and_no_allowed_host_while_mcp_does() {
    let auth = Auth::new()
        .with_bearer_token("ci", "ci-secret-0123456789abcdef")
        .unwrap();
    let hold = Hold::default();
    let served = serve(held_server(&hold), HttpOptions::new().with_auth(auth)).await;
    // A Kubernetes probe names the pod's address in Host.
    let pod = [("Host", "10.12.0.7:8080")];
    for path in ["/healthz", "/readyz"] {
        let reply = get(served.addr, path, &pod).await;
        assert_eq!(reply.status, 200, "{path}: {}", reply.text());
        let head = request(served.addr, "HEAD", path, &pod, b"").await.unwrap();
        assert_eq!(head.status, 200, "HEAD {path}");
        let posted = request(served.addr, "POST", path, &pod, b"").await.unwrap();
        assert_eq!(posted.status, 405, "POST {path}");
    }
    let unauthenticated = post(served.addr, crate::raw_http::INITIALIZE, &[]).await;
    assert_eq!(unauthenticated.status, 401);
}
