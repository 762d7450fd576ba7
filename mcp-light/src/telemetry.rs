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
//! a check per request: the span's fields are not even computed.
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
//! | `trace_id` | the W3C trace id: the request's `_meta.traceparent`'s, else OpenTelemetry's, else a fresh one |
//!
//! The outcomes: `envelope` (a write's lean confirmation), `probe` (a
//! heavy read's), `full` (the result itself), `redeemed` (served from the
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
//! spared. A tool label names a tool this server publishes; any other name
//! a caller sends is counted as `_OTHER`, so callers cannot grow the
//! label set. The store counts what was written for continuation tokens,
//! and the in-memory store what it evicted (`reason` `full` or `expired`).
//!
//! Prometheus exporters write the names with underscores and the unit:
//! `mcp_server_operation_duration_seconds{mcp_method_name, gen_ai_tool_name}`,
//! `mcp_light_answer_bytes_total`, `mcp_light_full_bytes_total`,
//! `mcp_light_calls_total`.
//!
//! [`describe_metrics`] registers the units and descriptions; a `Server`
//! calls it when it is built, so install the recorder before building.

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use metrics::{Key, Label, Metadata, Unit};
use rmcp::model::{CallToolResult, ContentBlock};
use serde_json::Value;

use crate::kind::ToolKind;
use crate::token::CONTINUATION_TOKEN;

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
pub(crate) enum Outcome {
    /// A write's lean confirmation.
    Envelope,
    /// A heavy read's probe.
    Probe,
    /// The result itself.
    Full,
    /// Served from the store for a continuation token.
    Redeemed,
    /// Answered as a task; counted when the task ends.
    Task,
    /// The tool asked the client first.
    InputRequired,
    /// An error, of the call or of the tool.
    Error,
}

impl Outcome {
    /// Every outcome, in the order of their counters' keys.
    const ALL: [Outcome; 7] = [
        Outcome::Envelope,
        Outcome::Probe,
        Outcome::Full,
        Outcome::Redeemed,
        Outcome::Task,
        Outcome::InputRequired,
        Outcome::Error,
    ];

    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Outcome::Envelope => "envelope",
            Outcome::Probe => "probe",
            Outcome::Full => "full",
            Outcome::Redeemed => "redeemed",
            Outcome::Task => "task",
            Outcome::InputRequired => "input_required",
            Outcome::Error => "error",
        }
    }
}

/// Where mcp-light's metrics say they come from.
static METADATA: Metadata<'static> =
    Metadata::new("mcp_light", metrics::Level::INFO, Some(module_path!()));

static MINTED: [Label; 1] = [Label::from_static_parts("mcp_light.token", "minted")];
static REDEEMED: [Label; 1] = [Label::from_static_parts("mcp_light.token", "redeemed")];

/// The keys of the metrics of the calls of one tool (or dispatcher), made
/// once, when the server is built: a call counts without building any.
#[derive(Debug)]
pub(crate) struct ToolMetrics {
    tool: Cow<'static, str>,
    /// `tools/call` and the tool: the duration of a call that did not fail.
    duration: Key,
    /// By outcome, in [`Outcome::ALL`]'s order.
    calls: [Key; Outcome::ALL.len()],
    answer_bytes: Key,
    full_bytes: Key,
}

impl ToolMetrics {
    /// The keys of `tool`'s metrics.
    pub(crate) fn new(tool: Cow<'static, str>) -> ToolMetrics {
        let label = || Label::new("gen_ai.tool.name", tool.clone());
        ToolMetrics {
            duration: Key::from_parts(
                OPERATION_DURATION,
                vec![
                    Label::from_static_parts("mcp.method.name", "tools/call"),
                    label(),
                ],
            ),
            calls: Outcome::ALL.map(|outcome| {
                Key::from_parts(
                    CALLS,
                    vec![
                        label(),
                        Label::from_static_parts("mcp_light.outcome", outcome.as_str()),
                    ],
                )
            }),
            answer_bytes: Key::from_parts(ANSWER_BYTES, vec![label()]),
            full_bytes: Key::from_parts(FULL_BYTES, vec![label()]),
            tool,
        }
    }

    /// The keys of every name a server does not publish.
    pub(crate) fn other() -> &'static Arc<ToolMetrics> {
        static OTHER: OnceLock<Arc<ToolMetrics>> = OnceLock::new();
        OTHER.get_or_init(|| Arc::new(ToolMetrics::new(Cow::Borrowed(OTHER_TOOL))))
    }

    /// Records a call's duration, failed with `error` if it did.
    pub(crate) fn record_duration(&self, seconds: f64, error: Option<&str>) {
        metrics::with_recorder(|recorder| match error {
            None => recorder
                .register_histogram(&self.duration, &METADATA)
                .record(seconds),
            Some(error) => {
                let key = Key::from_parts(
                    OPERATION_DURATION,
                    vec![
                        Label::from_static_parts("mcp.method.name", "tools/call"),
                        Label::new("gen_ai.tool.name", self.tool.clone()),
                        Label::new("error.type", error.to_owned()),
                    ],
                );
                recorder.register_histogram(&key, &METADATA).record(seconds);
            }
        });
    }
}

/// Records the duration of a request that is not a tool call.
pub(crate) fn record_request_duration(method: &'static str, seconds: f64, error: Option<&str>) {
    let mut labels = vec![Label::from_static_parts("mcp.method.name", method)];
    if let Some(error) = error {
        labels.push(Label::new("error.type", error.to_owned()));
    }
    let key = Key::from_parts(OPERATION_DURATION, labels);
    metrics::with_recorder(|recorder| {
        recorder.register_histogram(&key, &METADATA).record(seconds);
    });
}

/// The keys of a continuation store's metrics, made once per server.
#[derive(Debug)]
pub(crate) struct StoreMetrics {
    entries: Key,
    bytes: Key,
    /// By `error.type`: `unavailable`, `too_large`, `full`.
    errors: [Key; 3],
}

impl StoreMetrics {
    pub(crate) fn new(tier: &'static str) -> StoreMetrics {
        let tier = || Label::from_static_parts("mcp_light.store.tier", tier);
        StoreMetrics {
            entries: Key::from_parts(STORE_ENTRIES, vec![tier()]),
            bytes: Key::from_parts(STORE_BYTES, vec![tier()]),
            errors: STORE_ERROR_TYPES.map(|error| {
                Key::from_parts(
                    STORE_ERRORS,
                    vec![tier(), Label::from_static_parts("error.type", error)],
                )
            }),
        }
    }

    /// Counts a result of `bytes` written.
    pub(crate) fn stored(&self, bytes: u64) {
        metrics::with_recorder(|recorder| {
            recorder
                .register_counter(&self.entries, &METADATA)
                .increment(1);
            recorder
                .register_counter(&self.bytes, &METADATA)
                .increment(bytes);
        });
    }

    /// Counts a failed operation, of `error.type` `kind`
    /// ([`STORE_ERROR_TYPES`]).
    pub(crate) fn failed(&self, kind: &str) {
        if let Some(at) = STORE_ERROR_TYPES.iter().position(|known| *known == kind) {
            metrics::with_recorder(|recorder| {
                recorder
                    .register_counter(&self.errors[at], &METADATA)
                    .increment(1);
            });
        }
    }
}

/// The `error.type`s of a store's failures.
pub(crate) const STORE_ERROR_TYPES: [&str; 3] = ["unavailable", "too_large", "full"];

/// How a tool call came to its result, as the call path saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Way {
    /// Answered before any tool ran: an error about the call itself.
    Refused,
    /// Served from the store for a continuation token.
    Redeemed,
    /// A tool of this kind ran.
    Ran(ToolKind),
}

impl Way {
    /// The way of a result a call path answers for what stopped it, where
    /// it has no client to hand that to.
    pub(crate) fn escaped(result: CallToolResult) -> (CallToolResult, Way) {
        (result, Way::Refused)
    }
}

/// What one call's answer came to, for its span and the counters.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Facts {
    pub(crate) outcome: Outcome,
    pub(crate) answer_bytes: Option<u64>,
    pub(crate) full_bytes: Option<u64>,
    pub(crate) token: Option<&'static str>,
    pub(crate) error: Option<String>,
}

impl Facts {
    /// What `result`, come to `way`, was: its outcome, its bytes and the
    /// full result's, its token.
    pub(crate) fn of(result: &CallToolResult, way: Way) -> Facts {
        let answer = text_bytes(result);
        if result.is_error == Some(true) {
            return Facts {
                outcome: Outcome::Error,
                answer_bytes: Some(answer),
                full_bytes: Some(answer),
                token: None,
                error: Some("tool_error".to_owned()),
            };
        }
        let structured = result
            .structured_content
            .as_ref()
            .and_then(Value::as_object);
        let field = |name: &str| structured.and_then(|fields| fields.get(name));
        let size = |name: &str| field(name).and_then(Value::as_u64);
        let minted = field(CONTINUATION_TOKEN).is_some_and(Value::is_string);
        let (outcome, full) = match way {
            Way::Redeemed => {
                return Facts {
                    outcome: Outcome::Redeemed,
                    answer_bytes: Some(answer),
                    full_bytes: None,
                    token: Some("redeemed"),
                    error: None,
                };
            }
            Way::Ran(kind) if kind.is_write() && field("status_code").is_some() => {
                (Outcome::Envelope, size("data_size").unwrap_or(answer))
            }
            Way::Ran(ToolKind::Heavy | ToolKind::Read) if field("total_size").is_some() => {
                (Outcome::Probe, size("total_size").unwrap_or(answer))
            }
            Way::Ran(_) | Way::Refused => (Outcome::Full, answer),
        };
        Facts {
            outcome,
            answer_bytes: Some(answer),
            full_bytes: Some(full),
            token: minted.then_some("minted"),
            error: None,
        }
    }

    /// Counts the call of the tool `keys` are for: by outcome, its bytes,
    /// its token.
    pub(crate) fn count(&self, keys: &ToolMetrics) {
        metrics::with_recorder(|recorder| {
            let outcome = Outcome::ALL
                .iter()
                .position(|outcome| *outcome == self.outcome)
                .expect("every outcome is in ALL");
            recorder
                .register_counter(&keys.calls[outcome], &METADATA)
                .increment(1);
            if let Some(bytes) = self.answer_bytes {
                recorder
                    .register_counter(&keys.answer_bytes, &METADATA)
                    .increment(bytes);
            }
            if let Some(bytes) = self.full_bytes {
                recorder
                    .register_counter(&keys.full_bytes, &METADATA)
                    .increment(bytes);
            }
            let token = match self.token {
                Some("minted") => Some(&MINTED),
                Some(_) => Some(&REDEEMED),
                None => None,
            };
            if let Some(labels) = token {
                let key = Key::from_static_parts(TOKENS, labels);
                recorder.register_counter(&key, &METADATA).increment(1);
            }
        });
    }

    /// An answer that is not a tool's result: no bytes to count.
    pub(crate) fn bare(outcome: Outcome, error: Option<String>) -> Facts {
        Facts {
            outcome,
            answer_bytes: None,
            full_bytes: None,
            token: None,
            error,
        }
    }
}

/// The bytes of a result's text content: what the caller's model reads
/// (the structured content repeats it).
fn text_bytes(result: &CallToolResult) -> u64 {
    result
        .content
        .iter()
        .map(|block| match block {
            ContentBlock::Text(text) => text.text.len() as u64,
            _ => 0,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts_of(value: Value, way: Way) -> Facts {
        Facts::of(&crate::answer::full_result(value), way)
    }

    #[test]
    fn an_envelope_counts_its_own_bytes_and_the_full_results() {
        let write = ToolKind::Write {
            kind: crate::kind::WriteKind::BulkCreate,
            status_code: 201,
        };
        let envelope = serde_json::json!({
            "accepted": 60, "status_code": 201, "data_size": 16000, "continuation_token": "t"
        });
        let answer = crate::answer::compact_text(&envelope).len() as u64;
        let facts = facts_of(envelope, Way::Ran(write));
        assert_eq!(
            facts,
            Facts {
                outcome: Outcome::Envelope,
                answer_bytes: Some(answer),
                full_bytes: Some(16000),
                token: Some("minted"),
                error: None,
            }
        );
    }

    #[test]
    fn a_probe_a_redemption_a_full_result_and_an_error_are_told_apart() {
        let probe =
            serde_json::json!({"preview": [], "total_size": 90000, "continuation_token": "t"});
        let facts = facts_of(probe, Way::Ran(ToolKind::Heavy));
        assert_eq!(
            (facts.outcome, facts.full_bytes, facts.token),
            (Outcome::Probe, Some(90000), Some("minted"))
        );

        let page = serde_json::json!({"items": [1, 2], "continuation_token": "t"});
        let facts = facts_of(page, Way::Redeemed);
        assert_eq!(
            (facts.outcome, facts.full_bytes, facts.token),
            (Outcome::Redeemed, None, Some("redeemed"))
        );

        // A read whose own fields look like an envelope is still its result.
        let read = serde_json::json!({"status_code": 200, "data_size": 5});
        let facts = facts_of(read, Way::Ran(ToolKind::Read));
        assert_eq!(facts.outcome, Outcome::Full);
        assert_eq!(facts.full_bytes, facts.answer_bytes);

        let facts = Facts::of(&crate::answer::error_result("no such site"), Way::Refused);
        assert_eq!(
            (facts.outcome, facts.error.as_deref()),
            (Outcome::Error, Some("tool_error"))
        );
    }
}
