//! Synchronous tool functions run where blocking is allowed, so one that
//! blocks does not stall the async calls around it; `inline` keeps a
//! trivial one on the calling thread; a panic still answers an error.

use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use mcp_light::prelude::*;
use serde_json::{Value, json};

use crate::fixtures::{self, error_text, ok_json};
use crate::panics::panics_on_this_thread;

/// Long enough that a blocker still waiting has surely been starved.
const PATIENCE: Duration = Duration::from_secs(5);

/// Held shut by the blocking tools, opened by the async one.
#[derive(Default)]
pub struct Gate {
    /// How many blockers are waiting, and whether the gate is open.
    state: Mutex<(usize, bool)>,
    changed: Condvar,
}

impl Gate {
    /// Blocks this thread until the gate opens or `PATIENCE` runs out;
    /// whether it opened.
    fn wait(&self) -> bool {
        let mut state = self.state.lock().unwrap();
        state.0 += 1;
        self.changed.notify_all();
        let (state, _) = self
            .changed
            .wait_timeout_while(state, PATIENCE, |(_, open)| !*open)
            .unwrap();
        state.1
    }

    fn open(&self) {
        self.state.lock().unwrap().1 = true;
        self.changed.notify_all();
    }

    /// Blocks this thread until `count` blockers wait.
    fn until_waiting(&self, count: usize) {
        let state = self.state.lock().unwrap();
        let (state, _) = self
            .changed
            .wait_timeout_while(state, PATIENCE, |(waiting, _)| *waiting < count)
            .unwrap();
        assert_eq!(state.0, count, "the blockers never started");
    }
}

// The gate is read with `Context::state`, not `State<Gate>`, so that the
// servers of other modules, which have no gate, still start: these tools
// answer an error there.

/// Blocks its thread until an async call opens the gate.
#[mcp_tool]
fn blocking_wait(ctx: &Context, caller: &Caller) -> Result<Value, ToolError> {
    let opened = ctx.state::<Gate>()?.wait();
    Ok(json!({"opened": opened, "process": matches!(caller, Caller::Process)}))
}

/// Opens the gate.
#[mcp_tool]
async fn blocking_open(ctx: &Context) -> Result<bool, ToolError> {
    ctx.state::<Gate>()?.open();
    Ok(true)
}

/// The thread it ran on.
#[mcp_tool]
fn blocking_thread() -> String {
    format!("{:?}", thread::current().id())
}

/// The thread it ran on, by the caller's own.
#[mcp_tool(inline)]
fn blocking_inline_thread(caller: &Caller) -> String {
    let _ = caller;
    format!("{:?}", thread::current().id())
}

fn server() -> (Server, Arc<Gate>) {
    let (builder, gate) = builder();
    (builder.build().unwrap(), gate)
}

fn builder() -> (ServerBuilder, Arc<Gate>) {
    let tools = tools![
        blocking_wait,
        blocking_open,
        blocking_thread,
        blocking_inline_thread,
        // A sync tool that panics.
        fixtures::explode,
    ];
    let gate = Arc::new(Gate::default());
    let builder = Server::from_tools(tools).with_shared_state(gate.clone());
    (builder, gate)
}

fn here() -> String {
    format!("{:?}", thread::current().id())
}

fn answered_thread(result: &mcp_light::CallToolResult) -> String {
    ok_json(result).as_str().unwrap().to_owned()
}

/// Both workers' worth of blocked sync tools, then an async call that
/// opens their gate: it runs, so the blockers were moved off the workers.
/// Inline, they hold both workers until they give up waiting.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn blocking_sync_tools_do_not_stall_an_async_call_on_two_workers() {
    let (server, gate) = server();
    let blockers: Vec<_> = (0..2)
        .map(|_| {
            let server = server.clone();
            tokio::spawn(async move {
                server
                    .call("blocking_wait", json!({}), Caller::Process)
                    .await
            })
        })
        .collect();
    // This body runs on the runtime's own thread, not a worker.
    gate.until_waiting(2);

    let started = Instant::now();
    let opener = {
        let server = server.clone();
        tokio::spawn(async move {
            server
                .call("blocking_open", json!({}), Caller::Process)
                .await
        })
    };
    assert_eq!(ok_json(&opener.await.unwrap()), json!(true));
    for blocker in blockers {
        let answer = ok_json(&blocker.await.unwrap());
        assert_eq!(
            answer,
            json!({"opened": true, "process": true}),
            "a blocked sync tool held a worker: the async call ran only after {:?}",
            started.elapsed()
        );
    }
}

/// On a current-thread runtime too: the blocker and the opener in one
/// `join!`, on the runtime's only thread.
#[tokio::test]
async fn a_blocking_sync_tool_does_not_stall_a_current_thread_runtime() {
    let (server, _) = server();
    let (blocked, opened) = tokio::join!(
        server.call("blocking_wait", json!({}), Caller::Process),
        server.call("blocking_open", json!({}), Caller::Process),
    );
    assert_eq!(ok_json(&opened), json!(true));
    assert_eq!(ok_json(&blocked)["opened"], json!(true), "{blocked:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_inline_tool_runs_on_the_calling_thread() {
    let (server, _) = server();
    let answer = server
        .call("blocking_inline_thread", json!({}), Caller::Process)
        .await;
    assert_eq!(answered_thread(&answer), here());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sync_tool_runs_off_the_calling_thread() {
    let (server, _) = server();
    let answer = server
        .call("blocking_thread", json!({}), Caller::Process)
        .await;
    assert_ne!(answered_thread(&answer), here());
}

#[tokio::test]
async fn a_sync_tool_answers_on_a_current_thread_runtime() {
    let (server, _) = server();
    let answer = server
        .call("blocking_thread", json!({}), Caller::Process)
        .await;
    assert!(answered_thread(&answer).starts_with("ThreadId("));
}

#[test]
fn a_sync_tool_runs_inline_without_a_runtime() {
    let (server, _) = server();
    let answer = block_on_here(server.call("blocking_thread", json!({}), Caller::Process));
    assert_eq!(answered_thread(&answer), here());
}

/// The deadline answers a blocked sync tool's call on time; the function
/// itself runs on until the gate opens.
#[tokio::test]
async fn a_blocked_sync_tool_is_answered_at_the_deadline() {
    let (builder, gate) = builder();
    let server = builder
        .with_tool_deadline(Some(Duration::from_millis(100)))
        .build()
        .unwrap();
    let started = Instant::now();
    let answer = server
        .call("blocking_wait", json!({}), Caller::Process)
        .await;
    answered_at_the_deadline(&answer, started, &gate);
}

/// Checks that `answer`, asked for at `started`, is the 100 ms deadline's
/// and came before the tool could finish; then lets the tool finish.
fn answered_at_the_deadline(answer: &mcp_light::CallToolResult, started: Instant, gate: &Gate) {
    let took = started.elapsed();
    gate.open();
    let message = error_text(answer);
    assert!(
        message.contains("did not finish within 100 ms"),
        "{message}"
    );
    assert!(took < PATIENCE, "answered only after {took:?}");
}

/// A runtime built without its time driver runs sync tools too, and
/// nothing panics to find out it has no timer.
#[test]
fn a_sync_tool_answers_on_a_runtime_without_a_timer() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let (server, _) = server();
    let ((), panics) = panics_on_this_thread(|| {
        for _ in 0..2 {
            let answer =
                runtime.block_on(server.call("blocking_thread", json!({}), Caller::Process));
            assert!(answered_thread(&answer).starts_with("ThreadId("));
        }
    });
    assert_eq!(panics, 0, "a panic was printed");
}

/// The deadline holds on a runtime built without its time driver.
#[test]
fn a_blocked_sync_tool_is_answered_at_the_deadline_on_a_runtime_without_a_timer() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let (builder, gate) = builder();
    let server = builder
        .with_tool_deadline(Some(Duration::from_millis(100)))
        .build()
        .unwrap();
    let started = Instant::now();
    let (answer, panics) = panics_on_this_thread(|| {
        runtime.block_on(server.call("blocking_wait", json!({}), Caller::Process))
    });
    answered_at_the_deadline(&answer, started, &gate);
    assert_eq!(panics, 0, "a panic was printed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_sync_tool_answers_an_error() {
    let message = error_text(
        &server()
            .0
            .call("explode", json!({"depth": 3}), Caller::Process)
            .await,
    );
    assert!(
        message.contains("`explode` failed: it panicked: exploded at depth 3"),
        "{message}"
    );
}

#[tokio::test]
async fn a_panicking_sync_tool_answers_an_error_on_a_current_thread_runtime() {
    let message = error_text(
        &server()
            .0
            .call("explode", json!({"depth": 1}), Caller::Process)
            .await,
    );
    assert!(
        message.contains("it panicked: exploded at depth 1"),
        "{message}"
    );
}

/// Polls `future` to completion on this thread, outside any runtime.
fn block_on_here<T>(future: impl std::future::Future<Output = T>) -> T {
    use std::pin::pin;
    use std::task::{Context, Poll, Waker};
    let mut future = pin!(future);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(done) = future.as_mut().poll(&mut cx) {
            return done;
        }
    }
}
