use mcp_light::prelude::*;

#[derive(Serialize, LightKey)]
struct Device {
    id: u64,
}

#[mcp_light(create, resource = "device")]
fn device_create(name: String, verify: bool) -> Result<Device, ToolError> {
    let _ = (name, verify);
    Ok(Device { id: 1 })
}

fn main() {}
