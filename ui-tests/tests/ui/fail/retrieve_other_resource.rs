use mcp_light::prelude::*;

#[derive(Serialize, LightKey)]
struct Device {
    id: u64,
}

#[mcp_tool(resource = "site", action = "retrieve")]
fn site_get(id: u64) -> Device {
    Device { id }
}

#[mcp_light(create, resource = "device", retrieve = site_get)]
fn device_create(name: String) -> Device {
    let _ = name;
    Device { id: 1 }
}

fn main() {}
