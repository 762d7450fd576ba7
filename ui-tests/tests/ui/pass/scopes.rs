//! `scopes = [...]` on each tool attribute: the OAuth scopes a call needs,
//! in the order written.
use mcp_light::prelude::*;

#[derive(Serialize, Deserialize, JsonSchema, LightKey)]
pub struct Device {
    pub id: u64,
    pub name: String,
}

/// Fetch one device.
#[mcp_tool(resource = "device", action = "retrieve", scopes = ["inventory:read"])]
fn device_get(id: u64) -> Device {
    Device {
        id,
        name: "edge-01".into(),
    }
}

/// List devices.
#[mcp_heavy(resource = "device", action = "list", scopes = ["inventory:read"])]
fn device_list() -> Vec<Device> {
    Vec::new()
}

/// Create one device.
#[mcp_light(create, scopes = ["inventory:write", "audit"], retrieve = device_get)]
fn device_create(name: String) -> Device {
    Device { id: 1, name }
}

/// Import devices: heavy and light, its scopes in one attribute.
#[mcp_heavy]
#[mcp_light(bulk_create, scopes = ["inventory:write"])]
fn device_import(names: Vec<String>) -> Vec<Device> {
    names
        .into_iter()
        .map(|name| Device { id: 1, name })
        .collect()
}

/// Says hello to anyone.
#[mcp_tool]
fn hello() -> &'static str {
    "hello"
}

fn main() {
    let [get, list, create, import, hello] =
        mcp_light::tools![device_get, device_list, device_create, device_import, hello];
    assert_eq!(get.scopes(), ["inventory:read"]);
    assert_eq!(list.scopes(), ["inventory:read"]);
    assert_eq!(create.scopes(), ["inventory:write", "audit"]);
    assert_eq!(import.scopes(), ["inventory:write"]);
    assert!(hello.scopes().is_empty());
}
