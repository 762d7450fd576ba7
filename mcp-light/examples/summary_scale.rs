//! What summarizing a heavy read costs at 100,000 rows: a heavy tool
//! streams tasks (a 4-valued priority, a status, a flag, 60 URLs alike in
//! their first 40 characters, 2,500 comments alike in their first 40, 100
//! notes of 200 bytes, an id and an estimate, all different), the server
//! stores them and counts their values on the way, and the summary is then
//! read.
//!
//! ```text
//! cargo run -p mcp-light --release --example summary_scale
//! ```
//!
//! Prints, over fifteen runs (the fastest and the median), the time of the read that stores and summarizes
//! the rows, the time of the `summary` that reads it back, the heap's peak
//! above where it started (a counting allocator) and the summary's size,
//! then the summary of the first run.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcp_light::prelude::*;
use mcp_light::{CallToolResult, ItemStream};
use serde_json::{Value, json};

/// The system allocator, counting the bytes held and their peak.
struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's layout, handed on unchanged.
        let block = unsafe { System.alloc(layout) };
        if !block.is_null() {
            let held = HELD.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(held, Ordering::Relaxed);
        }
        block
    }

    unsafe fn dealloc(&self, block: *mut u8, layout: Layout) {
        // SAFETY: a block this allocator gave, with its layout.
        unsafe { System.dealloc(block, layout) };
        HELD.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

const ROWS: usize = 100_000;
const RUNS: usize = 15;

/// One row: what a task tracker answers.
#[derive(Serialize)]
struct Task {
    id: u64,
    priority: u8,
    status: &'static str,
    done: bool,
    device_url: String,
    comment: String,
    note: String,
    estimate_hours: f64,
}

fn task(i: usize) -> Task {
    const STATUSES: [&str; 3] = ["open", "in_progress", "closed"];
    Task {
        id: i as u64,
        priority: (i % 4) as u8 + 1,
        status: STATUSES[i % STATUSES.len()],
        done: i % 3 == 2,
        device_url: format!(
            "https://netbox.example.com/api/dcim/devices/{}/",
            1000 + i % 60
        ),
        comment: format!(
            "Checked the uplink on the rack after the maintenance window, ticket {}",
            i % 2_500
        ),
        note: format!(
            "{} Replaced the optics in slot {} and reseated the cable.",
            "After the outage the on-call engineer walked the row, found the \
             link flapping, and opened a change to swap the transceiver.",
            i % 100
        ),
        estimate_hours: i as f64 / 7.0,
    }
}

/// `n` tasks, read on the blocking pool.
#[mcp_heavy]
fn tasks(n: usize) -> ItemStream<Task> {
    ItemStream::blocking(move |sender| {
        for i in 0..n {
            sender.send(task(i))?;
        }
        Ok(())
    })
}

fn text_of(result: &CallToolResult) -> String {
    result.content[0]
        .as_text()
        .expect("a text answer")
        .text
        .clone()
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let server = Server::from_registry().build().expect("one tool");
    let mut runs = Vec::new();
    let mut first = None;
    for _ in 0..RUNS {
        let base = HELD.load(Ordering::Relaxed);
        PEAK.store(base, Ordering::Relaxed);
        let started = Instant::now();
        let probe = server
            .call("tasks", json!({"n": ROWS}), Caller::Process)
            .await;
        let read = started.elapsed();
        let probe: Value = serde_json::from_str(&text_of(&probe)).expect("a probe");
        let token = probe["continuation_token"].clone();
        assert!(token.is_string(), "no token: {probe}");
        let started = Instant::now();
        let summary = server
            .call(
                "tasks",
                json!({"continuation_token": token, "mode": "summary"}),
                Caller::Process,
            )
            .await;
        let summarized = started.elapsed();
        let peak = PEAK.load(Ordering::Relaxed) - base;
        let summary = text_of(&summary);
        runs.push((read, summarized, peak, summary.len()));
        first.get_or_insert(summary);
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let fastest_median = |mut figures: Vec<f64>| {
        figures.sort_by(f64::total_cmp);
        (figures[0], figures[figures.len() / 2])
    };
    let (read_min, read_median) = fastest_median(runs.iter().map(|run| ms(run.0)).collect());
    let (summary_min, summary_median) = fastest_median(runs.iter().map(|run| ms(run.1)).collect());
    let (peak_min, peak_median) = fastest_median(
        runs.iter()
            .map(|run| run.2 as f64 / (1 << 20) as f64)
            .collect(),
    );
    println!("{RUNS} runs of {ROWS} rows | fastest | median");
    println!("---|---:|---:");
    println!("read, stored and summarized | {read_min:.1} ms | {read_median:.1} ms");
    println!("`summary` read back | {summary_min:.2} ms | {summary_median:.2} ms");
    println!("heap peak above start | {peak_min:.1} MiB | {peak_median:.1} MiB");
    println!("summary size | {} bytes |", runs[0].3);
    let summary: Value = serde_json::from_str(&first.expect("five runs")).expect("a summary");
    println!("{}", serde_json::to_string_pretty(&summary).expect("JSON"));
}
