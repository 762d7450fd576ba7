use mcp_light::prelude::*;

#[derive(Serialize, LightKey)]
#[light_key(serial)]
struct Device {
    id: u64,
    #[serde(skip)]
    serial: String,
}

fn main() {}
