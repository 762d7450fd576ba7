//! What the inventory tells its operators: logs on stderr, metrics for
//! Prometheus (`--metrics`), traces and metrics over OTLP
//! (`--otlp-endpoint`).
//!
//! The runtime does the measuring: one `mcp.request` span (target
//! `mcp_light`) per request, and its numbers through the `metrics` facade.
//! This module only decides where they go. [`Telemetry::install`] runs
//! before the server is built, since building it describes the metrics
//! (names, units) to whatever recorder is installed by then, and before the
//! async runtime starts, since the OTLP exporter's blocking HTTP client
//! must not be made or dropped inside it.

use std::net::SocketAddr;

use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{Layer, Registry};

use crate::cli::Cli;

/// The runtime's request duration histogram, in seconds.
#[cfg(any(feature = "metrics", feature = "otlp"))]
const DURATION: &str = mcp_light::telemetry::OPERATION_DURATION;

/// Its buckets: those OpenTelemetry's MCP conventions advise, from 10 ms
/// to 5 minutes.
#[cfg(any(feature = "metrics", feature = "otlp"))]
const DURATION_BUCKETS: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// A layer of the global tracing subscriber.
type BoxedLayer = Box<dyn Layer<Registry> + Send + Sync>;

/// One of the metrics recorders the global one hands numbers to.
#[cfg(any(feature = "metrics", feature = "otlp"))]
type BoxedRecorder = Box<dyn metrics::Recorder + Sync>;

/// The OpenTelemetry resource's `service.name`.
#[cfg(feature = "otlp")]
const SERVICE_NAME: &str = "inventory";

/// The installed log subscriber and metrics recorder; what must be served
/// ([`Telemetry::serve_metrics`]) and flushed at exit
/// ([`Telemetry::shutdown`]).
#[derive(Default)]
pub struct Telemetry {
    /// What `GET /metrics` renders.
    #[cfg(feature = "metrics")]
    prometheus: Option<metrics_exporter_prometheus::PrometheusHandle>,
    /// The OpenTelemetry providers whose batches are sent at exit.
    #[cfg(feature = "otlp")]
    otlp: Option<otlp::Providers>,
}

impl Telemetry {
    /// Installs the global tracing subscriber and, with `--metrics` or
    /// `--otlp-endpoint`, the global metrics recorder (fanned out to both
    /// when both are given). Call it once, before the server is built and
    /// outside the async runtime.
    pub fn install(cli: &Cli) -> Result<Self, String> {
        // What each exporter adds, a build without it leaves alone.
        #[cfg_attr(not(any(feature = "metrics", feature = "otlp")), allow(unused_mut))]
        let mut telemetry = Telemetry::default();
        #[cfg_attr(not(feature = "otlp"), allow(unused_mut))]
        let mut layers: Vec<BoxedLayer> = vec![log_layer(cli)];
        #[cfg(any(feature = "metrics", feature = "otlp"))]
        let mut recorders: Vec<BoxedRecorder> = Vec::new();
        #[cfg(feature = "metrics")]
        if cli.metrics.is_some() {
            let recorder = prometheus_recorder()?;
            telemetry.prometheus = Some(recorder.handle());
            recorders.push(Box::new(recorder));
        }
        #[cfg(feature = "otlp")]
        if let Some(endpoint) = &cli.otlp_endpoint {
            let (providers, layer, recorder) = otlp::pipeline(endpoint)?;
            telemetry.otlp = Some(providers);
            layers.push(layer);
            recorders.push(recorder);
        }
        #[cfg(any(feature = "metrics", feature = "otlp"))]
        install_recorders(recorders)?;
        tracing_subscriber::registry()
            .with(layers)
            .try_init()
            .map_err(|e| format!("cannot install the log subscriber: {e}"))?;
        Ok(telemetry)
    }

    /// Serves Prometheus' text format at `GET http://addr/metrics` until
    /// the runtime stops; the address bound is printed on stderr.
    #[cfg(feature = "metrics")]
    pub async fn serve_metrics(&self, addr: SocketAddr) -> Result<(), String> {
        use axum::routing::get;

        let Some(handle) = self.prometheus.clone() else {
            return Ok(());
        };
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| format!("--metrics: cannot listen on {addr}: {e}"))?;
        let bound = listener.local_addr().map_err(|e| e.to_string())?;
        eprintln!("inventory: serving Prometheus metrics at http://{bound}/metrics");
        // Without it, histogram samples pile up between scrapes.
        let upkeep = handle.clone();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(std::time::Duration::from_secs(5));
            loop {
                every.tick().await;
                upkeep.run_upkeep();
            }
        });
        let app = axum::Router::new().route(
            "/metrics",
            get(move || {
                let handle = handle.clone();
                async move {
                    (
                        [("content-type", "text/plain; version=0.0.4; charset=utf-8")],
                        handle.render(),
                    )
                }
            }),
        );
        tokio::spawn(async move {
            if let Err(error) = axum::serve(listener, app).await {
                tracing::error!(%error, "the Prometheus metrics listener stopped");
            }
        });
        Ok(())
    }

    /// A build without the `metrics` feature serves none (`--metrics` was
    /// refused before).
    #[cfg(not(feature = "metrics"))]
    pub async fn serve_metrics(&self, _: SocketAddr) -> Result<(), String> {
        Ok(())
    }

    /// Sends what the OpenTelemetry providers still hold (the last spans,
    /// a final collection of the metrics) and stops them. Call it after the
    /// server has drained, outside the async runtime.
    pub fn shutdown(self) {
        #[cfg(feature = "otlp")]
        if let Some(providers) = self.otlp {
            providers.shutdown();
        }
    }
}

/// stderr's layer: warnings and errors of any target as text, or, with
/// `--log-format json`, as JSON lines beside one line per request.
fn log_layer(cli: &Cli) -> BoxedLayer {
    match cli.log_format {
        #[cfg(feature = "json-logs")]
        crate::cli::LogFormat::Json => json_layer(),
        // Without `json-logs`, `--log-format json` was refused before
        // (`Cli::check_features`).
        _ => tracing_subscriber::fmt::layer()
            .with_writer(std::io::stderr)
            .with_filter(LevelFilter::WARN)
            .boxed(),
    }
}

/// One JSON line per `mcp.request` span, written when it closes: its
/// fields (the method, the tool, the outcome, the sizes, `trace_id`) under
/// `"span"`, its duration as `time.busy` and `time.idle` under `"fields"`;
/// and a line per warning or error of any target.
#[cfg(feature = "json-logs")]
fn json_layer() -> BoxedLayer {
    use tracing::Level;
    use tracing_subscriber::filter::FilterFn;
    use tracing_subscriber::fmt::format::FmtSpan;

    tracing_subscriber::fmt::layer()
        .json()
        .with_span_events(FmtSpan::CLOSE)
        .with_current_span(true)
        .with_span_list(false)
        .with_writer(std::io::stderr)
        .with_filter(FilterFn::new(|metadata| {
            if metadata.is_span() {
                metadata.target() == "mcp_light" && metadata.name() == "mcp.request"
            } else {
                *metadata.level() <= Level::WARN
            }
        }))
        .boxed()
}

/// The Prometheus recorder with Prometheus' naming: unit suffixes
/// (`_seconds`, `_bytes`) and `_total` on counters; the request duration as
/// a true histogram rather than a summary.
#[cfg(feature = "metrics")]
fn prometheus_recorder() -> Result<metrics_exporter_prometheus::PrometheusRecorder, String> {
    use metrics_exporter_prometheus::{Matcher, PrometheusBuilder};

    Ok(PrometheusBuilder::new()
        .with_recommended_naming(true)
        .set_buckets_for_metric(Matcher::Full(DURATION.to_owned()), &DURATION_BUCKETS)
        .map_err(|e| format!("--metrics: {e}"))?
        .build_recorder())
}

/// Installs `recorders` as the global metrics recorder: one as it is,
/// several behind a fanout that hands every number to each.
#[cfg(any(feature = "metrics", feature = "otlp"))]
fn install_recorders(mut recorders: Vec<BoxedRecorder>) -> Result<(), String> {
    use metrics_util::layers::FanoutBuilder;

    let recorder = match recorders.len() {
        0 => return Ok(()),
        1 => recorders.remove(0),
        _ => Box::new(
            recorders
                .into_iter()
                .fold(FanoutBuilder::default(), FanoutBuilder::add_recorder)
                .build(),
        ),
    };
    let installed = metrics::set_global_recorder(recorder);
    installed.map_err(|e| format!("cannot install the metrics recorder: {e}"))
}

/// The OTLP/HTTP pipeline: spans through `tracing-opentelemetry`, metrics
/// through `metrics-exporter-otel`, both to one collector.
#[cfg(feature = "otlp")]
mod otlp {
    use metrics_exporter_otel::OpenTelemetryRecorder;
    use opentelemetry::trace::TracerProvider as _;
    use opentelemetry::{KeyValue, global, metrics::MeterProvider as _};
    use opentelemetry_otlp::{MetricExporter, Protocol, SpanExporter, WithExportConfig};
    use opentelemetry_sdk::Resource;
    use opentelemetry_sdk::metrics::SdkMeterProvider;
    use opentelemetry_sdk::propagation::TraceContextPropagator;
    use opentelemetry_sdk::trace::SdkTracerProvider;
    use tracing::Level;
    use tracing_subscriber::Layer;
    use tracing_subscriber::filter::Targets;

    use super::{BoxedLayer, BoxedRecorder, DURATION, DURATION_BUCKETS, SERVICE_NAME};

    /// The providers to flush at exit.
    pub struct Providers {
        traces: SdkTracerProvider,
        metrics: SdkMeterProvider,
    }

    impl Providers {
        /// Sends the last batch of spans and a final collection of the
        /// metrics; a collector that does not answer is reported, not
        /// waited on for ever (the exporter's own timeout).
        pub fn shutdown(self) {
            if let Err(error) = self.traces.shutdown() {
                eprintln!("inventory: the last spans could not be sent over OTLP: {error}");
            }
            if let Err(error) = self.metrics.shutdown() {
                eprintln!("inventory: the last metrics could not be sent over OTLP: {error}");
            }
        }
    }

    /// The pipeline to the collector at `endpoint` (a base URL; the
    /// signals go to `/v1/traces` and `/v1/metrics` under it, as with
    /// `OTEL_EXPORTER_OTLP_ENDPOINT`): the providers, the tracing layer
    /// and the metrics recorder.
    pub fn pipeline(endpoint: &str) -> Result<(Providers, BoxedLayer, BoxedRecorder), String> {
        let resource = Resource::builder()
            .with_service_name(SERVICE_NAME)
            .with_attribute(KeyValue::new("service.version", env!("CARGO_PKG_VERSION")))
            .build();
        let spans = SpanExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(format!("{endpoint}/v1/traces"))
            .build()
            .map_err(|e| format!("--otlp-endpoint {endpoint}: {e}"))?;
        let traces = SdkTracerProvider::builder()
            .with_batch_exporter(spans)
            .with_resource(resource.clone())
            .build();
        let numbers = MetricExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .with_endpoint(format!("{endpoint}/v1/metrics"))
            .build()
            .map_err(|e| format!("--otlp-endpoint {endpoint}: {e}"))?;
        let metrics = SdkMeterProvider::builder()
            .with_periodic_exporter(numbers)
            .with_resource(resource)
            .build();
        // For code that asks the global API (a `traceparent` read through
        // the propagator, a span started outside tracing).
        global::set_text_map_propagator(TraceContextPropagator::new());
        global::set_tracer_provider(traces.clone());
        global::set_meter_provider(metrics.clone());

        let layer = tracing_opentelemetry::layer()
            .with_tracer(traces.tracer("mcp-light"))
            .with_filter(
                Targets::new()
                    .with_target("mcp_light", Level::INFO)
                    .with_default(Level::WARN),
            )
            .boxed();
        let recorder = OpenTelemetryRecorder::new(metrics.meter("mcp-light"));
        recorder.set_histogram_bounds(&DURATION.into(), DURATION_BUCKETS.to_vec());
        Ok((Providers { traces, metrics }, layer, Box::new(recorder)))
    }
}

#[cfg(all(test, feature = "metrics"))]
mod tests {
    use mcp_light::telemetry::{ANSWER_BYTES, CALLS, describe_metrics};

    use super::*;

    #[test]
    fn prometheus_names_carry_their_unit_and_total_and_the_duration_has_buckets() {
        let recorder = prometheus_recorder().unwrap();
        let handle = recorder.handle();
        metrics::with_local_recorder(&recorder, || {
            describe_metrics();
            let tool = [
                ("mcp.method.name", "tools/call"),
                ("gen_ai.tool.name", "device_create"),
            ];
            metrics::histogram!(DURATION, &tool).record(0.03);
            metrics::counter!(ANSWER_BYTES, "gen_ai.tool.name" => "device_create").increment(200);
            metrics::counter!(CALLS, "gen_ai.tool.name" => "device_create", "mcp_light.outcome" => "envelope")
                .increment(1);
        });
        let text = handle.render();
        for line in [
            "# TYPE mcp_server_operation_duration_seconds histogram",
            r#"mcp_server_operation_duration_seconds_bucket{mcp_method_name="tools/call",gen_ai_tool_name="device_create",le="0.02"} 0"#,
            r#"mcp_server_operation_duration_seconds_bucket{mcp_method_name="tools/call",gen_ai_tool_name="device_create",le="0.05"} 1"#,
            r#"mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call",gen_ai_tool_name="device_create"} 1"#,
            "# TYPE mcp_light_answer_bytes_total counter",
            r#"mcp_light_answer_bytes_total{gen_ai_tool_name="device_create"} 200"#,
            r#"mcp_light_calls_total{gen_ai_tool_name="device_create",mcp_light_outcome="envelope"} 1"#,
        ] {
            assert!(text.contains(line), "{line} missing from:\n{text}");
        }
    }
}
