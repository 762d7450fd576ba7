use mcp_light::prelude::*;

fn upper<S: serde::Serializer>(value: &str, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&value.to_uppercase())
}

#[derive(Serialize, LightKey)]
#[light_key(site, colour = "red")]
struct Device {
    id: u64,
    #[serde(serialize_with = "upper")]
    site: String,
}

fn main() {}
