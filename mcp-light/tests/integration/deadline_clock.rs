//! A server's deadline clock belongs to the server: its thread starts with
//! the first deadline armed and is gone once the server is dropped.

use std::future::Future;
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Wake, Waker};
use std::thread::{self, Thread};
use std::time::{Duration, Instant};

use mcp_light::prelude::*;
use mcp_light::tools;
use serde_json::json;

use crate::fixtures::error_text;

/// Waits for what never comes: only its deadline ends it.
#[mcp_tool]
async fn clock_waits_forever() -> String {
    std::future::pending().await
}

/// The waker of [`block_on`]: it notes the kernel's id of each thread that
/// wakes it, and unparks the polling thread.
struct Noting {
    polling: Thread,
    wakers: Mutex<Vec<String>>,
}

impl Wake for Noting {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        // `/proc/thread-self` links to `<pid>/task/<tid>`.
        if let Ok(link) = std::fs::read_link("/proc/thread-self") {
            let tid = link
                .file_name()
                .map(|tid| tid.to_string_lossy().into_owned());
            self.wakers.lock().unwrap().extend(tid);
        }
        self.polling.unpark();
    }
}

/// Polls `future` on this thread, with no runtime, and answers its output
/// and the threads that woke it.
fn block_on<F: Future>(future: F) -> (F::Output, Vec<String>) {
    let noting = Arc::new(Noting {
        polling: thread::current(),
        wakers: Mutex::new(Vec::new()),
    });
    let waker = Waker::from(Arc::clone(&noting));
    let mut cx = Context::from_waker(&waker);
    let mut future = pin!(future);
    let started = Instant::now();
    loop {
        if let Poll::Ready(done) = future.as_mut().poll(&mut cx) {
            let wakers = noting.wakers.lock().unwrap().clone();
            return (done, wakers);
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "never answered"
        );
        thread::park_timeout(Duration::from_millis(100));
    }
}

/// The name the kernel holds for thread `tid` of this process, while it
/// runs.
fn thread_name(tid: &str) -> Option<String> {
    let name = std::fs::read_to_string(format!("/proc/self/task/{tid}/comm")).ok()?;
    Some(name.trim_end().to_owned())
}

#[test]
fn the_deadline_clock_thread_ends_when_its_server_is_dropped() {
    let server = Server::from_tools(tools![clock_waits_forever])
        .with_tool_deadline(Some(Duration::from_millis(50)))
        .build()
        .unwrap();
    let (result, wakers) = block_on(server.call("clock_waits_forever", json!({}), Caller::Process));
    assert!(
        error_text(&result).starts_with("`clock_waits_forever` did not finish within 50 ms"),
        "{result:?}"
    );
    // The tool never wakes the call: what woke it is the clock's thread.
    let [clock] = wakers.as_slice() else {
        panic!("woken by {wakers:?}, not once by the clock");
    };
    let name = thread_name(clock).expect("the clock's thread runs while its server lives");
    // The kernel keeps the first 15 bytes of a thread's name.
    assert!(
        "mcp-light-deadlines".starts_with(&name),
        "woken by `{name}`"
    );

    drop(server);
    let dropped = Instant::now();
    while thread_name(clock).is_some() && dropped.elapsed() < Duration::from_secs(2) {
        thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(
        thread_name(clock),
        None,
        "the clock's thread outlived its server"
    );
}
