//! `view = false` on a heavy read or a write: a client that shows MCP Apps
//! views is not pointed at the viewer for that tool's answers.
use mcp_light::prelude::*;

/// List devices, with a view.
#[mcp_heavy]
fn device_list() -> Vec<String> {
    Vec::new()
}

/// List logs, without one.
#[mcp_heavy(view = false)]
fn log_list() -> Vec<String> {
    Vec::new()
}

/// Import devices: heavy and light, the view off in one attribute.
#[mcp_heavy]
#[mcp_light(bulk_create, view = false)]
fn device_import(names: Vec<String>) -> Vec<String> {
    names
}

/// Count devices: a plain read never has one.
#[mcp_tool]
fn device_count() -> usize {
    0
}

fn main() {
    let [list, logs, import, count] =
        mcp_light::tools![device_list, log_list, device_import, device_count];
    assert!(list.has_view());
    assert!(!logs.has_view());
    assert!(!import.has_view());
    assert!(!count.has_view());
}
