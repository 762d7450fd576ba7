use mcp_light::prelude::*;

#[derive(Serialize)]
struct Device {
    id: u64,
}

#[mcp_light(create)]
fn device_create(name: String) -> Device {
    let _ = name;
    Device { id: 1 }
}

fn main() {}
