//! A bulk write whose items do not name their identifying fields: one
//! error at the return type, about the items of the list.

use mcp_light::prelude::*;

#[derive(Serialize)]
struct Device {
    id: u64,
}

#[mcp_light(bulk_create)]
fn device_bulk_create(names: Vec<String>) -> Vec<Device> {
    (0..names.len() as u64).map(|id| Device { id }).collect()
}

#[mcp_light(bulk_update)]
async fn device_bulk_update(ids: Vec<u64>) -> Result<Vec<Device>, ToolError> {
    Ok(ids.into_iter().map(|id| Device { id }).collect())
}

fn main() {}
