//! The inventory's SQLite database: schema, queries and transactions.
//!
//! Every write runs in one transaction. A failure anywhere — an unknown
//! site, a name already taken at a site, a duplicate asset tag, a bad field —
//! drops the transaction, which rolls back, so the database is exactly as it
//! was and the caller gets an [`InventoryError`] that says what to fix.
//!
//! # One writer, several readers
//!
//! A file database runs in SQLite's write-ahead log (WAL) mode, with one
//! writer connection and [`READERS`] read-only connections. Every write
//! (each create, update and delete, and seeding) goes to the writer, behind
//! a mutex: SQLite lets one transaction write at a time anyway, and writes
//! queue in the process instead of retrying on a busy database. Every read
//! takes whichever reader is free. A WAL reader reads the database as it
//! was at the last commit before its read began, so a read never waits on a
//! write's transaction or on its sync to the disk, and a read that begins
//! after a write committed sees that write.
//!
//! An in-memory database ([`Db::open`] with `None`) lives inside its one
//! connection, so that connection serves the reads as well as the writes:
//! there, a read waits for a write's transaction to end, and a write for a
//! read.
//!
//! rusqlite is synchronous. [`Db::run`] (a write) and [`Db::read`] hand
//! each piece of work to `tokio::task::spawn_blocking`: a write to a file
//! database may wait on the disk, and a large read takes a while; those
//! waits belong on the blocking pool, not on a runtime worker that is also
//! serving other sessions' requests. A connection is taken and given back
//! inside the blocking closure, so it is never held across an `.await`.
//!
//! # What a commit survives
//!
//! On a disk that keeps what it says it synced, the database file is never
//! corrupted, whichever [`Synchronous`] level it was opened with: after any
//! crash it opens as it was at a commit. What differs is which commit.
//!
//! - [`Synchronous::Normal`] (the default; `--db-sync normal`): a commit
//!   writes the transaction to the WAL and returns without waiting for the
//!   disk; the WAL is synced at each checkpoint, which a thread of its own
//!   runs once the WAL holds [`crate::checkpoint::CHECKPOINT_PAGES`] (16 MiB;
//!   [`crate::checkpoint`] says why not in the commit). A crash of the inventory process loses
//!   nothing that was committed, since the operating system holds the
//!   writes. A power cut or a crash of the operating system can roll back
//!   the transactions committed since the WAL was last synced: writes that
//!   were answered as done may be missing after the restart, and the
//!   database opens as it was at an earlier commit.
//! - [`Synchronous::Full`] (`--db-sync full`): every commit waits until the
//!   WAL is synced, so a write answered as done survives a power cut too,
//!   at the price of one disk sync per write.

use std::collections::HashSet;
use std::ops::{ControlFlow, Deref};
use std::path::Path;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use mcp_light::ToolError;
use rusqlite::{
    Connection, ErrorCode, OpenFlags, OptionalExtension, Row, Transaction, TransactionBehavior,
    params,
};
use uuid::Uuid;

use crate::checkpoint::Checkpointer;
use crate::model::{
    DEVICE_NAME_MAX, Device, DevicePatch, DeviceStatus, NewDevice, NewSite, SITE_NAME_MAX, Site,
    SiteStatus, device_url,
};

const SCHEMA: &str = "
PRAGMA foreign_keys = ON;
CREATE TABLE IF NOT EXISTS sites (
    id               INTEGER PRIMARY KEY,
    slug             TEXT NOT NULL UNIQUE,
    name             TEXT NOT NULL UNIQUE,
    status           TEXT NOT NULL,
    region           TEXT,
    facility         TEXT,
    time_zone        TEXT,
    physical_address TEXT NOT NULL,
    description      TEXT NOT NULL,
    created          TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS devices (
    seq           INTEGER PRIMARY KEY, -- insertion order, so lists are stable
    id            TEXT NOT NULL UNIQUE,
    name          TEXT NOT NULL,
    site_slug     TEXT NOT NULL REFERENCES sites (slug),
    role          TEXT NOT NULL,
    device_type   TEXT NOT NULL,
    platform      TEXT,
    serial        TEXT NOT NULL,
    asset_tag     TEXT UNIQUE,
    status        TEXT NOT NULL,
    rack          TEXT,
    position      INTEGER,
    face          TEXT,
    airflow       TEXT,
    comments      TEXT NOT NULL,
    tags          TEXT NOT NULL, -- JSON array
    custom_fields TEXT NOT NULL, -- JSON object
    created       TEXT NOT NULL,
    last_updated  TEXT NOT NULL,
    UNIQUE (site_slug, name)
);
CREATE INDEX IF NOT EXISTS devices_role ON devices (role);
";

/// The columns of a device, in the order `device_from_row` reads them: a
/// macro, so each statement is one string `concat!` builds at compile time
/// and a hot path formats no SQL to find its prepared statement.
macro_rules! device_columns {
    () => {
        "id, name, site_slug, role, device_type, platform, serial, asset_tag, \
         status, rack, position, face, airflow, comments, tags, custom_fields, created, last_updated"
    };
}

/// The columns of a site, in the order `site_from_row` reads them.
macro_rules! site_columns {
    () => {
        "id, name, slug, status, region, facility, time_zone, physical_address, \
         description, created, (SELECT count(*) FROM devices d WHERE d.site_slug = sites.slug)"
    };
}

// Both databases read the same columns in the same order.
#[cfg(feature = "postgres")]
pub(crate) use {device_columns, site_columns};

/// Why a query or a write was refused. Each message names the field and the
/// fix, and says that nothing was written.
#[derive(Debug, thiserror::Error)]
pub enum InventoryError {
    /// A device names a site that does not exist.
    #[error("unknown site `{slug}`; existing sites: {known}. Create it with site_create first")]
    UnknownSite {
        /// The slug asked for.
        slug: String,
        /// The slugs that exist, comma-separated.
        known: String,
    },
    /// Another device at the site already has this name.
    #[error("site `{site}` already has a device named `{name}`; names are unique per site")]
    DuplicateName {
        /// The site.
        site: String,
        /// The name.
        name: String,
    },
    /// Another device already has this asset tag.
    #[error("asset tag `{0}` is already used by another device; asset tags are unique")]
    DuplicateAssetTag(String),
    /// A site with this slug or name exists.
    #[error("a site with slug `{slug}` or name `{name}` already exists")]
    DuplicateSite {
        /// The slug.
        slug: String,
        /// The name.
        name: String,
    },
    /// The call stopped waiting for a bulk write (it was cancelled, or ran
    /// past its deadline): the transaction was rolled back.
    #[error(
        "the write was abandoned (its call was cancelled or ran past its deadline) and rolled \
         back: nothing was written"
    )]
    Abandoned,
    /// No device has this id.
    #[error("no device with id `{0}`; device_list finds ids")]
    NoDevice(Uuid),
    /// No site has this id.
    #[error("no site with id {0}; site_list shows the sites")]
    NoSite(i64),
    /// A field's value is not allowed.
    #[error("`{field}` {reason}")]
    Invalid {
        /// The field.
        field: &'static str,
        /// What is wrong, as the end of a sentence.
        reason: String,
    },
    /// One device of a bulk write failed; the whole batch was rolled back.
    #[error("device {position} of {of} in the batch (`{name}`): {source}. Nothing was written")]
    InBatch {
        /// Position in the batch, from 1.
        position: usize,
        /// How many devices the batch has.
        of: usize,
        /// The device's name.
        name: String,
        /// Why it failed.
        source: Box<InventoryError>,
    },
    /// SQLite itself failed. The caller reads what to do about it, never
    /// SQLite's own words; [`Db::run`] logs those.
    #[error("{}", for_caller(.0))]
    Sqlite(#[from] rusqlite::Error),
    /// PostgreSQL failed (the `postgres` feature); as for SQLite, the
    /// caller reads what to do, the server's log the database's words.
    #[cfg(feature = "postgres")]
    #[error("{}", .0.for_caller())]
    Postgres(crate::postgres::PgError),
}

/// What a caller can do about a database failure, in a sentence: retry a
/// busy database; a record stored damaged, or any other failure, is the
/// server's fault, and its detail stays in the server's log.
fn for_caller(error: &rusqlite::Error) -> &'static str {
    use rusqlite::Error as E;
    match error {
        E::SqliteFailure(failure, _)
            if matches!(
                failure.code,
                ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked
            ) =>
        {
            "the database is busy with another write; nothing was written, try again in a moment"
        }
        E::FromSqlConversionFailure(..)
        | E::InvalidColumnType(..)
        | E::IntegralValueOutOfRange(..)
        | E::Utf8Error(..) => {
            "a stored record could not be read: the fault is the server's, not the request's \
             (logged); other records still can be"
        }
        _ => "the database failed on the server's side (logged); nothing was written",
    }
}

impl InventoryError {
    /// The refusal of `site`, whose slug or name another site holds: what
    /// either database's unique constraint on sites comes to.
    pub(crate) fn duplicate_site(site: &NewSite) -> InventoryError {
        InventoryError::DuplicateSite {
            slug: site.slug.clone(),
            name: site.name.clone(),
        }
    }

    /// SQLite's own account of a database failure, for the log; `None` for
    /// a refusal of the request.
    pub fn database_detail(&self) -> Option<String> {
        match self {
            InventoryError::Sqlite(error) => Some(error.to_string()),
            #[cfg(feature = "postgres")]
            InventoryError::Postgres(error) => Some(error.with_causes()),
            InventoryError::InBatch { source, .. } => source.database_detail(),
            _ => None,
        }
    }
}

/// How many read-only connections a file database keeps beside its writer.
///
/// Four reads run at once, each on a thread of tokio's blocking pool; a
/// fifth waits for one of them to finish. A small server has no more cores
/// than that to run them on, and `device_list` takes a reader for one page
/// at a time, so a long listing leaves the others free between its pages.
/// An idle reader costs a file handle and its page cache.
pub const READERS: usize = 4;

/// How long a connection waits for a lock another process holds on the
/// database file before its statement fails as busy, and the caller is
/// told to try again.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// When a commit to a file database waits for the disk: SQLite's
/// `synchronous` setting, in WAL mode. The module documentation says what a
/// power cut can take back under each.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Synchronous {
    /// The WAL is synced at each checkpoint, not at each commit: a power cut
    /// can roll back the last transactions committed before it.
    #[default]
    Normal,
    /// Every commit waits until the WAL is synced: a commit survives a power
    /// cut, and each write waits on the disk.
    Full,
}

impl Synchronous {
    /// The value as `PRAGMA synchronous` and `--db-sync` spell it:
    /// `normal` or `full`.
    pub fn as_str(self) -> &'static str {
        match self {
            Synchronous::Normal => "normal",
            Synchronous::Full => "full",
        }
    }
}

/// Why [`Db::open`] could not open the database.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// SQLite could not open the file, set it up or create the tables; its
    /// message says why.
    #[error(transparent)]
    Sqlite(#[from] rusqlite::Error),
    /// SQLite kept another journal mode when asked for WAL.
    #[error(
        "SQLite answered journal mode `{mode}` when asked for WAL; the inventory needs WAL to \
         read beside a write. WAL needs a local disk (not a network file system) and a \
         database file, not `:memory:`"
    )]
    NotWal {
        /// The journal mode SQLite answered, such as `delete` or `memory`.
        mode: String,
    },
    /// The thread that checkpoints the WAL could not start.
    #[error("cannot start the WAL checkpoint thread: {0}")]
    Checkpointer(#[from] std::io::Error),
}

/// The inventory database, cheap to clone (every clone shares the
/// connections): for a file, one writer and [`READERS`] readers in WAL
/// mode; in memory, one connection for everything.
#[derive(Clone)]
pub struct Db {
    inner: Arc<Connections>,
}

/// The connections of a [`Db`]. The readers are declared first so they
/// close first: the writer, closing last, checkpoints the WAL into the
/// database file and removes it.
struct Connections {
    /// Held for its `Drop`, which stops the thread first, before the
    /// connections close. `None` in memory.
    _checkpointer: Option<Checkpointer>,
    /// Whether a commit returns without waiting for the disk (in memory,
    /// or [`Synchronous::Normal`]): then a short write may run on the
    /// calling thread ([`Db::run_short`]).
    commits_without_sync: bool,
    /// `None` for an in-memory database, whose reads go to the writer.
    readers: Option<Readers>,
    writer: Mutex<Connection>,
}

/// The idle read-only connections, and a signal for a read waiting for one.
struct Readers {
    idle: Mutex<Vec<Connection>>,
    returned: Condvar,
}

impl Readers {
    /// Waits for an idle reader and takes it; it goes back when the guard
    /// drops, even while unwinding from a panic.
    fn take(&self) -> Reader<'_> {
        let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(conn) = idle.pop() {
                return Reader {
                    readers: self,
                    conn: Some(conn),
                };
            }
            idle = self
                .returned
                .wait(idle)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// A reader taken from [`Readers`], given back on drop.
struct Reader<'a> {
    readers: &'a Readers,
    conn: Option<Connection>,
}

impl Deref for Reader<'_> {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        self.conn
            .as_ref()
            .expect("a reader holds its connection until dropped")
    }
}

impl Drop for Reader<'_> {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            let mut idle = self
                .readers
                .idle
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            idle.push(conn);
            self.readers.returned.notify_one();
        }
    }
}

/// A connection a read runs on: a reader, or the writer's lock for an
/// in-memory database.
enum ReadConnection<'a> {
    Reader(Reader<'a>),
    Writer(MutexGuard<'a, Connection>),
}

impl Deref for ReadConnection<'_> {
    type Target = Connection;

    fn deref(&self) -> &Connection {
        match self {
            ReadConnection::Reader(reader) => reader,
            ReadConnection::Writer(writer) => writer,
        }
    }
}

impl Db {
    /// Opens the database at `path`, or an in-memory one for `None`, and
    /// creates the tables if they are missing; a file database's commits
    /// are synced as [`Synchronous::Normal`] says ([`Db::open_with`]
    /// chooses).
    pub fn open(path: Option<&Path>) -> Result<Db, OpenError> {
        Db::open_with(path, Synchronous::default())
    }

    /// Opens the database at `path`, or an in-memory one for `None`, and
    /// creates the tables if they are missing.
    ///
    /// A file is switched to WAL mode (it stays in WAL mode, for every
    /// program that opens it later) and its commits are synced as
    /// `synchronous` says; then [`READERS`] read-only connections are
    /// opened beside the writer. A file that SQLite keeps out of WAL mode is
    /// refused with [`OpenError::NotWal`]. An in-memory database ignores
    /// `synchronous`: it has no disk to sync.
    pub fn open_with(path: Option<&Path>, synchronous: Synchronous) -> Result<Db, OpenError> {
        let Some(path) = path else {
            let conn = Connection::open_in_memory()?;
            conn.execute_batch(SCHEMA)?;
            return Ok(Db::from_parts(conn, None, None, true));
        };
        let mut writer = Connection::open(path)?;
        // Another process (a second server, a `--seed` run) may hold the
        // file's lock for a moment; wait instead of failing at once.
        writer.busy_timeout(BUSY_TIMEOUT)?;
        let mode: String =
            writer.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(OpenError::NotWal { mode });
        }
        writer.pragma_update(None, "synchronous", synchronous.as_str())?;
        // Checkpoints run on a thread of their own, not in a commit
        // (`checkpoint`); the hook replaces SQLite's automatic ones.
        let checkpoint_conn = Connection::open(path)?;
        checkpoint_conn.busy_timeout(BUSY_TIMEOUT)?;
        let checkpointer = Checkpointer::start(checkpoint_conn)?;
        let waker = checkpointer.waker();
        writer.wal_hook(Some(move |_: &mut rusqlite::hooks::Wal, pages| {
            waker.committed(pages);
            Ok(())
        }))?;
        // A write transaction takes the write lock when it begins, so a
        // lock held by another process is waited for under the busy
        // timeout, never found half-way through the transaction.
        writer.set_transaction_behavior(TransactionBehavior::Immediate);
        writer.execute_batch(SCHEMA)?;
        let readers = (0..READERS)
            .map(|_| {
                let reader = Connection::open_with_flags(
                    path,
                    OpenFlags::SQLITE_OPEN_READ_ONLY
                        | OpenFlags::SQLITE_OPEN_URI
                        | OpenFlags::SQLITE_OPEN_NO_MUTEX,
                )?;
                reader.busy_timeout(BUSY_TIMEOUT)?;
                // What `PRAGMA synchronous` reads back is the same on
                // every connection, though a reader never syncs.
                reader.pragma_update(None, "synchronous", synchronous.as_str())?;
                Ok(reader)
            })
            .collect::<Result<Vec<_>, rusqlite::Error>>()?;
        Ok(Db::from_parts(
            writer,
            Some(Readers {
                idle: Mutex::new(readers),
                returned: Condvar::new(),
            }),
            Some(checkpointer),
            synchronous == Synchronous::Normal,
        ))
    }

    fn from_parts(
        writer: Connection,
        readers: Option<Readers>,
        checkpointer: Option<Checkpointer>,
        commits_without_sync: bool,
    ) -> Db {
        Db {
            inner: Arc::new(Connections {
                _checkpointer: checkpointer,
                commits_without_sync,
                readers,
                writer: Mutex::new(writer),
            }),
        }
    }

    /// Runs the write `work` on the writer connection, on tokio's blocking
    /// pool; writes run one at a time, in the order they take the lock.
    ///
    /// A panic inside `work` rolls its transaction back (the transaction is
    /// dropped while unwinding) and comes back as an error, so recovering the
    /// lock from poisoning is safe.
    pub async fn run<T, F>(&self, work: F) -> Result<T, ToolError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, InventoryError> + Send + 'static,
    {
        let db = self.clone();
        let result = tokio::task::spawn_blocking(move || work(&mut db.writer()));
        for_caller_of(result.await)
    }

    /// Runs the write `work`, a short one (a few rows), as [`Db::run`] does,
    /// or on this thread when it will not wait: when the writer is free
    /// and a commit returns without a disk sync (in memory, or
    /// [`Synchronous::Normal`], whose checkpoints run on a thread of their
    /// own: [`crate::checkpoint`]). Such a write is a few dozen
    /// microseconds of work, less than handing it to the blocking pool and
    /// back costs in thread wake-ups.
    pub async fn run_short<T, F>(&self, work: F) -> Result<T, ToolError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T, InventoryError> + Send + 'static,
    {
        if self.inner.commits_without_sync {
            let free = match self.inner.writer.try_lock() {
                Ok(writer) => Some(writer),
                Err(std::sync::TryLockError::Poisoned(poisoned)) => Some(poisoned.into_inner()),
                Err(std::sync::TryLockError::WouldBlock) => None,
            };
            if let Some(mut writer) = free {
                return work(&mut writer).map_err(logged);
            }
        }
        self.run(work).await
    }

    /// Runs the read `work` on a read-only connection, on tokio's blocking
    /// pool: it sees every write committed before it began, and never waits
    /// for a write in progress (on an in-memory database it runs on the one
    /// connection, after the write). Errors come back as [`Db::run`]'s do.
    ///
    /// `work` only reads: a file database's readers refuse to write.
    /// Several statements in `work` each read the database as it is when
    /// they start; `work` runs them in one transaction
    /// (`Connection::unchecked_transaction`) if they must agree.
    pub async fn read<T, F>(&self, work: F) -> Result<T, ToolError>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> Result<T, InventoryError> + Send + 'static,
    {
        let db = self.clone();
        let result = tokio::task::spawn_blocking(move || work(&db.reader()));
        for_caller_of(result.await)
    }

    /// [`Db::read`] on this thread, which must be one of tokio's blocking
    /// pool (or any thread but an async worker): for a producer that
    /// [`mcp_light::ItemStream::blocking`] already runs there, such as
    /// [`DeviceRows`]. Errors come back as [`Db::run`]'s do, database
    /// details logged.
    pub fn read_blocking<T>(
        &self,
        work: impl FnOnce(&Connection) -> Result<T, InventoryError>,
    ) -> Result<T, ToolError> {
        work(&self.reader()).map_err(logged)
    }

    /// Runs `work` on the writer connection on this thread, for setup
    /// before serving, such as seeding, and for tests.
    pub fn run_now<T>(
        &self,
        work: impl FnOnce(&mut Connection) -> Result<T, InventoryError>,
    ) -> Result<T, InventoryError> {
        work(&mut self.writer())
    }

    /// The writer, locked. A panic in a write rolled its transaction back,
    /// so the connection behind a poisoned lock is sound.
    fn writer(&self) -> MutexGuard<'_, Connection> {
        self.inner
            .writer
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// A connection to read on: an idle reader, or for an in-memory
    /// database the writer.
    fn reader(&self) -> ReadConnection<'_> {
        match &self.inner.readers {
            Some(readers) => ReadConnection::Reader(readers.take()),
            None => ReadConnection::Writer(self.writer()),
        }
    }
}

/// What [`Db::run`] and [`Db::read`] answer for the result of their
/// blocking task: a panic is the server's fault; a database failure is
/// logged and told as [`InventoryError`] tells it.
fn for_caller_of<T>(
    result: Result<Result<T, InventoryError>, tokio::task::JoinError>,
) -> Result<T, ToolError> {
    let result = result.map_err(|error| {
        eprintln!("inventory: database work failed: {error}");
        ToolError::new(
            "the database work failed on the server's side (logged); nothing was written, \
             try again",
        )
    })?;
    result.map_err(logged)
}

/// `error` for the caller, SQLite's own words in the server's log.
pub(crate) fn logged(error: InventoryError) -> ToolError {
    if let Some(detail) = error.database_detail() {
        eprintln!("inventory: database error: {detail}");
    }
    ToolError::from(error)
}

/// Which devices a list returns; `None` matches everything.
#[derive(Debug, Clone, Default)]
pub struct DeviceFilter {
    /// Only devices at this site.
    pub site_slug: Option<String>,
    /// Only devices with this role.
    pub role: Option<String>,
    /// Only devices in this state.
    pub status: Option<DeviceStatus>,
}

// ----- sites -----------------------------------------------------------------

/// Creates one site.
pub fn create_site(conn: &mut Connection, site: NewSite) -> Result<Site, InventoryError> {
    check_site(&site)?;
    let tx = conn.transaction()?;
    let mut insert = tx.prepare_cached(
        "INSERT INTO sites (slug, name, status, region, facility, time_zone, physical_address, \
         description, created) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?;
    insert
        .execute(params![
            site.slug,
            site.name,
            site.status.as_str(),
            site.region,
            site.facility,
            site.time_zone,
            site.physical_address,
            site.description,
            now_rfc3339(),
        ])
        .map_err(|error| {
            if is_unique_violation(&error, "sites.") {
                InventoryError::duplicate_site(&site)
            } else {
                error.into()
            }
        })?;
    drop(insert);
    let id = tx.last_insert_rowid();
    let created = site_by_id(&tx, id)?;
    tx.commit()?;
    Ok(created)
}

/// Creates sites that do not exist yet (matched by slug); for seeding.
pub fn ensure_sites(conn: &mut Connection, sites: Vec<NewSite>) -> Result<(), InventoryError> {
    for site in sites {
        let exists: bool = conn
            .prepare_cached("SELECT EXISTS (SELECT 1 FROM sites WHERE slug = ?1)")?
            .query_row([&site.slug], |row| row.get(0))?;
        if !exists {
            create_site(conn, site)?;
        }
    }
    Ok(())
}

/// The site with this id.
pub fn get_site(conn: &Connection, id: i64) -> Result<Site, InventoryError> {
    site_by_id(conn, id)
}

/// Every site, by slug.
pub fn list_sites(conn: &Connection) -> Result<Vec<Site>, InventoryError> {
    let mut statement = conn.prepare_cached(concat!(
        "SELECT ",
        site_columns!(),
        " FROM sites ORDER BY slug"
    ))?;
    let sites = statement
        .query_map([], site_from_row)?
        .collect::<Result<_, _>>()?;
    Ok(sites)
}

fn site_by_id(conn: &Connection, id: i64) -> Result<Site, InventoryError> {
    conn.prepare_cached(concat!(
        "SELECT ",
        site_columns!(),
        " FROM sites WHERE id = ?1"
    ))?
    .query_row([id], site_from_row)
    .optional()?
    .ok_or(InventoryError::NoSite(id))
}

fn site_from_row(row: &Row<'_>) -> rusqlite::Result<Site> {
    let id: i64 = row.get(0)?;
    Ok(Site {
        id,
        url: format!("/api/dcim/sites/{id}/"),
        name: row.get(1)?,
        slug: row.get(2)?,
        status: SiteStatus::parse(&row.get::<_, String>(3)?).unwrap_or_default(),
        region: row.get(4)?,
        facility: row.get(5)?,
        time_zone: row.get(6)?,
        physical_address: row.get(7)?,
        description: row.get(8)?,
        created: row.get(9)?,
        device_count: row.get(10)?,
    })
}

pub(crate) fn check_site(site: &NewSite) -> Result<(), InventoryError> {
    let slug_ok = !site.slug.is_empty()
        && site
            .slug
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_');
    if !slug_ok {
        return Err(invalid(
            "slug",
            format!(
                "must be lowercase letters, digits, `-` or `_`; got {:?}",
                site.slug
            ),
        ));
    }
    if site.name.trim().is_empty() {
        return Err(invalid("name", "must not be empty".into()));
    }
    check_length("slug", &site.slug, SITE_NAME_MAX)?;
    check_length("name", &site.name, SITE_NAME_MAX)?;
    Ok(())
}

// ----- devices ---------------------------------------------------------------

/// How many devices a bulk create inserts between two progress reports.
pub const PROGRESS_CHUNK: usize = 50;

/// Creates `devices` in one transaction: all of them, or none.
///
/// A single create passes one device and gets its error unwrapped; a bulk
/// create's error names the failing device's position in the batch.
pub fn create_devices(
    conn: &mut Connection,
    devices: Vec<NewDevice>,
) -> Result<Vec<Device>, InventoryError> {
    create_devices_reporting(conn, devices, |_| true)
}

/// [`create_devices`], calling `inserted` with the count inserted so far
/// after every [`PROGRESS_CHUNK`] devices and after the last one (before the
/// commit); when it answers `false` the transaction is rolled back and the
/// write fails with [`InventoryError::Abandoned`].
pub fn create_devices_reporting(
    conn: &mut Connection,
    devices: Vec<NewDevice>,
    mut inserted: impl FnMut(usize) -> bool,
) -> Result<Vec<Device>, InventoryError> {
    let single = devices.len() == 1;
    let of = devices.len();
    let tx = conn.transaction()?;
    let sites = site_slugs(&tx)?;
    let now = now_rfc3339();
    let mut created = Vec::with_capacity(devices.len());
    for (index, device) in devices.into_iter().enumerate() {
        let name = device.name.clone();
        match insert_device(&tx, &sites, device, &now) {
            Ok(device) => {
                created.push(device);
                let chunk_done = created.len() % PROGRESS_CHUNK == 0 || created.len() == of;
                // The last report comes before the commit: a write abandoned
                // up to then is rolled back whole.
                if chunk_done && !inserted(created.len()) {
                    return Err(InventoryError::Abandoned);
                }
            }
            Err(error) if single => return Err(error),
            Err(error) => {
                return Err(InventoryError::InBatch {
                    position: index + 1,
                    of,
                    name,
                    source: Box::new(error),
                });
            }
        }
    }
    tx.commit()?;
    Ok(created)
}

fn insert_device(
    tx: &Transaction<'_>,
    sites: &HashSet<String>,
    device: NewDevice,
    now: &str,
) -> Result<Device, InventoryError> {
    check_device(&device, sites)?;
    // Version 7: time-ordered, so the `id` index grows at its end instead
    // of taking each new device at a random leaf.
    let id = Uuid::now_v7();
    let mut insert = tx.prepare_cached(concat!(
        "INSERT INTO devices (",
        device_columns!(),
        ") VALUES \
         (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18)"
    ))?;
    insert
        .execute(params![
            id.to_string(),
            device.name,
            device.site_slug,
            device.role,
            device.device_type,
            device.platform,
            device.serial,
            device.asset_tag,
            device.status.as_str(),
            device.rack,
            device.position,
            device.face,
            device.airflow,
            device.comments,
            serde_json::to_string(&device.tags).expect("strings serialize"),
            serde_json::to_string(&device.custom_fields).expect("JSON values serialize"),
            now,
            now,
        ])
        .map_err(|error| unique_device_error(error, &device))?;
    Ok(device.into_device(id, now.to_owned(), now.to_owned()))
}

/// The device with this id.
pub fn get_device(conn: &Connection, id: Uuid) -> Result<Device, InventoryError> {
    device_by_id(conn, id)
}

/// Replaces every writable field of a device (PUT).
pub fn replace_device(
    conn: &mut Connection,
    id: Uuid,
    device: NewDevice,
) -> Result<Device, InventoryError> {
    let tx = conn.transaction()?;
    let updated = write_device(&tx, id, device)?;
    tx.commit()?;
    Ok(updated)
}

/// Changes the fields `patch` carries (PATCH).
pub fn patch_device(
    conn: &mut Connection,
    id: Uuid,
    patch: DevicePatch,
) -> Result<Device, InventoryError> {
    let tx = conn.transaction()?;
    let current = device_by_id(&tx, id)?;
    let updated = write_device(&tx, id, apply(current, patch))?;
    tx.commit()?;
    Ok(updated)
}

fn write_device(
    tx: &Transaction<'_>,
    id: Uuid,
    device: NewDevice,
) -> Result<Device, InventoryError> {
    let created: String = tx
        .prepare_cached("SELECT created FROM devices WHERE id = ?1")?
        .query_row([id.to_string()], |row| row.get(0))
        .optional()?
        .ok_or(InventoryError::NoDevice(id))?;
    check_device(&device, &site_slugs(tx)?)?;
    let now = now_rfc3339();
    let mut update = tx.prepare_cached(
        "UPDATE devices SET name = ?2, site_slug = ?3, role = ?4, device_type = ?5, \
         platform = ?6, serial = ?7, asset_tag = ?8, status = ?9, rack = ?10, position = ?11, \
         face = ?12, airflow = ?13, comments = ?14, tags = ?15, custom_fields = ?16, \
         last_updated = ?17 WHERE id = ?1",
    )?;
    update
        .execute(params![
            id.to_string(),
            device.name,
            device.site_slug,
            device.role,
            device.device_type,
            device.platform,
            device.serial,
            device.asset_tag,
            device.status.as_str(),
            device.rack,
            device.position,
            device.face,
            device.airflow,
            device.comments,
            serde_json::to_string(&device.tags).expect("strings serialize"),
            serde_json::to_string(&device.custom_fields).expect("JSON values serialize"),
            now,
        ])
        .map_err(|error| unique_device_error(error, &device))?;
    Ok(device.into_device(id, created, now))
}

/// Deletes a device.
pub fn delete_device(conn: &mut Connection, id: Uuid) -> Result<(), InventoryError> {
    let deleted = conn
        .prepare_cached("DELETE FROM devices WHERE id = ?1")?
        .execute([id.to_string()])?;
    if deleted == 0 {
        return Err(InventoryError::NoDevice(id));
    }
    Ok(())
}

/// The devices `filter` matches, oldest first.
pub fn list_devices(
    conn: &Connection,
    filter: &DeviceFilter,
) -> Result<Vec<Device>, InventoryError> {
    let mut devices = Vec::new();
    let _: ControlFlow<()> = for_each_device(conn, filter, |device| {
        devices.push(device);
        ControlFlow::<()>::Continue(())
    })?;
    Ok(devices)
}

/// Calls `each` with every device `filter` matches, oldest first, read
/// row by row from one statement: memory stays bounded whatever the count.
///
/// `each` stops the read by returning [`ControlFlow::Break`], whose value
/// comes back; a read to the end gives `Continue(())`. A row that cannot
/// be read ends the read with its error, after `each` had the rows before.
pub fn for_each_device<B>(
    conn: &Connection,
    filter: &DeviceFilter,
    mut each: impl FnMut(Device) -> ControlFlow<B>,
) -> Result<ControlFlow<B>, InventoryError> {
    let mut statement = conn.prepare_cached(concat!(
        "SELECT ",
        device_columns!(),
        " FROM devices \
         WHERE (?1 IS NULL OR site_slug = ?1) AND (?2 IS NULL OR role = ?2) \
         AND (?3 IS NULL OR status = ?3) ORDER BY seq"
    ))?;
    let mut rows = statement.query(params![
        filter.site_slug,
        filter.role,
        filter.status.map(DeviceStatus::as_str)
    ])?;
    while let Some(row) = rows.next()? {
        if let ControlFlow::Break(value) = each(device_from_row(row)?) {
            return Ok(ControlFlow::Break(value));
        }
    }
    Ok(ControlFlow::Continue(()))
}

/// Up to `limit` of the devices `filter` matches that were inserted after
/// the one at `after` (an insertion number; 0 before the first), oldest
/// first, each with its insertion number: one page of a keyset read, which
/// [`DeviceRows`] pages through.
pub fn devices_after(
    conn: &Connection,
    filter: &DeviceFilter,
    after: i64,
    limit: usize,
) -> Result<Vec<(i64, Device)>, InventoryError> {
    let mut statement = conn.prepare_cached(concat!(
        "SELECT ",
        device_columns!(),
        ", seq FROM devices \
         WHERE (?1 IS NULL OR site_slug = ?1) AND (?2 IS NULL OR role = ?2) \
         AND (?3 IS NULL OR status = ?3) AND seq > ?4 ORDER BY seq LIMIT ?5"
    ))?;
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let mut rows = statement.query(params![
        filter.site_slug,
        filter.role,
        filter.status.map(DeviceStatus::as_str),
        after,
        limit
    ])?;
    let mut page = Vec::new();
    while let Some(row) = rows.next()? {
        page.push((row.get(18)?, device_from_row(row)?));
    }
    Ok(page)
}

/// How many rows [`DeviceRows`] reads each time it takes a connection.
pub const ROWS_PER_LOCK: usize = 1_000;

/// The devices a filter matches, oldest first, read [`ROWS_PER_LOCK`] at a
/// time ([`devices_after`]) with [`Db::read_blocking`] on the thread that
/// iterates (tokio's blocking pool for a heavy tool): memory holds one page
/// whatever the count. A reader is taken once a page and given back
/// between pages, so a long listing holds none of the [`READERS`] while
/// its items are serialized; on an in-memory database the one connection
/// is taken once a page, so writers wait a page's read, not the whole
/// listing's.
///
/// The read is not one snapshot: a device written between two pages is
/// seen if it sorts after the page read last. Each device is read once.
pub struct DeviceRows {
    db: Db,
    filter: DeviceFilter,
    after: i64,
    page: std::vec::IntoIter<(i64, Device)>,
    done: bool,
}

impl DeviceRows {
    /// The devices `filter` matches in `db`; nothing is read until the
    /// first `next`.
    pub fn new(db: Db, filter: DeviceFilter) -> DeviceRows {
        DeviceRows {
            db,
            filter,
            after: 0,
            page: Vec::new().into_iter(),
            done: false,
        }
    }
}

impl Iterator for DeviceRows {
    type Item = Result<Device, ToolError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some((seq, device)) = self.page.next() {
                self.after = seq;
                return Some(Ok(device));
            }
            if self.done {
                return None;
            }
            let (filter, after) = (&self.filter, self.after);
            match self
                .db
                .read_blocking(|conn| devices_after(conn, filter, after, ROWS_PER_LOCK))
            {
                Ok(page) => {
                    self.done = page.len() < ROWS_PER_LOCK;
                    self.page = page.into_iter();
                }
                Err(error) => {
                    self.done = true;
                    return Some(Err(error));
                }
            }
        }
    }
}

/// How many devices [`seed_devices`] inserts in one transaction.
pub const SEED_BATCH: usize = 10_000;

/// Inserts `devices` (of `of` in all) in transactions of [`SEED_BATCH`],
/// reusing one prepared statement, and calls `inserted` with the count
/// inserted so far after every commit: for seeding a large database
/// without holding its devices, which are taken from the iterator one at
/// a time and dropped once written.
///
/// Unlike [`create_devices`] this is not all-or-none: a failing device
/// rolls back its own batch only, and the batches before it stay written.
/// Its error names its position among all `of`.
pub fn seed_devices(
    conn: &mut Connection,
    devices: impl IntoIterator<Item = NewDevice>,
    of: usize,
    mut inserted: impl FnMut(usize),
) -> Result<usize, InventoryError> {
    let sites = site_slugs(conn)?;
    // The unique indexes on random keys (ids, names) touch pages all over
    // their B-trees; a larger page cache than SQLite's 2 MB default keeps
    // them from being reread from the file on every insert. Restored after.
    let cache_size: i64 = conn.query_row("PRAGMA cache_size", [], |row| row.get(0))?;
    conn.execute_batch(&format!("PRAGMA cache_size = -{SEED_CACHE_KIB}"))?;
    let seeded = seed_batches(conn, &sites, devices, of, &mut inserted);
    conn.execute_batch(&format!("PRAGMA cache_size = {cache_size}"))?;
    seeded
}

/// The page cache [`seed_devices`] gives SQLite, in KiB.
const SEED_CACHE_KIB: i64 = 32 << 10;

fn seed_batches(
    conn: &mut Connection,
    sites: &HashSet<String>,
    devices: impl IntoIterator<Item = NewDevice>,
    of: usize,
    inserted: &mut impl FnMut(usize),
) -> Result<usize, InventoryError> {
    let mut devices = devices.into_iter().enumerate().peekable();
    let mut done = 0;
    while devices.peek().is_some() {
        let tx = conn.transaction()?;
        let now = now_rfc3339();
        for (index, device) in devices.by_ref().take(SEED_BATCH) {
            let name = device.name.clone();
            insert_device(&tx, sites, device, &now).map_err(|error| InventoryError::InBatch {
                position: index + 1,
                of,
                name,
                source: Box::new(error),
            })?;
            done += 1;
        }
        tx.commit()?;
        inserted(done);
    }
    Ok(done)
}

/// How many devices there are.
pub fn count_devices(conn: &Connection) -> Result<i64, InventoryError> {
    Ok(conn
        .prepare_cached("SELECT count(*) FROM devices")?
        .query_row([], |row| row.get(0))?)
}

fn device_by_id(conn: &Connection, id: Uuid) -> Result<Device, InventoryError> {
    conn.prepare_cached(concat!(
        "SELECT ",
        device_columns!(),
        " FROM devices WHERE id = ?1"
    ))?
    .query_row([id.to_string()], device_from_row)
    .optional()?
    .ok_or(InventoryError::NoDevice(id))
}

fn device_from_row(row: &Row<'_>) -> rusqlite::Result<Device> {
    let id: String = row.get(0)?;
    let id = Uuid::parse_str(&id).map_err(|e| conversion_error(0, e))?;
    let status: String = row.get(8)?;
    let tags: String = row.get(14)?;
    let custom_fields: String = row.get(15)?;
    Ok(Device {
        id,
        url: device_url(id),
        name: row.get(1)?,
        site_slug: row.get(2)?,
        role: row.get(3)?,
        device_type: row.get(4)?,
        platform: row.get(5)?,
        serial: row.get(6)?,
        asset_tag: row.get(7)?,
        status: DeviceStatus::parse(&status).unwrap_or_default(),
        rack: row.get(9)?,
        position: row.get(10)?,
        face: row.get(11)?,
        airflow: row.get(12)?,
        comments: row.get(13)?,
        tags: serde_json::from_str(&tags).map_err(|e| conversion_error(14, e))?,
        custom_fields: serde_json::from_str(&custom_fields).map_err(|e| conversion_error(15, e))?,
        created: row.get(16)?,
        last_updated: row.get(17)?,
    })
}

/// `current` with the fields of `patch` applied; `null` custom fields are
/// removed.
pub(crate) fn apply(current: Device, patch: DevicePatch) -> NewDevice {
    let mut custom_fields = current.custom_fields;
    for (key, value) in patch.custom_fields.unwrap_or_default() {
        if value.is_null() {
            custom_fields.remove(&key);
        } else {
            custom_fields.insert(key, value);
        }
    }
    NewDevice {
        name: patch.name.unwrap_or(current.name),
        site_slug: patch.site_slug.unwrap_or(current.site_slug),
        role: patch.role.unwrap_or(current.role),
        device_type: patch.device_type.unwrap_or(current.device_type),
        platform: patch.platform.or(current.platform),
        serial: patch.serial.unwrap_or(current.serial),
        asset_tag: patch.asset_tag.or(current.asset_tag),
        status: patch.status.unwrap_or(current.status),
        rack: patch.rack.or(current.rack),
        position: patch.position.or(current.position),
        face: patch.face.or(current.face),
        airflow: patch.airflow.or(current.airflow),
        comments: patch.comments.unwrap_or(current.comments),
        tags: patch.tags.unwrap_or(current.tags),
        custom_fields,
    }
}

pub(crate) fn check_device(
    device: &NewDevice,
    sites: &HashSet<String>,
) -> Result<(), InventoryError> {
    if device.name.trim().is_empty() {
        return Err(invalid("name", "must not be empty".into()));
    }
    check_length("name", &device.name, DEVICE_NAME_MAX)?;
    if !sites.contains(&device.site_slug) {
        let mut known: Vec<&str> = sites.iter().map(String::as_str).collect();
        known.sort_unstable();
        return Err(InventoryError::UnknownSite {
            slug: device.site_slug.clone(),
            known: if known.is_empty() {
                "none".to_owned()
            } else {
                known.join(", ")
            },
        });
    }
    if let Some(face) = &device.face
        && face != "front"
        && face != "rear"
    {
        return Err(invalid(
            "face",
            format!("must be `front` or `rear`; got {face:?}"),
        ));
    }
    if device.position == Some(0) {
        return Err(invalid(
            "position",
            "counts rack units from 1; got 0".into(),
        ));
    }
    Ok(())
}

/// Whether `device` passes [`check_device`] at a site that exists: what a
/// write that leaves the site to the database's foreign key checks first.
#[cfg(feature = "postgres")]
pub(crate) fn valid_at_existing_site(device: &NewDevice) -> bool {
    let site = HashSet::from([device.site_slug.clone()]);
    check_device(device, &site).is_ok()
}

fn site_slugs(conn: &Connection) -> Result<HashSet<String>, InventoryError> {
    let mut statement = conn.prepare_cached("SELECT slug FROM sites")?;
    let slugs = statement
        .query_map([], |row| row.get(0))?
        .collect::<Result<_, _>>()?;
    Ok(slugs)
}

fn unique_device_error(error: rusqlite::Error, device: &NewDevice) -> InventoryError {
    if is_unique_violation(&error, "devices.asset_tag") {
        InventoryError::DuplicateAssetTag(device.asset_tag.clone().unwrap_or_default())
    } else if is_unique_violation(&error, "devices.site_slug, devices.name") {
        InventoryError::DuplicateName {
            site: device.site_slug.clone(),
            name: device.name.clone(),
        }
    } else {
        error.into()
    }
}

/// Whether `error` is a UNIQUE constraint on columns whose description
/// starts with `columns` (SQLite says "UNIQUE constraint failed: t.a, t.b").
fn is_unique_violation(error: &rusqlite::Error, columns: &str) -> bool {
    match error {
        rusqlite::Error::SqliteFailure(failure, Some(message)) => {
            failure.code == ErrorCode::ConstraintViolation
                && message
                    .strip_prefix("UNIQUE constraint failed: ")
                    .is_some_and(|failed| failed.starts_with(columns))
        }
        _ => false,
    }
}

/// Refuses `value` when it has more than `max` characters, the
/// `maxLength` its schema publishes.
fn check_length(field: &'static str, value: &str, max: usize) -> Result<(), InventoryError> {
    let length = value.chars().count();
    if length > max {
        return Err(invalid(
            field,
            format!("is {length} characters long; at most {max} are allowed"),
        ));
    }
    Ok(())
}

fn invalid(field: &'static str, reason: String) -> InventoryError {
    InventoryError::Invalid { field, reason }
}

fn conversion_error(
    column: usize,
    error: impl std::error::Error + Send + Sync + 'static,
) -> rusqlite::Error {
    rusqlite::Error::FromSqlConversionFailure(column, rusqlite::types::Type::Text, Box::new(error))
}

// ----- time ------------------------------------------------------------------

/// Now, as RFC 3339 in UTC with microseconds, the way NetBox renders it:
/// `2025-06-01T12:34:56.123456Z`.
pub fn now_rfc3339() -> String {
    let since_epoch = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    rfc3339(since_epoch.as_secs(), since_epoch.subsec_micros())
}

/// Formats `secs` since the Unix epoch (plus `micros`) as RFC 3339 UTC.
fn rfc3339(secs: u64, micros: u32) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{micros:06}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// The proleptic Gregorian date `days` after 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;
    use std::time::Instant;

    use super::*;
    use crate::fixture;

    /// A directory of its own under the system's temporary directory,
    /// removed with everything in it when dropped.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(test: &str) -> TempDir {
            static NEXT: AtomicUsize = AtomicUsize::new(0);
            let dir = std::env::temp_dir().join(format!(
                "inventory-db-{test}-{}-{}",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            ));
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            TempDir(dir)
        }

        /// The database file's path (and, beside it, its `-wal` and
        /// `-shm`).
        fn db(&self) -> PathBuf {
            self.0.join("inventory.db")
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    /// `db` with the fixture sites and `count` fixture devices.
    fn seeded(db: &Db, count: usize) {
        db.run_now(|conn| {
            ensure_sites(conn, fixture::new_sites())?;
            create_devices(conn, fixture::new_devices(count, 1))
        })
        .unwrap();
    }

    fn pragma<T: rusqlite::types::FromSql>(conn: &Connection, name: &str) -> T {
        conn.pragma_query_value(None, name, |row| row.get(0))
            .unwrap()
    }

    #[test]
    fn a_file_database_opens_in_wal_mode_syncing_normal_unless_asked_for_full() {
        let dir = TempDir::new("pragmas");
        let db = Db::open(Some(&dir.db())).unwrap();
        let writer = db
            .run_now(|conn| {
                Ok((
                    pragma::<String>(conn, "journal_mode"),
                    pragma::<i64>(conn, "synchronous"),
                    pragma::<i64>(conn, "foreign_keys"),
                    pragma::<i64>(conn, "busy_timeout"),
                ))
            })
            .unwrap();
        assert_eq!(writer, ("wal".to_owned(), 1, 1, 5_000));
        let reader = db
            .read_blocking(|conn| {
                Ok((
                    pragma::<String>(conn, "journal_mode"),
                    pragma::<i64>(conn, "synchronous"),
                    conn.is_readonly(rusqlite::MAIN_DB)?,
                ))
            })
            .unwrap();
        assert_eq!(reader, ("wal".to_owned(), 1, true));
        drop(db);
        // The writer closes last, folds the WAL into the file and removes it.
        let wal = dir.0.join("inventory.db-wal");
        assert!(!wal.exists(), "{} is left behind", wal.display());
        // WAL mode stays with the file, for whatever opens it next.
        let plain = Connection::open(dir.db()).unwrap();
        assert_eq!(pragma::<String>(&plain, "journal_mode"), "wal");
        drop(plain);

        let dir = TempDir::new("pragmas-full");
        let db = Db::open_with(Some(&dir.db()), Synchronous::Full).unwrap();
        let writer = db
            .run_now(|conn| {
                Ok((
                    pragma::<String>(conn, "journal_mode"),
                    pragma::<i64>(conn, "synchronous"),
                ))
            })
            .unwrap();
        assert_eq!(writer, ("wal".to_owned(), 2));
        let reader = db.read_blocking(|conn| Ok(pragma::<i64>(conn, "synchronous")));
        assert_eq!(reader.unwrap(), 2);
    }

    #[test]
    fn a_database_sqlite_keeps_out_of_wal_mode_is_refused_with_the_mode_it_kept() {
        // `:memory:` is SQLite's name for a database with no file.
        let error = Db::open(Some(Path::new(":memory:"))).err().unwrap();
        assert!(
            matches!(&error, OpenError::NotWal { mode } if mode == "memory"),
            "{error:?}"
        );
        let message = error.to_string();
        assert!(message.contains("journal mode `memory`"), "{message}");
        assert!(message.contains("needs WAL"), "{message}");
    }

    #[test]
    fn a_read_answers_while_a_write_transaction_is_open_and_sees_the_last_commit() {
        // Made first, so dropped last: should a read wait for the writer,
        // the channel that holds the writer is dropped first, the writer
        // gives up, and the runtime can finish its blocking task.
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_time()
            .build()
            .unwrap();
        let dir = TempDir::new("read-beside-write");
        let db = Db::open(Some(&dir.db())).unwrap();
        seeded(&db, 1);
        let before = db
            .run_now(|conn| list_devices(conn, &DeviceFilter::default()))
            .unwrap()
            .remove(0);
        let id = before.id;
        // A site without the device, which the write deletes.
        let spare = ["ams1", "fra2", "nyc3", "sin1"]
            .into_iter()
            .find(|slug| *slug != before.site_slug)
            .unwrap();

        // The writer renames the device and holds its transaction open
        // until told to commit.
        let (held, writer_holds) = mpsc::channel();
        let (commit, committed) = mpsc::channel::<()>();
        let writer = std::thread::spawn({
            let db = db.clone();
            move || {
                db.run_now(|conn| {
                    let tx = conn.transaction()?;
                    tx.execute("UPDATE devices SET name = 'renamed'", [])?;
                    tx.execute("DELETE FROM sites WHERE slug = ?1", [spare])?;
                    held.send(()).unwrap();
                    committed.recv().unwrap();
                    tx.commit()?;
                    Ok(())
                })
            }
        });
        writer_holds
            .recv_timeout(Duration::from_secs(10))
            .expect("the writer opens its transaction");

        // The async read, on the blocking pool, answers meanwhile.
        let read = |db: &Db| {
            let db = db.clone();
            runtime.block_on(async move {
                let read = db.read(move |conn| Ok((get_device(conn, id)?, list_sites(conn)?)));
                tokio::time::timeout(Duration::from_secs(10), read)
                    .await
                    .expect("the read waited for the write's transaction")
                    .unwrap()
            })
        };
        let started = Instant::now();
        let (device, sites) = read(&db);
        assert_eq!(device, before);
        assert_eq!(sites.len(), 4);
        assert!(started.elapsed() < Duration::from_secs(5));
        // So does a blocking read, on another thread.
        let (answer, answered) = mpsc::channel();
        std::thread::spawn({
            let db = db.clone();
            move || {
                let _ = answer.send(db.read_blocking(move |conn| get_device(conn, id)));
            }
        });
        let device = answered
            .recv_timeout(Duration::from_secs(10))
            .expect("the blocking read waited for the write's transaction")
            .unwrap();
        assert_eq!(device, before);

        // Once committed, the next read sees the write.
        commit.send(()).unwrap();
        writer.join().unwrap().unwrap();
        let (device, sites) = read(&db);
        assert_eq!(device.name, "renamed");
        assert_eq!(sites.len(), 3);
        assert!(sites.iter().all(|site| site.slug != spare));
    }

    #[test]
    fn every_reader_sees_each_write_as_soon_as_it_is_committed() {
        let dir = TempDir::new("read-your-writes");
        let db = Db::open(Some(&dir.db())).unwrap();
        seeded(&db, 0);
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .unwrap();
        for (round, device) in fixture::new_devices(3, 2).into_iter().enumerate() {
            let created = runtime
                .block_on(db.run(move |conn| create_devices(conn, vec![device])))
                .unwrap()
                .remove(0);
            // Every reader at once: each read holds its reader until all
            // of them are taken, so no two reads share a connection.
            let taken = Arc::new(AtomicUsize::new(0));
            let reads: Vec<_> = (0..READERS)
                .map(|_| {
                    let (db, taken) = (db.clone(), Arc::clone(&taken));
                    std::thread::spawn(move || {
                        db.read_blocking(|conn| {
                            taken.fetch_add(1, Ordering::SeqCst);
                            let deadline = Instant::now() + Duration::from_secs(10);
                            while taken.load(Ordering::SeqCst) < READERS {
                                assert!(Instant::now() < deadline, "fewer than {READERS} readers");
                                std::thread::sleep(Duration::from_millis(1));
                            }
                            Ok((get_device(conn, created.id)?, count_devices(conn)?))
                        })
                    })
                })
                .collect();
            for read in reads {
                let (device, count) = read.join().unwrap().unwrap();
                assert_eq!(device, created);
                assert_eq!(count, round as i64 + 1);
            }
            // And an update, read back at once.
            let id = created.id;
            let patch = DevicePatch {
                comments: Some(format!("round {round}")),
                ..DevicePatch::default()
            };
            let patched = runtime
                .block_on(db.run(move |conn| patch_device(conn, id, patch)))
                .unwrap();
            let read = runtime
                .block_on(db.read(move |conn| get_device(conn, id)))
                .unwrap();
            assert_eq!(read, patched);
            assert_eq!(read.comments, format!("round {round}"));
        }
    }

    #[test]
    fn a_read_cannot_write() {
        let dir = TempDir::new("read-only");
        let db = Db::open(Some(&dir.db())).unwrap();
        seeded(&db, 2);
        let refused = db.read_blocking(|conn| Ok(conn.execute("DELETE FROM devices", [])?));
        assert!(refused.is_err());
        assert_eq!(db.read_blocking(count_devices).unwrap(), 2);
    }

    #[test]
    fn a_busy_database_asks_the_caller_to_try_again_without_sqlite_words() {
        let locked = rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(rusqlite::ffi::SQLITE_BUSY),
            Some("database is locked".into()),
        );
        let error = InventoryError::from(locked);
        let text = error.to_string();
        assert_eq!(
            text,
            "the database is busy with another write; nothing was written, try again in a moment"
        );
        assert_eq!(error.database_detail().unwrap(), "database is locked");
    }

    #[test]
    fn device_rows_page_through_every_match_in_order_like_list_devices() {
        device_rows_page_through(Db::open(None).unwrap());
        let dir = TempDir::new("device-rows");
        device_rows_page_through(Db::open(Some(&dir.db())).unwrap());
    }

    fn device_rows_page_through(db: Db) {
        let count = 2 * ROWS_PER_LOCK + 7;
        let mut reports = Vec::new();
        let seeded = db
            .run_now(|conn| {
                ensure_sites(conn, fixture::new_sites())?;
                seed_devices(conn, fixture::devices(count, 1), count, |done| {
                    reports.push(done)
                })
            })
            .unwrap();
        assert_eq!((seeded, reports), (count, vec![count]));
        for filter in [
            DeviceFilter::default(),
            DeviceFilter {
                site_slug: Some("fra2".into()),
                ..DeviceFilter::default()
            },
            DeviceFilter {
                role: Some("leaf".into()),
                status: Some(DeviceStatus::Active),
                ..DeviceFilter::default()
            },
            DeviceFilter {
                site_slug: Some("nowhere".into()),
                ..DeviceFilter::default()
            },
        ] {
            let listed = db.run_now(|conn| list_devices(conn, &filter)).unwrap();
            let rows: Vec<Device> = DeviceRows::new(db.clone(), filter.clone())
                .collect::<Result<_, _>>()
                .unwrap();
            assert_eq!(rows, listed, "{filter:?}");
        }
        // A second seed of the same devices is refused at the first one.
        let error = db
            .run_now(|conn| seed_devices(conn, fixture::devices(3, 1), 3, |_| {}))
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("device 1 of 3 in the batch"), "{error}");
    }

    #[test]
    fn formats_rfc3339() {
        assert_eq!(rfc3339(0, 0), "1970-01-01T00:00:00.000000Z");
        // 2000-02-29 (a leap day in a century leap year) 23:59:59.
        assert_eq!(rfc3339(951_868_799, 42), "2000-02-29T23:59:59.000042Z");
        assert_eq!(
            rfc3339(1_748_781_296, 123_456),
            "2025-06-01T12:34:56.123456Z"
        );
    }
}
