use mcp_light::prelude::*;

/// A header name that is not an HTTP token, and one without a name.
#[mcp_tool]
fn spaced(#[header("My Region")] region: String, #[header] zone: String) -> String {
    format!("{region}{zone}")
}

/// Two arguments in one header.
#[mcp_tool]
fn twice(#[header("Region")] region: String, #[header("region")] other: String) -> String {
    format!("{region}{other}")
}

/// A header on what the call provides.
#[mcp_tool]
fn taken(#[header("Caller")] caller: &Caller) -> String {
    caller.identity()
}

/// Types a header cannot carry.
#[mcp_tool]
fn lists(#[header("Tags")] tags: Vec<String>, #[header("Note")] note: Option<String>) -> usize {
    tags.len() + note.map_or(0, |n| n.len())
}

fn main() {}
