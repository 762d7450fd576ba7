use mcp_light::prelude::*;

/// One scope, not in a list.
#[mcp_tool(scopes = "inventory:read")]
fn device_count() -> usize {
    0
}

/// No scope at all.
#[mcp_tool(scopes = [])]
fn device_total() -> usize {
    0
}

/// An empty scope, a path and two scopes in one string.
#[mcp_tool(scopes = ["", inventory_read, "inventory:read inventory:write"])]
fn device_audit() -> usize {
    0
}

/// A scope named twice.
#[mcp_tool(scopes = ["inventory:read", "inventory:read"])]
fn device_find() -> usize {
    0
}

/// `scopes` twice in one attribute.
#[mcp_tool(scopes = ["inventory:read"], scopes = ["audit"])]
fn device_lookup() -> usize {
    0
}

/// `scopes` in both attributes.
#[mcp_heavy(scopes = ["inventory:read"])]
#[mcp_light(bulk_create, scopes = ["inventory:write"])]
fn device_import(names: Vec<String>) -> Vec<String> {
    names
}

/// `scopes` without a value.
#[mcp_tool(scopes)]
fn device_missing() -> usize {
    0
}

fn main() {}
