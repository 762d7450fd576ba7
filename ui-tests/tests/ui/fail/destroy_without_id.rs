use mcp_light::prelude::*;

#[mcp_light(destroy, resource = "device")]
fn device_delete(serial: String) -> Result<(), ToolError> {
    let _ = serial;
    Ok(())
}

fn main() {}
