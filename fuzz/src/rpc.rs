//! JSON-RPC messages as a client (or an attacker) writes them, built from
//! fuzz input: a known method with fuzzed params, a tool call with fuzzed
//! arguments, fuzzed JSON, or bytes.

use arbitrary::Arbitrary;
use serde_json::Value;

use crate::inventory_env::TOOLS;
use crate::json::{Json, Text};

/// The methods a client sends, and a few the server sends.
pub const METHODS: &[&str] = &[
    "initialize",
    "notifications/initialized",
    "ping",
    "tools/list",
    "tools/call",
    "notifications/cancelled",
    "notifications/progress",
    "logging/setLevel",
    "resources/list",
    "resources/read",
    "prompts/list",
    "completion/complete",
    "tasks/get",
    "tasks/list",
    "tasks/cancel",
    "tasks/result",
    "elicitation/create",
    "sampling/createMessage",
    "server/discover",
    "",
];

/// The protocol revisions a client may name.
pub const VERSIONS: &[&str] = &[
    "2025-03-26",
    "2025-06-18",
    "2025-11-25",
    "2026-07-28",
    "1.0",
];

/// The `initialize` request a session starts with.
pub fn initialize(id: u64, version: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"{version}","capabilities":{{}},"clientInfo":{{"name":"fuzz","version":"1"}}}}}}"#
    )
}

/// The notification that ends the handshake.
pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

#[derive(Arbitrary, Debug, Clone)]
pub enum Method {
    Known(u8),
    Other(Text),
}

impl Method {
    pub fn name(&self) -> String {
        match self {
            Method::Known(i) => METHODS[usize::from(*i) % METHODS.len()].to_owned(),
            Method::Other(text) => text.to_text(),
        }
    }
}

/// One message.
#[derive(Arbitrary, Debug, Clone)]
pub enum Message {
    /// Bytes, as they come.
    Raw(Vec<u8>),
    /// Any JSON.
    Json(Json),
    /// A request or (without an id) a notification.
    Request {
        id: Option<Json>,
        method: Method,
        params: Option<Json>,
    },
    /// `tools/call` of an inventory tool (or another name).
    Call {
        id: u32,
        tool: u8,
        other_name: Option<Text>,
        arguments: Json,
        meta: Option<Json>,
    },
    /// `initialize` at a revision.
    Initialize { id: u32, version: u8 },
}

impl Message {
    /// The message's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        match self {
            Message::Raw(bytes) => bytes.clone(),
            Message::Json(json) => json.to_text().into_bytes(),
            Message::Request { id, method, params } => {
                let mut text = String::from(r#"{"jsonrpc":"2.0""#);
                if let Some(id) = id {
                    text.push_str(",\"id\":");
                    text.push_str(&id.to_text());
                }
                text.push_str(",\"method\":");
                text.push_str(&Value::String(method.name()).to_string());
                if let Some(params) = params {
                    text.push_str(",\"params\":");
                    text.push_str(&params.to_text());
                }
                text.push('}');
                text.into_bytes()
            }
            Message::Call {
                id,
                tool,
                other_name,
                arguments,
                meta,
            } => {
                let name = match other_name {
                    Some(text) => text.to_text(),
                    None => TOOLS[usize::from(*tool) % TOOLS.len()].to_owned(),
                };
                let mut params = format!(
                    r#"{{"name":{},"arguments":{}"#,
                    Value::String(name),
                    arguments.to_text()
                );
                if let Some(meta) = meta {
                    params.push_str(",\"_meta\":");
                    params.push_str(&meta.to_text());
                }
                params.push('}');
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{params}}}"#)
                    .into_bytes()
            }
            Message::Initialize { id, version } => initialize(
                u64::from(*id),
                VERSIONS[usize::from(*version) % VERSIONS.len()],
            )
            .into_bytes(),
        }
    }
}

/// The ids of the `tools/call` requests in `bytes` (a message or a batch)
/// that may write: those of a tool that is not a read.
pub fn write_call_ids(bytes: &[u8], reads: &[&str]) -> Vec<Value> {
    let Ok(value) = serde_json::from_slice::<Value>(bytes) else {
        return Vec::new();
    };
    let messages = match value {
        Value::Array(items) => items,
        one => vec![one],
    };
    messages
        .into_iter()
        .filter(|m| m["method"] == "tools/call")
        .filter(|m| {
            !m["params"]["name"]
                .as_str()
                .is_some_and(|n| reads.contains(&n))
        })
        .filter_map(|m| m.get("id").cloned())
        .collect()
}
