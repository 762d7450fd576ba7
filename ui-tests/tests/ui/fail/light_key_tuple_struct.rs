use mcp_light::prelude::*;

#[derive(Serialize, LightKey)]
struct DeviceId(u64);

fn main() {}
