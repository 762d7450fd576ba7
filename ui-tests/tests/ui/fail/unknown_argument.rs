use mcp_light::prelude::*;

#[mcp_tool(resorce = "device", action = "list")]
fn device_list() -> Vec<String> {
    Vec::new()
}

#[mcp_heavy(colour = "red")]
fn device_export() -> Vec<String> {
    Vec::new()
}

fn main() {}
