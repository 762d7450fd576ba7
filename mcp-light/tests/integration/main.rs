//! Integration tests of mcp-light: tools declared with the macros, called
//! through [`mcp_light::Server::call`] with no transport.

mod bad_input;
mod bounds;
mod dispatch;
mod fixtures;
mod flood;
mod heavy;
mod layering;
mod output_schema;
mod properties;
#[cfg(feature = "redis")]
mod redis_store;
mod registry;
mod roles;
mod surface;
// Needs the tokenizers; `cargo test --workspace` enables the feature
// through the inventory example.
#[cfg(feature = "usage")]
mod usage;
mod wire;
mod write_path;
