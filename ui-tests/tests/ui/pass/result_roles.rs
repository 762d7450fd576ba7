//! A tool's result is whatever the compiler can turn into an answer: any
//! `Result` whose error converts into `ToolError` (aliases included), or a
//! plain serializable value.
use std::error::Error;

use mcp_light::prelude::*;
use serde_json::json;

/// An application's own result alias.
pub type ApiResult<T> = Result<T, ToolError>;

#[derive(Serialize, Deserialize, JsonSchema, LightKey)]
pub struct Device {
    pub id: u64,
    pub name: String,
}

/// Fetch a device through the alias.
#[mcp_tool]
fn device_find(id: u64) -> ApiResult<Device> {
    match id {
        1 => Ok(Device {
            id,
            name: "edge-01".into(),
        }),
        _ => Err(ToolError::new(format!("no device {id}"))),
    }
}

/// Create a device through the alias: the success type still has to be
/// `LightKey`. Without a retrieve tool, the write answers its full result.
#[mcp_light(create)]
fn device_make(name: String) -> ApiResult<Device> {
    Ok(Device { id: 2, name })
}

/// A boxed error.
#[mcp_tool]
fn parse_port(text: String) -> Result<u16, Box<dyn Error + Send + Sync>> {
    Ok(text.parse::<u16>()?)
}

/// anyhow's result.
#[mcp_tool]
async fn load(path: String) -> anyhow::Result<String> {
    anyhow::ensure!(!path.is_empty(), "the path is empty");
    Ok(path)
}

/// A std error.
#[mcp_tool]
fn read_nothing() -> std::io::Result<Vec<u8>> {
    Err(std::io::Error::other("disk on fire"))
}

/// A plain value.
#[mcp_tool]
fn answer() -> u32 {
    42
}

/// Nothing.
#[mcp_tool]
fn nothing() {}

fn main() {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(async {
            let server = Server::from_registry().build().unwrap();
            let call = |tool: &'static str, args| server.call(tool, args, Caller::Process);

            let found = call("device_find", json!({"id": 1})).await;
            assert_eq!(found.is_error, Some(false));
            assert_eq!(
                found.structured_content.unwrap(),
                json!({"id": 1, "name": "edge-01"})
            );
            let missing = call("device_find", json!({"id": 9})).await;
            assert_eq!(missing.is_error, Some(true));
            assert!(format!("{:?}", missing.content).contains("no device 9"));

            let made = call("device_make", json!({"name": "edge-02"})).await;
            assert_eq!(
                made.structured_content.unwrap(),
                json!({"id": 2, "name": "edge-02"})
            );

            let port = call("parse_port", json!({"text": "80"})).await;
            assert_eq!(port.structured_content.unwrap(), json!({"result": 80}));
            let bad_port = call("parse_port", json!({"text": "eighty"})).await;
            assert_eq!(bad_port.is_error, Some(true));
            assert!(format!("{:?}", bad_port.content).contains("invalid digit"));

            let loaded = call("load", json!({"path": ""})).await;
            assert_eq!(loaded.is_error, Some(true));
            assert!(format!("{:?}", loaded.content).contains("the path is empty"));

            let fire = call("read_nothing", json!({})).await;
            assert!(format!("{:?}", fire.content).contains("disk on fire"));

            let answer = call("answer", json!({})).await;
            assert_eq!(answer.structured_content.unwrap(), json!({"result": 42}));
            let nothing = call("nothing", json!({})).await;
            assert_eq!(nothing.structured_content.unwrap(), json!({"result": null}));
        });
}
