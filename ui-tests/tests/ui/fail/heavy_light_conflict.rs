use mcp_light::prelude::*;

#[mcp_heavy(name = "report", resource = "report")]
#[mcp_light(create, name = "report_build", colour = "red")]
fn build_report(size: u32) -> Vec<u32> {
    (0..size).collect()
}

fn main() {}
