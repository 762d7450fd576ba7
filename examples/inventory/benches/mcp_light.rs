//! The costs of mcp-light, each measured beside what it replaces.
//!
//! ```sh
//! cargo bench -p inventory                       # everything, then the ratios
//! cargo bench -p inventory -- --measurement-time 2 --warm-up-time 1 write_path
//! ```
//!
//! Groups (see BENCHMARKS.md for the figures):
//!
//! * `write_path/<n>`: a flat bulk create answering its lean envelope with
//!   `ids` (outcome 2) through `Server::call`, against serializing the echo
//!   once with `serde_json::to_vec`; and the building blocks,
//!   counting `data_size` while serializing against `serde_json::to_vec`.
//! * `per_call/<tool>`: one `tools/call` through rmcp's `ServerHandler::call_tool`,
//!   on mcp-light's handler and on the same tool written with rmcp's
//!   `#[tool]` router; no transport. `add` is a synchronous function, run
//!   on the blocking pool; `mcp_light_inline` is the same tool declared
//!   `inline`.
//! * `store_put` and `redeem_full`, `redeem_paginated`: outcome 1 (a
//!   dispatcher-routed bulk create storing its result under a token) and
//!   redeeming that token, by result size, as throughput.
//! * `usage/<call>`: one `Server::call` with the usage report off and on
//!   (`ServerBuilder::with_usage_report`): a 60-device bulk create answering its
//!   `ids` envelope (the report counts the 42 KB echo), a one-device read,
//!   and a page redeemed from a 256 KB stored list (whose counts were
//!   remembered when it was stored).
//!
//! * `instructions` (run alone: `cargo bench -p inventory --bench mcp_light
//!   -- instructions`): instructions per `tools/call` of `add` on both
//!   handlers (mcp-light's also with `add` declared `inline`, and as an
//!   `async fn`), under valgrind's callgrind.
//!
//! After criterion, the binary measures the in-memory store's memory at
//! 10,000 entries with a counting allocator (switched on only for that, so it
//! costs the timings one relaxed load per allocation) and prints the ratios,
//! read from criterion's own estimates of this run.
//!
//! The devices are the inventory's (`inventory::model`, `inventory::fixture`);
//! the tools are the bench's own, so that the tool bodies cost next to
//! nothing and the measurement is of mcp-light.

use std::collections::HashMap;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, Instant, SystemTime};

use criterion::{BenchmarkId, Criterion, Throughput};
use inventory::fixture;
use inventory::model::{Device, NewDevice};
use mcp_light::prelude::*;
use mcp_light::store::MemoryStore;
use mcp_light::store::{ContinuationStore, Entry, MemoryStoreConfig, Origin, Owner};
use mcp_light::token::Token;
use mcp_light::transport::McpHandler;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{CallToolRequestParams, NumberOrString};
use rmcp::service::{Peer, RequestContext, RoleServer};
use serde_json::{Map, Value, json};
use tokio::runtime::Runtime;
use uuid::Uuid;

/// The creation time every measured device carries, so every run serializes
/// the same bytes.
const CREATED: &str = "2026-06-02T09:41:07.512734Z";

/// How many prebuilt devices the tools answer from: enough for a 1 MB result.
const PREBUILT: usize = 1_600;
/// The dispatcher's name.
const DISPATCHER: &str = "inventory";

/// The prebuilt devices, written once from the inventory fixture.
fn devices() -> &'static [Device] {
    static DEVICES: OnceLock<Vec<Device>> = OnceLock::new();
    DEVICES.get_or_init(|| {
        fixture::new_devices(PREBUILT, 1)
            .into_iter()
            .enumerate()
            .map(|(n, new)| {
                let id = Uuid::from_u128(0x4000_8000_0000_0000_0000_0000_0000_0000 | n as u128);
                new.into_device(id, CREATED.to_owned(), CREATED.to_owned())
            })
            .collect()
    })
}

fn device_by_id(id: Uuid) -> Option<&'static Device> {
    static INDEX: OnceLock<HashMap<Uuid, usize>> = OnceLock::new();
    let index = INDEX.get_or_init(|| {
        devices()
            .iter()
            .enumerate()
            .map(|(n, d)| (d.id, n))
            .collect()
    });
    index.get(&id).map(|&n| &devices()[n])
}

/// The first `count` prebuilt devices, as a bulk create answers them.
fn first(count: usize) -> Vec<&'static Device> {
    devices().iter().take(count).collect()
}

// ---- mcp-light's tools ----

/// Fetch one device.
#[mcp_tool(resource = "device", action = "retrieve")]
fn device_get(id: Uuid) -> Result<Device, ToolError> {
    device_by_id(id)
        .cloned()
        .ok_or_else(|| ToolError::new(format!("no device with id {id}")))
}

/// Create devices: answers `count` prebuilt ones, so the tool costs a
/// vector of pointers and the measurement is of mcp-light.
#[mcp_light(bulk_create, resource = "device", retrieve = device_get)]
fn device_bulk_create(count: usize) -> Vec<&'static Device> {
    first(count)
}

/// The sum of two numbers.
#[derive(Serialize, JsonSchema)]
struct Sum {
    sum: i64,
}

/// Add two numbers.
#[mcp_tool]
fn add(a: i64, b: i64) -> Sum {
    Sum { sum: a + b }
}

/// Add two numbers, on the worker that polls the call.
#[mcp_tool(inline)]
fn add_inline(a: i64, b: i64) -> Sum {
    Sum { sum: a + b }
}

/// Add two numbers, in an `async fn` that takes no `&Context`.
#[mcp_tool]
async fn add_async(a: i64, b: i64) -> Sum {
    Sum { sum: a + b }
}

// ---- the same two read tools, written with rmcp's own macros ----

mod by_hand {
    use rmcp::handler::server::router::tool::ToolRouter;
    use rmcp::handler::server::tool::ToolCallContext;
    use rmcp::handler::server::wrapper::{Json, Parameters};
    use rmcp::model::{ServerCapabilities, ServerConfig};
    use rmcp::{ErrorData, ServerHandler, tool, tool_handler, tool_router};
    use schemars::JsonSchema;
    use serde::Deserialize;
    use uuid::Uuid;

    use inventory::model::Device;

    use super::{Sum, device_by_id};

    #[derive(Deserialize, JsonSchema)]
    pub struct DeviceGet {
        id: Uuid,
    }

    #[derive(Deserialize, JsonSchema)]
    pub struct Add {
        a: i64,
        b: i64,
    }

    #[derive(Clone)]
    pub struct Devices {
        tool_router: ToolRouter<Devices>,
    }

    #[tool_router]
    impl Devices {
        pub fn new() -> Devices {
            Devices {
                tool_router: Self::tool_router(),
            }
        }

        /// Fetch one device.
        #[tool]
        fn device_get(
            &self,
            Parameters(DeviceGet { id }): Parameters<DeviceGet>,
        ) -> Result<Json<Device>, ErrorData> {
            device_by_id(id)
                .cloned()
                .map(Json)
                .ok_or_else(|| ErrorData::invalid_params(format!("no device with id {id}"), None))
        }

        /// Add two numbers.
        #[tool]
        fn add(&self, Parameters(Add { a, b }): Parameters<Add>) -> Json<Sum> {
            Json(Sum { sum: a + b })
        }
    }

    /// The router built once and kept in a field: the faster way to write it.
    #[tool_handler(router = self.tool_router)]
    impl ServerHandler for Devices {
        fn get_info(&self) -> ServerConfig {
            ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
        }
    }

    /// The same tools behind `#[tool_handler]`'s default, which builds the
    /// router on every call (`Self::tool_router()`), as rmcp's docs show it.
    #[derive(Clone)]
    pub struct DevicesDefault(pub Devices);

    impl ServerHandler for DevicesDefault {
        fn get_info(&self) -> ServerConfig {
            self.0.get_info()
        }

        // What `#[tool_handler]` expands to without `router = ...`.
        async fn call_tool(
            &self,
            request: rmcp::model::CallToolRequestParams,
            context: rmcp::service::RequestContext<rmcp::RoleServer>,
        ) -> Result<rmcp::model::CallToolResponse, ErrorData> {
            let tcc = ToolCallContext::new(&self.0, request, context);
            Devices::tool_router().call(tcc).await
        }
    }
}

// ---- the harness ----

/// With its timer, as `#[tokio::main]` builds it: the tool deadline arms
/// it for a tool that waits (a synchronous one, on the blocking pool).
/// The byte length of `value`'s compact JSON, counted while serializing,
/// as mcp-light counts an envelope's `data_size`: no buffer is built.
fn data_size(value: &impl serde::Serialize) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
            self.0 += buf.len();
            Ok(())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    serde_json::to_writer(&mut counter, value).unwrap();
    counter.0
}

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("a tokio runtime")
}

/// Times `iters` runs of `f` inside one `block_on`.
fn time_async<F, Fut>(rt: &Runtime, iters: u64, f: F) -> Duration
where
    F: Fn() -> Fut,
    Fut: std::future::Future,
{
    rt.block_on(async {
        let start = Instant::now();
        for _ in 0..iters {
            black_box(f().await);
        }
        start.elapsed()
    })
}

fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("arguments are objects"),
    }
}

/// A server of the bench's own tools: the inventory library's are linked in
/// too (and share names with these), but are not what is measured.
fn server() -> Server {
    builder().build().expect("the bench's tools register")
}

/// [`server`], not yet built.
fn builder() -> ServerBuilder {
    let own = tools![device_get, device_bulk_create, add, add_inline, add_async];
    Server::from_tools(own).with_dispatcher(DISPATCHER)
}

/// The answer's text: what the wire carries.
fn text(result: &mcp_light::CallToolResult) -> &str {
    assert_eq!(result.is_error, Some(false), "{result:?}");
    &result.content[0].as_text().expect("text content").text
}

/// a. The lean write path against serializing the echo once.
fn write_path(c: &mut Criterion, rt: &Runtime) {
    let server = server();
    for count in [60, 1_000] {
        let mut group = c.benchmark_group(format!("write_path/{count}"));
        let call_args = json!({ "count": count });
        // What the two sides answer, checked once.
        let lean =
            rt.block_on(server.call("device_bulk_create", call_args.clone(), Caller::Process));
        let envelope: Value = serde_json::from_str(text(&lean)).unwrap();
        let echo_len = serde_json::to_vec(&first(count)).unwrap().len();
        assert_eq!(envelope["data_size"], echo_len);
        assert_eq!(envelope["ids"].as_array().unwrap().len(), count);

        group.bench_function("server_call_ids", |b| {
            b.iter_custom(|iters| {
                time_async(rt, iters, || {
                    server.call("device_bulk_create", call_args.clone(), Caller::Process)
                })
            })
        });
        group.bench_function("tool_then_to_vec", |b| {
            b.iter(|| serde_json::to_vec(&first(black_box(count))).unwrap())
        });
        let out = first(count);
        group.bench_function("data_size", |b| b.iter(|| data_size(black_box(&out))));
        group.bench_function("to_vec", |b| {
            b.iter(|| serde_json::to_vec(black_box(&out)).unwrap())
        });
        // For scale: the same call asking for the echo (what an ordinary
        // MCP tool answers).
        let verify = json!({ "count": count, "verify": true });
        group.bench_function("server_call_verify", |b| {
            b.iter_custom(|iters| {
                time_async(rt, iters, || {
                    server.call("device_bulk_create", verify.clone(), Caller::Process)
                })
            })
        });
        group.finish();
    }
}

/// A server-side peer, taken from a real rmcp session over an in-process
/// pipe: `Peer::new` is private to rmcp, and a `RequestContext` needs one.
/// The calls measured never touch it.
fn server_peer(rt: &Runtime) -> Peer<RoleServer> {
    use rmcp::ServiceExt;

    rt.block_on(async {
        let (client_io, server_io) = tokio::io::duplex(64 * 1024);
        let handler = server().into_handler(Caller::Process);
        let (running, client) = tokio::join!(handler.serve(server_io), ().serve(client_io));
        let running = running.expect("the server side starts");
        let peer = running.peer().clone();
        // Keep both ends alive for the rest of the process.
        std::mem::forget(client.expect("the handshake succeeds"));
        std::mem::forget(running);
        peer
    })
}

/// b. One `tools/call` on mcp-light's handler and on rmcp's router.
fn per_call(c: &mut Criterion, rt: &Runtime) {
    let peer = server_peer(rt);
    let light: McpHandler = server().into_handler(Caller::Process);
    let rmcp = by_hand::Devices::new();
    let rmcp_default = by_hand::DevicesDefault(by_hand::Devices::new());
    let context = || RequestContext::new(NumberOrString::Number(1), peer.clone());
    let cases = [
        ("add", json!({"a": 2, "b": 40})),
        ("device_get", json!({"id": devices()[7].id})),
    ];
    for (tool, arguments) in cases {
        let params = CallToolRequestParams::new(tool).with_arguments(args(arguments));
        // Both answer the same text.
        let (a, b) = rt.block_on(async {
            (
                light.call_tool(params.clone(), context()).await.unwrap(),
                rmcp.call_tool(params.clone(), context()).await.unwrap(),
            )
        });
        let text_of = |r: rmcp::model::CallToolResponse| match r {
            rmcp::model::CallToolResponse::Complete(r) => {
                r.content[0].as_text().unwrap().text.clone()
            }
            other => panic!("not a result: {other:?}"),
        };
        let (a, b) = (text_of(a), text_of(b));
        assert_eq!(a, b, "{tool}");
        let default = rt.block_on(rmcp_default.call_tool(params.clone(), context()));
        assert_eq!(b, text_of(default.unwrap()), "{tool}");

        let mut group = c.benchmark_group(format!("per_call/{tool}"));
        group.bench_function("mcp_light", |b| {
            b.iter_custom(|iters| {
                time_async(rt, iters, || light.call_tool(params.clone(), context()))
            })
        });
        if tool == "add" {
            // The same tool `inline`: without the move to the blocking pool.
            let params = CallToolRequestParams::new("add_inline")
                .with_arguments(params.arguments.clone().unwrap_or_default());
            group.bench_function("mcp_light_inline", |b| {
                b.iter_custom(|iters| {
                    time_async(rt, iters, || light.call_tool(params.clone(), context()))
                })
            });
        }
        group.bench_function("rmcp_tool", |b| {
            b.iter_custom(|iters| {
                time_async(rt, iters, || rmcp.call_tool(params.clone(), context()))
            })
        });
        group.bench_function("rmcp_tool_default_handler", |b| {
            b.iter_custom(|iters| {
                time_async(rt, iters, || {
                    rmcp_default.call_tool(params.clone(), context())
                })
            })
        });
        group.finish();
    }
}

/// Where the per-call difference goes, in building blocks: parsing a
/// tool's arguments the way mcp-light does (`serde_path_to_error`, for the
/// field path in the error) against plain serde_json, by value and from a
/// borrowed `Value`.
fn args_parse(c: &mut Criterion) {
    #[derive(Deserialize)]
    struct Add {
        a: i64,
        b: i64,
    }
    #[derive(Deserialize)]
    struct BulkCreate {
        devices: Vec<NewDevice>,
    }
    let add = json!({"a": 2, "b": 40});
    let bulk = json!({ "devices": fixture::new_devices(60, 1) });
    // What is timed parses to what was sent.
    let parsed: Add = serde_json::from_value(add.clone()).unwrap();
    assert_eq!((parsed.a, parsed.b), (2, 40));
    let parsed: BulkCreate = serde_json::from_value(bulk.clone()).unwrap();
    assert_eq!(parsed.devices, fixture::new_devices(60, 1));

    fn cases<A: serde::de::DeserializeOwned>(c: &mut Criterion, name: &str, value: Value) {
        let mut group = c.benchmark_group(format!("args_parse/{name}"));
        group.bench_function("path_to_error", |b| {
            b.iter_batched(
                || value.clone(),
                |v| serde_path_to_error::deserialize::<_, A>(v).ok().unwrap(),
                criterion::BatchSize::SmallInput,
            )
        });
        group.bench_function("from_value", |b| {
            b.iter_batched(
                || value.clone(),
                |v| serde_json::from_value::<A>(v).unwrap(),
                criterion::BatchSize::SmallInput,
            )
        });
        group.bench_function("from_borrowed_value", |b| {
            b.iter(|| A::deserialize(black_box(&value)).unwrap())
        });
        group.finish();
    }
    cases::<Add>(c, "add", add);
    cases::<BulkCreate>(c, "bulk_create_60", bulk);
}

/// Where a redemption's time goes, in building blocks: parsing the stored
/// body into a `Value`, and writing the `Value` back out as the text content.
fn redeem_parts(c: &mut Criterion) {
    let body = serde_json::to_vec(&first(1_481)).unwrap();
    let value: Value = serde_json::from_slice(&body).unwrap();
    let mut group = c.benchmark_group("redeem_parts/1MB");
    group.throughput(Throughput::Bytes(body.len() as u64));
    group.bench_function("from_slice_value", |b| {
        b.iter(|| serde_json::from_slice::<Value>(black_box(&body)).unwrap())
    });
    group.bench_function("value_to_string", |b| {
        b.iter(|| black_box(&value).to_string())
    });
    group.bench_function("body_to_string", |b| {
        b.iter(|| String::from_utf8(black_box(&body).to_vec()).unwrap())
    });
    group.finish();
}

/// c. Outcome 1 and redemption, by result size.
fn store(c: &mut Criterion, rt: &Runtime) {
    let server = server();
    let per_device = serde_json::to_vec(&first(60)).unwrap().len() / 60;
    let sizes = [(1usize, "1KB"), (16, "16KB"), (256, "256KB"), (1024, "1MB")];
    let routed = |count: usize| json!({"resource": "device", "action": "bulk_create", "params": {"count": count}});
    let mint = |count: usize| -> (String, usize) {
        let envelope = rt.block_on(server.call(DISPATCHER, routed(count), Caller::Process));
        let envelope: Value = serde_json::from_str(text(&envelope)).unwrap();
        (
            envelope["continuation_token"].as_str().unwrap().to_owned(),
            envelope["data_size"].as_u64().unwrap() as usize,
        )
    };
    let count_for = |kb: usize| (kb * 1024).div_ceil(per_device);

    let mut group = c.benchmark_group("store_put");
    for (kb, label) in sizes {
        let count = count_for(kb);
        let (_, size) = mint(count);
        group.throughput(Throughput::Bytes(size as u64));
        let call = routed(count);
        group.bench_function(BenchmarkId::from_parameter(label), |b| {
            b.iter_custom(|iters| {
                time_async(rt, iters, || {
                    server.call(DISPATCHER, call.clone(), Caller::Process)
                })
            })
        });
    }
    group.finish();

    for mode in ["full", "paginated"] {
        let mut group = c.benchmark_group(format!("redeem_{mode}"));
        for (kb, label) in sizes {
            // Minted just before, so it is neither expired nor evicted.
            let (token, size) = mint(count_for(kb));
            group.throughput(Throughput::Bytes(size as u64));
            let call = json!({"continuation_token": token, "mode": mode});
            assert_eq!(
                rt.block_on(server.call(DISPATCHER, call.clone(), Caller::Process))
                    .is_error,
                Some(false)
            );
            group.bench_function(BenchmarkId::from_parameter(label), |b| {
                b.iter_custom(|iters| {
                    time_async(rt, iters, || {
                        server.call(DISPATCHER, call.clone(), Caller::Process)
                    })
                })
            });
        }
        group.finish();
    }
}

/// The usage report's cost per call: the same call, report off and on
/// (`cargo bench -p inventory --features usage`).
#[cfg(feature = "usage")]
fn usage(c: &mut Criterion, rt: &Runtime) {
    let off = server();
    let on = builder()
        .with_usage_report(true)
        .build()
        .expect("the bench's tools register");
    let per_device = serde_json::to_vec(&first(60)).unwrap().len() / 60;
    // A stored 256 KB list on each server, for a page redemption.
    let stored = |server: &Server| -> String {
        let routed = json!({"resource": "device", "action": "bulk_create",
                            "params": {"count": (256 * 1024usize).div_ceil(per_device)}});
        let envelope = rt.block_on(server.call(DISPATCHER, routed, Caller::Process));
        let envelope: Value = serde_json::from_str(text(&envelope)).unwrap();
        envelope["continuation_token"].as_str().unwrap().to_owned()
    };
    let (token_off, token_on) = (stored(&off), stored(&on));
    let page = |token: &str| json!({"continuation_token": token, "mode": "paginated"});
    let bulk = json!({"count": 60});
    let get = json!({"id": devices()[7].id});
    // Each call as the server without the report and the one with it get it.
    let calls = [
        (
            "bulk_create_60_ids",
            "device_bulk_create",
            [bulk.clone(), bulk],
        ),
        ("device_get", "device_get", [get.clone(), get]),
        (
            "redeem_page_256KB",
            DISPATCHER,
            [page(&token_off), page(&token_on)],
        ),
    ];
    for (name, tool, [args_off, args_on]) in &calls {
        // Both sides answer the same; only `on` carries the report.
        let (plain, reported) = (
            rt.block_on(off.call(tool, args_off.clone(), Caller::Process)),
            rt.block_on(on.call(tool, args_on.clone(), Caller::Process)),
        );
        assert_eq!(text(&plain).len(), text(&reported).len(), "{name}");
        assert!(plain.meta.is_none());
        assert!(
            reported
                .meta
                .as_ref()
                .is_some_and(|meta| meta.0.contains_key(mcp_light::telemetry::USAGE_META_KEY))
        );

        let mut group = c.benchmark_group(format!("usage/{name}"));
        for (side, server, call) in [("off", &off, args_off), ("on", &on, args_on)] {
            group.bench_function(side, |b| {
                b.iter_custom(|iters| {
                    time_async(rt, iters, || {
                        server.call(tool, call.clone(), Caller::Process)
                    })
                })
            });
        }
        group.finish();
    }
}

// ---- d. the store's memory ----

mod heap {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};

    static ON: AtomicBool = AtomicBool::new(false);
    static HELD: AtomicIsize = AtomicIsize::new(0);

    /// Counts the bytes allocated and not freed while switched on; off, it
    /// costs one relaxed load per allocation.
    struct Counting;

    fn add(bytes: isize) {
        if ON.load(Ordering::Relaxed) {
            HELD.fetch_add(bytes, Ordering::Relaxed);
        }
    }

    // SAFETY: every method forwards to `System` unchanged; counting touches
    // only atomics, which never allocate.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            let ptr = unsafe { System.alloc(layout) };
            if !ptr.is_null() {
                add(layout.size() as isize);
            }
            ptr
        }

        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            let ptr = unsafe { System.alloc_zeroed(layout) };
            if !ptr.is_null() {
                add(layout.size() as isize);
            }
            ptr
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            unsafe { System.dealloc(ptr, layout) };
            add(-(layout.size() as isize));
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            let new = unsafe { System.realloc(ptr, layout, new_size) };
            if !new.is_null() {
                add(new_size as isize - layout.size() as isize);
            }
            new
        }
    }

    #[global_allocator]
    static COUNTING: Counting = Counting;

    /// The bytes allocated and not freed since `count` was called, by `f`,
    /// and what `f` returned. Run it on one thread with nothing else going.
    pub fn count<T>(f: impl FnOnce() -> T) -> (isize, T) {
        HELD.store(0, Ordering::SeqCst);
        ON.store(true, Ordering::SeqCst);
        let out = f();
        ON.store(false, Ordering::SeqCst);
        (HELD.load(Ordering::SeqCst), out)
    }
}

/// One row of the memory table.
struct MemoryRow {
    body: usize,
    entries: usize,
    accounted: usize,
    heap: isize,
}

/// d. What 10,000 entries cost the in-memory store, accounted and real.
fn store_memory(rt: &Runtime) -> Vec<MemoryRow> {
    const ENTRIES: usize = 10_000;
    let mut rows = Vec::new();
    for body in [1_024, 16 * 1_024] {
        let tokens: Vec<Token> = (0..ENTRIES).map(|_| Token::mint().unwrap()).collect();
        // Counted: the store itself, and each entry as outcome 1 builds it
        // (a body serialized into a buffer, then shared).
        let (heap, store) = heap::count(|| {
            let store = MemoryStore::new(
                MemoryStoreConfig::new()
                    .with_max_bytes(usize::MAX)
                    .unwrap()
                    .with_max_entries(ENTRIES),
            );
            rt.block_on(async {
                for token in &tokens {
                    let owner = Owner::new("process", DISPATCHER);
                    let entry = Entry::new(owner, Origin::BulkWrite, vec![b'x'; body]);
                    store.put(token, entry).await.unwrap();
                }
            });
            store
        });
        assert_eq!(store.len(), ENTRIES);
        rows.push(MemoryRow {
            body,
            entries: ENTRIES,
            accounted: store.bytes(),
            heap,
        });
    }
    rows
}

// ---- the ratios, from criterion's estimates of this run ----

/// Criterion's estimate of one benchmark's time per iteration, in ns, if it
/// ran in this process.
fn estimate(dir: &Path, id: &str, since: SystemTime) -> Option<f64> {
    let path = dir.join(id).join("new").join("estimates.json");
    let modified = std::fs::metadata(&path).ok()?.modified().ok()?;
    if modified < since {
        return None;
    }
    let estimates: Value = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    let pick = |name: &str| estimates[name]["point_estimate"].as_f64();
    pick("slope").or_else(|| pick("mean"))
}

/// Where criterion keeps its results, found as criterion itself finds it:
/// `CRITERION_HOME`, else `criterion/` in the target directory, which is the
/// workspace's (asked of cargo), not this package's.
fn criterion_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .or_else(cargo_target_dir)
        .unwrap_or_else(|| PathBuf::from("target"));
    target.join("criterion")
}

/// The target directory `cargo metadata` reports, when run under cargo.
fn cargo_target_dir() -> Option<PathBuf> {
    let output = std::process::Command::new(std::env::var_os("CARGO")?)
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .output()
        .ok()?;
    let metadata: Value = serde_json::from_slice(&output.stdout).ok()?;
    metadata["target_directory"].as_str().map(PathBuf::from)
}

fn print_summary(dir: &Path, since: SystemTime, memory: &[MemoryRow]) {
    let time = |ns: f64| {
        if ns >= 1e6 {
            format!("{:.3} ms", ns / 1e6)
        } else if ns >= 1e3 {
            format!("{:.2} µs", ns / 1e3)
        } else {
            format!("{ns:.0} ns")
        }
    };
    println!("\n## Ratios (this run)\n");
    println!("| comparison | mcp-light | baseline | ratio | target |");
    println!("|---|---:|---:|---:|---|");
    let ratio = |what: &str, ours: &str, theirs: &str, target: Option<f64>| {
        let (Some(a), Some(b)) = (estimate(dir, ours, since), estimate(dir, theirs, since)) else {
            println!("| {what} | not run | not run | | |");
            return;
        };
        let r = a / b;
        let verdict = match target {
            Some(t) if r <= t => format!("≤ {t:.2}× met"),
            Some(t) => format!("≤ {t:.2}× MISSED"),
            None => String::new(),
        };
        println!(
            "| {what} | {} | {} | {r:.3}× | {verdict} |",
            time(a),
            time(b)
        );
    };
    for count in [60, 1_000] {
        let g = format!("write_path_{count}");
        ratio(
            &format!("{count} devices: `Server::call` lean (ids) vs tool + `to_vec`"),
            &format!("{g}/server_call_ids"),
            &format!("{g}/tool_then_to_vec"),
            Some(1.05),
        );
        ratio(
            &format!("{count} devices: `data_size` vs `to_vec`"),
            &format!("{g}/data_size"),
            &format!("{g}/to_vec"),
            Some(1.05),
        );
        ratio(
            &format!("{count} devices: `Server::call` lean vs `verify: true` echo"),
            &format!("{g}/server_call_ids"),
            &format!("{g}/server_call_verify"),
            None,
        );
    }
    for tool in ["add", "device_get"] {
        let g = format!("per_call_{tool}");
        ratio(
            &format!("`call_tool` {tool}: mcp-light vs rmcp `#[tool]`, router kept in a field"),
            &format!("{g}/mcp_light"),
            &format!("{g}/rmcp_tool"),
            Some(1.10),
        );
        ratio(
            &format!("`call_tool` {tool}: mcp-light vs rmcp `#[tool]`, `#[tool_handler]` default"),
            &format!("{g}/mcp_light"),
            &format!("{g}/rmcp_tool_default_handler"),
            Some(1.10),
        );
    }

    println!("\n## The usage report's cost per call (this run)\n");
    if !cfg!(feature = "usage") {
        println!("Not built: `cargo bench -p inventory --features usage` measures it.\n");
    }
    println!("| call | report on | report off | on / off |");
    println!("|---|---:|---:|---:|");
    for name in ["bulk_create_60_ids", "device_get", "redeem_page_256KB"] {
        let g = format!("usage_{name}");
        match (
            estimate(dir, &format!("{g}/on"), since),
            estimate(dir, &format!("{g}/off"), since),
        ) {
            (Some(on), Some(off)) => println!(
                "| `{name}` | {} | {} | {:.1}× |",
                time(on),
                time(off),
                on / off
            ),
            _ => println!("| `{name}` | not run | not run | |"),
        }
    }

    println!("\n## Store throughput (this run)\n");
    println!("| result | put (outcome 1) | redeem full | redeem paginated |");
    println!("|---|---:|---:|---:|");
    for label in ["1KB", "16KB", "256KB", "1MB"] {
        let cell = |group: &str| {
            estimate(dir, &format!("{group}/{label}"), since)
                .map(&time)
                .unwrap_or_else(|| "not run".to_owned())
        };
        println!(
            "| {label} | {} | {} | {} |",
            cell("store_put"),
            cell("redeem_full"),
            cell("redeem_paginated")
        );
    }
    println!("(criterion prints the same as MiB/s under `thrpt`.)");

    println!("\n## Building blocks (this run)\n");
    println!("| benchmark | time |");
    println!("|---|---:|");
    for id in [
        "args_parse_add/path_to_error",
        "args_parse_add/from_value",
        "args_parse_add/from_borrowed_value",
        "args_parse_bulk_create_60/path_to_error",
        "args_parse_bulk_create_60/from_value",
        "args_parse_bulk_create_60/from_borrowed_value",
        "redeem_parts_1MB/from_slice_value",
        "redeem_parts_1MB/value_to_string",
        "redeem_parts_1MB/body_to_string",
    ] {
        if let Some(ns) = estimate(dir, id, since) {
            println!("| `{id}` | {} |", time(ns));
        }
    }

    println!("\n## Store memory at 10,000 entries\n");
    println!(
        "| body | accounted (`bytes()`) | accounted per body byte | heap held | heap per body byte | heap overhead per entry |"
    );
    println!("|---:|---:|---:|---:|---:|---:|");
    for row in memory {
        let stored = (row.body * row.entries) as f64;
        println!(
            "| {} B | {:.1} MiB | {:.3} | {:.1} MiB | {:.3} | {:.0} B |",
            row.body,
            row.accounted as f64 / (1 << 20) as f64,
            row.accounted as f64 / stored,
            row.heap as f64 / (1 << 20) as f64,
            row.heap as f64 / stored,
            (row.heap as f64 - stored) / row.entries as f64,
        );
    }
}

/// c. Instructions per `tools/call` of `add`, mcp-light against rmcp's
/// `#[tool]`, counted by valgrind's callgrind: a ratio that does not move
/// with the machine's load. The binary runs itself under callgrind with
/// `--count-calls <handler> <n>`, for 0 and for [`COUNTED_CALLS`] calls of
/// each handler, and divides the difference, so set-up costs cancel out.
mod instructions {
    use std::hint::black_box;
    use std::process::Command;

    use mcp_light::Caller;
    use rmcp::handler::server::ServerHandler;
    use rmcp::model::{CallToolRequestParams, NumberOrString};
    use rmcp::service::RequestContext;
    use serde_json::json;

    use super::{args, by_hand, runtime, server, server_peer};

    pub const COUNTED_CALLS: u64 = 20_000;

    /// Makes `calls` calls of `add` on one handler: `light`, `light_inline`
    /// (`add` declared `inline`), `light_async` (an `async fn`) or `rmcp`.
    pub fn count_calls(handler: &str, calls: u64) {
        let rt = runtime();
        let peer = server_peer(&rt);
        let light = server().into_handler(Caller::Process);
        let rmcp = by_hand::Devices::new();
        let tool = match handler {
            "light_inline" => "add_inline",
            "light_async" => "add_async",
            _ => "add",
        };
        let params =
            CallToolRequestParams::new(tool).with_arguments(args(json!({"a": 2, "b": 40})));
        rt.block_on(async {
            for _ in 0..calls {
                let context = RequestContext::new(NumberOrString::Number(1), peer.clone());
                let answer = match handler {
                    "light" | "light_inline" | "light_async" => {
                        light.call_tool(params.clone(), context).await
                    }
                    _ => rmcp.call_tool(params.clone(), context).await,
                };
                black_box(answer.expect("an answer"));
            }
        });
    }

    /// The size in bytes of the future `call_tool` answers, on each
    /// handler: what a transport moves (into the task it spawns for the
    /// request, for one) before the call's first poll.
    fn future_sizes() -> (usize, usize) {
        let rt = runtime();
        let peer = server_peer(&rt);
        let light = server().into_handler(Caller::Process);
        let rmcp = by_hand::Devices::new();
        let params =
            CallToolRequestParams::new("add").with_arguments(args(json!({"a": 2, "b": 40})));
        let context = || RequestContext::new(NumberOrString::Number(1), peer.clone());
        let light = std::mem::size_of_val(&light.call_tool(params.clone(), context()));
        let rmcp = std::mem::size_of_val(&rmcp.call_tool(params, context()));
        (light, rmcp)
    }

    /// Prints instructions per call of each handler, or says why not.
    pub fn report() {
        if Command::new("valgrind").arg("--version").output().is_err() {
            println!("instructions: valgrind is not installed; nothing counted");
            return;
        }
        let me = std::env::current_exe().expect("this binary's path");
        let count = |handler: &str, calls: u64| -> u64 {
            let out = Command::new("valgrind")
                .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
                .arg(&me)
                .args(["--count-calls", handler, &calls.to_string()])
                .output()
                .expect("valgrind runs");
            let log = String::from_utf8_lossy(&out.stderr);
            log.lines()
                .find_map(|line| line.split("Collected : ").nth(1))
                .and_then(|n| n.trim().parse().ok())
                .unwrap_or_else(|| panic!("no instruction count in valgrind's output:\n{log}"))
        };
        let per_call =
            |handler: &str| (count(handler, COUNTED_CALLS) - count(handler, 0)) / COUNTED_CALLS;
        let (light, inline, in_async, rmcp) = (
            per_call("light"),
            per_call("light_inline"),
            per_call("light_async"),
            per_call("rmcp"),
        );
        println!("\n## Instructions per tools/call (callgrind, {COUNTED_CALLS} calls of `add`)\n");
        println!("| handler | instructions | ratio |");
        println!("|---|---:|---:|");
        println!("| rmcp `#[tool]`, router in a field | {rmcp} | 1.00× |");
        println!(
            "| mcp-light `#[mcp_tool]` (run on the blocking pool) | {light} | {:.2}× |",
            light as f64 / rmcp as f64
        );
        println!(
            "| mcp-light `#[mcp_tool(inline)]` | {inline} | {:.2}× |",
            inline as f64 / rmcp as f64
        );
        println!(
            "| mcp-light `#[mcp_tool] async fn`, no `&Context` | {in_async} | {:.2}× |",
            in_async as f64 / rmcp as f64
        );
        let (light, rmcp) = future_sizes();
        println!(
            "\nThe future `call_tool` answers: mcp-light {light} bytes, rmcp `#[tool]` {rmcp} bytes."
        );
    }
}

fn main() {
    let argv: Vec<String> = std::env::args().collect();
    if let Some(at) = argv.iter().position(|a| a == "--count-calls") {
        let calls = argv
            .get(at + 2)
            .and_then(|n| n.parse().ok())
            .expect("a number of calls");
        instructions::count_calls(&argv[at + 1], calls);
        return;
    }
    // Not a criterion filter: counting runs valgrind, which no timing needs.
    if argv.iter().any(|a| a == "instructions") {
        instructions::report();
        return;
    }
    let since = SystemTime::now();
    let rt = runtime();
    let memory = store_memory(&rt);
    let dir = criterion_dir();
    let mut c = Criterion::default()
        .output_directory(&dir)
        .configure_from_args();
    write_path(&mut c, &rt);
    per_call(&mut c, &rt);
    store(&mut c, &rt);
    args_parse(&mut c);
    redeem_parts(&mut c);
    #[cfg(feature = "usage")]
    usage(&mut c, &rt);
    c.final_summary();
    print_summary(&dir, since, &memory);
}
