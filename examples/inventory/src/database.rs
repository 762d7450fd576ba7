//! Where the inventory keeps its records: a SQLite file or memory
//! ([`Db`], the embedded default), or a PostgreSQL server (`postgres::PgDb`, the
//! cargo feature `postgres`) that replicas on many hosts share.
//!
//! The tools hold a [`Database`] in the server's state and call its
//! methods, one per operation; each backend answers with the same records
//! and the same errors, so a caller cannot tell them apart but by speed.
//! SQLite's work runs on tokio's blocking pool (rusqlite is synchronous),
//! but a short write that will not wait runs where it is called
//! ([`Db::run_short`]); PostgreSQL's is async all the way.

use mcp_light::{ItemStream, ToolError};
use uuid::Uuid;

use crate::db::{self, Db, DeviceFilter, DeviceRows};
use crate::model::{Device, DevicePatch, NewDevice, NewSite, Site};
#[cfg(feature = "postgres")]
use crate::postgres::PgDb;

/// The most devices a SQLite create writes on the calling thread
/// ([`Db::run_short`]); a larger batch goes to the blocking pool, so no
/// async worker is held for more than a millisecond or two.
pub const SHORT_WRITE: usize = 100;

/// The inventory's records, on one backend; cheap to clone (clones share
/// the connections).
#[derive(Clone)]
pub enum Database {
    /// A SQLite file, or memory: one host.
    Sqlite(Db),
    /// A PostgreSQL server: any number of replicas.
    #[cfg(feature = "postgres")]
    Postgres(PgDb),
}

impl From<Db> for Database {
    fn from(db: Db) -> Self {
        Database::Sqlite(db)
    }
}

#[cfg(feature = "postgres")]
impl From<PgDb> for Database {
    fn from(db: PgDb) -> Self {
        Database::Postgres(db)
    }
}

/// A PostgreSQL error as the tools answer it, its detail logged.
#[cfg(feature = "postgres")]
fn pg<T>(result: Result<T, db::InventoryError>) -> Result<T, ToolError> {
    result.map_err(db::logged)
}

impl Database {
    /// The device with this id.
    pub async fn get_device(&self, id: Uuid) -> Result<Device, ToolError> {
        match self {
            Database::Sqlite(db) => db.read(move |conn| db::get_device(conn, id)).await,
            #[cfg(feature = "postgres")]
            Database::Postgres(db) => pg(db.get_device(id).await),
        }
    }

    /// The devices `filter` matches, oldest first, as a stream the store
    /// takes one at a time: on SQLite read a page at a time on the blocking
    /// pool ([`DeviceRows`]), on PostgreSQL the driver's row stream.
    pub async fn devices(&self, filter: DeviceFilter) -> Result<ItemStream<Device>, ToolError> {
        match self {
            Database::Sqlite(db) => {
                let rows = DeviceRows::new(db.clone(), filter);
                Ok(ItemStream::blocking(move |sender| {
                    for device in rows {
                        sender.send(device?)?;
                    }
                    Ok(())
                }))
            }
            #[cfg(feature = "postgres")]
            Database::Postgres(db) => db.devices(filter).await,
        }
    }

    /// Creates `devices` in one transaction, all or none. `inserted` hears
    /// the count inserted after every [`db::PROGRESS_CHUNK`] devices and
    /// after the last one, before the commit; when it answers `false` the
    /// write rolls back and fails as abandoned.
    pub async fn create_devices(
        &self,
        devices: Vec<NewDevice>,
        inserted: impl FnMut(usize) -> bool + Send + 'static,
    ) -> Result<Vec<Device>, ToolError> {
        match self {
            Database::Sqlite(db) if devices.len() <= SHORT_WRITE => {
                db.run_short(move |conn| db::create_devices_reporting(conn, devices, inserted))
                    .await
            }
            Database::Sqlite(db) => {
                db.run(move |conn| db::create_devices_reporting(conn, devices, inserted))
                    .await
            }
            #[cfg(feature = "postgres")]
            Database::Postgres(db) => pg(db.create_devices(devices, inserted).await),
        }
    }

    /// Replaces every writable field of a device (PUT).
    pub async fn replace_device(&self, id: Uuid, device: NewDevice) -> Result<Device, ToolError> {
        match self {
            Database::Sqlite(db) => {
                db.run_short(move |conn| db::replace_device(conn, id, device))
                    .await
            }
            #[cfg(feature = "postgres")]
            Database::Postgres(db) => pg(db.replace_device(id, device).await),
        }
    }

    /// Changes the fields `patch` carries (PATCH).
    pub async fn patch_device(&self, id: Uuid, patch: DevicePatch) -> Result<Device, ToolError> {
        match self {
            Database::Sqlite(db) => {
                db.run_short(move |conn| db::patch_device(conn, id, patch))
                    .await
            }
            #[cfg(feature = "postgres")]
            Database::Postgres(db) => pg(db.patch_device(id, patch).await),
        }
    }

    /// Deletes a device.
    pub async fn delete_device(&self, id: Uuid) -> Result<(), ToolError> {
        match self {
            Database::Sqlite(db) => db.run_short(move |conn| db::delete_device(conn, id)).await,
            #[cfg(feature = "postgres")]
            Database::Postgres(db) => pg(db.delete_device(id).await),
        }
    }

    /// How many devices there are.
    pub async fn count_devices(&self) -> Result<i64, ToolError> {
        match self {
            Database::Sqlite(db) => db.read(db::count_devices).await,
            #[cfg(feature = "postgres")]
            Database::Postgres(db) => pg(db.count_devices().await),
        }
    }

    /// The site with this id.
    pub async fn get_site(&self, id: i64) -> Result<Site, ToolError> {
        match self {
            Database::Sqlite(db) => db.read(move |conn| db::get_site(conn, id)).await,
            #[cfg(feature = "postgres")]
            Database::Postgres(db) => pg(db.get_site(id).await),
        }
    }

    /// Every site, by slug.
    pub async fn list_sites(&self) -> Result<Vec<Site>, ToolError> {
        match self {
            Database::Sqlite(db) => db.read(db::list_sites).await,
            #[cfg(feature = "postgres")]
            Database::Postgres(db) => pg(db.list_sites().await),
        }
    }

    /// Creates a site.
    pub async fn create_site(&self, site: NewSite) -> Result<Site, ToolError> {
        match self {
            Database::Sqlite(db) => db.run_short(move |conn| db::create_site(conn, site)).await,
            #[cfg(feature = "postgres")]
            Database::Postgres(db) => pg(db.create_site(site).await),
        }
    }
}
