use mcp_light::prelude::*;

pub struct Db;

#[mcp_light(destroy, resource = "device")]
fn device_delete(
    id: u64,
    #[id] caller: &Caller,
    #[serde(default)] State(db): State<Db>,
) -> Result<(), ToolError> {
    let _ = (id, caller, db);
    Ok(())
}

#[mcp_tool(crate = "mcp_light")]
fn quoted_crate() -> u32 {
    0
}

#[mcp_heavy(crate = ::mcp_light)]
#[mcp_light(bulk_create, crate = my_api::mcp_light)]
fn two_crates() -> Vec<u32> {
    Vec::new()
}

fn main() {}
