use mcp_light::prelude::*;

#[mcp_tool]
fn greet(name: &str, tags: &[String]) -> String {
    format!("{name} {tags:?}")
}

fn main() {}
