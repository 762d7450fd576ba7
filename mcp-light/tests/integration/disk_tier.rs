//! The in-memory store's disk tier, through heavy reads: results too large
//! for memory spill to files, which expire, are bounded, and go with the
//! store; a disk tier that cannot be used answers a probe without token.

use std::sync::Arc;
use std::time::Duration;

use mcp_light::ItemStream;
use mcp_light::prelude::*;
use mcp_light::store::MemoryStore;
use mcp_light::store::{ContinuationStore, Entry, ManualClock, MemoryStoreConfig, Origin, Owner};
use mcp_light::token::Token;
use serde_json::{Value, json};

use crate::fixtures::{keys, ok_json};
use crate::streaming::{
    TempDir, call, entry_files, eventually, keeping_all_over, row, server_over,
};

/// `n` rows of `width`, from a blocking producer.
#[mcp_heavy]
fn disk_rows(n: usize, width: usize) -> ItemStream<Value> {
    ItemStream::blocking(move |sender| {
        for i in 0..n {
            sender.send(row(i, width))?;
        }
        Ok(())
    })
}

/// About 5 MB: 5,000 rows of a kilobyte.
const N: usize = 5_000;
const WIDTH: usize = 1_000;

fn rows() -> Vec<Value> {
    (0..N).map(|i| row(i, WIDTH)).collect()
}

fn spilling(dir: &TempDir) -> MemoryStoreConfig {
    MemoryStoreConfig::new()
        .with_max_entry_bytes(64 << 10)
        .unwrap()
        .with_disk_dir(dir.path())
}

#[tokio::test]
async fn a_5_mb_result_spills_to_files_and_pages_read_from_them() {
    let dir = TempDir::new("spill");
    let store = Arc::new(MemoryStore::new(spilling(&dir)));
    // A caller that keeps pages of 200 rows and the whole 5 MB: what is
    // read is what the files hold, not what a client keeps.
    let server = keeping_all_over(store.clone()).build().unwrap();
    let rows = rows();
    let size = serde_json::to_vec(&rows).unwrap().len();
    assert!(size > 5_000_000, "{size}");

    let probe = ok_json(&call(&server, "disk_rows", json!({"n": N, "width": WIDTH})).await);
    assert_eq!(probe["total_size"], size);
    let token = probe["continuation_token"].clone();
    assert!(token.is_string(), "{probe}");

    let spill = store.spill_dir().expect("the result spilled");
    assert!(spill.starts_with(dir.path()), "{}", spill.display());
    let files = entry_files(&spill);
    assert_eq!(files.len(), 2, "a body and an index: {files:?}");
    let body = files.iter().find(|f| f.ends_with(".body")).expect("a body");
    let index = files
        .iter()
        .find(|f| f.ends_with(".index"))
        .expect("an index");
    assert_eq!(
        std::fs::metadata(spill.join(body)).unwrap().len(),
        size as u64
    );
    assert_eq!(
        std::fs::metadata(spill.join(index)).unwrap().len(),
        (N * 8) as u64
    );
    assert!(store.disk_bytes() >= size as u64, "{}", store.disk_bytes());
    assert!(store.bytes() < 64 << 10, "in memory: {}", store.bytes());
    assert_eq!(store.len(), 1);

    for (page, page_size) in [(1usize, 200usize), (13, 200), (25, 200), (7, 37), (136, 37)] {
        let answer = ok_json(
            &call(
                &server,
                "disk_rows",
                json!({"continuation_token": token, "page": page, "page_size": page_size}),
            )
            .await,
        );
        let start = (page - 1) * page_size;
        let end = (start + page_size).min(N);
        assert!(
            answer["items"].as_array().unwrap()[..] == rows[start..end],
            "page {page} of {page_size}"
        );
        assert_eq!(
            (&answer["page"], &answer["page_size"], &answer["total"]),
            (&json!(page), &json!(page_size), &json!(N)),
            "page {page} of {page_size}"
        );
        assert_eq!(answer["has_more"], end < N, "page {page} of {page_size}");
    }
    let full = ok_json(
        &call(
            &server,
            "disk_rows",
            json!({"continuation_token": token, "mode": "full"}),
        )
        .await,
    );
    assert!(full == Value::Array(rows), "full reads the whole file");
}

#[tokio::test]
async fn spilled_files_are_removed_when_the_entry_expires() {
    let dir = TempDir::new("ttl");
    let clock = Arc::new(ManualClock::new());
    let config = spilling(&dir).with_ttl(Duration::from_secs(300));
    let store = Arc::new(MemoryStore::with_clock(config, clock.clone()));
    let server = server_over(store.clone());
    let probe = ok_json(&call(&server, "disk_rows", json!({"n": N, "width": WIDTH})).await);
    assert!(probe["continuation_token"].is_string(), "{probe}");
    let spill = store.spill_dir().expect("spilled");
    assert_eq!(entry_files(&spill).len(), 2);

    clock.advance(Duration::from_secs(299));
    assert_eq!(store.len(), 1);
    assert_eq!(entry_files(&spill).len(), 2, "still live");

    clock.advance(Duration::from_secs(1));
    assert_eq!(store.len(), 0);
    assert!(
        eventually(Duration::from_secs(2), || entry_files(&spill).is_empty()).await,
        "expired files left: {:?}",
        entry_files(&spill)
    );
    assert_eq!(store.disk_bytes(), 0);
}

#[tokio::test]
async fn an_unusable_spill_directory_answers_a_probe_without_token_naming_it() {
    let dir = TempDir::new("unwritable");
    let file = dir.path().join("plain-file");
    std::fs::write(&file, b"not a directory").unwrap();
    let base = file.join("sub");
    let config = MemoryStoreConfig::new()
        .with_max_entry_bytes(64 << 10)
        .unwrap()
        .with_disk_dir(&base);
    let store = Arc::new(MemoryStore::new(config));
    let server = server_over(store.clone());

    let probe = ok_json(&call(&server, "disk_rows", json!({"n": N, "width": WIDTH})).await);
    assert_eq!(
        keys(&probe),
        ["preview", "total_size", "summary", "why_no_token", "usage"]
    );
    let why = probe["why_no_token"].as_str().unwrap();
    assert!(
        why.contains("spill directory") && why.contains(&base.display().to_string()),
        "{why}"
    );
    assert_eq!(probe["summary"]["count"], N);
    assert_eq!(store.len(), 0);
    assert!(store.spill_dir().is_none());
}

#[tokio::test]
async fn a_result_over_the_disk_bound_answers_a_probe_without_token_with_the_size() {
    let dir = TempDir::new("bound");
    let limit: u64 = 1 << 20;
    let store = Arc::new(MemoryStore::new(spilling(&dir).with_max_disk_bytes(limit)));
    let server = server_over(store.clone());

    let probe = ok_json(&call(&server, "disk_rows", json!({"n": N, "width": WIDTH})).await);
    assert_eq!(
        keys(&probe),
        ["preview", "total_size", "summary", "why_no_token", "usage"]
    );
    let why = probe["why_no_token"].as_str().unwrap();
    let numbers: Vec<u64> = why
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .collect();
    assert!(
        numbers.contains(&limit) && numbers.iter().any(|&n| n > limit),
        "the limit and a size over it: {why}"
    );
    assert!(why.contains("bytes"), "{why}");
    assert_eq!(probe["summary"]["count"], N);
    assert_eq!(store.len(), 0);
    assert_eq!(store.disk_bytes(), 0);
    if let Some(spill) = store.spill_dir() {
        assert!(
            eventually(Duration::from_secs(2), || entry_files(&spill).is_empty()).await,
            "files of the refused entry left: {:?}",
            entry_files(&spill)
        );
    }
}

fn big_entry() -> Entry {
    let owner = Owner::new("process", "disk_rows");
    let body = serde_json::to_vec(&(0..300).map(|i| row(i, 500)).collect::<Vec<_>>()).unwrap();
    Entry::new(owner, Origin::Read, body)
}

#[tokio::test]
async fn a_dropped_store_removes_its_dir_and_a_new_store_removes_only_stale_ones() {
    let dir = TempDir::new("stale");
    let live = MemoryStore::new(spilling(&dir));
    let token = Token::mint().unwrap();
    let entry = big_entry();
    live.put(&token, entry.clone()).await.unwrap();
    let live_dir = live.spill_dir().expect("a large put spills");
    assert!(!entry_files(&live_dir).is_empty());

    // Left by processes that stopped without dropping their store: one
    // with an unlocked lock file, one without any.
    let stale = dir.path().join("mcp-light-spill-4000000-7");
    std::fs::create_dir(&stale).unwrap();
    std::fs::write(stale.join("lock"), b"").unwrap();
    std::fs::write(stale.join("0.body"), b"[1,2]").unwrap();
    let lockless = dir.path().join("mcp-light-spill-4000000-8");
    std::fs::create_dir(&lockless).unwrap();
    std::fs::write(lockless.join("3.body"), b"[]").unwrap();
    let unrelated = dir.path().join("someone-elses");
    std::fs::create_dir(&unrelated).unwrap();

    let fresh = MemoryStore::new(spilling(&dir));
    assert!(!stale.exists(), "a stale spill dir is removed");
    assert!(!lockless.exists(), "a spill dir without a lock is removed");
    assert!(unrelated.exists(), "other directories are left alone");
    assert!(live_dir.exists(), "a live store's dir is kept");
    assert_eq!(live.get(&token).await.unwrap(), Some(entry));

    drop(live);
    assert!(!live_dir.exists(), "a dropped store removes its spill dir");
    drop(fresh);
    assert!(unrelated.exists());
}

/// A result refused part-way by the disk bound is answered with a
/// `why_no_token` that states the result's whole size, the `total_size` the
/// same probe gives, never the bytes written before the refusal.
#[tokio::test]
async fn the_disk_bound_reason_states_the_results_real_size() {
    let dir = TempDir::new("bound-size");
    let limit: u64 = 1 << 20;
    let store = Arc::new(MemoryStore::new(spilling(&dir).with_max_disk_bytes(limit)));
    let server = server_over(store.clone());
    let probe = ok_json(&call(&server, "disk_rows", json!({"n": N, "width": WIDTH})).await);
    let why = probe["why_no_token"].as_str().unwrap();
    let total = probe["total_size"].as_u64().unwrap();
    let stated: Vec<u64> = why
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|n| n.parse().ok())
        .filter(|&n| n != limit)
        .collect();
    assert!(
        stated.iter().all(|&n| n == total),
        "why_no_token states a size other than total_size {total}: {why}"
    );
}
