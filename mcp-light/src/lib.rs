//! # mcp-light
//!
//! Native Rust MCP tools whose answers respect an agent's context window.
//!
//! * `#[mcp_light]` on a write tool answers a lean confirmation envelope
//!   instead of an echo of everything written, injects `verify` into the
//!   tool's schema so a caller can ask for the full result, and mints a
//!   continuation token only where the published schema lets the caller send
//!   it back.
//! * `#[mcp_heavy]` on a read tool answers a huge result with a probe and a
//!   continuation token the caller redeems page by page.
//! * `#[mcp_tool]` registers a plain tool.
//! * `#[derive(LightKey)]` names the fields that identify an object in an
//!   envelope.
//!
//! Every annotated function registers itself; [`Server::from_registry`]
//! collects them.
//!
//! ```
//! use mcp_light::prelude::*;
//!
//! #[derive(Serialize, Deserialize, JsonSchema, LightKey)]
//! #[light_key(site)]
//! pub struct Device {
//!     pub id: u64,
//!     pub name: String,
//!     pub site: String,
//!     pub serial: String,
//! }
//!
//! /// Fetch one device.
//! #[mcp_tool(resource = "device", action = "retrieve")]
//! fn device_get(id: u64) -> Result<Device, ToolError> {
//!     Ok(Device { id, name: "edge-01".into(), site: "hq".into(), serial: "X1".into() })
//! }
//!
//! /// Create one device.
//! #[mcp_light(create, resource = "device", retrieve = device_get)]
//! fn device_add(name: String, site: String) -> Result<Device, ToolError> {
//!     Ok(Device { id: 7, name, site, serial: "X1".into() })
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
//! let server = Server::from_registry()?;
//! let result = server
//!     .call("device_add", serde_json::json!({"name": "edge-01", "site": "hq"}), Caller::Anonymous)
//!     .await;
//! // The tool's schema gives no slot for a continuation token, so the
//! // envelope carries none; the id and the retrieve tool reach the device.
//! assert_eq!(
//!     result.structured_content.unwrap().to_string(),
//!     r#"{"id":7,"name":"edge-01","site":"hq","status_code":201,"data_size":55}"#
//! );
//! # Ok::<(), mcp_light::RegistryError>(())
//! # }).unwrap();
//! ```
#![warn(missing_docs)]

mod context;
mod dispatch;
mod envelope;
mod error;
mod invoke;
mod light_key;
mod outcome;
mod registry;
mod schema;
mod server;
mod tool;

pub mod heavy;
pub mod store;
pub mod token;

#[doc(hidden)]
pub mod __private;

pub use context::{Caller, Context};
pub use dispatch::Dispatcher;
pub use envelope::data_size;
pub use error::{RegistryError, ToolError};
pub use light_key::{BulkResult, KeyFields, LightKey};
pub use outcome::Outcome;
pub use registry::{PublishedTool, Registry, TOOLS};
pub use schema::discloses_continuation;
pub use server::Server;
pub use store::{ContinuationStore, MemoryStore};
pub use tool::{ToolDef, ToolKind, WriteKind};

/// The attribute that registers a plain (read) tool.
pub use mcp_light_macros::mcp_tool;

/// The attribute that makes a write tool answer a lean envelope.
pub use mcp_light_macros::mcp_light;

/// The attribute that makes a read tool answer a probe and a continuation token.
pub use mcp_light_macros::mcp_heavy;

/// Derives [`LightKey`] for a struct with named fields.
pub use mcp_light_macros::LightKey;

/// The result type of an MCP tool call, as answered on the wire.
pub use rmcp::model::CallToolResult;

/// Everything a tool module needs, in one `use`.
pub mod prelude {
    pub use crate::{
        BulkResult, Caller, Context, KeyFields, LightKey, Server, ToolError, mcp_heavy, mcp_light,
        mcp_tool,
    };
    pub use schemars::JsonSchema;
    pub use serde::{Deserialize, Serialize};
}
