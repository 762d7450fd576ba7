//! A crate that re-exports mcp-light under another name points the macros
//! at it with `crate = path`.

mod platform {
    pub use mcp_light as mcp;
}

use platform::mcp::prelude::*;

#[derive(Serialize, Deserialize, JsonSchema, LightKey)]
#[light_key(crate = platform::mcp, site)]
pub struct Device {
    pub id: u64,
    pub site: String,
}

/// Fetch a device.
#[mcp_tool(crate = platform::mcp, resource = "device", action = "retrieve")]
fn device_get(id: u64, _caller: &Caller) -> Device {
    Device {
        id,
        site: "hq".into(),
    }
}

mod writes {
    use crate::platform::mcp::prelude::*;

    /// Create a device.
    #[mcp_light(create, crate = crate::platform::mcp, resource = "device", retrieve = super::device_get)]
    pub fn device_add(site: String, State(next): State<u64>) -> super::Device {
        super::Device { id: *next, site }
    }

    /// Export every device.
    #[mcp_heavy(crate = crate::platform::mcp)]
    #[mcp_light(bulk_create, crate = crate::platform::mcp)]
    pub fn device_export() -> Vec<super::Device> {
        Vec::new()
    }
}

fn main() {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(async {
            let server = Server::from_registry().with_state(7u64).build().unwrap();
            let added = server
                .call(
                    "device_add",
                    serde_json::json!({"site": "dc"}),
                    Caller::Process,
                )
                .await;
            assert_eq!(
                added.structured_content.unwrap().to_string(),
                r#"{"id":7,"site":"dc","status_code":201,"data_size":20}"#
            );
            assert_eq!(server.registry().len(), 3);
        });
}
