use mcp_light::prelude::*;

#[derive(Serialize, LightKey)]
enum Status {
    Up,
    Down,
}

fn main() {}
