//! The inventory on a PostgreSQL server (the cargo feature `postgres`):
//! the same records, checks and answers as on SQLite ([`crate::db`]), for
//! replicas on many hosts that share one database.
//!
//! A pool of connections ([`POOL_SIZE`]) serves the tools; every statement
//! is prepared once per connection and reused (`prepare_cached`). At start,
//! [`PgDb::connect`] runs the migrations the database has not had yet,
//! under an advisory lock, so replicas starting together migrate once.
//!
//! Writes run in one transaction each, all or none, as on SQLite. A bulk
//! create inserts its devices with one multi-row statement per
//! [`crate::db::PROGRESS_CHUNK`] devices (arrays `unnest`ed into rows), so a
//! batch costs a few round trips, not one per device; a single create is
//! one statement, atomic on its own, and one round trip. Sites are left to
//! the foreign key rather than read first. When that fast path fails (an
//! unknown site, a duplicate name or asset tag), the batch is tried again
//! device by device in a new transaction, only to find the first device
//! that fails, in order, and report it as SQLite would: the error path
//! pays for the exact answer, the success path does not.
//!
//! [`PgDb::devices`] answers `device_list` with the driver's row stream:
//! rows arrive from the server as the store takes them, and the driver
//! stops reading the socket while the store is behind, so a million
//! devices never sit in memory. The stream holds its pooled connection
//! until it ends.

use std::collections::{BTreeMap, HashSet};
use std::pin::Pin;
use std::str::FromStr;
use std::task::{Context, Poll};

use deadpool_postgres::{GenericClient, Manager, ManagerConfig, Object, Pool, RecyclingMethod};
use futures_core::Stream;
use mcp_light::{ItemStream, ToolError};
use serde_json::Value;
use tokio_postgres::error::SqlState;
use tokio_postgres::types::{Json, ToSql};
use tokio_postgres::{NoTls, Row, RowStream};
use uuid::Uuid;

// The columns of a device and of a site are SQLite's, in the same order:
// this module's `device_from_row` and `site_from_row` read them as `db`'s
// do.
use crate::db::{
    DeviceFilter, InventoryError, PROGRESS_CHUNK, SEED_BATCH, apply, check_device, check_site,
    logged, now_rfc3339, valid_at_existing_site,
};
use crate::db::{device_columns, site_columns};
use crate::model::{Device, DevicePatch, DeviceStatus, NewDevice, NewSite, Site, SiteStatus};

/// How many connections the pool opens at most. A `device_list` holds one
/// while its rows stream into the store; writes and reads take one for a
/// transaction or a statement.
pub const POOL_SIZE: usize = 16;

/// The migrations, in order: each runs once, in a transaction, and its
/// number is recorded in `inventory_migrations`. A later schema change is
/// a new entry at the end, never an edit of one that has run.
const MIGRATIONS: &[(i32, &str)] = &[(
    1,
    "CREATE TABLE sites (
        id               bigint PRIMARY KEY,
        slug             text NOT NULL CONSTRAINT sites_slug_key UNIQUE,
        name             text NOT NULL CONSTRAINT sites_name_key UNIQUE,
        status           text NOT NULL,
        region           text,
        facility         text,
        time_zone        text,
        physical_address text NOT NULL,
        description      text NOT NULL,
        created          text NOT NULL
    );
    CREATE TABLE devices (
        seq           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id            uuid NOT NULL CONSTRAINT devices_id_key UNIQUE,
        name          text NOT NULL,
        site_slug     text NOT NULL REFERENCES sites (slug),
        role          text NOT NULL,
        device_type   text NOT NULL,
        platform      text,
        serial        text NOT NULL,
        asset_tag     text CONSTRAINT devices_asset_tag_key UNIQUE,
        status        text NOT NULL,
        rack          text,
        position      integer,
        face          text,
        airflow       text,
        comments      text NOT NULL,
        tags          json NOT NULL,
        custom_fields json NOT NULL,
        created       text NOT NULL,
        last_updated  text NOT NULL,
        CONSTRAINT devices_site_name_key UNIQUE (site_slug, name)
    );
    CREATE INDEX devices_role ON devices (role);",
)];

/// The advisory lock the migrations run under: any number, the same in
/// every replica ("inventory" in ASCII).
const MIGRATION_LOCK: i64 = 0x696e_7665_6e74_6f72;

/// The filter of a device list: a `NULL` parameter matches everything.
macro_rules! device_filter {
    () => {
        " WHERE ($1::text IS NULL OR site_slug = $1) AND ($2::text IS NULL OR role = $2) \
         AND ($3::text IS NULL OR status = $3)"
    };
}

const INSERT_DEVICES: &str = concat!(
    "INSERT INTO devices (",
    device_columns!(),
    ") SELECT u.id, u.name, u.site_slug, u.role, u.device_type, u.platform, u.serial, \
     u.asset_tag, u.status, u.rack, u.position, u.face, u.airflow, u.comments, u.tags, \
     u.custom_fields, $17, $17 \
     FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], \
     $7::text[], $8::text[], $9::text[], $10::text[], $11::int4[], $12::text[], $13::text[], \
     $14::text[], $15::json[], $16::json[]) WITH ORDINALITY AS u (id, name, site_slug, role, \
     device_type, platform, serial, asset_tag, status, rack, position, face, airflow, comments, \
     tags, custom_fields, n) ORDER BY u.n"
);

const UPDATE_DEVICE: &str = "UPDATE devices SET name = $2, site_slug = $3, role = $4, \
     device_type = $5, platform = $6, serial = $7, asset_tag = $8, status = $9, rack = $10, \
     position = $11, face = $12, airflow = $13, comments = $14, tags = $15, custom_fields = $16, \
     last_updated = $17 WHERE id = $1";

/// Why the PostgreSQL side of a call failed: the driver, or the pool.
#[derive(Debug, thiserror::Error)]
pub enum PgError {
    /// A statement failed, or the connection did.
    #[error(transparent)]
    Query(#[from] tokio_postgres::Error),
    /// A stored value could not be read as its field: a damaged record.
    #[error("reading column `{column}`: {source}")]
    Unreadable {
        /// The column.
        column: &'static str,
        /// Why.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// No connection could be had from the pool.
    #[error(transparent)]
    Pool(#[from] deadpool_postgres::PoolError),
}

impl PgError {
    /// The error and every cause under it, for the log: the driver says
    /// "error connecting to server" and keeps the why in its source.
    pub fn with_causes(&self) -> String {
        let mut text = self.to_string();
        let mut cause = std::error::Error::source(self);
        while let Some(error) = cause {
            let said = error.to_string();
            if !text.contains(&said) {
                text = format!("{text}: {said}");
            }
            cause = error.source();
        }
        text
    }

    /// What a caller can do about it, in a sentence; the detail goes to
    /// the server's log.
    pub fn for_caller(&self) -> &'static str {
        let code = match self {
            PgError::Unreadable { .. } => {
                return "a stored record could not be read: the fault is the server's, not the \
                        request's (logged); other records still can be";
            }
            PgError::Pool(_) => {
                return "the database could not be reached (logged); nothing was written, try \
                        again in a moment";
            }
            PgError::Query(error) => error.code(),
        };
        match code {
            Some(code)
                if *code == SqlState::T_R_SERIALIZATION_FAILURE
                    || *code == SqlState::T_R_DEADLOCK_DETECTED
                    || *code == SqlState::LOCK_NOT_AVAILABLE =>
            {
                "the database is busy with another write; nothing was written, try again in a \
                 moment"
            }
            _ => "the database failed on the server's side (logged); nothing was written",
        }
    }
}

impl From<tokio_postgres::Error> for InventoryError {
    fn from(error: tokio_postgres::Error) -> Self {
        InventoryError::Postgres(PgError::Query(error))
    }
}

impl From<deadpool_postgres::PoolError> for InventoryError {
    fn from(error: deadpool_postgres::PoolError) -> Self {
        InventoryError::Postgres(PgError::Pool(error))
    }
}

/// Why [`PgDb::connect`] could not open the database.
#[derive(Debug, thiserror::Error)]
pub enum PgOpenError {
    /// The URL does not parse as a PostgreSQL connection string.
    #[error(
        "`{url}` is not a PostgreSQL URL ({source}); write it as \
         postgres://USER:PASSWORD@HOST:PORT/DATABASE"
    )]
    Url {
        /// The URL, its password hidden.
        url: String,
        /// What the driver said.
        source: tokio_postgres::Error,
    },
    /// The pool could not be built.
    #[error("cannot build the connection pool: {0}")]
    Pool(#[from] deadpool_postgres::BuildError),
    /// Connecting or migrating failed; the message is the database's own,
    /// for the operator starting the server.
    #[error("{}", .0.database_detail().unwrap_or_else(|| .0.to_string()))]
    Database(#[from] InventoryError),
}

/// The inventory on PostgreSQL: a pool of connections, cheap to clone.
#[derive(Clone)]
pub struct PgDb {
    pool: Pool,
}

impl std::fmt::Debug for PgDb {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgDb").finish_non_exhaustive()
    }
}

impl PgDb {
    /// Connects to the database at `url` (`postgres://…`), checks that it
    /// answers, and runs the migrations it has not had yet.
    pub async fn connect(url: &str) -> Result<PgDb, PgOpenError> {
        let config = tokio_postgres::Config::from_str(url).map_err(|source| PgOpenError::Url {
            url: without_password(url),
            source,
        })?;
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                // A connection that went back to the pool is checked to be
                // open, not sent a query: a call pays no extra round trip.
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager).max_size(POOL_SIZE).build()?;
        let db = PgDb { pool };
        db.migrate().await.map_err(PgOpenError::Database)?;
        Ok(db)
    }

    async fn migrate(&self) -> Result<(), InventoryError> {
        let mut client = self.pool.get().await?;
        let tx = client.transaction().await?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
            .await?;
        tx.batch_execute(
            "CREATE TABLE IF NOT EXISTS inventory_migrations (
                version integer PRIMARY KEY,
                applied timestamptz NOT NULL DEFAULT now()
            )",
        )
        .await?;
        let done: HashSet<i32> = tx
            .query("SELECT version FROM inventory_migrations", &[])
            .await?
            .iter()
            .map(|row| row.get(0))
            .collect();
        for (version, sql) in MIGRATIONS {
            if !done.contains(version) {
                tx.batch_execute(sql).await?;
                tx.execute(
                    "INSERT INTO inventory_migrations (version) VALUES ($1)",
                    &[version],
                )
                .await?;
            }
        }
        tx.commit().await?;
        Ok(())
    }

    async fn client(&self) -> Result<Object, InventoryError> {
        Ok(self.pool.get().await?)
    }

    // ----- sites -------------------------------------------------------------

    /// Creates one site.
    pub async fn create_site(&self, site: NewSite) -> Result<Site, InventoryError> {
        check_site(&site)?;
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        // A site takes the number after the highest, as on SQLite, and a
        // refused one takes none (a sequence would skip it): sites are
        // created rarely, so their writers take turns. Readers never wait.
        tx.batch_execute("LOCK TABLE sites IN EXCLUSIVE MODE")
            .await?;
        let insert = tx
            .prepare_cached(
                "INSERT INTO sites (id, slug, name, status, region, facility, time_zone, \
                 physical_address, description, created) \
                 SELECT coalesce(max(id), 0) + 1, $1, $2, $3, $4, $5, $6, $7, $8, $9 FROM sites \
                 RETURNING id",
            )
            .await?;
        let row = tx
            .query_one(
                &insert,
                &[
                    &site.slug,
                    &site.name,
                    &site.status.as_str(),
                    &site.region,
                    &site.facility,
                    &site.time_zone,
                    &site.physical_address,
                    &site.description,
                    &now_rfc3339(),
                ],
            )
            .await
            .map_err(|error| {
                if unique_violation(&error).is_some_and(|c| c.starts_with("sites_")) {
                    InventoryError::duplicate_site(&site)
                } else {
                    error.into()
                }
            })?;
        let created = site_by_id(&tx, row.get(0)).await?;
        tx.commit().await?;
        Ok(created)
    }

    /// Creates the sites that do not exist yet (matched by slug); for
    /// seeding.
    pub async fn ensure_sites(&self, sites: Vec<NewSite>) -> Result<(), InventoryError> {
        for site in sites {
            let client = self.client().await?;
            let exists: bool = client
                .query_one(
                    "SELECT EXISTS (SELECT 1 FROM sites WHERE slug = $1)",
                    &[&site.slug],
                )
                .await?
                .get(0);
            drop(client);
            if !exists {
                self.create_site(site).await?;
            }
        }
        Ok(())
    }

    /// The site with this id.
    pub async fn get_site(&self, id: i64) -> Result<Site, InventoryError> {
        site_by_id(&self.client().await?, id).await
    }

    /// Every site, by slug in byte order (as SQLite sorts them).
    pub async fn list_sites(&self) -> Result<Vec<Site>, InventoryError> {
        let client = self.client().await?;
        let statement = client
            .prepare_cached(concat!(
                "SELECT ",
                site_columns!(),
                " FROM sites ORDER BY slug COLLATE \"C\""
            ))
            .await?;
        client
            .query(&statement, &[])
            .await?
            .iter()
            .map(site_from_row)
            .collect()
    }

    // ----- devices -----------------------------------------------------------

    /// Creates `devices` in one transaction, all or none, as
    /// [`crate::db::create_devices_reporting`] does on SQLite: `inserted`
    /// hears the count inserted after every [`PROGRESS_CHUNK`] and after
    /// the last (before the commit; for a single device, after its one
    /// statement), and `false` rolls the write back as
    /// [`InventoryError::Abandoned`].
    pub async fn create_devices(
        &self,
        devices: Vec<NewDevice>,
        mut inserted: impl FnMut(usize) -> bool + Send,
    ) -> Result<Vec<Device>, InventoryError> {
        match self.insert_all(&devices, &mut inserted).await {
            Ok(Some(created)) => Ok(created),
            // A device was refused: find which, in order, as SQLite does.
            Ok(None) => Err(self.first_failure(devices).await),
            Err(InventoryError::Postgres(PgError::Query(error))) if refused(&error) => {
                Err(self.first_failure(devices).await)
            }
            Err(error) => Err(error),
        }
    }

    /// The fast path: every device checked but for its site, which the
    /// foreign key checks, then inserted [`PROGRESS_CHUNK`] at a time in
    /// one transaction; one device is one statement, atomic on its own.
    /// `Ok(None)` when a check failed; the database's error when an insert
    /// did.
    async fn insert_all(
        &self,
        devices: &[NewDevice],
        inserted: &mut (impl FnMut(usize) -> bool + Send),
    ) -> Result<Option<Vec<Device>>, InventoryError> {
        if !devices.iter().all(valid_at_existing_site) {
            return Ok(None);
        }
        let mut client = self.client().await?;
        let now = now_rfc3339();
        let created = |chunk: &[NewDevice], ids: Vec<Uuid>| {
            chunk
                .iter()
                .zip(ids)
                .map(|(device, id)| device.clone().into_device(id, now.clone(), now.clone()))
                .collect::<Vec<_>>()
        };
        if let [device] = devices {
            let statement = client.prepare_cached(INSERT_DEVICES).await?;
            let ids = vec![Uuid::now_v7()];
            let rows = Columns::of(&ids, std::slice::from_ref(device));
            client.execute(&statement, &rows.params(&now)).await?;
            inserted(1);
            return Ok(Some(created(devices, ids)));
        }
        let tx = client.transaction().await?;
        let statement = tx.prepare_cached(INSERT_DEVICES).await?;
        let mut all = Vec::with_capacity(devices.len());
        for chunk in devices.chunks(PROGRESS_CHUNK) {
            let ids: Vec<Uuid> = chunk.iter().map(|_| Uuid::now_v7()).collect();
            let rows = Columns::of(&ids, chunk);
            tx.execute(&statement, &rows.params(&now)).await?;
            all.extend(created(chunk, ids));
            // The last report comes before the commit: a write abandoned
            // up to then is rolled back whole.
            if !inserted(all.len()) {
                return Err(InventoryError::Abandoned);
            }
        }
        tx.commit().await?;
        Ok(Some(all))
    }

    /// The error of the first device of `devices` that fails, checked and
    /// inserted one by one in a transaction that is rolled back: what
    /// SQLite, which inserts in order, answers.
    async fn first_failure(&self, devices: Vec<NewDevice>) -> InventoryError {
        let single = devices.len() == 1;
        let of = devices.len();
        let found = async {
            let mut client = self.client().await?;
            let tx = client.transaction().await?;
            let sites = site_slugs(&tx).await?;
            let statement = tx.prepare_cached(INSERT_DEVICES).await?;
            let now = now_rfc3339();
            for (index, device) in devices.iter().enumerate() {
                let id = [Uuid::now_v7()];
                let failed = match check_device(device, &sites) {
                    Err(error) => Some(error),
                    Ok(()) => {
                        let rows = Columns::of(&id, std::slice::from_ref(device));
                        tx.execute(&statement, &rows.params(&now))
                            .await
                            .err()
                            .map(|error| unique_device_error(error, device))
                    }
                };
                if let Some(error) = failed {
                    return Ok((index, error));
                }
            }
            // Nothing failed this time (a conflicting device was deleted
            // meanwhile): the batch is not written; the caller sends it again.
            Err(InventoryError::Invalid {
                field: "devices",
                reason: "conflicted with a concurrent write; nothing was written, send the \
                         batch again"
                    .to_owned(),
            })
        };
        match found.await {
            Ok((_, error)) if single => error,
            Ok((index, error)) => InventoryError::InBatch {
                position: index + 1,
                of,
                name: devices[index].name.clone(),
                source: Box::new(error),
            },
            Err(error) => error,
        }
    }

    /// The device with this id.
    pub async fn get_device(&self, id: Uuid) -> Result<Device, InventoryError> {
        device_by_id(&self.client().await?, id, Lock::No).await
    }

    /// Replaces every writable field of a device (PUT).
    pub async fn replace_device(
        &self,
        id: Uuid,
        device: NewDevice,
    ) -> Result<Device, InventoryError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        let created: String = tx
            .query_opt(
                "SELECT created FROM devices WHERE id = $1 FOR UPDATE",
                &[&id],
            )
            .await?
            .ok_or(InventoryError::NoDevice(id))?
            .get(0);
        let updated = write_device(&tx, id, device, created).await?;
        tx.commit().await?;
        Ok(updated)
    }

    /// Changes the fields `patch` carries (PATCH). The row is locked while
    /// it is read and written, so two replicas patching one device at once
    /// both land.
    pub async fn patch_device(
        &self,
        id: Uuid,
        patch: DevicePatch,
    ) -> Result<Device, InventoryError> {
        let mut client = self.client().await?;
        let tx = client.transaction().await?;
        let current = device_by_id(&tx, id, Lock::ForUpdate).await?;
        let created = current.created.clone();
        let updated = write_device(&tx, id, apply(current, patch), created).await?;
        tx.commit().await?;
        Ok(updated)
    }

    /// Deletes a device.
    pub async fn delete_device(&self, id: Uuid) -> Result<(), InventoryError> {
        let client = self.client().await?;
        let statement = client
            .prepare_cached("DELETE FROM devices WHERE id = $1")
            .await?;
        if client.execute(&statement, &[&id]).await? == 0 {
            return Err(InventoryError::NoDevice(id));
        }
        Ok(())
    }

    /// How many devices there are.
    pub async fn count_devices(&self) -> Result<i64, InventoryError> {
        let client = self.client().await?;
        Ok(client
            .query_one("SELECT count(*) FROM devices", &[])
            .await?
            .get(0))
    }

    /// The devices `filter` matches, oldest first, as the driver's row
    /// stream: one statement, so one snapshot of the table, read as the
    /// store takes the items. The pooled connection goes back when the
    /// stream is dropped (if the call ended early, the driver discards the
    /// rows still on their way before the connection serves again).
    pub async fn devices(&self, filter: DeviceFilter) -> Result<ItemStream<Device>, ToolError> {
        let rows = async {
            let client = self.client().await?;
            let statement = client
                .prepare_cached(concat!(
                    "SELECT ",
                    device_columns!(),
                    " FROM devices",
                    device_filter!(),
                    " ORDER BY seq"
                ))
                .await?;
            let status = filter.status.map(DeviceStatus::as_str);
            let params: [&(dyn ToSql + Sync); 3] = [&filter.site_slug, &filter.role, &status];
            let rows = client.query_raw(&statement, params.iter().copied()).await?;
            Ok::<_, InventoryError>(DeviceRowStream {
                rows: Box::pin(rows),
                _client: client,
            })
        };
        Ok(ItemStream::new(rows.await.map_err(logged)?))
    }

    /// Inserts `devices` (of `of` in all) in transactions of
    /// [`SEED_BATCH`], and calls `inserted` with the count inserted so far
    /// after every commit; as [`crate::db::seed_devices`], a failing
    /// device rolls back its own batch only.
    pub async fn seed_devices(
        &self,
        devices: impl IntoIterator<Item = NewDevice>,
        of: usize,
        mut inserted: impl FnMut(usize),
    ) -> Result<usize, InventoryError> {
        /// Rows per statement: a statement's parameters are arrays, so its
        /// size is bound by memory, not by a parameter count.
        const ROWS: usize = 1_000;
        let mut devices = devices.into_iter().peekable();
        let mut client = self.client().await?;
        let mut done = 0;
        while devices.peek().is_some() {
            let tx = client.transaction().await?;
            let sites = site_slugs(&tx).await?;
            let statement = tx.prepare_cached(INSERT_DEVICES).await?;
            let now = now_rfc3339();
            let mut in_batch = 0;
            while in_batch < SEED_BATCH && devices.peek().is_some() {
                let chunk: Vec<NewDevice> = devices.by_ref().take(ROWS).collect();
                if let Some((index, error)) = chunk
                    .iter()
                    .enumerate()
                    .find_map(|(i, d)| check_device(d, &sites).err().map(|e| (i, e)))
                {
                    return Err(InventoryError::InBatch {
                        position: done + index + 1,
                        of,
                        name: chunk[index].name.clone(),
                        source: Box::new(error),
                    });
                }
                let ids: Vec<Uuid> = chunk.iter().map(|_| Uuid::now_v7()).collect();
                tx.execute(&statement, &Columns::of(&ids, &chunk).params(&now))
                    .await?;
                in_batch += chunk.len();
                done += chunk.len();
            }
            tx.commit().await?;
            inserted(done);
        }
        Ok(done)
    }
}

/// A device list's rows, read as they are polled, with the connection they
/// come on.
struct DeviceRowStream {
    rows: Pin<Box<RowStream>>,
    _client: Object,
}

impl Stream for DeviceRowStream {
    type Item = Result<Device, ToolError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let row = std::task::ready!(self.rows.as_mut().poll_next(cx));
        Poll::Ready(row.map(|row| {
            row.map_err(InventoryError::from)
                .and_then(|row| device_from_row(&row))
                .map_err(logged)
        }))
    }
}

/// A batch of devices as one array a column, the parameters of
/// [`INSERT_DEVICES`].
struct Columns<'a> {
    ids: &'a [Uuid],
    names: Vec<&'a str>,
    site_slugs: Vec<&'a str>,
    roles: Vec<&'a str>,
    device_types: Vec<&'a str>,
    platforms: Vec<Option<&'a str>>,
    serials: Vec<&'a str>,
    asset_tags: Vec<Option<&'a str>>,
    statuses: Vec<&'static str>,
    racks: Vec<Option<&'a str>>,
    positions: Vec<Option<i32>>,
    faces: Vec<Option<&'a str>>,
    airflows: Vec<Option<&'a str>>,
    comments: Vec<&'a str>,
    tags: Vec<Json<&'a Vec<String>>>,
    custom_fields: Vec<Json<&'a BTreeMap<String, Value>>>,
}

impl<'a> Columns<'a> {
    fn of(ids: &'a [Uuid], devices: &'a [NewDevice]) -> Columns<'a> {
        Columns {
            ids,
            names: devices.iter().map(|d| d.name.as_str()).collect(),
            site_slugs: devices.iter().map(|d| d.site_slug.as_str()).collect(),
            roles: devices.iter().map(|d| d.role.as_str()).collect(),
            device_types: devices.iter().map(|d| d.device_type.as_str()).collect(),
            platforms: devices.iter().map(|d| d.platform.as_deref()).collect(),
            serials: devices.iter().map(|d| d.serial.as_str()).collect(),
            asset_tags: devices.iter().map(|d| d.asset_tag.as_deref()).collect(),
            statuses: devices.iter().map(|d| d.status.as_str()).collect(),
            racks: devices.iter().map(|d| d.rack.as_deref()).collect(),
            positions: devices.iter().map(|d| d.position.map(i32::from)).collect(),
            faces: devices.iter().map(|d| d.face.as_deref()).collect(),
            airflows: devices.iter().map(|d| d.airflow.as_deref()).collect(),
            comments: devices.iter().map(|d| d.comments.as_str()).collect(),
            tags: devices.iter().map(|d| Json(&d.tags)).collect(),
            custom_fields: devices.iter().map(|d| Json(&d.custom_fields)).collect(),
        }
    }

    fn params<'p>(&'p self, now: &'p String) -> [&'p (dyn ToSql + Sync); 17] {
        [
            &self.ids,
            &self.names,
            &self.site_slugs,
            &self.roles,
            &self.device_types,
            &self.platforms,
            &self.serials,
            &self.asset_tags,
            &self.statuses,
            &self.racks,
            &self.positions,
            &self.faces,
            &self.airflows,
            &self.comments,
            &self.tags,
            &self.custom_fields,
            now,
        ]
    }
}

async fn write_device(
    tx: &impl GenericClient,
    id: Uuid,
    device: NewDevice,
    created: String,
) -> Result<Device, InventoryError> {
    check_device(&device, &site_slugs(tx).await?)?;
    let now = now_rfc3339();
    let update = tx.prepare_cached(UPDATE_DEVICE).await?;
    tx.execute(
        &update,
        &[
            &id,
            &device.name,
            &device.site_slug,
            &device.role,
            &device.device_type,
            &device.platform,
            &device.serial,
            &device.asset_tag,
            &device.status.as_str(),
            &device.rack,
            &device.position.map(i32::from),
            &device.face,
            &device.airflow,
            &device.comments,
            &Json(&device.tags),
            &Json(&device.custom_fields),
            &now,
        ],
    )
    .await
    .map_err(|error| unique_device_error(error, &device))?;
    Ok(device.into_device(id, created, now))
}

/// Whether [`device_by_id`] locks the row it reads until the transaction
/// ends.
#[derive(Clone, Copy)]
enum Lock {
    No,
    ForUpdate,
}

async fn device_by_id(
    client: &impl GenericClient,
    id: Uuid,
    lock: Lock,
) -> Result<Device, InventoryError> {
    let sql = match lock {
        Lock::No => concat!("SELECT ", device_columns!(), " FROM devices WHERE id = $1"),
        Lock::ForUpdate => concat!(
            "SELECT ",
            device_columns!(),
            " FROM devices WHERE id = $1 FOR UPDATE"
        ),
    };
    let statement = client.prepare_cached(sql).await?;
    let row = client
        .query_opt(&statement, &[&id])
        .await?
        .ok_or(InventoryError::NoDevice(id))?;
    device_from_row(&row)
}

async fn site_by_id(client: &impl GenericClient, id: i64) -> Result<Site, InventoryError> {
    let statement = client
        .prepare_cached(concat!(
            "SELECT ",
            site_columns!(),
            " FROM sites WHERE id = $1"
        ))
        .await?;
    let row = client
        .query_opt(&statement, &[&id])
        .await?
        .ok_or(InventoryError::NoSite(id))?;
    site_from_row(&row)
}

async fn site_slugs(client: &impl GenericClient) -> Result<HashSet<String>, InventoryError> {
    let statement = client.prepare_cached("SELECT slug FROM sites").await?;
    Ok(client
        .query(&statement, &[])
        .await?
        .iter()
        .map(|row| row.get(0))
        .collect())
}

/// Column `index` of `row`, or the record's damage named by its column.
fn column<'r, T: tokio_postgres::types::FromSql<'r>>(
    row: &'r Row,
    index: usize,
    name: &'static str,
) -> Result<T, InventoryError> {
    row.try_get(index).map_err(|error| {
        InventoryError::Postgres(PgError::Unreadable {
            column: name,
            source: Box::new(error),
        })
    })
}

fn device_from_row(row: &Row) -> Result<Device, InventoryError> {
    let id: Uuid = column(row, 0, "id")?;
    let status: &str = column(row, 8, "status")?;
    let position: Option<i32> = column(row, 10, "position")?;
    let position = position.map(u16::try_from).transpose().map_err(|error| {
        InventoryError::Postgres(PgError::Unreadable {
            column: "position",
            source: Box::new(error),
        })
    })?;
    let Json(tags) = column(row, 14, "tags")?;
    let Json(custom_fields) = column(row, 15, "custom_fields")?;
    Ok(Device {
        id,
        url: crate::model::device_url(id),
        name: column(row, 1, "name")?,
        site_slug: column(row, 2, "site_slug")?,
        role: column(row, 3, "role")?,
        device_type: column(row, 4, "device_type")?,
        platform: column(row, 5, "platform")?,
        serial: column(row, 6, "serial")?,
        asset_tag: column(row, 7, "asset_tag")?,
        status: DeviceStatus::parse(status).unwrap_or_default(),
        rack: column(row, 9, "rack")?,
        position,
        face: column(row, 11, "face")?,
        airflow: column(row, 12, "airflow")?,
        comments: column(row, 13, "comments")?,
        tags,
        custom_fields,
        created: column(row, 16, "created")?,
        last_updated: column(row, 17, "last_updated")?,
    })
}

fn site_from_row(row: &Row) -> Result<Site, InventoryError> {
    let id: i64 = column(row, 0, "id")?;
    let status: &str = column(row, 3, "status")?;
    Ok(Site {
        id,
        url: format!("/api/dcim/sites/{id}/"),
        name: column(row, 1, "name")?,
        slug: column(row, 2, "slug")?,
        status: SiteStatus::parse(status).unwrap_or_default(),
        region: column(row, 4, "region")?,
        facility: column(row, 5, "facility")?,
        time_zone: column(row, 6, "time_zone")?,
        physical_address: column(row, 7, "physical_address")?,
        description: column(row, 8, "description")?,
        created: column(row, 9, "created")?,
        device_count: column(row, 10, "device_count")?,
    })
}

/// Whether `error` is the database refusing a device: a duplicate name or
/// asset tag, or a site that does not exist.
fn refused(error: &tokio_postgres::Error) -> bool {
    unique_violation(error).is_some() || error.code() == Some(&SqlState::FOREIGN_KEY_VIOLATION)
}

/// The constraint a unique violation broke, if `error` is one.
fn unique_violation(error: &tokio_postgres::Error) -> Option<&str> {
    let db = error.as_db_error()?;
    (*db.code() == SqlState::UNIQUE_VIOLATION)
        .then(|| db.constraint())
        .flatten()
}

fn unique_device_error(error: tokio_postgres::Error, device: &NewDevice) -> InventoryError {
    match unique_violation(&error) {
        Some("devices_asset_tag_key") => {
            InventoryError::DuplicateAssetTag(device.asset_tag.clone().unwrap_or_default())
        }
        Some("devices_site_name_key") => InventoryError::DuplicateName {
            site: device.site_slug.clone(),
            name: device.name.clone(),
        },
        _ => error.into(),
    }
}

/// `url` with its password, if any, replaced by `***`, for messages.
fn without_password(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let Some((credentials, host)) = rest.split_once('@') else {
        return url.to_owned();
    };
    match credentials.split_once(':') {
        Some((user, _)) => format!("{scheme}://{user}:***@{host}"),
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::without_password;

    #[test]
    fn a_password_never_reaches_a_message() {
        assert_eq!(
            without_password("postgres://app:s3cret@db:5432/inv"),
            "postgres://app:***@db:5432/inv"
        );
        assert_eq!(
            without_password("postgres://app@db/inv"),
            "postgres://app@db/inv"
        );
    }
}
