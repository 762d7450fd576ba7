//! A full CRUD set with retrieve links, sync and async functions.
use mcp_light::catalog::{PublishedTool, Registry, ToolDef, ToolKind, WriteKind};
use mcp_light::prelude::*;

#[derive(Serialize, Deserialize, JsonSchema, LightKey)]
#[light_key(site)]
pub struct Device {
    pub id: u64,
    pub name: String,
    pub site: String,
}

#[derive(Deserialize, JsonSchema)]
pub struct NewDevice {
    pub name: String,
    pub site: String,
}

/// Fetch one device.
#[mcp_tool(resource = "device", action = "retrieve")]
pub async fn device_get(_ctx: &Context, id: u64) -> Result<Device, ToolError> {
    Ok(Device {
        id,
        name: "edge-01".into(),
        site: "hq".into(),
    })
}

/// List devices.
///
/// Every site.
#[mcp_tool(resource = "device", action = "list")]
fn device_list() -> Vec<Device> {
    Vec::new()
}

/// Create one device.
#[mcp_light(create, resource = "device", retrieve = device_get)]
async fn device_create(ctx: &Context, device: NewDevice) -> Result<Device, ToolError> {
    let _ = ctx.caller();
    Ok(Device {
        id: 1,
        name: device.name,
        site: device.site,
    })
}

#[mcp_light(bulk_create, resource = "device", retrieve = device_get)]
fn device_bulk_create(devices: Vec<NewDevice>) -> Result<Vec<Device>, ToolError> {
    Ok(devices
        .into_iter()
        .map(|d| Device {
            id: 1,
            name: d.name,
            site: d.site,
        })
        .collect())
}

#[mcp_light(update, name = "device_put", resource = "device", retrieve = self::device_get)]
fn device_update(id: u64, device: NewDevice) -> Result<Device, std::io::Error> {
    Ok(Device {
        id,
        name: device.name,
        site: device.site,
    })
}

#[mcp_light(partial_update, resource = "device", retrieve = device_get, status = 202)]
async fn device_patch(id: u64, name: Option<String>) -> Device {
    Device {
        id,
        name: name.unwrap_or_default(),
        site: "hq".into(),
    }
}

#[mcp_light(bulk_update, resource = "device", action = "bulk_rename")]
async fn device_bulk_update(_caller: &Caller, ids: Vec<u64>) -> Result<Vec<Device>, ToolError> {
    Ok(ids
        .into_iter()
        .map(|id| Device {
            id,
            name: String::new(),
            site: String::new(),
        })
        .collect())
}

#[mcp_light(destroy, resource = "device")]
async fn device_delete(id: u64) {
    let _ = id;
}

#[mcp_light(destroy, resource = "device", retrieve = device_get)]
fn device_forget(#[id] serial: String, #[serde(default)] reason: String) -> Result<(), ToolError> {
    let _ = (serial, reason);
    Ok(())
}

fn tool(name: &str) -> &'static ToolDef {
    let mut found = linked().filter(|t| t.name() == name);
    let tool = found
        .next()
        .unwrap_or_else(|| panic!("no tool named {name}"));
    assert!(found.next().is_none(), "two tools named {name}");
    tool
}

fn write(kind: WriteKind, status_code: u16) -> ToolKind {
    ToolKind::Write { kind, status_code }
}

/// Every tool linked into this binary, as the registry checks them.
fn linked() -> impl Iterator<Item = &'static ToolDef> {
    let registry = Registry::collect().unwrap();
    registry
        .iter()
        .map(PublishedTool::def)
        .collect::<Vec<_>>()
        .into_iter()
}

fn main() {
    assert_eq!(linked().count(), 9);

    let get = tool("device_get");
    assert_eq!(get.kind(), ToolKind::Read);
    assert_eq!(get.description(), "Fetch one device.");
    assert_eq!(get.resource(), Some("device"));
    assert_eq!(get.action(), Some("retrieve"));
    assert_eq!(get.retrieve(), None);
    assert!(
        get.function().ends_with("::device_get"),
        "{}",
        get.function()
    );

    let list = tool("device_list");
    assert_eq!(list.description(), "List devices.\n\nEvery site.");
    assert_eq!(list.action(), Some("list"));

    let create = tool("device_create");
    assert_eq!(create.kind(), write(WriteKind::Create, 201));
    assert_eq!(create.description(), "Create one device.");
    assert_eq!(create.action(), Some("create"));
    assert_eq!(create.retrieve(), Some("device_get"));

    let bulk = tool("device_bulk_create");
    assert_eq!(bulk.kind(), write(WriteKind::BulkCreate, 201));
    assert_eq!(bulk.description(), "");
    assert_eq!(bulk.retrieve(), Some("device_get"));

    let update = tool("device_put");
    assert_eq!(update.kind(), write(WriteKind::Update, 200));
    assert_eq!(update.action(), Some("update"));
    assert!(
        update.function().ends_with("::device_update"),
        "{}",
        update.function()
    );

    assert_eq!(
        tool("device_patch").kind(),
        write(WriteKind::PartialUpdate, 202)
    );

    let bulk_update = tool("device_bulk_update");
    assert_eq!(bulk_update.kind(), write(WriteKind::BulkUpdate, 200));
    assert_eq!(bulk_update.action(), Some("bulk_rename"));
    assert_eq!(bulk_update.retrieve(), None);

    let delete = tool("device_delete");
    assert_eq!(delete.kind(), write(WriteKind::Destroy, 204));
    assert!(delete.kind().is_write() && !delete.kind().is_heavy());
    assert_eq!(tool("device_forget").retrieve(), Some("device_get"));

    // The Context is not part of the schema; several parameters form one
    // object schema.
    let schema = serde_json::to_value(create.params_schema()).unwrap();
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["required"], serde_json::json!(["device"]));
    assert!(schema["properties"].get("ctx").is_none());
    let schema = serde_json::to_value(update.params_schema()).unwrap();
    assert_eq!(schema["required"], serde_json::json!(["id", "device"]));
    assert_eq!(schema["additionalProperties"], false);
    let schema = serde_json::to_value(tool("device_get").params_schema()).unwrap();
    assert_eq!(schema["required"], serde_json::json!(["id"]));
}
