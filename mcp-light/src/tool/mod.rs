//! What a tool declares, below the calls that run it: its kind, its
//! published schemas and which tools `tools/list` shows.
//!
//! - `kind`: what a tool does: read, heavy read, or a write kind.
//! - `schema/`: published input schemas. `output_schema`: published output
//!   schemas.
//! - `surface`: which tools and dispatchers `tools/list` publishes.
//!
//! The definition itself, the registry and the dispatchers are the
//! catalogue's (`catalog/`), above the call that a definition carries.

pub(crate) mod kind;
pub(crate) mod output_schema;
pub(crate) mod schema;
pub(crate) mod surface;
