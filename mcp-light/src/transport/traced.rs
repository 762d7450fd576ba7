//! The span and metrics of one request mcp-light answers: started when
//! the request comes in, closed with what it came to
//! ([`telemetry`](crate::telemetry) names and documents them).

use std::borrow::Cow;
use std::time::Instant;

use rmcp::ErrorData;
use rmcp::model::{CallToolResponse, CallToolResult, ContentBlock};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;
use tracing::field::Empty;
use tracing::{Instrument, Span};

use crate::context::Stopped;
use crate::kind::ToolKind;
use crate::server::Way;
use crate::telemetry::{
    ANSWER_BYTES, CALLS, FULL_BYTES, OPERATION_DURATION, OTHER_TOOL, SPAN_NAME, TOKENS,
};

/// One request's span and clock.
pub(crate) struct Traced {
    span: Span,
    started: Instant,
    method: &'static str,
}

impl Traced {
    /// Starts the span of a `method` request (of `tool`, for a call).
    pub(crate) fn start(
        method: &'static str,
        tool: Option<&str>,
        context: &RequestContext<RoleServer>,
        session: Option<&str>,
    ) -> Traced {
        let started = Instant::now();
        let span = tracing::info_span!(
            target: "mcp_light",
            SPAN_NAME,
            otel.name = %SpanTitle(method, tool),
            otel.kind = "server",
            otel.status_code = Empty,
            mcp.method.name = method,
            gen_ai.tool.name = tool,
            gen_ai.operation.name = tool.map(|_| "execute_tool"),
            mcp.session.id = session,
            mcp.protocol.version = Empty,
            jsonrpc.request.id = %context.id,
            error.type = Empty,
            mcp_light.outcome = Empty,
            mcp_light.answer.bytes = Empty,
            mcp_light.full.bytes = Empty,
            mcp_light.token = Empty,
            mcp_light.store.tier = Empty,
            trace_id = Empty,
        );
        if !span.is_disabled() {
            if let Some(version) = context.protocol_version() {
                span.record("mcp.protocol.version", version.as_str());
            }
            join_trace(&span, context);
        }
        Traced {
            span,
            started,
            method,
        }
    }

    /// The span, to run the request in.
    pub(crate) fn span(&self) -> &Span {
        &self.span
    }

    /// Runs `answer` in the span and ends the request with its outcome.
    pub(crate) async fn run<T>(
        self,
        answer: impl Future<Output = Result<T, ErrorData>>,
    ) -> Result<T, ErrorData> {
        let done = answer.instrument(self.span.clone()).await;
        self.finish(&done);
        done
    }

    /// Ends a request that is not a tool call, `Err` for a JSON-RPC error.
    pub(crate) fn finish<T>(self, done: &Result<T, ErrorData>) {
        let error = done.as_ref().err().map(|error| error_code(error.code.0));
        self.close(None, error.as_deref());
    }

    /// Ends a tool call: `tool` is the name the metrics know it by (a
    /// published tool or dispatcher, else `None`), `tier` the store's name.
    pub(crate) fn finish_call(
        self,
        tool: Option<Cow<'static, str>>,
        done: &Result<(CallToolResult, Way), Stopped>,
        tier: &'static str,
    ) {
        let facts = Facts::of(done);
        let error = facts.error.as_deref();
        let tool = tool.unwrap_or(Cow::Borrowed(OTHER_TOOL));
        metrics::counter!(CALLS, "gen_ai.tool.name" => tool.clone(), "mcp_light.outcome" => facts.outcome)
            .increment(1);
        if let Some(bytes) = facts.answer_bytes {
            metrics::counter!(ANSWER_BYTES, "gen_ai.tool.name" => tool.clone()).increment(bytes);
        }
        if let Some(bytes) = facts.full_bytes {
            metrics::counter!(FULL_BYTES, "gen_ai.tool.name" => tool.clone()).increment(bytes);
        }
        if let Some(token) = facts.token {
            metrics::counter!(TOKENS, "mcp_light.token" => token).increment(1);
        }
        if !self.span.is_disabled() {
            let span = &self.span;
            span.record("mcp_light.outcome", facts.outcome);
            if let Some(bytes) = facts.answer_bytes {
                span.record("mcp_light.answer.bytes", bytes);
            }
            if let Some(bytes) = facts.full_bytes {
                span.record("mcp_light.full.bytes", bytes);
            }
            if let Some(token) = facts.token {
                span.record("mcp_light.token", token);
                span.record("mcp_light.store.tier", tier);
            }
        }
        self.close(Some(tool), error);
    }

    /// Records the duration, and the error on the span.
    fn close(self, tool: Option<Cow<'static, str>>, error: Option<&str>) {
        let seconds = self.started.elapsed().as_secs_f64();
        let method = self.method;
        match (tool, error) {
            (Some(tool), Some(error)) => metrics::histogram!(
                OPERATION_DURATION,
                "mcp.method.name" => method,
                "gen_ai.tool.name" => tool,
                "error.type" => error.to_owned()
            )
            .record(seconds),
            (Some(tool), None) => metrics::histogram!(
                OPERATION_DURATION,
                "mcp.method.name" => method,
                "gen_ai.tool.name" => tool
            )
            .record(seconds),
            (None, Some(error)) => metrics::histogram!(
                OPERATION_DURATION,
                "mcp.method.name" => method,
                "error.type" => error.to_owned()
            )
            .record(seconds),
            (None, None) => {
                metrics::histogram!(OPERATION_DURATION, "mcp.method.name" => method)
                    .record(seconds);
            }
        }
        if let Some(error) = error
            && !self.span.is_disabled()
        {
            self.span.record("error.type", error);
            self.span.record("otel.status_code", "error");
        }
    }
}

/// `{method} {tool}`, or the method alone: the span's `otel.name`.
struct SpanTitle<'a>(&'static str, Option<&'a str>);

impl std::fmt::Display for SpanTitle<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.1 {
            Some(tool) => write!(f, "{} {tool}", self.0),
            None => f.write_str(self.0),
        }
    }
}

/// What one call's answer came to, for its span and the counters.
#[derive(Debug, PartialEq, Eq)]
struct Facts {
    outcome: &'static str,
    answer_bytes: Option<u64>,
    full_bytes: Option<u64>,
    token: Option<&'static str>,
    error: Option<String>,
}

impl Facts {
    fn of(done: &Result<(CallToolResult, Way), Stopped>) -> Facts {
        let (result, way) = match done {
            Ok((result, way)) => (result, *way),
            Err(Ok(CallToolResponse::Complete(result))) => (result, Way::Refused),
            Err(Ok(CallToolResponse::Task(_))) => return Facts::bare("task", None),
            Err(Ok(CallToolResponse::InputRequired(_))) => {
                return Facts::bare("input_required", None);
            }
            Err(Ok(_)) => return Facts::bare("full", None),
            Err(Err(error)) => return Facts::bare("error", Some(error_code(error.code.0))),
        };
        let answer = text_bytes(result);
        if result.is_error == Some(true) {
            return Facts {
                outcome: "error",
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
        let minted = field(crate::schema::CONTINUATION_TOKEN).is_some_and(Value::is_string);
        let (outcome, full) = match way {
            Way::Redeemed => {
                return Facts {
                    outcome: "redeemed",
                    answer_bytes: Some(answer),
                    full_bytes: None,
                    token: Some("redeemed"),
                    error: None,
                };
            }
            Way::Ran(kind) if kind.is_write() && field("status_code").is_some() => {
                ("envelope", size("data_size").unwrap_or(answer))
            }
            Way::Ran(ToolKind::Heavy | ToolKind::Read) if field("total_size").is_some() => {
                ("probe", size("total_size").unwrap_or(answer))
            }
            Way::Ran(_) | Way::Refused => ("full", answer),
        };
        Facts {
            outcome,
            answer_bytes: Some(answer),
            full_bytes: Some(full),
            token: minted.then_some("minted"),
            error: None,
        }
    }

    fn bare(outcome: &'static str, error: Option<String>) -> Facts {
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

/// A JSON-RPC error code as `error.type`.
fn error_code(code: i32) -> String {
    code.to_string()
}

/// A W3C `traceparent`'s trace id and parent span id, when it is one:
/// `00-<32 hex>-<16 hex>-<2 hex>`, lowercase, neither id all zeros.
pub(crate) fn parse_traceparent(value: &str) -> Option<(&str, &str, u8)> {
    let mut parts = value.split('-');
    let version = parts.next()?;
    let trace_id = parts.next()?;
    let span_id = parts.next()?;
    let flags = parts.next()?;
    let lower_hex = |part: &str, len: usize| {
        part.len() == len && part.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    };
    // Version 00 has exactly four parts; a later version may add more.
    let later = version != "00";
    if !lower_hex(version, 2)
        || version == "ff"
        || (!later && parts.next().is_some())
        || !lower_hex(trace_id, 32)
        || !lower_hex(span_id, 16)
        || !lower_hex(flags, 2)
        || trace_id.bytes().all(|b| b == b'0')
        || span_id.bytes().all(|b| b == b'0')
    {
        return None;
    }
    let flags = u8::from_str_radix(flags, 16).ok()?;
    Some((trace_id, span_id, flags))
}

/// Records the request's trace id on `span` and, with the `opentelemetry`
/// feature, makes the caller's span its parent.
fn join_trace(span: &Span, context: &RequestContext<RoleServer>) {
    let parent = context.meta.get_traceparent().and_then(parse_traceparent);
    if let Some((trace_id, ..)) = parent {
        span.record("trace_id", trace_id);
    }
    #[cfg(feature = "opentelemetry")]
    otel::join(span, parent, context.meta.get_tracestate());
}

#[cfg(feature = "opentelemetry")]
mod otel {
    use opentelemetry::trace::{
        SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState,
    };
    use tracing::Span;
    use tracing_opentelemetry::OpenTelemetrySpanExt;

    /// Sets the OpenTelemetry parent of `span` from the caller's
    /// `traceparent` and `tracestate`; without one, records the trace id
    /// the layer gave the span.
    pub(super) fn join(span: &Span, parent: Option<(&str, &str, u8)>, state: Option<&str>) {
        let remote = parent.and_then(|(trace_id, span_id, flags)| {
            let state = state
                .and_then(|state| state.parse::<TraceState>().ok())
                .unwrap_or_default();
            let context = SpanContext::new(
                TraceId::from_hex(trace_id).ok()?,
                SpanId::from_hex(span_id).ok()?,
                TraceFlags::new(flags),
                true,
                state,
            );
            Some(opentelemetry::Context::new().with_remote_span_context(context))
        });
        match remote {
            // Without the layer there is no parent to set: the trace id
            // recorded already says which trace the request is part of.
            Some(parent) => drop(span.set_parent(parent)),
            None => {
                let trace_id = span.context().span().span_context().trace_id();
                if trace_id != TraceId::INVALID {
                    span.record("trace_id", tracing::field::display(trace_id));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_traceparent_gives_its_ids_and_a_malformed_one_nothing() {
        assert_eq!(
            parse_traceparent("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"),
            Some(("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331", 1))
        );
        for bad in [
            "",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331",
            "00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01",
            "00-00000000000000000000000000000000-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
            "ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-extra",
            "00-0af7651916cd43dd8448eb211c8031-b7ad6b7169203331-01",
        ] {
            assert_eq!(parse_traceparent(bad), None, "{bad}");
        }
        // A later version may carry more fields after the flags.
        assert!(
            parse_traceparent("01-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01-x")
                .is_some()
        );
    }

    #[allow(clippy::result_large_err)] // The call path's own type.
    fn answered(value: Value, way: Way) -> Result<(CallToolResult, Way), Stopped> {
        Ok((crate::answer::full_result(value), way))
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
        let facts = Facts::of(&answered(envelope, Way::Ran(write)));
        assert_eq!(
            facts,
            Facts {
                outcome: "envelope",
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
        let facts = Facts::of(&answered(probe, Way::Ran(ToolKind::Heavy)));
        assert_eq!(
            (facts.outcome, facts.full_bytes, facts.token),
            ("probe", Some(90000), Some("minted"))
        );

        let page = serde_json::json!({"items": [1, 2], "continuation_token": "t"});
        let facts = Facts::of(&answered(page, Way::Redeemed));
        assert_eq!(
            (facts.outcome, facts.full_bytes, facts.token),
            ("redeemed", None, Some("redeemed"))
        );

        // A read whose own fields look like an envelope is still its result.
        let read = serde_json::json!({"status_code": 200, "data_size": 5});
        let facts = Facts::of(&answered(read, Way::Ran(ToolKind::Read)));
        assert_eq!(facts.outcome, "full");
        assert_eq!(facts.full_bytes, facts.answer_bytes);

        let failed = Ok((crate::answer::error_result("no such site"), Way::Refused));
        let facts = Facts::of(&failed);
        assert_eq!(
            (facts.outcome, facts.error.as_deref()),
            ("error", Some("tool_error"))
        );

        let refused: Result<(CallToolResult, Way), Stopped> =
            Err(Err(ErrorData::invalid_params("no", None)));
        assert_eq!(Facts::of(&refused).error.as_deref(), Some("-32602"));
    }
}
