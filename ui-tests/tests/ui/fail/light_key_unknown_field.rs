use mcp_light::prelude::*;

#[derive(Serialize, LightKey)]
#[light_key(site_slug, rol)]
struct Device {
    id: u64,
    site_slug: String,
    role: String,
}

fn main() {}
