//! A server on a loopback port and a client of raw HTTP/1.1 requests, for
//! the tests of what the HTTP transport does around `/mcp`: the session
//! bounds, the health probes, the graceful shutdown.

use std::net::SocketAddr;
use std::time::Duration;

use mcp_light::Server;
use mcp_light::transport::{HttpOptions, ServeError};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// A server serving on a loopback port until [`Served::shut_down`].
pub struct Served {
    pub addr: SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    pub serving: JoinHandle<Result<(), ServeError>>,
}

impl Served {
    /// Starts the graceful shutdown, as a signal would.
    pub fn shut_down(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

/// `server` served with `options` on a free loopback port.
pub async fn serve(server: Server, options: HttpOptions) -> Served {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = oneshot::channel::<()>();
    let serving = tokio::spawn(server.serve_http_with(listener, options, async {
        let _ = stopped.await;
    }));
    Served {
        addr,
        stop: Some(stop),
        serving,
    }
}

/// An answer: its status, its head (lowercase) and its body (chunks
/// joined).
pub struct Reply {
    pub status: u16,
    pub head: String,
    pub body: Vec<u8>,
}

impl Reply {
    /// The value of header `name` (lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.head.lines().find_map(|line| {
            let (key, value) = line.split_once(':')?;
            (key.trim() == name).then(|| value.trim())
        })
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The JSON-RPC message answering `id`: the body, or one of its SSE
    /// events; `None` when there is none.
    pub fn message(&self, id: u64) -> Option<Value> {
        let text = self.text();
        text.lines()
            .map(|line| line.strip_prefix("data:").unwrap_or(line).trim())
            .filter_map(|data| serde_json::from_str::<Value>(data).ok())
            .find(|message| message["id"] == id)
    }
}

/// Sends a `method` request for `path` with `headers` and `body` on a fresh
/// connection, and reads the answer to its end (or until the server
/// closes the connection). `None` when the server closed it without an
/// answer.
pub async fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Option<Reply> {
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    let mut bytes = head.into_bytes();
    bytes.extend_from_slice(body);
    let mut tcp = TcpStream::connect(addr).await.unwrap();
    tcp.write_all(&bytes).await.unwrap();
    let mut raw = Vec::new();
    // A connection the server resets counts as closed without an answer.
    let _ = tokio::time::timeout(Duration::from_secs(60), tcp.read_to_end(&mut raw))
        .await
        .expect("the server answers or closes within 60 s");
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n")?;
    let head = String::from_utf8_lossy(&raw[..split]).to_lowercase();
    let status = head[9..12].parse().unwrap();
    let mut body = raw[split + 4..].to_vec();
    if head.contains("transfer-encoding: chunked") {
        body = unchunk(&body);
    }
    Some(Reply { status, head, body })
}

/// A JSON POST to `/mcp` with `headers`, answered.
pub async fn post(addr: SocketAddr, body: &str, headers: &[(&str, &str)]) -> Reply {
    let mut all = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
    ];
    all.extend_from_slice(headers);
    request(addr, "POST", "/mcp", &all, body.as_bytes())
        .await
        .expect("an answer")
}

/// A 2025-06-18 `initialize`, which opens a session.
pub const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"operations","version":"1"}}}"#;

/// The chunks of a chunked body, joined; a body cut short keeps what came.
fn unchunk(mut raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = raw.windows(2).position(|w| w == b"\r\n") {
        let Ok(size) = usize::from_str_radix(String::from_utf8_lossy(&raw[..end]).trim(), 16)
        else {
            break;
        };
        if size == 0 || raw.len() < end + 2 + size {
            break;
        }
        out.extend_from_slice(&raw[end + 2..end + 2 + size]);
        raw = &raw[(end + 4 + size).min(raw.len())..];
    }
    out
}
