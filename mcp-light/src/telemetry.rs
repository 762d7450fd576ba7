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
//! Every request mcp-light answers itself (`initialize`, `tools/list`,
//! `tools/call`, `tasks/get`, `tasks/update`, `tasks/cancel`,
//! `logging/setLevel`, `server/discover`) runs in one span named
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
//! | `trace_id` | the W3C trace id: the request's `_meta.traceparent`, or OpenTelemetry's |
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

use metrics::Unit;

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
