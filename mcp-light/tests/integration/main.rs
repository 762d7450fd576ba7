//! Integration tests of mcp-light: tools declared with the macros, called
//! through [`mcp_light::Server::call`] with no transport.

mod bad_input;
mod dispatch;
mod fixtures;
mod heavy;
mod layering;
#[cfg(feature = "redis")]
mod redis_store;
mod registry;
mod roles;
mod wire;
mod write_path;
