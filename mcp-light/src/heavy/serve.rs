//! Serving a stored result as a negotiation asks: the one entry point of
//! the heavy modes.

use serde_json::Value;

use super::config::HeavyConfig;
use super::filter::filter;
use super::json::to_json;
use super::mode::Mode;
use super::negotiation::{Negotiation, NegotiationError};
use super::page::{layout, paginate};
use super::summarize::summarize;
use super::trim::fit_summary;
use crate::store::Origin;

/// Serves a stored result as `negotiation` asks.
///
/// * [`Mode::Paginated`]: a pageable value becomes
///   `{items, page, page_size, total, has_more}`. A wrapper object (a list
///   field; of a read's several, the longest) keeps its other fields, in order,
///   before those five;
///   if one of them is itself named like a page field, the page object
///   takes the list's place under the list's key instead, so nothing is
///   overwritten. Anything else, and everything from
///   [`Origin::SingleWrite`], is returned whole.
/// * [`Mode::Summary`]: what the value holds, bounded in size. A list gives
///   its `count` and, per field of its objects, the field's type, its
///   `nulls`, numbers' `min` and `max`, lists' `length`, objects' `keys`,
///   and `values`: how many items hold each value (for a list of strings,
///   how often each string occurs), for fields whose values repeat (at most 20 listed, the most frequent first, the rest counted as
///   `other`; `distinct` says how many there are when not all are listed).
///   An object gives its keys and the shape of each value, and for a
///   wrapper the summary of its paged list; a scalar its value. At most 30
///   fields or keys are described, and strings are cut to 40 characters.
/// * [`Mode::Filtered`]: the records — the items of a pageable list, else
///   the object itself — keep only `filter_keys`, in their own order. Items
///   that are not objects are kept as they are, so positions and `total`
///   match `paginated`. A list is paged exactly like `paginated`, because
///   filtering narrows rows but does not shorten the list: 10,000 rows of
///   two fields are still too many to return at once. A wrapper's other
///   fields are kept unfiltered. Keys that match no field anywhere are an
///   error naming the fields there are.
/// * [`Mode::Full`]: `value` unchanged.
///
/// The negotiation is checked first ([`Negotiation::check`]), so one built
/// by hand gets the same errors as one from [`take_negotiation`].
pub(crate) fn serve(
    value: Value,
    origin: Origin,
    negotiation: &Negotiation,
    config: &HeavyConfig,
) -> Result<Value, NegotiationError> {
    negotiation.check(config)?;
    match negotiation.mode {
        Mode::Full => Ok(value),
        Mode::Summary => fit_summary(to_json(summarize(&value, origin)), negotiation.keeps),
        Mode::Paginated => {
            let layout = layout(&value, origin);
            paginate(value, layout, negotiation, None)
        }
        Mode::Filtered => filter(value, origin, negotiation),
    }
}
