//! The in-memory store's tests: expiry, byte accounting, eviction by share.

use super::budget::ENTRY_OVERHEAD;
use super::*;
use crate::store::index::OFFSET_BYTES;
use crate::store::{Origin, Owner};

const TTL: Duration = Duration::from_secs(300);

fn entry(body_len: usize) -> Entry {
    Entry::new(
        Owner::new("session-4f2a", "device_list"),
        Origin::Read,
        vec![b'x'; body_len],
    )
}

/// `entry` as the store keeps it in memory.
fn slot_of(entry: Entry) -> NewSlot {
    NewSlot {
        owner: entry.owner,
        origin: entry.origin,
        digest: entry.digest,
        body: Body::Memory {
            body: entry.body,
            index: IndexCell::default(),
        },
    }
}

fn token() -> Token {
    Token::mint().unwrap()
}

fn store_with(config: MemoryStoreConfig) -> (MemoryStore, Arc<ManualClock>) {
    let clock = Arc::new(ManualClock::new());
    (MemoryStore::with_clock(config, clock.clone()), clock)
}

fn store() -> (MemoryStore, Arc<ManualClock>) {
    store_with(MemoryStoreConfig::default())
}

/// Entries the store holds, without the sweep `len()` does first.
fn held(store: &MemoryStore) -> usize {
    lock(&store.inner.state).entries.len()
}

#[test]
fn defaults_are_64_mib_10_000_entries_300_s() {
    let config = MemoryStoreConfig::default();
    assert_eq!(config.max_bytes, 64 * 1024 * 1024);
    assert_eq!(config.max_entries, 10_000);
    assert_eq!(config.ttl, TTL);
}

#[test]
fn the_futures_can_cross_threads() {
    fn assert_send<T: Send>(_: T) {}
    let store = MemoryStore::default();
    let token = token();
    assert_send(store.put(&token, entry(1)));
    assert_send(store.get(&token));
}

#[tokio::test]
async fn put_then_get_returns_the_entry() {
    let (store, _) = store();
    let token = token();
    let stored = Entry::new(
        Owner::new("alice", "crm").with_scopes(["crm:read"]),
        Origin::BulkWrite,
        &br#"[{"id":1},{"id":2}]"#[..],
    );
    store.put(&token, stored.clone()).await.unwrap();
    assert_eq!(store.get(&token).await.unwrap(), Some(stored.clone()));
    // Reading does not consume: a result is paged through many gets.
    assert_eq!(store.get(&token).await.unwrap(), Some(stored.clone()));
    assert_eq!(store.len(), 1);
    assert!(!store.is_empty());
    assert_eq!(store.bytes(), cost_of(&token, &stored));
}

#[tokio::test]
async fn a_missing_token_reads_as_none() {
    let (store, _) = store();
    store.put(&token(), entry(10)).await.unwrap();
    assert_eq!(store.get(&token()).await.unwrap(), None);
    assert_eq!(store.len(), 1);
}

#[tokio::test]
async fn an_entry_expires_at_its_ttl_not_before() {
    let (store, clock) = store();
    clock.set(Duration::from_secs(1_000));
    let token = token();
    store.put(&token, entry(10)).await.unwrap();

    clock.set(Duration::from_secs(1_000) + TTL - Duration::from_nanos(1));
    assert!(store.get(&token).await.unwrap().is_some());
    clock.set(Duration::from_secs(1_000) + TTL);
    assert_eq!(store.get(&token).await.unwrap(), None);
    // Dropped on that read, not only hidden.
    assert_eq!(held(&store), 0);
    assert_eq!(store.bytes(), 0);

    clock.advance(TTL);
    assert_eq!(store.get(&token).await.unwrap(), None);
}

#[tokio::test]
async fn get_does_not_refresh_the_ttl() {
    let (store, clock) = store();
    let token = token();
    store.put(&token, entry(10)).await.unwrap();
    for _ in 0..4 {
        clock.advance(TTL / 5);
        assert!(store.get(&token).await.unwrap().is_some());
    }
    clock.advance(TTL / 5);
    assert_eq!(store.get(&token).await.unwrap(), None);
}

#[tokio::test]
async fn put_sweeps_expired_entries_without_a_read() {
    let (store, clock) = store();
    for _ in 0..3 {
        store.put(&token(), entry(10)).await.unwrap();
    }
    clock.advance(TTL / 2);
    let younger = token();
    store.put(&younger, entry(10)).await.unwrap();
    clock.advance(TTL / 2);
    store.put(&token(), entry(10)).await.unwrap();
    // The three old ones are gone; the younger and the newest remain.
    assert_eq!(held(&store), 2);
    assert!(store.get(&younger).await.unwrap().is_some());
}

#[tokio::test]
async fn a_flood_stays_under_the_byte_cap_and_keeps_the_newest() {
    let max_bytes = 16 << 20;
    let (store, _) = store_with(MemoryStoreConfig::new().with_max_bytes(max_bytes).unwrap());
    let mut puts = Vec::with_capacity(10_000);
    for i in 0..10_000 {
        // ~7 KB bodies of varying size, so eviction is not in lockstep.
        let (token, entry) = (token(), entry(7_000 + i % 257));
        let cost = cost_of(&token, &entry);
        store.put(&token, entry).await.unwrap();
        assert!(store.bytes() <= max_bytes, "over the cap after put {i}");
        puts.push((token, cost));
    }

    // The survivors are the longest run of newest entries that fits.
    let mut kept = 0;
    let mut kept_bytes = 0;
    for (_, cost) in puts.iter().rev() {
        if kept_bytes + cost > max_bytes {
            break;
        }
        kept += 1;
        kept_bytes += cost;
    }
    assert!(kept > 2_000 && kept < 2_400, "kept {kept}");
    assert_eq!(store.len(), kept);
    assert_eq!(store.bytes(), kept_bytes);
    let (evicted, survivors) = puts.split_at(puts.len() - kept);
    for (token, _) in evicted {
        assert_eq!(store.get(token).await.unwrap(), None);
    }
    for (token, _) in survivors {
        assert!(store.get(token).await.unwrap().is_some());
    }
}

fn entry_of(caller: &str, body_len: usize) -> Entry {
    let mut entry = entry(body_len);
    entry.owner.caller = caller.to_owned();
    entry
}

#[tokio::test]
async fn a_caller_flooding_the_store_evicts_its_own_entries_not_anothers() {
    let (store, _) = store_with(MemoryStoreConfig::new().with_max_bytes(200_000).unwrap());
    let small = token();
    store.put(&small, entry_of("bob", 100)).await.unwrap();
    let mut flood = Vec::new();
    for _ in 0..40 {
        let token = token();
        store
            .put(&token, entry_of("mallory", 20_000))
            .await
            .unwrap();
        assert!(store.bytes() <= 200_000);
        flood.push(token);
    }
    assert!(
        store.get(&small).await.unwrap().is_some(),
        "bob's token survives mallory's flood"
    );
    // Mallory keeps her newest entries.
    assert!(store.get(flood.last().unwrap()).await.unwrap().is_some());
    assert!(store.get(&flood[0]).await.unwrap().is_none());
}

#[tokio::test]
async fn an_entry_over_max_entry_bytes_is_refused_and_evicts_nothing() {
    let (store, _) = store_with(
        MemoryStoreConfig::new()
            .with_max_entry_bytes(5_000)
            .unwrap(),
    );
    store.put(&token(), entry(100)).await.unwrap();
    let err = store.put(&token(), entry(5_000)).await.unwrap_err();
    assert!(
        matches!(err, StoreError::TooLarge { limit: 5_000, .. }),
        "{err:?}"
    );
    assert_eq!(store.len(), 1);
}

#[tokio::test]
async fn a_caller_under_its_share_makes_room_from_the_largest_holder() {
    let (store, _) = store_with(
        MemoryStoreConfig::new()
            .with_max_entries(4)
            .with_caller_share_percent(50)
            .unwrap(),
    );
    let bob = token();
    store.put(&bob, entry_of("bob", 10)).await.unwrap();
    let carols: Vec<Token> = (0..4).map(|_| token()).collect();
    for carol in &carols {
        store.put(carol, entry_of("carol", 10)).await.unwrap();
    }
    // The store was full and carol over her share of 2: her fourth
    // evicted her own oldest.
    assert!(store.get(&carols[0]).await.unwrap().is_none());
    assert!(store.get(&bob).await.unwrap().is_some());
    // Erin and dave hold nothing; carol holds the most, so her oldest
    // go, although bob's entry is older.
    store.put(&token(), entry_of("erin", 10)).await.unwrap();
    store.put(&token(), entry_of("dave", 10)).await.unwrap();
    assert!(store.get(&carols[2]).await.unwrap().is_none());
    assert!(store.get(&carols[3]).await.unwrap().is_some());
    assert!(store.get(&bob).await.unwrap().is_some());
    let state = lock(&store.inner.state);
    let mut held: Vec<(&str, usize, usize)> = state
        .by_bytes
        .iter()
        .map(|(bytes, name)| (&**name, *bytes, state.callers[name].seqs.len()))
        .collect();
    assert!(held.is_sorted_by_key(|(_, bytes, _)| *bytes), "{held:?}");
    held.sort();
    let counts: Vec<(&str, usize)> = held.iter().map(|(name, _, n)| (*name, *n)).collect();
    assert_eq!(counts, [("bob", 1), ("carol", 1), ("dave", 1), ("erin", 1)]);
}

#[test]
fn a_share_of_zero_is_refused_with_a_sentence() {
    let error = MemoryStoreConfig::new()
        .with_caller_share_percent(0)
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "MemoryStoreConfig::caller_share_percent must be from 1 to 100; got 0 \
         (the share of the store one caller may hold, in percent; the default is 25)"
    );
}

#[test]
#[should_panic(expected = "MemoryStoreConfig::max_bytes must be at least 1 byte; got 0")]
fn a_zero_limit_set_directly_is_refused_when_the_store_is_made() {
    let mut config = MemoryStoreConfig::new();
    config.max_bytes = 0;
    let _ = MemoryStore::new(config);
}

#[tokio::test]
async fn the_entry_cap_evicts_the_oldest() {
    let (store, _) = store_with(MemoryStoreConfig::new().with_max_entries(3));
    let tokens: Vec<Token> = (0..5).map(|_| token()).collect();
    for token in &tokens {
        store.put(token, entry(10)).await.unwrap();
        assert!(store.len() <= 3);
    }
    assert_eq!(store.len(), 3);
    for (i, token) in tokens.iter().enumerate() {
        assert_eq!(
            store.get(token).await.unwrap().is_some(),
            i >= 2,
            "token {i}"
        );
    }
}

#[tokio::test]
async fn too_large_leaves_the_store_untouched() {
    let (store, clock) = store_with(MemoryStoreConfig::new().with_max_bytes(10_000).unwrap());
    let small = token();
    store.put(&small, entry(100)).await.unwrap();
    let expired = token();
    clock.advance(TTL);
    lock(&store.inner.state).insert(
        expired.clone(),
        slot_of(entry(100)),
        Duration::ZERO,
        1_000,
        0,
    );
    let (len, bytes) = (held(&store), lock(&store.inner.state).bytes);

    let big = token();
    let err = store.put(&big, entry(10_000)).await.unwrap_err();
    match err {
        StoreError::TooLarge { size, limit } => {
            assert_eq!(limit, 10_000);
            assert_eq!(size, cost_of(&big, &entry(10_000)) as u64);
        }
        other => panic!("expected TooLarge, got {other:?}"),
    }
    // Nothing evicted, nothing swept, nothing stored.
    assert_eq!((held(&store), lock(&store.inner.state).bytes), (len, bytes));
    assert!(lock(&store.inner.state).entries.contains_key(&expired));
    assert_eq!(store.get(&big).await.unwrap(), None);
}

#[tokio::test]
async fn an_entry_of_exactly_max_bytes_fits_alone() {
    let body = 5_000;
    // Two tokens of one length, so each costs exactly `max_bytes`.
    let first = Token::parse("000001aa000000aa000000aa000000aa").unwrap();
    let second = Token::parse("000002aa000000aa000000aa000000aa").unwrap();
    let max_bytes = cost_of(&first, &entry(body));
    let (store, _) = store_with(MemoryStoreConfig::new().with_max_bytes(max_bytes).unwrap());
    store.put(&first, entry(body)).await.unwrap();
    store.put(&second, entry(body)).await.unwrap();
    assert_eq!(store.bytes(), max_bytes);
    assert_eq!(store.get(&first).await.unwrap(), None);
    assert!(store.get(&second).await.unwrap().is_some());
}

#[tokio::test]
async fn putting_a_token_again_replaces_its_entry() {
    let (store, _) = store();
    let token = token();
    store.put(&token, entry(10)).await.unwrap();
    store.put(&token, entry(20)).await.unwrap();
    assert_eq!(store.len(), 1);
    assert_eq!(lock(&store.inner.state).order.len(), 1);
    assert_eq!(store.bytes(), cost_of(&token, &entry(20)));
    assert_eq!(store.get(&token).await.unwrap().unwrap().body.len(), 20);
}

#[tokio::test]
async fn bytes_return_to_zero_when_everything_expires() {
    let (store, clock) = store_with(MemoryStoreConfig::new().with_max_entries(50));
    // More puts than the cap, so eviction's bookkeeping is exercised too.
    for i in 0..200 {
        store.put(&token(), entry(i * 13)).await.unwrap();
        clock.advance(Duration::from_millis(10));
    }
    assert_eq!(store.len(), 50);
    clock.advance(TTL);
    assert_eq!(store.bytes(), 0);
    assert!(store.is_empty());
    let state = lock(&store.inner.state);
    assert!(state.order.is_empty() && state.entries.is_empty());
    assert!(
        state.callers.is_empty() && state.by_bytes.is_empty(),
        "no caller record outlives its entries"
    );
}

#[tokio::test]
async fn a_page_read_moves_only_its_items_and_charges_the_index_once() {
    let (store, _) = store();
    let token = token();
    let list: Vec<String> = (0..100).map(|i| format!("item-{i}")).collect();
    let stored = Entry::new(
        entry(0).owner,
        Origin::Read,
        serde_json::to_vec(&list).unwrap(),
    );
    store.put(&token, stored.clone()).await.unwrap();
    let before = store.bytes();
    let Some(StoredItems::List(page)) = store.get_items(&token, 20..40).await.unwrap() else {
        panic!("a stored list reads as a list");
    };
    assert_eq!((page.total, page.items.len()), (100, 20));
    assert_eq!(page.items[0], br#""item-20""#);
    assert_eq!(page.owner, stored.owner);
    assert_eq!(store.bytes(), before + 100 * OFFSET_BYTES);
    // The index is built once: a second read charges nothing more.
    store.get_items(&token, 90..200).await.unwrap();
    assert_eq!(store.bytes(), before + 100 * OFFSET_BYTES);
}

#[tokio::test]
async fn a_large_list_is_indexed_off_the_workers_once() {
    let (store, _) = store();
    let token = token();
    let list: Vec<String> = (0..20_000).map(|i| format!("item-{i:010}")).collect();
    let body = serde_json::to_vec(&list).unwrap();
    assert!(body.len() >= crate::runtime::OFF_WORKERS_BYTES);
    let stored = Entry::new(entry(0).owner, Origin::Read, body);
    store.put(&token, stored).await.unwrap();
    let before = store.bytes();
    let Some(StoredItems::List(page)) = store.get_items(&token, 19_990..20_010).await.unwrap()
    else {
        panic!("a stored list reads as a list");
    };
    assert_eq!((page.total, page.items.len()), (20_000, 10));
    assert_eq!(page.items[9], br#""item-0000019999""#);
    store.get_items(&token, 0..20).await.unwrap();
    assert_eq!(store.bytes(), before + 20_000 * OFFSET_BYTES);
}

#[tokio::test]
async fn a_single_write_or_an_object_reads_whole() {
    let (store, _) = store();
    for (origin, body) in [
        (Origin::SingleWrite, &b"[1,2,3]"[..]),
        (Origin::Read, br#"{"a":[1]}"#),
    ] {
        let token = token();
        let stored = Entry::new(entry(0).owner, origin, body);
        store.put(&token, stored.clone()).await.unwrap();
        let found = store.get_items(&token, 0..20).await.unwrap();
        assert_eq!(found, Some(StoredItems::Whole(stored)));
    }
    assert_eq!(store.get_items(&token(), 0..20).await.unwrap(), None);
}

#[tokio::test]
async fn zero_max_entries_is_unavailable() {
    let (store, _) = store_with(MemoryStoreConfig::new().with_max_entries(0));
    let err = store.put(&token(), entry(1)).await.unwrap_err();
    assert!(matches!(err, StoreError::Unavailable(_)), "{err:?}");
    assert!(store.is_empty());
}

#[test]
fn debug_shows_the_limits_not_the_tokens() {
    let (store, _) = store();
    let token = token();
    store.put_now(&token, entry(1)).unwrap();
    let debug = format!("{store:?}");
    assert!(debug.contains("len: 1"), "{debug}");
    assert!(!debug.contains(token.as_str()));
}

#[test]
fn manual_clock_moves_only_when_told() {
    let clock = ManualClock::new();
    assert_eq!(clock.now(), Duration::ZERO);
    clock.advance(Duration::from_secs(1));
    clock.advance(Duration::from_secs(2));
    assert_eq!(clock.now(), Duration::from_secs(3));
    clock.set(Duration::from_secs(1));
    assert_eq!(clock.now(), Duration::from_secs(1));
}

#[test]
fn system_clock_is_monotonic_from_its_origin() {
    let clock = SystemClock::new();
    let first = clock.now();
    std::thread::sleep(Duration::from_millis(2));
    let second = clock.now();
    assert!(second >= first + Duration::from_millis(2));
    assert!(second < Duration::from_secs(60));
}

/// Reports, with `--nocapture`, what the store spends per entry: the
/// bytes it accounts against the heap it really holds.
#[test]
fn overhead_per_entry_is_measured() {
    const BODY: usize = 1_024;
    let (store, _) = store_with(
        MemoryStoreConfig::new()
            .with_max_bytes(usize::MAX)
            .unwrap()
            .with_max_entries(usize::MAX)
            .with_ttl(TTL),
    );
    let tokens: Vec<Token> = (0..10_000).map(|_| token()).collect();
    let token_bytes: usize = tokens.iter().map(|t| t.as_str().len()).sum();
    let owner = entry(BODY).owner.caller.len() + entry(BODY).owner.tool.len();
    let payload = owner + token_bytes / tokens.len();
    let start = heap::held();
    let mut worst_heap_overhead = 0.0f64;
    for (n, token) in tokens.iter().enumerate() {
        store.put_now(token, entry(BODY)).unwrap();
        let n = n + 1;
        // 7,169 is just past a hash-table doubling (8,192 buckets hold
        // 7,168): the emptiest table, the most heap per entry.
        if [1_000, 7_168, 7_169, 10_000].contains(&n) {
            let heap = (heap::held() - start) as f64 / n as f64;
            let accounted = store.bytes() as f64 / n as f64;
            let heap_overhead = heap - (BODY + payload) as f64;
            worst_heap_overhead = worst_heap_overhead.max(heap_overhead);
            println!(
                "{n:>6} entries: body {BODY} B, owner+token {payload} B, \
                 accounted {accounted:.0} B, heap {heap:.0} B per entry \
                 (overhead: accounted {ENTRY_OVERHEAD} B, heap {heap_overhead:.0} B; \
                 accounted/body {:.3})",
                accounted / BODY as f64
            );
            assert!(
                heap <= accounted,
                "the store holds more than it accounts for"
            );
        }
    }
    println!("worst heap overhead {worst_heap_overhead:.0} B, accounted {ENTRY_OVERHEAD} B");
    assert_eq!(
        store.bytes(),
        10_000 * (BODY + owner + ENTRY_OVERHEAD) + token_bytes
    );
}

/// A global allocator that counts, per thread, the bytes requested and
/// not yet freed, so one test measures its own heap while others run.
mod heap {
    use std::alloc::{GlobalAlloc, Layout, System};
    use std::cell::Cell;

    struct Counting;

    thread_local! {
        static HELD: Cell<isize> = const { Cell::new(0) };
    }

    fn add(bytes: isize) {
        // `try_with`: allocations during thread teardown go uncounted.
        let _ = HELD.try_with(|held| held.set(held.get() + bytes));
    }

    // SAFETY: every method forwards to `System` unchanged; counting
    // touches only a const-initialised thread-local, which never
    // allocates.
    unsafe impl GlobalAlloc for Counting {
        unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
            let ptr = unsafe { System.alloc(layout) };
            if !ptr.is_null() {
                add(layout.size() as isize);
            }
            ptr
        }

        unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
            let ptr = unsafe { System.alloc_zeroed(layout) };
            if !ptr.is_null() {
                add(layout.size() as isize);
            }
            ptr
        }

        unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
            unsafe { System.dealloc(ptr, layout) };
            add(-(layout.size() as isize));
        }

        unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
            let new = unsafe { System.realloc(ptr, layout, new_size) };
            if !new.is_null() {
                add(new_size as isize - layout.size() as isize);
            }
            new
        }
    }

    #[global_allocator]
    static COUNTING: Counting = Counting;

    /// The bytes this thread has allocated and not freed.
    pub(super) fn held() -> isize {
        HELD.with(Cell::get)
    }
}
