//! The inventory server on its in-memory database, seeded with the
//! fixture's sites and a few devices, and a snapshot of what the database
//! holds: the "nothing written is lost or changed" check.

use inventory::db::{self, Db, DeviceFilter};
use inventory::fixture;
use mcp_light::Server;
use serde_json::{Value, json};

/// The inventory's flat tools and its dispatcher, by name.
pub const TOOLS: [&str; 11] = [
    "device_bulk_create",
    "device_create",
    "device_destroy",
    "device_list",
    "device_partial_update",
    "device_retrieve",
    "device_update",
    "site_create",
    "site_list",
    "site_retrieve",
    inventory::DISPATCHER,
];

/// The tools that only read: a call to one leaves the database as it was,
/// whatever it answers.
pub const READS: [&str; 4] = [
    "device_list",
    "device_retrieve",
    "site_list",
    "site_retrieve",
];

/// The inventory server over a database of its own.
pub struct Inventory {
    pub server: Server,
    pub db: Db,
}

impl Inventory {
    /// The fixture's sites and its first `devices` devices.
    pub fn seeded(devices: usize) -> Inventory {
        let db = Db::open(None).expect("an in-memory database");
        db.run_now(move |conn| {
            db::ensure_sites(conn, fixture::new_sites())?;
            db::create_devices(conn, fixture::new_devices(devices, 1))
        })
        .expect("the fixture is written");
        let server = inventory::server(db.clone())
            .build()
            .expect("the inventory server builds");
        Inventory { server, db }
    }

    /// Every site and device, as JSON, in the order the database keeps
    /// them.
    pub fn snapshot(&self) -> Value {
        self.db
            .run_now(|conn| {
                let sites = db::list_sites(conn)?;
                let devices = db::list_devices(conn, &DeviceFilter::default())?;
                Ok(json!({"sites": sites, "devices": devices}))
            })
            .expect("the database reads")
    }

    /// How many devices are kept: an inventory grown past a few hundred by
    /// successful writes is replaced, so every input runs in about the
    /// same time.
    pub fn devices(&self) -> usize {
        self.db
            .run_now(|conn| db::count_devices(conn))
            .map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX))
    }
}
