use mcp_light::prelude::*;

pub struct Db;

#[mcp_tool]
fn device_count(db: State<Db>) -> usize {
    let _ = db;
    0
}

fn main() {}
