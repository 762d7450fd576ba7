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

use serde_json::{Map, Value};

use super::{Digest, HeavyConfig, Mode, Negotiation, Page, ResultShape, WRAPPING};
use super::{check_list_keys, fit, fitting_page_size, items_room, narrow_item, page_range, serve};
use crate::call::answer::{full_result, full_result_with_text};
use crate::call::outcome::call_error::Name;
use crate::call::outcome::{Answer, AnswerShape, CallError};
use crate::store::{Entry, EntryInfo, Origin, StoredItems};
use crate::usage::Counts;

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

/// `summary`: the summary the digest kept beside the result, cut to what
/// the client keeps; a result kept without one is read whole and
/// summarized.
async fn summary<S: StoredResult>(stored: &S, negotiation: Negotiation) -> Served {
    let (info, digest) = info_and_digest(stored).await?;
    let Some(digest) = digest else {
        return read_whole(stored, info, None, negotiation).await;
    };
    let counts = full_counts(stored, &digest);
    let summary = super::fit_summary(digest.summary, negotiation.keeps)
        .map_err(|error| Answer::error(error.invalid_arguments(stored.tool())))?;
    let answer = Answer::new(
        full_result(summary),
        AnswerShape::Served(negotiation.mode.served()),
    );
    Ok(answer.counting(counts))
}

/// `paginated`: a list's page, from its items read by range; a result that
/// is not a list is read whole.
async fn paginated<S: StoredResult>(stored: &S, mut negotiation: Negotiation) -> Served {
    match list_page(stored, &mut negotiation, false).await? {
        Ok(page) => {
            let page = Answer::shaped(&page, AnswerShape::Served(negotiation.mode.served()));
            stored.counted_from_info(page).await
        }
        Err(entry) => whole(stored, entry, negotiation).await,
    }
}

/// `filtered`: a list's keys checked against the fields its digest kept,
/// then its page read by range and narrowed to them; anything else is read
/// whole.
async fn filtered<S: StoredResult>(stored: &S, mut negotiation: Negotiation) -> Served {
    let (info, digest) = info_and_digest(stored).await?;
    if let Some(digest) = &digest
        && matches!(digest.shape, ResultShape::List { .. })
    {
        if let Err(error) = check_list_keys(digest, &negotiation) {
            return Err(Answer::error(error.invalid_arguments(stored.tool())));
        }
        if let Ok(page) = list_page(stored, &mut negotiation, true).await? {
            let page = Answer::shaped(&page, AnswerShape::Served(negotiation.mode.served()));
            return Ok(page.counting(full_counts(stored, digest)));
        }
    }
    read_whole(stored, info, digest, negotiation).await
}

/// `full`: the whole result, when it fits what the client keeps. A list
/// that does not is answered its first page, as `paginated` sizes it,
/// with a note naming the calls that read the rest; anything else, an
/// error naming the modes that read less.
async fn full<S: StoredResult>(stored: &S, negotiation: Negotiation) -> Served {
    let (info, digest) = info_and_digest(stored).await?;
    if info.size.saturating_add(WRAPPING as u64) <= negotiation.keeps as u64 {
        return read_whole(stored, info, digest, negotiation).await;
    }
    let keeps = negotiation.keeps;
    let mut first = Negotiation {
        mode: Mode::Paginated,
        page: 1,
        page_size: stored.config().default_page_size,
        page_size_asked: false,
        filter_keys: Vec::new(),
        keeps,
    };
    match list_page(stored, &mut first, false).await? {
        Ok(page) => {
            let size = page.page_size();
            let note = format!(
                "the whole result is {} bytes, more than this client keeps of an answer \
                 ({keeps} bytes), so this is its first page (mode paginated, page_size \
                 {size}); ask page 2 with page_size {size} for the items after it, or mode \
                 summary for what it holds",
                info.size
            );
            let page = Answer::shaped(
                &page.with_note(note),
                AnswerShape::Served(first.mode.served()),
            );
            stored.counted_from_info(page).await
        }
        Err(_) => Err(Answer::error(CallError::TooLargeForClient {
            tool: stored.tool().clone(),
            size: info.size,
            keeps,
            instead: "ask for mode summary instead, or filtered with filter_keys naming the \
                      fields you need",
        })),
    }
}

/// The page of a stored list `negotiation` asks for, its items read by
/// range (and narrowed to `filter_keys` when `narrow`), holding what fits
/// the client ([`fit`]); `Err` with the whole entry when the result is not
/// a list. A page the caller did not size is sized from the list's first
/// items, so every page of one result has one size: `negotiation` is left
/// with the size served.
async fn list_page<S: StoredResult>(
    stored: &S,
    negotiation: &mut Negotiation,
    narrow: bool,
) -> Result<Result<Page, Entry>, Answer> {
    let tool = stored.tool();
    let refused = |error: super::NegotiationError| Answer::error(error.invalid_arguments(tool));
    let mut first = None;
    if !negotiation.page_size_asked {
        let most = negotiation.page_size;
        let list = match stored.items(0..most).await? {
            StoredItems::List(list) => list,
            StoredItems::Whole(entry) => return Ok(Err(entry)),
        };
        let (items, sizes) = parsed(tool, list.items, negotiation, narrow)?;
        let room = items_room(negotiation.keeps, &Map::new());
        negotiation.page_size = fitting_page_size(&sizes, room, most);
        if negotiation.page == 1 {
            first = Some((items, sizes, list.total));
        }
    }
    let (mut items, mut sizes, total) = match first {
        Some(first) => first,
        None => match stored.items(page_range(negotiation)).await? {
            StoredItems::List(list) => {
                let (items, sizes) = parsed(tool, list.items, negotiation, narrow)?;
                (items, sizes, list.total)
            }
            StoredItems::Whole(entry) => return Ok(Err(entry)),
        },
    };
    items.truncate(negotiation.page_size);
    sizes.truncate(negotiation.page_size);
    fit(Map::new(), items, &sizes, total, negotiation)
        .map(Ok)
        .map_err(refused)
}

/// The items a store read, parsed (and narrowed to the negotiation's
/// `filter_keys` when `narrow`), with each one's bytes of compact JSON as
/// the page answers it.
// Both sides of the result are the answer, of one size: boxing the error
// would only add an allocation to every refusal.
#[allow(clippy::result_large_err)]
fn parsed(
    tool: &Name,
    raw: Vec<Vec<u8>>,
    negotiation: &Negotiation,
    narrow: bool,
) -> Result<(Vec<Value>, Vec<usize>), Answer> {
    let mut items = Vec::with_capacity(raw.len());
    let mut sizes = Vec::with_capacity(raw.len());
    for bytes in raw {
        let item: Value = serde_json::from_slice(&bytes).map_err(|error| {
            Answer::error(CallError::Damaged {
                tool: tool.clone(),
                error: error.to_string(),
            })
        })?;
        if narrow {
            let item = narrow_item(item, &negotiation.filter_keys);
            sizes.push(super::page::size_of(&item));
            items.push(item);
        } else {
            sizes.push(bytes.len());
            items.push(item);
        }
    }
    Ok((items, sizes))
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
    let answer = match negotiation.mode {
        Mode::Full => {
            // The stored bytes are the result's compact JSON already; only
            // `structuredContent` needs the parsed value.
            let text = String::from_utf8_lossy(body).into_owned();
            Answer::new(full_result_with_text(value, text), shape)
        }
        Mode::Summary | Mode::Paginated | Mode::Filtered => {
            match serve(value, origin, negotiation, config) {
                Ok(value) => Answer::new(full_result(value), shape),
                Err(error) => return Answer::error(error.invalid_arguments(&tool)),
            }
        }
    };
    // What is served whole (an object, a single write's result) is
    // answered only when it fits the client.
    let size = answer.outcome().answer_bytes;
    if size.saturating_add(WRAPPING as u64) > negotiation.keeps as u64 {
        return Answer::error(CallError::TooLargeForClient {
            tool,
            size,
            keeps: negotiation.keeps,
            instead: "ask for mode summary instead, or filtered with filter_keys naming the \
                      fields you need",
        });
    }
    answer
}
