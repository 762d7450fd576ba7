//! What two hostile reads cost the inventory, by `Server::call`: a
//! `filtered` redemption with 100,000 unknown `filter_keys` over 3,000
//! stored devices (and what another client waits meanwhile), and a
//! `device_list` whose result is larger than the store's cap.
//!
//! ```text
//! cargo run --release -p inventory --features bench-tools --example hostile -- filter
//! cargo run --release -p inventory --features bench-tools --example hostile -- oversize
//! ```
//!
//! Each case runs in a process of its own, so the peak resident set it
//! prints (`VmHWM`) is that case's alone.

use std::time::{Duration, Instant};

use inventory::db::{self, Db};
use inventory::fixture;
use mcp_light::{CallToolResult, Caller, Server};
use serde_json::{Value, json};

/// The answer's size as a client reads it: its text and
/// `structuredContent`, serialized.
fn answer_bytes(result: &CallToolResult) -> usize {
    serde_json::to_vec(result).map_or(0, |bytes| bytes.len())
}

/// A field of `/proc/self/status` in kB (`VmHWM`, `VmRSS`).
fn status_kb(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn seeded(devices: usize) -> Server {
    let db = Db::open(None).unwrap();
    db.run_now(|conn| {
        db::ensure_sites(conn, fixture::new_sites())?;
        db::create_devices(conn, fixture::new_devices(devices, 1))
    })
    .unwrap();
    inventory::server(db).build().unwrap()
}

fn session(name: &str) -> Caller {
    Caller::Session(name.into())
}

/// 3,000 devices stored; two redemptions with 100,000 unknown keys at
/// once, and another client's `site_list` meanwhile.
async fn filter() {
    let server = seeded(3_000);
    let probe = server.call("device_list", json!({}), session("a")).await;
    let token = probe.structured_content.unwrap()["continuation_token"].clone();
    let keys: Vec<Value> = (0..100_000)
        .map(|i| Value::from(format!("no_such_field_{i}")))
        .collect();
    let asked = json!({"continuation_token": token, "mode": "filtered", "filter_keys": keys});

    let started = Instant::now();
    let alone = server
        .call("device_list", asked.clone(), session("a"))
        .await;
    let one = started.elapsed();

    // One such call on the runtime's one worker, and another client's
    // `site_list` sent from another thread 5 ms after it: how long that
    // client waits for its answer.
    let flooding = server.clone();
    let flood =
        tokio::spawn(async move { flooding.call("device_list", asked, session("a")).await });
    let handle = tokio::runtime::Handle::current();
    let (sites, site_wait) = tokio::task::spawn_blocking(move || {
        std::thread::sleep(Duration::from_millis(5));
        let asked_at = Instant::now();
        let sites = handle
            .block_on(
                handle
                    .spawn(async move { server.call("site_list", json!({}), session("b")).await }),
            )
            .unwrap();
        (sites, asked_at.elapsed())
    })
    .await
    .unwrap();
    flood.await.unwrap();
    assert_eq!(sites.is_error, Some(false));
    println!("| filter_keys: 3,000 records, 100,000 unknown keys | value |");
    println!("|---|---:|");
    println!("| one call | {:.1} ms |", one.as_secs_f64() * 1e3);
    println!("| its error | {} B |", answer_bytes(&alone));
    println!(
        "| another client's site_list during one | {:.1} ms |",
        site_wait.as_secs_f64() * 1e3
    );
}

/// 100,000 devices (about 71 MB of JSON) against the default 64 MiB store.
async fn oversize() {
    let server = seeded(100_000);
    let (rss_before, peak_before) = (status_kb("VmRSS"), status_kb("VmHWM"));
    // Until the answer is bytes a transport could send.
    let started = Instant::now();
    let answer = server.call("device_list", json!({}), session("a")).await;
    let bytes = answer_bytes(&answer);
    let took = started.elapsed();
    drop(answer);
    println!("| device_list over the store's cap (100,000 devices) | value |");
    println!("|---|---:|");
    println!(
        "| time to the answer's bytes | {:.2} s |",
        took.as_secs_f64()
    );
    println!("| answer | {:.3} MB |", bytes as f64 / 1e6);
    println!(
        "| RSS before the call / peak before / peak after | {} / {} / {} MB |",
        rss_before / 1024,
        peak_before / 1024,
        status_kb("VmHWM") / 1024
    );
}

fn main() {
    // One worker for `filter`, so a call that holds it shows in the other
    // client's wait; two for `oversize`, as a small server has.
    let case = std::env::args().nth(1).unwrap_or_default();
    let workers = if case == "filter" { 1 } else { 2 };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers)
        .enable_all()
        .build()
        .unwrap();
    match case.as_str() {
        "filter" => runtime.block_on(filter()),
        "oversize" => runtime.block_on(oversize()),
        _ => eprintln!("usage: hostile filter|oversize"),
    }
}
