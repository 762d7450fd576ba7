//! The span and metrics of one request mcp-light answers: started when
//! the request comes in, closed with what it came to
//! ([`telemetry`](crate::telemetry) names and documents them).

use std::time::Instant;

use rmcp::ErrorData;
use rmcp::model::CallToolResponse;
use rmcp::service::{RequestContext, RoleServer};
use tracing::field::Empty;
use tracing::{Instrument, Span};

use crate::call::outcome::{Answer, ErrorKind, TokenUse};
use crate::context::Stopped;
use crate::telemetry::{ErrorType, Facts, Label, SPAN_NAME, ToolMetrics, record_request_duration};

/// One request's span and clock.
pub(crate) struct Traced {
    span: Span,
    /// When the request came in; not read for a call whose metrics no
    /// recorder takes.
    started: Option<Instant>,
    method: &'static str,
}

impl Traced {
    /// Starts the span of a `method` request (of `tool`, for a call), and
    /// its clock if `timed`.
    #[inline]
    pub(crate) fn start(
        method: &'static str,
        tool: Option<&str>,
        context: &RequestContext<RoleServer>,
        session: Option<&str>,
        timed: bool,
    ) -> Traced {
        let started = timed.then(Instant::now);
        // Nothing listens: no span, and nothing of the request read for one.
        let span = if tracing::level_enabled!(tracing::Level::INFO) {
            Self::span_of(method, tool, context, session)
        } else {
            Span::none()
        };
        Traced {
            span,
            started,
            method,
        }
    }

    /// The request's span, for a subscriber that listens: out of line, so
    /// that a request nobody traces does not pay for its frame.
    #[inline(never)]
    fn span_of(
        method: &'static str,
        tool: Option<&str>,
        context: &RequestContext<RoleServer>,
        session: Option<&str>,
    ) -> Span {
        // The span is given its fields at once, those a subscriber would
        // otherwise get later worked out only when it formats them: a
        // formatter may rewrite what it holds of a span at every field
        // recorded later (JSON does), and a filter may want the span whole.
        let parent = context.meta.get_traceparent().and_then(parse_traceparent);
        let trace_id = TraceIdField {
            parent: parent.map(|(trace_id, ..)| trace_id),
            fresh: std::cell::OnceCell::new(),
        };
        // With OpenTelemetry and no parent, its layer's id, once the span
        // exists.
        let shown = parent.is_some() || !cfg!(feature = "opentelemetry");
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
            mcp.protocol.version = %VersionField(context),
            jsonrpc.request.id = %context.id,
            error.type = Empty,
            mcp_light.outcome = Empty,
            mcp_light.answer.bytes = Empty,
            mcp_light.full.bytes = Empty,
            mcp_light.token = Empty,
            mcp_light.store.tier = Empty,
            mcp_light.error = Empty,
            trace_id = shown.then_some(tracing::field::display(&trace_id)),
        );
        #[cfg(feature = "opentelemetry")]
        if !span.is_disabled()
            && !otel::join(&span, parent, context.meta.get_tracestate())
            && let Some(trace_id) = fresh_trace_id()
        {
            span.record("trace_id", trace_id.as_str());
        }
        span
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
        let error = done
            .as_ref()
            .err()
            .map(|error| ErrorType::Code(error.code.0));
        if let Some(started) = self.started {
            record_request_duration(self.method, started.elapsed().as_secs_f64(), error);
        }
        if error.is_some() && !self.span.is_disabled() {
            self.record_end(&Facts::bare(Label::Error, error), false);
        }
    }

    /// Ends a tool call of the tool `keys` count, with what its answer's
    /// outcome says (or what it ended in instead).
    pub(crate) fn finish_call(self, keys: &ToolMetrics, done: &Result<Answer, Stopped>) {
        let counted = keys.listened();
        if !counted && self.span.is_disabled() {
            // Nothing listens: nothing to work out.
            return;
        }
        let facts = facts_of(done);
        if counted && let Some(started) = self.started {
            facts.record(keys, started.elapsed().as_secs_f64());
        }
        if !self.span.is_disabled() {
            self.record_end(&facts, true);
        }
    }

    /// Ends a call the composed handler answered, counted under `keys`,
    /// with what its response says: an `isError` result is an error of the
    /// tool; nothing is known of its sizes. A task it answered with is
    /// counted now, since mcp-light does not follow the handler's tasks to
    /// their end.
    pub(crate) fn finish_composed_call(
        self,
        keys: &ToolMetrics,
        done: &Result<CallToolResponse, ErrorData>,
    ) {
        let counted = keys.listened();
        if !counted && self.span.is_disabled() {
            return;
        }
        let facts = composed_facts(done);
        if counted && let Some(started) = self.started {
            if facts.label == Label::Task {
                facts.count(keys);
            }
            facts.record(keys, started.elapsed().as_secs_f64());
        }
        if !self.span.is_disabled() {
            self.record_end(&facts, true);
        }
    }

    /// Records on the span, in one go, what the request came to: a call's
    /// outcome, sizes and token (for a tool `call`), and a failure.
    fn record_end(&self, facts: &Facts, call: bool) {
        let Some(metadata) = self.span.metadata() else {
            return;
        };
        let fields = metadata.fields();
        let field = |name: &str| fields.field(name).expect("a field the span declares");
        // A request that is not a tool call has no outcome, only a failure.
        let outcome = call.then(|| facts.label.as_str());
        let token = facts.token.map(TokenUse::label);
        let tier = token.and(facts.tier);
        let error = facts.error.map(tracing::field::display);
        let kind = facts.error_kind.map(ErrorKind::as_str);
        let status = facts.error.map(|_| "error");
        let names = [
            field("mcp_light.outcome"),
            field("mcp_light.answer.bytes"),
            field("mcp_light.full.bytes"),
            field("mcp_light.token"),
            field("mcp_light.store.tier"),
            field("mcp_light.error"),
            field("error.type"),
            field("otel.status_code"),
        ];
        let values: [Option<&dyn tracing::Value>; 8] = [
            outcome.as_ref().map(|v| v as &dyn tracing::Value),
            facts
                .answer_bytes
                .as_ref()
                .map(|v| v as &dyn tracing::Value),
            facts.full_bytes.as_ref().map(|v| v as &dyn tracing::Value),
            token.as_ref().map(|v| v as &dyn tracing::Value),
            tier.as_ref().map(|v| v as &dyn tracing::Value),
            kind.as_ref().map(|v| v as &dyn tracing::Value),
            error.as_ref().map(|v| v as &dyn tracing::Value),
            status.as_ref().map(|v| v as &dyn tracing::Value),
        ];
        let pairs: [(&tracing::field::Field, Option<&dyn tracing::Value>); 8] =
            std::array::from_fn(|at| (&names[at], values[at]));
        self.span.record_all(&fields.value_set(&pairs));
    }
}

/// The request's protocol version, worked out when a subscriber records
/// it; nothing when none is known.
struct VersionField<'a>(&'a RequestContext<RoleServer>);

impl std::fmt::Display for VersionField<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0.protocol_version() {
            Some(version) => f.write_str(version.as_str()),
            None => Ok(()),
        }
    }
}

/// The request's trace id: its caller's, or a fresh one drawn the first
/// time a subscriber records it (and the same for every layer after).
struct TraceIdField<'a> {
    parent: Option<&'a str>,
    fresh: std::cell::OnceCell<Option<String>>,
}

impl std::fmt::Display for TraceIdField<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.parent {
            Some(trace_id) => f.write_str(trace_id),
            None => f.write_str(
                self.fresh
                    .get_or_init(fresh_trace_id)
                    .as_deref()
                    .unwrap_or(""),
            ),
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

/// What a call's answer over MCP came to.
fn facts_of(done: &Result<Answer, Stopped>) -> Facts {
    match done {
        Ok(answer) => Facts::of(answer.outcome()),
        // What stops a call short of its tool's answer is never a result
        // of a tool: a task, a question for the client, a protocol error.
        Err(Ok(CallToolResponse::Task(_))) => Facts::bare(Label::Task, None),
        Err(Ok(CallToolResponse::InputRequired(_))) => Facts::bare(Label::InputRequired, None),
        Err(Ok(_)) => Facts::bare(Label::Full, None),
        Err(Err(error)) => Facts::bare(Label::Error, Some(ErrorType::Code(error.code.0))),
    }
}

/// What a call the composed handler answered came to, as its response
/// says.
fn composed_facts(done: &Result<CallToolResponse, ErrorData>) -> Facts {
    match done {
        Ok(CallToolResponse::Complete(result)) if result.is_error == Some(true) => {
            Facts::bare(Label::Error, Some(ErrorType::Tool))
        }
        Ok(CallToolResponse::Task(_)) => Facts::bare(Label::Task, None),
        Ok(CallToolResponse::InputRequired(_)) => Facts::bare(Label::InputRequired, None),
        Ok(_) => Facts::bare(Label::Full, None),
        Err(error) => Facts::bare(Label::Error, Some(ErrorType::Code(error.code.0))),
    }
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

/// A new W3C trace id, for a request that names no trace when no
/// OpenTelemetry layer starts one: 32 lowercase hex digits, not all zeros.
/// Without randomness, none.
fn fresh_trace_id() -> Option<String> {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() || bytes == [0; 16] {
        return None;
    }
    Some(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
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
    /// the layer gave the span and answers whether there was one.
    pub(super) fn join(span: &Span, parent: Option<(&str, &str, u8)>, state: Option<&str>) -> bool {
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
            // recorded says which trace the request is part of.
            Some(parent) => {
                drop(span.set_parent(parent));
                true
            }
            None => {
                let trace_id = span.context().span().span_context().trace_id();
                let started = trace_id != TraceId::INVALID;
                if started {
                    span.record("trace_id", tracing::field::display(trace_id));
                }
                started
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

    #[test]
    fn a_composed_handlers_answer_is_labelled_by_its_response() {
        use rmcp::model::{CallToolResult, ContentBlock};

        let answered = Ok(CallToolResponse::Complete(CallToolResult::success(vec![
            ContentBlock::text("ok"),
        ])));
        let facts = composed_facts(&answered);
        assert_eq!((facts.label, facts.error), (Label::Full, None));
        let failed = Ok(CallToolResponse::Complete(CallToolResult::error(vec![
            ContentBlock::text("no"),
        ])));
        let facts = composed_facts(&failed);
        assert_eq!(
            (facts.label, facts.error),
            (Label::Error, Some(ErrorType::Tool))
        );
        let refused = Err(ErrorData::invalid_params("tool not found", None));
        let facts = composed_facts(&refused);
        assert_eq!(
            (facts.label, facts.error),
            (Label::Error, Some(ErrorType::Code(-32602)))
        );
    }

    #[test]
    fn a_refused_request_is_an_error_of_its_code() {
        let refused: Result<Answer, Stopped> = Err(Err(ErrorData::invalid_params("no", None)));
        let facts = facts_of(&refused);
        assert_eq!(
            (facts.label, facts.error),
            (Label::Error, Some(ErrorType::Code(-32602)))
        );
        assert_eq!(facts.error.unwrap().to_string(), "-32602");
    }
}
