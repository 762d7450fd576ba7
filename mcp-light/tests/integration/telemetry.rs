//! Traces and metrics of requests served over MCP: one span per request
//! with OpenTelemetry's MCP names and mcp-light's own fields, and the
//! metrics the `metrics` facade carries to whatever recorder is installed.
//!
//! Each test runs on one thread (`#[tokio::test]`'s runtime), so the
//! subscriber and recorder it sets for that thread see the server's tasks.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mcp_light::store::{Entry, MemoryStore, MemoryStoreConfig, Origin, Owner};
use mcp_light::telemetry;
use mcp_light::token::Token;
use metrics::Unit;
use metrics_util::CompositeKey;
use metrics_util::debugging::{DebugValue, DebuggingRecorder, Snapshotter};
use rmcp::model::{CallToolRequestParams, CallToolResult, RequestMetaObject};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Value, json};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context as LayerContext, SubscriberExt};
use tracing_subscriber::{Layer, Registry};

use crate::fixtures::{Harness, connect, new_devices, ok_json};

const TRACEPARENT: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

/// The fields of every `mcp.request` span, in the order they closed.
#[derive(Clone, Default)]
struct Spans(Arc<Mutex<SpansInner>>);

#[derive(Default)]
struct SpansInner {
    open: HashMap<Id, HashMap<String, String>>,
    closed: Vec<HashMap<String, String>>,
}

struct Fields<'a>(&'a mut HashMap<String, String>);

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }
}

impl<S: tracing::Subscriber> Layer<S> for Spans {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, _: LayerContext<'_, S>) {
        if attrs.metadata().name() != telemetry::SPAN_NAME {
            return;
        }
        assert_eq!(attrs.metadata().target(), "mcp_light");
        let mut fields = HashMap::new();
        attrs.record(&mut Fields(&mut fields));
        self.0.lock().unwrap().open.insert(id.clone(), fields);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _: LayerContext<'_, S>) {
        if let Some(fields) = self.0.lock().unwrap().open.get_mut(id) {
            values.record(&mut Fields(fields));
        }
    }

    fn on_close(&self, id: Id, _: LayerContext<'_, S>) {
        let mut spans = self.0.lock().unwrap();
        if let Some(fields) = spans.open.remove(&id) {
            spans.closed.push(fields);
        }
    }
}

impl Spans {
    /// The closed span whose `otel.name` is `name`; the last one, if more.
    fn named(&self, name: &str) -> HashMap<String, String> {
        let spans = self.0.lock().unwrap();
        spans
            .closed
            .iter()
            .rev()
            .find(|fields| fields.get("otel.name").map(String::as_str) == Some(name))
            .cloned()
            .unwrap_or_else(|| {
                let names: Vec<_> = spans.closed.iter().map(|f| f.get("otel.name")).collect();
                let open: Vec<_> = spans.open.values().map(|f| f.get("otel.name")).collect();
                panic!("no span named {name:?}; closed: {names:?}; open: {open:?}")
            })
    }
}

async fn call(
    client: &RunningService<RoleClient, ()>,
    tool: &str,
    args: Value,
    traceparent: Option<&str>,
) -> CallToolResult {
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    let mut params = CallToolRequestParams::new(tool.to_owned()).with_arguments(args);
    if let Some(traceparent) = traceparent {
        let mut meta = RequestMetaObject::default();
        meta.set_traceparent(traceparent);
        params.meta = Some(meta);
    }
    client.call_tool(params).await.expect("tools/call answers")
}

/// The dispatcher's arguments for a bulk create of `n` devices.
fn bulk_create(n: usize) -> Value {
    json!({"resource": "device", "action": "bulk_create", "params": {"devices": new_devices(n)}})
}

thread_local! {
    /// Where the spans this thread opens are caught, while a test wants
    /// them.
    static CATCHING: std::cell::RefCell<Option<Spans>> = const { std::cell::RefCell::new(None) };
}

/// The process-wide subscriber's layer: a span opened on a thread that
/// catches spans goes to that thread's [`Spans`] (kept in the span, so it
/// is recorded and closed there from any thread). One subscriber for the
/// whole process keeps every callsite of interest: thread-local ones race
/// the other tests' threads for the callsites' cached interest.
struct Catcher;

impl<S> Layer<S> for Catcher
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: LayerContext<'_, S>) {
        let Some(spans) = CATCHING.with(|catching| catching.borrow().clone()) else {
            return;
        };
        spans.on_new_span(attrs, id, ctx.clone());
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(spans);
        }
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: LayerContext<'_, S>) {
        let spans = ctx
            .span(id)
            .and_then(|span| span.extensions().get::<Spans>().cloned());
        if let Some(spans) = spans {
            spans.on_record(id, values, ctx);
        }
    }

    fn on_close(&self, id: Id, ctx: LayerContext<'_, S>) {
        let spans = ctx
            .span(&id)
            .and_then(|span| span.extensions().get::<Spans>().cloned());
        if let Some(spans) = spans {
            spans.on_close(id, ctx);
        }
    }
}

/// Stops catching this thread's spans when dropped.
struct Catching;

impl Drop for Catching {
    fn drop(&mut self) {
        CATCHING.with(|catching| catching.borrow_mut().take());
    }
}

/// Makes [`Catcher`]'s subscriber the process's, once.
fn install_catcher() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        tracing::subscriber::set_global_default(Registry::default().with(Catcher))
            .expect("no other test sets the global subscriber");
    });
}

/// Catches the spans this thread opens until the guard drops.
fn spans() -> (Spans, Catching) {
    install_catcher();
    let spans = Spans::default();
    CATCHING.with(|catching| *catching.borrow_mut() = Some(spans.clone()));
    (spans, Catching)
}

#[tokio::test]
async fn a_tool_call_runs_in_one_span_named_for_its_method_and_tool() {
    let (spans, _guard) = spans();
    let h = Harness::new();
    let client = connect(h.dispatched()).await;
    client.list_all_tools().await.unwrap();
    let answer = call(&client, "inventory", bulk_create(60), None).await;
    let envelope = ok_json(&answer);

    let span = spans.named("tools/call inventory");
    let field = |name: &str| span.get(name).map(String::as_str);
    assert_eq!(field("mcp.method.name"), Some("tools/call"));
    assert_eq!(field("gen_ai.tool.name"), Some("inventory"));
    assert_eq!(field("gen_ai.operation.name"), Some("execute_tool"));
    assert_eq!(field("otel.kind"), Some("server"));
    assert_eq!(field("mcp.protocol.version"), Some("2025-11-25"));
    assert!(field("jsonrpc.request.id").is_some(), "{span:?}");
    assert_eq!(field("mcp_light.outcome"), Some("envelope"));
    assert_eq!(field("mcp_light.token"), Some("minted"));
    assert_eq!(field("mcp_light.store.tier"), Some("memory"));
    assert_eq!(field("error.type"), None);
    let answer_bytes: u64 = field("mcp_light.answer.bytes").unwrap().parse().unwrap();
    let full_bytes: u64 = field("mcp_light.full.bytes").unwrap().parse().unwrap();
    assert_eq!(full_bytes, envelope["data_size"].as_u64().unwrap());
    assert_eq!(
        answer_bytes,
        answer.content[0].as_text().unwrap().text.len() as u64
    );
    assert!(
        answer_bytes * 20 < full_bytes,
        "{answer_bytes} vs {full_bytes}"
    );

    // The handshake and the listing are requests too.
    assert_eq!(
        spans.named("tools/list").get("mcp.method.name").unwrap(),
        "tools/list"
    );
    assert_eq!(spans.named("initialize").get("gen_ai.tool.name"), None);
}

#[tokio::test]
async fn a_redemption_a_probe_and_a_failed_call_say_what_they_were() {
    let (spans, _guard) = spans();
    let h = Harness::with_devices(300).await;
    let client = connect(h.dispatched()).await;

    let created = ok_json(&call(&client, "inventory", bulk_create(5), None).await);
    let token = created["continuation_token"].as_str().unwrap();
    let redeem = json!({"continuation_token": token});
    ok_json(&call(&client, "inventory", redeem, None).await);
    let redeemed = spans.named("tools/call inventory");
    assert_eq!(redeemed["mcp_light.outcome"], "redeemed");
    assert_eq!(redeemed["mcp_light.token"], "redeemed");
    assert_eq!(redeemed.get("mcp_light.full.bytes"), None);

    call(&client, "device_list", json!({}), None).await;
    let probe = spans.named("tools/call device_list");
    assert_eq!(probe["mcp_light.outcome"], "probe");
    assert!(
        probe["mcp_light.full.bytes"].parse::<u64>().unwrap()
            > probe["mcp_light.answer.bytes"].parse::<u64>().unwrap()
    );

    call(&client, "no_such_tool", json!({}), None).await;
    let failed = spans.named("tools/call no_such_tool");
    assert_eq!(failed["mcp_light.outcome"], "error");
    assert_eq!(failed["error.type"], "tool_error");
    assert_eq!(failed["otel.status_code"], "error");
}

#[tokio::test]
async fn a_requests_traceparent_gives_its_span_the_callers_trace_id() {
    let (spans, _guard) = spans();
    let h = Harness::new();
    let client = connect(h.builder().build().unwrap()).await;
    let device = json!({"device": new_devices(1)[0]});
    call(&client, "device_create", device.clone(), Some(TRACEPARENT)).await;
    assert_eq!(
        spans.named("tools/call device_create")["trace_id"],
        "4bf92f3577b34da6a3ce929d0e0e4736"
    );

    // A malformed one, or none, and the request starts a trace of its own.
    let mut own = Vec::new();
    for traceparent in [Some("00-nonsense-01"), None, None] {
        call(&client, "device_create", device.clone(), traceparent).await;
        let trace_id = spans.named("tools/call device_create")["trace_id"].clone();
        assert_eq!(trace_id.len(), 32, "{trace_id}");
        assert!(
            trace_id
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
        );
        assert_ne!(trace_id, "4bf92f3577b34da6a3ce929d0e0e4736");
        own.push(trace_id);
    }
    own.dedup();
    assert_eq!(own.len(), 3, "each request a trace of its own: {own:?}");
}

/// A composed handler with rmcp's defaults: its requests are answered
/// there, and still traced here.
struct Defaults;

impl rmcp::ServerHandler for Defaults {}

#[tokio::test]
async fn a_request_the_composed_handler_answers_has_its_span_too() {
    let (spans, _guard) = spans();
    let server = crate::fixtures::linked()
        .with_handler(Defaults)
        .build()
        .unwrap();
    let client = connect(server).await;
    let _ = client.list_resources(None).await;
    let _ = client.list_prompts(None).await;
    assert_eq!(
        spans.named("resources/list")["mcp.method.name"],
        "resources/list"
    );
    let prompts = spans.named("prompts/list");
    assert!(prompts.contains_key("jsonrpc.request.id"), "{prompts:?}");
}

#[tokio::test]
async fn a_call_the_composed_handler_answers_is_traced_and_counted_under_its_tool() {
    let (spans, _guard) = spans();
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let _recording = metrics::set_default_local_recorder(&recorder);
    let client = connect(crate::compose::beside_legacy()).await;
    let sum = call(
        &client,
        "legacy_sum",
        json!({"a": 1, "b": 2}),
        Some(TRACEPARENT),
    )
    .await;
    assert_eq!(sum.is_error, Some(false));
    call(&client, "legacy_sum", json!({"a": "one"}), None).await;

    let span = spans.named("tools/call legacy_sum");
    let field = |name: &str| span.get(name).map(String::as_str);
    assert_eq!(field("gen_ai.tool.name"), Some("legacy_sum"));
    assert_eq!(field("mcp_light.outcome"), Some("error"));
    assert_eq!(field("error.type"), Some("tool_error"));

    let recorded = Recorded::take(&snapshotter);
    let tool = ("gen_ai.tool.name", "legacy_sum");
    for outcome in ["full", "error"] {
        let counted = recorded.counted(telemetry::CALLS, &[tool, ("mcp_light.outcome", outcome)]);
        assert_eq!(counted, 1, "{outcome}");
    }
    assert!(
        recorded
            .get(
                telemetry::OPERATION_DURATION,
                &[("mcp.method.name", "tools/call"), tool]
            )
            .is_some()
    );
}

/// Every metric recorded since the last snapshot (a snapshot takes the
/// counts it reads), with its unit.
pub(crate) struct Recorded(Vec<(CompositeKey, Option<Unit>, DebugValue)>);

impl Recorded {
    pub(crate) fn take(snapshotter: &Snapshotter) -> Recorded {
        let metrics = snapshotter.snapshot().into_vec();
        Recorded(
            metrics
                .into_iter()
                .map(|(key, unit, _, value)| (key, unit, value))
                .collect(),
        )
    }

    /// The unit and value of the metric `name` whose labels include
    /// `labels`.
    pub(crate) fn get(
        &self,
        name: &str,
        labels: &[(&str, &str)],
    ) -> Option<(Option<Unit>, &DebugValue)> {
        self.0
            .iter()
            .find(|(key, ..)| {
                let key = key.key();
                key.name() == name
                    && labels.iter().all(|(label, value)| {
                        key.labels()
                            .any(|have| have.key() == *label && have.value() == *value)
                    })
            })
            .map(|(_, unit, value)| (*unit, value))
    }

    pub(crate) fn counted(&self, name: &str, labels: &[(&str, &str)]) -> u64 {
        match self.get(name, labels) {
            Some((_, DebugValue::Counter(n))) => *n,
            None => 0,
            Some(other) => panic!("{name} is not a counter: {other:?}"),
        }
    }
}

#[tokio::test]
async fn metrics_count_durations_outcomes_and_the_bytes_spared_per_tool() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let _guard = metrics::set_default_local_recorder(&recorder);
    let h = Harness::new();
    let client = connect(h.dispatched()).await;

    let created = ok_json(&call(&client, "inventory", bulk_create(60), None).await);
    call(&client, "no_such_tool", json!({}), None).await;
    call(&client, "no_such_tool_either", json!({}), None).await;

    let recorded = Recorded::take(&snapshotter);
    let bulk = [("gen_ai.tool.name", "inventory")];
    match recorded.get(
        telemetry::OPERATION_DURATION,
        &[("mcp.method.name", "tools/call"), bulk[0]],
    ) {
        Some((unit, DebugValue::Histogram(seconds))) => {
            assert_eq!(unit, Some(Unit::Seconds));
            assert_eq!(seconds.len(), 1);
            assert!(seconds[0].into_inner() > 0.0);
        }
        other => panic!("no duration of the bulk create: {other:?}"),
    }
    assert!(
        recorded
            .get(
                telemetry::OPERATION_DURATION,
                &[("mcp.method.name", "initialize")]
            )
            .is_some()
    );
    let full = recorded.counted(telemetry::FULL_BYTES, &bulk);
    let answered = recorded.counted(telemetry::ANSWER_BYTES, &bulk);
    assert_eq!(full, created["data_size"].as_u64().unwrap());
    assert!(answered > 0 && answered * 20 < full, "{answered} of {full}");
    assert_eq!(
        recorded.get(telemetry::ANSWER_BYTES, &bulk).unwrap().0,
        Some(Unit::Bytes)
    );
    assert_eq!(
        recorded.counted(
            telemetry::CALLS,
            &[bulk[0], ("mcp_light.outcome", "envelope")]
        ),
        1
    );
    assert_eq!(
        recorded.counted(telemetry::TOKENS, &[("mcp_light.token", "minted")]),
        1
    );
    // The full result went to the store behind the token.
    let memory = [("mcp_light.store.tier", "memory")];
    assert_eq!(recorded.counted(telemetry::STORE_ENTRIES, &memory), 1);
    assert_eq!(recorded.counted(telemetry::STORE_BYTES, &memory), full);
    // Names nobody published share one label, whatever callers send.
    assert_eq!(
        recorded.counted(
            telemetry::CALLS,
            &[
                ("gen_ai.tool.name", "_OTHER"),
                ("mcp_light.outcome", "error")
            ]
        ),
        2
    );
}

#[tokio::test]
async fn the_memory_store_counts_what_it_evicts_to_make_room() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let _guard = metrics::set_default_local_recorder(&recorder);
    let store = MemoryStore::new(MemoryStoreConfig::default().with_max_entries(2));
    let owner = Owner::new("caller", "tool");
    for _ in 0..5 {
        let token = Token::mint().unwrap();
        let entry = Entry::new(owner.clone(), Origin::Read, b"[1,2,3]".to_vec());
        mcp_light::store::ContinuationStore::put(&store, &token, entry)
            .await
            .unwrap();
    }
    let evicted = [("mcp_light.store.tier", "memory"), ("reason", "full")];
    assert_eq!(
        Recorded::take(&snapshotter).counted(telemetry::STORE_EVICTIONS, &evicted),
        3
    );
}

#[cfg(feature = "opentelemetry")]
#[tokio::test]
async fn with_opentelemetry_a_request_joins_the_trace_its_traceparent_names() {
    use opentelemetry::trace::TracerProvider as _;
    use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};

    // Every callsite stays of interest to some subscriber (see `Catcher`).
    install_catcher();
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("test"));
    let (spans, layer_spans) = (Spans::default(), layer);
    let subscriber = Registry::default().with(spans.clone()).with(layer_spans);
    let _guard = tracing::subscriber::set_default(subscriber);

    let h = Harness::new();
    let client = connect(h.builder().build().unwrap()).await;
    let device = json!({"device": new_devices(1)[0]});
    call(&client, "device_create", device.clone(), Some(TRACEPARENT)).await;
    call(&client, "device_create", device, None).await;
    provider.force_flush().unwrap();

    let exported = exporter.get_finished_spans().unwrap();
    let calls: Vec<_> = exported
        .iter()
        .filter(|span| span.name == "tools/call device_create")
        .collect();
    assert_eq!(calls.len(), 2, "{exported:#?}");
    let joined = calls[0];
    assert_eq!(
        joined.span_context.trace_id().to_string(),
        "4bf92f3577b34da6a3ce929d0e0e4736"
    );
    assert_eq!(joined.parent_span_id.to_string(), "00f067aa0ba902b7");
    assert_eq!(joined.span_kind, opentelemetry::trace::SpanKind::Server);
    let attribute = |name: &str| {
        joined
            .attributes
            .iter()
            .find(|kv| kv.key.as_str() == name)
            .map(|kv| kv.value.to_string())
    };
    assert_eq!(attribute("mcp.method.name").as_deref(), Some("tools/call"));
    assert_eq!(attribute("mcp_light.outcome").as_deref(), Some("envelope"));
    // A request with no traceparent starts a trace of its own, and its
    // span says which.
    let own = calls[1];
    assert_ne!(own.span_context.trace_id(), joined.span_context.trace_id());
    assert_eq!(
        spans.named("tools/call device_create")["trace_id"],
        own.span_context.trace_id().to_string()
    );
}
