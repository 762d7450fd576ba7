//! `summary`: the shape of a result in a few lines.

use serde_json::{Map, Value, json};

use super::ELLIPSIS;
use super::page::{Layout, layout};
use crate::store::Origin;

/// How many leading items (or entries) a summary shows.
const SUMMARY_ITEMS: usize = 3;

/// Strings in a summary longer than this many characters are shortened.
const SUMMARY_STRING_CHARS: usize = 80;

/// How many keys of an object a summary names.
const SUMMARY_KEYS: usize = 50;

/// `summary`: the type, the count, the keys or the first few items.
pub(super) fn summarize(value: &Value, origin: Origin) -> Value {
    match value {
        Value::Array(items) => json!({
            "type": "list",
            "count": items.len(),
            "first": items.iter().take(SUMMARY_ITEMS).map(shorten).collect::<Vec<_>>(),
        }),
        Value::Object(map) => {
            let keys: Map<String, Value> = map
                .iter()
                .take(SUMMARY_KEYS)
                .map(|(key, field)| (key.clone(), shape(field).into()))
                .collect();
            let mut summary = Map::new();
            summary.insert("type".into(), "object".into());
            summary.insert("count".into(), map.len().into());
            summary.insert("keys".into(), keys.into());
            if let Layout::Wrapper(key) = layout(value, origin) {
                let first: Vec<Value> = map[&key]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .take(SUMMARY_ITEMS)
                    .map(shorten)
                    .collect();
                summary.insert("paged".into(), key.into());
                summary.insert("first".into(), first.into());
            }
            Value::Object(summary)
        }
        Value::String(text) => json!({
            "type": "string",
            "length": text.chars().count(),
            "value": shorten(value),
        }),
        scalar => json!({"type": shape(scalar), "value": scalar}),
    }
}

/// The shape of a value in a word: `"list(93)"`, `"object(4)"`, `"string"`.
fn shape(value: &Value) -> String {
    match value {
        Value::Array(items) => format!("list({})", items.len()),
        Value::Object(map) => format!("object({})", map.len()),
        Value::String(_) => "string".into(),
        Value::Number(_) => "number".into(),
        Value::Bool(_) => "bool".into(),
        Value::Null => "null".into(),
    }
}

/// The value as a summary shows it: long strings cut, long lists cut to a
/// few items and a marker saying how many were left out.
fn shorten(value: &Value) -> Value {
    match value {
        Value::String(text) if text.chars().count() > SUMMARY_STRING_CHARS => {
            let mut cut: String = text.chars().take(SUMMARY_STRING_CHARS).collect();
            cut.push(ELLIPSIS);
            cut.into()
        }
        Value::Array(items) => {
            let mut kept: Vec<Value> = items.iter().take(SUMMARY_ITEMS).map(shorten).collect();
            if items.len() > SUMMARY_ITEMS {
                kept.push(format!("{ELLIPSIS} {} more", items.len() - SUMMARY_ITEMS).into());
            }
            kept.into()
        }
        Value::Object(map) => map
            .iter()
            .map(|(key, field)| (key.clone(), shorten(field)))
            .collect(),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heavy::test_support::{asked, config, rows};
    use crate::heavy::{Mode, serve};

    #[test]
    fn summary_of_a_list_counts_and_shows_three_shortened_items() {
        let long = "x".repeat(500);
        let value: Value = (1..=1000)
            .map(|id| json!({"id": id, "note": long}))
            .collect();
        let summary = serve(value, Origin::Read, &asked(Mode::Summary, 1, 20), &config()).unwrap();
        assert_eq!(
            summary.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["type", "count", "first"]
        );
        assert_eq!(
            (&summary["type"], &summary["count"]),
            (&json!("list"), &json!(1000))
        );
        let first = summary["first"].as_array().unwrap();
        assert_eq!(first.len(), 3);
        let note = first[0]["note"].as_str().unwrap();
        assert_eq!(note, format!("{}…", "x".repeat(80)));
        assert!(summary.to_string().len() < 600, "{summary}");
    }

    #[test]
    fn summary_of_an_object_gives_its_keys_and_their_shapes() {
        let value = json!({"id": 7, "name": "edge", "tags": ["a", "b"], "meta": {"x": 1}, "ok": true, "gone": null});
        let summary = serve(value, Origin::Read, &asked(Mode::Summary, 1, 20), &config()).unwrap();
        assert_eq!(
            summary,
            json!({
                "type": "object", "count": 6,
                "keys": {"id": "number", "name": "string", "tags": "list(2)", "meta": "object(1)", "ok": "bool", "gone": "null"},
                "paged": "tags",
                "first": ["a", "b"],
            })
        );
    }

    #[test]
    fn summary_of_a_wrapper_names_the_paged_list_and_its_first_items() {
        let value = json!({"count": 93, "next": "p2", "previous": null, "results": rows(93)});
        let summary = serve(value, Origin::Read, &asked(Mode::Summary, 1, 20), &config()).unwrap();
        assert_eq!(summary["keys"]["results"], "list(93)");
        assert_eq!(summary["paged"], "results");
        assert_eq!(
            summary["first"],
            json!([rows(3)[0], rows(3)[1], rows(3)[2]])
        );
    }

    #[test]
    fn summary_of_a_single_write_names_no_paged_list() {
        let device = json!({"id": 7, "tags": ["a", "b"]});
        let summary = serve(
            device,
            Origin::SingleWrite,
            &asked(Mode::Summary, 1, 20),
            &config(),
        )
        .unwrap();
        assert!(summary.get("paged").is_none(), "{summary}");
    }

    #[test]
    fn summary_of_a_huge_object_names_at_most_50_keys() {
        let value: Value = (0..1000)
            .map(|i| (format!("k{i}"), json!(i)))
            .collect::<Map<_, _>>()
            .into();
        let summary = serve(value, Origin::Read, &asked(Mode::Summary, 1, 20), &config()).unwrap();
        assert_eq!(summary["count"], 1000);
        assert_eq!(summary["keys"].as_object().unwrap().len(), 50);
    }

    #[test]
    fn summary_of_scalars() {
        let summary = serve(
            json!("y".repeat(5000)),
            Origin::Read,
            &asked(Mode::Summary, 1, 20),
            &config(),
        )
        .unwrap();
        assert_eq!(
            summary,
            json!({"type": "string", "length": 5000, "value": format!("{}…", "y".repeat(80))})
        );
        let summary = serve(
            json!(42),
            Origin::Read,
            &asked(Mode::Summary, 1, 20),
            &config(),
        )
        .unwrap();
        assert_eq!(summary, json!({"type": "number", "value": 42}));
        let summary = serve(
            json!(null),
            Origin::Read,
            &asked(Mode::Summary, 1, 20),
            &config(),
        )
        .unwrap();
        assert_eq!(summary, json!({"type": "null", "value": null}));
    }

    #[test]
    fn summary_cuts_nested_lists_with_a_count_of_the_rest() {
        let value = json!([{"id": 1, "ports": (1..=48).collect::<Vec<_>>()}]);
        let summary = serve(value, Origin::Read, &asked(Mode::Summary, 1, 20), &config()).unwrap();
        assert_eq!(summary["first"][0]["ports"], json!([1, 2, 3, "… 45 more"]));
    }
}
