use mcp_light::prelude::*;

/// Runs for a while.
#[mcp_tool(task = "sometimes")]
async fn device_audit() -> usize {
    0
}

/// Answers at once, so never a task.
#[mcp_tool(inline, task)]
fn device_count() -> usize {
    0
}

/// Says `task` in both attributes.
#[mcp_heavy(task)]
#[mcp_light(bulk_create, task = "required")]
async fn device_import(names: Vec<String>) -> Vec<String> {
    names
}

/// Publishes its schema some other way.
#[mcp_tool(schema = "verbatim")]
async fn device_schema() -> usize {
    0
}

fn main() {}
