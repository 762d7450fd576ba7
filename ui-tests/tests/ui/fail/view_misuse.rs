use mcp_light::prelude::*;

/// A plain read answers in full: it has no view to turn off.
#[mcp_tool(view = false)]
async fn device_count() -> usize {
    0
}

/// A view is on unless turned off.
#[mcp_heavy(view = true)]
async fn device_list() -> Vec<String> {
    Vec::new()
}

/// `view` takes a value.
#[mcp_light(create, view)]
async fn device_create(name: String) -> String {
    name
}

fn main() {}
