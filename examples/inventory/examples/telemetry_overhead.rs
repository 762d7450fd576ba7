//! What a request's span and metrics cost: the same `tools/call` (a write
//! answered with its lean envelope) made over MCP, by rmcp's client on an
//! in-process pipe, with
//!
//! - nothing listening: no `tracing` subscriber, no `metrics` recorder;
//! - `tracing-subscriber`'s registry alone: spans made and closed, nothing
//!   written (what the spans themselves cost);
//! - a subscriber: `tracing-subscriber`'s JSON formatter writing one line
//!   per request span (to a sink), as `--log-format json` would;
//! - the subscriber and a Prometheus recorder (`metrics-exporter-prometheus`).
//!
//! Each runs in a process of its own, which installs its subscriber and
//! recorder globally at start, as an application does (a subscriber set
//! for one thread in a process that served calls without one would find
//! the callsites' interest already cached). The three take turns, process
//! after process, so the machine's noise falls on all of them alike.
//! Prints the median time per call of each.
//!
//! ```text
//! cargo run --release -p inventory --features bench-tools --example telemetry_overhead [-- TURNS [MODE]]
//! ```
//!
//! `MODE` (`nothing`, `registry`, `subscriber` or `recorder`) runs that one alone, in
//! this process, `TURNS` rounds of calls: for a profiler or an instruction
//! counter (`valgrind --tool=callgrind`).

use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcp_light::prelude::*;
use mcp_light::{Caller, Server, tools};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use serde_json::json;
use tracing_subscriber::fmt::format::FmtSpan;

/// A note as written.
#[derive(Debug, Serialize, JsonSchema, LightKey)]
struct Note {
    id: u64,
    title: String,
    body: String,
}

/// A note to write.
#[derive(Debug, Deserialize, JsonSchema)]
struct NewNote {
    title: String,
    body: String,
}

/// Writes a note.
#[mcp_light(create, resource = "note")]
async fn overhead_note_create(note: NewNote) -> Note {
    Note {
        id: 7,
        title: note.title,
        body: note.body,
    }
}

const CALLS_PER_ROUND: usize = 200;

/// Rounds of calls one process makes, after its warm-up round.
const ROUNDS_PER_PROCESS: usize = 10;

/// The lines the subscriber wrote: its output, counted and dropped.
static LINES: AtomicUsize = AtomicUsize::new(0);

/// The subscriber's writer: counts the lines, keeps nothing.
struct LineCounter;

impl std::io::Write for LineCounter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let lines = bytes.iter().filter(|byte| **byte == b'\n').count();
        LINES.fetch_add(lines, Ordering::Relaxed);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[derive(Clone, Copy)]
enum Listening {
    Nothing,
    /// `tracing-subscriber`'s registry alone: every span made, entered,
    /// recorded and closed, nothing written.
    Registry,
    Subscriber,
    SubscriberAndRecorder,
}

impl Listening {
    const ALL: [Listening; 4] = [
        Listening::Nothing,
        Listening::Registry,
        Listening::Subscriber,
        Listening::SubscriberAndRecorder,
    ];

    fn arg(self) -> &'static str {
        match self {
            Listening::Nothing => "nothing",
            Listening::Registry => "registry",
            Listening::Subscriber => "subscriber",
            Listening::SubscriberAndRecorder => "recorder",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Listening::Nothing => "nothing listening",
            Listening::Registry => "a subscriber keeping spans (registry)",
            Listening::Subscriber => "JSON log subscriber",
            Listening::SubscriberAndRecorder => "subscriber + Prometheus recorder",
        }
    }
}

async fn connect(server: Server) -> RunningService<RoleClient, ()> {
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    let handler = server.into_handler(Caller::Process);
    tokio::spawn(async move {
        let running = handler.serve(server_io).await.expect("the server starts");
        let _ = running.waiting().await;
    });
    ().serve(client_io).await.expect("the handshake succeeds")
}

/// `CALLS_PER_ROUND` calls; each one's time.
async fn round(client: &RunningService<RoleClient, ()>, times: &mut Vec<Duration>) {
    let body = "x".repeat(2_000);
    for _ in 0..CALLS_PER_ROUND {
        let args = json!({"note": {"title": "overhead", "body": body}});
        let serde_json::Value::Object(args) = args else {
            unreachable!()
        };
        let params = CallToolRequestParams::new("overhead_note_create").with_arguments(args);
        let started = Instant::now();
        let answer = client.call_tool(params).await.expect("tools/call answers");
        times.push(started.elapsed());
        assert_eq!(answer.is_error, Some(false), "{answer:?}");
    }
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort_unstable();
    times[times.len() / 2]
}

/// Runs `rounds` rounds of calls listened to as `mode` says, in this
/// process; the median time per call.
fn run_alone(mode: Listening, rounds: usize) -> Duration {
    let mut prometheus = None;
    if matches!(mode, Listening::Registry) {
        tracing::subscriber::set_global_default(tracing_subscriber::registry())
            .expect("the first subscriber");
    }
    if matches!(
        mode,
        Listening::Subscriber | Listening::SubscriberAndRecorder
    ) {
        let subscriber = tracing_subscriber::fmt()
            .json()
            .with_span_events(FmtSpan::CLOSE)
            .with_writer(|| LineCounter)
            .finish();
        tracing::subscriber::set_global_default(subscriber).expect("the first subscriber");
    }
    if matches!(mode, Listening::SubscriberAndRecorder) {
        let recorder = metrics_exporter_prometheus::PrometheusBuilder::new().build_recorder();
        prometheus = Some(recorder.handle());
        metrics::set_global_recorder(recorder).expect("the first recorder");
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let mut times = Vec::new();
    runtime.block_on(async {
        let server = Server::from_tools(tools![overhead_note_create])
            .build()
            .expect("the server builds");
        let client = connect(server).await;
        // Warm up: the first calls fill caches and the allocator.
        round(&client, &mut Vec::new()).await;
        for _ in 0..rounds {
            round(&client, &mut times).await;
        }
    });
    // What listened saw every call.
    let lines = LINES.load(Ordering::Relaxed);
    match mode {
        Listening::Nothing | Listening::Registry => assert_eq!(lines, 0),
        _ => assert!(
            lines >= times.len(),
            "{lines} lines for {} calls",
            times.len()
        ),
    }
    if let Some(prometheus) = prometheus {
        assert!(
            prometheus.render().contains("mcp_light_calls"),
            "the recorder saw no call"
        );
    }
    median(&mut times)
}

fn main() {
    let turns: usize = std::env::args()
        .nth(1)
        .map(|n| n.parse().expect("TURNS is a number"))
        .unwrap_or(6);
    if let Some(mode) = std::env::args().nth(2) {
        let mode = Listening::ALL
            .into_iter()
            .find(|listening| listening.arg() == mode)
            .unwrap_or_else(|| {
                panic!("MODE is nothing, registry, subscriber or recorder, not {mode:?}")
            });
        println!("median_ns {}", run_alone(mode, turns).as_nanos());
        return;
    }
    let this = std::env::current_exe().expect("this program's path");
    let mut medians: Vec<Vec<Duration>> = vec![Vec::new(); Listening::ALL.len()];
    for _ in 0..turns {
        for (mode, medians) in Listening::ALL.iter().zip(medians.iter_mut()) {
            let out = Command::new(&this)
                .args([&ROUNDS_PER_PROCESS.to_string(), mode.arg()])
                .output()
                .expect("the example runs itself");
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert!(out.status.success(), "{}: {stdout}", mode.arg());
            let nanos: u64 = stdout
                .lines()
                .find_map(|line| line.strip_prefix("median_ns "))
                .and_then(|n| n.parse().ok())
                .unwrap_or_else(|| panic!("no median from {}: {stdout}", mode.arg()));
            medians.push(Duration::from_nanos(nanos));
        }
    }
    println!(
        "{turns} turns of a process per setting, each {ROUNDS_PER_PROCESS} rounds of \
         {CALLS_PER_ROUND} calls; the median of the processes' medians per call:"
    );
    println!();
    println!("| listening | per call | vs nothing |");
    println!("|---|---:|---:|");
    let base = median(&mut medians[0]);
    for (mode, medians) in Listening::ALL.iter().zip(medians.iter_mut()) {
        let median = median(medians);
        let extra = median.as_nanos() as f64 - base.as_nanos() as f64;
        println!(
            "| {} | {:.1} µs | {:+.1} µs |",
            mode.label(),
            median.as_nanos() as f64 / 1e3,
            extra / 1e3
        );
    }
}
