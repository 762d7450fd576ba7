//! A parameter typed `Parameters<..>` is read as rmcp's whole-arguments
//! wrapper; the compiler confirms it is rmcp's.
use mcp_light::prelude::*;

mod own {
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    pub struct Parameters<T>(pub T);
}

#[mcp_tool]
fn count(params: own::Parameters<u32>) -> u32 {
    params.0
}

fn main() {}
