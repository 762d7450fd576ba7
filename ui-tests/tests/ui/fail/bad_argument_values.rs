use mcp_light::prelude::*;

#[mcp_tool(name = device_list, name = "x", action)]
fn device_list() -> Vec<String> {
    Vec::new()
}

#[mcp_light(destroy, status = 999, retrieve = "device_get", update)]
fn device_delete(id: u64) {
    let _ = id;
}

fn main() {}
