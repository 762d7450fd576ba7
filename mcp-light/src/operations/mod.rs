//! Running a server: what it measures and reports, the bounds it keeps on
//! every call, and the audit of its configuration.
//!
//! - `telemetry` (`mcp_light::telemetry`): traces and metrics, in
//!   OpenTelemetry's names for MCP and mcp-light's own.
//! - `usage`: the usage report: what an answer cost the caller's context,
//!   and what the full result would have, in real model tokens.
//! - `limits/`: bounds on one call (argument strings, the tool's deadline)
//!   and the clock deadlines ring on.
//! - `audit/` (`mcp_light::audit`): the configuration audit, before
//!   serving.
//!
//! The transport's health endpoints are the wire's
//! (`wire/transport/health.rs`).

pub mod audit;
pub(crate) mod limits;
pub mod telemetry;
pub(crate) mod usage;
