//! What a request's span and metrics cost: the same `tools/call` (a write
//! answered with its lean envelope and a token) made over MCP, by rmcp's
//! client on an in-process pipe, with
//!
//! - nothing listening: no `tracing` subscriber, no `metrics` recorder;
//! - a subscriber: `tracing-subscriber`'s JSON formatter writing one line
//!   per request span (to a sink), as `--log-format json` would;
//! - the subscriber and a Prometheus recorder (`metrics-exporter-prometheus`).
//!
//! The three take turns, round after round, on one thread (the subscriber
//! and the recorder are set for that thread only), so the machine's noise
//! falls on all of them alike. Prints the median time per call of each.
//!
//! ```text
//! cargo run --release -p mcp-light --example telemetry_overhead [-- ROUNDS [MODE]]
//! ```
//!
//! `MODE` (`nothing`, `subscriber` or `recorder`) runs that one alone, for
//! a profiler or an instruction counter (`valgrind --tool=callgrind`).

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

#[derive(Clone, Copy)]
enum Listening {
    Nothing,
    Subscriber,
    SubscriberAndRecorder,
}

impl Listening {
    fn label(self) -> &'static str {
        match self {
            Listening::Nothing => "nothing listening",
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

fn main() {
    let rounds: usize = std::env::args()
        .nth(1)
        .map(|n| n.parse().expect("ROUNDS is a number"))
        .unwrap_or(30);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let subscriber = tracing_subscriber::fmt()
        .json()
        .with_span_events(FmtSpan::CLOSE)
        .with_writer(std::io::sink)
        .finish();
    let dispatch = tracing::Dispatch::new(subscriber);
    let recorder = metrics_exporter_prometheus::PrometheusBuilder::new().build_recorder();
    let handle = recorder.handle();

    let modes: Vec<Listening> = match std::env::args().nth(2).as_deref() {
        None => vec![
            Listening::Nothing,
            Listening::Subscriber,
            Listening::SubscriberAndRecorder,
        ],
        Some("nothing") => vec![Listening::Nothing],
        Some("subscriber") => vec![Listening::Subscriber],
        Some("recorder") => vec![Listening::SubscriberAndRecorder],
        Some(other) => panic!("MODE is nothing, subscriber or recorder, not {other:?}"),
    };
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); modes.len()];
    runtime.block_on(async {
        let server = Server::from_tools(tools![overhead_note_create])
            .build()
            .expect("the server builds");
        let client = connect(server).await;
        // Warm up: the first calls fill caches and the allocator.
        round(&client, &mut Vec::new()).await;
        for _ in 0..rounds {
            for (mode, times) in modes.iter().zip(times.iter_mut()) {
                match mode {
                    Listening::Nothing => round(&client, times).await,
                    Listening::Subscriber => {
                        let _tracing = tracing::dispatcher::set_default(&dispatch);
                        round(&client, times).await;
                    }
                    Listening::SubscriberAndRecorder => {
                        let _tracing = tracing::dispatcher::set_default(&dispatch);
                        let _metrics = metrics::set_default_local_recorder(&recorder);
                        round(&client, times).await;
                    }
                }
            }
        }
    });
    // The recorder saw the calls, when it listened.
    if modes.len() > 1 {
        assert!(
            handle.render().contains("mcp_light_calls"),
            "the recorder saw no call"
        );
    }

    println!("{rounds} rounds of {CALLS_PER_ROUND} calls per mode, taking turns; median per call:");
    println!();
    println!("| listening | per call | vs nothing |");
    println!("|---|---:|---:|");
    let base = median(&mut times[0]);
    for (mode, times) in modes.iter().zip(times.iter_mut()) {
        let median = median(times);
        let extra = median.as_nanos() as f64 - base.as_nanos() as f64;
        println!(
            "| {} | {:.1} µs | {:+.1} µs |",
            mode.label(),
            median.as_nanos() as f64 / 1e3,
            extra / 1e3
        );
    }
}
