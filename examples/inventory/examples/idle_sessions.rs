//! How much memory an idle 2025-era session holds: opens sessions over
//! Streamable HTTP (each `initialize`d, then left alone, no stream open)
//! against a server in this process, and prints the process's resident
//! memory (Linux `/proc/self/status`) at each step.
//!
//! ```text
//! cargo run --release -p inventory --features bench-tools --example idle_sessions [-- 4000]
//! ```

use std::net::SocketAddr;

use mcp_light::prelude::*;
use mcp_light::tools;
use mcp_light::transport::HttpOptions;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Answers `pong`.
#[mcp_tool]
fn ping_back() -> &'static str {
    "pong"
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"idle","version":"1"}}}"#;
const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

/// POSTs `body` to `/mcp` on a fresh connection; the answer's head.
async fn post(addr: SocketAddr, body: &str, session: Option<&str>) -> String {
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    if let Some(session) = session {
        request.push_str(&format!(
            "Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-06-18\r\n"
        ));
    }
    request.push_str("\r\n");
    request.push_str(body);
    let mut tcp = TcpStream::connect(addr).await.expect("the server listens");
    tcp.write_all(request.as_bytes()).await.expect("a write");
    let mut answer = Vec::new();
    tcp.read_to_end(&mut answer).await.expect("an answer");
    String::from_utf8_lossy(&answer).into_owned()
}

/// Opens one session and leaves it idle.
async fn open_session(addr: SocketAddr) {
    let answer = post(addr, INITIALIZE, None).await;
    let session = answer
        .lines()
        .find_map(|line| {
            let (name, value) = line.split_once(':')?;
            name.eq_ignore_ascii_case("mcp-session-id")
                .then(|| value.trim().to_owned())
        })
        .unwrap_or_else(|| panic!("no session opened: {answer}"));
    post(addr, INITIALIZED, Some(&session)).await;
}

/// The resident memory of this process, in KiB.
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("Linux /proc");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmRSS in /proc/self/status")
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let total: usize = std::env::args()
        .nth(1)
        .map(|n| n.parse())
        .transpose()?
        .unwrap_or(4000);
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let server = Server::from_tools(tools![ping_back]).build()?;
    let options = HttpOptions::new().with_max_sessions(total.max(1))?;
    tokio::spawn(server.serve_http_with(listener, options, std::future::pending()));
    // Warm up: the first session allocates what every later one reuses.
    open_session(addr).await;
    let start = rss_kib();
    println!("| idle sessions | RSS (MiB) | per session above the first (KiB) |");
    println!("|---:|---:|---:|");
    let mut opened = 1;
    for step in [total / 4, total / 2, total] {
        while opened < step {
            open_session(addr).await;
            opened += 1;
        }
        let rss = rss_kib();
        let per = (rss.saturating_sub(start)) as f64 / (opened - 1).max(1) as f64;
        println!("| {opened} | {:.1} | {per:.1} |", rss as f64 / 1024.0);
    }
    Ok(())
}
