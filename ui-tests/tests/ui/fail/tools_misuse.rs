//! `tools!` names tool functions by their paths: a function that is not a
//! tool, or a tool imported without its module, does not resolve, at the
//! name written; a path with generic arguments is refused.

use mcp_light::prelude::*;

mod inventory {
    use mcp_light::prelude::*;

    /// Count the devices.
    #[mcp_tool]
    pub fn device_count() -> u32 {
        3
    }

    pub fn helper() -> u32 {
        1
    }
}

use inventory::device_count;

fn main() {
    let _ = Server::from_tools(tools![inventory::helper]);
    let _ = Server::from_tools(tools![device_count]);
    let _ = Server::from_tools(tools![inventory::device_count::<u8>]);
}
