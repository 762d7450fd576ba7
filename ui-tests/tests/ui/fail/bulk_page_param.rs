use mcp_light::prelude::*;

#[derive(Serialize, Deserialize, JsonSchema, LightKey)]
pub struct Device {
    pub id: u64,
}

#[mcp_light(bulk_create, resource = "device")]
fn device_bulk_create(ids: Vec<u64>, page: u32) -> Vec<Device> {
    let _ = page;
    ids.into_iter().map(|id| Device { id }).collect()
}

fn main() {}
