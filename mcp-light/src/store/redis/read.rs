//! The Redis store's readers: a whole entry, what an entry is, and a page
//! of a stored list, reading only the page's bytes.

use std::ops::Range;
use std::sync::Arc;

use redis::aio::ConnectionLike;

use super::{Meta, RedisStore, read_meta};
use crate::store::index::{self, OFFSET_BYTES};
use crate::store::{Entry, EntryInfo, ListItems, StoreError, StoredItems};
use crate::token::Token;

impl<C> RedisStore<C>
where
    C: ConnectionLike + Clone + Send + Sync + 'static,
{
    async fn read_meta(
        &self,
        token: &Token,
    ) -> Result<Option<(Meta, Option<Vec<u8>>)>, StoreError> {
        let mut pipe = redis::pipe();
        pipe.cmd("GET").arg(self.key(token, "m"));
        pipe.cmd("GET").arg(self.key(token, "d"));
        let (meta, digest): (Option<Vec<u8>>, Option<Vec<u8>>) = self.run(&pipe).await?;
        match meta {
            Some(meta) => Ok(Some((read_meta(&meta)?, digest.filter(|d| !d.is_empty())))),
            None => Ok(None),
        }
    }

    pub(super) async fn get_now(&self, token: &Token) -> Result<Option<Entry>, StoreError> {
        let Some((meta, digest)) = self.read_meta(token).await? else {
            return Ok(None);
        };
        let mut pipe = redis::pipe();
        for n in 0..meta.parts() {
            pipe.cmd("GET").arg(self.body_key(token, n));
        }
        let parts: Vec<Option<Vec<u8>>> = self.run(&pipe).await?;
        let mut body = Vec::with_capacity(meta.len as usize);
        for part in parts {
            // A part expired between the two reads: the entry is gone.
            let Some(part) = part else {
                return Ok(None);
            };
            body.extend_from_slice(&part);
        }
        if body.len() as u64 != meta.len {
            return Ok(None);
        }
        Ok(Some(
            Entry::new(meta.owner(), meta.origin.into(), body).with_digest(digest.map(Arc::from)),
        ))
    }

    pub(super) async fn info_now(&self, token: &Token) -> Result<Option<EntryInfo>, StoreError> {
        Ok(self
            .read_meta(token)
            .await?
            .map(|(meta, digest)| EntryInfo {
                owner: meta.owner(),
                origin: meta.origin.into(),
                size: meta.len,
                digest: digest.map(Arc::from),
            }))
    }

    pub(super) async fn get_items_now(
        &self,
        token: &Token,
        range: Range<usize>,
    ) -> Result<Option<StoredItems>, StoreError> {
        // The offsets of the asked items and of the one after them, which
        // is where the last asked item ends; fewer past the end of the list.
        let first = range.start.saturating_mul(OFFSET_BYTES);
        let last = range
            .end
            .saturating_add(1)
            .saturating_mul(OFFSET_BYTES)
            .saturating_sub(1);
        let mut pipe = redis::pipe();
        pipe.cmd("GET").arg(self.key(token, "m"));
        pipe.cmd("GETRANGE")
            .arg(self.key(token, "i"))
            .arg(redis_index(first as u64))
            .arg(redis_index(last as u64));
        let (meta, offsets): (Option<Vec<u8>>, Vec<u8>) = self.run(&pipe).await?;
        let Some(meta) = meta else {
            return Ok(None);
        };
        let meta = read_meta(&meta)?;
        let Some(total) = meta.items.map(|items| items as usize) else {
            // Not a pageable list: served whole.
            return Ok(self.get_now(token).await?.map(StoredItems::Whole));
        };
        let range = index::clamp(range, total);
        let list = |items| {
            Some(StoredItems::List(ListItems {
                owner: meta.owner(),
                origin: meta.origin.into(),
                total,
                items,
            }))
        };
        if range.is_empty() {
            return Ok(list(Vec::new()));
        }
        let starts = index::from_bytes(&offsets);
        let through_the_end = range.end == total;
        let wanted = range.len() + usize::from(!through_the_end);
        if starts.len() < wanted {
            // The entry expired between the two reads.
            return Ok(None);
        }
        let chunk_start = starts[0];
        let chunk_end = if through_the_end {
            meta.len
        } else {
            starts[range.len()]
        };
        // The parts the page's bytes lie in, each read by range.
        let mut pipe = redis::pipe();
        let mut at = chunk_start;
        while at < chunk_end {
            let part = at / meta.part_bytes;
            let part_end = ((part + 1) * meta.part_bytes).min(chunk_end);
            pipe.cmd("GETRANGE")
                .arg(self.body_key(token, part))
                .arg(redis_index(at - part * meta.part_bytes))
                .arg(redis_index(part_end - part * meta.part_bytes - 1));
            at = part_end;
        }
        let pieces: Vec<Vec<u8>> = self.run(&pipe).await?;
        let chunk = pieces.concat();
        if chunk.len() as u64 != chunk_end - chunk_start {
            return Ok(None);
        }
        Ok(list(index::split_items(
            &chunk,
            &starts[..range.len()],
            through_the_end,
        )))
    }
}

/// A byte position as Redis takes it, a signed 64-bit integer.
fn redis_index(position: u64) -> i64 {
    i64::try_from(position).unwrap_or(i64::MAX)
}
