//! Heavy reads at scale: the real `inventory` binary over a SQLite file (or
//! a PostgreSQL database) of N devices, driven over stdio by the official
//! rmcp client.
//!
//! ```text
//! cargo build --release -p inventory --features redis,postgres --bin inventory
//! cargo run --release -p inventory --features bench-tools --example heavy_scale                      # 20,000 devices
//! cargo run --release -p inventory --features bench-tools --example heavy_scale -- --devices 1000000
//! cargo run --release -p inventory --features bench-tools --example heavy_scale -- --devices 1000000 --postgres
//! ```
//!
//! It seeds a file in a temporary directory with `inventory --seed N` (its
//! wall time and peak RSS) — or, with `--postgres`, a PostgreSQL cluster of
//! its own (`initdb` and `pg_ctl` from /usr/lib/postgresql/*/bin, on a free
//! port; run as the `postgres` user when run as root), whose `device_list`
//! streams the driver's rows — then, for each store — memory, and Redis when
//! `redis-server` is on the PATH (its own, on a free port) — starts a fresh
//! server, so its peak RSS (VmHWM, which cannot be reset) belongs to this
//! measurement alone, and times: the `device_list` probe without a filter
//! (which streams every row into the store), page 4000 of 200 items (or
//! the last page), and the `summary`, whose counts per site and per status
//! must add up to N. On SQLite it first reads and serializes every device
//! in its own process, with no MCP in between (`serde_json::to_writer` to a
//! sink): the floor any server pays for this answer, printed beside each
//! probe as the probe's time over it. The binary is the one built beside
//! this example (`target/release/inventory`), or `$INVENTORY_BIN`. Figures
//! are printed as Markdown tables.

#[path = "common/own_redis.rs"]
mod own_redis;
#[path = "../tests/support/pg_server.rs"]
mod pg_server;

use own_redis::start_redis;

use std::ffi::{OsStr, OsString};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use inventory::db::{Db, DeviceFilter};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Map, Value, json};

/// The page the benchmark reads, at most.
const PAGE: u64 = 4000;
const PAGE_SIZE: u64 = 200;

fn main() {
    let mut devices: u64 = 20_000;
    let mut postgres = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--postgres" => postgres = true,
            "--devices" => {
                devices = args
                    .next()
                    .and_then(|n| n.replace('_', "").parse().ok())
                    .expect("--devices N, a count");
            }
            other => {
                panic!("unknown argument {other}; usage: heavy_scale [--devices N] [--postgres]")
            }
        }
    }
    let binary = inventory_binary();
    let dir = std::env::temp_dir().join(format!("heavy_scale-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let _cleanup = RemoveOnDrop(dir.clone());
    let file = dir.join("inventory.db");
    let pg = if postgres {
        match pg_server::PgServer::start("heavy-scale") {
            Some(pg) => Some(pg),
            None => return,
        }
    } else {
        None
    };
    let db: OsString = match &pg {
        Some(pg) => pg.url().into(),
        None => file.clone().into(),
    };
    let (on, what) = match pg {
        Some(_) => ("PostgreSQL", "URL"),
        None => ("SQLite", "FILE"),
    };

    println!("## Heavy reads at {devices} devices on {on}\n");
    let seed = seed(&binary, &db, devices);
    println!("| seed | devices | wall time | peak RSS (VmHWM) | file |");
    println!("|---|---:|---:|---:|---:|");
    println!(
        "| `inventory --db {what} --seed {devices}` | {devices} | {:.1} s | {:.1} MiB | {} |",
        seed.wall.as_secs_f64(),
        mib(seed.peak_kib),
        match pg {
            Some(_) => "—".to_owned(),
            None => format!(
                "{:.0} MiB",
                std::fs::metadata(&file).unwrap().len() as f64 / (1 << 20) as f64
            ),
        },
    );
    println!();
    // The floor: what any server pays to read the rows and write them as
    // JSON, with nothing of MCP in between (SQLite, in this process).
    let floor = pg.is_none().then(|| print_split(&file, devices));

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut rows = vec![runtime.block_on(measure(&binary, &db, devices, "memory", &[]))];
    match which("redis-server") {
        Some(_) => {
            let (url, _redis) = start_redis(&dir);
            let args = ["--store".to_owned(), url];
            rows.push(runtime.block_on(measure(&binary, &db, devices, "redis", &args)));
        }
        None => eprintln!("heavy_scale: no redis-server on the PATH; measuring memory only"),
    }

    println!(
        "| {on}, store | probe (token) | stored | server RSS idle | peak during probe | peak − idle | \
         page of {PAGE_SIZE} | summary (counts add up) | RSS after |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for row in &rows {
        println!(
            "| {} | {:.2} s ({}{}) | {:.0} MB | {:.1} MiB | {:.1} MiB | **{:.1} MiB** | {:.2} ms (page {}) | {:.1} ms ({}) | {:.1} MiB |",
            row.store,
            row.probe.as_secs_f64(),
            if row.token { "token" } else { "NO TOKEN" },
            match floor {
                Some(floor) => format!(
                    ", {:.2}× the floor",
                    row.probe.as_secs_f64() / floor.as_secs_f64()
                ),
                None => String::new(),
            },
            row.stored_bytes as f64 / 1e6,
            mib(row.idle_kib),
            mib(row.peak_kib),
            mib(row.peak_kib.saturating_sub(row.idle_kib)),
            row.page.as_secs_f64() * 1e3,
            row.page_number,
            row.summary.as_secs_f64() * 1e3,
            if row.counts_add_up { "yes" } else { "NO" },
            mib(row.after_kib),
        );
        assert!(
            row.token && row.counts_add_up,
            "{}: no token, or the counts are off",
            row.store
        );
    }
}

/// Prints where a probe's time goes on SQLite, read in this process;
/// returns the floor, the time to read every row and serialize it.
fn print_split(db: &Path, devices: u64) -> Duration {
    let [read, serialize, via_value] = split(db, devices);
    println!("| where a probe's time goes (in this process, no server) | time |");
    println!("|---|---:|");
    println!(
        "| SQLite: read and decode every row (`db::for_each_device`) | {:.2} s |",
        read.as_secs_f64()
    );
    println!(
        "| … and serialize each device to JSON (`serde_json::to_writer`, to a sink) | {:.2} s |",
        serialize.as_secs_f64()
    );
    println!(
        "| … but through a `serde_json::Value` first (`to_value`, then `to_writer`) | {:.2} s |",
        via_value.as_secs_f64()
    );
    println!();
    serialize
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// The `inventory` binary: `$INVENTORY_BIN`, or the one cargo built into
/// the target directory this example runs from.
fn inventory_binary() -> PathBuf {
    if let Some(path) = std::env::var_os("INVENTORY_BIN") {
        return path.into();
    }
    let me = std::env::current_exe().unwrap();
    // target/<profile>/examples/heavy_scale → target/<profile>/inventory
    let binary = me
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .join("inventory");
    assert!(
        binary.exists(),
        "{} is missing: build it first with `cargo build --release -p inventory --features redis --bin inventory`, \
         or set INVENTORY_BIN",
        binary.display()
    );
    binary
}

/// `status`'s `field` (VmRSS, VmHWM) of process `pid`, in KiB; 0 once it
/// has exited.
fn proc_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

/// The time to read every device of `db`, and to read and serialize
/// them (the median of three runs each): the part of a probe the tool and
/// serde take, before the framework computes the preview and summary and
/// writes the store.
fn split(db: &Path, devices: u64) -> [Duration; 3] {
    let db = Db::open(Some(db)).unwrap();
    let filter = DeviceFilter::default();
    let run = |serialize: u8| {
        let started = Instant::now();
        let mut count = 0;
        let _: ControlFlow<()> = db
            .run_now(|conn| {
                inventory::db::for_each_device(conn, &filter, |device| {
                    match serialize {
                        0 => {}
                        1 => serde_json::to_writer(std::io::sink(), &device).unwrap(),
                        _ => {
                            let value = serde_json::to_value(&device).unwrap();
                            serde_json::to_writer(std::io::sink(), &value).unwrap();
                        }
                    }
                    count += 1;
                    ControlFlow::Continue(())
                })
            })
            .unwrap();
        assert_eq!(count, devices);
        started.elapsed()
    };
    // Each the median of three, taken in turn: on a shared machine one
    // run alone moves by a third.
    let mut times: [Vec<Duration>; 3] = Default::default();
    for _ in 0..3 {
        for (mode, times) in times.iter_mut().enumerate() {
            times.push(run(mode as u8));
        }
    }
    times.map(median)
}

struct Seed {
    wall: Duration,
    peak_kib: u64,
}

/// Seeds `db` with `devices` devices by the binary itself: it seeds, then
/// finds stdin closed and exits. Its VmHWM is read until it exits.
fn seed(binary: &Path, db: &OsStr, devices: u64) -> Seed {
    let started = Instant::now();
    let mut child = Command::new(binary)
        .arg("--db")
        .arg(db)
        .args(["--seed", &devices.to_string()])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the inventory binary starts");
    let pid = child.id();
    let mut peak_kib = 0;
    loop {
        peak_kib = peak_kib.max(proc_kib(pid, "VmHWM"));
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let wall = started.elapsed();
    let output = child.wait_with_output().unwrap();
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(
        said.contains(&format!("seeded the 4 fixture sites and {devices} devices")),
        "the seed failed:\n{said}"
    );
    Seed { wall, peak_kib }
}

struct Row {
    store: &'static str,
    probe: Duration,
    token: bool,
    stored_bytes: u64,
    idle_kib: u64,
    peak_kib: u64,
    after_kib: u64,
    page: Duration,
    page_number: u64,
    summary: Duration,
    counts_add_up: bool,
}

type Client = RunningService<RoleClient, ()>;

async fn call(client: &Client, arguments: Value) -> (Duration, Value) {
    let Value::Object(arguments) = arguments else {
        unreachable!("arguments are objects")
    };
    let params = CallToolRequestParams::new("device_list").with_arguments(arguments);
    let started = Instant::now();
    let result = client.call_tool(params).await.expect("tools/call answers");
    let took = started.elapsed();
    assert_ne!(result.is_error, Some(true), "{result:?}");
    (took, result.structured_content.expect("structured content"))
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn counts(summary: &Value, field: &str) -> Map<String, Value> {
    summary["fields"][field]["values"]
        .as_object()
        .unwrap_or_else(|| panic!("no value counts for {field}: {summary}"))
        .clone()
}

/// One fresh server over `db` with `extra` arguments, measured.
async fn measure(
    binary: &Path,
    db: &OsStr,
    devices: u64,
    store: &'static str,
    extra: &[String],
) -> Row {
    let mut child = tokio::process::Command::new(binary)
        .arg("--db")
        .arg(db)
        // The page measured is 200 devices read by range (about 140 KB), and
        // the summary untrimmed: a client that keeps them (this one names no
        // entry of the table).
        .args(["--unknown-client-bytes", "1048576"])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("the inventory binary starts");
    let pid = child.id().unwrap();
    let stdout = child.stdout.take().unwrap();
    let stdin = child.stdin.take().unwrap();
    let client = ().serve((stdout, stdin)).await.expect("the handshake succeeds");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let idle_kib = proc_kib(pid, "VmRSS");

    let (probe, answer) = call(&client, json!({})).await;
    let peak_kib = proc_kib(pid, "VmHWM");
    let token = answer["continuation_token"].as_str().map(str::to_owned);
    let stored_bytes = answer["total_size"].as_u64().unwrap_or(0);
    let (mut page, mut page_number, mut summary, mut counts_add_up) =
        (Duration::ZERO, 0, Duration::ZERO, false);
    if let Some(token) = &token {
        page_number = PAGE.min(devices.div_ceil(PAGE_SIZE)).max(1);
        let mut times = Vec::new();
        for _ in 0..7 {
            let arguments = json!({"continuation_token": token, "mode": "paginated",
                                   "page": page_number, "page_size": PAGE_SIZE});
            let (took, answer) = call(&client, arguments).await;
            let items = answer["items"].as_array().expect("a page");
            let expected = (devices - (page_number - 1) * PAGE_SIZE).min(PAGE_SIZE);
            assert_eq!(items.len() as u64, expected, "page {page_number}");
            times.push(took);
        }
        page = median(times);
        let mut times = Vec::new();
        for _ in 0..3 {
            let arguments = json!({"continuation_token": token, "mode": "summary"});
            let (took, answer) = call(&client, arguments).await;
            let sum = |field| {
                counts(&answer, field)
                    .values()
                    .map(|n| n.as_u64().unwrap())
                    .sum::<u64>()
            };
            counts_add_up = answer["count"] == devices
                && sum("site_slug") == devices
                && sum("status") == devices;
            times.push(took);
        }
        summary = median(times);
    }
    let after_kib = proc_kib(pid, "VmRSS");
    client.cancel().await.unwrap();
    let _ = tokio::time::timeout(Duration::from_secs(10), child.wait()).await;
    Row {
        store,
        probe,
        token: token.is_some(),
        stored_bytes,
        idle_kib,
        peak_kib,
        after_kib,
        page,
        page_number,
        summary,
        counts_add_up,
    }
}

/// `program`'s path on the PATH, if it is there.
fn which(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|path| path.is_file())
}

/// The temporary directory, removed at the end.
struct RemoveOnDrop(PathBuf);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
