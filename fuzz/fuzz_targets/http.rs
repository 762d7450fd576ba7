//! Arbitrary requests into the Streamable HTTP service of the inventory
//! server, called in process (a tower `Service`, no socket): method, path,
//! the headers the transport reads, and the body; a few in a row, so a
//! session opened by one is used by the next.
//!
//! Holds: every status is one the transport names (no 500, no 3xx); a
//! refusal has a body saying why; every JSON or SSE body is well-formed
//! JSON-RPC; every answer ends (or, for a standing SSE stream, waits)
//! within the bound.

#![no_main]

use std::convert::Infallible;
use std::sync::OnceLock;
use std::time::Duration;

use arbitrary::Arbitrary;
use bytes::Bytes;
use http::{HeaderName, HeaderValue, Request, header};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use libfuzzer_sys::fuzz_target;
use mcp_light::Server;
use mcp_light::rmcp::transport::streamable_http_server::StreamableHttpServerConfig;
use mcp_light_fuzz::inventory_env::Inventory;
use mcp_light_fuzz::json::Text;
use mcp_light_fuzz::rpc::{self, Message};
use mcp_light_fuzz::{Form, answer, form, run_bounded};
use serde_json::Value;
use tower_service::Service;

/// The statuses the transport answers with.
const NAMED: [u16; 13] = [
    200, 202, 204, 400, 401, 403, 404, 405, 406, 413, 415, 429, 503,
];

#[derive(Arbitrary, Debug)]
enum Choice {
    Absent,
    Known(u8),
    Raw(Vec<u8>),
}

impl Choice {
    fn value(&self, known: &[&str]) -> Option<Vec<u8>> {
        match self {
            Choice::Absent => None,
            Choice::Known(i) => Some(known[usize::from(*i) % known.len()].as_bytes().to_vec()),
            Choice::Raw(bytes) => Some(bytes.clone()),
        }
    }
}

#[derive(Arbitrary, Debug)]
enum SessionId {
    Absent,
    /// The one the last answer gave.
    Last,
    Raw(Vec<u8>),
}

#[derive(Arbitrary, Debug)]
enum Body {
    Empty,
    Message(Message),
    Batch(Vec<Message>),
}

#[derive(Arbitrary, Debug)]
struct Exchange {
    method: u8,
    other_method: Option<Text>,
    path: Choice,
    origin: Choice,
    host: Choice,
    accept: Choice,
    content_type: Choice,
    session: SessionId,
    protocol_version: Choice,
    authorization: Choice,
    body: Body,
}

#[derive(Arbitrary, Debug)]
struct Input {
    exchanges: Vec<Exchange>,
}

const METHODS: [&str; 6] = ["POST", "GET", "DELETE", "PUT", "OPTIONS", "HEAD"];
const PATHS: &[&str] = &[
    "/mcp",
    "/",
    "/mcp/",
    "/mcp?x=1",
    "//mcp",
    "/.well-known/oauth-protected-resource",
];
const ORIGINS: &[&str] = &[
    "http://localhost",
    "http://127.0.0.1:8080",
    "null",
    "https://evil.example",
    "http://localhost.evil.example",
];
const HOSTS: &[&str] = &[
    "127.0.0.1:8080",
    "localhost",
    "[::1]:8080",
    "evil.example",
    "localhost:99999",
    "",
];
const ACCEPTS: &[&str] = &[
    "application/json, text/event-stream",
    "application/json",
    "text/event-stream",
    "*/*",
    "text/html",
];
const CONTENT_TYPES: &[&str] = &[
    "application/json",
    "application/json; charset=utf-8",
    "text/plain",
    "application/x-www-form-urlencoded",
    "application/json; charset=latin1",
];
const AUTHORIZATIONS: &[&str] = &[
    "Bearer abc",
    "Basic YTpi",
    "Bearer ",
    "bearer eyJ0eXAiOiJKV1QifQ.e30.",
];

fn server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(|| Inventory::seeded(8).server)
}

fn request(
    exchange: &Exchange,
    last_session: Option<&HeaderValue>,
) -> Option<Request<Full<Bytes>>> {
    let method = match &exchange.other_method {
        Some(text) => http::Method::from_bytes(text.to_text().as_bytes()).ok()?,
        None => http::Method::from_bytes(
            METHODS[usize::from(exchange.method) % METHODS.len()].as_bytes(),
        )
        .ok()?,
    };
    let path = exchange
        .path
        .value(PATHS)
        .unwrap_or_else(|| b"/mcp".to_vec());
    let uri = http::Uri::try_from(path).ok()?;
    let body = match &exchange.body {
        Body::Empty => Vec::new(),
        Body::Message(message) => message.to_bytes(),
        Body::Batch(messages) => {
            let mut batch = b"[".to_vec();
            for (i, message) in messages.iter().enumerate() {
                if i > 0 {
                    batch.push(b',');
                }
                batch.extend(message.to_bytes());
            }
            batch.push(b']');
            batch
        }
    };
    let mut request = Request::builder()
        .method(method)
        .uri(uri)
        .body(Full::new(Bytes::from(body)))
        .ok()?;
    let headers = request.headers_mut();
    let mut set = |name: HeaderName, value: Option<Vec<u8>>| -> Option<()> {
        if let Some(value) = value {
            headers.insert(name, HeaderValue::from_bytes(&value).ok()?);
        }
        Some(())
    };
    set(header::ORIGIN, exchange.origin.value(ORIGINS))?;
    set(
        header::HOST,
        exchange
            .host
            .value(HOSTS)
            .or_else(|| Some(HOSTS[0].as_bytes().to_vec())),
    )?;
    set(header::ACCEPT, exchange.accept.value(ACCEPTS))?;
    set(
        header::CONTENT_TYPE,
        exchange.content_type.value(CONTENT_TYPES),
    )?;
    set(
        HeaderName::from_static("mcp-protocol-version"),
        exchange.protocol_version.value(rpc::VERSIONS),
    )?;
    set(
        header::AUTHORIZATION,
        exchange.authorization.value(AUTHORIZATIONS),
    )?;
    let session = match &exchange.session {
        SessionId::Absent => None,
        SessionId::Last => last_session.map(|v| v.as_bytes().to_vec()),
        SessionId::Raw(bytes) => Some(bytes.clone()),
    };
    set(HeaderName::from_static("mcp-session-id"), session)?;
    Some(request)
}

/// The body's bytes: to its end, or up to a frame that does not come
/// within a moment (a standing SSE stream, open for the server's own
/// messages).
async fn read_body(body: &mut BoxBody<Bytes, Infallible>) -> Vec<u8> {
    let mut bytes = Vec::new();
    loop {
        match tokio::time::timeout(Duration::from_millis(200), body.frame()).await {
            Ok(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    bytes.extend_from_slice(data);
                }
            }
            Ok(Some(Err(never))) => match never {},
            Ok(None) | Err(_) => return bytes,
        }
    }
}

fn check(status: u16, content_type: &str, body: &[u8], context: &str) {
    assert!(
        NAMED.contains(&status),
        "{context}: status {status} is not one the transport names: {}",
        String::from_utf8_lossy(body)
    );
    if status >= 400 {
        assert!(
            !body.is_empty(),
            "{context}: a {status} with no body saying why"
        );
    }
    let text = String::from_utf8_lossy(body);
    if content_type.starts_with("text/event-stream") {
        for data in text.lines().filter_map(|line| line.strip_prefix("data:")) {
            let data = data.trim();
            if data.is_empty() {
                continue;
            }
            let message: Value = serde_json::from_str(data).unwrap_or_else(|e| {
                panic!("{context}: an SSE event that is no JSON ({e}): {data}")
            });
            answer::jsonrpc_message(&message, context);
        }
    } else if content_type.starts_with("application/json") && !body.is_empty() {
        let value: Value = serde_json::from_slice(body)
            .unwrap_or_else(|e| panic!("{context}: a JSON body that is no JSON ({e}): {text}"));
        if value.get("jsonrpc").is_some() {
            answer::jsonrpc_message(&value, context);
        } else if let Value::Array(messages) = &value {
            for message in messages {
                answer::jsonrpc_message(message, context);
            }
        }
    } else if status >= 400 {
        answer::refusal_names_something(&text, context);
    }
}

/// A request written as text: `METHOD PATH`, header lines, an empty
/// line, the body. `$SESSION` in a header stands for the session the last
/// answer gave.
fn raw_request(text: &[u8], last_session: Option<&HeaderValue>) -> Option<Request<Full<Bytes>>> {
    let split = text
        .windows(2)
        .position(|w| w == b"\n\n")
        .unwrap_or(text.len());
    let head = String::from_utf8_lossy(&text[..split]).into_owned();
    let body = text.get(split + 2..).unwrap_or_default().to_vec();
    let mut lines = head.lines();
    let (method, path) = lines.next()?.split_once(' ')?;
    let mut request = Request::builder()
        .method(http::Method::from_bytes(method.as_bytes()).ok()?)
        .uri(http::Uri::try_from(path).ok()?)
        .body(Full::new(Bytes::from(body)))
        .ok()?;
    for line in lines {
        let (name, value) = line.split_once(':')?;
        let value = value.trim();
        let value = match (value, last_session) {
            ("$SESSION", Some(session)) => session.clone(),
            _ => HeaderValue::from_str(value).ok()?,
        };
        request
            .headers_mut()
            .append(HeaderName::from_bytes(name.trim().as_bytes()).ok()?, value);
    }
    Some(request)
}

enum Next<'a> {
    Raw(&'a [u8]),
    Built(&'a Exchange),
}

fuzz_target!(|data: &[u8]| {
    let exchanges: Vec<Next> = match form::<Input>(data) {
        None => return,
        // Requests apart by a NUL byte.
        Some(Form::Raw(raw)) => raw.split(|b| *b == 0).map(Next::Raw).collect(),
        Some(Form::Built(input)) => {
            exchange_all(&input);
            return;
        }
    };
    run(exchanges);
});

fn exchange_all(input: &Input) {
    run(input.exchanges.iter().map(Next::Built).collect());
}

fn run(exchanges: Vec<Next>) {
    let mut service = server()
        .clone()
        .http_service(StreamableHttpServerConfig::default());
    let mut last_session: Option<HeaderValue> = None;
    for (n, exchange) in exchanges.into_iter().take(6).enumerate() {
        let request = match exchange {
            Next::Raw(text) => raw_request(text, last_session.as_ref()),
            Next::Built(exchange) => request(exchange, last_session.as_ref()),
        };
        let Some(request) = request else {
            continue;
        };
        let context = format!("request {n}: {} {}", request.method(), request.uri());
        let (status, content_type, body, session) = run_bounded(&context, async {
            let response = service
                .call(request)
                .await
                .expect("the service is infallible");
            let status = response.status().as_u16();
            let content_type = response
                .headers()
                .get(header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_owned();
            let session = response.headers().get("mcp-session-id").cloned();
            let mut body = response.into_body();
            let bytes = read_body(&mut body).await;
            (status, content_type, bytes, session)
        });
        check(status, &content_type, &body, &context);
        if session.is_some() {
            last_session = session;
        }
    }
}
