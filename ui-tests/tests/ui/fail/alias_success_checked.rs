use mcp_light::prelude::*;

pub type ApiResult<T> = Result<T, ToolError>;

#[derive(Serialize, LightKey)]
pub struct Device {
    pub id: u64,
}

/// A bulk write answers a list, whatever alias its result is written with.
#[mcp_light(bulk_create)]
fn device_bulk_create(names: Vec<String>) -> ApiResult<Device> {
    Ok(Device { id: names.len() as u64 })
}

/// A single write answers one object: behind an alias, the macro cannot see
/// the `Vec`, and the compiler still can.
#[mcp_light(create)]
fn device_create(names: Vec<String>) -> ApiResult<Vec<Device>> {
    Ok(names.iter().map(|_| Device { id: 1 }).collect())
}

fn main() {}
