//! Summarizing a result: a `Value` read whole, or a list counted item by
//! item through each item's own `Serialize` impl ([`super::observe`]).
//!
//! It sits above both the tallies and the serializers that feed them
//! ([`super::summary`], [`super::observe`]), so neither imports the other's
//! caller: the serializers write into the tallies, and this file drives
//! them.

use serde_json::Value;

use super::observe::Item;
use super::page::{Layout, layout};
use super::summary::{Detail, Kind, ListSummary, MAX_FIELDS, ObjectDetail, Summary, cut};
use crate::store::Origin;

impl ListSummary {
    /// Counts one more item, read through its `Serialize` impl (a
    /// [`Value`] or the tool's own type alike), so nothing is built to
    /// count it.
    pub(crate) fn add<T: serde::Serialize + ?Sized>(&mut self, item: &T) {
        self.begin_item();
        // An item that fails to serialize is refused before it is counted.
        let _ = item.serialize(Item { list: self });
    }
}

/// `summary`: the type and size of `value`, and what its fields hold.
pub(super) fn summarize(value: &Value, origin: Origin) -> Summary {
    match value {
        Value::Array(items) => list_summary(items),
        Value::Object(map) => {
            let keys = map
                .iter()
                .take(MAX_FIELDS)
                .map(|(key, field)| (cut(key), shape(field)))
                .collect();
            let paged = match layout(value, origin) {
                Layout::Wrapper(key) => match map.get(&key) {
                    Some(Value::Array(items)) => Some((cut(&key), list_summary(items))),
                    _ => None,
                },
                _ => None,
            };
            let (paged, list) = paged.unzip();
            Summary {
                kind: Kind::Object,
                count: Some(map.len()),
                detail: Detail::Object(ObjectDetail {
                    keys,
                    other_keys: (map.len() > MAX_FIELDS).then(|| map.len() - MAX_FIELDS),
                    paged,
                    list: list.map(Box::new),
                }),
            }
        }
        Value::String(text) => Summary {
            kind: Kind::String,
            count: None,
            detail: Detail::Text {
                length: text.chars().count(),
                value: cut(text),
            },
        },
        scalar => Summary {
            kind: match scalar {
                Value::Number(_) => Kind::Number,
                Value::Bool(_) => Kind::Bool,
                _ => Kind::Null,
            },
            count: None,
            detail: Detail::Scalar {
                value: scalar.clone(),
            },
        },
    }
}

/// The summary of a list of `items`.
fn list_summary(items: &[Value]) -> Summary {
    let mut summary = ListSummary::default();
    for item in items {
        summary.add(item);
    }
    summary.render()
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
