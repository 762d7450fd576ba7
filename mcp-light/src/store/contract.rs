//! What every store keeps and implements: an entry, its owner and origin, and the traits a backend implements.

use super::tasks::TaskStore;
use crate::error::tool::StoreError;
use crate::finding::{Finding, STORE};
use crate::runtime::BoxFuture;
use crate::token::Token;
use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

/// Whom a stored result belongs to: the caller's identity and the outer tool
/// it was minted through, and the OAuth scopes the tool that made it
/// required. Redemption by anyone else is refused, and so is a redemption
/// by the same caller whose access token no longer grants those scopes.
///
/// `#[non_exhaustive]`: build one with [`Owner::new`] (and
/// [`Owner::with_scopes`]). A store that keeps entries elsewhere writes
/// every field down and builds the owner again from them when it reads the
/// entry back: a store that drops `scopes` lets a caller who lost a scope
/// go on reading what it minted with it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Owner {
    /// The caller's identity ([`Caller::identity`](crate::Caller::identity)).
    pub caller: String,
    /// The name of the tool the caller called (the dispatcher, when routed).
    pub tool: String,
    /// The OAuth scopes the tool that made the entry required (the routed
    /// tool's, through a dispatcher); empty when it required none. Every
    /// redemption by a caller whose access token says what it grants is
    /// checked against them.
    pub scopes: Vec<String>,
}

impl Owner {
    /// The owner of a result that `caller` (a
    /// [`Caller::identity`](crate::Caller::identity)) minted through the
    /// tool named `tool`.
    ///
    /// ```
    /// use mcp_light::store::Owner;
    ///
    /// let owner = Owner::new("process", "device_list");
    /// assert_eq!((owner.caller.as_str(), owner.tool.as_str()), ("process", "device_list"));
    /// ```
    pub fn new(caller: impl Into<String>, tool: impl Into<String>) -> Owner {
        Owner {
            caller: caller.into(),
            tool: tool.into(),
            scopes: Vec::new(),
        }
    }

    /// The owner, with the OAuth scopes the tool that made the entry
    /// required.
    ///
    /// ```
    /// use mcp_light::store::Owner;
    ///
    /// let owner = Owner::new("principal:alice", "inventory").with_scopes(["inventory:read"]);
    /// assert_eq!(owner.scopes, ["inventory:read"]);
    /// ```
    pub fn with_scopes(mut self, scopes: impl IntoIterator<Item = impl Into<String>>) -> Owner {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }
}

/// What produced a stored result, which decides how it may be served.
///
/// `#[non_exhaustive]`: a store that writes it down matches it with a
/// wildcard arm, for origins a later version adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
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

/// One stored result, whole.
///
/// `#[non_exhaustive]`: build one with [`Entry::new`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Entry {
    /// Who may redeem it.
    pub owner: Owner,
    /// What produced it.
    pub origin: Origin,
    /// The full result, as compact JSON.
    pub body: Arc<[u8]>,
    /// mcp-light's digest of the result ([`Sealed::digest`]), kept beside
    /// it so that a summary is read, not recomputed; `None` for an entry
    /// put without one. A store keeps these bytes as they are.
    pub digest: Option<Arc<[u8]>>,
}

impl Entry {
    /// An entry of `body` for `owner`, without a digest.
    ///
    /// ```
    /// use mcp_light::store::{Entry, Origin, Owner};
    ///
    /// let owner = Owner::new("process", "device_list");
    /// let entry = Entry::new(owner, Origin::Read, &b"[1,2,3]"[..]);
    /// assert_eq!(&*entry.body, b"[1,2,3]");
    /// assert!(entry.digest.is_none());
    /// ```
    pub fn new(owner: Owner, origin: Origin, body: impl Into<Arc<[u8]>>) -> Entry {
        Entry {
            owner,
            origin,
            body: body.into(),
            digest: None,
        }
    }

    /// This entry with `digest` kept beside it.
    pub fn with_digest(mut self, digest: Option<Arc<[u8]>>) -> Entry {
        self.digest = digest;
        self
    }
}

/// What is known of a stored entry without reading its body, as
/// [`ContinuationStore::info`] answers.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct EntryInfo {
    /// Who may redeem it.
    pub owner: Owner,
    /// What produced it.
    pub origin: Origin,
    /// The body's length in bytes.
    pub size: u64,
    /// The digest kept beside the body ([`Entry::digest`]).
    pub digest: Option<Arc<[u8]>>,
}

impl EntryInfo {
    /// What `entry` tells without its body.
    pub fn of(entry: &Entry) -> EntryInfo {
        EntryInfo {
            owner: entry.owner.clone(),
            origin: entry.origin,
            size: entry.body.len() as u64,
            digest: entry.digest.clone(),
        }
    }
}

/// Some items of a stored list, as [`ContinuationStore::get_items`] reads
/// them.
///
/// `#[non_exhaustive]`: build one with [`ListItems::new`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
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

impl ListItems {
    /// The `items` (each its compact JSON, in order) of a list of `total`
    /// items stored for `owner`, produced by `origin`.
    pub fn new(owner: Owner, origin: Origin, total: usize, items: Vec<Vec<u8>>) -> ListItems {
        ListItems {
            owner,
            origin,
            total,
            items,
        }
    }
}

/// What [`ContinuationStore::get_items`] found under a token.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum StoredItems {
    /// The entry is a pageable list: the asked items.
    List(ListItems),
    /// The entry is not a pageable list (an object, a scalar, a single
    /// write's result): the whole entry, for the caller to serve otherwise.
    Whole(Entry),
}

/// A piece of an entry's body, as an [`EntryWriter`] receives it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Chunk {
    /// The next bytes of the body.
    pub bytes: Vec<u8>,
    /// Where each list item that starts in these bytes starts, as offsets
    /// from the start of the body (not of the chunk), in order. Empty when
    /// the entry is not a list, or no item starts here.
    pub item_starts: Vec<u64>,
}

impl Chunk {
    /// A chunk of `bytes` in which the items at `item_starts` (offsets from
    /// the start of the body) begin.
    pub fn new(bytes: Vec<u8>, item_starts: Vec<u64>) -> Chunk {
        Chunk { bytes, item_starts }
    }
}

/// What mcp-light learned of an entry while it was written, handed to
/// [`EntryWriter::commit`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Sealed {
    /// The body's length in bytes: the sum of the chunks' lengths.
    pub size: u64,
    /// For a pageable list, how many items it has: as many as the chunks'
    /// `item_starts`. `None` for anything else, which is served whole.
    pub items: Option<u64>,
    /// mcp-light's digest of the result (its summary among it), to keep
    /// beside the body and give back with [`Entry::digest`] and
    /// [`EntryInfo::digest`]. Opaque to the store; empty for none.
    pub digest: Arc<[u8]>,
}

impl Sealed {
    /// The seal of a body of `size` bytes holding `items` list items (or
    /// `None`), with `digest`.
    pub fn new(size: u64, items: Option<u64>, digest: Arc<[u8]>) -> Sealed {
        Sealed {
            size,
            items,
            digest,
        }
    }
}

/// An entry being written, chunk by chunk: [`ContinuationStore::begin`]
/// makes one, [`write`](EntryWriter::write) takes each chunk in order and
/// [`commit`](EntryWriter::commit) makes the entry redeemable.
///
/// Until it is committed the entry is not there: a `get` of its token
/// finds nothing. A writer dropped before its commit (the result failed
/// half-way, the call was cancelled, a write failed) must leave nothing
/// behind that outlives the store's TTL, and should free what it holds at
/// once.
pub trait EntryWriter: Send {
    /// Appends `chunk` to the body.
    fn write(&mut self, chunk: Chunk) -> BoxFuture<'_, Result<(), StoreError>>;

    /// Makes the entry redeemable, with what [`Sealed`] says of it.
    fn commit<'s>(self: Box<Self>, sealed: Sealed) -> BoxFuture<'s, Result<(), StoreError>>
    where
        Self: 's;
}

/// Keeps full results behind continuation tokens.
///
/// Implementations expire entries after their [`ttl`](ContinuationStore::ttl)
/// and bound what they hold; an expired entry reads as absent. The owner
/// check is mcp-light's, not the store's: a store returns the entry and the
/// caller's identity is compared in one place for every store.
///
/// A store implements [`put`](ContinuationStore::put),
/// [`get`](ContinuationStore::get) and [`ttl`](ContinuationStore::ttl); the
/// other methods have defaults built on those (see the [module
/// docs](crate::store#a-store-of-your-own)), which a store that can write and read
/// part of an entry overrides.
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
/// let server = mcp_light::Server::from_registry().with_store(Forever::default()).build()?;
/// # Ok::<(), mcp_light::BuildError>(())
/// ```
pub trait ContinuationStore: Send + Sync + 'static {
    /// Stores `entry` under `token`, whole.
    fn put<'a>(&'a self, token: &'a Token, entry: Entry) -> BoxFuture<'a, Result<(), StoreError>>;

    /// The entry under `token`, or `None` when it is missing or expired.
    fn get<'a>(&'a self, token: &'a Token) -> BoxFuture<'a, Result<Option<Entry>, StoreError>>;

    /// How long an entry stays redeemable after it was stored. Published in
    /// the description of every `continuation_token` property, so a caller
    /// knows how long it has.
    fn ttl(&self) -> Duration;

    /// Starts the entry under `token`, to be written chunk by chunk and
    /// committed ([`EntryWriter`]). This is how mcp-light stores every
    /// result it keeps.
    ///
    /// The default buffers the chunks, at most [`BUFFERED_ENTRY_LIMIT`]
    /// bytes (more is refused with [`StoreError::TooLarge`]), and
    /// [`put`](ContinuationStore::put)s the whole entry, digest included,
    /// at commit.
    fn begin<'a>(
        &'a self,
        token: Token,
        owner: Owner,
        origin: Origin,
    ) -> BoxFuture<'a, Result<Box<dyn EntryWriter + 'a>, StoreError>> {
        Box::pin(async move {
            Ok(Box::new(Buffered::new(self, token, owner, origin)) as Box<dyn EntryWriter + 'a>)
        })
    }

    /// What is known of the entry under `token` without its body (owner,
    /// size, digest), or `None` when it is missing or expired. mcp-light
    /// reads it before a summary, a filter or a `full` answer.
    ///
    /// The default reads the whole entry with [`get`](ContinuationStore::get).
    fn info<'a>(
        &'a self,
        token: &'a Token,
    ) -> BoxFuture<'a, Result<Option<EntryInfo>, StoreError>> {
        Box::pin(async move { Ok(self.get(token).await?.as_ref().map(EntryInfo::of)) })
    }

    /// The items `items` (positions in the list, from 0) of the list stored
    /// under `token`, with the entry's owner and the list's length; the
    /// whole entry when it is not a pageable list; `None` when it is missing
    /// or expired. Positions past the end are simply not there.
    ///
    /// The default reads the whole entry with [`get`](ContinuationStore::get)
    /// and cuts the items out of it. [`MemoryStore`](super::MemoryStore) and `RedisStore` keep
    /// where each item starts beside the body and read just the page.
    fn get_items<'a>(
        &'a self,
        token: &'a Token,
        items: Range<usize>,
    ) -> BoxFuture<'a, Result<Option<StoredItems>, StoreError>> {
        Box::pin(async move {
            let Some(entry) = self.get(token).await? else {
                return Ok(None);
            };
            Ok(Some(items_of_entry(entry, items)))
        })
    }

    /// Where tasks ([`crate::tasks`]) are kept beside this store's entries,
    /// seen by every server that shares the store; `None` (the default)
    /// keeps each server's tasks in its own process. [`MemoryStore`](super::MemoryStore) and
    /// `RedisStore` keep them.
    fn tasks(&self) -> Option<Arc<dyn TaskStore>> {
        None
    }

    /// Whether the store can take and serve results now: a cheap probe,
    /// answered within a short timeout, that a readiness check
    /// (`GET /readyz`, [`Server::ready`](crate::Server::ready)) runs on
    /// every probe. A store that lives in this process is always ready,
    /// which is the default; a networked store asks its server (`RedisStore`
    /// sends a `PING`).
    fn ready(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(async { Ok(()) })
    }

    /// What an audit of the server ([`Server::audit`](crate::Server::audit))
    /// reports of this store: whether it answers and, for a store that can
    /// tell, the settings of its backend that put tokens at risk, each a
    /// [`Finding`] ([`crate::audit`]).
    ///
    /// The default asks [`ready`](ContinuationStore::ready): `✓` when the
    /// store answers, `✗` naming why when it does not. `RedisStore` adds
    /// Redis's persistence and eviction policy. A store named `memory`
    /// ([`MemoryStore`](super::MemoryStore)) is judged by the audit itself, which knows whether
    /// other replicas could be asked to redeem its tokens.
    fn audit(&self) -> BoxFuture<'_, Vec<Finding>> {
        Box::pin(async move {
            let name = self.name();
            vec![match self.ready().await {
                Ok(()) => Finding::pass(
                    STORE,
                    format!("the continuation store `{name}` answers its readiness probe"),
                ),
                Err(error) => Finding::error(
                    STORE,
                    format!(
                        "the continuation store `{name}` does not answer ({error}): no \
                         continuation token is minted until it does"
                    ),
                ),
            }]
        })
    }

    /// The store's name in traces and metrics
    /// ([`telemetry`](crate::telemetry)'s `mcp_light.store.tier`):
    /// `memory` for [`MemoryStore`](super::MemoryStore), `redis` for `RedisStore`, `custom`
    /// unless a store says otherwise.
    fn name(&self) -> &'static str {
        "custom"
    }
}

/// The most bytes the default [`ContinuationStore::begin`] buffers for a
/// store that keeps whole entries only (16 MiB): a larger result is refused
/// with [`StoreError::TooLarge`] as it streams, and answered without a
/// token, rather than held whole in memory.
pub const BUFFERED_ENTRY_LIMIT: u64 = 16 << 20;

/// Collects the chunks of one entry, then puts it whole.
pub(super) struct Buffered<'a, S: ?Sized> {
    store: &'a S,
    token: Token,
    owner: Owner,
    origin: Origin,
    body: Vec<u8>,
}

impl<'a, S: ContinuationStore + ?Sized> Buffered<'a, S> {
    pub(super) fn new(store: &'a S, token: Token, owner: Owner, origin: Origin) -> Self {
        Buffered {
            store,
            token,
            owner,
            origin,
            body: Vec::new(),
        }
    }
}

impl<'a, S: ContinuationStore + ?Sized> EntryWriter for Buffered<'a, S> {
    fn write(&mut self, chunk: Chunk) -> BoxFuture<'_, Result<(), StoreError>> {
        let size = (self.body.len() + chunk.bytes.len()) as u64;
        let result = if size > BUFFERED_ENTRY_LIMIT {
            // Free what was gathered now: the entry will never be put.
            self.body = Vec::new();
            Err(StoreError::TooLarge {
                size,
                limit: BUFFERED_ENTRY_LIMIT,
            })
        } else {
            self.body.extend_from_slice(&chunk.bytes);
            Ok(())
        };
        Box::pin(std::future::ready(result))
    }

    fn commit<'s>(self: Box<Self>, sealed: Sealed) -> BoxFuture<'s, Result<(), StoreError>>
    where
        Self: 's,
    {
        let Buffered {
            store,
            token,
            owner,
            origin,
            body,
        } = *self;
        let digest = Some(sealed.digest).filter(|digest| !digest.is_empty());
        let entry = Entry::new(owner, origin, body).with_digest(digest);
        Box::pin(async move { store.put(&token, entry).await })
    }
}

/// The items `range` of `entry`, cut from its body; the whole entry when it
/// is not a pageable list.
pub(crate) fn items_of_entry(entry: Entry, range: Range<usize>) -> StoredItems {
    if !entry.origin.is_pageable() {
        return StoredItems::Whole(entry);
    }
    match super::index::index_list(&entry.body) {
        Some(starts) => items_of_indexed(entry, &starts, range),
        None => StoredItems::Whole(entry),
    }
}

/// The items `range` of `entry`, whose list `starts` indexes.
pub(crate) fn items_of_indexed(entry: Entry, starts: &[u64], range: Range<usize>) -> StoredItems {
    StoredItems::List(ListItems {
        items: super::index::slice_items(&entry.body, starts, range),
        total: starts.len(),
        owner: entry.owner,
        origin: entry.origin,
    })
}
