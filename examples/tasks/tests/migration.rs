//! The task manager's move, as a client and as a reader of the source see
//! it: the server written for rmcp (`tasks::before`) and the same server
//! moved to mcp-light (`tasks::after`), each over its own JSONL file,
//! side by side behind rmcp's own client.
//!
//! - every tool method's signature and body is token for token what it
//!   was: only the attributes changed;
//! - `tools/list` publishes what the author stated (`idempotent_hint =
//!   false` on the writes), and derives only what the author left out;
//! - the writes answer lean envelopes where rmcp echoed the task, the list
//!   a probe whose pages join into exactly what rmcp answered whole, a
//!   search's JSON text block its JSON, and the author's own errors pass
//!   through as they were; the two files end up the same.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_light::Server;
use mcp_light::transport::StdioOptions;
use quote::ToTokens;
use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult, Tool, ToolAnnotations};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Value, json};
use tasks::book::TaskBook;

type Client = RunningService<RoleClient, ()>;

const TOOLS: [&str; 7] = [
    "create_task",
    "list_tasks",
    "search_tasks",
    "get_task",
    "set_priority",
    "complete_task",
    "delete_task",
];

/// A fresh, empty task file of its own.
fn task_file() -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let path = std::env::temp_dir().join(format!(
        "mcp-light-tasks-{}-{}.jsonl",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_file(&path);
    path
}

/// The server before the move, over an in-memory pipe.
async fn before(path: &PathBuf) -> Client {
    let book = TaskBook::open(path).expect("the task file opens");
    let (client_io, server_io) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        let running = tasks::before::Tasks::new(book)
            .serve(server_io)
            .await
            .expect("the rmcp server starts");
        let _ = running.waiting().await;
    });
    ().serve(client_io).await.expect("the handshake succeeds")
}

/// The server after the move, over an in-memory pipe of JSON-RPC lines.
async fn after(path: &PathBuf) -> Client {
    let book = TaskBook::open(path).expect("the task file opens");
    let server = Server::from_registry()
        .with_state(tasks::after::Tasks::new(book))
        .build()
        .expect("the server builds");
    let (client_io, server_io) = tokio::io::duplex(1 << 20);
    let (reader, writer) = tokio::io::split(server_io);
    tokio::spawn(server.serve_lines(reader, writer, StdioOptions::new()));
    ().serve(client_io).await.expect("the handshake succeeds")
}

async fn call(client: &Client, tool: &str, args: Value) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(args);
    client.call_tool(params).await.expect("tools/call answers")
}

async fn refused(client: &Client, tool: &str, args: Value) -> String {
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(args);
    let error = client
        .call_tool(params)
        .await
        .expect_err("a JSON-RPC error");
    error.to_string()
}

fn structured(result: &CallToolResult) -> &Value {
    assert_ne!(result.is_error, Some(true), "{result:?}");
    result
        .structured_content
        .as_ref()
        .expect("structured content")
}

fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| block.as_text())
        .map(|block| block.text.as_str())
        .collect()
}

/// The tool methods of the one `impl` block of `source` that has them,
/// by name: each signature and body as tokens.
fn methods(source: &str) -> BTreeMap<String, (String, String)> {
    let file = syn::parse_file(source).expect("the source parses");
    let mut methods = BTreeMap::new();
    for item in file.items {
        let syn::Item::Impl(block) = item else {
            continue;
        };
        for item in block.items {
            let syn::ImplItem::Fn(method) = item else {
                continue;
            };
            let name = method.sig.ident.to_string();
            if TOOLS.contains(&name.as_str()) {
                let sig = method.sig.to_token_stream().to_string();
                let body = method.block.to_token_stream().to_string();
                methods.insert(name, (sig, body));
            }
        }
    }
    methods
}

#[test]
fn every_tool_keeps_its_signature_and_body() {
    let before = methods(include_str!("../src/before.rs"));
    let after = methods(include_str!("../src/after.rs"));
    assert_eq!(before.len(), 7, "{before:?}");
    assert_eq!(after, before);
    for (name, (sig, _)) in &after {
        assert!(
            sig.ends_with("Result < CallToolResult , ErrorData >"),
            "{name} builds its own result: {sig}"
        );
    }
}

fn by_name(tools: Vec<Tool>) -> BTreeMap<String, Tool> {
    tools.into_iter().map(|t| (t.name.to_string(), t)).collect()
}

/// Each hint `stated` gives, `published` gives the same.
fn keeps(stated: &ToolAnnotations, published: &ToolAnnotations, tool: &str) {
    let hints = |a: &ToolAnnotations| {
        [
            a.read_only_hint,
            a.destructive_hint,
            a.idempotent_hint,
            a.open_world_hint,
        ]
    };
    for (stated, published) in hints(stated).into_iter().zip(hints(published)) {
        if stated.is_some() {
            assert_eq!(published, stated, "{tool}: {published:?}");
        }
    }
}

#[tokio::test]
async fn the_authors_annotations_are_published() {
    let (old, new) = (task_file(), task_file());
    let before = by_name(before(&old).await.list_all_tools().await.unwrap());
    let after = by_name(after(&new).await.list_all_tools().await.unwrap());
    assert_eq!(
        after.keys().collect::<Vec<_>>(),
        before.keys().collect::<Vec<_>>()
    );
    for (name, old) in &before {
        let new = &after[name];
        assert_eq!(new.description, old.description, "{name}");
        let (stated, published) = (old.annotations.as_ref(), new.annotations.as_ref());
        keeps(stated.expect("stated"), published.expect("published"), name);
        // The call refuses what the arguments struct does not declare, and
        // the published schema says so.
        assert_eq!(
            new.input_schema.get("additionalProperties"),
            Some(&json!(false)),
            "{name}"
        );
    }
    for write in [
        "create_task",
        "set_priority",
        "complete_task",
        "delete_task",
    ] {
        let published = after[write].annotations.as_ref().unwrap();
        assert_eq!(published.idempotent_hint, Some(false), "{write}");
        assert_eq!(published.read_only_hint, None, "{write}");
    }
    // What the author left out is derived from the attribute.
    let create = after["create_task"].annotations.as_ref().unwrap();
    assert_eq!(create.destructive_hint, Some(false));
    assert_eq!(
        after["list_tasks"]
            .annotations
            .as_ref()
            .unwrap()
            .read_only_hint,
        Some(true)
    );
}

fn new_task(n: usize) -> Value {
    json!({
        "title": format!("task {n}: inspect site {}", n % 37),
        "priority": n % 4 + 1,
        "notes": format!("Bring the ladder and the spare parts for bay {n}; call the site lead first."),
    })
}

#[tokio::test]
async fn the_moved_server_answers_lean_and_keeps_every_task() {
    let (old_file, new_file) = (task_file(), task_file());
    let before = before(&old_file).await;
    let after = after(&new_file).await;
    const TASKS: usize = 501;

    // Each create: rmcp echoes the task, mcp-light confirms it.
    for n in 1..=TASKS {
        let echoed = call(&before, "create_task", new_task(n)).await;
        let confirmed = call(&after, "create_task", new_task(n)).await;
        assert_eq!(structured(&echoed)["id"], n);
        let envelope = structured(&confirmed);
        assert_eq!(envelope["id"], n, "{envelope}");
        assert_eq!(envelope["status_code"], 201, "{envelope}");
        assert!(envelope.get("notes").is_none(), "{envelope}");
    }

    // The list: rmcp answers all of it; mcp-light a probe whose pages
    // join into the same tasks.
    let whole = call(&before, "list_tasks", json!({})).await;
    let whole = structured(&whole)["tasks"].as_array().unwrap().clone();
    assert_eq!(whole.len(), TASKS);
    let probe = call(&after, "list_tasks", json!({})).await;
    let probe = structured(&probe).clone();
    let token = probe["continuation_token"].as_str().expect("a token");
    assert!(
        serde_json::to_string(&probe).unwrap().len() < 10_000,
        "{probe}"
    );
    // The default page holds what fits the client; the pages, in order,
    // hold every task once.
    let mut paged = Vec::new();
    for page in 1..=TASKS {
        let answer = call(
            &after,
            "list_tasks",
            json!({"continuation_token": token, "page": page}),
        )
        .await;
        let answer = structured(&answer);
        let items = answer["items"].as_array().expect("a page");
        assert!(!items.is_empty(), "{answer}");
        paged.extend(items.iter().cloned());
        if paged.len() >= TASKS {
            break;
        }
    }
    assert_eq!(paged.len(), whole.len());
    assert_eq!(paged, whole);

    // The summary counts the tasks of each priority, and the titles,
    // every one different, as unique rather than as one long value.
    let summary = call(
        &after,
        "list_tasks",
        json!({"continuation_token": token, "mode": "summary"}),
    )
    .await;
    let fields = &structured(&summary)["list"]["fields"];
    let per_priority: serde_json::Map<String, Value> = (1..=4)
        .map(|priority| {
            let count = whole.iter().filter(|t| t["priority"] == priority).count();
            (priority.to_string(), json!(count))
        })
        .collect();
    assert_eq!(fields["priority"]["values"], Value::Object(per_priority));
    assert_eq!(
        fields["title"],
        json!({"type": "string", "nulls": 0, "distinct": TASKS, "unique": true})
    );

    // A search answers one JSON text block: the JSON it carries (a list,
    // which structured content holds under `result`).
    let query = json!({"query": "task 42:"});
    let found = call(&before, "search_tasks", query.clone()).await;
    let found: Value = serde_json::from_str(&text(&found)).unwrap();
    let moved = call(&after, "search_tasks", query).await;
    assert_eq!(structured(&moved)["result"], found);
    assert_eq!(found.as_array().unwrap().len(), 1);

    // State changes answer envelopes; what they changed reads the same.
    let set = call(&after, "set_priority", json!({"id": 7, "priority": 1})).await;
    assert_eq!(structured(&set)["id"], 7);
    assert_eq!(structured(&set)["status_code"], 200);
    let done = call(&after, "complete_task", json!({"id": 8})).await;
    assert_eq!(structured(&done)["status_code"], 200);
    call(&before, "set_priority", json!({"id": 7, "priority": 1})).await;
    call(&before, "complete_task", json!({"id": 8})).await;
    for id in [7, 8] {
        let old = call(&before, "get_task", json!({"id": id})).await;
        let new = call(&after, "get_task", json!({"id": id})).await;
        assert_eq!(new, old, "get_task {id} answers as built");
    }

    // A delete confirms the id; the author's own error passes through.
    let deleted = call(&after, "delete_task", json!({"id": 9})).await;
    assert_eq!(
        structured(&deleted),
        &json!({"id": 9, "deleted": true, "status_code": 204})
    );
    call(&before, "delete_task", json!({"id": 9})).await;
    for tool in ["get_task", "delete_task"] {
        let old = call(&before, tool, json!({"id": 9})).await;
        let new = call(&after, tool, json!({"id": 9})).await;
        assert_eq!(old.is_error, Some(true));
        assert_eq!(new.is_error, Some(true), "{tool}: {new:?}");
        assert_eq!(text(&new), text(&old), "{tool}");
    }
    // An `ErrorData` answers as the JSON-RPC error it was.
    let bad = json!({"id": 7, "priority": 9});
    let old = refused(&before, "set_priority", bad.clone()).await;
    let new = refused(&after, "set_priority", bad).await;
    assert_eq!(new, old);
    assert!(new.contains("priority 9 is not one of 1, 2, 3, 4"), "{new}");

    // Nothing written was lost or changed.
    let old = std::fs::read_to_string(&old_file).unwrap();
    let new = std::fs::read_to_string(&new_file).unwrap();
    assert_eq!(old.lines().count(), TASKS - 1);
    assert_eq!(new, old);
    for file in [old_file, new_file] {
        let _ = std::fs::remove_file(file);
    }
}
