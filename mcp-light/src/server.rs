//! STUB
use crate::{Caller, RegistryError};
use rmcp::model::CallToolResult;
/// A server.
pub struct Server {}
impl Server {
    /// From registry.
    pub fn from_registry() -> Result<Server, RegistryError> { Ok(Server {}) }
    /// Calls a tool.
    pub async fn call(&self, tool: &str, args: serde_json::Value, caller: Caller) -> CallToolResult { let _ = (tool, args, caller); todo!() }
}
