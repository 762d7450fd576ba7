//! Tools the tests call: a small device inventory kept in memory.

use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_light::store::MemoryStore;
use mcp_light::store::{BoxFuture, ContinuationStore, Entry, StoreError};
use mcp_light::token::Token;
use mcp_light::{CallToolResult, prelude::*};
use rmcp::ServiceExt;
use serde_json::{Value, json};
use uuid::Uuid;

/// A device as the inventory answers it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema, LightKey)]
#[light_key(site_slug, role)]
pub struct Device {
    pub id: Uuid,
    pub url: String,
    pub name: String,
    pub site_slug: String,
    pub role: String,
    pub serial: String,
    pub comments: String,
}

/// What a caller sends to create a device.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NewDevice {
    pub name: String,
    pub site_slug: String,
    pub role: String,
    #[serde(default)]
    pub serial: String,
}

/// A record whose identifier is serialized under another name.
#[derive(Debug, Clone, Serialize, JsonSchema, LightKey)]
#[serde(rename_all = "camelCase")]
#[light_key(site_slug)]
pub struct Renamed {
    #[serde(rename = "pk")]
    pub key: u64,
    pub display: String,
    pub site_slug: String,
    pub long_text: String,
}

/// A record with no identifier at all.
#[derive(Debug, Clone, Serialize, JsonSchema, LightKey)]
pub struct Receipt {
    pub name: String,
    pub lines: Vec<String>,
}

/// The inventory the tools share, and how often each ran.
#[derive(Default)]
pub struct Inventory {
    pub devices: Mutex<Vec<Device>>,
    pub runs: AtomicUsize,
}

impl Inventory {
    fn add(&self, new: NewDevice) -> Device {
        self.runs.fetch_add(1, Ordering::SeqCst);
        let id = Uuid::new_v4();
        let device = Device {
            id,
            url: format!("/api/dcim/devices/{id}/"),
            name: new.name,
            site_slug: new.site_slug,
            role: new.role,
            serial: new.serial,
            comments: "racked and cabled; awaiting burn-in".repeat(4),
        };
        self.devices.lock().unwrap().push(device.clone());
        device
    }
}

/// Fetch one device by id.
#[mcp_tool(resource = "device", action = "retrieve")]
pub fn device_get(ctx: &Context, id: Uuid) -> Result<Device, ToolError> {
    let inventory = ctx.state::<Inventory>()?;
    let devices = inventory.devices.lock().unwrap();
    devices
        .iter()
        .find(|d| d.id == id)
        .cloned()
        .ok_or_else(|| ToolError::new(format!("no device with id {id}")))
}

/// Create one device.
#[mcp_light(create, resource = "device", retrieve = device_get)]
pub async fn device_create(ctx: &Context, device: NewDevice) -> Result<Device, ToolError> {
    Ok(ctx.state::<Inventory>()?.add(device))
}

/// Create many devices at once.
#[mcp_light(bulk_create, resource = "device", retrieve = device_get)]
pub async fn device_bulk_create(
    ctx: &Context,
    devices: Vec<NewDevice>,
) -> Result<Vec<Device>, ToolError> {
    let inventory = ctx.state::<Inventory>()?;
    Ok(devices.into_iter().map(|d| inventory.add(d)).collect())
}

/// Rename a device.
#[mcp_light(partial_update, resource = "device", retrieve = device_get)]
pub fn device_rename(ctx: &Context, id: Uuid, name: String) -> Result<Device, ToolError> {
    let inventory = ctx.state::<Inventory>()?;
    inventory.runs.fetch_add(1, Ordering::SeqCst);
    let mut devices = inventory.devices.lock().unwrap();
    let device = devices
        .iter_mut()
        .find(|d| d.id == id)
        .ok_or_else(|| ToolError::new(format!("no device with id {id}")))?;
    device.name = name;
    Ok(device.clone())
}

/// Delete a device.
#[mcp_light(destroy, resource = "device")]
pub fn device_destroy(ctx: &Context, id: Uuid) -> Result<(), ToolError> {
    let inventory = ctx.state::<Inventory>()?;
    let mut devices = inventory.devices.lock().unwrap();
    let before = devices.len();
    devices.retain(|d| d.id != id);
    if devices.len() == before {
        return Err(ToolError::new(format!("no device with id {id}")));
    }
    Ok(())
}

/// Create a device but publish no retrieve tool for it.
#[mcp_light(create, resource = "gadget")]
pub fn gadget_create(ctx: &Context, device: NewDevice) -> Result<Device, ToolError> {
    Ok(ctx.state::<Inventory>()?.add(device))
}

/// Fetch one renamed record.
#[mcp_tool(resource = "renamed", action = "retrieve")]
pub fn renamed_get(pk: u64) -> Renamed {
    renamed(pk)
}

/// Create a record whose id is serialized as `pk`.
#[mcp_light(create, resource = "renamed", retrieve = renamed_get)]
pub fn renamed_create(pk: u64) -> Renamed {
    renamed(pk)
}

fn renamed(pk: u64) -> Renamed {
    Renamed {
        key: pk,
        display: format!("record {pk}"),
        site_slug: "hq".into(),
        long_text: "x".repeat(300),
    }
}

/// Fetch any record as dynamic JSON.
#[mcp_tool(resource = "record", action = "retrieve")]
pub fn record_get(id: Value) -> Value {
    json!({ "id": id })
}

/// Write one dynamic record: answers whatever JSON it was given.
#[mcp_light(create, resource = "record", retrieve = record_get)]
pub fn record_create(record: Value) -> Value {
    record
}

/// Write dynamic records: answers whatever list it was given.
#[mcp_light(bulk_create, resource = "record", retrieve = record_get)]
pub fn record_bulk_create(records: Vec<Value>) -> Vec<Value> {
    records
}

/// Fetch a receipt by name.
#[mcp_tool(resource = "receipt", action = "retrieve")]
pub fn receipt_get(name: String) -> Receipt {
    Receipt {
        name,
        lines: vec![],
    }
}

/// Issue a receipt, which carries no id.
#[mcp_light(create, resource = "receipt", retrieve = receipt_get)]
pub fn receipt_create(name: String) -> Receipt {
    Receipt {
        name,
        lines: vec!["one".into(), "two".into()],
    }
}

/// Always fails.
#[mcp_light(create, resource = "broken")]
pub fn broken_create(reason: String) -> Result<Device, ToolError> {
    Err(ToolError::new(format!("the inventory refused: {reason}")))
}

/// Panics instead of answering.
#[mcp_tool]
pub fn explode(depth: u32) -> u32 {
    panic!("exploded at depth {depth}")
}

/// Counts to `n`, optionally skipping some.
#[mcp_tool]
pub fn count(n: u32, #[serde(default)] skip: Option<u32>) -> Vec<u32> {
    (1..=n).filter(|i| Some(*i) != skip).collect()
}

/// A store that refuses everything, as an unreachable Redis would.
pub struct DownStore;

impl ContinuationStore for DownStore {
    fn put<'a>(&'a self, _: &'a Token, _: Entry) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async { Err(StoreError::Unavailable("connection refused".into())) })
    }

    fn get<'a>(&'a self, _: &'a Token) -> BoxFuture<'a, Result<Option<Entry>, StoreError>> {
        Box::pin(async { Err(StoreError::Unavailable("connection refused".into())) })
    }

    fn ttl(&self) -> std::time::Duration {
        std::time::Duration::from_secs(300)
    }
}

/// `handler` served over an in-process pipe, as stdio would carry it; the
/// client's end.
pub fn pipe(handler: mcp_light::transport::McpHandler) -> tokio::io::DuplexStream {
    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    tokio::spawn(async move {
        let running = handler.serve(server_io).await.expect("the server starts");
        let _ = running.waiting().await;
    });
    client_io
}

/// rmcp's plain client (`()`) connected to `server` through [`pipe`], as
/// the process on the other end of stdio, after `initialize`.
pub async fn connect(
    server: Server,
) -> rmcp::service::RunningService<rmcp::service::RoleClient, ()> {
    ().serve(pipe(server.into_handler(Caller::Process)))
        .await
        .expect("the handshake succeeds")
}

/// How a client opens its connection on `version`: 2025-11-25's
/// `initialize`, or 2026-07-28's `server/discover`.
pub fn lifecycle(version: rmcp::model::ProtocolVersion) -> rmcp::service::ClientLifecycleMode {
    if version == rmcp::model::ProtocolVersion::V_2026_07_28 {
        rmcp::service::ClientLifecycleMode::Discover {
            preferred_versions: vec![version],
        }
    } else {
        rmcp::service::ClientLifecycleMode::Initialize
    }
}

/// A builder for every tool linked into this test binary, each module's
/// tools included, with the host state each takes: one that lacked some
/// would not build.
pub fn linked() -> ServerBuilder {
    Server::from_registry()
        .with_state(Inventory::default())
        .with_state(crate::blocking::Gate::default())
        .with_state(crate::talkback::Seen::default())
        .with_state(crate::methods::Garage::default())
}

/// A builder for a server over every tool above, `inventory` and `store`.
fn builder(inventory: &Arc<Inventory>, store: &Arc<MemoryStore>) -> ServerBuilder {
    linked()
        .with_shared_state(Arc::clone(inventory))
        .with_shared_store(Some(store.clone() as Arc<dyn ContinuationStore>))
}

/// A server over every tool above, its inventory, and its store.
pub struct Harness {
    pub server: Server,
    pub inventory: Arc<Inventory>,
    pub store: Arc<MemoryStore>,
}

impl Harness {
    pub fn new() -> Harness {
        let inventory = Arc::new(Inventory::default());
        let store = Arc::new(MemoryStore::default());
        let server = builder(&inventory, &store)
            .build()
            .expect("the test tools register without clashes");
        Harness {
            server,
            inventory,
            store,
        }
    }

    /// A harness whose inventory holds `n` new devices.
    pub async fn with_devices(n: usize) -> Harness {
        let h = Harness::new();
        ok_json(
            &h.call("device_bulk_create", json!({"devices": new_devices(n)}))
                .await,
        );
        h
    }

    /// A builder for another server over this harness's inventory and
    /// store, to build with settings of its own.
    pub fn builder(&self) -> ServerBuilder {
        builder(&self.inventory, &self.store)
    }

    /// A builder for a server with every tool behind the `inventory`
    /// dispatcher too.
    pub fn dispatched_builder(&self) -> ServerBuilder {
        self.builder().with_dispatcher("inventory")
    }

    /// The server with every tool behind the `inventory` dispatcher too.
    pub fn dispatched(&self) -> Server {
        self.dispatched_builder().build().unwrap()
    }

    pub fn runs(&self) -> usize {
        self.inventory.runs.load(Ordering::SeqCst)
    }

    pub fn device_count(&self) -> usize {
        self.inventory.devices.lock().unwrap().len()
    }

    pub async fn call(&self, tool: &str, args: Value) -> CallToolResult {
        self.server
            .call(tool, args, Caller::Session("alice".into()))
            .await
    }
}

/// `n` new devices as call arguments.
pub fn new_devices(n: usize) -> Value {
    let devices: Vec<NewDevice> = (0..n)
        .map(|i| NewDevice {
            name: format!("edge-{i:02}"),
            site_slug: "hq-1".into(),
            role: "leaf".into(),
            serial: format!("SN{i:06}"),
        })
        .collect();
    serde_json::to_value(devices).unwrap()
}

/// The JSON a successful result carries, checking text and structured
/// content agree.
pub fn ok_json(result: &CallToolResult) -> Value {
    assert_eq!(
        result.is_error,
        Some(false),
        "expected success, got {result:?}"
    );
    let text = result.content[0]
        .as_text()
        .expect("text content")
        .text
        .clone();
    let parsed: Value = serde_json::from_str(&text).expect("text content is JSON");
    let structured = result
        .structured_content
        .clone()
        .expect("structuredContent");
    match &parsed {
        Value::Object(_) => assert_eq!(structured, parsed),
        other => assert_eq!(structured, json!({ "result": other })),
    }
    parsed
}

/// The text of an error result.
pub fn error_text(result: &CallToolResult) -> String {
    assert_eq!(
        result.is_error,
        Some(true),
        "expected an error, got {result:?}"
    );
    result.content[0]
        .as_text()
        .expect("text content")
        .text
        .clone()
}

/// List devices, optionally of one role; answers a probe and a token
/// (`inline = 0`: whatever the list's size, once it outgrows the preview).
#[mcp_heavy(resource = "device", action = "list", inline = 0)]
pub async fn device_list(ctx: &Context, role: Option<String>) -> Result<Vec<Device>, ToolError> {
    let inventory = ctx.state::<Inventory>()?;
    inventory.runs.fetch_add(1, Ordering::SeqCst);
    let devices = inventory.devices.lock().unwrap();
    Ok(devices
        .iter()
        .filter(|d| role.as_ref().is_none_or(|r| &d.role == r))
        .cloned()
        .collect())
}

/// Export devices and record the export: heavy wins over light (a probe
/// for anything larger than its preview).
#[mcp_heavy(inline = 0)]
#[mcp_light(create, resource = "export")]
pub fn export_heavy_first(ctx: &Context, n: usize) -> Result<Vec<Device>, ToolError> {
    export(ctx, n)
}

/// Export devices and record the export: heavy wins whichever comes first.
#[mcp_light(create, resource = "export", action = "archive")]
#[mcp_heavy(inline = 0)]
pub fn export_light_first(ctx: &Context, n: usize) -> Result<Vec<Device>, ToolError> {
    export(ctx, n)
}

fn export(ctx: &Context, n: usize) -> Result<Vec<Device>, ToolError> {
    let inventory = ctx.state::<Inventory>()?;
    inventory.runs.fetch_add(1, Ordering::SeqCst);
    Ok(inventory
        .devices
        .lock()
        .unwrap()
        .iter()
        .take(n)
        .cloned()
        .collect())
}

/// A plain read of `n` rows of `width` characters each.
#[mcp_tool(resource = "row", action = "list")]
pub fn row_list(ctx: &Context, n: usize, width: usize) -> Result<Vec<String>, ToolError> {
    ctx.state::<Inventory>()?
        .runs
        .fetch_add(1, Ordering::SeqCst);
    Ok((0..n).map(|i| format!("{i:0width$}")).collect())
}

/// The keys of a heavy read's probe of a list, in order.
pub const PROBE_KEYS: [&str; 6] = [
    "preview",
    "total_size",
    "total_items",
    "available_modes",
    "continuation_token",
    "usage",
];

/// The keys of a JSON object, in order.
pub fn keys(value: &Value) -> Vec<&str> {
    value
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .collect()
}

#[cfg(feature = "http")]
/// Posts `body` to `/mcp` with `headers`; the response's head and the
/// JSON-RPC messages of its body (plain JSON or an SSE stream), the
/// response ending within `wait`. It speaks HTTP/1.1 by hand, for requests
/// rmcp's client would not send as they are.
pub async fn post_mcp(
    address: std::net::SocketAddr,
    body: &str,
    headers: &[(&str, &str)],
    wait: std::time::Duration,
) -> (String, Vec<Value>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n",
        body.len()
    );
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    let mut socket = tokio::net::TcpStream::connect(address).await.unwrap();
    socket.write_all(request.as_bytes()).await.unwrap();
    let mut response = Vec::new();
    tokio::time::timeout(wait, socket.read_to_end(&mut response))
        .await
        .expect("the response ends")
        .unwrap();
    let response = String::from_utf8(response).unwrap();
    let (head, mut rest) = response.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 20"), "{head}");
    let mut text = String::new();
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        loop {
            let (size, after) = rest.split_once("\r\n").unwrap();
            let size = usize::from_str_radix(size.trim(), 16).unwrap();
            if size == 0 {
                break;
            }
            text.push_str(&after[..size]);
            rest = &after[size + 2..];
        }
    } else {
        text.push_str(rest);
    }
    let messages = if head.to_ascii_lowercase().contains("text/event-stream") {
        text.lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .filter(|data| !data.trim().is_empty())
            .map(|data| serde_json::from_str(data.trim()).unwrap())
            .collect()
    } else if text.trim().is_empty() {
        Vec::new()
    } else {
        vec![serde_json::from_str(&text).unwrap()]
    };
    (head.to_owned(), messages)
}
