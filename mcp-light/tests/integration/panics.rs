//! A panic anywhere in a call — the tool, the blocking pool, the store a
//! token is redeemed from — answers that call as the tool failing, and
//! the server answers the next one; nothing mcp-light does prints a panic.
//! A tool that answers in place (an `inline` synchronous read) runs before
//! any future is made, inside the same boundary.

use std::panic::{self, PanicHookInfo};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

use mcp_light::heavy::HeavyConfig;
use mcp_light::prelude::*;
use mcp_light::store::MemoryStore;
use mcp_light::store::{BoxFuture, ContinuationStore, Entry, StoreError};
use mcp_light::token::Token;
use mcp_light::tools;
use serde::Serializer;
use serde_json::json;

use crate::fixtures::{self, error_text, ok_json};

/// A row whose hand-written `Serialize` has a bug: row `BREAKS_AT`
/// panics.
#[derive(JsonSchema)]
pub struct Fragile(u32);

const BREAKS_AT: u32 = 7;

impl Serialize for Fragile {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        assert!(self.0 != BREAKS_AT, "row {} cannot be written", self.0);
        serializer.serialize_u32(self.0)
    }
}

/// Lists `n` rows; the result is written on the blocking pool, where row
/// 7 panics.
#[mcp_heavy]
pub fn explode_in_rows(n: u32) -> Vec<Fragile> {
    (0..n).map(Fragile).collect()
}

/// Lists `n` rows that write fine.
#[mcp_heavy]
fn sturdy_rows(n: u32) -> Vec<u32> {
    (0..n).collect()
}

/// Lists `n` rows where it is called, without a future; row 7 cannot be
/// listed. Named `explode_*` so that the properties test, which calls
/// every linked tool with arbitrary arguments, leaves it alone.
#[mcp_tool(inline, resource = "inline_row", action = "list")]
fn explode_inline_rows(n: u32) -> Vec<u32> {
    assert!(n != BREAKS_AT, "row {n} cannot be listed");
    (0..n).collect()
}

/// A store whose reads panic: a bug in a hand-written store, met while a
/// continuation token is redeemed.
struct BrittleStore(MemoryStore);

impl ContinuationStore for BrittleStore {
    fn put<'a>(&'a self, token: &'a Token, entry: Entry) -> BoxFuture<'a, Result<(), StoreError>> {
        self.0.put(token, entry)
    }

    fn get<'a>(&'a self, _: &'a Token) -> BoxFuture<'a, Result<Option<Entry>, StoreError>> {
        Box::pin(async { panic!("the store's index is corrupt") })
    }

    fn ttl(&self) -> std::time::Duration {
        self.0.ttl()
    }
}

fn server() -> Server {
    Server::from_tools(tools![explode_in_rows, sturdy_rows, fixtures::count])
        .with_store(BrittleStore(MemoryStore::default()))
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_panic_while_a_token_is_redeemed_answers_an_error_and_the_server_serves_on() {
    let server = server();
    let probe = ok_json(
        &server
            // Over the inline budget (about 24 KB): a probe with a token.
            .call("sturdy_rows", json!({"n": 5000}), Caller::Process)
            .await,
    );
    let token = probe["continuation_token"].clone();
    assert!(token.is_string(), "{probe}");
    for mode in ["summary", "full"] {
        let redeem = json!({"continuation_token": token, "mode": mode});
        let answer = server.call("sturdy_rows", redeem, Caller::Process).await;
        assert_eq!(
            error_text(&answer),
            "`sturdy_rows` failed: it panicked: the store's index is corrupt"
        );
    }
    let next = server.call("count", json!({"n": 2}), Caller::Process).await;
    assert_eq!(ok_json(&next), json!([1, 2]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_that_panics_as_it_is_written_answers_an_error_with_the_message() {
    let server = server();
    let answer = server
        .call("explode_in_rows", json!({"n": 20}), Caller::Process)
        .await;
    assert_eq!(
        error_text(&answer),
        "`explode_in_rows` failed: it panicked: row 7 cannot be written"
    );
    let next = server.call("count", json!({"n": 1}), Caller::Process).await;
    assert_eq!(ok_json(&next), json!([1]));
}

#[tokio::test]
async fn a_result_that_panics_on_a_current_thread_runtime_answers_an_error() {
    let answer = server()
        .call("explode_in_rows", json!({"n": 8}), Caller::Process)
        .await;
    assert!(
        error_text(&answer).ends_with("it panicked: row 7 cannot be written"),
        "{answer:?}"
    );
}

#[tokio::test]
async fn a_panic_in_a_tool_that_answers_in_place_answers_an_error_and_the_server_serves_on() {
    let server = Server::from_tools(tools![explode_inline_rows])
        .build()
        .unwrap();
    let answer = server
        .call(
            "explode_inline_rows",
            json!({"n": BREAKS_AT}),
            Caller::Process,
        )
        .await;
    assert_eq!(
        error_text(&answer),
        "`explode_inline_rows` failed: it panicked: row 7 cannot be listed"
    );
    let next = server
        .call("explode_inline_rows", json!({"n": 3}), Caller::Process)
        .await;
    assert_eq!(ok_json(&next), json!([0, 1, 2]));
}

#[tokio::test]
async fn a_read_that_answers_in_place_still_stores_its_result_behind_a_probe() {
    // Behind a dispatcher, whose schema lets a token come back, a result
    // past the size backstop is stored: the one part of an in-place answer
    // that waits.
    let server = Server::from_tools(tools![explode_inline_rows])
        .with_dispatcher("rows")
        .with_heavy_config(HeavyConfig::new().with_size_backstop(Some(1_000)))
        .build()
        .unwrap();
    let list = |n: u32| json!({"resource": "inline_row", "action": "list", "params": {"n": n}});
    let small = ok_json(&server.call("rows", list(5), Caller::Process).await);
    assert_eq!(small, json!([0, 1, 2, 3, 4]), "under the backstop: whole");
    let probe = ok_json(&server.call("rows", list(500), Caller::Process).await);
    let token = probe["continuation_token"].clone();
    assert!(token.is_string(), "past the backstop: a probe, {probe}");
    let full = server
        .call(
            "rows",
            json!({"continuation_token": token, "mode": "full"}),
            Caller::Process,
        )
        .await;
    let rows = ok_json(&full);
    assert_eq!(rows.as_array().map(Vec::len), Some(500), "{rows}");
    assert_eq!(rows[499], json!(499));
}

/// Runs `work` and counts the panics this thread reported to the panic
/// hook meanwhile (a panic caught and turned into an answer still reaches
/// the hook, which prints it). Panics on other threads reach the hook as
/// before.
pub fn panics_on_this_thread<T>(work: impl FnOnce() -> T) -> (T, usize) {
    type Hook = dyn Fn(&PanicHookInfo<'_>) + Send + Sync;
    let counted = Arc::new(AtomicUsize::new(0));
    let previous: Arc<Hook> = Arc::from(panic::take_hook());
    let here = thread::current().id();
    {
        let (counted, previous) = (Arc::clone(&counted), Arc::clone(&previous));
        panic::set_hook(Box::new(move |info| {
            if thread::current().id() == here {
                counted.fetch_add(1, Ordering::SeqCst);
            }
            previous(info);
        }));
    }
    let done = work();
    drop(panic::take_hook());
    panic::set_hook(Box::new(move |info| previous(info)));
    (done, counted.load(Ordering::SeqCst))
}
