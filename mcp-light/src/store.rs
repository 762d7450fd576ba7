//! Where full results wait for a continuation token to redeem them.
//!
//! mcp-light mints the token ([`Token`]) and checks the owner on redemption;
//! a store only keeps entries, expires them and bounds its memory. Its
//! operations are async and fallible so that a networked store fits the
//! same trait as the in-memory default: [`MemoryStore`] keeps entries in
//! this process, `RedisStore` (cargo feature `redis`) in a Redis or Valkey
//! server that several replicas share.
//!
//! A page of a stored list is read by range ([`ContinuationStore::get_items`]):
//! the store keeps where each item of a list starts beside the body, so a
//! page of 20 items out of 10 MB moves those 20 items and not the rest.

mod index;
mod memory;
#[cfg(feature = "redis")]
mod redis;

use std::future::Future;
use std::ops::Range;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

pub use memory::{Clock, ManualClock, MemoryStore, MemoryStoreConfig, SystemClock};
#[cfg(feature = "redis")]
pub use redis::{RedisStore, RedisStoreConfig};

use crate::token::Token;

/// A boxed future that can cross threads, as the store trait returns.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Whom a stored result belongs to: the caller's identity and the outer tool
/// it was minted through. Redemption by anyone else is refused.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Owner {
    /// The caller's identity ([`Caller::identity`](crate::Caller::identity)).
    pub caller: String,
    /// The name of the tool the caller called (the dispatcher, when routed).
    pub tool: String,
}

/// What produced a stored result, which decides how it may be served.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Origin {
    /// A read (heavy probe or size backstop): pageable.
    Read,
    /// One written object: always returned whole, never paged.
    SingleWrite,
    /// A list of written objects: pageable.
    BulkWrite,
}

impl Origin {
    /// Whether a result of this origin may be served page by page: anything
    /// but a single write, whose one object is never cut into pages.
    pub fn is_pageable(self) -> bool {
        self != Origin::SingleWrite
    }
}

/// One stored result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Who may redeem it.
    pub owner: Owner,
    /// What produced it.
    pub origin: Origin,
    /// The full result, as compact JSON.
    pub body: Arc<[u8]>,
}

/// Some items of a stored list, as [`ContinuationStore::get_items`] reads
/// them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListItems {
    /// Who may redeem the entry.
    pub owner: Owner,
    /// What produced it ([`Origin::Read`] or [`Origin::BulkWrite`]).
    pub origin: Origin,
    /// How many items the whole list has.
    pub total: usize,
    /// The items asked for that exist, in order, each its compact JSON;
    /// fewer than asked (or none) at the end of the list.
    pub items: Vec<Vec<u8>>,
}

/// What [`ContinuationStore::get_items`] found under a token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoredItems {
    /// The entry is a pageable list: the asked items.
    List(ListItems),
    /// The entry is not a pageable list (an object, a scalar, a single
    /// write's result): the whole entry, for the caller to serve otherwise.
    Whole(Entry),
}

/// Why a store could not do what was asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The store cannot be reached or refused the operation.
    #[error("the continuation store is unavailable: {0}")]
    Unavailable(String),
    /// The entry is larger than the store will ever hold.
    #[error("the result is {size} bytes, more than the store's limit of {limit} bytes")]
    TooLarge {
        /// The entry's size in bytes.
        size: usize,
        /// The store's limit in bytes.
        limit: usize,
    },
}

/// Keeps full results behind continuation tokens.
///
/// Implementations expire entries after their [`ttl`](ContinuationStore::ttl)
/// and bound what they hold; an expired entry reads as absent. The owner
/// check is mcp-light's, not the store's: a store returns the entry and the
/// caller's identity is compared in one place for every store.
///
/// A store implements [`put`](ContinuationStore::put),
/// [`get`](ContinuationStore::get) and [`ttl`](ContinuationStore::ttl);
/// [`get_items`](ContinuationStore::get_items) has a default that reads the
/// whole entry, which a store that can read part of an entry overrides.
///
/// ```
/// use std::collections::HashMap;
/// use std::sync::Mutex;
/// use std::time::Duration;
/// use mcp_light::store::{BoxFuture, ContinuationStore, Entry, StoreError};
/// use mcp_light::token::Token;
///
/// /// Keeps everything, forever: a sketch, not a store to deploy.
/// #[derive(Default)]
/// struct Forever(Mutex<HashMap<Token, Entry>>);
///
/// impl ContinuationStore for Forever {
///     fn put<'a>(&'a self, token: &'a Token, entry: Entry) -> BoxFuture<'a, Result<(), StoreError>> {
///         self.0.lock().unwrap().insert(token.clone(), entry);
///         Box::pin(async { Ok(()) })
///     }
///
///     fn get<'a>(&'a self, token: &'a Token) -> BoxFuture<'a, Result<Option<Entry>, StoreError>> {
///         let entry = self.0.lock().unwrap().get(token).cloned();
///         Box::pin(async move { Ok(entry) })
///     }
///
///     fn ttl(&self) -> Duration {
///         Duration::MAX
///     }
/// }
///
/// let server = mcp_light::Server::from_registry()?.with_store(Forever::default());
/// # Ok::<(), mcp_light::RegistryError>(())
/// ```
pub trait ContinuationStore: Send + Sync + 'static {
    /// Stores `entry` under `token`.
    fn put<'a>(&'a self, token: &'a Token, entry: Entry) -> BoxFuture<'a, Result<(), StoreError>>;

    /// The entry under `token`, or `None` when it is missing or expired.
    fn get<'a>(&'a self, token: &'a Token) -> BoxFuture<'a, Result<Option<Entry>, StoreError>>;

    /// The items `items` (positions in the list, from 0) of the list stored
    /// under `token`, with the entry's owner and the list's length; the
    /// whole entry when it is not a pageable list; `None` when it is missing
    /// or expired. Positions past the end are simply not there.
    ///
    /// The default reads the whole entry with [`get`](ContinuationStore::get)
    /// and cuts the items out of it. A store that can read part of an entry
    /// overrides it, so that paging a large result moves only the page:
    /// [`MemoryStore`] and `RedisStore` keep where each item starts beside
    /// the body.
    fn get_items<'a>(
        &'a self,
        token: &'a Token,
        items: Range<usize>,
    ) -> BoxFuture<'a, Result<Option<StoredItems>, StoreError>> {
        Box::pin(async move {
            let Some(entry) = self.get(token).await? else {
                return Ok(None);
            };
            Ok(Some(index::items_of_entry(entry, items)))
        })
    }

    /// How long an entry stays redeemable after it was stored. Published in
    /// the description of every `continuation_token` property, so a caller
    /// knows how long it has.
    fn ttl(&self) -> Duration;
}
