use mcp_light::prelude::*;

/// Renders a report as an image.
#[mcp_heavy]
fn report_image() -> Result<Vec<Content>, ToolError> {
    Ok(vec![Content::text("report")])
}

/// Creates a thumbnail.
#[mcp_light(destroy)]
fn thumbnail_delete(id: u32) -> Content {
    Content::text(format!("deleted {id}"))
}

fn main() {}
