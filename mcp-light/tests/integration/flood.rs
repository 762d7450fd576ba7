//! A flood of large results from many callers at once: the in-memory store
//! stays within its byte cap, the process does not keep what was evicted,
//! and a quiet caller's small token survives the flood.

use std::sync::Arc;

use mcp_light::Caller;
use mcp_light::store::MemoryStore;
use mcp_light::store::{ContinuationStore, MemoryStoreConfig};
use serde_json::json;

use crate::fixtures::{Harness, ok_json};

/// The store's cap.
const CAP: usize = 4 << 20;
/// Callers flooding at once, and results each mints.
const CALLERS: usize = 8;
const MINTS: usize = 50;
/// Rows of each result: 250 of 1,024 characters, about 257 KB of JSON, so
/// the flood mints about 103 MB, 25 times the cap.
const ROWS: usize = 250;
const WIDTH: usize = 1_024;

/// This process's resident memory in bytes, from `/proc/self/statm`.
fn resident_bytes() -> usize {
    let statm = std::fs::read_to_string("/proc/self/statm").expect("a Linux /proc");
    let pages: usize = statm
        .split_whitespace()
        .nth(1)
        .and_then(|pages| pages.parse().ok())
        .expect("statm's second field is the resident page count");
    pages * 4096
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_large_results_keeps_the_store_under_its_cap_and_a_quiet_callers_token() {
    let store = Arc::new(MemoryStore::new(
        MemoryStoreConfig::new().with_max_bytes(CAP).unwrap(),
    ));
    let server = Harness::new()
        .dispatched_builder()
        .with_shared_store(Some(store.clone() as Arc<dyn ContinuationStore>))
        .build()
        .unwrap();
    let read =
        |n: usize| json!({"resource": "row", "action": "list", "params": {"n": n, "width": WIDTH}});
    let bob = || Caller::Session("bob".into());

    // Bob's one small result, over the size backstop so it gets a token.
    let probe = ok_json(&server.call("inventory", read(25), bob()).await);
    let token = probe["continuation_token"].clone();
    assert!(token.is_string(), "{probe}");

    let before = resident_bytes();
    let floods: Vec<_> = (0..CALLERS)
        .map(|caller| {
            let (server, store) = (server.clone(), store.clone());
            tokio::spawn(async move {
                let caller = Caller::Session(format!("flood-{caller}"));
                for _ in 0..MINTS {
                    let probe =
                        ok_json(&server.call("inventory", read(ROWS), caller.clone()).await);
                    assert!(probe["continuation_token"].is_string(), "{probe}");
                    assert!(store.bytes() <= CAP, "{} bytes held", store.bytes());
                }
            })
        })
        .collect();
    for flood in floods {
        flood.await.unwrap();
    }
    let grown = resident_bytes().saturating_sub(before);

    assert!(store.bytes() <= CAP);
    // Were the evicted results kept, the process would have grown by the
    // 103 MB minted; the store holds at most 4 MiB of it, and the rest is
    // the allocator's slack and the other tests running beside this one.
    assert!(
        grown < 64 << 20,
        "resident memory grew by {} MB during the flood",
        grown >> 20
    );
    let page = ok_json(
        &server
            .call("inventory", json!({"continuation_token": token}), bob())
            .await,
    );
    assert_eq!(page["total"], 25, "bob's token survived: {page}");
}
