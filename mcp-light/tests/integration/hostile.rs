//! Hostile input: what an attacker or a broken client sends, over raw HTTP,
//! over a stdio pipe and through `Server::call`. Nothing crashes, stalls or
//! answers in anything but a clear error.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use mcp_light::prelude::*;
use mcp_light::transport::{HttpOptions, StdioOptions};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

use crate::fixtures::{Harness, error_text, new_devices, ok_json};

// ----- raw HTTP --------------------------------------------------------------

/// A server on a loopback port, stopped when this is dropped.
struct Http {
    addr: SocketAddr,
    _stop: oneshot::Sender<()>,
}

async fn serve(options: HttpOptions) -> Http {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    // A few devices: a list too long for its preview, so a read mints a
    // token (an empty one answers itself).
    let server = Harness::with_devices(3).await.server;
    tokio::spawn(async move {
        let shutdown = async {
            let _ = stopped.await;
        };
        server.serve_http_with(listener, options, shutdown).await
    });
    Http { addr, _stop: stop }
}

/// An answer: its status, its head (lowercase) and its body (chunks
/// joined).
struct Reply {
    status: u16,
    head: String,
    body: Vec<u8>,
}

impl Reply {
    /// The value of header `name` (lowercase).
    fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            (key.trim() == name).then(|| value.trim())
        })
    }

    /// The JSON-RPC message answering `id`: the body, or one of its SSE
    /// events.
    fn message(&self, id: u64) -> Value {
        let text = String::from_utf8_lossy(&self.body);
        text.lines()
            .map(|line| line.strip_prefix("data:").unwrap_or(line).trim())
            .filter_map(|data| serde_json::from_str::<Value>(data).ok())
            .find(|message| message["id"] == id)
            .unwrap_or_else(|| panic!("no answer to {id} in {text}"))
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&self.body)))
    }
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"hostile","version":"1"}}}"#;

/// The bytes of a POST to `/mcp` carrying `body`, with `headers` added.
fn post_bytes(addr: SocketAddr, body: &[u8], headers: &[(&str, &str)]) -> Vec<u8> {
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    let mut bytes = request.into_bytes();
    bytes.extend_from_slice(body);
    bytes
}

/// Sends `request` on a fresh connection and reads the answer to its end.
async fn exchange(addr: SocketAddr, request: &[u8]) -> Reply {
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    tcp.write_all(request).await.unwrap();
    read_reply(&mut tcp).await
}

async fn read_reply(tcp: &mut TcpStream) -> Reply {
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), tcp.read_to_end(&mut raw))
        .await
        .expect("the server answers and closes within 10 s")
        .unwrap();
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("a head");
    let head = String::from_utf8_lossy(&raw[..split]).to_lowercase();
    let status = head[9..12].parse().unwrap();
    let mut body = raw[split + 4..].to_vec();
    if head.contains("transfer-encoding: chunked") {
        body = unchunk(&body);
    }
    Reply { status, head, body }
}

fn unchunk(mut raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = raw.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(std::str::from_utf8(&raw[..end]).unwrap().trim(), 16).unwrap();
        if size == 0 {
            break;
        }
        out.extend_from_slice(&raw[end + 2..end + 2 + size]);
        raw = &raw[end + 4 + size..];
    }
    out
}

async fn post(http: &Http, body: &[u8], headers: &[(&str, &str)]) -> Reply {
    exchange(http.addr, &post_bytes(http.addr, body, headers)).await
}

/// A 2025-06-18 session, initialized: its `Mcp-Session-Id`.
async fn open_session(http: &Http) -> String {
    open_session_as(http, INITIALIZE).await
}

/// A 2025-06-18 session of the client that names itself `client` in
/// `clientInfo`: its answers are sized to what that client keeps.
async fn open_session_of(http: &Http, client: &str) -> String {
    let initialize = INITIALIZE.replace(r#""name":"hostile""#, &format!(r#""name":"{client}""#));
    assert_ne!(initialize, INITIALIZE);
    open_session_as(http, &initialize).await
}

/// A 2025-06-18 session opened by `initialize`, initialized: its
/// `Mcp-Session-Id`.
async fn open_session_as(http: &Http, initialize: &str) -> String {
    let opened = post(http, initialize.as_bytes(), &[]).await;
    let session = opened
        .header("mcp-session-id")
        .expect("a session")
        .to_owned();
    let in_session = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-06-18"),
    ];
    let initialized = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    assert_eq!(post(http, initialized, &in_session).await.status, 202);
    session
}

#[tokio::test]
async fn a_stateless_request_naming_a_session_cannot_redeem_its_tokens() {
    let http = serve(HttpOptions::new()).await;
    // Alice's 2025-era session reads through a probe, minting a token bound
    // to her session.
    let session = open_session(&http).await;
    let in_session = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-06-18"),
    ];
    let list = br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"device_list","arguments":{}}}"#;
    let probe = post(&http, list, &in_session).await.message(2);
    let token = probe["result"]["structuredContent"]["continuation_token"].clone();
    assert!(token.is_string(), "{probe}");

    // A 2026-07-28 request is served statelessly: naming her session in a
    // bare header makes it hers in nobody's eyes.
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "mallory", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    let redeem = |id: u64, meta: Option<&Value>| {
        let mut params = json!({"name": "device_list",
                                "arguments": {"continuation_token": token, "page_size": 1}});
        if let Some(meta) = meta {
            params["_meta"] = meta.clone();
        }
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}).to_string()
    };
    let forged = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "device_list"),
    ];
    let refused = post(&http, redeem(3, Some(&meta)).as_bytes(), &forged)
        .await
        .message(3);
    assert_eq!(refused["result"]["isError"], true, "{refused}");

    // Alice, in her session, still redeems it.
    let served = post(&http, redeem(4, None).as_bytes(), &in_session)
        .await
        .message(4);
    assert_eq!(served["result"]["isError"], false, "{served}");
}

#[tokio::test]
async fn a_browser_origin_that_is_not_local_is_refused_403() {
    let http = serve(HttpOptions::new()).await;
    for origin in [
        "http://evil.example",
        "null",
        "https://localhost.evil.example",
    ] {
        let reply = post(&http, INITIALIZE.as_bytes(), &[("Origin", origin)]).await;
        assert_eq!(reply.status, 403, "Origin: {origin}");
    }
    let local = format!("http://localhost:{}", http.addr.port());
    let loopback = format!("http://{}", http.addr);
    for origin in [local.as_str(), loopback.as_str()] {
        let reply = post(&http, INITIALIZE.as_bytes(), &[("Origin", origin)]).await;
        assert_eq!(reply.status, 200, "Origin: {origin}");
    }
    let reply = post(&http, INITIALIZE.as_bytes(), &[]).await;
    assert_eq!(
        reply.status, 200,
        "a request without Origin is no browser's"
    );
}

#[tokio::test]
async fn configured_origins_replace_the_local_ones() {
    let options = HttpOptions::new().with_allowed_origins(["https://console.example.com"]);
    let http = serve(options).await;
    let allowed = [("Origin", "https://console.example.com")];
    assert_eq!(
        post(&http, INITIALIZE.as_bytes(), &allowed).await.status,
        200
    );
    let local = format!("http://localhost:{}", http.addr.port());
    let reply = post(&http, INITIALIZE.as_bytes(), &[("Origin", local.as_str())]).await;
    assert_eq!(reply.status, 403);
}

#[tokio::test]
async fn bodies_that_are_not_json_answer_400_with_a_parse_error() {
    let http = serve(HttpOptions::new()).await;
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let bodies: [&[u8]; 4] = [
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":",
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":\"\xff\"}}",
        b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"x\":1e400}}",
        deep.as_bytes(),
    ];
    for body in bodies {
        let reply = post(&http, body, &[]).await;
        assert_eq!(reply.status, 400, "{}", String::from_utf8_lossy(body));
        let error = reply.json();
        assert_eq!(error["jsonrpc"], "2.0");
        assert_eq!(error["error"]["code"], -32700, "{error}");
    }
}

#[tokio::test]
async fn json_that_is_no_request_answers_invalid_request_with_its_id() {
    let http = serve(HttpOptions::new()).await;
    let reply = post(&http, br#"{"jsonrpc":"2.0","id":7,"method":5}"#, &[]).await;
    assert_eq!(reply.status, 400);
    let error = reply.json();
    assert_eq!(error["id"], 7);
    assert_eq!(error["error"]["code"], -32600, "{error}");
}

#[tokio::test]
async fn tools_call_with_array_params_answers_invalid_params() {
    let http = serve(HttpOptions::new()).await;
    let body = br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":[1,2]}"#;
    let reply = post(&http, body, &[]).await;
    assert_eq!(reply.status, 400);
    let error = reply.json();
    assert_eq!(error["id"], 3);
    assert_eq!(error["error"]["code"], -32602, "{error}");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("expected an object"),
        "{error}"
    );
}

#[tokio::test]
async fn long_arguments_reach_the_tool_whole_and_bad_ones_answer_a_parse_error() {
    let http = serve(HttpOptions::new()).await;
    // As Claude Code, which keeps 40,000 bytes of an answer: the `verify`
    // echo of 80 devices (about 27 KB) comes back whole.
    let session = open_session_of(&http, "claude-code").await;
    let in_session = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-06-18"),
    ];

    // Arguments of some kilobytes: the guard parses them and hands them to
    // the call, rmcp reads the rest of the message.
    let devices = new_devices(80);
    let call = |id: u64, arguments: &Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": "device_bulk_create", "arguments": arguments}})
        .to_string()
    };
    let arguments = json!({"devices": devices, "verify": true});
    let body = call(2, &arguments);
    assert!(body.len() > 4 * 1024, "{} bytes", body.len());
    let answer = post(&http, body.as_bytes(), &in_session).await.message(2);
    let created = &answer["result"]["structuredContent"];
    assert!(created.get("note").is_none(), "{answer}");
    let created = created.get("result").unwrap_or(created);
    let names = |list: &Value| -> Vec<Value> {
        list.as_array()
            .unwrap()
            .iter()
            .map(|d| d["name"].clone())
            .collect()
    };
    assert_eq!(names(created), names(&devices), "{answer}");

    // A 2026-07-28 request without a session, where rmcp reads the
    // arguments itself (to check `Mcp-Param-*` headers against them).
    let stateless = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "device_bulk_create", "arguments": arguments, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "long", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}}}});
    let headers = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "device_bulk_create"),
    ];
    let answer = post(&http, stateless.to_string().as_bytes(), &headers)
        .await
        .message(3);
    assert_eq!(answer["result"]["isError"], false, "{answer}");

    // A number out of range deep in long arguments is a parse error, as in
    // any other body.
    let bad = call(4, &arguments).replacen("\"role\":", "\"weight\":1e400,\"role\":", 1);
    assert!(bad.contains("1e400"));
    let reply = post(&http, bad.as_bytes(), &in_session).await;
    assert_eq!(
        reply.status,
        400,
        "{}",
        String::from_utf8_lossy(&reply.body)
    );
    assert_eq!(reply.json()["error"]["code"], -32700);
}

#[tokio::test]
async fn a_body_over_the_limit_answers_413_with_a_json_rpc_error() {
    let http = serve(HttpOptions::new().with_max_body_bytes(1_000).unwrap()).await;
    let padding = "x".repeat(2_000);
    let body =
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"p":"{padding}"}}}}"#);
    let reply = post(&http, body.as_bytes(), &[]).await;
    assert_eq!(reply.status, 413);
    assert!(
        reply.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("larger than 1000 bytes")
    );
}

#[tokio::test]
async fn a_half_sent_request_is_closed_at_the_header_deadline() {
    let options = HttpOptions::new().with_header_read_timeout(Duration::from_millis(300));
    let http = serve(options).await;
    let mut tcp = TcpStream::connect(http.addr).await.unwrap();
    tcp.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .await
        .unwrap();
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(5), tcp.read_to_end(&mut rest)).await;
    assert!(
        closed.is_ok(),
        "the half-sent request was still open after 5 s"
    );
    // The server goes on serving.
    assert_eq!(post(&http, INITIALIZE.as_bytes(), &[]).await.status, 200);
}

#[tokio::test]
async fn a_kept_alive_connection_is_closed_a_header_deadline_after_its_last_answer() {
    let options = HttpOptions::new().with_header_read_timeout(Duration::from_millis(300));
    let http = serve(options).await;
    let mut tcp = TcpStream::connect(http.addr).await.unwrap();
    // Ten requests 100 ms apart on one connection, a second in all: each
    // head comes well within its own deadline, so none of them is cut.
    let probe = format!("GET /healthz HTTP/1.1\r\nHost: {}\r\n\r\n", http.addr);
    for n in 0..10 {
        tcp.write_all(probe.as_bytes()).await.unwrap();
        let head = read_kept_alive(&mut tcp).await;
        assert!(
            head.starts_with("HTTP/1.1 200"),
            "request {n} on the kept-alive connection: {head}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Then silence: the connection is closed at the deadline.
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(5), tcp.read_to_end(&mut rest)).await;
    assert!(
        closed.is_ok(),
        "the idle connection was still open after 5 s"
    );
    assert!(rest.is_empty(), "{}", String::from_utf8_lossy(&rest));
}

/// Reads one answer with a `Content-Length` from a kept-alive connection:
/// its head, as text.
async fn read_kept_alive(tcp: &mut TcpStream) -> String {
    let mut raw = Vec::new();
    let mut byte = [0u8; 1];
    while !raw.ends_with(b"\r\n\r\n") {
        let read = tokio::time::timeout(Duration::from_secs(5), tcp.read(&mut byte))
            .await
            .expect("an answer within 5 s")
            .unwrap();
        assert_eq!(read, 1, "the connection closed mid-answer: {raw:?}");
        raw.push(byte[0]);
    }
    let head = String::from_utf8(raw).unwrap();
    let length: usize = head
        .lines()
        .find_map(|line| {
            line.to_lowercase()
                .strip_prefix("content-length:")
                .map(|v| v.trim().parse().unwrap())
        })
        .expect("a Content-Length");
    let mut body = vec![0u8; length];
    tcp.read_exact(&mut body).await.unwrap();
    head
}

#[tokio::test]
async fn clients_beyond_the_connection_bound_wait_for_a_free_one() {
    let http = serve(HttpOptions::new().with_max_connections(2).unwrap()).await;
    let mut held = Vec::new();
    for _ in 0..2 {
        let mut tcp = TcpStream::connect(http.addr).await.unwrap();
        tcp.write_all(b"POST /mcp HTTP/1.1\r\n").await.unwrap();
        held.push(tcp);
    }
    tokio::time::sleep(Duration::from_millis(100)).await;
    let mut third = TcpStream::connect(http.addr).await.unwrap();
    third
        .write_all(&post_bytes(http.addr, INITIALIZE.as_bytes(), &[]))
        .await
        .unwrap();
    let mut byte = [0u8; 1];
    let early = tokio::time::timeout(Duration::from_millis(500), third.read(&mut byte)).await;
    assert!(early.is_err(), "a third connection was served beside two");
    drop(held.pop());
    assert_eq!(read_reply(&mut third).await.status, 200);
}

// ----- stdio -----------------------------------------------------------------

/// A server on an in-memory pipe framed as stdio, and the client's ends.
struct Pipe {
    lines: BufReader<tokio::io::ReadHalf<tokio::io::DuplexStream>>,
    to_server: tokio::io::WriteHalf<tokio::io::DuplexStream>,
}

impl Pipe {
    async fn open(options: StdioOptions) -> Pipe {
        let (client, server_side) = tokio::io::duplex(64 * 1024);
        let (reader, writer) = tokio::io::split(server_side);
        let server = Harness::new().server;
        tokio::spawn(server.serve_lines(reader, writer, options));
        let (from_server, to_server) = tokio::io::split(client);
        let mut pipe = Pipe {
            lines: BufReader::new(from_server),
            to_server,
        };
        pipe.send(INITIALIZE.as_bytes()).await;
        assert_eq!(pipe.next().await["id"], 1);
        pipe.send(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
        pipe
    }

    async fn send(&mut self, line: &[u8]) {
        self.to_server.write_all(line).await.unwrap();
        self.to_server.write_all(b"\n").await.unwrap();
    }

    async fn next(&mut self) -> Value {
        let mut line = String::new();
        tokio::time::timeout(Duration::from_secs(5), self.lines.read_line(&mut line))
            .await
            .expect("the server answers within 5 s")
            .unwrap();
        serde_json::from_str(&line).unwrap()
    }
}

#[tokio::test]
async fn over_stdio_a_malformed_request_is_answered_with_its_id() {
    let mut pipe = Pipe::open(StdioOptions::new()).await;
    pipe.send(br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":[1]}"#)
        .await;
    let error = pipe.next().await;
    assert_eq!(error["id"], 5);
    assert_eq!(error["error"]["code"], -32602, "{error}");

    pipe.send(br#"{"jsonrpc":"2.0","id":"six","method":7}"#)
        .await;
    let error = pipe.next().await;
    assert_eq!(error["id"], "six");
    assert_eq!(error["error"]["code"], -32600, "{error}");

    pipe.send(b"{\"jsonrpc\":\"2.0\",\"id\":8,").await;
    assert_eq!(pipe.next().await["error"]["code"], -32700);

    pipe.send(br#"{"jsonrpc":"2.0","id":9,"method":"tools/list"}"#)
        .await;
    let listed = pipe.next().await;
    assert_eq!(listed["id"], 9);
    assert!(listed["result"]["tools"].is_array(), "{listed}");
}

#[tokio::test]
async fn over_stdio_a_line_over_the_limit_is_refused_and_the_next_one_served() {
    let mut pipe = Pipe::open(StdioOptions::new().with_max_line_bytes(1_000).unwrap()).await;
    let padding = "x".repeat(100_000);
    let long = format!(
        r#"{{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{{"name":"count","arguments":{{"p":"{padding}"}}}}}}"#
    );
    pipe.send(long.as_bytes()).await;
    let error = pipe.next().await;
    assert_eq!(error["id"], 11);
    assert_eq!(error["error"]["code"], -32600);
    let message = error["error"]["message"].as_str().unwrap();
    assert!(message.contains("at most 1000 bytes"), "{message}");

    pipe.send(br#"{"jsonrpc":"2.0","id":12,"method":"ping"}"#)
        .await;
    assert_eq!(pipe.next().await["id"], 12);
}

// ----- through Server::call ----------------------------------------------------

#[tokio::test]
async fn a_megabyte_string_argument_is_refused_naming_the_field_and_the_limit() {
    let h = Harness::new();
    let name = "x".repeat(1 << 20);
    let args = json!({"device": {"name": name, "site_slug": "s", "role": "r"}});
    let text = error_text(&h.call("device_create", args).await);
    assert!(text.contains("at `device.name`"), "{text}");
    assert!(text.contains("at most 65536 bytes"), "{text}");
    assert!(
        text.len() < 400,
        "the refusal echoes the string: {} bytes",
        text.len()
    );
    assert_eq!(h.device_count(), 0);
}

#[tokio::test]
async fn the_string_bound_is_the_servers_to_set() {
    let mut h = Harness::new();
    h.server = h.builder().with_max_argument_string(16).build().unwrap();
    let args = json!({"devices": new_devices(2)});
    ok_json(&h.call("device_bulk_create", args).await);
    let mut devices = new_devices(2);
    devices[1]["serial"] = json!("s".repeat(17));
    let text = error_text(
        &h.call("device_bulk_create", json!({ "devices": devices }))
            .await,
    );
    assert!(text.contains("at `devices[1].serial`"), "{text}");
}

#[tokio::test]
async fn an_envelope_does_not_echo_a_long_name_whole() {
    let h = Harness::new();
    let name = "n".repeat(10_000);
    let args = json!({"device": {"name": name, "site_slug": "s", "role": "r"}});
    let envelope = ok_json(&h.call("device_create", args).await);
    let echoed = envelope["name"].as_str().unwrap();
    assert!(echoed.len() <= 260, "{} bytes echoed", echoed.len());
    assert!(echoed.ends_with('…'), "{echoed}");
    assert_eq!(envelope["site_slug"], "s");
}

static NAP_DROPPED: AtomicBool = AtomicBool::new(false);

/// Marks its drop: the tool's future was dropped.
struct MarkDrop;

impl Drop for MarkDrop {
    fn drop(&mut self) {
        NAP_DROPPED.store(true, Ordering::SeqCst);
    }
}

/// Sleeps `ms` milliseconds.
#[mcp_tool]
async fn hostile_nap(ms: u64) -> u64 {
    let _mark = MarkDrop;
    tokio::time::sleep(Duration::from_millis(ms)).await;
    ms
}

#[tokio::test]
async fn a_tool_past_its_deadline_is_stopped_with_a_clear_error() {
    let server = Harness::new()
        .builder()
        .with_tool_deadline(Some(Duration::from_millis(100)))
        .build()
        .unwrap();
    let started = std::time::Instant::now();
    let result = server
        .call("hostile_nap", json!({"ms": 60_000}), Caller::Process)
        .await;
    let text = error_text(&result);
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(
        text.starts_with("`hostile_nap` did not finish within 100 ms"),
        "{text}"
    );
    assert!(
        NAP_DROPPED.load(Ordering::SeqCst),
        "the tool's future lives on"
    );
    let quick = server
        .call("hostile_nap", json!({"ms": 1}), Caller::Process)
        .await;
    assert_eq!(ok_json(&quick), json!(1));
}

#[tokio::test]
async fn binding_errors_speak_json_not_rust() {
    let h = Harness::new();
    let text = error_text(&h.call("device_create", json!({"device": "edge"})).await);
    assert_eq!(
        text,
        "invalid arguments for `device_create` at `device`: invalid type: string \"edge\", expected an object; \
         `device_create` takes `device`"
    );
    let text = error_text(
        &h.call("device_bulk_create", json!({"devices": {"a": 1}}))
            .await,
    );
    assert!(
        text.contains("invalid type: object, expected an array"),
        "{text}"
    );
    let text = error_text(&h.call("count", json!({"n": -1})).await);
    assert!(
        text.contains("at `n`: invalid value: number -1, expected an integer from 0 to 4294967295"),
        "{text}"
    );
}

#[tokio::test]
async fn another_callers_live_token_is_refused_like_an_unknown_one() {
    let h = Harness::new();
    let server = h.builder().with_dispatcher("inventory").build().unwrap();
    let route = json!({"resource": "device", "action": "bulk_create",
                       "params": {"devices": new_devices(2)}});
    let written = server
        .call("inventory", route, Caller::Session("alice".into()))
        .await;
    let token = ok_json(&written)["continuation_token"].clone();
    let redeem = json!({"continuation_token": token, "mode": "full"});

    let not_yours = error_text(
        &server
            .call(
                "inventory",
                redeem.clone(),
                Caller::Session("mallory".into()),
            )
            .await,
    );
    // The same token on a server that never minted it: unknown there.
    let elsewhere = Harness::new()
        .builder()
        .with_dispatcher("inventory")
        .build()
        .unwrap();
    let unknown = error_text(
        &elsewhere
            .call("inventory", redeem, Caller::Session("mallory".into()))
            .await,
    );
    assert_eq!(not_yours, unknown);
}
