use mcp_light::prelude::*;

#[derive(Serialize, LightKey)]
struct Device {
    id: u64,
}

fn device_get(id: u64) -> Device {
    Device { id }
}

#[mcp_light(create, resource = "device", retrieve = device_get)]
fn device_create(name: String) -> Device {
    let _ = name;
    device_get(1)
}

fn main() {}
