use mcp_light::prelude::*;

#[derive(Serialize, LightKey)]
struct Device {
    id: u64,
}

#[mcp_light(resource = "device")]
fn device_import(names: Vec<String>) -> Result<Vec<Device>, ToolError> {
    Ok(names.iter().map(|_| Device { id: 1 }).collect())
}

#[mcp_light]
fn device_purge(id: u64) {
    let _ = id;
}

fn main() {}
