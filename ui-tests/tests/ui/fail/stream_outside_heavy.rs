use mcp_light::prelude::*;
use mcp_light::ItemStream;

#[derive(Serialize, LightKey)]
struct Device {
    id: u64,
}

/// A write answers an envelope of what it wrote, not a stream of it.
#[mcp_light(bulk_create, resource = "device")]
fn device_bulk_create(count: u64) -> ItemStream<Device> {
    ItemStream::iter((0..count).map(|id| Device { id }))
}

/// A plain read answers its result whole.
#[mcp_tool]
fn device_ids(count: u64) -> impl Iterator<Item = u64> + Send {
    0..count
}

fn main() {}
