use mcp_light::prelude::*;

/// Count the devices.
#[mcp_tool(inline)]
async fn device_count() -> usize {
    0
}

/// Delete a device.
#[mcp_light(destroy, inline)]
async fn device_delete(id: u64) -> Result<(), ToolError> {
    let _ = id;
    Ok(())
}

fn main() {}
