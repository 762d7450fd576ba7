//! What is known of a kept result without its body: its shape, its summary
//! and its field names. Computed once, while the result is written to the
//! store, and kept beside it, so a probe, a `summary` and a `filtered`
//! check never walk the result again.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::page::{Layout, layout};
use super::preview::{ListPreview, fit_or_empty};
use super::summarize::summarize;
use super::summary::ListSummary;
use super::{HeavyConfig, kind, to_json};
use crate::store::Origin;
use crate::usage::Counts;

/// What a result is, as far as paging and filtering go.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "shape", rename_all = "snake_case")]
pub(crate) enum ResultShape {
    /// A pageable list of `count` items, `objects` of them objects.
    List { count: usize, objects: usize },
    /// An object whose list field `key`, of `count` items, is paged: its
    /// one list field, or the longest of several.
    Wrapper {
        key: String,
        count: usize,
        objects: bool,
    },
    /// An object, or anything from a single write: served whole.
    Object,
    /// A string, a number, a boolean or null (`kind` says which, with its
    /// article).
    Scalar { kind: String },
}

impl ResultShape {
    /// The shape of `value`, produced as `origin`.
    pub(crate) fn of(value: &Value, origin: Origin) -> ResultShape {
        match (layout(value, origin), value) {
            (Layout::List, Value::Array(items)) => ResultShape::List {
                count: items.len(),
                objects: items.iter().filter(|item| item.is_object()).count(),
            },
            (Layout::Wrapper(key), Value::Object(map)) => {
                let items = map[&key].as_array().map_or(&[][..], Vec::as_slice);
                ResultShape::Wrapper {
                    count: items.len(),
                    objects: items.iter().any(Value::is_object),
                    key,
                }
            }
            (_, Value::Object(_) | Value::Array(_)) => ResultShape::Object,
            (_, other) => ResultShape::Scalar {
                kind: kind(other).to_owned(),
            },
        }
    }

    /// Whether `paginated` cuts it into pages.
    pub(crate) fn is_pageable(&self) -> bool {
        matches!(self, ResultShape::List { .. } | ResultShape::Wrapper { .. })
    }

    /// How many items `paginated` pages through: a list's, or the wrapped
    /// list's; `None` for what does not page.
    pub(crate) fn item_count(&self) -> Option<usize> {
        match self {
            ResultShape::List { count, .. } | ResultShape::Wrapper { count, .. } => Some(*count),
            ResultShape::Object | ResultShape::Scalar { .. } => None,
        }
    }

    /// Whether `filtered` has records to narrow.
    pub(crate) fn is_filterable(&self) -> bool {
        match self {
            ResultShape::List { objects, .. } => *objects > 0,
            ResultShape::Wrapper { .. } | ResultShape::Object => true,
            ResultShape::Scalar { .. } => false,
        }
    }
}

/// What is kept beside a result: read back by `summary`, `filtered` and
/// the usage report. Stored as JSON, opaque to the store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Digest {
    pub(crate) shape: ResultShape,
    /// The answer of `summary`: a [`Summary`](super::Summary), kept as the
    /// JSON it serializes to.
    pub(crate) summary: Value,
    /// For a list of objects, every field name its objects have (at most
    /// [`MAX_FIELD_NAMES`](super::summary::MAX_FIELD_NAMES)).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) fields: Vec<String>,
    /// More field names were seen than `fields` holds.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub(crate) fields_capped: bool,
    /// The first object's first keys, named when a filter matches nothing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) first_keys: Vec<String>,
    /// The full result's token counts (cl100k, o200k), when the server
    /// reports usage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) usage: Option<(usize, usize)>,
}

impl Digest {
    /// The digest of a value kept whole, whose `filtered` reads it whole,
    /// so no field names are kept. A pageable list is digested item by item
    /// as it is written ([`ListDigest`]).
    pub(crate) fn of(value: &Value, origin: Origin) -> Digest {
        Digest {
            summary: to_json(summarize(value, origin)),
            shape: ResultShape::of(value, origin),
            fields: Vec::new(),
            fields_capped: false,
            first_keys: Vec::new(),
            usage: None,
        }
    }

    /// The full result's token counts, when they were kept.
    pub(crate) fn full_counts(&self) -> Option<Counts> {
        self.usage.map(|(cl100k, o200k)| Counts { cl100k, o200k })
    }

    /// The counts kept in the digest `bytes`, if there are both.
    pub(crate) fn counts_in(bytes: Option<&[u8]>) -> Option<Counts> {
        bytes.and_then(Digest::from_bytes)?.full_counts()
    }

    /// The digest as the bytes a store keeps.
    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("a digest serializes")
    }

    /// A digest read back from a store; `None` for bytes mcp-light did not
    /// write (a store that lost them, or an older format).
    pub(crate) fn from_bytes(bytes: &[u8]) -> Option<Digest> {
        serde_json::from_slice(bytes).ok()
    }
}

/// The digest of a list built one item at a time, with its preview.
#[derive(Debug)]
pub(crate) struct ListDigest {
    summary: ListSummary,
    preview: ListPreview,
}

impl ListDigest {
    pub(crate) fn new(config: &HeavyConfig) -> ListDigest {
        ListDigest {
            summary: ListSummary::default(),
            preview: ListPreview::new(config.preview_chars),
        }
    }

    /// Counts the next item, through its `Serialize` impl.
    pub(crate) fn add<T: serde::Serialize + ?Sized>(&mut self, item: &T) {
        self.summary.add(item);
    }

    /// Whether the preview still takes items ([`ListDigest::preview`]):
    /// only the first few, until one does not fit.
    pub(crate) fn wants_preview(&self) -> bool {
        self.preview.wants_more()
    }

    /// Offers the next item, as a value, to the preview.
    pub(crate) fn preview(&mut self, item: &Value) {
        self.preview.offer(item);
    }

    /// The digest, the preview, and the whole list when it fits the
    /// preview.
    pub(crate) fn finish(self) -> (Digest, Value, Option<Value>) {
        let (fields, fields_capped) = self.summary.field_names();
        let digest = Digest {
            shape: ResultShape::List {
                count: self.summary.count(),
                objects: self.summary.objects(),
            },
            summary: to_json(self.summary.render()),
            fields,
            fields_capped,
            first_keys: self.summary.first_keys().to_vec(),
            usage: None,
        };
        let (preview, whole) = self.preview.finish();
        (digest, preview, whole)
    }
}

/// The preview of a whole `value`, and the value itself when it fits.
pub(crate) fn preview_of(value: &Value, config: &HeavyConfig) -> (Value, Option<Value>) {
    let preview = fit_or_empty(value, config.preview_chars);
    let fits = preview == *value;
    (preview, fits.then(|| value.clone()))
}
