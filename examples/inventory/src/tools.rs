//! The inventory's MCP tools.
//!
//! Each doc comment is the tool's description in `tools/list`, paid for by
//! every caller in every conversation: one short sentence, no repetition of
//! what the schema already says. Every tool names its `resource` and
//! `action`, so the `inventory` dispatcher routes to all of them.
//!
//! The work itself is in [`crate::db`]; a tool only takes the database from
//! the server's state and hands the work to [`Db::run`] when it writes, or
//! to [`Db::read`] when it reads: on a file database a read runs on a
//! reader connection of its own and never waits for a write.
//!
//! [`registry`] names this module's tools: the server serves them, and no
//! other tool linked into the same binary.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use mcp_light::BuildError;
use mcp_light::catalog::{Registry, ToolDef};
use mcp_light::context::LogLevel;
use mcp_light::prelude::*;
use serde_json::json;
use uuid::Uuid;

use crate::db::{self, Db, DeviceFilter, DeviceRows};
use crate::model::{Device, DevicePatch, DeviceStatus, NewDevice, NewSite, Site};

/// Fetch one device by id.
#[mcp_tool(resource = "device", action = "retrieve", scopes = ["inventory:read"])]
pub async fn device_retrieve(ctx: &Context, id: Uuid) -> Result<Device, ToolError> {
    ctx.state::<Db>()?
        .read(move |conn| db::get_device(conn, id))
        .await
}

/// List devices, optionally only those of one site, role or status.
// The rows are read a page at a time (`DeviceRows`) on a thread of the
// blocking pool, beside the one mcp-light serializes them on, and go into
// the store one by one: a million devices never sit in memory as a list.
// Each page is read on a reader connection taken for that page alone, so
// writers never wait for the listing (in memory, they wait a page's read,
// not the whole list's).
#[mcp_heavy(resource = "device", action = "list", task, scopes = ["inventory:read"])]
pub async fn device_list(
    ctx: &Context,
    site_slug: Option<String>,
    role: Option<String>,
    status: Option<DeviceStatus>,
) -> Result<impl Iterator<Item = Result<Device, ToolError>> + Send + 'static, ToolError> {
    let filter = DeviceFilter {
        site_slug,
        role,
        status,
    };
    Ok(DeviceRows::new(ctx.state::<Db>()?.clone(), filter))
}

/// Create one device.
#[mcp_light(create, resource = "device", retrieve = device_retrieve, scopes = ["inventory:write"])]
pub async fn device_create(ctx: &Context, device: NewDevice) -> Result<Device, ToolError> {
    let mut created = ctx
        .state::<Db>()?
        .run(move |conn| db::create_devices(conn, vec![device]))
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
    let db = ctx.state::<Db>()?;
    // Set when the call stops waiting for the write (the task was
    // cancelled, the call ran past its deadline): the transaction, on the
    // blocking pool, then rolls back at its next chunk rather than write
    // what nobody waits for.
    let abandoned = Arc::new(AtomicBool::new(false));
    let _abandon_when_dropped = SetOnDrop(Arc::clone(&abandoned));
    let going = move || !abandoned.load(Ordering::Relaxed);
    let created = if ctx.wants_progress() {
        // The transaction runs on the blocking pool; it reports every
        // chunk it inserted, and the tool passes each report on. The
        // reports are read until the channel closes (the transaction is
        // over, its sender dropped), not until the write answers: under
        // load the write can finish before the reports were ever polled.
        let total = devices.len() as f64;
        let (inserted, mut reports) = tokio::sync::mpsc::unbounded_channel();
        let work = db.run(move |conn| {
            db::create_devices_reporting(conn, devices, |done| {
                let _ = inserted.send(done);
                going()
            })
        });
        let relay = async {
            while let Some(done) = reports.recv().await {
                ctx.progress(done as f64, Some(total), Some("inserted"))
                    .await;
            }
        };
        tokio::join!(work, relay).0?
    } else {
        db.run(move |conn| db::create_devices_reporting(conn, devices, |_| going()))
            .await?
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
    let device = ctx
        .state::<Db>()?
        .run(move |conn| db::replace_device(conn, id, device))
        .await?;
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
    let device = ctx
        .state::<Db>()?
        .run(move |conn| db::patch_device(conn, id, changes))
        .await?;
    wrote(ctx, "changed", "device", json!(id)).await;
    Ok(device)
}

/// Delete a device.
#[mcp_light(destroy, resource = "device", scopes = ["inventory:write"])]
pub async fn device_destroy(ctx: &Context, id: Uuid) -> Result<(), ToolError> {
    ctx.state::<Db>()?
        .run(move |conn| db::delete_device(conn, id))
        .await?;
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

async fn wrote(ctx: &Context, what: &str, resource: &str, key: serde_json::Value) {
    let line = json!({"write": what, "resource": resource, "key": key});
    ctx.log_as("inventory", LogLevel::Info, line).await;
}

/// Fetch one site by id.
#[mcp_tool(resource = "site", action = "retrieve", scopes = ["inventory:read"])]
pub async fn site_retrieve(ctx: &Context, id: i64) -> Result<Site, ToolError> {
    ctx.state::<Db>()?
        .read(move |conn| db::get_site(conn, id))
        .await
}

/// List every site with its device count.
// A plain read, not `#[mcp_heavy]`: an inventory has tens of sites, not
// thousands, so a probe would only cost every caller a second round trip.
// Through the dispatcher the size backstop still probes an unusually large
// answer.
#[mcp_tool(resource = "site", action = "list", scopes = ["inventory:read"])]
pub async fn site_list(ctx: &Context) -> Result<Vec<Site>, ToolError> {
    ctx.state::<Db>()?.read(db::list_sites).await
}

/// Create a site.
#[mcp_light(create, resource = "site", retrieve = site_retrieve, scopes = ["inventory:write"])]
pub async fn site_create(ctx: &Context, site: NewSite) -> Result<Site, ToolError> {
    let site = ctx
        .state::<Db>()?
        .run(move |conn| db::create_site(conn, site))
        .await?;
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
