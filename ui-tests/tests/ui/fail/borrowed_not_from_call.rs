use mcp_light::prelude::*;

#[derive(Deserialize, JsonSchema)]
pub struct NewDevice {
    pub name: String,
}

#[mcp_tool]
fn greet(name: &String) -> String {
    format!("hello, {name}")
}

#[mcp_tool]
fn device_check(device: &NewDevice) -> bool {
    !device.name.is_empty()
}

#[mcp_tool]
fn whoami(caller: &mut Caller) -> String {
    caller.identity()
}

fn main() {}
