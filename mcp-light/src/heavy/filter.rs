//! `filtered`: only the named fields of the records, paged like
//! `paginated`.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::digest::{Digest, ResultShape};
use super::page::{Layout, layout, paginate};
use super::{Negotiation, NegotiationError, kind};
use crate::store::Origin;

/// `filtered`: finds the records, checks that the keys match something, then
/// pages like `paginated` with the items narrowed.
pub(super) fn filter(
    value: Value,
    origin: Origin,
    negotiation: &Negotiation,
) -> Result<Value, NegotiationError> {
    let keys = negotiation.filter_keys.as_slice();
    let mut layout = layout(&value, origin);
    // A wrapper whose list holds no objects has nothing to filter inside it,
    // so its own fields are the record (e.g. `{"count": 3, "names": [...]}`).
    if let (Layout::Wrapper(key), Value::Object(map)) = (&layout, &value)
        && !map[key]
            .as_array()
            .is_some_and(|items| items.iter().any(Value::is_object))
    {
        layout = Layout::Whole;
    }
    let records: Vec<&Map<String, Value>> = match (&layout, &value) {
        (Layout::List, Value::Array(items)) => items.iter().filter_map(Value::as_object).collect(),
        (Layout::Wrapper(key), Value::Object(map)) => map[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_object)
            .collect(),
        (_, Value::Object(map)) => vec![map],
        (_, other) => {
            return Err(NegotiationError::NotFilterable {
                kind: kind(other).into(),
            });
        }
    };
    if let Value::Array(items) = &value
        && records.is_empty()
        && !items.is_empty()
    {
        return Err(NegotiationError::NotFilterable {
            kind: "a list without objects".into(),
        });
    }
    // Each field of each record is looked up once in the keys, so the cost
    // is the records' size, however many keys were sent.
    let wanted: HashSet<&str> = keys.iter().map(String::as_str).collect();
    let matched = records
        .iter()
        .any(|record| record.keys().any(|field| wanted.contains(field.as_str())));
    if let (false, Some(first)) = (matched, records.first()) {
        let fields: Vec<&str> = first.keys().take(10).map(String::as_str).collect();
        return Err(NegotiationError::NoFieldMatched {
            keys: named_keys(keys),
            fields: fields.join(", "),
        });
    }
    paginate(value, layout, negotiation, Some(keys))
}

/// `filtered`'s checks on a stored list, made from its digest before its
/// page is read: a list without objects has nothing to filter, and keys
/// that match no field of any of its objects are an error naming the
/// fields there are, as [`filter`] says of a whole list.
pub(crate) fn check_list_keys(
    digest: &Digest,
    negotiation: &Negotiation,
) -> Result<(), NegotiationError> {
    let ResultShape::List { count, objects } = digest.shape else {
        return Ok(());
    };
    if objects == 0 {
        return match count {
            0 => Ok(()),
            _ => Err(NegotiationError::NotFilterable {
                kind: "a list without objects".into(),
            }),
        };
    }
    let keys = negotiation.filter_keys.as_slice();
    let wanted: HashSet<&str> = keys.iter().map(String::as_str).collect();
    // With more field names than were remembered, a key may match one of
    // the others: let the page show it.
    let matched = digest.fields_capped
        || digest
            .fields
            .iter()
            .any(|field| wanted.contains(field.as_str()));
    if matched {
        return Ok(());
    }
    Err(NegotiationError::NoFieldMatched {
        keys: named_keys(keys),
        fields: digest.first_keys.join(", "),
    })
}

/// The first few of `keys` as a JSON list, and how many more there are:
/// an error names enough to recognise the mistake, never all of them.
fn named_keys(keys: &[String]) -> String {
    const NAMED: usize = 5;
    let named = Value::from(&keys[..keys.len().min(NAMED)]).to_string();
    match keys.len().saturating_sub(NAMED) {
        0 => named,
        more => format!("{named} and {more} more"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::heavy::test_support::{asked, config, rows};
    use crate::heavy::{Mode, serve};

    fn filtered(keys: &[&str], page: usize) -> Negotiation {
        Negotiation {
            mode: Mode::Filtered,
            page,
            page_size: 20,
            page_size_asked: true,
            filter_keys: keys.iter().map(|key| key.to_string()).collect(),
            keeps: usize::MAX,
        }
    }

    #[test]
    fn filtered_keeps_only_the_keys_of_an_object_in_its_own_order() {
        let value = json!({"id": 7, "name": "edge", "serial": "X1", "site": "hq"});
        let served = serve(
            value,
            Origin::Read,
            &filtered(&["site", "id", "absent"], 1),
            &config(),
        )
        .unwrap();
        assert_eq!(served.to_string(), r#"{"id":7,"site":"hq"}"#);
    }

    #[test]
    fn filtered_narrows_each_object_of_a_list_and_pages_it() {
        let mut value = rows(45);
        value
            .as_array_mut()
            .unwrap()
            .insert(0, json!("not an object"));
        let served = serve(value, Origin::Read, &filtered(&["id"], 1), &config()).unwrap();
        let items = served["items"].as_array().unwrap();
        assert_eq!(items.len(), 20);
        assert_eq!(items[0], "not an object");
        assert_eq!(items[1], json!({"id": 1}));
        assert_eq!(
            (&served["total"], &served["has_more"]),
            (&json!(46), &json!(true))
        );

        let last = serve(rows(45), Origin::Read, &filtered(&["name"], 3), &config()).unwrap();
        assert_eq!(
            last["items"],
            json!([{"name": "edge-41"}, {"name": "edge-42"}, {"name": "edge-43"}, {"name": "edge-44"}, {"name": "edge-45"}])
        );
        assert_eq!(last["has_more"], false);
    }

    #[test]
    fn filtered_narrows_a_wrappers_items_and_keeps_its_other_fields() {
        let value = json!({"count": 45, "results": rows(45)});
        let served = serve(value, Origin::Read, &filtered(&["id"], 1), &config()).unwrap();
        assert_eq!(served["count"], 45);
        assert_eq!(served["items"][0], json!({"id": 1}));
        assert_eq!(served["total"], 45);
    }

    #[test]
    fn filtered_on_a_single_write_narrows_the_object_itself() {
        let device = json!({"id": 7, "name": "edge", "tags": ["a"]});
        let served = serve(
            device,
            Origin::SingleWrite,
            &filtered(&["tags"], 1),
            &config(),
        )
        .unwrap();
        assert_eq!(served, json!({"tags": ["a"]}));
    }

    #[test]
    fn filtered_keys_that_match_nothing_name_the_fields_there_are() {
        let err = serve(rows(3), Origin::Read, &filtered(&["nmae"], 1), &config()).unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"filter_keys ["nmae"] matched no field of the result; its fields include id, name, site"#
        );
    }

    #[test]
    fn many_unknown_keys_are_named_a_few_at_a_time_and_counted() {
        let keys: Vec<String> = (0..60).map(|i| format!("unknown-{i}")).collect();
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        let err = serve(rows(3), Origin::Read, &filtered(&keys, 1), &config())
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            r#"filter_keys ["unknown-0","unknown-1","unknown-2","unknown-3","unknown-4"] and 55 more matched no field of the result; its fields include id, name, site"#
        );
    }

    #[test]
    fn filtered_on_a_scalar_or_a_list_of_scalars_is_refused() {
        let err = serve(
            json!("text"),
            Origin::Read,
            &filtered(&["id"], 1),
            &config(),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "mode filtered applies to objects and lists of objects, and this result is a string; use summary, paginated or full"
        );
        let err = serve(
            json!([1, 2]),
            Origin::Read,
            &filtered(&["id"], 1),
            &config(),
        )
        .unwrap_err();
        assert!(err.to_string().contains("a list without objects"), "{err}");
    }

    #[test]
    fn filtered_without_keys_is_refused_by_serve_too() {
        let err = serve(
            rows(3),
            Origin::Read,
            &asked(Mode::Filtered, 1, 20),
            &config(),
        )
        .unwrap_err();
        assert_eq!(err, NegotiationError::FilterKeysRequired);
    }
}
