use mcp_light::prelude::*;

#[derive(Serialize, LightKey)]
struct Device {
    id: u64,
}

#[mcp_tool(resource = "device")]
#[mcp_light(create)]
fn device_create(name: String) -> Device {
    let _ = name;
    Device { id: 1 }
}

fn main() {}
