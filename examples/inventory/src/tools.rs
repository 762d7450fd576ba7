//! The inventory's MCP tools.
//!
//! Each doc comment is the tool's description in `tools/list`, paid for by
//! every caller in every conversation: one short sentence, no repetition of
//! what the schema already says. Every tool names its `resource` and
//! `action`, so the `inventory` dispatcher routes to all of them.
//!
//! The work itself is in [`crate::database`]; a tool only takes the
//! [`Database`] from the server's state and calls the one method that does
//! its work, on SQLite or on PostgreSQL alike.
//!
//! [`registry`] names this module's tools: the server serves them, and no
//! other tool linked into the same binary.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use mcp_light::catalog::{Registry, ToolDef};
use mcp_light::context::LogLevel;
use mcp_light::prelude::*;
use mcp_light::{BuildError, ItemStream};
use serde_json::json;
use uuid::Uuid;

use crate::database::Database;
use crate::db::DeviceFilter;
use crate::model::{Device, DevicePatch, DeviceStatus, NewDevice, NewSite, Site};

/// Fetch one device by id.
#[mcp_tool(resource = "device", action = "retrieve", scopes = ["inventory:read"])]
pub async fn device_retrieve(ctx: &Context, id: Uuid) -> Result<Device, ToolError> {
    ctx.state::<Database>()?.get_device(id).await
}

/// List devices, optionally only those of one site, role or status.
// The rows stream into the store one by one: a million devices never sit
// in memory as a list. On SQLite they are read a page at a time on a
// thread of the blocking pool, each page on a reader connection taken for
// that page alone, so writers never wait for the listing; on PostgreSQL
// they come as the driver's row stream.
#[mcp_heavy(resource = "device", action = "list", task, scopes = ["inventory:read"])]
pub async fn device_list(
    ctx: &Context,
    site_slug: Option<String>,
    role: Option<String>,
    status: Option<DeviceStatus>,
) -> Result<ItemStream<Device>, ToolError> {
    let filter = DeviceFilter {
        site_slug,
        role,
        status,
    };
    ctx.state::<Database>()?.devices(filter).await
}

/// Create one device.
#[mcp_light(create, resource = "device", retrieve = device_retrieve, scopes = ["inventory:write"])]
pub async fn device_create(ctx: &Context, device: NewDevice) -> Result<Device, ToolError> {
    let mut created = ctx
        .state::<Database>()?
        .create_devices(vec![device], |_| true)
        .await?;
    let device = created.remove(0);
    wrote(ctx, "created", "device", json!(device.id)).await;
    Ok(device)
}

/// Create many devices in one transaction: all of them or none.
#[mcp_light(bulk_create, resource = "device", retrieve = device_retrieve, task, scopes = ["inventory:write"])]
pub async fn device_bulk_create(
    ctx: &Context,
    devices: Vec<NewDevice>,
) -> Result<Vec<Device>, ToolError> {
    let db = ctx.state::<Database>()?;
    // Set when the call is cancelled or stops waiting for the write (it
    // ran past its deadline): a transaction still running (on SQLite's
    // blocking pool for a large batch; a short one runs to its end where it
    // was called) then rolls back at its next chunk rather than write what
    // nobody waits for. Told of a cancel, the tool still waits for the
    // write to end, so what it answers is what the database holds: rolled
    // back, or committed when the cancel came after the last chunk.
    let abandoned = Arc::new(AtomicBool::new(false));
    let _abandon_when_dropped = SetOnDrop(Arc::clone(&abandoned));
    let abandon = Arc::clone(&abandoned);
    let going = move || !abandoned.load(Ordering::Relaxed);
    let created = if ctx.wants_progress() {
        // The transaction reports every chunk it inserted, and the tool
        // passes each report on. The
        // reports are read until the channel closes (the transaction is
        // over, its sender dropped), not until the write answers: under
        // load the write can finish before the reports were ever polled.
        let total = devices.len() as f64;
        let (inserted, mut reports) = tokio::sync::mpsc::unbounded_channel();
        let work = db.create_devices(devices, move |done| {
            let _ = inserted.send(done);
            going()
        });
        let relay = async {
            while let Some(done) = reports.recv().await {
                ctx.progress(done as f64, Some(total), Some("inserted"))
                    .await;
            }
        };
        let work = to_its_end(ctx, &abandon, work);
        tokio::join!(work, relay).0?
    } else {
        to_its_end(ctx, &abandon, db.create_devices(devices, move |_| going())).await?
    };
    wrote(ctx, "created", "devices", json!(created.len())).await;
    Ok(created)
}

/// Replace every field of a device.
#[mcp_light(update, resource = "device", retrieve = device_retrieve, scopes = ["inventory:write"])]
pub async fn device_update(
    ctx: &Context,
    id: Uuid,
    device: NewDevice,
) -> Result<Device, ToolError> {
    let device = ctx.state::<Database>()?.replace_device(id, device).await?;
    wrote(ctx, "replaced", "device", json!(id)).await;
    Ok(device)
}

/// Change some fields of a device; the others keep their values.
#[mcp_light(partial_update, resource = "device", retrieve = device_retrieve, scopes = ["inventory:write"])]
pub async fn device_partial_update(
    ctx: &Context,
    id: Uuid,
    changes: DevicePatch,
) -> Result<Device, ToolError> {
    let device = ctx.state::<Database>()?.patch_device(id, changes).await?;
    wrote(ctx, "changed", "device", json!(id)).await;
    Ok(device)
}

/// Delete a device.
#[mcp_light(destroy, resource = "device", scopes = ["inventory:write"])]
pub async fn device_destroy(ctx: &Context, id: Uuid) -> Result<(), ToolError> {
    ctx.state::<Database>()?.delete_device(id).await?;
    wrote(ctx, "deleted", "device", json!(id)).await;
    Ok(())
}

/// Tells the client, in one log line, what a write changed.
/// Sets its flag when dropped: with the tool's future, when the call
/// stops waiting for it.
struct SetOnDrop(Arc<AtomicBool>);

impl Drop for SetOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// `write` awaited to its end; if the call is cancelled meanwhile,
/// `abandoned` is set first, which the write reads at its next chunk.
async fn to_its_end<T>(
    ctx: &Context,
    abandoned: &AtomicBool,
    write: impl std::future::Future<Output = T>,
) -> T {
    tokio::pin!(write);
    tokio::select! {
        done = &mut write => done,
        () = ctx.cancelled() => {
            abandoned.store(true, Ordering::Relaxed);
            write.await
        }
    }
}

async fn wrote(ctx: &Context, what: &str, resource: &str, key: serde_json::Value) {
    let line = json!({"write": what, "resource": resource, "key": key});
    ctx.log_as("inventory", LogLevel::Info, line).await;
}

/// Fetch one site by id.
#[mcp_tool(resource = "site", action = "retrieve", scopes = ["inventory:read"])]
pub async fn site_retrieve(ctx: &Context, id: i64) -> Result<Site, ToolError> {
    ctx.state::<Database>()?.get_site(id).await
}

/// List every site with its device count.
// A plain read, not `#[mcp_heavy]`: an inventory has tens of sites, not
// thousands, so a probe would only cost every caller a second round trip.
// Through the dispatcher the size backstop still probes an unusually large
// answer.
#[mcp_tool(resource = "site", action = "list", scopes = ["inventory:read"])]
pub async fn site_list(ctx: &Context) -> Result<Vec<Site>, ToolError> {
    ctx.state::<Database>()?.list_sites().await
}

/// Create a site.
#[mcp_light(create, resource = "site", retrieve = site_retrieve, scopes = ["inventory:write"])]
pub async fn site_create(ctx: &Context, site: NewSite) -> Result<Site, ToolError> {
    let site = ctx.state::<Database>()?.create_site(site).await?;
    wrote(ctx, "created", "site", json!(site.id)).await;
    Ok(site)
}

/// The inventory's tools: only these are served, though the token report
/// and the benchmarks link in tools of their own.
pub fn all() -> [&'static ToolDef; 10] {
    tools![
        device_retrieve,
        device_list,
        device_create,
        device_bulk_create,
        device_update,
        device_partial_update,
        device_destroy,
        site_retrieve,
        site_list,
        site_create,
    ]
}

/// The inventory's tools, checked and with their published schemas.
pub fn registry() -> Result<Registry, BuildError> {
    Registry::from_tools(all())
}
