use mcp_light::prelude::*;

#[mcp_light(destroy, resource = "device")]
fn device_delete(ctx: &mut Context, #[id] serial: String, #[id] tag: String) {
    let _ = (ctx, serial, tag);
}

#[mcp_tool]
fn device_find(#[id] serial: String, #[cfg(test)] verbose: bool) -> String {
    serial
}

fn main() {}
