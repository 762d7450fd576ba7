//! Each mode served from the continuation store, reading no more of the
//! stored result than the mode needs: a page (or a filtered page) reads
//! just its items, a summary the digest kept beside the result. Only
//! `full`, and any mode of a result that is not a list, read the whole
//! result, up to [`HeavyConfig::max_full_bytes`], and serve it through
//! [`serve`](super::serve).
//!
//! Which reads a mode makes, and what it answers, is decided here; the
//! reads themselves, and whose entry they may read, are the redemption's
//! ([`StoredResult`]).

use std::ops::Range;

use serde_json::Value;

use super::{Digest, HeavyConfig, Mode, Negotiation, ResultShape};
use super::{check_list_keys, narrow_item, page_of_items, page_range, serve};
use crate::call::answer::{full_result, full_result_with_text};
use crate::call::outcome::call_error::Name;
use crate::call::outcome::{Answer, AnswerShape, CallError};
use crate::operations::usage::Counts;
use crate::store::{Entry, EntryInfo, ListItems, Origin, StoredItems};

/// A redemption's answer; `Err` for one that ends it early (refused,
/// failed), which is an answer too.
pub(crate) type Served = Result<Answer, Answer>;

/// The stored result one redemption serves, as the store reads it for the
/// caller it was kept for. Every read checks that caller first; a read
/// refused or failed is the answer (`Err`) that ends the redemption.
pub(crate) trait StoredResult {
    /// The tool the result is redeemed through, which errors name.
    fn tool(&self) -> &Name;

    /// The limits the result is served within.
    fn config(&self) -> &HeavyConfig;

    /// Whether the answer carries the stored result's counts (a usage
    /// report asks for them).
    fn reports_usage(&self) -> bool;

    /// The items at `range` of a stored list, read by range; the whole
    /// entry when the result is not a list.
    async fn items(&self, range: Range<usize>) -> Result<StoredItems, Answer>;

    /// What the store knows of the entry without reading its result.
    async fn info(&self) -> Result<EntryInfo, Answer>;

    /// The whole entry.
    async fn entry(&self) -> Result<Entry, Answer>;

    /// `answer` with the stored result's counts, when a usage report asks
    /// for them, read from the entry's digest.
    async fn counted_from_info(&self, answer: Answer) -> Served;

    /// The whole `entry`, at most [`HeavyConfig::max_full_bytes`], as
    /// `negotiation` asks: its body served by [`serve_body`], with the
    /// stored result's counts.
    async fn serve_whole(&self, entry: Entry, negotiation: Negotiation) -> Served;
}

/// The stored result as `negotiation` asks, reading what its mode needs.
pub(crate) async fn serve_from_store<S: StoredResult>(
    stored: &S,
    negotiation: Negotiation,
) -> Served {
    match negotiation.mode {
        Mode::Summary => summary(stored, negotiation).await,
        Mode::Paginated => paginated(stored, negotiation).await,
        Mode::Filtered => filtered(stored, negotiation).await,
        Mode::Full => full(stored, negotiation).await,
    }
}

/// `summary`: the summary the digest kept beside the result; a result kept
/// without one is read whole and summarized.
async fn summary<S: StoredResult>(stored: &S, negotiation: Negotiation) -> Served {
    let (info, digest) = info_and_digest(stored).await?;
    let Some(digest) = digest else {
        return read_whole(stored, info, None, negotiation).await;
    };
    let counts = full_counts(stored, &digest);
    let answer = Answer::new(
        full_result(digest.summary),
        AnswerShape::Served(negotiation.mode.served()),
    );
    Ok(answer.counting(counts))
}

/// `paginated`: a list's page, from its items read by range; a result that
/// is not a list is read whole.
async fn paginated<S: StoredResult>(stored: &S, negotiation: Negotiation) -> Served {
    match stored.items(page_range(&negotiation)).await? {
        StoredItems::List(list) => {
            let page = page(stored.tool(), list, &negotiation, false)?;
            stored.counted_from_info(page).await
        }
        StoredItems::Whole(entry) => whole(stored, entry, negotiation).await,
    }
}

/// `filtered`: a list's keys checked against the fields its digest kept,
/// then its page read by range and narrowed to them; anything else is read
/// whole.
async fn filtered<S: StoredResult>(stored: &S, negotiation: Negotiation) -> Served {
    let (info, digest) = info_and_digest(stored).await?;
    if let Some(digest) = &digest
        && matches!(digest.shape, ResultShape::List { .. })
    {
        if let Err(error) = check_list_keys(digest, &negotiation) {
            return Err(Answer::error(error.invalid_arguments(stored.tool())));
        }
        if let StoredItems::List(list) = stored.items(page_range(&negotiation)).await? {
            let page = page(stored.tool(), list, &negotiation, true)?;
            return Ok(page.counting(full_counts(stored, digest)));
        }
    }
    read_whole(stored, info, digest, negotiation).await
}

/// `full`: the whole result.
async fn full<S: StoredResult>(stored: &S, negotiation: Negotiation) -> Served {
    let (info, digest) = info_and_digest(stored).await?;
    read_whole(stored, info, digest, negotiation).await
}

/// The entry's info and the digest kept beside it, when there is one that
/// reads.
async fn info_and_digest<S: StoredResult>(
    stored: &S,
) -> Result<(EntryInfo, Option<Digest>), Answer> {
    let info = stored.info().await?;
    let digest = info.digest.as_deref().and_then(Digest::from_bytes);
    Ok((info, digest))
}

/// The stored result's counts from its `digest`, when a usage report asks
/// for them.
fn full_counts<S: StoredResult>(stored: &S, digest: &Digest) -> Option<Counts> {
    digest.full_counts().filter(|_| stored.reports_usage())
}

/// Reads the whole result described by `info` and serves it, unless it is
/// larger than [`HeavyConfig::max_full_bytes`]: then the answer names the
/// modes that read less of it.
async fn read_whole<S: StoredResult>(
    stored: &S,
    info: EntryInfo,
    digest: Option<Digest>,
    negotiation: Negotiation,
) -> Served {
    let limit = stored.config().max_full_bytes;
    if info.size > limit as u64 {
        let instead = match digest.map(|digest| digest.shape) {
            Some(ResultShape::List { .. }) => {
                "ask for mode paginated (with page and page_size), filtered (with filter_keys) or summary instead"
            }
            _ => "ask for mode summary instead, or narrow the read with the tool's own arguments",
        };
        return Err(Answer::error(CallError::TooLargeWhole {
            tool: stored.tool().clone(),
            size: info.size,
            limit,
            instead,
        }));
    }
    let entry = stored.entry().await?;
    whole(stored, entry, negotiation).await
}

/// The whole stored `entry` as `negotiation` asks, unless it is larger
/// than [`HeavyConfig::max_full_bytes`].
async fn whole<S: StoredResult>(stored: &S, entry: Entry, negotiation: Negotiation) -> Served {
    let limit = stored.config().max_full_bytes;
    if entry.body.len() > limit {
        return Err(Answer::error(CallError::TooLargeWhole {
            tool: stored.tool().clone(),
            size: entry.body.len() as u64,
            limit,
            instead: "ask for mode summary instead",
        }));
    }
    stored.serve_whole(entry, negotiation).await
}

/// A page of a stored list from the items the store read for it: only
/// those are parsed (and, when `narrow`, narrowed to the keys asked for).
// Both sides of the result are the answer, of one size: boxing the error
// would only add an allocation to every refusal.
#[allow(clippy::result_large_err)]
fn page(tool: &Name, list: ListItems, negotiation: &Negotiation, narrow: bool) -> Served {
    let items: Result<Vec<Value>, _> = list
        .items
        .iter()
        .map(|item| serde_json::from_slice::<Value>(item))
        .collect();
    let mut items = items.map_err(|error| {
        Answer::error(CallError::Damaged {
            tool: tool.clone(),
            error: error.to_string(),
        })
    })?;
    if narrow {
        items = items
            .into_iter()
            .map(|item| narrow_item(item, &negotiation.filter_keys))
            .collect();
    }
    Ok(Answer::shaped(
        &page_of_items(items, list.total, negotiation),
        AnswerShape::Served(negotiation.mode.served()),
    ))
}

/// The stored result `body` as `negotiation` asks.
pub(crate) fn serve_body(
    body: &[u8],
    origin: Origin,
    negotiation: &Negotiation,
    config: &HeavyConfig,
    tool: Name,
) -> Answer {
    let value: Value = match serde_json::from_slice(body) {
        Ok(value) => value,
        Err(error) => {
            return Answer::error(CallError::Damaged {
                tool,
                error: error.to_string(),
            });
        }
    };
    let shape = AnswerShape::Served(negotiation.mode.served());
    match negotiation.mode {
        Mode::Full => {
            // The stored bytes are the result's compact JSON already; only
            // `structuredContent` needs the parsed value.
            let text = String::from_utf8_lossy(body).into_owned();
            Answer::new(full_result_with_text(value, text), shape)
        }
        Mode::Summary | Mode::Paginated | Mode::Filtered => {
            match serve(value, origin, negotiation, config) {
                Ok(value) => Answer::new(full_result(value), shape),
                Err(error) => Answer::error(error.invalid_arguments(&tool)),
            }
        }
    }
}
