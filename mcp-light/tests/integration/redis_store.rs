//! The Redis store against a real `redis-server`, started by each test on
//! a free port of 127.0.0.1 and stopped at its end. Without `redis-server`
//! the tests fail under CI (`CI=true`) and are skipped, loudly, elsewhere.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use mcp_light::store::{
    ContinuationStore, Entry, MemoryStore, Origin, Owner, RedisStore, RedisStoreConfig, StoreError,
    StoredItems,
};
use mcp_light::token::Token;
#[cfg(feature = "http")]
use mcp_light::transport::HttpOptions;
use serde_json::json;

/// Whether `redis-server` and `redis-cli` are installed; without them a
/// test fails under CI (`CI=true`) and is skipped, loudly, elsewhere.
pub(crate) fn redis_server_installed() -> bool {
    let installed = ["redis-server", "redis-cli"].iter().all(|program| {
        Command::new(program)
            .arg("--version")
            .stdout(Stdio::null())
            .status()
            .is_ok()
    });
    if !installed {
        let message = "redis-server is not installed: the Redis store tests cannot run \
                       (apt-get install redis-server, which ships redis-cli; .ci/run \
                       installs it)";
        assert!(std::env::var("CI").as_deref() != Ok("true"), "{message}");
        eprintln!("\n*** SKIPPED: {message} ***");
    }
    installed
}

/// A `redis-server` of the test's own.
pub(crate) struct Redis {
    port: u16,
    child: Option<Child>,
    /// Settings after the defaults (`--save "" --appendonly no`), which
    /// they override.
    settings: Vec<String>,
}

impl Redis {
    /// A fresh server, or `None` (skip) when none is installed outside CI.
    pub(crate) fn start() -> Option<Redis> {
        Redis::start_with(&[])
    }

    /// A fresh server started with `settings` (`["--maxmemory", "64mb"]`)
    /// after the defaults, or `None` as [`Redis::start`].
    pub(crate) fn start_with(settings: &[&str]) -> Option<Redis> {
        if !redis_server_installed() {
            return None;
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let settings = settings.iter().map(|s| (*s).to_owned()).collect();
        let mut redis = Redis {
            port,
            child: None,
            settings,
        };
        redis.restart();
        Some(redis)
    }

    pub(crate) fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Starts it (again) on its port and waits until it accepts.
    fn restart(&mut self) {
        let port = self.port.to_string();
        let child = Command::new("redis-server")
            .args(["--port", &port, "--bind", "127.0.0.1", "--save", ""])
            .args(["--appendonly", "no"])
            .args(&self.settings)
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        self.child = Some(child);
        for _ in 0..200 {
            if std::net::TcpStream::connect(("127.0.0.1", self.port)).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        panic!("redis-server did not start on port {}", self.port);
    }

    fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// One command, for what the store does not show (expiry, keys).
    async fn command<T: redis::FromRedisValue>(&self, args: &[&str]) -> T {
        let client = redis::Client::open(self.url()).unwrap();
        let mut connection = client.get_multiplexed_async_connection().await.unwrap();
        let mut command = redis::cmd(args[0]);
        for arg in &args[1..] {
            command.arg(*arg);
        }
        command.query_async(&mut connection).await.unwrap()
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        self.kill();
    }
}

fn entry(origin: Origin, body: &[u8]) -> Entry {
    Entry::new(Owner::new("principal:alice", "device_list"), origin, body)
}

#[tokio::test]
async fn pages_read_from_redis_are_the_pages_of_the_memory_store() {
    let Some(redis) = Redis::start() else { return };
    let redis_store = RedisStore::open(&redis.url(), RedisStoreConfig::new()).unwrap();
    let memory = MemoryStore::default();
    let list = json!(
        (0..45)
            .map(|i| json!({"id": i, "tags": ["a", "]"]}))
            .collect::<Vec<_>>()
    );
    let stored = entry(Origin::BulkWrite, &serde_json::to_vec(&list).unwrap());
    let token = Token::mint().unwrap();
    redis_store.put(&token, stored.clone()).await.unwrap();
    memory.put(&token, stored.clone()).await.unwrap();
    for range in [
        0..20,
        20..40,
        40..60,
        44..45,
        45..65,
        0..45,
        3..3,
        usize::MAX - 1..usize::MAX,
    ] {
        let from_redis = redis_store.get_items(&token, range.clone()).await.unwrap();
        let from_memory = memory.get_items(&token, range.clone()).await.unwrap();
        assert_eq!(from_redis, from_memory, "{range:?}");
        let Some(StoredItems::List(items)) = from_redis else {
            panic!("a stored list reads as a list");
        };
        assert_eq!(items.total, 45);
    }
    assert_eq!(redis_store.get(&token).await.unwrap(), Some(stored));
}

#[tokio::test]
async fn a_single_write_or_an_object_comes_back_whole() {
    let Some(redis) = Redis::start() else { return };
    let store = RedisStore::open(&redis.url(), RedisStoreConfig::new()).unwrap();
    for stored in [
        entry(Origin::SingleWrite, br#"[{"id":1}]"#),
        entry(Origin::Read, br#"{"count":2,"results":[1,2]}"#),
    ] {
        let token = Token::mint().unwrap();
        store.put(&token, stored.clone()).await.unwrap();
        let found = store.get_items(&token, 0..20).await.unwrap();
        assert_eq!(found, Some(StoredItems::Whole(stored)));
    }
    let unknown = Token::mint().unwrap();
    assert_eq!(store.get_items(&unknown, 0..20).await.unwrap(), None);
    assert_eq!(store.get(&unknown).await.unwrap(), None);
}

#[tokio::test]
async fn redis_expires_an_entry_after_its_ttl() {
    let Some(redis) = Redis::start() else { return };
    let config = RedisStoreConfig::new().with_ttl(Duration::from_millis(400));
    let store = RedisStore::open(&redis.url(), config).unwrap();
    let token = Token::mint().unwrap();
    store
        .put(&token, entry(Origin::Read, b"[1,2,3]"))
        .await
        .unwrap();
    let keys: Vec<String> = redis.command(&["KEYS", "mcp-light:*"]).await;
    assert_eq!(keys.len(), 3, "{keys:?}");
    for key in &keys {
        assert!(key.contains(&format!("{{{}}}", token.as_str())), "{key}");
        let ttl: i64 = redis.command(&["PTTL", key]).await;
        assert!(ttl > 0 && ttl <= 400, "{key}: PTTL {ttl}");
    }
    assert!(store.get(&token).await.unwrap().is_some());
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert_eq!(store.get(&token).await.unwrap(), None);
    let keys: Vec<String> = redis.command(&["KEYS", "mcp-light:*"]).await;
    assert!(keys.is_empty(), "{keys:?}");
}

#[tokio::test]
async fn while_redis_is_down_the_store_fails_fast_and_it_recovers_without_a_restart() {
    let Some(mut redis) = Redis::start() else {
        return;
    };
    let config = RedisStoreConfig::new().with_timeout(Duration::from_millis(500));
    let store = RedisStore::open(&redis.url(), config).unwrap();
    let token = Token::mint().unwrap();
    store
        .put(&token, entry(Origin::Read, b"[1]"))
        .await
        .unwrap();

    redis.kill();
    for _ in 0..3 {
        let started = std::time::Instant::now();
        let error = store
            .put(&Token::mint().unwrap(), entry(Origin::Read, b"[2]"))
            .await;
        assert!(
            matches!(error, Err(StoreError::Unavailable(_))),
            "{error:?}"
        );
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "{:?}",
            started.elapsed()
        );
    }

    redis.restart();
    let mut stored = Err(StoreError::Unavailable("not tried".into()));
    for _ in 0..50 {
        stored = store.put(&token, entry(Origin::Read, b"[3]")).await;
        if stored.is_ok() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    stored.expect("the store works again once Redis is back");
    let found = store.get(&token).await.unwrap().unwrap();
    assert_eq!(&*found.body, b"[3]");
}

#[tokio::test]
async fn after_redis_restarts_an_idle_stores_first_read_and_first_write_succeed() {
    let Some(mut redis) = Redis::start() else {
        return;
    };
    // Two replicas' stores, each with a connection open, then idle through
    // a restart (a failover, a maintenance window): their connections die.
    let config = RedisStoreConfig::new().with_timeout(Duration::from_millis(500));
    let writer = RedisStore::open(&redis.url(), config.clone()).unwrap();
    let reader = RedisStore::open(&redis.url(), config).unwrap();
    let before = Token::mint().unwrap();
    writer
        .put(&before, entry(Origin::Read, b"[0]"))
        .await
        .unwrap();
    assert!(reader.get(&before).await.unwrap().is_some());

    redis.kill();
    redis.restart();
    let token = Token::mint().unwrap();
    writer
        .put(&token, entry(Origin::Read, b"[1,2,3]"))
        .await
        .expect("the first write after a restart");
    let found = reader
        .get(&token)
        .await
        .expect("the first read after a restart");
    assert_eq!(&*found.expect("the entry").body, b"[1,2,3]");

    redis.kill();
    redis.restart();
    let token = Token::mint().unwrap();
    writer
        .put(&token, entry(Origin::Read, b"[4,5]"))
        .await
        .expect("the first write after another restart");
    let page = reader
        .get_items(&token, 0..1)
        .await
        .expect("the first page read after a restart");
    let Some(StoredItems::List(page)) = page else {
        panic!("a page of the list: {page:?}");
    };
    assert_eq!(page.total, 2);
}

#[cfg(feature = "http")]
#[tokio::test]
async fn after_redis_restarts_an_idle_server_s_first_readiness_probe_answers_200() {
    let Some(mut redis) = Redis::start() else {
        return;
    };
    let config = RedisStoreConfig::new().with_timeout(Duration::from_millis(500));
    let store = RedisStore::open(&redis.url(), config).unwrap();
    let server = mcp_light::Server::from_tools(Vec::new())
        .with_store(store)
        .build()
        .unwrap();
    let served = crate::raw_http::serve(server, HttpOptions::new()).await;
    let readyz = || async {
        crate::raw_http::request(served.addr, "GET", "/readyz", &[], b"")
            .await
            .expect("an answer")
    };
    // The probe's connection is open, then Redis restarts while nothing
    // calls: that connection is dead when the next probe comes.
    assert_eq!(readyz().await.status, 200);
    redis.kill();
    redis.restart();
    let first = readyz().await;
    assert_eq!(
        (first.status, first.text().as_str()),
        (200, "ready\n"),
        "the first probe after the restart"
    );
}

/// A list of `n` items of uneven sizes (some several parts long), its
/// compact JSON and where each item starts in it.
pub(crate) fn uneven_list(n: usize) -> (Vec<Vec<u8>>, Vec<u8>, Vec<u64>) {
    let items: Vec<Vec<u8>> = (0..n)
        .map(|i| {
            let text = if i % 10 == 0 {
                "x".repeat(3_000 + i)
            } else {
                "é\"]".repeat(i % 37)
            };
            serde_json::to_vec(&json!({"id": i, "text": text, "nested": {"k": [i, null]}})).unwrap()
        })
        .collect();
    let mut body = b"[".to_vec();
    let mut starts = Vec::new();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            body.push(b',');
        }
        starts.push(body.len() as u64);
        body.extend_from_slice(item);
    }
    body.push(b']');
    (items, body, starts)
}

/// `body` cut into chunks of the sizes of `cuts`, in turn, each with the
/// item starts that fall in it.
pub(crate) fn chunks_of(
    body: &[u8],
    starts: &[u64],
    cuts: &[usize],
) -> Vec<mcp_light::store::Chunk> {
    let mut chunks = Vec::new();
    let mut at = 0;
    for &cut in cuts.iter().cycle() {
        if at >= body.len() {
            break;
        }
        let end = (at + cut).min(body.len());
        let in_chunk: Vec<u64> = starts
            .iter()
            .copied()
            .filter(|&s| (at as u64..end as u64).contains(&s))
            .collect();
        chunks.push(mcp_light::store::Chunk::new(
            body[at..end].to_vec(),
            in_chunk,
        ));
        at = end;
    }
    chunks
}

fn alice() -> Owner {
    // With the scopes its tool required: the store keeps them with the
    // entry, and every read gives them back.
    Owner::new("principal:alice", "device_list").with_scopes(["inventory:read"])
}

#[tokio::test]
async fn an_entry_streamed_over_many_small_parts_reads_as_the_memory_stores() {
    use mcp_light::store::Sealed;
    use std::sync::Arc;

    let Some(redis) = Redis::start() else { return };
    let part_bytes = 1 << 10;
    let redis_store = RedisStore::open(
        &redis.url(),
        RedisStoreConfig::new().with_part_bytes(part_bytes).unwrap(),
    )
    .unwrap();
    let memory = MemoryStore::default();
    let spill = std::env::temp_dir().join(format!(
        "mcp-light-test-redis-spill-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos()
    ));
    let on_disk = MemoryStore::new(
        mcp_light::store::MemoryStoreConfig::new()
            .with_max_entry_bytes(8 << 10)
            .unwrap()
            .with_disk_dir(&spill),
    );

    let n = 300;
    let (items, body, starts) = uneven_list(n);
    assert!(body.len() as u64 > 40 * part_bytes, "{}", body.len());
    let chunks = chunks_of(&body, &starts, &[1, 700, 1_024, 5_000, 333, 2_048]);
    assert!(chunks.len() > 20);
    let digest: Arc<[u8]> = Arc::from(&b"opaque digest \x00\xff"[..]);
    let sealed = Sealed::new(body.len() as u64, Some(n as u64), digest.clone());
    let token = Token::mint().unwrap();
    let stores: [&dyn ContinuationStore; 3] = [&redis_store, &memory, &on_disk];
    for store in stores {
        let mut writer = store
            .begin(token.clone(), alice(), Origin::Read)
            .await
            .unwrap();
        for chunk in &chunks {
            writer.write(chunk.clone()).await.unwrap();
        }
        writer.commit(sealed.clone()).await.unwrap();
    }
    assert!(on_disk.spill_dir().is_some(), "the third store spilled");
    let parts: Vec<String> = redis.command(&["KEYS", "mcp-light:*:b*"]).await;
    assert_eq!(
        parts.len() as u64,
        (body.len() as u64).div_ceil(part_bytes),
        "{parts:?}"
    );

    let from_redis = redis_store.get(&token).await.unwrap();
    assert_eq!(from_redis, memory.get(&token).await.unwrap());
    assert_eq!(from_redis, on_disk.get(&token).await.unwrap());
    let from_redis = from_redis.expect("committed");
    assert_eq!(&*from_redis.body, &body[..]);
    assert_eq!(from_redis.digest, Some(digest.clone()));

    let info = redis_store.info(&token).await.unwrap();
    assert_eq!(info, memory.info(&token).await.unwrap());
    assert_eq!(info, on_disk.info(&token).await.unwrap());
    let info = info.expect("committed");
    assert_eq!((info.size, info.digest), (body.len() as u64, Some(digest)));

    let mut ranges = vec![
        0..n,
        0..1,
        n - 1..n,
        n..n + 20,
        n - 5..n + 5,
        7..7,
        usize::MAX - 1..usize::MAX,
    ];
    for size in [1, 3, 7, 20, 64, 200] {
        ranges.extend((0..n).step_by(size).map(|start| start..start + size));
    }
    for range in ranges {
        let from_redis = redis_store.get_items(&token, range.clone()).await.unwrap();
        assert_eq!(
            from_redis,
            memory.get_items(&token, range.clone()).await.unwrap(),
            "{range:?}"
        );
        assert_eq!(
            from_redis,
            on_disk.get_items(&token, range.clone()).await.unwrap(),
            "{range:?}"
        );
        let Some(StoredItems::List(list)) = from_redis else {
            panic!("{range:?}: a streamed list reads as a list");
        };
        assert_eq!(list.total, n);
        let expected = &items[range.start.min(n)..range.end.min(n)];
        assert!(list.items == expected, "{range:?}");
    }
    drop(on_disk);
    let _ = std::fs::remove_dir_all(&spill);
}

#[tokio::test]
async fn a_redis_writer_dropped_before_commit_leaves_no_readable_entry() {
    let Some(redis) = Redis::start() else { return };
    let store = RedisStore::open(
        &redis.url(),
        RedisStoreConfig::new().with_part_bytes(1 << 10).unwrap(),
    )
    .unwrap();
    let (_, body, starts) = uneven_list(100);
    let token = Token::mint().unwrap();
    let mut writer = store
        .begin(token.clone(), alice(), Origin::Read)
        .await
        .unwrap();
    for chunk in chunks_of(&body, &starts, &[4_000]).into_iter().take(3) {
        writer.write(chunk).await.unwrap();
    }
    let written: Vec<String> = redis.command(&["KEYS", "mcp-light:*"]).await;
    assert!(written.len() > 3, "parts were written: {written:?}");
    drop(writer);

    assert_eq!(store.get(&token).await.unwrap(), None);
    assert_eq!(store.info(&token).await.unwrap(), None);
    assert_eq!(store.get_items(&token, 0..20).await.unwrap(), None);
    let mut left: Vec<String> = Vec::new();
    for _ in 0..100 {
        left = redis.command(&["KEYS", "mcp-light:*"]).await;
        if left.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(
        left.is_empty(),
        "the dropped entry's keys are deleted: {left:?}"
    );
}

#[tokio::test]
async fn a_heavy_read_within_its_inline_budget_writes_nothing_to_redis() {
    use crate::inline::{KEEPS_ALL, STREAMED_BUDGET, size_of};
    use mcp_light::clients::ClientTable;

    let Some(redis) = Redis::start() else { return };
    let store = RedisStore::open(&redis.url(), RedisStoreConfig::new()).unwrap();
    // A caller that keeps more than the budget: the budget decides.
    let server = crate::fixtures::linked()
        .with_store(store)
        .with_clients(ClientTable::new().with_unknown_client(KEEPS_ALL).unwrap())
        .build()
        .unwrap();
    let call = async |n: usize| {
        let args = json!({"n": n});
        let result = server
            .call("inline_rows_produced", args, mcp_light::Caller::Process)
            .await;
        crate::fixtures::ok_json(&result)
    };

    // More than two of the store's chunks, every one held back.
    let within = (STREAMED_BUDGET - 1000) / size_of(1);
    assert!(size_of(within) > 2 * (256 << 10));
    assert_eq!(call(within).await.as_array().map(Vec::len), Some(within));
    let written: Vec<String> = redis.command(&["KEYS", "mcp-light:*"]).await;
    assert!(written.is_empty(), "nothing written: {written:?}");

    // Twice the budget: kept, under a token.
    let probe = call(2 * within).await;
    assert!(probe["continuation_token"].is_string(), "{probe}");
    let written: Vec<String> = redis.command(&["KEYS", "mcp-light:*"]).await;
    assert!(!written.is_empty(), "the probe's result was written");
}
