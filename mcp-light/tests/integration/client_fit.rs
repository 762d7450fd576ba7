//! Every answer fits the client that reads it: a server called as OpenAI
//! Codex (`codex-mcp-client`, 10,000 bytes of `structuredContent`), as
//! Claude Code and as a client the table does not know, over the pipe
//! stdio carries and over Streamable HTTP, on protocol 2025-11-25 and on
//! 2026-07-28. Bulk writes of every size, reads whole, probed, paged,
//! summarized, filtered and `full`, `verify` on a 1,000-device bulk,
//! `describe` and a refusal: no answer's `structuredContent` is larger than
//! the client keeps, and what is read page by page is what was written.

#[cfg(feature = "http")]
use std::net::SocketAddr;
#[cfg(feature = "http")]
use std::time::Duration;

/// How long a response over HTTP may take: a 10,000-device bulk is in it.
#[cfg(feature = "http")]
const WAIT: Duration = Duration::from_secs(60);

use mcp_light::CallToolResult;
use mcp_light::prelude::*;
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation, ProtocolVersion,
};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Value, json};

#[cfg(feature = "http")]
use crate::fixtures::post_mcp;
use crate::fixtures::{Harness, new_devices, pipe};

/// The line to the server a test calls through.
enum Line {
    /// rmcp's client over the pipe stdio carries.
    Pipe(RunningService<RoleClient, ClientConfig>),
    /// Streamable HTTP: a 2025-11-25 session (its id), or 2026-07-28
    /// requests that each name the client.
    #[cfg(feature = "http")]
    Http {
        address: SocketAddr,
        session: Option<String>,
        client: &'static str,
    },
}

impl Line {
    async fn pipe(server: Server, client: &'static str, version: ProtocolVersion) -> Line {
        let info = ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new(client, "1.0.0"),
        );
        let running = rmcp::ClientServiceExt::serve_with_lifecycle(
            info,
            pipe(server.into_handler(Caller::Process)),
            crate::fixtures::lifecycle(version),
        )
        .await
        .expect("the client connects");
        Line::Pipe(running)
    }

    #[cfg(feature = "http")]
    async fn http(server: Server, client: &'static str, version: ProtocolVersion) -> Line {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(server.serve_http(listener, std::future::pending()));
        if version == ProtocolVersion::V_2026_07_28 {
            return Line::Http {
                address,
                session: None,
                client,
            };
        }
        let initialize = json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": client, "version": "1.0.0"},
            },
        });
        let (head, _) = post_mcp(address, &initialize.to_string(), &[], WAIT).await;
        let session = head
            .lines()
            .find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.eq_ignore_ascii_case("mcp-session-id")
                    .then(|| value.trim().to_owned())
            })
            .expect("the server opens a session");
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let headers = [
            ("Mcp-Session-Id", session.as_str()),
            ("MCP-Protocol-Version", "2025-11-25"),
        ];
        post_mcp(address, &initialized.to_string(), &headers, WAIT).await;
        Line::Http {
            address,
            session: Some(session),
            client,
        }
    }

    /// The result of calling `tool` with `arguments`.
    async fn call(&mut self, tool: &str, arguments: Value) -> CallToolResult {
        let Value::Object(arguments) = arguments else {
            panic!("arguments are an object")
        };
        match self {
            Line::Pipe(running) => running
                .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments))
                .await
                .expect("tools/call answers"),
            #[cfg(feature = "http")]
            Line::Http {
                address,
                session,
                client,
            } => {
                let mut params = json!({"name": tool, "arguments": arguments});
                let mut headers = vec![("Mcp-Method", "tools/call"), ("Mcp-Name", tool)];
                match session {
                    Some(session) => {
                        headers.push(("Mcp-Session-Id", session.as_str()));
                        headers.push(("MCP-Protocol-Version", "2025-11-25"));
                    }
                    None => {
                        params["_meta"] = json!({
                            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                            "io.modelcontextprotocol/clientCapabilities": {},
                            "io.modelcontextprotocol/clientInfo": {"name": client, "version": "1.0.0"},
                        });
                        headers.push(("MCP-Protocol-Version", "2026-07-28"));
                    }
                }
                let body =
                    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
                let (_, messages) = post_mcp(*address, &body.to_string(), &headers, WAIT).await;
                let answer = messages
                    .into_iter()
                    .find(|message| message["id"] == 1)
                    .expect("the call is answered");
                serde_json::from_value(answer["result"].clone()).expect("a tool result")
            }
        }
    }
}

/// What the client's model is handed: the compact JSON of
/// `structuredContent` (Codex's reading), else of the content array. It
/// must fit `keeps`; the answer's JSON comes back.
fn handed(result: &CallToolResult, keeps: usize, what: &str) -> Value {
    let handed = match &result.structured_content {
        Some(structured) => serde_json::to_string(structured).unwrap(),
        None => serde_json::to_string(&result.content).unwrap(),
    };
    assert!(
        handed.len() <= keeps,
        "{what}: {} bytes handed to a client that keeps {keeps}: {}",
        handed.len(),
        &handed[..handed.len().min(300)]
    );
    match &result.structured_content {
        Some(structured) if result.is_error != Some(true) => structured.clone(),
        _ => Value::String(result.content[0].as_text().unwrap().text.clone()),
    }
}

/// Every item behind `token`, read through `tool` page after page as the
/// answers say (their `page_size`, and their notes' next page), each
/// answer fitting `keeps`; `first` is a first page already answered.
async fn read_all(
    line: &mut Line,
    tool: &str,
    token: &str,
    extra: Value,
    keeps: usize,
    first: Option<Value>,
) -> Vec<Value> {
    let mut items = Vec::new();
    let mut page = first;
    let mut calls = 0;
    loop {
        let answer = match page.take() {
            Some(answer) => answer,
            None => {
                let mut args = json!({"continuation_token": token});
                args.as_object_mut()
                    .unwrap()
                    .extend(extra.as_object().unwrap().clone());
                let result = line.call(tool, args).await;
                handed(&result, keeps, "a page")
            }
        };
        calls += 1;
        assert!(calls < 10_000, "paging does not end");
        let got = answer["items"].as_array().expect("a page").clone();
        let (number, size) = (
            answer["page"].as_u64().unwrap(),
            answer["page_size"].as_u64().unwrap(),
        );
        assert_eq!(
            items.len() as u64,
            (number - 1) * size,
            "each page starts where the last ended"
        );
        items.extend(got);
        if answer["has_more"] != true {
            return items;
        }
        let mut next = extra.clone();
        next["page"] = json!(number + 1);
        next["page_size"] = json!(size);
        let mut args = json!({"continuation_token": token});
        args.as_object_mut()
            .unwrap()
            .extend(next.as_object().unwrap().clone());
        let result = line.call(tool, args).await;
        page = Some(handed(&result, keeps, "a page"));
    }
}

/// The ids, in order, of the devices `harness` holds from `from` on.
fn written_ids(harness: &Harness, from: usize) -> Vec<Value> {
    harness.inventory.devices.lock().unwrap()[from..]
        .iter()
        .map(|device| json!(device.id))
        .collect()
}

/// The whole discipline, through `line` to a server over `harness`, for a
/// client that keeps `keeps` bytes; bulk writes of `sizes` devices.
async fn exercise(line: &mut Line, harness: &Harness, keeps: usize, sizes: &[usize]) {
    // Writes of every size: a bounded envelope, every id reachable.
    for &n in sizes {
        let before = harness.device_count();
        let result = line
            .call("device_bulk_create", json!({"devices": new_devices(n)}))
            .await;
        let envelope = handed(&result, keeps, "a bulk envelope");
        let bytes = serde_json::to_string(&envelope).unwrap().len();
        assert!(
            bytes <= mcp_light::defaults::ENVELOPE_BYTES,
            "{n} devices: {envelope}"
        );
        assert_eq!(envelope["accepted"], n);
        let written = written_ids(harness, before);
        let token = envelope["continuation_token"].as_str().expect("a token");
        if let Some(ids) = envelope.get("ids") {
            assert_eq!(ids.as_array().unwrap(), &written, "{n} devices' ids");
        }
        let ids: Vec<Value> = read_all(
            line,
            "device_bulk_create",
            token,
            json!({"mode": "filtered", "filter_keys": ["id"]}),
            keeps,
            None,
        )
        .await
        .into_iter()
        .map(|item| item["id"].clone())
        .collect();
        assert_eq!(ids, written, "{n} devices, read back page by page");
    }

    // `verify` on a 1,000-device bulk: what fits, and the way to the rest.
    let before = harness.device_count();
    let result = line
        .call(
            "device_bulk_create",
            json!({"devices": new_devices(1000), "verify": true}),
        )
        .await;
    let answer = handed(&result, keeps, "verify on 1,000 devices");
    let token = answer["continuation_token"]
        .as_str()
        .expect("the rest behind a token")
        .to_owned();
    assert!(answer["note"].as_str().unwrap().contains("first page"));
    let echoed = read_all(
        line,
        "device_bulk_create",
        &token,
        json!({}),
        keeps,
        Some(answer),
    )
    .await;
    let written: Vec<Value> = harness.inventory.devices.lock().unwrap()[before..]
        .iter()
        .map(|device| serde_json::to_value(device).unwrap())
        .collect();
    assert_eq!(echoed, written, "the verify echo, page by page");

    // Reads: a plain read whole, then one over the client's size probed.
    let rows = handed(
        &line.call("row_list", json!({"n": 20, "width": 20})).await,
        keeps,
        "a small plain read",
    );
    assert_eq!(rows["result"].as_array().unwrap().len(), 20);

    let probe = handed(&line.call("device_list", json!({})).await, keeps, "a probe");
    let token = probe["continuation_token"].as_str().unwrap().to_owned();
    let all: Vec<Value> = harness
        .inventory
        .devices
        .lock()
        .unwrap()
        .iter()
        .map(|device| serde_json::to_value(device).unwrap())
        .collect();
    // The default page, as many as fit, page after page: every device.
    let paged = read_all(line, "device_list", &token, json!({}), keeps, None).await;
    assert_eq!(paged, all, "the list read a default page at a time");
    // 200 a page asked: what fits, and the call that reads on.
    let big = handed(
        &line
            .call(
                "device_list",
                json!({"continuation_token": token, "page_size": 200}),
            )
            .await,
        keeps,
        "page_size 200",
    );
    assert!(big["items"].as_array().unwrap().len() < 200);
    assert!(
        big["note"].as_str().unwrap().contains("ask page 2"),
        "{big}"
    );
    // `full` of a list too large: its first page, and how to go on.
    let full = handed(
        &line
            .call(
                "device_list",
                json!({"continuation_token": token, "mode": "full"}),
            )
            .await,
        keeps,
        "full",
    );
    assert!(full["note"].as_str().unwrap().contains("the whole result"));
    assert_eq!(full["items"][0], all[0]);
    // A summary, and a filtered page.
    let summary = handed(
        &line
            .call(
                "device_list",
                json!({"continuation_token": token, "mode": "summary"}),
            )
            .await,
        keeps,
        "summary",
    );
    assert_eq!(summary["count"], all.len());
    let filtered = read_all(
        line,
        "device_list",
        &token,
        json!({"mode": "filtered", "filter_keys": ["id", "name"]}),
        keeps,
        None,
    )
    .await;
    assert_eq!(filtered.len(), all.len());
    assert_eq!(
        filtered[7],
        json!({"id": all[7]["id"], "name": all[7]["name"]})
    );

    // `describe` and a refusal.
    let described = handed(
        &line
            .call(
                "inventory",
                json!({"resource": "device", "action": "bulk_create", "describe": true}),
            )
            .await,
        keeps,
        "describe",
    );
    assert!(described["params_schema"].is_object());
    let refused = line.call("device_bulk_create", json!({"devices": 5})).await;
    assert_eq!(refused.is_error, Some(true));
    let text = handed(&refused, keeps, "a refusal");
    assert!(text.as_str().unwrap().contains("devices"), "{text}");
}

/// Sizes of bulk writes: every size the contract names on the first line,
/// fewer on the others (each size is one more full pass of paging).
const EVERY_SIZE: [usize; 5] = [1, 60, 300, 1_000, 10_000];
const SOME_SIZES: [usize; 3] = [1, 60, 1_000];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn as_codex_over_stdio_on_2025_11_25_every_answer_fits_10_000_bytes() {
    let h = Harness::new();
    let mut line = Line::pipe(
        h.dispatched(),
        "codex-mcp-client",
        ProtocolVersion::V_2025_11_25,
    )
    .await;
    exercise(&mut line, &h, 10_000, &EVERY_SIZE).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn as_codex_over_stdio_on_2026_07_28_every_answer_fits_10_000_bytes() {
    let h = Harness::new();
    let mut line = Line::pipe(
        h.dispatched(),
        "codex-mcp-client",
        ProtocolVersion::V_2026_07_28,
    )
    .await;
    exercise(&mut line, &h, 10_000, &SOME_SIZES).await;
}

#[cfg(feature = "http")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn as_codex_over_http_on_2025_11_25_every_answer_fits_10_000_bytes() {
    let h = Harness::new();
    let mut line = Line::http(
        h.dispatched(),
        "codex-mcp-client",
        ProtocolVersion::V_2025_11_25,
    )
    .await;
    exercise(&mut line, &h, 10_000, &SOME_SIZES).await;
}

#[cfg(feature = "http")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn as_codex_over_http_on_2026_07_28_every_answer_fits_10_000_bytes() {
    let h = Harness::new();
    let mut line = Line::http(
        h.dispatched(),
        "codex-mcp-client",
        ProtocolVersion::V_2026_07_28,
    )
    .await;
    exercise(&mut line, &h, 10_000, &EVERY_SIZE).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn as_a_client_the_table_does_not_know_every_answer_fits_the_default() {
    let h = Harness::new();
    let mut line = Line::pipe(h.dispatched(), "some-agent", ProtocolVersion::V_2025_11_25).await;
    exercise(
        &mut line,
        &h,
        mcp_light::defaults::UNKNOWN_CLIENT_KEEPS,
        &SOME_SIZES,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn as_claude_code_every_answer_fits_within_its_limits() {
    let h = Harness::new();
    let mut line = Line::pipe(h.dispatched(), "claude-code", ProtocolVersion::V_2026_07_28).await;
    exercise(&mut line, &h, 40_000, &SOME_SIZES).await;
}

#[tokio::test]
async fn a_server_may_say_what_a_client_of_its_own_keeps() {
    let h = Harness::new();
    let clients = mcp_light::clients::ClientTable::new()
        .with_client("acme-agent", 4_000)
        .unwrap();
    let server = h
        .dispatched_builder()
        .with_clients(clients)
        .build()
        .unwrap();
    let mut line = Line::pipe(server, "acme-agent", ProtocolVersion::V_2025_11_25).await;
    exercise(&mut line, &h, 4_000, &[1, 60]).await;
}
