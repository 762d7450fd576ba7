//! The transport-free server: built once from a [`ServerBuilder`], then
//! frozen — its tools, schemas, dispatchers and names worked out at build
//! time — with the one call path every transport uses.
//!
//! # Files
//!
//! - `built`: [`Server`], what a built server holds and what a name
//!   reaches;
//! - `builder/`: [`ServerBuilder`] and every setting, checked once;
//!   `freeze`: what `build` works out once;
//! - `call`: the one call path every transport uses, as one [`Call`]
//!   value; `poll`: how its future runs;
//! - `shown`: what a caller with fewer scopes is shown; `views`: the MCP
//!   Apps viewer's own tools;
//! - `compose`: serving beside an rmcp handler that answers the rest;
//!   `handler_config`: what the host says of that handler's tools,
//!   `handler_tools`, `handler_writes` and `handler_dispatch`: serving them.

mod built;
pub use built::Server;
pub(crate) use built::{Built, NameTarget};
pub(crate) mod compose;
mod handler_config;
mod handler_dispatch;
mod handler_tools;
mod handler_writes;

mod builder;
mod call;
mod freeze;
mod poll;
mod shown;
#[cfg(feature = "apps")]
mod views;

pub use builder::ServerBuilder;
pub(crate) use call::{Call, Client, responded};
pub(crate) use freeze::missing_state;
pub(crate) use handler_config::AskedDispatcher;
use handler_config::HandlerToolsSet;
pub use handler_config::{HandlerTool, HandlerTools};
pub use handler_writes::HandlerWrite;
pub(crate) use handler_writes::interned;
