//! Paging: which values are pageable, and one page of them.

use std::ops::Range;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

use super::{Negotiation, NegotiationError, to_json};
use crate::store::Origin;
use crate::token::Token;

/// The fields of a page, in the order a [`Page`] writes them.
const PAGE_FIELDS: [&str; 5] = ["items", "page", "page_size", "total", "has_more"];

/// Bytes a page's answer keeps for what is not its items: its own fields
/// (`page`, `page_size`, `total`, `has_more`), a `note` saying it holds
/// less than asked, a `continuation_token`, and the wrapping a client's
/// serialization may add.
const PAGE_OVERHEAD: usize = 96 + 320 + 80 + WRAPPING;

/// What a client's serialization of `structuredContent` may add to an
/// answer's text: the `{"result":…}` a result that is not an object is
/// wrapped in.
pub(crate) const WRAPPING: usize = 16;

/// One page of a list: `{items, page, page_size, total, has_more}`, a
/// wrapper's other fields first; with a `note` when it holds fewer items
/// than asked because more would not fit what the calling client keeps,
/// and a `continuation_token` when it stands for a result kept behind one.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(title = "page")]
pub(crate) struct Page {
    /// The other fields of a wrapper object, in its order; none for a list.
    /// They are the result's own, so the published schema names none.
    #[serde(flatten)]
    #[schemars(skip)]
    siblings: Map<String, Value>,
    items: Vec<Value>,
    /// Counted from 1.
    page: usize,
    page_size: usize,
    /// How many items the whole list has.
    total: usize,
    /// Whether a later page has items.
    has_more: bool,
    /// The token the rest of the result is kept behind, where this page
    /// answers a call that kept it (`verify` on a large bulk write).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    continuation_token: Option<String>,
    /// Why the page holds fewer items than asked, and the call that reads
    /// on from it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    note: Option<String>,
}

impl Page {
    /// The page `negotiation` asks of the whole list `items`, after
    /// `siblings`; `keep` narrows the page's objects to those fields. The
    /// page holds what fits the client ([`fit`]).
    fn of(
        siblings: Map<String, Value>,
        items: Vec<Value>,
        negotiation: &Negotiation,
        keep: Option<&[String]>,
    ) -> Result<Page, NegotiationError> {
        let total = items.len();
        let narrowed = |item: Value| match item {
            Value::Object(map) if keep.is_some() => Value::Object(narrow(map, keep)),
            other => other,
        };
        let mut negotiation = negotiation.clone();
        if !negotiation.page_size_asked {
            let room = items_room(negotiation.keeps, &siblings);
            let sizes: Vec<usize> = items
                .iter()
                .take(negotiation.page_size)
                .map(|item| size_of(&narrowed(item.clone())))
                .collect();
            negotiation.page_size = fitting_page_size(&sizes, room, negotiation.page_size);
        }
        let (start, _) = page_bounds(total, &negotiation);
        let taken: Vec<Value> = items
            .into_iter()
            .skip(start)
            .take(negotiation.page_size)
            .map(narrowed)
            .collect();
        let sizes: Vec<usize> = taken.iter().map(size_of).collect();
        fit(siblings, taken, &sizes, total, &negotiation)
    }

    /// This page, standing for the result kept behind `token`.
    pub(crate) fn with_token(mut self, token: &Token) -> Page {
        self.continuation_token = Some(token.as_str().to_owned());
        self
    }

    /// The page's size, as it says it: what the next page is asked with.
    pub(crate) fn page_size(&self) -> usize {
        self.page_size
    }

    /// This page, with `note` said of it (in place of any note it had).
    pub(crate) fn with_note(mut self, note: String) -> Page {
        self.note = Some(note);
        self
    }
}

/// The page `negotiation` asks of a list of `total` items, from `items`,
/// the asked page's own (each `sizes[i]` bytes of compact JSON), after
/// `siblings`: all of them when they fit what the calling client keeps
/// ([`Negotiation::keeps`]); else the longest first part that fits and
/// still lines up with pages of one size (a page `p` of size `k` starts at
/// item `(p - 1) * k`), said in the page's `page` and `page_size`, with a
/// note naming the call that reads on. An item that alone does not fit is
/// an error saying how to read it narrowed.
pub(crate) fn fit(
    siblings: Map<String, Value>,
    mut items: Vec<Value>,
    sizes: &[usize],
    total: usize,
    negotiation: &Negotiation,
) -> Result<Page, NegotiationError> {
    let (start, end) = page_bounds(total, negotiation);
    let room = items_room(negotiation.keeps, &siblings);
    let fits = fitting(sizes.iter().copied(), room);
    if fits >= items.len() {
        return Ok(Page {
            siblings,
            items,
            page: negotiation.page,
            page_size: negotiation.page_size,
            total,
            has_more: end < total,
            continuation_token: None,
            note: None,
        });
    }
    if fits == 0 {
        return Err(NegotiationError::ItemTooLarge {
            item: start + 1,
            size: sizes[0],
            keeps: negotiation.keeps,
        });
    }
    // The largest size of page, at most what fits, whose pages line up
    // with this one's start: 1 always does.
    let size = (1..=fits).rev().find(|size| start % size == 0).unwrap_or(1);
    items.truncate(size);
    let page = start / size + 1;
    let note = if negotiation.page_size_asked {
        format!(
            "page_size {} would answer more than this client keeps ({} bytes), so this is \
             page {page} of page_size {size}; ask page {} with page_size {size} for the items \
             after it",
            negotiation.page_size,
            negotiation.keeps,
            page + 1,
        )
    } else {
        format!(
            "this client keeps {} bytes, which hold {size} of these items: this is page \
             {page} of page_size {size}; ask page {} with page_size {size} for the items \
             after it",
            negotiation.keeps,
            page + 1,
        )
    };
    Ok(Page {
        siblings,
        items,
        page,
        page_size: size,
        total,
        has_more: start + size < total,
        continuation_token: None,
        note: Some(note),
    })
}

/// The page size of a page the caller did not size: as many of the list's
/// first items (`sizes`, at most `most` of them) as fit `room` bytes less
/// a tenth, at least one, and from ten up a multiple of ten. Worked out
/// from the list's start, so every page of one result and one client has
/// the same size; the tenth held back lets later items run a little
/// larger than the first ones (ids and counters grow a digit) and still
/// fit, and a round size lets a page that does not fit answer a part that
/// still lines up (a half, a fifth, a tenth) rather than a single item.
pub(crate) fn fitting_page_size(sizes: &[usize], room: usize, most: usize) -> usize {
    let fits = fitting(sizes.iter().copied().take(most), room - room / 10);
    let size = fits.clamp(1, most.max(1));
    if size >= 10 { size - size % 10 } else { size }
}

/// How many of the items whose compact JSON takes `sizes` bytes, from the
/// first, fit `room` bytes as the elements of one JSON array.
pub(crate) fn fitting(sizes: impl IntoIterator<Item = usize>, room: usize) -> usize {
    // `[` and `]`, then a comma before every item but the first.
    let mut used = 2;
    let mut count = 0;
    for size in sizes {
        let more = size + usize::from(count > 0);
        if used + more > room {
            break;
        }
        used += more;
        count += 1;
    }
    count
}

/// The bytes a page's items may take in an answer to a client that keeps
/// `keeps` bytes, after `siblings`.
pub(crate) fn items_room(keeps: usize, siblings: &Map<String, Value>) -> usize {
    let siblings = match siblings.is_empty() {
        true => 0,
        false => size_of(siblings),
    };
    keeps.saturating_sub(PAGE_OVERHEAD + siblings)
}

/// The bytes of `value`'s compact JSON, counted, not written.
pub(crate) fn size_of<T: Serialize + ?Sized>(value: &T) -> usize {
    // A `Value` always serializes.
    crate::writes::envelope::data_size(value).unwrap_or(0)
}

/// How `paginated` and `filtered` treat a value.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Layout {
    /// A list: paged.
    List,
    /// An object with a list field, named here, that pages: its one list
    /// field, or a read's with the most items (the first of equals).
    Wrapper(String),
    /// Anything else: served whole.
    Whole,
}

/// The layout of `value`; a single write is always whole.
pub(super) fn layout(value: &Value, origin: Origin) -> Layout {
    if origin == Origin::SingleWrite {
        return Layout::Whole;
    }
    match value {
        Value::Array(_) => Layout::List,
        Value::Object(map) => {
            let mut lists = map
                .iter()
                .filter_map(|(key, field)| Some((key, field.as_array()?.len())));
            let wrapped = match origin {
                // A read's longest list, the first of equals.
                Origin::Read => {
                    lists.reduce(|most, next| if next.1 > most.1 { next } else { most })
                }
                // A bulk write's one list (its `accepted` and ids are that
                // list's): of two lists, neither is what was written.
                _ => match (lists.next(), lists.next()) {
                    (one, None) => one,
                    _ => None,
                },
            };
            wrapped.map_or(Layout::Whole, |(key, _)| Layout::Wrapper(key.clone()))
        }
        _ => Layout::Whole,
    }
}

/// Pages `value` according to `layout`; `keep` narrows the page's items
/// (or a whole object) to those fields.
pub(super) fn paginate(
    value: Value,
    layout: Layout,
    negotiation: &Negotiation,
    keep: Option<&[String]>,
) -> Result<Value, NegotiationError> {
    Ok(match (layout, value) {
        (Layout::List, Value::Array(items)) => {
            to_json(Page::of(Map::new(), items, negotiation, keep)?)
        }
        (Layout::Wrapper(key), Value::Object(mut map)) => {
            let collides = map
                .keys()
                .any(|field| *field != key && PAGE_FIELDS.contains(&field.as_str()));
            if collides {
                // Flat after the siblings would overwrite one of them: the
                // page takes the list's place under the list's key instead.
                if let Some(field) = map.get_mut(&key)
                    && let Value::Array(items) = field.take()
                {
                    *field = to_json(Page::of(Map::new(), items, negotiation, keep)?);
                }
                return Ok(Value::Object(map));
            }
            match map.shift_remove(&key) {
                Some(Value::Array(items)) => to_json(Page::of(map, items, negotiation, keep)?),
                // Not reached: the layout names a list field.
                _ => Value::Object(map),
            }
        }
        (_, Value::Object(map)) if keep.is_some() => Value::Object(narrow(map, keep)),
        (_, value) => value,
    })
}

/// The positions of the items the page `negotiation` asks for, before the
/// list's length is known: a store reads just these (fewer at the end).
pub(crate) fn page_range(negotiation: &Negotiation) -> Range<usize> {
    let (start, end) = page_bounds(usize::MAX, negotiation);
    start..end
}

/// Where the page `negotiation` asks for starts and ends in a list of
/// `total` items; an absurd page number is simply past the end.
fn page_bounds(total: usize, negotiation: &Negotiation) -> (usize, usize) {
    let start = (negotiation.page - 1)
        .saturating_mul(negotiation.page_size)
        .min(total);
    (
        start,
        start.saturating_add(negotiation.page_size).min(total),
    )
}

/// An item of a stored list as `filtered` answers it: an object keeps only
/// `keys`, in its own order; anything else is kept as it is.
pub(crate) fn narrow_item(item: Value, keys: &[String]) -> Value {
    match item {
        Value::Object(map) => Value::Object(narrow(map, Some(keys))),
        other => other,
    }
}

/// `map` with only the fields in `keep` (all of them when `keep` is `None`),
/// in the map's own order.
fn narrow(map: Map<String, Value>, keep: Option<&[String]>) -> Map<String, Value> {
    match keep {
        None => map,
        Some(keys) => map
            .into_iter()
            .filter(|(field, _)| keys.contains(field))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::heavy::test_support::{asked, config, ids, rows, take};
    use crate::heavy::{HeavyConfig, Mode, serve};

    // --- paginated ---

    #[test]
    fn list_page_1_middle_last_and_past_end() {
        let value = rows(45);
        let first = serve(
            value.clone(),
            Origin::Read,
            &asked(Mode::Paginated, 1, 20),
            &config(),
        )
        .unwrap();
        assert_eq!(
            first.as_object().unwrap().keys().collect::<Vec<_>>(),
            PAGE_FIELDS
        );
        assert_eq!(ids(&first), (1..=20).collect::<Vec<_>>());
        assert_eq!(
            (&first["page"], &first["page_size"], &first["total"]),
            (&json!(1), &json!(20), &json!(45))
        );
        assert_eq!(first["has_more"], true);

        let middle = serve(
            value.clone(),
            Origin::Read,
            &asked(Mode::Paginated, 2, 20),
            &config(),
        )
        .unwrap();
        assert_eq!(ids(&middle), (21..=40).collect::<Vec<_>>());
        assert_eq!(middle["has_more"], true);

        let last = serve(
            value.clone(),
            Origin::Read,
            &asked(Mode::Paginated, 3, 20),
            &config(),
        )
        .unwrap();
        assert_eq!(ids(&last), (41..=45).collect::<Vec<_>>());
        assert_eq!(last["has_more"], false);

        let past = serve(
            value,
            Origin::Read,
            &asked(Mode::Paginated, 4, 20),
            &config(),
        )
        .unwrap();
        assert_eq!(
            past,
            json!({"items": [], "page": 4, "page_size": 20, "total": 45, "has_more": false})
        );
    }

    #[test]
    fn default_pages_hold_later_items_a_little_larger_than_the_first() {
        // Items whose ids grow from two digits to three: the page sized
        // from the first items still holds the later ones whole.
        let item = |n: usize| json!({"id": n, "title": format!("task {n}: inspect the site")});
        let items: Vec<Value> = (10..600).map(item).collect();
        let sizes: Vec<usize> = items.iter().map(size_of).collect();
        let room = 2_000;
        let size = fitting_page_size(&sizes[..200], room, 200);
        assert_eq!(size % 10, 0, "a round size: {size}");
        assert!(fitting(sizes[..size].iter().copied(), room) == size);
        let later = &sizes[size * 10..size * 11];
        assert_eq!(fitting(later.iter().copied(), room), size, "{later:?}");
    }

    #[test]
    fn a_default_page_is_round_from_ten_and_at_least_one() {
        assert_eq!(fitting_page_size(&[100; 200], 10_000, 200), 80);
        assert_eq!(fitting_page_size(&[1_000; 200], 10_000, 200), 8);
        assert_eq!(fitting_page_size(&[20_000; 3], 10_000, 200), 1);
        assert_eq!(fitting_page_size(&[10; 200], 100_000, 200), 200);
        assert_eq!(fitting_page_size(&[10; 200], 100_000, 15), 10);
    }

    #[test]
    fn an_exactly_full_last_page_has_no_more() {
        let page = serve(
            rows(40),
            Origin::Read,
            &asked(Mode::Paginated, 2, 20),
            &config(),
        )
        .unwrap();
        assert_eq!(ids(&page).len(), 20);
        assert_eq!(page["has_more"], false);
    }

    #[test]
    fn an_empty_list_has_an_empty_first_page() {
        let page = serve(
            json!([]),
            Origin::Read,
            &asked(Mode::Paginated, 1, 20),
            &config(),
        )
        .unwrap();
        assert_eq!(
            page,
            json!({"items": [], "page": 1, "page_size": 20, "total": 0, "has_more": false})
        );
    }

    #[test]
    fn an_absurd_page_is_past_the_end_not_an_overflow() {
        let page = serve(
            rows(3),
            Origin::Read,
            &asked(Mode::Paginated, usize::MAX, 200),
            &config(),
        )
        .unwrap();
        assert_eq!(page["items"], json!([]));
        assert_eq!(page["has_more"], false);
    }

    #[test]
    fn the_default_negotiation_serves_as_many_items_as_fit_the_client() {
        let mut negotiation = take(json!({})).unwrap();
        // Without a client's bound, the largest page.
        let page = serve(rows(300), Origin::Read, &negotiation, &config()).unwrap();
        assert_eq!(ids(&page).len(), 200);
        // A client that keeps 6,000 bytes: as many 46-byte rows as fit.
        negotiation.keeps = 6_000;
        let page = serve(rows(300), Origin::Read, &negotiation, &config()).unwrap();
        let served = ids(&page).len();
        assert!((80..150).contains(&served), "{served}");
        assert!(page.to_string().len() <= 6_000 - WRAPPING);
        assert_eq!(page["page_size"], served);
        assert!(page.get("note").is_none());
        // The next page has the same size.
        negotiation.page = 2;
        let second = serve(rows(300), Origin::Read, &negotiation, &config()).unwrap();
        assert_eq!(second["items"][0]["id"], served + 1);
    }

    #[test]
    fn an_asked_page_that_does_not_fit_answers_what_fits_and_names_the_next_call() {
        let wide: Value = (1..=100)
            .map(|id| json!({"id": id, "blob": "x".repeat(900)}))
            .collect();
        let mut negotiation = asked(Mode::Paginated, 2, 40);
        negotiation.keeps = 10_000;
        let page = serve(wide.clone(), Origin::Read, &negotiation, &config()).unwrap();
        assert!(page.to_string().len() <= 10_000 - WRAPPING);
        // Page 2 of 40 starts at item 41: a page that starts there and fits
        // (8 items of ~920 bytes, lined up on 40 = 5 x 8).
        let size = page["page_size"].as_u64().unwrap() as usize;
        assert_eq!(page["items"][0]["id"], 41);
        assert_eq!(40 % size, 0);
        assert_eq!(page["page"], 40 / size + 1);
        let note = page["note"].as_str().unwrap();
        assert!(
            note.contains(&format!("ask page {} with page_size {size}", 40 / size + 2)),
            "{note}"
        );
        // The call it names reads on exactly where this page ends.
        let mut next = asked(Mode::Paginated, 40 / size + 2, size);
        next.keeps = 10_000;
        let after = serve(wide, Origin::Read, &next, &config()).unwrap();
        assert_eq!(after["items"][0]["id"], 41 + size);
    }

    #[test]
    fn an_item_larger_than_the_client_keeps_is_refused_naming_how_to_read_it() {
        let huge = json!([{"id": 1}, {"id": 2, "blob": "x".repeat(20_000)}]);
        let mut negotiation = asked(Mode::Paginated, 2, 1);
        negotiation.keeps = 10_000;
        let error = serve(huge, Origin::Read, &negotiation, &config()).unwrap_err();
        assert!(
            error.to_string().contains("item 2 of the list alone"),
            "{error}"
        );
        assert!(error.to_string().contains("mode filtered"), "{error}");
    }

    #[test]
    fn page_size_up_to_the_maximum_is_served_and_over_it_refused() {
        let page = serve(
            rows(500),
            Origin::Read,
            &asked(Mode::Paginated, 1, 200),
            &config(),
        )
        .unwrap();
        assert_eq!(ids(&page).len(), 200);
        let err = serve(
            rows(500),
            Origin::Read,
            &asked(Mode::Paginated, 1, 201),
            &config(),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "page_size must be an integer from 1 to 200; got 201"
        );
        let err = serve(
            rows(5),
            Origin::Read,
            &asked(Mode::Paginated, 0, 20),
            &config(),
        )
        .unwrap_err();
        assert_eq!(err.field(), "page");
    }

    #[test]
    fn an_object_with_one_list_pages_it_and_keeps_its_siblings_first() {
        let value = json!({"site": "hq", "devices": rows(25), "generated": "now"});
        let page = serve(
            value,
            Origin::Read,
            &asked(Mode::Paginated, 2, 20),
            &config(),
        )
        .unwrap();
        assert_eq!(
            page.as_object().unwrap().keys().collect::<Vec<_>>(),
            [
                "site",
                "generated",
                "items",
                "page",
                "page_size",
                "total",
                "has_more"
            ]
        );
        assert_eq!(
            (&page["site"], &page["generated"]),
            (&json!("hq"), &json!("now"))
        );
        assert_eq!(ids(&page), (21..=25).collect::<Vec<_>>());
        assert_eq!(
            (&page["total"], &page["has_more"]),
            (&json!(25), &json!(false))
        );
    }

    #[test]
    fn a_sibling_named_like_a_page_field_is_not_overwritten() {
        let value = json!({"total": 5000, "page": 7, "results": rows(3)});
        let page = serve(
            value,
            Origin::Read,
            &asked(Mode::Paginated, 1, 2),
            &config(),
        )
        .unwrap();
        assert_eq!(
            page,
            json!({
                "total": 5000, "page": 7,
                "results": {"items": [rows(3)[0], rows(3)[1]], "page": 1, "page_size": 2, "total": 3, "has_more": true},
            })
        );
    }

    #[test]
    fn a_list_field_named_items_pages_flat() {
        let value = json!({"items": rows(3), "next": null});
        let page = serve(
            value,
            Origin::Read,
            &asked(Mode::Paginated, 1, 2),
            &config(),
        )
        .unwrap();
        assert_eq!(page["next"], Value::Null);
        assert_eq!(ids(&page), [1, 2]);
    }

    #[test]
    fn an_object_with_two_lists_pages_the_longest_and_keeps_the_other_beside_it() {
        for value in [
            json!({"sites": ["hq", "lab"], "devices": rows(30)}),
            json!({"devices": rows(30), "sites": ["hq", "lab"]}),
        ] {
            let served = serve(
                value,
                Origin::Read,
                &asked(Mode::Paginated, 2, 20),
                &config(),
            )
            .unwrap();
            assert_eq!(served["sites"], json!(["hq", "lab"]));
            assert_eq!(ids(&served), (21..=30).collect::<Vec<_>>());
            assert_eq!(served["total"], 30);
        }
        // Of equal lists, the first.
        let equal = json!({"a": [1, 2], "b": [3, 4]});
        assert_eq!(
            layout(&equal, Origin::Read),
            Layout::Wrapper("a".to_owned())
        );
        // A bulk write's two lists: neither is what was written, as its
        // envelope counts it.
        assert_eq!(layout(&equal, Origin::BulkWrite), Layout::Whole);
    }

    #[test]
    fn non_lists_are_returned_whole() {
        for value in [
            json!({"id": 1, "name": "edge"}),
            json!("text"),
            json!(3),
            json!(null),
        ] {
            let served = serve(
                value.clone(),
                Origin::Read,
                &asked(Mode::Paginated, 1, 20),
                &config(),
            )
            .unwrap();
            assert_eq!(served, value);
        }
    }

    #[test]
    fn a_single_write_is_never_paged() {
        let device = json!({"id": 7, "name": "edge-01", "tags": (0..50).collect::<Vec<_>>()});
        for mode in [Mode::Paginated, Mode::Full] {
            let served = serve(
                device.clone(),
                Origin::SingleWrite,
                &asked(mode, 1, 20),
                &config(),
            )
            .unwrap();
            assert_eq!(served, device);
        }
        let list = rows(30);
        let served = serve(
            list.clone(),
            Origin::SingleWrite,
            &asked(Mode::Paginated, 1, 20),
            &config(),
        )
        .unwrap();
        assert_eq!(served, list);
    }

    #[test]
    fn a_bulk_write_is_paged() {
        let page = serve(
            rows(30),
            Origin::BulkWrite,
            &asked(Mode::Paginated, 2, 20),
            &config(),
        )
        .unwrap();
        assert_eq!(ids(&page), (21..=30).collect::<Vec<_>>());
    }

    // --- a page read by range ---

    /// The page `negotiation` asks of `list`, read from a store by range.
    async fn page_read_by_range(list: &Value, origin: Origin, negotiation: &Negotiation) -> Value {
        use crate::store::{ContinuationStore, Entry, MemoryStore, Owner, StoredItems};
        let store = MemoryStore::default();
        let token = crate::token::Token::mint().unwrap();
        let owner = Owner::new("process", "device_list");
        let body = serde_json::to_vec(list).unwrap();
        let entry = Entry::new(owner, origin, body);
        store.put(&token, entry).await.unwrap();
        let found = store.get_items(&token, page_range(negotiation)).await;
        let Some(StoredItems::List(read)) = found.unwrap() else {
            panic!("a stored list reads as a list");
        };
        let items: Vec<Value> = read
            .items
            .iter()
            .map(|item| serde_json::from_slice(item).unwrap())
            .collect();
        let sizes: Vec<usize> = read.items.iter().map(Vec::len).collect();
        to_json(fit(Map::new(), items, &sizes, read.total, negotiation).unwrap())
    }

    #[tokio::test]
    async fn a_page_read_by_range_matches_the_page_of_the_parsed_list() {
        let config = HeavyConfig::default();
        let list = json!(
            (0..45)
                .map(|i| json!({"id": i, "tags": ["a"]}))
                .collect::<Vec<_>>()
        );
        for origin in [Origin::Read, Origin::BulkWrite] {
            for (page, page_size) in [(1, 20), (3, 20), (4, 20), (usize::MAX, 20), (2, 7)] {
                let negotiation = Negotiation {
                    page,
                    page_size,
                    ..Negotiation::with_mode(Mode::Paginated, &config)
                };
                let by_range = page_read_by_range(&list, origin, &negotiation).await;
                let parsed = serve(list.clone(), origin, &negotiation, &config).unwrap();
                assert_eq!(by_range, parsed, "page {page} of {page_size}");
            }
        }
    }

    #[tokio::test]
    async fn a_page_read_by_range_gives_the_asked_page() {
        let config = HeavyConfig::default();
        let second = Negotiation {
            page: 2,
            page_size: 2,
            ..Negotiation::with_mode(Mode::Paginated, &config)
        };
        assert_eq!(page_range(&second), 2..4);
        let page = page_read_by_range(&json!([1, 2, 3, 4, 5]), Origin::Read, &second).await;
        assert_eq!(
            page.to_string(),
            r#"{"items":[3,4],"page":2,"page_size":2,"total":5,"has_more":true}"#
        );
    }
}
