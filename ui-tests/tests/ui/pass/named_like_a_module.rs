//! A tool adds nothing to its module under the function's name: a module
//! (or a type) named like a tool function compiles beside it, for each of
//! the three attributes, and `tools!` and `retrieve = path` still reach the
//! tool through the function's path.

use mcp_light::catalog::ToolKind;
use mcp_light::prelude::*;

#[derive(Serialize, LightKey)]
pub struct Device {
    pub id: u64,
}

/// Fetch one device.
#[mcp_tool(resource = "device", action = "retrieve")]
pub fn devices(id: u64) -> Device {
    Device { id }
}

/// The module holding what `devices` uses.
pub mod devices {
    pub const FIRST: u64 = 1;
}

/// Create a device.
#[mcp_light(create, resource = "device", retrieve = devices)]
pub fn device_create(name: String) -> Device {
    let _ = name;
    Device { id: devices::FIRST }
}

mod device_create {}

/// List every device.
#[mcp_heavy(resource = "device", action = "list")]
fn device_list() -> Vec<Device> {
    (0..3).map(|id| Device { id }).collect()
}

mod device_list {}

/// A type in the function's name, the other occupant of the type namespace.
#[allow(non_camel_case_types)]
struct device_count {}

/// Count the devices.
#[mcp_tool]
fn device_count() -> usize {
    let _: Option<device_count> = None;
    3
}

/// A tool in a module named like it, named through that module.
mod sites {
    use mcp_light::prelude::*;

    /// Every site.
    #[mcp_tool]
    pub fn sites() -> Vec<String> {
        vec!["hq".to_owned()]
    }
}

fn main() {
    let server = Server::from_tools(tools![
        devices,
        device_create,
        device_list,
        device_count,
        sites::sites,
    ])
    .build()
    .unwrap();
    let tools: Vec<_> = server
        .registry()
        .iter()
        .map(|tool| (tool.name(), tool.def().kind()))
        .collect();
    assert!(matches!(
        tools[..],
        [
            ("device_count", ToolKind::Read),
            ("device_create", ToolKind::Write { .. }),
            ("device_list", ToolKind::Heavy),
            ("devices", ToolKind::Read),
            ("sites", ToolKind::Read),
        ]
    ));
    let create = server.registry().get("device_create").unwrap().def();
    assert_eq!(create.retrieve(), Some("devices"));
}
