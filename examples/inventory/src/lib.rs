//! A network-inventory MCP server on SQLite (or PostgreSQL), written with
//! mcp-light:
//! NetBox-like devices and sites, lean write envelopes, a paging
//! `device_list` and one `inventory` dispatcher over every tool.
//!
//! The library holds everything but the command line, so the `inventory`
//! server, the `token_report` binary and the benchmarks share one model and
//! one set of tools:
//!
//! - [`model`]: the records, and what callers send to write them;
//! - [`database`]: where the records are kept, SQLite or PostgreSQL, behind
//!   one set of operations the tools call;
//! - [`db`]: the SQLite schema, queries and transactions, on one writer
//!   connection and, for a file database, a few read-only ones in WAL mode;
//! - [`checkpoint`]: a file database's WAL checkpoints, on a thread of their
//!   own rather than in a write call's commit;
//! - `postgres` (the cargo feature `postgres`): the same on a PostgreSQL
//!   server, through a pool, for replicas on many hosts;
//! - [`fixture`]: a seeded generator of realistic devices;
//! - [`tools`]: the annotated tool functions, and the registry that names them.
//!
//! ```
//! use mcp_light::Caller;
//! use serde_json::json;
//!
//! let server = inventory::server(inventory::db::Db::open(None)?).build()?;
//! assert_eq!(server.tools().len(), 11); // ten tools and the dispatcher
//!
//! # tokio::runtime::Runtime::new()?.block_on(async {
//! let site = json!({"site": {"name": "Lab", "slug": "lab"}});
//! let created = server.call("site_create", site, Caller::Process).await;
//! assert_eq!(created.is_error, Some(false));
//! # });
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

pub mod checkpoint;
pub mod database;
pub mod db;
pub mod fixture;
pub mod model;
#[cfg(feature = "postgres")]
pub mod postgres;
pub mod tools;

use mcp_light::{Server, ServerBuilder};

use crate::database::Database;

/// The name of the dispatcher tool that routes `resource` + `action` to
/// every inventory tool.
pub const DISPATCHER: &str = "inventory";

/// The inventory's MCP server over `db` (a SQLite [`db::Db`], or any
/// [`Database`]), to be built once the caller has
/// added its own settings (a store, a surface): the tools of [`tools`] and
/// the [`DISPATCHER`], with an in-memory continuation store. Clients meet
/// it as `inventory` in this package's version.
///
/// Only this library's tools are served, even in a binary that links in
/// tools of its own (the token report, the benchmarks).
pub fn server(db: impl Into<Database>) -> ServerBuilder {
    Server::from_tools(tools::all())
        .with_implementation(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))
        .with_state(Into::<Database>::into(db))
        .with_dispatcher(DISPATCHER)
}
