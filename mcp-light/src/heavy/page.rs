//! Paging: which values are pageable, and one page of them.

use std::ops::Range;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Map, Value};

use super::{Negotiation, to_json};
use crate::store::Origin;

/// The fields of a page, in the order a [`Page`] writes them.
const PAGE_FIELDS: [&str; 5] = ["items", "page", "page_size", "total", "has_more"];

/// One page of a list: `{items, page, page_size, total, has_more}`, a
/// wrapper's other fields first.
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
}

impl Page {
    /// The page `negotiation` asks for out of a list of `total` items, of
    /// which `items` are the page's own, after `siblings`.
    fn new(
        siblings: Map<String, Value>,
        items: Vec<Value>,
        total: usize,
        negotiation: &Negotiation,
    ) -> Page {
        let (_, end) = page_bounds(total, negotiation);
        Page {
            siblings,
            items,
            page: negotiation.page,
            page_size: negotiation.page_size,
            total,
            has_more: end < total,
        }
    }

    /// The page `negotiation` asks of the whole list `items`, after
    /// `siblings`; `keep` narrows the page's objects to those fields.
    fn of(
        siblings: Map<String, Value>,
        items: Vec<Value>,
        negotiation: &Negotiation,
        keep: Option<&[String]>,
    ) -> Page {
        let total = items.len();
        let (start, _) = page_bounds(total, negotiation);
        let taken: Vec<Value> = items
            .into_iter()
            .skip(start)
            .take(negotiation.page_size)
            .map(|item| match item {
                Value::Object(map) if keep.is_some() => Value::Object(narrow(map, keep)),
                other => other,
            })
            .collect();
        Page::new(siblings, taken, total, negotiation)
    }
}

/// How `paginated` and `filtered` treat a value.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Layout {
    /// A list: paged.
    List,
    /// An object with exactly one list field, named here: that list is paged.
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
            let mut lists = map.iter().filter(|(_, field)| field.is_array());
            match (lists.next(), lists.next()) {
                (Some((key, _)), None) => Layout::Wrapper(key.clone()),
                _ => Layout::Whole,
            }
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
) -> Value {
    match (layout, value) {
        (Layout::List, Value::Array(items)) => {
            to_json(Page::of(Map::new(), items, negotiation, keep))
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
                    *field = to_json(Page::of(Map::new(), items, negotiation, keep));
                }
                return Value::Object(map);
            }
            match map.shift_remove(&key) {
                Some(Value::Array(items)) => to_json(Page::of(map, items, negotiation, keep)),
                // Not reached: the layout names a list field.
                _ => Value::Object(map),
            }
        }
        (_, Value::Object(map)) if keep.is_some() => Value::Object(narrow(map, keep)),
        (_, value) => value,
    }
}

/// The positions of the items the page `negotiation` asks for, before the
/// list's length is known: a store reads just these (fewer at the end).
pub(crate) fn page_range(negotiation: &Negotiation) -> Range<usize> {
    let (start, end) = page_bounds(usize::MAX, negotiation);
    start..end
}

/// The page `negotiation` asks of a stored list of `total` items, from the
/// items a store read for it ([`page_range`]): only the page was parsed.
pub(crate) fn page_of_items(items: Vec<Value>, total: usize, negotiation: &Negotiation) -> Page {
    Page::new(Map::new(), items, total, negotiation)
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
    fn the_default_negotiation_serves_20_items() {
        let negotiation = take(json!({})).unwrap();
        let page = serve(rows(100), Origin::Read, &negotiation, &config()).unwrap();
        assert_eq!(ids(&page).len(), 20);
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
    fn an_object_with_two_lists_is_returned_whole() {
        let value = json!({"devices": rows(30), "sites": ["hq", "lab"]});
        let served = serve(
            value.clone(),
            Origin::Read,
            &asked(Mode::Paginated, 1, 20),
            &config(),
        )
        .unwrap();
        assert_eq!(served, value);
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
        let token = crate::continuation::token::Token::mint().unwrap();
        let owner = Owner::new("process", "device_list");
        let body = serde_json::to_vec(list).unwrap();
        let entry = Entry::new(owner, origin, body);
        store.put(&token, entry).await.unwrap();
        let found = store.get_items(&token, page_range(negotiation)).await;
        let Some(StoredItems::List(read)) = found.unwrap() else {
            panic!("a stored list reads as a list");
        };
        let items = read
            .items
            .iter()
            .map(|item| serde_json::from_slice(item).unwrap());
        to_json(page_of_items(items.collect(), read.total, negotiation))
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
