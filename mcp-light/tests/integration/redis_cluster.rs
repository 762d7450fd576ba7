//! The Redis store on a real three-master Redis Cluster, started by each
//! test on free ports of 127.0.0.1 (`redis-server --cluster-enabled yes`,
//! then `redis-cli --cluster create`) and stopped at its end. Without
//! `redis-server` the tests fail under CI (`CI=true`) and are skipped,
//! loudly, elsewhere.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use mcp_light::store::{
    ContinuationStore, Entry, MemoryStore, Origin, Owner, RedisStore, RedisStoreConfig, Sealed,
    StoredItems,
};
use mcp_light::token::Token;
use serde_json::json;

use super::redis_store::{chunks_of, redis_server_installed, uneven_list};

/// Three `redis-server` masters joined into one cluster, of the test's own.
pub(crate) struct Cluster {
    ports: Vec<u16>,
    children: Vec<Child>,
    dir: PathBuf,
}

impl Cluster {
    /// A fresh cluster whose every node reports `cluster_state:ok`, or
    /// `None` (skip) when Redis is not installed outside CI.
    pub(crate) fn start() -> Option<Cluster> {
        if !redis_server_installed() {
            return None;
        }
        // Each node's client port and cluster bus port, all free at once.
        let listeners: Vec<std::net::TcpListener> = (0..6)
            .map(|_| std::net::TcpListener::bind("127.0.0.1:0").unwrap())
            .collect();
        let free: Vec<u16> = listeners
            .iter()
            .map(|l| l.local_addr().unwrap().port())
            .collect();
        drop(listeners);
        let dir = std::env::temp_dir().join(format!(
            "mcp-light-test-redis-cluster-{}-{}",
            std::process::id(),
            free[0]
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let mut cluster = Cluster {
            ports: free[..3].to_vec(),
            children: Vec::new(),
            dir,
        };
        for (&port, &bus) in free[..3].iter().zip(&free[3..]) {
            let config = cluster.dir.join(format!("nodes-{port}.conf"));
            let child = Command::new("redis-server")
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
                .args([
                    "--cluster-enabled",
                    "yes",
                    "--cluster-port",
                    &bus.to_string(),
                ])
                .arg("--cluster-config-file")
                .arg(&config)
                .arg("--dir")
                .arg(&cluster.dir)
                .args(["--save", "", "--appendonly", "no"])
                .stdout(Stdio::null())
                .spawn()
                .unwrap();
            cluster.children.push(child);
        }
        for &port in &cluster.ports {
            wait_until(&format!("redis-server accepts on port {port}"), || {
                std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
            });
        }
        let created = Command::new("redis-cli")
            .args(["--cluster", "create"])
            .args(cluster.ports.iter().map(|port| format!("127.0.0.1:{port}")))
            .args(["--cluster-replicas", "0", "--cluster-yes"])
            .stdout(Stdio::null())
            .status()
            .unwrap();
        assert!(created.success(), "redis-cli --cluster create: {created}");
        for &port in &cluster.ports {
            wait_until(&format!("cluster_state:ok on port {port}"), || {
                let info = Command::new("redis-cli")
                    .args(["-p", &port.to_string(), "cluster", "info"])
                    .output()
                    .unwrap();
                String::from_utf8_lossy(&info.stdout).contains("cluster_state:ok")
            });
        }
        Some(cluster)
    }

    /// One URL a node, as [`RedisStore::open_cluster`] takes them.
    pub(crate) fn urls(&self) -> Vec<String> {
        self.ports
            .iter()
            .map(|port| format!("redis://127.0.0.1:{port}"))
            .collect()
    }

    pub(crate) fn store(
        &self,
        config: RedisStoreConfig,
    ) -> RedisStore<redis::cluster_async::ClusterConnection> {
        let urls = self.urls();
        let urls: Vec<&str> = urls.iter().map(String::as_str).collect();
        RedisStore::open_cluster(&urls, config).unwrap()
    }

    /// One command on node `node` alone (not through the cluster client).
    async fn command<T: redis::FromRedisValue>(&self, node: usize, args: &[&str]) -> T {
        let client = redis::Client::open(self.urls()[node].as_str()).unwrap();
        let mut connection = client.get_multiplexed_async_connection().await.unwrap();
        let mut command = redis::cmd(args[0]);
        for arg in &args[1..] {
            command.arg(*arg);
        }
        command.query_async(&mut connection).await.unwrap()
    }

    /// For each hash tag among the store's keys, the nodes that hold keys
    /// under it and how many keys in all.
    async fn keys_by_tag(&self) -> BTreeMap<String, (BTreeSet<usize>, usize)> {
        let mut by_tag: BTreeMap<String, (BTreeSet<usize>, usize)> = BTreeMap::new();
        for node in 0..self.ports.len() {
            let keys: Vec<String> = self.command(node, &["KEYS", "mcp-light:*"]).await;
            for key in keys {
                let tag = key
                    .split_once('{')
                    .and_then(|(_, rest)| rest.split_once('}'))
                    .map(|(tag, _)| tag.to_owned())
                    .unwrap_or_else(|| panic!("`{key}` has no hash tag"));
                let (nodes, count) = by_tag.entry(tag).or_default();
                nodes.insert(node);
                *count += 1;
            }
        }
        by_tag
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(20) {
        if done() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("waited 20 s for {what}");
}

fn alice() -> Owner {
    // With the scopes its tool required: the store keeps them with the
    // entry, and every read gives them back.
    Owner::new("principal:alice", "device_list").with_scopes(["inventory:read"])
}

#[tokio::test]
async fn entries_spread_over_every_master_each_on_one_slot_and_read_back() {
    let Some(cluster) = Cluster::start() else {
        return;
    };
    let store = cluster.store(RedisStoreConfig::new());
    store.ping().await.expect("every master answers");
    let memory = MemoryStore::default();
    let digest: Arc<[u8]> = Arc::from(&b"digest"[..]);
    let mut written = Vec::new();
    for i in 0..60 {
        let list = json!(
            (0..i % 7 + 3)
                .map(|j| json!({"entry": i, "item": j}))
                .collect::<Vec<_>>()
        );
        let stored = Entry::new(
            alice(),
            Origin::BulkWrite,
            serde_json::to_vec(&list).unwrap(),
        )
        .with_digest(Some(digest.clone()));
        let token = Token::mint().unwrap();
        store.put(&token, stored.clone()).await.unwrap();
        memory.put(&token, stored.clone()).await.unwrap();
        written.push((token, stored));
    }

    // Each entry's four keys (owner, digest, offsets, body) on one node;
    // every master holds some entries.
    let by_tag = cluster.keys_by_tag().await;
    assert_eq!(by_tag.len(), written.len());
    for (token, _) in &written {
        let (nodes, count) = &by_tag[token.as_str()];
        assert_eq!((nodes.len(), *count), (1, 4), "{token:?}: {nodes:?}");
    }
    for node in 0..3 {
        let size: u64 = cluster.command(node, &["DBSIZE"]).await;
        assert!(size > 0, "master {node} holds no entry: {by_tag:?}");
    }

    for (token, stored) in &written {
        assert_eq!(store.get(token).await.unwrap().as_ref(), Some(stored));
        let info = store.info(token).await.unwrap().expect("stored");
        assert_eq!(
            (info.size, info.digest),
            (stored.body.len() as u64, Some(digest.clone()))
        );
        for range in [0..2, 1..3, 2..20, 40..60] {
            let page = store.get_items(token, range.clone()).await.unwrap();
            assert_eq!(page, memory.get_items(token, range.clone()).await.unwrap());
            let Some(StoredItems::List(page)) = page else {
                panic!("{range:?}: a stored list reads as a list");
            };
            assert_eq!(
                page.total,
                serde_json::from_slice::<Vec<serde_json::Value>>(&stored.body)
                    .unwrap()
                    .len()
            );
        }
    }
    let unknown = Token::mint().unwrap();
    assert_eq!(store.get(&unknown).await.unwrap(), None);
    assert_eq!(store.get_items(&unknown, 0..5).await.unwrap(), None);

    // What the hash tags avoid: a pipeline over two entries on different
    // slots is refused by the cluster.
    let (a, b) = written
        .iter()
        .flat_map(|(a, _)| written.iter().map(move |(b, _)| (a, b)))
        .find(|(a, b)| by_tag[a.as_str()].0 != by_tag[b.as_str()].0)
        .expect("two entries on different masters");
    let mut pipe = redis::pipe();
    pipe.cmd("GET")
        .arg(format!("mcp-light:{{{}}}:m", a.as_str()));
    pipe.cmd("GET")
        .arg(format!("mcp-light:{{{}}}:m", b.as_str()));
    let client = redis::cluster::ClusterClient::new(cluster.urls()).unwrap();
    let mut connection = client.get_async_connection().await.unwrap();
    let refused = pipe
        .query_async::<(Option<Vec<u8>>, Option<Vec<u8>>)>(&mut connection)
        .await;
    assert!(refused.is_err(), "{refused:?}");
}

#[tokio::test]
async fn a_large_entry_streams_onto_one_slot_and_pages_back() {
    let Some(cluster) = Cluster::start() else {
        return;
    };
    let part_bytes = 1 << 10;
    let store = cluster.store(RedisStoreConfig::new().with_part_bytes(part_bytes).unwrap());
    let memory = MemoryStore::default();
    let n = 300;
    let (items, body, starts) = uneven_list(n);
    let parts = (body.len() as u64).div_ceil(part_bytes);
    assert!(parts > 40, "{}", body.len());
    let chunks = chunks_of(&body, &starts, &[1, 700, 1_024, 5_000, 333, 2_048]);
    let digest: Arc<[u8]> = Arc::from(&b"opaque \x00\xff"[..]);
    let sealed = Sealed::new(body.len() as u64, Some(n as u64), digest.clone());
    let token = Token::mint().unwrap();
    let stores: [&dyn ContinuationStore; 2] = [&store, &memory];
    for into in stores {
        let mut writer = into
            .begin(token.clone(), alice(), Origin::Read)
            .await
            .unwrap();
        for chunk in &chunks {
            writer.write(chunk.clone()).await.unwrap();
        }
        writer.commit(sealed.clone()).await.unwrap();
    }
    let by_tag = cluster.keys_by_tag().await;
    let (nodes, count) = &by_tag[token.as_str()];
    // The body's parts, the offsets, the owner, the digest: on one node.
    assert_eq!((nodes.len(), *count as u64), (1, parts + 3), "{nodes:?}");

    let found = store.get(&token).await.unwrap().expect("committed");
    assert_eq!(&*found.body, &body[..]);
    assert_eq!(Some(&found), memory.get(&token).await.unwrap().as_ref());
    assert_eq!(
        store.info(&token).await.unwrap(),
        memory.info(&token).await.unwrap()
    );
    for size in [1, 7, 64, 200] {
        for start in (0..n + 10).step_by(size) {
            let range = start..start + size;
            let page = store.get_items(&token, range.clone()).await.unwrap();
            assert_eq!(
                page,
                memory.get_items(&token, range.clone()).await.unwrap(),
                "{range:?}"
            );
            let Some(StoredItems::List(page)) = page else {
                panic!("{range:?}: a streamed list reads as a list");
            };
            assert!(
                page.items == items[range.start.min(n)..range.end.min(n)],
                "{range:?}"
            );
        }
    }

    // A writer dropped half-way deletes its keys, all on one slot.
    let dropped = Token::mint().unwrap();
    let mut writer = store
        .begin(dropped.clone(), alice(), Origin::Read)
        .await
        .unwrap();
    for chunk in chunks_of(&body, &starts, &[4_000]).into_iter().take(3) {
        writer.write(chunk).await.unwrap();
    }
    assert!(cluster.keys_by_tag().await.contains_key(dropped.as_str()));
    drop(writer);
    assert_eq!(store.get(&dropped).await.unwrap(), None);
    let started = Instant::now();
    while cluster.keys_by_tag().await.contains_key(dropped.as_str()) {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the dropped entry's keys stay"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test]
async fn tasks_run_through_the_task_store_on_a_cluster() {
    let Some(cluster) = Cluster::start() else {
        return;
    };
    let store = cluster.store(RedisStoreConfig::new());
    let tasks = store.tasks().expect("the Redis store keeps tasks");
    let ttl = Duration::from_secs(60);
    let ids: Vec<String> = (0..30)
        .map(|i| format!("task-{i}-{}", Token::mint().unwrap().as_str()))
        .collect();
    for id in &ids {
        tasks.create(id, b"working".to_vec(), ttl).await.unwrap();
        let read = tasks.read(id).await.unwrap().expect("created");
        assert_eq!(
            (read.record.as_slice(), read.answered.len()),
            (&b"working"[..], 0)
        );
        tasks.write(id, b"input_required".to_vec()).await.unwrap();
        tasks
            .respond(
                id,
                vec![("a".into(), b"1".to_vec()), ("b".into(), b"2".to_vec())],
                ttl,
            )
            .await
            .unwrap();
        let read = tasks.read(id).await.unwrap().expect("written");
        assert_eq!(read.record, b"input_required");
        let answered: BTreeSet<String> = read.answered.into_iter().collect();
        assert_eq!(answered, BTreeSet::from(["a".to_owned(), "b".to_owned()]));
        let signals = tasks.signals(id, true).await.unwrap();
        assert!(!signals.cancelled);
        let mut responses = signals.responses;
        responses.sort();
        assert_eq!(
            responses,
            [
                ("a".to_owned(), b"1".to_vec()),
                ("b".to_owned(), b"2".to_vec())
            ]
        );
        tasks.cancel(id, ttl).await.unwrap();
        assert!(tasks.signals(id, false).await.unwrap().cancelled);
    }
    assert_eq!(tasks.read("never-created").await.unwrap(), None);

    // Each task's record, flag and answers on one node; the tasks spread.
    let by_tag = cluster.keys_by_tag().await;
    let mut masters: BTreeSet<usize> = BTreeSet::new();
    for id in &ids {
        let (nodes, count) = &by_tag[id.as_str()];
        assert_eq!((nodes.len(), *count), (1, 3), "{id}: {nodes:?}");
        masters.extend(nodes);
    }
    assert!(masters.len() > 1, "30 tasks on one master: {masters:?}");
}
