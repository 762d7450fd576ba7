use mcp_light::prelude::*;

#[derive(Serialize, LightKey)]
struct Device {
    id: u64,
}

#[mcp_light(create, resource = "device")]
fn device_create(names: Vec<String>) -> Result<Vec<Device>, ToolError> {
    Ok(names.iter().map(|_| Device { id: 1 }).collect())
}

fn main() {}
