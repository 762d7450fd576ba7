use mcp_light::prelude::*;

/// Neither an argument (not `Deserialize`) nor taken from the call.
pub struct Clock;

pub struct Wrapper(pub Clock);

#[mcp_tool]
fn now(clock: Clock) -> u64 {
    let _ = clock;
    0
}

#[mcp_tool]
fn later(Wrapper(clock): Wrapper) -> u64 {
    let _ = clock;
    1
}

#[mcp_tool]
fn owned_context(ctx: Context) -> String {
    ctx.caller().identity()
}

fn main() {}
