//! Heavy reads, redemption, the size backstop, precedence and the store's
//! failure path.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp_light::Caller;
use mcp_light::catalog::ToolKind;
use mcp_light::heavy::HeavyConfig;
use mcp_light::store::MemoryStore;
use mcp_light::store::{ContinuationStore, ManualClock, MemoryStoreConfig};
use serde_json::json;

use crate::fixtures::{DownStore, Harness, PROBE_KEYS, error_text, keys, new_devices, ok_json};

#[tokio::test]
async fn a_heavy_read_answers_a_probe_and_stores_the_result() {
    let h = Harness::with_devices(50).await;
    // The bulk write that made the devices kept its result too.
    let stored = h.store.len();
    let probe = ok_json(&h.call("device_list", json!({})).await);
    assert_eq!(keys(&probe), PROBE_KEYS);
    // The count a test or a caller reads, as a number.
    assert_eq!(probe["total_items"], 50);
    let devices = h.inventory.devices.lock().unwrap().clone();
    assert_eq!(
        probe["total_size"],
        serde_json::to_vec(&devices).unwrap().len()
    );
    assert!(
        probe["preview"].to_string().chars().count() <= 200,
        "{}",
        probe["preview"]
    );
    let usage = probe["usage"].as_str().unwrap();
    assert!(
        usage.contains("device_list")
            && usage.contains("continuation_token")
            && usage.contains("mode"),
        "{usage}"
    );
    assert_eq!(h.store.len(), stored + 1, "the read kept its result");
}

#[tokio::test]
async fn redemption_pages_summarizes_filters_and_returns_in_full_without_running_again() {
    let h = Harness::with_devices(45).await;
    let probe = ok_json(&h.call("device_list", json!({"role": "leaf"})).await);
    let token = probe["continuation_token"].clone();
    let runs = h.runs();
    let devices = serde_json::to_value(h.inventory.devices.lock().unwrap().clone()).unwrap();

    // A page the caller did not size holds as many devices as fit what
    // the client keeps (45 of them would not), and says how many.
    let page1 = ok_json(
        &h.call("device_list", json!({"continuation_token": token}))
            .await,
    );
    assert_eq!(
        keys(&page1),
        ["items", "page", "page_size", "total", "has_more"]
    );
    let size = page1["page_size"].as_u64().unwrap() as usize;
    assert!((1..45).contains(&size), "{size} devices a page");
    assert_eq!(
        page1["items"].as_array().unwrap()[..],
        devices.as_array().unwrap()[..size]
    );
    assert_eq!(
        (
            page1["page"].clone(),
            page1["total"].clone(),
            page1["has_more"].clone()
        ),
        (json!(1), json!(45), json!(true))
    );

    // Every page of one result has that size: page 2 starts where page 1
    // ended.
    let page2 = ok_json(
        &h.call(
            "device_list",
            json!({"continuation_token": token, "page": 2}),
        )
        .await,
    );
    let end = (2 * size).min(45);
    assert_eq!(page2["page_size"], size);
    assert_eq!(
        page2["items"].as_array().unwrap()[..],
        devices.as_array().unwrap()[size..end]
    );
    assert_eq!(page2["has_more"], end < 45);

    let small = ok_json(
        &h.call(
            "device_list",
            json!({"continuation_token": token, "page": 2, "page_size": 7}),
        )
        .await,
    );
    assert_eq!(
        small["items"].as_array().unwrap()[..],
        devices.as_array().unwrap()[7..14]
    );

    let summary = ok_json(
        &h.call(
            "device_list",
            json!({"continuation_token": token, "mode": "summary"}),
        )
        .await,
    );
    assert_eq!(summary["count"], 45);

    let filtered = ok_json(
        &h.call(
            "device_list",
            json!({"continuation_token": token, "mode": "filtered", "filter_keys": ["name", "id"]}),
        )
        .await,
    );
    assert_eq!(keys(&filtered["items"][0]), ["id", "name"]);

    // `full` answers the whole list to a client that keeps it (Claude Code,
    // 40,000 bytes); to one that does not, its first page and a note.
    let full = json!({"continuation_token": token, "mode": "full"});
    let whole = ok_json(
        &h.server
            .call_from(
                "claude-code",
                "device_list",
                full.clone(),
                Caller::Session("alice".into()),
            )
            .await,
    );
    assert_eq!(whole, devices);
    let first = ok_json(&h.call("device_list", full).await);
    assert_eq!(first["items"], page1["items"]);
    let note = first["note"].as_str().unwrap();
    assert!(
        note.contains(&format!("ask page 2 with page_size {size}")),
        "{note}"
    );

    assert_eq!(h.runs(), runs, "no redemption ran the tool");
}

#[tokio::test]
async fn negotiation_mistakes_name_what_is_allowed() {
    let h = Harness::with_devices(3).await;
    let probe = ok_json(&h.call("device_list", json!({})).await);
    let token = probe["continuation_token"].clone();
    let text = error_text(
        &h.call(
            "device_list",
            json!({"continuation_token": token, "mode": "pages"}),
        )
        .await,
    );
    assert!(
        text.contains("summary, paginated, filtered, full") && text.contains("pages"),
        "{text}"
    );
    let text = error_text(
        &h.call(
            "device_list",
            json!({"continuation_token": token, "page": "2"}),
        )
        .await,
    );
    assert!(text.contains("page"), "{text}");
    let text = error_text(
        &h.call(
            "device_list",
            json!({"continuation_token": token, "page_size": 100_000}),
        )
        .await,
    );
    assert!(text.contains("page_size") && text.contains("200"), "{text}");
}

/// A first call has nothing stored to serve in a mode or a page: a
/// negotiation field sent with it is refused, flat or routed, and the tool
/// does not run; one sent as `null` is nothing asked.
#[tokio::test]
async fn a_first_call_with_mode_is_told_mode_applies_to_a_redemption() {
    let h = Harness::with_devices(30).await;
    let runs = h.runs();
    let text = error_text(&h.call("device_list", json!({"mode": "summary"})).await);
    assert_eq!(
        text,
        "invalid arguments for `device_list`: `mode` applies to redeeming a continuation \
         token, and this call sends none: call without it first, then send it with the \
         `continuation_token` its answer carries"
    );
    let routed = json!({"resource": "device", "action": "list", "mode": "full", "page": 2});
    let text = error_text(
        &h.dispatched()
            .call("inventory", routed, Caller::Process)
            .await,
    );
    assert!(
        text.contains("`mode` and `page` apply to redeeming a continuation token"),
        "{text}"
    );
    assert_eq!(h.runs(), runs, "the tool did not run");

    let probe = ok_json(&h.call("device_list", json!({"mode": null})).await);
    assert!(probe["continuation_token"].is_string(), "{probe}");
}

#[tokio::test]
async fn a_heavy_token_is_refused_to_another_caller_and_through_another_tool() {
    let h = Harness::with_devices(3).await;
    let server = h.builder().with_dispatcher("inventory").build().unwrap();
    let probe = ok_json(
        &server
            .call("device_list", json!({}), Caller::Session("alice".into()))
            .await,
    );
    let redeem = json!({"continuation_token": probe["continuation_token"], "mode": "full"});

    let text = error_text(
        &server
            .call("device_list", redeem.clone(), Caller::Session("bob".into()))
            .await,
    );
    assert!(
        text.contains("another caller or through another tool"),
        "{text}"
    );
    let text = error_text(
        &server
            .call("inventory", redeem.clone(), Caller::Session("alice".into()))
            .await,
    );
    assert!(
        text.contains("another caller or through another tool"),
        "{text}"
    );
    ok_json(
        &server
            .call("device_list", redeem, Caller::Session("alice".into()))
            .await,
    );
}

#[tokio::test]
async fn a_token_expires_with_the_store_ttl() {
    let clock = Arc::new(ManualClock::new());
    let config = MemoryStoreConfig::new().with_ttl(Duration::from_secs(300));
    let h = Harness::with_devices(3).await;
    let server = h
        .builder()
        .with_store(MemoryStore::with_clock(config, clock.clone()))
        .build()
        .unwrap();
    let probe = ok_json(&server.call("device_list", json!({}), Caller::Process).await);
    let redeem = json!({"continuation_token": probe["continuation_token"], "mode": "full"});

    clock.advance(Duration::from_secs(299));
    ok_json(
        &server
            .call("device_list", redeem.clone(), Caller::Process)
            .await,
    );
    clock.advance(Duration::from_secs(1));
    let text = error_text(&server.call("device_list", redeem, Caller::Process).await);
    assert!(
        text.contains("unknown, has expired") && text.contains("start again"),
        "{text}"
    );
}

#[tokio::test]
async fn a_routed_bulk_write_token_redeems_a_page_by_default_and_a_single_write_whole() {
    let h = Harness::new();
    let server = h.builder().with_dispatcher("inventory").build().unwrap();
    let bulk = json!({"resource": "device", "action": "bulk_create", "params": {"devices": new_devices(30)}});
    let envelope = ok_json(&server.call("inventory", bulk, Caller::Process).await);
    let page = ok_json(
        &server
            .call(
                "inventory",
                json!({"continuation_token": envelope["continuation_token"]}),
                Caller::Process,
            )
            .await,
    );
    // A page the caller did not size: as many of the 30 as fit the client,
    // in the order written, with more after it.
    let written = h.inventory.devices.lock().unwrap().clone();
    let written = serde_json::to_value(written).unwrap();
    let size = page["page_size"].as_u64().unwrap() as usize;
    assert!((1..30).contains(&size), "{size} devices a page");
    assert_eq!(
        page["items"].as_array().unwrap()[..],
        written.as_array().unwrap()[..size]
    );
    assert_eq!(
        (&page["total"], &page["has_more"]),
        (&json!(30), &json!(true))
    );

    let single = json!({"resource": "device", "action": "create", "params": {"device": {"name": "a", "site_slug": "s", "role": "r"}}});
    let envelope = ok_json(&server.call("inventory", single, Caller::Process).await);
    let whole = ok_json(
        &server
            .call(
                "inventory",
                json!({"continuation_token": envelope["continuation_token"]}),
                Caller::Process,
            )
            .await,
    );
    assert_eq!(whole["name"], "a");
    assert_eq!(
        whole["comments"],
        h.inventory.devices.lock().unwrap()[30].comments
    );
}

#[tokio::test]
async fn both_attributes_in_either_order_behave_as_heavy_alone() {
    let h = Harness::with_devices(5).await;
    for tool in ["export_heavy_first", "export_light_first"] {
        let def = h.server.registry().get(tool).unwrap();
        assert_eq!(def.def().kind(), ToolKind::Heavy, "{tool}");
        let properties = def.input_schema()["properties"].as_object().unwrap();
        assert!(
            properties.contains_key("continuation_token") && !properties.contains_key("verify"),
            "{tool}"
        );
        let probe = ok_json(&h.call(tool, json!({"n": 4})).await);
        assert!(
            probe.get("preview").is_some() && probe.get("status_code").is_none(),
            "{tool}: {probe}"
        );
        let full = ok_json(
            &h.call(
                tool,
                json!({"continuation_token": probe["continuation_token"], "mode": "full"}),
            )
            .await,
        );
        assert_eq!(full.as_array().unwrap().len(), 4, "{tool}");
    }
}

#[tokio::test]
async fn a_heavy_schema_stays_closed_with_the_negotiation_fields() {
    let h = Harness::new();
    let schema = h
        .server
        .registry()
        .get("device_list")
        .unwrap()
        .input_schema()
        .clone();
    assert_eq!(schema["additionalProperties"], false);
    let properties: Vec<&str> = schema["properties"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        properties,
        [
            "role",
            "continuation_token",
            "mode",
            "page",
            "page_size",
            "filter_keys"
        ]
    );
    assert_eq!(
        schema["properties"]["mode"]["enum"],
        json!(["summary", "paginated", "filtered", "full"])
    );
}

#[tokio::test]
async fn the_size_backstop_probes_large_reads_where_the_schema_discloses() {
    let h = Harness::new();
    let server = h.builder().with_dispatcher("inventory").build().unwrap();
    let large = json!({"resource": "row", "action": "list", "params": {"n": 300, "width": 100}});
    let probe = ok_json(
        &server
            .call("inventory", large.clone(), Caller::Process)
            .await,
    );
    assert!(
        probe.get("continuation_token").is_some(),
        "30 KB through a disclosing schema: {probe}"
    );

    let small = json!({"resource": "row", "action": "list", "params": {"n": 10, "width": 100}});
    assert_eq!(
        ok_json(&server.call("inventory", small, Caller::Process).await)
            .as_array()
            .unwrap()
            .len(),
        10
    );

    let flat = ok_json(&h.call("row_list", json!({"n": 300, "width": 100})).await);
    assert_eq!(
        flat.as_array().unwrap().len(),
        300,
        "a flat read gives no slot for a token: whole"
    );

    let off = h
        .dispatched_builder()
        .with_heavy_config(HeavyConfig::new().with_size_backstop(None))
        .build()
        .unwrap();
    assert_eq!(
        ok_json(&off.call("inventory", large.clone(), Caller::Process).await)
            .as_array()
            .unwrap()
            .len(),
        300
    );

    let low = h
        .dispatched_builder()
        .with_heavy_config(HeavyConfig::new().with_size_backstop(Some(1_000)))
        .build()
        .unwrap();
    let medium = json!({"resource": "row", "action": "list", "params": {"n": 20, "width": 100}});
    assert!(
        ok_json(&low.call("inventory", medium, Caller::Process).await)
            .get("continuation_token")
            .is_some()
    );
}

#[tokio::test]
async fn the_page_size_maximum_is_published_and_configurable() {
    let h = Harness::new();
    let server = h
        .builder()
        .with_heavy_config(HeavyConfig::new().with_max_page_size(50).unwrap())
        .build()
        .unwrap();
    let schema = server
        .registry()
        .get("device_list")
        .unwrap()
        .input_schema()
        .clone();
    assert_eq!(schema["properties"]["page_size"]["maximum"], 50);
}

/// Counts the warnings emitted while it is the default subscriber.
struct CountWarnings(Arc<AtomicUsize>);

impl tracing::Subscriber for CountWarnings {
    fn enabled(&self, _: &tracing::Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &tracing::span::Attributes<'_>) -> tracing::span::Id {
        tracing::span::Id::from_u64(1)
    }
    fn record(&self, _: &tracing::span::Id, _: &tracing::span::Record<'_>) {}
    fn record_follows_from(&self, _: &tracing::span::Id, _: &tracing::span::Id) {}
    fn event(&self, event: &tracing::Event<'_>) {
        if *event.metadata().level() == tracing::Level::WARN {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }
    fn enter(&self, _: &tracing::span::Id) {}
    fn exit(&self, _: &tracing::span::Id) {}
}

#[tokio::test(flavor = "current_thread")]
async fn with_the_store_down_no_token_is_handed_out_and_the_outage_is_logged_once() {
    let warnings = Arc::new(AtomicUsize::new(0));
    let _guard = tracing::subscriber::set_default(CountWarnings(warnings.clone()));
    let h = Harness::with_devices(25).await;
    let server = h
        .builder()
        .with_shared_store(Some(Arc::new(DownStore) as Arc<dyn ContinuationStore>))
        .with_dispatcher("inventory")
        .build()
        .unwrap();

    let read = ok_json(&server.call("device_list", json!({}), Caller::Process).await);
    assert_eq!(
        read.as_array().unwrap().len(),
        25,
        "a heavy read answers whole"
    );

    let write = json!({"resource": "device", "action": "bulk_create", "params": {"devices": new_devices(2)}});
    let envelope = ok_json(
        &server
            .call("inventory", write.clone(), Caller::Process)
            .await,
    );
    assert_eq!(
        keys(&envelope),
        ["accepted", "status_code", "data_size", "ids"]
    );
    ok_json(&server.call("inventory", write, Caller::Process).await);

    assert_eq!(
        warnings.load(Ordering::SeqCst),
        1,
        "one warning for the outage, not one per call"
    );
}
