use mcp_light::prelude::*;

/// Export the devices.
#[mcp_heavy(inline = "4k")]
fn device_export() -> Vec<String> {
    Vec::new()
}

/// List the racks.
#[mcp_heavy(inline = -1)]
fn rack_list() -> Vec<String> {
    Vec::new()
}

/// List the sites.
#[mcp_heavy(inline = 1.5)]
fn site_list() -> Vec<String> {
    Vec::new()
}

/// List the cables.
#[mcp_heavy(inline = true)]
fn cable_list() -> Vec<String> {
    Vec::new()
}

/// List the ports.
#[mcp_heavy(inline = 4096u8)]
fn port_list() -> Vec<String> {
    Vec::new()
}

/// List the links.
#[mcp_heavy(inline(4096))]
fn link_list() -> Vec<String> {
    Vec::new()
}

/// List the circuits.
#[mcp_heavy(inline = 4096, inline = 8192)]
fn circuit_list() -> Vec<String> {
    Vec::new()
}

/// Count the devices.
#[mcp_tool(inline = 4096)]
fn device_count() -> usize {
    0
}

/// Create a device.
#[mcp_light(create, inline = 4096)]
fn device_create(name: String) -> String {
    name
}

fn main() {}
