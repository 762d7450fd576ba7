use mcp_light::prelude::*;

/// Not a `std::error::Error`, so not something a caller can be told.
#[derive(Debug)]
pub struct LookupFailed {
    pub code: u16,
}

pub type Lookup<T> = Result<T, LookupFailed>;

/// Looks a device up.
#[mcp_tool]
fn device_lookup(id: u64) -> Result<String, LookupFailed> {
    Err(LookupFailed { code: id as u16 })
}

/// Looks a site up, through an alias.
#[mcp_tool]
fn site_lookup(id: u64) -> Lookup<String> {
    Err(LookupFailed { code: id as u16 })
}

fn main() {}
