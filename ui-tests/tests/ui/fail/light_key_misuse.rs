use mcp_light::prelude::*;

#[derive(Serialize)]
struct Meta {
    site: String,
}

#[derive(Serialize, LightKey)]
#[light_key(meta, id = serail)]
struct Device {
    serial: String,
    #[serde(flatten)]
    meta: Meta,
}

#[derive(Serialize, LightKey)]
#[light_key(id)]
#[light_key = "name"]
struct Site {
    id: u64,
}

fn main() {}
