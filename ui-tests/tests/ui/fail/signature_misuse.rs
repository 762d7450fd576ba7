use mcp_light::prelude::*;

struct Inventory;

impl Inventory {
    #[mcp_tool]
    fn count(&self) -> u32 {
        0
    }
}

#[mcp_tool]
fn first<T: Serialize>(items: Vec<T>) -> Option<T> {
    items.into_iter().next()
}

#[mcp_tool]
unsafe fn raw(value: u32) -> u32 {
    value
}

#[mcp_tool]
fn pair((a, b): (u32, u32), #[doc_comment_like] c: u32) -> u32 {
    a + b + c
}

fn main() {}
