//! Page 1 of a 10 MB stored list against a `full` redemption of it, on
//! Redis and in memory, in one run: what reading a page by range saves.
//!
//! ```text
//! cargo run --release -p inventory --features bench-tools,redis --example redis_paging
//! REDIS_URL=redis://127.0.0.1:6379 cargo run --release -p inventory --features bench-tools,redis --example redis_paging
//! ```
//!
//! Without `REDIS_URL` it starts its own `redis-server` (no persistence) on
//! a free port of 127.0.0.1 and stops it at the end. The list is the
//! inventory's `device_list` over enough fixture devices to make 10 MB; each
//! redemption is a whole `Server::call` with the probe's token.

#[path = "common/own_redis.rs"]
mod own_redis;

use own_redis::start_redis;

use std::sync::Arc;
use std::time::{Duration, Instant};

use inventory::db::{self, Db};
use inventory::fixture;
use mcp_light::store::{
    ContinuationStore, MemoryStore, MemoryStoreConfig, RedisStore, RedisStoreConfig,
};
use mcp_light::{Caller, Server};
use serde_json::json;

/// About 10 MB of devices (each ~710 bytes of JSON).
const DEVICES: usize = 14_100;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

/// Median time of `runs` redemptions of `token` with `arguments`, and the
/// bytes one answers.
async fn redeem(server: &Server, token: &str, mode: &str, runs: usize) -> (Duration, usize) {
    let arguments = json!({"continuation_token": token, "mode": mode});
    let mut times = Vec::with_capacity(runs);
    let mut bytes = 0;
    for _ in 0..runs {
        let started = Instant::now();
        let result = server
            .call("device_list", arguments.clone(), Caller::Process)
            .await;
        times.push(started.elapsed());
        assert_eq!(result.is_error, Some(false), "{result:?}");
        bytes = serde_json::to_string(&result.content).unwrap().len();
    }
    (median(times), bytes)
}

async fn measure(name: &str, db: &Db, store: Arc<dyn ContinuationStore>) {
    let server = inventory::server(db.clone())
        .with_shared_store(Some(store))
        .build()
        .unwrap();
    let probe = server.call("device_list", json!({}), Caller::Process).await;
    let probe = probe.structured_content.expect("a probe");
    let token = probe["continuation_token"]
        .as_str()
        .expect("a token: is the store up?");
    let size = probe["total_size"].as_u64().unwrap();
    let (page, page_bytes) = redeem(&server, token, "paginated", 50).await;
    let (full, full_bytes) = redeem(&server, token, "full", 8).await;
    println!(
        "| {name} | {:.1} MB | {:.3} ms ({} KB) | {:.1} ms ({:.1} MB) | **1/{:.0}** |",
        size as f64 / 1e6,
        page.as_secs_f64() * 1e3,
        page_bytes / 1000,
        full.as_secs_f64() * 1e3,
        full_bytes as f64 / 1e6,
        full.as_secs_f64() / page.as_secs_f64(),
    );
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let (url, _own) = match std::env::var("REDIS_URL") {
        Ok(url) => (url, None),
        Err(_) => {
            let (url, own) = start_redis(&std::env::temp_dir());
            (url, Some(own))
        }
    };
    let db = Db::open(None).unwrap();
    db.run_now(|conn| {
        db::ensure_sites(conn, fixture::new_sites())?;
        db::create_devices(conn, fixture::new_devices(DEVICES, 1))
    })
    .unwrap();
    let redis = RedisStore::open(&url, RedisStoreConfig::new()).unwrap();
    redis.ping().await.expect("Redis answers");
    let memory = MemoryStore::new(MemoryStoreConfig::new().with_max_bytes(256 << 20).unwrap());

    println!("## Page 1 (20 items) of a stored list against `full`, by `Server::call`\n");
    println!("| store | stored | page 1 | full | page / full |");
    println!("|---|---:|---:|---:|---:|");
    measure("Redis", &db, Arc::new(redis)).await;
    measure("memory", &db, Arc::new(memory)).await;
}
