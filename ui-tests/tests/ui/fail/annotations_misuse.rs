use mcp_light::prelude::*;
use serde_json::Value;

/// A write that says it only reads.
#[mcp_light(create, annotations(read_only_hint = true))]
fn task_create(title: String) -> Value {
    serde_json::json!({"id": 1, "title": title})
}

/// A heavy read that says it writes.
#[mcp_heavy(annotations(read_only_hint = false))]
fn task_export() -> Vec<u32> {
    vec![1, 2, 3]
}

/// A destroy that says it destroys nothing.
#[mcp_light(destroy, annotations(destructive_hint = false))]
fn task_delete(id: u32) {
    let _ = id;
}

/// A hint misspelt, a hint that is not a boolean, a title that is not a
/// string, and a title stated twice.
#[mcp_tool(annotations(idempotent = false, read_only_hint = "yes", title = 3, open_world_hint = false, open_world_hint = true))]
fn task_count() -> usize {
    0
}

/// Annotations not in a list.
#[mcp_tool(annotations = true)]
fn task_total() -> usize {
    0
}

fn main() {}
