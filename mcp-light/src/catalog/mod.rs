//! What a server serves, to read: the tools it was built from, how each is
//! published, its dispatchers, and which of them `tools/list` publishes (the
//! [`Surface`]). A schema published as written can be made as
//! portable as the others with [`split_type_unions`].
//!
//! A tool author needs none of this to write and serve tools: the tool
//! attributes register each function, [`tools!`](crate::tools) names them
//! and [`Server`](crate::Server) serves them. These types are for a program
//! that looks at its own tools (to list them, test their schemas, or pick
//! which to serve): [`Server::registry`](crate::Server::registry),
//! [`Server::dispatcher`](crate::Server::dispatcher) and
//! [`Server::from_tools`](crate::Server::from_tools) speak them. A host
//! that publishes dispatchers instead of every tool names a [`Surface`]
//! ([`ServerBuilder::with_surface`](crate::ServerBuilder::with_surface)).
//!
//! ```standalone_crate
//! use mcp_light::catalog::{Registry, ToolDef, ToolKind};
//! use mcp_light::prelude::*;
//!
//! /// Count the devices.
//! #[mcp_tool]
//! fn device_count() -> u32 {
//!     3
//! }
//!
//! /// The tools this program serves, named once.
//! fn served() -> [&'static ToolDef; 1] {
//!     tools![device_count]
//! }
//!
//! let registry = Registry::from_tools(served())?;
//! let count = registry.get("device_count").unwrap();
//! assert_eq!(count.def().kind(), ToolKind::Read);
//! assert_eq!(count.input_schema()["type"], "object");
//! # Ok::<(), mcp_light::BuildError>(())
//! ```
//!
//! # Files
//!
//! - `tool`: [`ToolDef`], the static definition each annotated function
//!   registers;
//! - `registry`: the tools a server serves, checked and published;
//! - `dispatch`: group dispatchers, one published tool routing to many.

pub(crate) mod dispatch;
pub(crate) mod registry;
pub(crate) mod tool;

pub use crate::tool::kind::{ToolKind, WriteKind};
pub use crate::tool::schema::split_type_unions;
pub use crate::tool::surface::{Surface, UnknownSurface};
pub use dispatch::Dispatcher;
pub use registry::{PublishedTool, Registry};
pub use tool::ToolDef;
