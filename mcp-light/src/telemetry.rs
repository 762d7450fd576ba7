//! Traces and metrics, in the names OpenTelemetry's semantic conventions
//! give MCP, plus mcp-light's own: what each answer cost the caller's
//! context and what it saved.
//!
//! mcp-light emits; the application decides where it goes. Spans are
//! [`tracing`] spans, so any subscriber sees them (`tracing-subscriber`'s
//! formatters, `tracing-opentelemetry` towards OTLP). Metrics go through
//! the [`metrics`] facade, so any of its exporters takes them
//! (`metrics-exporter-prometheus`, or OpenTelemetry's through a bridge).
//! With no subscriber and no recorder installed, neither costs more than
//! a check per request: the span's fields are not even computed, and a
//! tool call is neither timed nor counted.
//!
//! # Spans
//!
//! Every request runs in one span: those mcp-light answers (`initialize`,
//! `tools/list`, `tools/call`, `tasks/*`, `logging/setLevel`,
//! `server/discover`) and those it hands to the handler composed with
//! [`ServerBuilder::with_handler`](crate::ServerBuilder::with_handler)
//! (prompts, resources, completions, skills, `ping`; not custom
//! requests, whose method rmcp does not name). The span is named
//! [`SPAN_NAME`] (`mcp.request`), target `mcp_light`, level `INFO`. Its
//! `otel.name` is the name OpenTelemetry shows: `{mcp.method.name}
//! {gen_ai.tool.name}` (`tools/call device_create`), or the method alone.
//!
//! | Field | Value |
//! |---|---|
//! | `mcp.method.name` | the request's method |
//! | `gen_ai.tool.name` | the tool called (`tools/call`) |
//! | `gen_ai.operation.name` | `execute_tool` (`tools/call`) |
//! | `mcp.session.id` | the MCP session, on Streamable HTTP |
//! | `mcp.protocol.version` | the request's protocol version |
//! | `jsonrpc.request.id` | the JSON-RPC id |
//! | `error.type` | on failure: the JSON-RPC error code, or `tool_error` for an `isError` result |
//! | `otel.kind`, `otel.status_code` | `server`; `error` on failure |
//! | `mcp_light.outcome` | how the call was answered (below) |
//! | `mcp_light.answer.bytes` | bytes of the answer's text: what the caller reads |
//! | `mcp_light.full.bytes` | bytes of the full result the answer stands for |
//! | `mcp_light.token` | `minted` (the answer carries a continuation token) or `redeemed` |
//! | `mcp_light.store.tier` | the continuation store's [`name`](crate::store::ContinuationStore::name), with a token |
//! | `mcp_light.error` | an `isError` answer's kind: `arguments`, `unknown_tool`, `scope`, `unanswerable`, `tool`, `deadline`, `serialization`, `token`, `store` |
//! | `trace_id` | the W3C trace id: the request's `_meta.traceparent`'s, else OpenTelemetry's, else a fresh one |
//!
//! Every field of an answered call is read off the outcome the code that
//! made the answer gave it, never off the answer's fields: a plain read
//! whose result has a `total_size` is `full`, not `probe`.
//!
//! The outcomes: `envelope` (a write's lean confirmation), `probe` (a
//! heavy read's), `full` (the result itself), `inline` (a heavy read's
//! result within its inline budget, answered whole in place of a probe),
//! `redeemed` (served from the
//! store for a continuation token), `task` (answered as a task),
//! `input_required` (the tool asked the client), `error`.
//!
//! A request whose `_meta` carries a W3C `traceparent` (and `tracestate`)
//! is part of that trace: with the `opentelemetry` feature its span is
//! made the child of the caller's span in `tracing-opentelemetry`'s layer.
//!
//! # Metrics
//!
//! | Metric | Kind | Labels |
//! |---|---|---|
//! | [`OPERATION_DURATION`] `mcp.server.operation.duration` (s) | histogram | `mcp.method.name`, `gen_ai.tool.name`, `error.type` |
//! | [`CALLS`] `mcp_light.calls` | counter | `gen_ai.tool.name`, `mcp_light.outcome` |
//! | [`ANSWER_BYTES`] `mcp_light.answer.bytes` (B) | counter | `gen_ai.tool.name` |
//! | [`FULL_BYTES`] `mcp_light.full.bytes` (B) | counter | `gen_ai.tool.name` |
//! | [`TOKENS`] `mcp_light.tokens` | counter | `mcp_light.token` |
//! | [`STORE_ENTRIES`] `mcp_light.store.entries` | counter | `mcp_light.store.tier` |
//! | [`STORE_BYTES`] `mcp_light.store.bytes` (B) | counter | `mcp_light.store.tier` |
//! | [`STORE_EVICTIONS`] `mcp_light.store.evictions` | counter | `mcp_light.store.tier`, `reason` |
//! | [`STORE_ERRORS`] `mcp_light.store.errors` | counter | `mcp_light.store.tier`, `error.type` |
//!
//! `mcp_light.full.bytes` counts each tool run once; a redemption adds its
//! answer to `mcp_light.answer.bytes` and nothing to the full bytes, so
//! `1 - answer/full` is the share of bytes the callers' contexts were
//! spared. A tool label names a tool this server publishes, or one of the
//! tools of the rmcp handler composed with
//! [`ServerBuilder::with_handler`](crate::ServerBuilder::with_handler) (a
//! name its `get_tool` knows; its calls count no bytes: their answers are
//! the handler's); any other name a caller sends is counted as `_OTHER`,
//! so callers cannot grow the label set. The store counts what was written for continuation tokens,
//! and the in-memory store what it evicted (`reason` `full` or `expired`).
//!
//! Prometheus exporters write the names with underscores and the unit:
//! `mcp_server_operation_duration_seconds{mcp_method_name, gen_ai_tool_name}`,
//! `mcp_light_answer_bytes_total`, `mcp_light_full_bytes_total`,
//! `mcp_light_calls_total`.
//!
//! A `Server` registers its metrics with the recorder installed when it is
//! built (their units and descriptions too, [`describe_metrics`]) and
//! counts through the handles it got then: install the recorder before
//! building the server. A recorder installed later sees none of that
//! server's tool calls: a server built with none installed neither times
//! nor counts them.
//!
//! # The usage report
//!
//! In-band, for the caller rather than the operator:
//! `ServerBuilder::with_usage_report` (feature `usage`) puts each answer's
//! cost in model tokens, and its full result's, in the answer's `_meta`
//! under [`USAGE_META_KEY`].

use std::borrow::Cow;

use metrics::{Counter, Histogram, Key, Metadata, Unit};

use crate::call::outcome::{AnswerShape, ErrorKind, Outcome, TokenUse};

pub use crate::usage::USAGE_META_KEY;

/// The name of the span every request runs in.
pub const SPAN_NAME: &str = "mcp.request";

/// The duration of a request as the server saw it, in seconds (histogram).
pub const OPERATION_DURATION: &str = "mcp.server.operation.duration";
/// Tool calls, by tool and outcome (counter).
pub const CALLS: &str = "mcp_light.calls";
/// Bytes of the answers' text, by tool (counter).
pub const ANSWER_BYTES: &str = "mcp_light.answer.bytes";
/// Bytes of the full results the answers stand for, by tool (counter).
pub const FULL_BYTES: &str = "mcp_light.full.bytes";
/// Continuation tokens minted and redeemed (counter).
pub const TOKENS: &str = "mcp_light.tokens";
/// Results written to the continuation store (counter).
pub const STORE_ENTRIES: &str = "mcp_light.store.entries";
/// Bytes written to the continuation store (counter).
pub const STORE_BYTES: &str = "mcp_light.store.bytes";
/// Entries the in-memory store dropped before their time or at it (counter).
pub const STORE_EVICTIONS: &str = "mcp_light.store.evictions";
/// Store operations that failed (counter).
pub const STORE_ERRORS: &str = "mcp_light.store.errors";

/// The `gen_ai.tool.name` label of a tool name this server does not
/// publish.
pub const OTHER_TOOL: &str = "_OTHER";

/// Registers the units and descriptions of mcp-light's metrics with the
/// installed `metrics` recorder. [`ServerBuilder::build`](crate::ServerBuilder::build)
/// calls it; call it yourself if you install a recorder after building.
pub fn describe_metrics() {
    metrics::describe_histogram!(
        OPERATION_DURATION,
        Unit::Seconds,
        "Duration of the MCP requests the server answered"
    );
    metrics::describe_counter!(CALLS, "Tool calls, by tool and outcome");
    metrics::describe_counter!(
        ANSWER_BYTES,
        Unit::Bytes,
        "Bytes of the answers' text, what the callers read"
    );
    metrics::describe_counter!(
        FULL_BYTES,
        Unit::Bytes,
        "Bytes of the full results the answers stand for"
    );
    metrics::describe_counter!(TOKENS, "Continuation tokens minted and redeemed");
    metrics::describe_counter!(STORE_ENTRIES, "Results written to the continuation store");
    metrics::describe_counter!(
        STORE_BYTES,
        Unit::Bytes,
        "Bytes written to the continuation store"
    );
    metrics::describe_counter!(STORE_EVICTIONS, "Entries the in-memory store dropped");
    metrics::describe_counter!(STORE_ERRORS, "Continuation store operations that failed");
}

/// How a call was answered: `mcp_light.outcome`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Label {
    /// A write's lean confirmation.
    Envelope,
    /// A heavy read's probe.
    Probe,
    /// The result itself.
    Full,
    /// A heavy read's result within its inline budget, answered whole
    /// where a probe would have stood.
    Inline,
    /// Served from the store for a continuation token.
    Redeemed,
    /// Answered as a task; counted when the task ends.
    Task,
    /// The tool asked the client first.
    InputRequired,
    /// An error, of the call or of the tool.
    Error,
}

impl Label {
    /// Every label, in the order of their counters' keys.
    const ALL: [Label; 8] = [
        Label::Envelope,
        Label::Probe,
        Label::Full,
        Label::Inline,
        Label::Redeemed,
        Label::Task,
        Label::InputRequired,
        Label::Error,
    ];

    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Label::Envelope => "envelope",
            Label::Probe => "probe",
            Label::Full => "full",
            Label::Inline => "inline",
            Label::Redeemed => "redeemed",
            Label::Task => "task",
            Label::InputRequired => "input_required",
            Label::Error => "error",
        }
    }

    /// The label of an answered call, from its outcome.
    const fn of(outcome: &Outcome) -> Label {
        match (outcome.shape, outcome.token) {
            (AnswerShape::Error(_), _) => Label::Error,
            (_, Some(TokenUse::Redeemed)) => Label::Redeemed,
            (AnswerShape::Envelope(_), _) => Label::Envelope,
            (AnswerShape::Probe, _) => Label::Probe,
            (AnswerShape::Inline, _) => Label::Inline,
            (AnswerShape::Full | AnswerShape::Served(_), _) => Label::Full,
        }
    }

    /// Where this label's counter key sits in [`Label::ALL`].
    const fn at(self) -> usize {
        self as usize
    }
}

/// Where mcp-light's metrics say they come from.
static METADATA: Metadata<'static> =
    Metadata::new("mcp_light", metrics::Level::INFO, Some(module_path!()));

static MINTED: [metrics::Label; 1] = [metrics::Label::from_static_parts(
    "mcp_light.token",
    "minted",
)];
static REDEEMED: [metrics::Label; 1] = [metrics::Label::from_static_parts(
    "mcp_light.token",
    "redeemed",
)];

/// The metrics of the calls of one tool (or dispatcher), registered once,
/// when the server is built, with the recorder installed then: a call
/// counts through the handles, without a key built or looked up (and with
/// no recorder, through handles that do nothing).
#[derive(Debug)]
pub(crate) struct ToolMetrics {
    tool: Cow<'static, str>,
    /// `tools/call` and the tool: the duration of a call that did not fail.
    duration: Histogram,
    /// By outcome, in [`Label::ALL`]'s order.
    calls: [Counter; Label::ALL.len()],
    answer_bytes: Counter,
    full_bytes: Counter,
    minted: Counter,
    redeemed: Counter,
    /// Whether a recorder was installed when these were registered: if
    /// not, a call is neither timed nor counted, since every handle here
    /// would do nothing with what it was given.
    listened: bool,
}

impl ToolMetrics {
    /// `tool`'s metrics, registered with the recorder installed now.
    pub(crate) fn new(tool: Cow<'static, str>) -> ToolMetrics {
        let label = || metrics::Label::new("gen_ai.tool.name", tool.clone());
        metrics::with_recorder(|recorder| {
            let counter = |name: &'static str, labels: Vec<metrics::Label>| {
                recorder.register_counter(&Key::from_parts(name, labels), &METADATA)
            };
            let duration = Key::from_parts(
                OPERATION_DURATION,
                vec![
                    metrics::Label::from_static_parts("mcp.method.name", "tools/call"),
                    label(),
                ],
            );
            let duration = recorder.register_histogram(&duration, &METADATA);
            ToolMetrics {
                listened: is_recorder(recorder) || leads_somewhere(&duration),
                duration,
                calls: Label::ALL.map(|outcome| {
                    let outcome =
                        metrics::Label::from_static_parts("mcp_light.outcome", outcome.as_str());
                    counter(CALLS, vec![label(), outcome])
                }),
                answer_bytes: counter(ANSWER_BYTES, vec![label()]),
                full_bytes: counter(FULL_BYTES, vec![label()]),
                minted: recorder
                    .register_counter(&Key::from_static_parts(TOKENS, &MINTED), &METADATA),
                redeemed: recorder
                    .register_counter(&Key::from_static_parts(TOKENS, &REDEEMED), &METADATA),
                tool: tool.clone(),
            }
        })
    }

    /// Whether a recorder takes these metrics: only then is a call timed
    /// and counted.
    pub(crate) fn listened(&self) -> bool {
        self.listened
    }

    /// The metrics of every name a server does not publish, `_OTHER`.
    pub(crate) fn other() -> ToolMetrics {
        ToolMetrics::new(Cow::Borrowed(OTHER_TOOL))
    }

    /// Records a call's duration, failed with `error` if it did: a failed
    /// call's histogram is labelled with its error, so it is looked up then.
    fn record_duration(&self, seconds: f64, error: Option<ErrorType>) {
        match error {
            None => self.duration.record(seconds),
            Some(error) => {
                let key = Key::from_parts(
                    OPERATION_DURATION,
                    vec![
                        metrics::Label::from_static_parts("mcp.method.name", "tools/call"),
                        metrics::Label::new("gen_ai.tool.name", self.tool.clone()),
                        metrics::Label::new("error.type", error.to_string()),
                    ],
                );
                metrics::with_recorder(|recorder| {
                    recorder.register_histogram(&key, &METADATA).record(seconds);
                });
            }
        }
    }
}

/// Whether `recorder` may be one that takes metrics. The `metrics` facade
/// answers every call with its no-op recorder, a zero-sized type, while
/// none is installed; a recorder that keeps what it is given has a size.
fn is_recorder(recorder: &dyn metrics::Recorder) -> bool {
    std::mem::size_of_val(recorder) != 0
}

/// Whether `histogram` leads to a recorder: a no-op handle never even
/// converts the value it is given, so recording nothing (a count of zero)
/// tells, and records nothing.
fn leads_somewhere(histogram: &Histogram) -> bool {
    struct Probe<'a>(&'a std::cell::Cell<bool>);
    impl metrics::IntoF64 for Probe<'_> {
        fn into_f64(self) -> f64 {
            self.0.set(true);
            0.0
        }
    }
    let converted = std::cell::Cell::new(false);
    histogram.record_many(Probe(&converted), 0);
    converted.get()
}

/// Records the duration of a request that is not a tool call.
pub(crate) fn record_request_duration(
    method: &'static str,
    seconds: f64,
    error: Option<ErrorType>,
) {
    let mut labels = vec![metrics::Label::from_static_parts("mcp.method.name", method)];
    if let Some(error) = error {
        labels.push(metrics::Label::new("error.type", error.to_string()));
    }
    let key = Key::from_parts(OPERATION_DURATION, labels);
    metrics::with_recorder(|recorder| {
        recorder.register_histogram(&key, &METADATA).record(seconds);
    });
}

/// A continuation store's metrics, registered once per server, as a
/// tool's are.
#[derive(Debug)]
pub(crate) struct StoreMetrics {
    entries: Counter,
    bytes: Counter,
    /// By `error.type`, in [`STORE_ERROR_TYPES`]' order.
    errors: [Counter; 3],
}

impl StoreMetrics {
    pub(crate) fn new(tier: &'static str) -> StoreMetrics {
        let tier = || metrics::Label::from_static_parts("mcp_light.store.tier", tier);
        metrics::with_recorder(|recorder| {
            let counter = |name: &'static str, labels: Vec<metrics::Label>| {
                recorder.register_counter(&Key::from_parts(name, labels), &METADATA)
            };
            StoreMetrics {
                entries: counter(STORE_ENTRIES, vec![tier()]),
                bytes: counter(STORE_BYTES, vec![tier()]),
                errors: STORE_ERROR_TYPES.map(|error| {
                    let error = metrics::Label::from_static_parts("error.type", error);
                    counter(STORE_ERRORS, vec![tier(), error])
                }),
            }
        })
    }

    /// Counts a result of `bytes` written.
    pub(crate) fn stored(&self, bytes: u64) {
        self.entries.increment(1);
        self.bytes.increment(bytes);
    }

    /// Counts a failed operation, of `error.type` `kind`
    /// ([`STORE_ERROR_TYPES`]).
    pub(crate) fn failed(&self, kind: &str) {
        if let Some(at) = STORE_ERROR_TYPES.iter().position(|known| *known == kind) {
            self.errors[at].increment(1);
        }
    }
}

/// The `error.type`s of a store's failures.
pub(crate) const STORE_ERROR_TYPES: [&str; 3] = ["unavailable", "too_large", "full"];

/// What one call came to, for its span and the counters: read off the
/// answer's [`Outcome`], or, for a call that did not end in a tool result,
/// what it ended in.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Facts {
    pub(crate) label: Label,
    pub(crate) answer_bytes: Option<u64>,
    pub(crate) full_bytes: Option<u64>,
    pub(crate) token: Option<TokenUse>,
    pub(crate) tier: Option<&'static str>,
    /// `error.type`: `tool_error` for an `isError` result, else the
    /// JSON-RPC error code.
    pub(crate) error: Option<ErrorType>,
    /// `mcp_light.error`: what kind of error an `isError` result is.
    pub(crate) error_kind: Option<ErrorKind>,
}

/// A failed request's `error.type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ErrorType {
    /// An `isError` tool result.
    Tool,
    /// A JSON-RPC error, of this code.
    Code(i32),
}

impl std::fmt::Display for ErrorType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ErrorType::Tool => f.write_str("tool_error"),
            ErrorType::Code(code) => write!(f, "{code}"),
        }
    }
}

impl Facts {
    /// What an answered call came to, as its outcome says.
    pub(crate) fn of(outcome: &Outcome) -> Facts {
        let error_kind = outcome.error();
        Facts {
            label: Label::of(outcome),
            answer_bytes: Some(outcome.answer_bytes),
            full_bytes: outcome.full_bytes(),
            token: outcome.token,
            tier: outcome.tier,
            error: error_kind.map(|_| ErrorType::Tool),
            error_kind,
        }
    }

    /// A call that did not end in a tool result: no bytes to count.
    pub(crate) fn bare(label: Label, error: Option<ErrorType>) -> Facts {
        Facts {
            label,
            answer_bytes: None,
            full_bytes: None,
            token: None,
            tier: None,
            error,
            error_kind: None,
        }
    }

    /// Counts the call of the tool `keys` are for (by outcome, its bytes,
    /// its token) unless it became a task, which is counted when it ends;
    /// and its duration, `seconds`.
    pub(crate) fn record(&self, keys: &ToolMetrics, seconds: f64) {
        if self.label != Label::Task {
            self.count(keys);
        }
        keys.record_duration(seconds, self.error);
    }

    /// Counts the call: by outcome, its bytes, its token.
    pub(crate) fn count(&self, keys: &ToolMetrics) {
        keys.calls[self.label.at()].increment(1);
        if let Some(bytes) = self.answer_bytes {
            keys.answer_bytes.increment(bytes);
        }
        if let Some(bytes) = self.full_bytes {
            keys.full_bytes.increment(bytes);
        }
        match self.token {
            Some(TokenUse::Minted) => keys.minted.increment(1),
            Some(TokenUse::Redeemed) => keys.redeemed.increment(1),
            None => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::call::outcome::{Answer, CallError, EnvelopeShape, ServedMode};

    #[test]
    fn an_envelope_counts_its_own_bytes_and_the_full_results() {
        let envelope = json!({"accepted": 60, "status_code": 201, "data_size": 16000, "continuation_token": "t"});
        let answer = Answer::shaped(&envelope, AnswerShape::Envelope(EnvelopeShape::BulkToken))
            .standing_for(16000)
            .with_token(TokenUse::Minted, "memory");
        let bytes = crate::call::answer::compact_text(&envelope).len() as u64;
        assert_eq!(
            Facts::of(answer.outcome()),
            Facts {
                label: Label::Envelope,
                answer_bytes: Some(bytes),
                full_bytes: Some(16000),
                token: Some(TokenUse::Minted),
                tier: Some("memory"),
                error: None,
                error_kind: None,
            }
        );
    }

    #[test]
    fn a_plain_read_returning_total_size_is_not_counted_as_a_probe() {
        // A read whose own result has every field a probe carries.
        let read =
            Answer::full(json!({"preview": [], "total_size": 90000, "continuation_token": "t"}));
        let facts = Facts::of(read.outcome());
        assert_eq!(facts.label, Label::Full);
        assert_eq!(facts.token, None);
        assert_eq!(facts.full_bytes, facts.answer_bytes);
        // And one whose fields look like an envelope is no envelope.
        let read = Answer::full(json!({"status_code": 200, "data_size": 5}));
        assert_eq!(Facts::of(read.outcome()).label, Label::Full);
    }

    #[test]
    fn a_probe_a_redemption_and_an_error_are_told_apart() {
        let probe = Answer::shaped(&json!({"preview": []}), AnswerShape::Probe)
            .standing_for(90000)
            .with_token(TokenUse::Minted, "redis");
        let facts = Facts::of(probe.outcome());
        assert_eq!(
            (facts.label, facts.full_bytes, facts.token),
            (Label::Probe, Some(90000), Some(TokenUse::Minted))
        );

        let page = Answer::shaped(
            &json!({"items": [1, 2]}),
            AnswerShape::Served(ServedMode::Page),
        )
        .with_token(TokenUse::Redeemed, "redis");
        let facts = Facts::of(page.outcome());
        assert_eq!(
            (facts.label, facts.full_bytes, facts.tier),
            (Label::Redeemed, None, Some("redis"))
        );

        let error = Answer::error(CallError::NoStore { tool: "t".into() });
        let facts = Facts::of(error.outcome());
        assert_eq!(
            (facts.label, facts.error, facts.error_kind),
            (Label::Error, Some(ErrorType::Tool), Some(ErrorKind::Token))
        );
    }

    #[test]
    fn a_heavy_result_answered_whole_is_inline_and_stands_for_itself() {
        let inline = Answer::new(
            crate::call::answer::full_result(json!([{"id": 1}, {"id": 2}])),
            AnswerShape::Inline,
        );
        let facts = Facts::of(inline.outcome());
        assert_eq!(
            (facts.label.as_str(), facts.token, facts.tier),
            ("inline", None, None)
        );
        assert_eq!(facts.full_bytes, facts.answer_bytes);
        assert_eq!(
            facts.answer_bytes,
            Some(r#"[{"id":1},{"id":2}]"#.len() as u64)
        );
    }

    #[test]
    fn a_call_is_timed_and_counted_only_where_a_recorder_takes_its_metrics() {
        // No recorder installed: the facade's no-op one.
        assert!(!ToolMetrics::new(Cow::Borrowed("t")).listened());
        // Probing recorded nothing into a recorder that is installed.
        let recorder = metrics_util::debugging::DebuggingRecorder::new();
        let snapshotter = recorder.snapshotter();
        let metrics =
            metrics::with_local_recorder(&recorder, || ToolMetrics::new(Cow::Borrowed("t")));
        assert!(metrics.listened());
        let recorded: Vec<_> = snapshotter
            .snapshot()
            .into_vec()
            .into_iter()
            .filter_map(|(key, _, _, value)| match value {
                metrics_util::debugging::DebugValue::Histogram(samples) => {
                    Some((key.key().name().to_owned(), samples.len()))
                }
                _ => None,
            })
            .collect();
        assert_eq!(recorded, [(OPERATION_DURATION.to_owned(), 0)]);
    }

    #[test]
    fn every_label_finds_its_own_key() {
        for (at, label) in Label::ALL.iter().enumerate() {
            assert_eq!(label.at(), at, "{label:?}");
        }
    }
}
