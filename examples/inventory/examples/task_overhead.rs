//! What answering as a task costs: a 60-device bulk create through the
//! `inventory` dispatcher, answered inline against answered as a task
//! (`--task-after 0`) and followed with `tasks/get` until it completed, on
//! the memory store and on Redis, in one run.
//!
//! ```text
//! cargo run --release -p inventory --features bench-tools,redis --example task_overhead
//! REDIS_URL=redis://127.0.0.1:6379 cargo run --release -p inventory --features bench-tools,redis --example task_overhead
//! CALLS=50 cargo run --release -p inventory --features bench-tools,redis --example task_overhead
//! ```
//!
//! The client is rmcp's own, on protocol 2026-07-28, over an in-process
//! pipe: what is measured is the server and its store, not a network. A
//! task is polled back to back, with no wait between polls, so its figure
//! is the least a client following it can see: its creation, the tool
//! on a task of the runtime, the result written to the store and read back.
//! Without `REDIS_URL` it starts its own `redis-server` (no persistence) on
//! a free port of 127.0.0.1 and stops it at the end.

#[path = "common/own_redis.rs"]
mod own_redis;

use own_redis::start_redis;

use std::sync::Arc;
use std::time::{Duration, Instant};

use inventory::db::{self, Db};
use inventory::fixture;
use mcp_light::store::{ContinuationStore, MemoryStore, RedisStore, RedisStoreConfig};
use mcp_light::tasks::TaskConfig;
use mcp_light::{Caller, Server};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, GetTaskParams,
    Implementation, ProtocolVersion, TaskPayload,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::{Value, json};

/// A 2026-07-28 client, declaring the tasks extension or not.
#[derive(Clone)]
struct Client {
    tasks: bool,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let capabilities = if self.tasks {
            ClientCapabilities::builder().enable_tasks().build()
        } else {
            ClientCapabilities::default()
        };
        ClientConfig::new(capabilities, Implementation::new("task-overhead", "1"))
    }
}

async fn connect(server: &Server, tasks: bool) -> RunningService<RoleClient, Client> {
    let (client_io, server_io) = tokio::io::duplex(1 << 20);
    let handler = server.clone().into_handler(Caller::Process);
    tokio::spawn(async move {
        let running = handler.serve(server_io).await.expect("the server starts");
        let _ = running.waiting().await;
    });
    Client { tasks }
        .serve_with_lifecycle(
            client_io,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("the client connects")
}

fn bulk_create(run: usize) -> CallToolRequestParams {
    let devices: Vec<Value> = fixture::new_devices(60, run as u64)
        .into_iter()
        .enumerate()
        .map(|(i, device)| {
            let mut device = serde_json::to_value(device).unwrap();
            device["name"] = json!(format!("overhead-{run}-{i}"));
            device
        })
        .collect();
    let Value::Object(arguments) = json!({
        "resource": "device",
        "action": "bulk_create",
        "params": {"devices": devices},
    }) else {
        unreachable!()
    };
    CallToolRequestParams::new(inventory::DISPATCHER).with_arguments(arguments)
}

/// One bulk create to its envelope: inline, or as a task polled until it
/// completed (with how many `tasks/get` that took).
async fn once(client: &RunningService<RoleClient, Client>, run: usize) -> (Duration, usize) {
    let started = Instant::now();
    match client.call_tool_once(bulk_create(run)).await.unwrap() {
        CallToolResponse::Complete(result) => {
            assert_eq!(result.is_error, Some(false), "{result:?}");
            (started.elapsed(), 0)
        }
        CallToolResponse::Task(task) => {
            let mut polls = 0;
            loop {
                polls += 1;
                let state = client
                    .get_task(GetTaskParams::new(task.task.task_id.clone()))
                    .await
                    .unwrap();
                match state.task.payload {
                    TaskPayload::Completed { result } => {
                        assert!(result.get("isError") != Some(&json!(true)), "{result:?}");
                        return (started.elapsed(), polls);
                    }
                    TaskPayload::Working => {}
                    other => panic!("the task ended {other:?}"),
                }
            }
        }
        other => panic!("{other:?}"),
    }
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// The median of `calls` bulk creates on `store`, inline and as tasks,
/// alternated so both see the same database size.
async fn measure(name: &str, store: Arc<dyn ContinuationStore>, calls: usize) {
    let db = Db::open(None).unwrap();
    db.run_now(|conn| db::ensure_sites(conn, fixture::new_sites()))
        .unwrap();
    let server = inventory::server(db)
        .with_shared_store(Some(store))
        .with_task_config(TaskConfig::new().with_after(Duration::ZERO))
        .build()
        .unwrap();
    let inline_client = connect(&server, false).await;
    let task_client = connect(&server, true).await;
    // Warm up both paths.
    once(&inline_client, 0).await;
    once(&task_client, 1).await;
    let (mut inline, mut tasked, mut polls) = (Vec::new(), Vec::new(), 0);
    for run in 0..calls {
        inline.push(once(&inline_client, 2 + 2 * run).await.0);
        let (time, took) = once(&task_client, 3 + 2 * run).await;
        tasked.push(time);
        polls += took;
    }
    let (inline, tasked) = (median(inline), median(tasked));
    println!(
        "| {name} | {:.3} ms | {:.3} ms | +{:.3} ms ({:.2}x) | {:.1} |",
        inline.as_secs_f64() * 1e3,
        tasked.as_secs_f64() * 1e3,
        (tasked.as_secs_f64() - inline.as_secs_f64()) * 1e3,
        tasked.as_secs_f64() / inline.as_secs_f64(),
        polls as f64 / calls as f64,
    );
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let calls: usize = std::env::var("CALLS")
        .ok()
        .and_then(|calls| calls.parse().ok())
        .unwrap_or(200);
    let (url, _own) = match std::env::var("REDIS_URL") {
        Ok(url) => (url, None),
        Err(_) => {
            let (url, own) = start_redis(&std::env::temp_dir());
            (url, Some(own))
        }
    };
    let redis = RedisStore::open(&url, RedisStoreConfig::new()).unwrap();
    redis.ping().await.expect("Redis answers");

    println!("## A 60-device bulk create through the dispatcher: inline against as a task\n");
    println!("Median of {calls} calls each, to the envelope; a task polled back to back.\n");
    println!("| store | inline | as a task | task overhead | `tasks/get` per task |");
    println!("|---|---:|---:|---:|---:|");
    measure("memory", Arc::new(MemoryStore::default()), calls).await;
    measure("Redis", Arc::new(redis), calls).await;
}
