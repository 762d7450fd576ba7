//! The default [`EntryWriter`]: a store that only knows whole entries
//! receives a streamed one buffered, and `put` at commit.

use super::{
    BoxFuture, Chunk, ContinuationStore, Entry, EntryWriter, Origin, Owner, Sealed, StoreError,
};
use crate::token::Token;

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
