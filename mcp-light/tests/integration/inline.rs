//! Heavy reads under their inline budget: a result within it answers
//! itself in one call and never reaches the store, a larger one a probe; a
//! tool's `inline = N` takes precedence over the server's budget; a result
//! that streams in is held back only up to the budget, then cut over to
//! the store while it still streams.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcp_light::clients::ClientTable;
use mcp_light::heavy::HeavyConfig;
use mcp_light::prelude::*;
use mcp_light::store::{
    BoxFuture, ContinuationStore, Entry, EntryInfo, EntryWriter, MemoryStore, Origin, Owner,
    StoreError, StoredItems,
};
use mcp_light::token::Token;
use mcp_light::{CallToolResult, ItemStream};
use serde_json::{Value, json};

use crate::fixtures::{PROBE_KEYS, keys, ok_json};
use crate::streaming::row;

/// The width of a row's padding: a row is about as large as one of the
/// inventory's devices (some 660 bytes).
const WIDTH: usize = 600;

/// `n` rows of [`WIDTH`].
fn rows(n: usize) -> Vec<Value> {
    (0..n).map(|i| row(i, WIDTH)).collect()
}

/// The bytes of `rows(n)` as compact JSON.
pub(crate) fn size_of(n: usize) -> usize {
    serde_json::to_vec(&rows(n)).unwrap().len()
}

/// `n` rows, within the server's inline budget or not.
#[mcp_heavy]
fn inline_rows(n: usize) -> Vec<Value> {
    rows(n)
}

/// `n` rows, whole up to 1 KiB: a budget of its own, below the server's.
#[mcp_heavy(inline = 1024)]
fn inline_rows_up_to_1_kib(n: usize) -> Vec<Value> {
    rows(n)
}

/// `n` rows, whole up to 64 KiB: a budget of its own, above the server's.
#[mcp_heavy(inline = 65_536)]
fn inline_rows_up_to_64_kib(n: usize) -> Vec<Value> {
    rows(n)
}

/// `n` rows, a probe for anything larger than the preview.
#[mcp_heavy(inline = 0)]
fn inline_rows_never(n: usize) -> Vec<Value> {
    rows(n)
}

/// The budget of the streamed tools: more than two of the store's chunks
/// (256 KiB each), so a result within it arrives in several.
pub(crate) const STREAMED_BUDGET: usize = 600_000;

/// `n` rows from a blocking producer, whole up to [`STREAMED_BUDGET`].
#[mcp_heavy(inline = 600_000)]
fn inline_rows_produced(n: usize) -> ItemStream<Value> {
    ItemStream::blocking(move |sender| {
        for i in 0..n {
            sender.send(row(i, WIDTH))?;
        }
        Ok(())
    })
}

/// `n` rows from a stream polled on the async worker, whole up to
/// [`STREAMED_BUDGET`].
#[mcp_heavy(inline = 600_000)]
async fn inline_rows_streamed(
    n: usize,
) -> impl futures_core::Stream<Item = Result<Value, ToolError>> + Send {
    Rows { next: 0, n }
}

/// Rows `0..n`, one a poll.
struct Rows {
    next: usize,
    n: usize,
}

impl futures_core::Stream for Rows {
    type Item = Result<Value, ToolError>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        _: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        let next = self.next;
        self.next += 1;
        std::task::Poll::Ready((next < self.n).then(|| Ok(row(next, WIDTH))))
    }
}

/// The entries begun in a [`Watched`] store, shared with the tool that
/// waits for one.
#[derive(Default, Clone)]
struct Begun(Arc<AtomicUsize>);

/// Whether [`inline_rows_waiting`] saw its entry begun while it still had
/// rows to send.
static BEGUN_MID_STREAM: AtomicBool = AtomicBool::new(false);

/// `n` rows from a blocking producer, whole up to [`STREAMED_BUDGET`];
/// after `wait_at` rows (well past the budget) it waits, at most 10 s, for
/// the store to begin the entry before it sends the rest. A read that took
/// the whole stream before deciding would begin it only after the last
/// row.
#[mcp_heavy(inline = 600_000)]
fn inline_rows_waiting(
    ctx: &Context,
    n: usize,
    wait_at: usize,
) -> Result<ItemStream<Value>, ToolError> {
    let begun = ctx.state::<Begun>()?.clone();
    Ok(ItemStream::blocking(move |sender| {
        for i in 0..n {
            if i == wait_at {
                let deadline = Instant::now() + Duration::from_secs(10);
                while begun.0.load(Ordering::SeqCst) == 0 && Instant::now() < deadline {
                    std::thread::sleep(Duration::from_millis(1));
                }
                BEGUN_MID_STREAM.store(begun.0.load(Ordering::SeqCst) > 0, Ordering::SeqCst);
            }
            sender.send(row(i, WIDTH))?;
        }
        Ok(())
    }))
}

/// A memory store that counts the entries begun in it.
struct Watched {
    inner: MemoryStore,
    begun: Begun,
}

impl Watched {
    fn new() -> Arc<Watched> {
        Arc::new(Watched {
            inner: MemoryStore::default(),
            begun: Begun::default(),
        })
    }

    fn begun(&self) -> usize {
        self.begun.0.load(Ordering::SeqCst)
    }
}

impl ContinuationStore for Watched {
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
        self.begun.0.fetch_add(1, Ordering::SeqCst);
        self.inner.begin(token, owner, origin)
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

/// What the callers of this module's servers keep of an answer: more than
/// any result here (1.2 MB at most), so what decides between whole and
/// probe is the budget under test. A client that keeps less than the
/// budget is answered within what it keeps (`client_fit`, and the end of
/// `a_result_within_the_default_budget_answers_whole_in_one_call_and_stores_nothing`).
pub const KEEPS_ALL: usize = 16 << 20;

/// A server over this module's tools, keeping results in `store`, with
/// `heavy` for its heavy reads; a caller that names no client keeps
/// [`KEEPS_ALL`].
fn server(store: &Arc<Watched>, heavy: HeavyConfig) -> Server {
    Server::from_tools(tools![
        inline_rows,
        inline_rows_up_to_1_kib,
        inline_rows_up_to_64_kib,
        inline_rows_never,
        inline_rows_produced,
        inline_rows_streamed,
        inline_rows_waiting,
    ])
    .with_state(store.begun.clone())
    .with_shared_store(Some(Arc::clone(store) as Arc<dyn ContinuationStore>))
    .with_heavy_config(heavy)
    .with_clients(ClientTable::new().with_unknown_client(KEEPS_ALL).unwrap())
    .build()
    .expect("the inline tools register")
}

async fn call(server: &Server, tool: &str, args: Value) -> CallToolResult {
    server.call(tool, args, Caller::Process).await
}

/// Asserts that `result` is `expected` answered whole: the list as its
/// text, `{"result": [...]}` as its structured content, no token.
fn assert_whole(result: &CallToolResult, expected: &[Value], what: &str) {
    assert_eq!(result.is_error, Some(false), "{what}: {result:?}");
    let text = &result.content[0].as_text().unwrap().text;
    assert_eq!(
        *text,
        serde_json::to_string(expected).unwrap(),
        "{what}: the text is the list"
    );
    assert_eq!(
        result.structured_content,
        Some(json!({"result": expected})),
        "{what}"
    );
}

/// Asserts that `result` is a probe with a token; its answer.
fn assert_probe(result: &CallToolResult, what: &str) -> Value {
    let probe = ok_json(result);
    assert!(probe["continuation_token"].is_string(), "{what}: {probe}");
    assert_eq!(keys(&probe), PROBE_KEYS, "{what}");
    probe
}

#[tokio::test]
async fn a_result_within_the_default_budget_answers_whole_in_one_call_and_stores_nothing() {
    let budget = HeavyConfig::new().inline_budget;
    // The longest list within the budget, and one row more.
    let within = (1..).take_while(|&n| size_of(n) <= budget).last().unwrap();
    assert!(size_of(1) > 200, "a row is larger than the preview");
    for n in [1, 2, within] {
        let store = Watched::new();
        let server = server(&store, HeavyConfig::new());
        let result = call(&server, "inline_rows", json!({"n": n})).await;
        assert_whole(&result, &rows(n), &format!("{n} rows"));
        assert_eq!((store.begun(), store.inner.len()), (0, 0), "{n} rows");
    }

    let store = Watched::new();
    let server = server(&store, HeavyConfig::new());
    let over = within + 1;
    let result = call(&server, "inline_rows", json!({"n": over})).await;
    let probe = assert_probe(&result, "one row over the budget");
    assert_eq!(probe["total_size"], size_of(over));
    assert_eq!(probe["total_items"], over);
    assert_eq!((store.begun(), store.inner.len()), (1, 1));

    // No budget answers more whole than the client keeps: to Codex
    // (10,000 bytes, less than the budget) the longest list within the
    // budget is a probe.
    let keeps = ClientTable::new().keeps(Some("codex-mcp-client"));
    assert!(keeps < size_of(within), "{keeps} bytes");
    let result = server
        .call_from(
            "codex-mcp-client",
            "inline_rows",
            json!({"n": within}),
            Caller::Process,
        )
        .await;
    let probe = assert_probe(&result, "within the budget, over what Codex keeps");
    assert_eq!(probe["total_items"], within);
    assert_eq!(store.inner.len(), 2, "kept beside the one over the budget");
}

#[tokio::test]
async fn a_tools_own_budget_takes_precedence_over_the_servers() {
    let store = Watched::new();
    let by_default = server(&store, HeavyConfig::new());
    // Two rows (some 1,300 bytes): within the server's budget, over 1 KiB.
    assert_whole(
        &call(&by_default, "inline_rows", json!({"n": 2})).await,
        &rows(2),
        "the server's budget",
    );
    assert_probe(
        &call(&by_default, "inline_rows_up_to_1_kib", json!({"n": 2})).await,
        "the tool's 1 KiB",
    );
    // Fifty rows (some 33 KB): over the server's budget, within 64 KiB.
    assert!(size_of(50) > HeavyConfig::new().inline_budget);
    assert_probe(
        &call(&by_default, "inline_rows", json!({"n": 50})).await,
        "over the server's budget",
    );
    assert_whole(
        &call(&by_default, "inline_rows_up_to_64_kib", json!({"n": 50})).await,
        &rows(50),
        "the tool's 64 KiB",
    );

    // A server that probes everything still answers the tool's budget.
    let store = Watched::new();
    let probing = server(&store, HeavyConfig::new().with_inline_budget(0));
    assert_probe(
        &call(&probing, "inline_rows", json!({"n": 1})).await,
        "the server's 0",
    );
    assert_whole(
        &call(&probing, "inline_rows_up_to_64_kib", json!({"n": 50})).await,
        &rows(50),
        "the tool's 64 KiB on a server of 0",
    );
    assert_eq!(store.inner.len(), 1, "only the probe stored its result");
}

#[tokio::test]
async fn a_budget_of_0_probes_all_but_what_fits_the_preview() {
    let store = Watched::new();
    let server = server(&store, HeavyConfig::new());
    assert_probe(
        &call(&server, "inline_rows_never", json!({"n": 1})).await,
        "one row",
    );
    // An empty list fits where its preview goes: nothing to page.
    assert_whole(
        &call(&server, "inline_rows_never", json!({"n": 0})).await,
        &[],
        "no rows",
    );
    assert_eq!(store.inner.len(), 1);
}

#[tokio::test]
async fn a_stream_within_its_budget_answers_whole_and_never_begins_an_entry() {
    // Several chunks of the store's, all held back, none written.
    let within = (STREAMED_BUDGET - 1000) / size_of(1);
    assert!(size_of(within) > 2 * (256 << 10) && size_of(within) <= STREAMED_BUDGET);
    for tool in ["inline_rows_produced", "inline_rows_streamed"] {
        let store = Watched::new();
        let server = server(&store, HeavyConfig::new());
        let result = call(&server, tool, json!({"n": within})).await;
        assert_whole(&result, &rows(within), tool);
        assert_eq!((store.begun(), store.inner.len()), (0, 0), "{tool}");
    }
}

#[tokio::test]
async fn a_stream_over_its_budget_answers_a_probe_whose_token_holds_every_row() {
    let over = 2 * STREAMED_BUDGET / size_of(1);
    for tool in ["inline_rows_produced", "inline_rows_streamed"] {
        let store = Watched::new();
        let server = server(&store, HeavyConfig::new());
        let probe = assert_probe(&call(&server, tool, json!({"n": over})).await, tool);
        assert_eq!(probe["total_size"], size_of(over), "{tool}");
        assert_eq!((store.begun(), store.inner.len()), (1, 1), "{tool}");
        let full = json!({"continuation_token": probe["continuation_token"], "mode": "full"});
        let full = ok_json(&call(&server, tool, full).await);
        assert!(full == Value::Array(rows(over)), "{tool}: every row kept");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_over_its_budget_reaches_the_store_before_it_ends() {
    let store = Watched::new();
    let server = server(&store, HeavyConfig::new());
    // The producer waits after twice the budget (a batch or so of it may
    // still be on its way), and has as much again to send after that.
    let wait_at = 2 * STREAMED_BUDGET / size_of(1);
    let n = 2 * wait_at;
    let result = call(
        &server,
        "inline_rows_waiting",
        json!({"n": n, "wait_at": wait_at}),
    )
    .await;
    let probe = assert_probe(&result, "waiting");
    assert_eq!(probe["total_items"], n);
    assert!(
        BEGUN_MID_STREAM.load(Ordering::SeqCst),
        "the entry was begun while rows were still to come"
    );
    assert_eq!((store.begun(), store.inner.len()), (1, 1));
}
