use mcp_light::prelude::*;

#[derive(Serialize, LightKey)]
struct Device {
    id: u64,
}

#[mcp_tool(resource = "device", action = "list")]
fn device_list() -> Vec<Device> {
    Vec::new()
}

#[mcp_light(create, resource = "device", retrieve = device_list)]
fn device_create(name: String) -> Device {
    let _ = name;
    Device { id: 1 }
}

fn main() {}
