//! Where full results wait for a continuation token to redeem them.
//!
//! mcp-light mints the token ([`Token`]) and checks the owner on redemption;
//! a store only keeps entries, expires them and bounds its memory. Its
//! operations are async and fallible so that a networked store (Redis) fits
//! the same trait as the in-memory default.

mod memory;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

pub use memory::{Clock, ManualClock, MemoryStore, MemoryStoreConfig, SystemClock};

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
/// Implementations expire entries after their TTL and bound what they hold;
/// an expired entry reads as absent. The owner check is mcp-light's, not the
/// store's: a store returns the entry and the caller's identity is compared
/// in one place for every store.
pub trait ContinuationStore: Send + Sync + 'static {
    /// Stores `entry` under `token`.
    fn put<'a>(&'a self, token: &'a Token, entry: Entry) -> BoxFuture<'a, Result<(), StoreError>>;

    /// The entry under `token`, or `None` when it is missing or expired.
    fn get<'a>(&'a self, token: &'a Token) -> BoxFuture<'a, Result<Option<Entry>, StoreError>>;
}
