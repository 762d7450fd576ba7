use mcp_light::prelude::*;

#[mcp_heavy(resource = "device", action = "list")]
fn device_list(site: String, mode: String) -> Vec<String> {
    vec![site, mode]
}

fn main() {}
