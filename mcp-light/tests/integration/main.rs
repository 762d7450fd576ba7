//! Integration tests of mcp-light: tools declared with the macros, called
//! through [`mcp_light::Server::call`] with no transport.
//!
//! The modules marked `http` go over Streamable HTTP: mcp-light's `http`
//! feature, which `cargo test --workspace` turns on through the inventory
//! (`cargo test -p mcp-light --features http` alone).

#[cfg(feature = "apps")]
mod apps;
#[cfg(feature = "http")]
mod audit;
mod bad_input;
mod blocking;
mod bounds;
mod build;
mod client_fit;
mod compose;
mod content;
// Reads its threads' names in /proc.
#[cfg(target_os = "linux")]
mod deadline_clock;
mod disk_tier;
mod dispatch;
mod fixtures;
mod flood;
mod headers;
mod heavy;
#[cfg(feature = "http")]
mod hostile;
mod inline;
mod layering;
mod methods;
mod output_schema;
mod panics;
mod properties;
#[cfg(feature = "http")]
mod raw_http;
#[cfg(feature = "redis")]
mod redis_cluster;
#[cfg(feature = "redis")]
mod redis_store;
mod registry;
mod roles;
mod root_names;
#[cfg(feature = "http")]
mod scopes;
#[cfg(feature = "http")]
mod sessions;
#[cfg(feature = "http")]
mod shutdown;
mod streaming;
mod surface;
mod talkback;
mod tasks;
mod telemetry;
// Needs the tokenizers; `cargo test --workspace` enables the feature
// through the inventory example.
#[cfg(feature = "usage")]
mod usage;
mod wire;
mod write_path;
