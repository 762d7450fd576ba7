//! Heavy reads streamed into the continuation store: every way a heavy tool
//! may answer its items (a `Vec`, an iterator, a fallible iterator, a
//! stream, an `ItemStream`) gives the same probe, pages and summary; an
//! error or a cancellation half-way keeps nothing; a failing store answers
//! a probe without token.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Context as TaskContext, Poll};
use std::time::Duration;

use mcp_light::clients::ClientTable;
use mcp_light::heavy::HeavyConfig;
use mcp_light::prelude::*;
use mcp_light::store::MemoryStore;
use mcp_light::store::{
    BoxFuture, Chunk, ContinuationStore, Entry, EntryInfo, EntryWriter, MemoryStoreConfig, Origin,
    Owner, Sealed, StoreError, StoredItems,
};
use mcp_light::token::Token;
use mcp_light::{CallToolResult, ItemStream};
use serde_json::{Value, json};

use crate::fixtures::{PROBE_KEYS, error_text, keys, ok_json};

// ---------------------------------------------------------------------------
// Helpers shared with `disk_tier`.

/// A fresh directory under the system's temporary directory, removed
/// (with everything in it) when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let path = std::env::temp_dir().join(format!(
            "mcp-light-test-{tag}-{}-{nanos}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The names of the files in `dir` other than the `lock` file, sorted;
/// empty when `dir` is gone.
pub fn entry_files(dir: &Path) -> Vec<String> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = read
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .filter(|name| name != "lock")
        .collect();
    names.sort();
    names
}

/// Polls `done` every 10 ms for at most `within`; whether it came true.
pub async fn eventually(within: Duration, mut done: impl FnMut() -> bool) -> bool {
    let started = std::time::Instant::now();
    loop {
        if done() {
            return true;
        }
        if started.elapsed() > within {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A server over every registered tool, keeping results in `store`.
pub fn server_over(store: Arc<dyn ContinuationStore>) -> Server {
    builder_over(store)
        .build()
        .expect("the test tools register without clashes")
}

pub fn builder_over(store: Arc<dyn ContinuationStore>) -> ServerBuilder {
    crate::fixtures::linked().with_shared_store(Some(store))
}

pub async fn call(server: &Server, tool: &str, args: Value) -> CallToolResult {
    server.call(tool, args, Caller::Process).await
}

pub const SITES: [&str; 4] = ["ams1", "fra1", "lon1", "nyc1"];

/// Row `i`, padded with `width` characters.
pub fn row(i: usize, width: usize) -> Value {
    json!({
        "id": i,
        "site": SITES[i % SITES.len()],
        "status": if i.is_multiple_of(5) { "planned" } else { "active" },
        "pad": "x".repeat(width),
    })
}

/// Item `i` of awkward JSON: unicode, escapes, nesting, nulls.
fn odd(i: usize) -> Value {
    match i % 5 {
        0 => {
            json!({"id": i, "site": SITES[i % 4], "name": format!("caf\u{e9} \u{1F600} {i}"), "note": null})
        }
        1 => json!({
            "id": i,
            "site": SITES[i % 4],
            "name": "quote \" backslash \\ newline \n tab \t ctrl \u{1} sep \u{2028}",
            "nested": {"a": [1, null, {"b": "]},[{"}]},
        }),
        2 => {
            json!({"id": i, "site": null, "name": "</script>", "nested": {"deep": {"deeper": [[], {}, [null]]}}})
        }
        3 => json!({"id": i, "site": SITES[i % 4], "n": -1.5e300, "flag": true, "empty": ""}),
        _ => {
            json!({"id": i, "site": SITES[i % 4], "name": "日本語テキスト", "list": ["a", "]", "[", ",", "\""]})
        }
    }
}

/// The items of set `set`: `rows`, `odd` or `short`.
fn items_of(set: &str, n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| match set {
            "odd" => odd(i),
            "short" => json!({"id": i}),
            _ => row(i, 40),
        })
        .collect()
}

/// How many of `items` have each value of `field`.
fn counts(items: &[Value], field: &str) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for item in items {
        if let Some(value) = item[field].as_str() {
            *counts.entry(value.to_owned()).or_default() += 1;
        }
    }
    counts
}

/// The value counts a summary gives for `field`.
fn summary_counts(summary: &Value, field: &str) -> BTreeMap<String, usize> {
    summary["fields"][field]["values"]
        .as_object()
        .unwrap_or_else(|| panic!("no values for {field} in {summary}"))
        .iter()
        .map(|(value, n)| (value.clone(), n.as_u64().unwrap() as usize))
        .collect()
}

/// Every page of the result under `token`, asked `page_size` at a time
/// and read on as each answer says, concatenated; checks each page's
/// bookkeeping on the way. A page holds what fits the calling client: one
/// that holds fewer than asked says so in its `page` and `page_size`,
/// starts where the items read so far end, and names the call that reads
/// on, which is the one made next.
async fn all_pages(server: &Server, tool: &str, token: &Value, page_size: usize) -> Vec<Value> {
    let mut items = Vec::new();
    let (mut page, mut size) = (1, page_size);
    loop {
        let answer = ok_json(
            &call(
                server,
                tool,
                json!({"continuation_token": token, "page": page, "page_size": size}),
            )
            .await,
        );
        let what = format!("{tool} page {page} of {size}");
        let answered = answer["page_size"].as_u64().unwrap() as usize;
        assert!((1..=size).contains(&answered), "{what}: {answered}");
        let at = answer["page"].as_u64().unwrap() as usize;
        assert_eq!((at - 1) * answered, items.len(), "{what}: pages line up");
        let got = answer["items"].as_array().unwrap().clone();
        assert!(got.len() <= answered, "{what}");
        items.extend(got);
        let total = answer["total"].as_u64().unwrap() as usize;
        assert_eq!(answer["has_more"], items.len() < total, "{what}");
        if answered < size {
            let note = answer["note"]
                .as_str()
                .unwrap_or_else(|| panic!("{what}: no note"));
            let next = format!("ask page {} with page_size {answered}", at + 1);
            assert!(note.contains(&next), "{what}: {note}");
        } else {
            assert!(answer.get("note").is_none(), "{what}: {answer}");
        }
        if answer["has_more"] == false {
            assert_eq!(items.len(), total, "{tool}");
            break;
        }
        (page, size) = (at + 1, answered);
    }
    items
}

/// A builder like [`builder_over`]'s whose callers that name no client keep
/// 16 MiB of an answer: for what is about whole answers, not about the
/// client's cut.
pub fn keeping_all_over(store: Arc<dyn ContinuationStore>) -> ServerBuilder {
    let clients = ClientTable::new().with_unknown_client(16 << 20).unwrap();
    builder_over(store).with_clients(clients)
}

// ---------------------------------------------------------------------------
// Tools. Names start with `stream_`: tools are global to the binary.

/// A stream that yields its items with a `Pending` every few polls.
struct Trickle {
    items: std::vec::IntoIter<Result<Value, ToolError>>,
    polls: usize,
}

impl Trickle {
    fn new(items: Vec<Result<Value, ToolError>>) -> Trickle {
        Trickle {
            items: items.into_iter(),
            polls: 0,
        }
    }
}

impl futures_core::Stream for Trickle {
    type Item = Result<Value, ToolError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Option<Self::Item>> {
        self.polls += 1;
        if self.polls.is_multiple_of(7) {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        Poll::Ready(self.items.next())
    }
}

/// `n` rows, read on the blocking pool.
#[mcp_heavy]
fn stream_rows(n: usize) -> ItemStream<Value> {
    ItemStream::blocking(move |sender| {
        for i in 0..n {
            sender.send(row(i, 40))?;
        }
        Ok(())
    })
}

/// The items of `set` as a `Vec`.
#[mcp_heavy]
fn stream_as_vec(set: String, n: usize) -> Vec<Value> {
    items_of(&set, n)
}

/// The items of `set` as an iterator.
#[mcp_heavy]
fn stream_as_iter(set: String, n: usize) -> impl Iterator<Item = Value> + Send + 'static {
    items_of(&set, n).into_iter()
}

/// The items of `set` as an iterator of `Result`s.
#[mcp_heavy]
fn stream_as_try_iter(
    set: String,
    n: usize,
) -> impl Iterator<Item = Result<Value, ToolError>> + Send + 'static {
    items_of(&set, n).into_iter().map(Ok)
}

/// The items of `set` as a stream of our own.
#[mcp_heavy]
async fn stream_as_stream(
    set: String,
    n: usize,
) -> impl futures_core::Stream<Item = Result<Value, ToolError>> + Send {
    Trickle::new(items_of(&set, n).into_iter().map(Ok).collect())
}

/// The items of `set` as an `ItemStream` over a stream.
#[mcp_heavy]
fn stream_as_item_stream(set: String, n: usize) -> ItemStream<Value> {
    ItemStream::new(Trickle::new(
        items_of(&set, n).into_iter().map(Ok).collect(),
    ))
}

/// The items of `set` as an `ItemStream` over an iterator.
#[mcp_heavy]
fn stream_as_item_iter(set: String, n: usize) -> Result<ItemStream<Value>, ToolError> {
    Ok(ItemStream::iter(items_of(&set, n)))
}

/// The items of `set` sent by a blocking producer.
#[mcp_heavy]
fn stream_as_blocking(set: String, n: usize) -> ItemStream<Value> {
    ItemStream::blocking(move |sender| {
        for item in items_of(&set, n) {
            sender.send(item)?;
        }
        Ok(())
    })
}

const VARIANTS: [&str; 7] = [
    "stream_as_vec",
    "stream_as_iter",
    "stream_as_try_iter",
    "stream_as_stream",
    "stream_as_item_stream",
    "stream_as_item_iter",
    "stream_as_blocking",
];

fn failure(i: usize) -> ToolError {
    ToolError::new(format!("row {i} is unreadable: checksum mismatch"))
}

/// `n` wide rows from a blocking producer that fails at `fail_at`.
#[mcp_heavy]
fn stream_fail_blocking(n: usize, fail_at: usize) -> ItemStream<Value> {
    ItemStream::blocking(move |sender| {
        for i in 0..n {
            if i == fail_at {
                return Err(failure(i));
            }
            sender.send(row(i, 600))?;
        }
        Ok(())
    })
}

/// `n` wide rows from an iterator whose item `fail_at` is an error.
#[mcp_heavy]
fn stream_fail_try_iter(
    n: usize,
    fail_at: usize,
) -> impl Iterator<Item = Result<Value, ToolError>> + Send + 'static {
    (0..n).map(move |i| {
        if i == fail_at {
            Err(failure(i))
        } else {
            Ok(row(i, 600))
        }
    })
}

/// `n` wide rows from a stream whose item `fail_at` is an error.
#[mcp_heavy]
async fn stream_fail_stream(
    n: usize,
    fail_at: usize,
) -> impl futures_core::Stream<Item = Result<Value, ToolError>> + Send {
    Trickle::new(
        (0..n)
            .map(|i| {
                if i == fail_at {
                    Err(failure(i))
                } else {
                    Ok(row(i, 600))
                }
            })
            .collect(),
    )
}

static SLOW_SENT: AtomicUsize = AtomicUsize::new(0);
static SLOW_DONE: AtomicBool = AtomicBool::new(false);

/// Sets its flag when dropped: the producer has returned.
struct SetOnDrop(&'static AtomicBool);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

/// `n` rows of `width`, one a millisecond.
#[mcp_heavy]
fn stream_slow(n: usize, width: usize) -> ItemStream<Value> {
    ItemStream::blocking(move |sender| {
        let _done = SetOnDrop(&SLOW_DONE);
        for i in 0..n {
            std::thread::sleep(Duration::from_millis(1));
            sender.send(row(i, width))?;
            SLOW_SENT.fetch_add(1, Ordering::SeqCst);
        }
        Ok(())
    })
}

// ---------------------------------------------------------------------------
// Tests.

#[tokio::test]
async fn a_blocking_stream_of_5000_rows_pages_summarizes_filters_and_returns_in_full() {
    let store = Arc::new(MemoryStore::default());
    let server = server_over(store.clone());
    let rows: Vec<Value> = (0..5_000).map(|i| row(i, 40)).collect();

    let probe = ok_json(&call(&server, "stream_rows", json!({"n": 5_000})).await);
    assert_eq!(keys(&probe), PROBE_KEYS);
    assert_eq!(probe["total_items"], 5_000);
    assert_eq!(
        probe["total_size"],
        serde_json::to_vec(&rows).unwrap().len()
    );
    assert_eq!(store.len(), 1);
    let token = probe["continuation_token"].clone();

    let paged = all_pages(&server, "stream_rows", &token, 200).await;
    assert_eq!(paged.len(), 5_000);
    assert!(paged == rows, "the pages concatenate to exactly the rows");

    let summary = ok_json(
        &call(
            &server,
            "stream_rows",
            json!({"continuation_token": token, "mode": "summary"}),
        )
        .await,
    );
    assert_eq!(summary["count"], 5_000);
    assert_eq!(summary_counts(&summary, "site"), counts(&rows, "site"));
    assert_eq!(
        summary_counts(&summary, "status"),
        BTreeMap::from([("active".to_owned(), 4_000), ("planned".to_owned(), 1_000)])
    );
    assert_eq!(
        (
            &summary["fields"]["id"]["min"],
            &summary["fields"]["id"]["max"]
        ),
        (&json!(0), &json!(4_999))
    );

    let filtered = ok_json(
        &call(
            &server,
            "stream_rows",
            json!({"continuation_token": token, "mode": "filtered", "filter_keys": ["site", "id"],
                   "page": 3, "page_size": 200}),
        )
        .await,
    );
    let narrowed: Vec<Value> = rows[400..600]
        .iter()
        .map(|r| json!({"id": r["id"], "site": r["site"]}))
        .collect();
    assert_eq!(filtered["items"], Value::Array(narrowed));
    assert_eq!(filtered["total"], 5_000);
    assert_eq!(keys(&filtered["items"][0]), ["id", "site"]);

    // `full` of 465 KB: to a client that keeps it, the whole list; to one
    // that keeps 10,000 bytes, its first page and the call that reads on.
    let full = json!({"continuation_token": token, "mode": "full"});
    let keeping_all = keeping_all_over(store.clone()).build().unwrap();
    let whole = ok_json(&call(&keeping_all, "stream_rows", full.clone()).await);
    assert!(
        whole == Value::Array(rows.clone()),
        "full is the whole list"
    );
    let first = ok_json(&call(&server, "stream_rows", full).await);
    let size = first["page_size"].as_u64().unwrap() as usize;
    assert!((1..200).contains(&size), "{size} rows a page");
    assert!(first["items"] == Value::Array(rows[..size].to_vec()));
    let note = first["note"].as_str().unwrap();
    assert!(
        note.contains(&format!("ask page 2 with page_size {size}")),
        "{note}"
    );
}

#[tokio::test]
async fn every_way_of_answering_items_gives_the_same_probe_pages_and_summary() {
    let store = Arc::new(MemoryStore::default());
    // No inline budget: every list larger than its preview is kept.
    let server = builder_over(store.clone())
        .with_heavy_config(HeavyConfig::new().with_inline_budget(0))
        .build()
        .unwrap();
    for set in ["rows", "odd"] {
        for n in [0usize, 1, 3, 199, 200, 201, 2_500] {
            let expected = items_of(set, n);
            let size = serde_json::to_vec(&expected).unwrap().len();
            // (probe without token and usage, pages, summary) of the first
            // variant, which every other must equal.
            let mut first: Option<(String, Value, Value)> = None;
            for tool in VARIANTS {
                let what = format!("{tool} set={set} n={n}");
                let args = json!({"set": set, "n": n});
                let answer = ok_json(&call(&server, tool, args).await);
                let Some(token) = answer.get("continuation_token").cloned() else {
                    // Small enough to answer itself.
                    assert_eq!(answer, Value::Array(expected.clone()), "{what}");
                    let seen = ("inline".to_owned(), answer.clone(), Value::Null);
                    match &first {
                        None => first = Some(seen),
                        Some(first) => assert_eq!(first, &seen, "{what}"),
                    }
                    continue;
                };
                assert_eq!(answer["total_size"], size, "{what}");
                let paged = all_pages(&server, tool, &token, 200).await;
                assert!(paged == expected, "{what}: the pages are the items");
                let summary = ok_json(
                    &call(
                        &server,
                        tool,
                        json!({"continuation_token": token, "mode": "summary"}),
                    )
                    .await,
                );
                assert_eq!(summary["count"], n, "{what}");
                let sites = counts(&expected, "site");
                if n == 0 {
                    assert!(summary.get("fields").is_none(), "{what}");
                } else if sites.values().all(|held| *held == 1) {
                    // A site each: nothing repeats, nothing is listed.
                    let site = &summary["fields"]["site"];
                    assert_eq!(
                        (&site["distinct"], &site["unique"], site.get("values")),
                        (&json!(sites.len()), &json!(true), None),
                        "{what}"
                    );
                } else {
                    assert_eq!(summary_counts(&summary, "site"), sites, "{what}");
                }
                let probe = json!({
                    "preview": answer["preview"],
                    "total_size": answer["total_size"],
                    "available_modes": answer["available_modes"],
                });
                let seen = ("probe".to_owned(), probe, summary);
                match &first {
                    None => first = Some(seen),
                    Some(first) => assert_eq!(first, &seen, "{what}"),
                }
            }
        }
    }
}

#[tokio::test]
async fn an_error_mid_stream_answers_the_tools_message_and_keeps_nothing() {
    for tool in [
        "stream_fail_blocking",
        "stream_fail_try_iter",
        "stream_fail_stream",
    ] {
        let dir = TempDir::new("fail");
        // A tiny memory limit: the chunks written before the error spill.
        let config = MemoryStoreConfig::new()
            .with_max_entry_bytes(64 << 10)
            .unwrap()
            .with_disk_dir(dir.path());
        let store = Arc::new(MemoryStore::new(config));
        let server = server_over(store.clone());
        let result = call(&server, tool, json!({"n": 5_000, "fail_at": 999})).await;
        let text = error_text(&result);
        assert!(
            text.contains("row 999 is unreadable: checksum mismatch") && text.contains(tool),
            "{tool}: {text}"
        );
        assert_eq!(store.len(), 0, "{tool}");
        assert_eq!(store.disk_bytes(), 0, "{tool}");
        let spill = store.spill_dir().unwrap_or_else(|| {
            panic!("{tool}: 999 wide rows should have spilled before the error")
        });
        assert!(
            eventually(Duration::from_secs(2), || entry_files(&spill).is_empty()).await,
            "{tool}: files left in the spill dir: {:?}",
            entry_files(&spill)
        );
        // Later items are never asked for: the same call without the error
        // succeeds, so the store itself was fine.
        let ok = ok_json(&call(&server, tool, json!({"n": 1_500, "fail_at": 5_000})).await);
        assert!(ok.get("continuation_token").is_some(), "{tool}: {ok}");
    }
}

/// Rows that panic at `panic_at`, read as an iterator.
#[mcp_heavy]
fn stream_panic_iter(n: usize, panic_at: usize) -> impl Iterator<Item = Value> + Send + 'static {
    (0..n).map(move |i| {
        assert!(i != panic_at, "row {i} broke the reader");
        row(i, 200)
    })
}

/// Rows that panic at `panic_at`, sent by a blocking producer.
#[mcp_heavy]
fn stream_panic_blocking(n: usize, panic_at: usize) -> ItemStream<Value> {
    ItemStream::blocking(move |sender| {
        for i in 0..n {
            assert!(i != panic_at, "row {i} broke the producer");
            sender.send(row(i, 200))?;
        }
        Ok(())
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_producer_that_panics_mid_list_answers_an_error_not_a_shorter_list() {
    for tool in ["stream_panic_iter", "stream_panic_blocking"] {
        let store = Arc::new(MemoryStore::default());
        let server = server_over(store.clone());
        let result = call(&server, tool, json!({"n": 3_000, "panic_at": 1_234})).await;
        let text = error_text(&result);
        assert!(text.contains("row 1234 broke"), "{tool}: {text}");
        assert_eq!(store.len(), 0, "{tool}: a truncated list was kept");
        // The server goes on serving.
        let ok = ok_json(&call(&server, tool, json!({"n": 3_000, "panic_at": 9_999})).await);
        assert_eq!(
            ok["total_size"].as_u64().map(|size| size > 600_000),
            Some(true),
            "{tool}: {ok}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_dropped_mid_stream_keeps_nothing_and_stops_the_producer() {
    let dir = TempDir::new("cancel");
    let config = MemoryStoreConfig::new()
        .with_max_entry_bytes(64 << 10)
        .unwrap()
        .with_disk_dir(dir.path());
    let store = Arc::new(MemoryStore::new(config));
    let server = server_over(store.clone());
    let n = 20_000;

    // The call is dropped as soon as its result has begun to spill to disk.
    let spilled = async {
        loop {
            if let Some(dir) = store.spill_dir()
                && entry_files(&dir).iter().any(|f| f.ends_with(".body"))
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    let answered = tokio::time::timeout(Duration::from_secs(30), async {
        tokio::select! {
            answer = call(&server, "stream_slow", json!({"n": n, "width": 2_000})) => Some(answer),
            () = spilled => None,
        }
    })
    .await
    .expect("the result spills to disk within 30 s");
    assert!(
        answered.is_none(),
        "the call should still be streaming when its result spills: {answered:?}"
    );

    assert!(
        eventually(Duration::from_secs(3), || SLOW_DONE.load(Ordering::SeqCst)).await,
        "the blocking producer stops once the call is dropped"
    );
    let sent = SLOW_SENT.load(Ordering::SeqCst);
    assert!(sent < n, "the producer stopped early: {sent} of {n}");
    assert_eq!(store.len(), 0);
    let spill = store.spill_dir().expect("spilled");
    assert!(
        eventually(Duration::from_secs(3), || entry_files(&spill).is_empty()).await,
        "entry files left after cancellation: {:?}",
        entry_files(&spill)
    );
    assert!(spill.join("lock").exists(), "the live store keeps its lock");
    assert_eq!(store.disk_bytes(), 0);
}

/// The thread `stream_tracked`'s producer ran on, and the thread each of
/// its items was dropped on.
static TRACKED_PRODUCER: std::sync::Mutex<Option<std::thread::ThreadId>> =
    std::sync::Mutex::new(None);
static TRACKED_DROPS: std::sync::Mutex<Vec<std::thread::ThreadId>> =
    std::sync::Mutex::new(Vec::new());

/// An item that notes the thread it is dropped on.
#[derive(serde::Serialize)]
struct Tracked {
    id: usize,
    name: String,
}

impl Drop for Tracked {
    fn drop(&mut self) {
        let here = std::thread::current().id();
        TRACKED_DROPS.lock().unwrap().push(here);
    }
}

/// `n` tracked items sent by a blocking producer.
#[mcp_heavy]
fn stream_tracked(n: usize) -> ItemStream<Tracked> {
    ItemStream::blocking(move |sender| {
        *TRACKED_PRODUCER.lock().unwrap() = Some(std::thread::current().id());
        for id in 0..n {
            let name = format!("device-{id:06}");
            sender.send(Tracked { id, name })?;
        }
        Ok(())
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_blocking_producers_items_are_freed_on_the_producers_thread() {
    let server = server_over(Arc::new(MemoryStore::default()));
    let n = 20_000;
    let answer = ok_json(&call(&server, "stream_tracked", json!({"n": n})).await);
    assert!(
        answer.to_string().contains("continuation_token"),
        "kept: {answer}"
    );
    let producer = TRACKED_PRODUCER.lock().unwrap().expect("the producer ran");
    let drops = std::mem::take(&mut *TRACKED_DROPS.lock().unwrap());
    assert_eq!(drops.len(), n, "every item was dropped by the answer");
    // Only the batches still on their way when the producer ended (a few
    // of 256 items) are dropped where they were serialized.
    let there = drops.iter().filter(|&&t| t == producer).count();
    assert!(
        there >= n - 8 * 256,
        "{there} of {n} items freed on the producer's thread"
    );
}

#[tokio::test]
async fn a_small_heavy_result_answers_itself_with_no_token_and_nothing_stored() {
    let store = Arc::new(MemoryStore::default());
    let server = server_over(store.clone());
    for tool in VARIANTS {
        for n in [0, 2] {
            let answer = ok_json(&call(&server, tool, json!({"set": "short", "n": n})).await);
            assert_eq!(answer, Value::Array(items_of("short", n)), "{tool} {n}");
            assert!(
                !answer.to_string().contains("continuation_token"),
                "{tool} {n}: {answer}"
            );
        }
    }
    assert_eq!(store.len(), 0, "nothing was stored");
}

#[tokio::test]
async fn full_over_max_full_bytes_names_the_size_and_the_modes_and_below_it_answers_whole() {
    let store = Arc::new(MemoryStore::default());
    let server = server_over(store.clone());
    let rows: Vec<Value> = (0..5_000).map(|i| row(i, 40)).collect();
    let probe = ok_json(&call(&server, "stream_rows", json!({"n": 5_000})).await);
    let size = probe["total_size"].as_u64().unwrap();
    let full = json!({"continuation_token": probe["continuation_token"], "mode": "full"});

    // Callers that keep the whole result: what bounds `full` here is
    // `max_full_bytes`.
    let bound = 100_000;
    assert!(size > bound as u64);
    let small = keeping_all_over(store.clone())
        .with_heavy_config(HeavyConfig::new().with_max_full_bytes(bound))
        .build()
        .unwrap();
    let text = error_text(&call(&small, "stream_rows", full.clone()).await);
    for part in [
        size.to_string().as_str(),
        &bound.to_string(),
        "paginated",
        "filtered",
        "summary",
    ] {
        assert!(text.contains(part), "{part} missing from: {text}");
    }

    let exact = keeping_all_over(store)
        .with_heavy_config(HeavyConfig::new().with_max_full_bytes(size as usize))
        .build()
        .unwrap();
    let whole = ok_json(&call(&exact, "stream_rows", full).await);
    assert!(whole == Value::Array(rows), "at the bound, full is whole");
}

/// A store whose entry writers fail on the `fail_on`-th write overall.
struct FlakyStore {
    inner: MemoryStore,
    fail_on: usize,
    writes: AtomicUsize,
    commits: AtomicUsize,
    dropped_uncommitted: AtomicUsize,
}

struct FlakyWriter<'a> {
    store: &'a FlakyStore,
    inner: Option<Box<dyn EntryWriter + 'a>>,
}

impl EntryWriter for FlakyWriter<'_> {
    fn write(&mut self, chunk: Chunk) -> BoxFuture<'_, Result<(), StoreError>> {
        let n = self.store.writes.fetch_add(1, Ordering::SeqCst) + 1;
        if n == self.store.fail_on {
            return Box::pin(async {
                Err(StoreError::Unavailable(
                    "the connection dropped mid-write".into(),
                ))
            });
        }
        self.inner.as_mut().expect("not committed").write(chunk)
    }

    fn commit<'s>(mut self: Box<Self>, sealed: Sealed) -> BoxFuture<'s, Result<(), StoreError>>
    where
        Self: 's,
    {
        self.store.commits.fetch_add(1, Ordering::SeqCst);
        let inner = self.inner.take().expect("committed once");
        inner.commit(sealed)
    }
}

impl Drop for FlakyWriter<'_> {
    fn drop(&mut self) {
        if self.inner.is_some() {
            self.store
                .dropped_uncommitted
                .fetch_add(1, Ordering::SeqCst);
        }
    }
}

impl ContinuationStore for FlakyStore {
    fn put<'a>(&'a self, token: &'a Token, entry: Entry) -> BoxFuture<'a, Result<(), StoreError>> {
        self.inner.put(token, entry)
    }

    fn get<'a>(&'a self, token: &'a Token) -> BoxFuture<'a, Result<Option<Entry>, StoreError>> {
        self.inner.get(token)
    }

    fn ttl(&self) -> Duration {
        self.inner.ttl()
    }

    fn begin<'a>(
        &'a self,
        token: Token,
        owner: Owner,
        origin: Origin,
    ) -> BoxFuture<'a, Result<Box<dyn EntryWriter + 'a>, StoreError>> {
        Box::pin(async move {
            let inner = self.inner.begin(token, owner, origin).await?;
            Ok(Box::new(FlakyWriter {
                store: self,
                inner: Some(inner),
            }) as Box<dyn EntryWriter + 'a>)
        })
    }

    fn info<'a>(
        &'a self,
        token: &'a Token,
    ) -> BoxFuture<'a, Result<Option<EntryInfo>, StoreError>> {
        self.inner.info(token)
    }

    fn get_items<'a>(
        &'a self,
        token: &'a Token,
        items: std::ops::Range<usize>,
    ) -> BoxFuture<'a, Result<Option<StoredItems>, StoreError>> {
        self.inner.get_items(token, items)
    }
}

#[tokio::test]
async fn a_store_failing_mid_stream_answers_a_probe_without_token_with_exact_counts() {
    let store = Arc::new(FlakyStore {
        inner: MemoryStore::default(),
        fail_on: 3,
        writes: AtomicUsize::new(0),
        commits: AtomicUsize::new(0),
        dropped_uncommitted: AtomicUsize::new(0),
    });
    let server = server_over(store.clone());
    let rows: Vec<Value> = (0..5_000).map(|i| row(i, 600)).collect();
    let size = serde_json::to_vec(&rows).unwrap().len();
    assert!(size > 4 * (256 << 10), "enough chunks to fail on the third");

    let result = call(
        &server,
        "stream_fail_blocking",
        json!({"n": 5_000, "fail_at": 9_999}),
    )
    .await;
    let probe = ok_json(&result);
    assert_eq!(
        keys(&probe),
        ["preview", "total_size", "summary", "why_no_token", "usage"]
    );
    assert_eq!(probe["total_size"], size);
    let why = probe["why_no_token"].as_str().unwrap();
    assert!(why.contains("the connection dropped mid-write"), "{why}");
    let summary = &probe["summary"];
    assert_eq!(summary["count"], 5_000);
    assert_eq!(summary_counts(summary, "site"), counts(&rows, "site"));
    assert_eq!(
        summary_counts(summary, "status"),
        BTreeMap::from([("active".to_owned(), 4_000), ("planned".to_owned(), 1_000)])
    );

    assert_eq!(
        store.writes.load(Ordering::SeqCst),
        3,
        "no write after the failure"
    );
    assert_eq!(store.commits.load(Ordering::SeqCst), 0);
    assert_eq!(store.dropped_uncommitted.load(Ordering::SeqCst), 1);
    assert_eq!(store.inner.len(), 0);
}

// ---------------------------------------------------------------------------
// Streamed against whole: the same list, kept by the memory store (written
// chunk by chunk, paged by range, summarized from the digest) and by a store
// that keeps whole entries only (read back whole and served from the value),
// answers every page, filter and summary alike.

/// The items it is given, streamed.
#[mcp_heavy]
fn stream_given(items: Vec<Value>) -> ItemStream<Value> {
    ItemStream::iter(items)
}

/// Keeps whole entries only, without their digests: every redemption is
/// served from the whole value.
#[derive(Default)]
struct WholeOnly(std::sync::Mutex<std::collections::HashMap<Token, Entry>>);

impl ContinuationStore for WholeOnly {
    fn put<'a>(&'a self, token: &'a Token, entry: Entry) -> BoxFuture<'a, Result<(), StoreError>> {
        let entry = entry.with_digest(None);
        self.0.lock().unwrap().insert(token.clone(), entry);
        Box::pin(async { Ok(()) })
    }

    fn get<'a>(&'a self, token: &'a Token) -> BoxFuture<'a, Result<Option<Entry>, StoreError>> {
        let entry = self.0.lock().unwrap().get(token).cloned();
        Box::pin(async move { Ok(entry) })
    }

    fn ttl(&self) -> Duration {
        Duration::from_secs(300)
    }
}

fn any_item() -> impl proptest::strategy::Strategy<Value = Value> {
    use proptest::prelude::*;
    let field = prop_oneof![
        Just(Value::Null),
        any::<i32>().prop_map(Value::from),
        prop::sample::select(vec!["ams1", "fra1", "lon1"]).prop_map(Value::from),
        "[a-zé\"\\\\]{0,60}".prop_map(Value::from),
        prop::collection::vec(prop::sample::select(vec!["prod", "edge", "lab"]), 0..4)
            .prop_map(Value::from),
    ];
    let object = prop::collection::btree_map(
        prop::sample::select(vec!["id", "site", "tags", "n", "note"]),
        field.clone(),
        0..5,
    )
    .prop_map(|map| {
        Value::Object(
            map.into_iter()
                .map(|(key, value)| (key.to_owned(), value))
                .collect(),
        )
    });
    prop_oneof![8 => object, 1 => field]
}

#[test]
fn a_streamed_list_pages_filters_and_summarizes_like_the_same_list_kept_whole() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, RngAlgorithm, RngSeed, TestRunner};

    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let streamed = server_over(Arc::new(MemoryStore::default()));
    let whole = server_over(Arc::new(WholeOnly::default()));
    let config = Config {
        cases: 300,
        failure_persistence: None,
        rng_algorithm: RngAlgorithm::XorShift,
        rng_seed: RngSeed::Fixed(0x7374_7265_616d),
        ..Config::default()
    };
    let strategy = (
        prop::collection::vec(any_item(), 0..80),
        1usize..12,
        1usize..10,
    );
    let result = TestRunner::new(config).run(&strategy, |(items, page, page_size)| {
        runtime.block_on(async {
            let args = json!({"items": items});
            let first = call(&streamed, "stream_given", args.clone()).await;
            let other = call(&whole, "stream_given", args).await;
            let (first, other) = (ok_json(&first), ok_json(&other));
            let (Some(a), Some(b)) = (
                first.get("continuation_token").cloned(),
                other.get("continuation_token").cloned(),
            ) else {
                // Small enough to answer itself: the same list both ways.
                prop_assert_eq!(&first, &other);
                prop_assert_eq!(&first, &Value::from(items.clone()));
                return Ok(());
            };
            prop_assert_eq!(&first["total_size"], &other["total_size"]);
            prop_assert_eq!(&first["preview"], &other["preview"]);
            let asks = [
                json!({"page": page, "page_size": page_size}),
                json!({"mode": "summary"}),
                json!({"mode": "filtered", "filter_keys": ["site", "n"], "page": page, "page_size": page_size}),
                json!({"mode": "filtered", "filter_keys": ["nowhere"]}),
                json!({"mode": "full"}),
            ];
            for ask in asks {
                let mut from_streamed = ask.clone();
                from_streamed["continuation_token"] = a.clone();
                let mut from_whole = ask.clone();
                from_whole["continuation_token"] = b.clone();
                let x = call(&streamed, "stream_given", from_streamed).await;
                let y = call(&whole, "stream_given", from_whole).await;
                prop_assert_eq!(x.is_error, y.is_error, "{}", ask);
                prop_assert_eq!(&x.content[0].as_text().unwrap().text, &y.content[0].as_text().unwrap().text, "{}", ask);
            }
            Ok(())
        })
    });
    if let Err(failure) = result {
        panic!("{failure}");
    }
}
