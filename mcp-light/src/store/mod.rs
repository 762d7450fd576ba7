//! Where full results wait for a continuation token to redeem them.
//!
//! mcp-light mints the token ([`Token`](crate::token::Token)) and checks the owner on redemption;
//! a store only keeps entries, expires them and bounds what it holds. Its
//! operations are async and fallible so that a networked store fits the
//! same trait as the in-memory default: [`MemoryStore`] keeps entries in
//! this process (small ones in memory, large ones in files on local disk),
//! `RedisStore` (cargo feature `redis`) in a Redis or Valkey server that
//! several replicas share.
//!
//! # Entries are written as they are produced
//!
//! A heavy read of a million rows is never one buffer. mcp-light serializes
//! the result item by item and hands it to the store chunk by chunk through
//! an [`EntryWriter`] ([`ContinuationStore::begin`]), each [`Chunk`] saying
//! where the list items that start in it begin. Nothing is redeemable until
//! the writer is committed with what was learned on the way ([`Sealed`]:
//! the size, the item count, and mcp-light's digest of the result, its
//! summary among it); a writer dropped before that leaves nothing behind.
//!
//! A page of a stored list is read by range ([`ContinuationStore::get_items`]):
//! the store keeps where each item of a list starts beside the body, so a
//! page of 20 items out of 700 MB moves those 20 items and not the rest.
//!
//! # A store of your own
//!
//! [`put`](ContinuationStore::put), [`get`](ContinuationStore::get) and
//! [`ttl`](ContinuationStore::ttl) are all a store must implement: the
//! other methods have defaults built on them. The default
//! [`begin`](ContinuationStore::begin) buffers the chunks (at most
//! [`BUFFERED_ENTRY_LIMIT`] bytes; a larger result is refused with
//! [`StoreError::TooLarge`] and answered without a token) and `put`s the
//! whole entry at commit; [`info`](ContinuationStore::info) and
//! [`get_items`](ContinuationStore::get_items) read the whole entry back.
//! Override them to keep results of any size and to page them by range.

mod contract;
pub use contract::{
    Chunk, ContinuationStore, Entry, EntryInfo, EntryWriter, ListItems, Origin, Owner, Sealed,
    StoredItems,
};
pub(crate) mod tasks;

// A store's tasks are public in `crate::tasks`, beside the rest of tasks.
pub(crate) use tasks::{MemoryTasks, TaskStore};
mod index;
mod memory;
#[cfg(feature = "redis")]
mod redis;

pub use contract::BUFFERED_ENTRY_LIMIT;
pub(crate) use memory::DEFAULT_TTL;
pub use memory::{Clock, ManualClock, MemoryStore, MemoryStoreConfig, SystemClock};
#[cfg(feature = "redis")]
pub use redis::{RedisStore, RedisStoreConfig};

pub use crate::error::tool::StoreError;
pub use crate::runtime::BoxFuture;
