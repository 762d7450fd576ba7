//! One call of one tool: parsing its arguments and shaping its answer.
//! STUB signatures; the pipeline is being written.

use rmcp::model::CallToolResult;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::{BulkResult, Context, LightKey, ToolError};

/// A call on its way into a tool.
pub struct Invocation {
    pub(crate) ctx: Context,
    pub(crate) args: serde_json::Map<String, Value>,
}

impl Invocation {
    /// Parses the call's arguments into the tool's argument struct.
    pub fn parse<A: DeserializeOwned>(self) -> Result<(Context, A, Responder), CallToolResult> {
        let a = serde_json::from_value(Value::Object(self.args)).map_err(|e| CallToolResult::error(vec![rmcp::model::ContentBlock::text(e.to_string())]))?;
        Ok((self.ctx, a, Responder {}))
    }
}

/// Shapes a tool's result into its answer.
pub struct Responder {}

impl Responder {
    /// A read tool's answer.
    pub async fn read<T: Serialize>(self, out: Result<T, ToolError>) -> CallToolResult { let _ = out; todo!() }
    /// A heavy tool's answer.
    pub async fn heavy<T: Serialize>(self, out: Result<T, ToolError>) -> CallToolResult { let _ = out; todo!() }
    /// A single write's answer.
    pub async fn single<T: Serialize + LightKey>(self, out: Result<T, ToolError>) -> CallToolResult { let _ = out; todo!() }
    /// A bulk write's answer.
    pub async fn bulk<T: BulkResult>(self, out: Result<T, ToolError>) -> CallToolResult { let _ = out; todo!() }
    /// A destroy's answer.
    pub async fn destroy<T: Serialize>(self, id_name: &'static str, id: Value, out: Result<T, ToolError>) -> CallToolResult { let _ = (id_name, id, out); todo!() }
}
