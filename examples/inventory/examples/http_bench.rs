//! Over real HTTP, in one run: kept-alive `tools/call` latency of a
//! 2025-06-18 session client against a 2026-07-28 stateless one, and the
//! calls per second of single and 60-device bulk creates with 1 and 4
//! clients.
//!
//! ```text
//! cargo run --release -p inventory --features bench-tools --example http_bench
//! cargo run --release -p inventory --features bench-tools --example http_bench -- --calls 2000
//! ```
//!
//! The inventory serves in this process (SQLite in a temporary file, the
//! in-memory continuation store) on 127.0.0.1; each client is a plain
//! HTTP/1.1 connection kept alive for all its calls, sending the JSON-RPC
//! messages a host sends, as the Python original's load script does.
//! Results are printed as Markdown tables; the figures are for comparing
//! rows of one run, not runs on different machines.

use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::client::conn::http1;
use hyper_util::rt::TokioIo;
use inventory::db::Db;
use inventory::fixture;
use serde_json::{Value, json};
use tokio::net::TcpStream;

/// One client: a kept-alive HTTP/1.1 connection, and its MCP session.
struct Client {
    sender: http1::SendRequest<Full<Bytes>>,
    host: String,
    protocol: &'static str,
    session: Option<String>,
    next_id: u64,
}

impl Client {
    /// A session client: `initialize` on protocol 2025-06-18, then its
    /// `Mcp-Session-Id` on every request.
    async fn session(addr: &str) -> Client {
        let mut client = Client::connect(addr, "2025-06-18").await;
        let init = json!({"protocolVersion": "2025-06-18", "capabilities": {},
                          "clientInfo": {"name": "http_bench", "version": "1"}});
        client.request("initialize", init).await;
        client.notify("notifications/initialized").await;
        client
    }

    /// A stateless client on protocol 2026-07-28: every request carries
    /// its protocol version and capabilities, and no session.
    async fn stateless(addr: &str) -> Client {
        Client::connect(addr, "2026-07-28").await
    }

    async fn connect(addr: &str, protocol: &'static str) -> Client {
        let stream = TcpStream::connect(addr).await.expect("the server listens");
        let (sender, connection) = http1::handshake(TokioIo::new(stream))
            .await
            .expect("an HTTP/1.1 connection");
        tokio::spawn(connection);
        Client {
            sender,
            host: addr.to_owned(),
            protocol,
            session: None,
            next_id: 0,
        }
    }

    async fn post(&mut self, message: Value) -> (Option<String>, Bytes) {
        let mut request = hyper::Request::post("/mcp")
            .header("host", &self.host)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .header("mcp-protocol-version", self.protocol);
        if let Some(session) = &self.session {
            request = request.header("mcp-session-id", session);
        }
        if self.protocol == "2026-07-28" {
            // The standard headers a 2026-07-28 request repeats from its body.
            request = request.header("mcp-method", message["method"].as_str().unwrap());
            if let Some(name) = message["params"]["name"].as_str() {
                request = request.header("mcp-name", name);
            }
        }
        let body = Full::new(Bytes::from(message.to_string()));
        self.sender
            .ready()
            .await
            .expect("the connection stays open");
        let response = self
            .sender
            .send_request(request.body(body).unwrap())
            .await
            .expect("an answer");
        if !response.status().is_success() {
            let status = response.status();
            let body = response.into_body().collect().await.unwrap().to_bytes();
            panic!("{status}: {}", String::from_utf8_lossy(&body));
        }
        let session = response
            .headers()
            .get("mcp-session-id")
            .map(|v| v.to_str().unwrap().to_owned());
        let body = response.into_body().collect().await.unwrap().to_bytes();
        (session, body)
    }

    async fn request(&mut self, method: &str, mut params: Value) -> Value {
        self.next_id += 1;
        if self.protocol == "2026-07-28" {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            });
        }
        let message =
            json!({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params});
        let (session, body) = self.post(message).await;
        self.session = self.session.take().or(session);
        reply(&body)
    }

    async fn notify(&mut self, method: &str) {
        self.post(json!({"jsonrpc": "2.0", "method": method})).await;
    }

    /// Calls `tool`; panics on an error, so no failed call is timed.
    async fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let reply = self
            .request("tools/call", json!({"name": tool, "arguments": arguments}))
            .await;
        let result = &reply["result"];
        assert!(result["isError"] != true, "{tool} failed: {reply}");
        reply
    }
}

/// The JSON-RPC answer in a body: plain JSON, or the last event of an SSE
/// stream.
fn reply(body: &[u8]) -> Value {
    let text = std::str::from_utf8(body).unwrap();
    if let Ok(value) = serde_json::from_str(text) {
        return value;
    }
    text.lines()
        .rev()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter(|data| !data.trim().is_empty())
        .find_map(|data| serde_json::from_str(data).ok())
        .unwrap_or_else(|| panic!("no JSON-RPC answer in {text:.200}"))
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn p95(times: &mut [Duration]) -> Duration {
    times.sort();
    times[(times.len() - 1) * 95 / 100]
}

fn ms(duration: Duration) -> String {
    format!("{:.3} ms", duration.as_secs_f64() * 1000.0)
}

/// `calls` timed calls of `site_list`, after 20 untimed.
async fn latencies(client: &mut Client, calls: usize) -> Vec<Duration> {
    for _ in 0..20 {
        client.call("site_list", json!({})).await;
    }
    let mut times = Vec::with_capacity(calls);
    for _ in 0..calls {
        let started = Instant::now();
        client.call("site_list", json!({})).await;
        times.push(started.elapsed());
    }
    times
}

/// `clients` session clients each sending `calls` creates of `batch`
/// devices (one `device_create` when `batch` is 1): calls per second.
async fn throughput(addr: &str, clients: usize, calls: usize, batch: usize, tag: &str) -> f64 {
    let mut tasks = Vec::new();
    let mut ready = Vec::new();
    for c in 0..clients {
        let mut client = Client::session(addr).await;
        let bodies: Vec<Value> = (0..calls)
            .map(|i| {
                let mut devices = fixture::new_devices(batch, (c * calls + i) as u64);
                // Names and asset tags are unique: this call's own.
                for device in &mut devices {
                    device.name = format!("{tag}-{c}-{i}-{}", device.name);
                    device.asset_tag = Some(format!("{tag}-{c}-{i}-{}", device.name));
                }
                if batch == 1 {
                    json!({"device": devices[0]})
                } else {
                    json!({"devices": devices})
                }
            })
            .collect();
        client.call("site_list", json!({})).await;
        ready.push((client, bodies));
    }
    let started = Instant::now();
    for (mut client, bodies) in ready {
        let tool = if batch == 1 {
            "device_create"
        } else {
            "device_bulk_create"
        };
        tasks.push(tokio::spawn(async move {
            for arguments in bodies {
                client.call(tool, arguments).await;
            }
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    (clients * calls) as f64 / started.elapsed().as_secs_f64()
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let mut args = std::env::args().skip(1);
    let mut calls = 500;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--calls" => calls = args.next().and_then(|n| n.parse().ok()).expect("--calls N"),
            other => panic!("unknown argument {other}; the one option is --calls N"),
        }
    }
    let dir = std::env::temp_dir().join(format!("http_bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = Db::open(Some(&dir.join("inventory.db"))).unwrap();
    db.run_now(|conn| inventory::db::ensure_sites(conn, fixture::new_sites()))
        .unwrap();
    let server = inventory::server(db).build().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    tokio::spawn(server.serve_http(listener, std::future::pending()));

    let mut session = latencies(&mut Client::session(&addr).await, calls).await;
    let mut stateless = latencies(&mut Client::stateless(&addr).await, calls).await;
    let (session_median, stateless_median) = (median(&mut session), median(&mut stateless));
    println!("## Kept-alive `tools/call` latency (`site_list`, {calls} calls each)\n");
    println!("| client | median | p95 |");
    println!("|---|---:|---:|");
    println!(
        "| 2025-06-18 session (SSE answers) | {} | {} |",
        ms(session_median),
        ms(p95(&mut session))
    );
    println!(
        "| 2026-07-28 stateless (JSON answers) | {} | {} |",
        ms(stateless_median),
        ms(p95(&mut stateless))
    );
    let bound = stateless_median * 2 + Duration::from_millis(1);
    println!(
        "\nsession / stateless: {:.2}× (bound: 2× + 1 ms = {}; {})\n",
        session_median.as_secs_f64() / stateless_median.as_secs_f64(),
        ms(bound),
        if session_median <= bound {
            "within"
        } else {
            "OVER"
        }
    );

    println!("## Creates over HTTP (session clients, SQLite on disk)\n");
    println!("| series | clients | calls/s | devices/s |");
    println!("|---|---:|---:|---:|");
    for clients in [1, 4] {
        for (series, batch, n) in [("single create", 1, calls / 2), ("60-device bulk", 60, 50)] {
            let tag = format!("c{clients}b{batch}");
            let rate = throughput(&addr, clients, (n / clients).max(1), batch, &tag).await;
            println!(
                "| {series} | {clients} | {rate:.1} | {:.0} |",
                rate * batch as f64
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
