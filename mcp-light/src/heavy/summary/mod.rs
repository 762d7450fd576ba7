//! `summary`: what a stored result holds, in numbers an agent can answer
//! questions with, bounded in size whatever the result.
//!
//! A list is summarized field by field: every field's type and null count,
//! numbers' minimum and maximum, lists' lengths, objects' keys, and for a
//! field whose values repeat — strings, numbers and booleans alike — how
//! many items hold each value (for a list of strings, each string): the
//! devices per site, per status and per tag, the tasks per priority, are
//! read straight off the summary, exactly, without paging through the
//! list. An object is summarized as its keys and the shape of each value
//! (and, for a wrapper, its paged list as above). No item is copied whole,
//! and strings are cut.
//!
//! A field's values are told apart by the whole value, never by its first
//! characters, and listed only where they repeat:
//!
//! - at most [`MAX_VALUES`] distinct values: `values` gives every one;
//! - more: the [`MAX_VALUES`] most frequent with `other` (the items holding
//!   the rest) and `distinct`, when they cover at least half the field;
//!   else only `distinct` (a field of names that seldom repeat);
//! - every value different: `"distinct": N, "unique": true`, no `values`
//!   (ids, URLs, comments: nothing to chart).
//!
//! `values` keys a number by its JSON text (`"1"`, `"2.5"`), a boolean as
//! `"true"` or `"false"`, a string as itself; a string longer than
//! [`MAX_STRING_CHARS`] characters by its first ones, `…#` and hex digits
//! of the whole string's SHA-256 (`cut_labels: true` says some are), so two
//! values never share a label. Beside numbers or booleans, strings are
//! quoted as JSON (`"\"1\""` beside `"1"`).
//!
//! ```text
//! "priority": {"type": "number", "nulls": 0, "min": 1, "max": 4,
//!              "values": {"1": 25000, "2": 25000, "3": 25000, "4": 25000}},
//! "url": {"type": "string", "nulls": 0, "distinct": 60, "unique": true},
//! "device": {"type": "string", "nulls": 0, "values": {
//!     "https://netbox.example.com/api/dcim/devi…#b58b8c04": 3,
//!     "https://netbox.example.com/api/dcim/devi…#acc7beec": 2},
//!   "cut_labels": true},
//! "comment": {"type": "string", "nulls": 0, "distinct_at_least": 1001}
//! ```
//!
//! A list of strings that is text in lines (a kept plain-text answer's
//! pieces, each line with its `\n`) also says, under `text`, its lines,
//! bytes, longest line, blank lines, first lines, and how many lines begin
//! with each first word, digits written `#`:
//!
//! ```text
//! "text": {"lines": 3000, "bytes": 127400, "longest_line": 42, "blank_lines": 0,
//!          "head": ["2026-12-04 10:01:00 INFO record 1 filed", …],
//!          "starts": {"values": {"####-##-##": 3000}}}
//! ```
//!
//! A list's summary is built item by item ([`ListSummary`]), so a list
//! streamed into the store is summarized as it passes, in memory bounded
//! whatever its length: at most [`MAX_TRACKED_VALUES`] distinct values are
//! counted per field (exactly, below that; a long string kept as its first
//! characters and its hash), at most [`MAX_FIELD_NAMES`] field names
//! remembered.

mod named;
mod text;
mod values;

use std::collections::{HashMap, HashSet};

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::{Number, Value};

use super::ELLIPSIS;
use named::NamedValues;
use text::{TextStats, TextSummary};
pub use values::{MAX_STRING_CHARS, MAX_TRACKED_VALUES, MAX_VALUES};
use values::{ValueCounts, ValueSummary};

/// The most fields (of a list's objects) or keys (of an object) a summary
/// describes; the rest are only counted, as `other_fields` or `other_keys`.
pub const MAX_FIELDS: usize = 30;

/// The most field names of a list's objects remembered (1,000), beyond the
/// 30 described: `filtered` checks its keys against them.
pub const MAX_FIELD_NAMES: usize = 1_000;

/// What a result holds, as `summary` answers it: `{type, count?, ...}`, the
/// rest depending on the type.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(title = "summary")]
pub(crate) struct Summary {
    #[serde(rename = "type")]
    pub(super) kind: Kind,
    /// A list's items or an object's keys; a scalar has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "usize")]
    pub(super) count: Option<usize>,
    /// What a summary of this type says beyond its count. Its keys depend
    /// on the type, so the published schema names only `type` and `count`,
    /// which every summary of a list or an object has.
    #[serde(flatten)]
    #[schemars(skip)]
    pub(super) detail: Detail,
}

/// What a summarized value is.
#[derive(Debug, Clone, Copy, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub(super) enum Kind {
    List,
    Object,
    String,
    Number,
    Bool,
    Null,
}

/// The keys of a summary after `type` and `count`.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub(super) enum Detail {
    List(ListDetail),
    Object(ObjectDetail),
    /// A string result: its length in characters, and its first ones.
    Text {
        length: usize,
        value: String,
    },
    /// A number, a boolean or null: the value itself.
    Scalar {
        value: Value,
    },
}

/// `{fields?, other_fields?, items?}` of a list.
#[derive(Debug, Serialize)]
pub(super) struct ListDetail {
    /// Per field of the items that are objects, at most [`MAX_FIELDS`].
    #[serde(skip_serializing_if = "Option::is_none")]
    fields: Option<NamedValues<FieldSummary>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    other_fields: Option<OtherFields>,
    /// The items that are not objects, described like one field.
    #[serde(skip_serializing_if = "Option::is_none")]
    items: Option<FieldSummary>,
    /// A list of strings that is text in lines (a kept plain-text answer):
    /// its lines, bytes, first lines and how the lines begin.
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<Box<TextSummary>>,
}

/// How many more fields the objects of a list have than are described.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum OtherFields {
    Exactly(usize),
    /// More names were seen than [`MAX_FIELD_NAMES`]: `{at_least}`.
    AtLeast {
        at_least: usize,
    },
}

/// `{keys, other_keys?, paged?, list?}` of an object.
#[derive(Debug, Serialize)]
pub(super) struct ObjectDetail {
    /// Each key, at most [`MAX_FIELDS`], and the shape of its value:
    /// `"list(93)"`, `"object(4)"`, `"string"`.
    pub(super) keys: NamedValues<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) other_keys: Option<usize>,
    /// A wrapper's paged list: its key, and its summary.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) paged: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) list: Option<Box<Summary>>,
}

/// What one field holds across the objects of a list: `{type, nulls,
/// missing?, min?, max?, length?, keys?, other_keys?, values?, cut_labels?,
/// other?, distinct? | distinct_at_least?, unique?}`.
#[derive(Debug, Serialize)]
struct FieldSummary {
    /// The JSON types seen, `|`-joined (`"string|number"`), or `"null"`.
    #[serde(rename = "type")]
    types: String,
    nulls: usize,
    /// Items without the field.
    #[serde(skip_serializing_if = "Option::is_none")]
    missing: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    min: Option<Number>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max: Option<Number>,
    /// The shortest and the longest list.
    #[serde(skip_serializing_if = "Option::is_none")]
    length: Option<Lengths>,
    /// The keys of object values, in the order first seen.
    #[serde(skip_serializing_if = "Option::is_none")]
    keys: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    other_keys: Option<usize>,
    /// The value counts, where values repeat.
    #[serde(flatten)]
    counts: ValueSummary,
}

/// `{min, max}` list lengths.
#[derive(Debug, Serialize)]
struct Lengths {
    min: usize,
    max: usize,
}

/// A list's summary, built one item at a time in bounded memory:
/// `{type: "list", count, fields?, other_fields?, items?}`, `fields` for
/// the items that are objects, `items` for the items themselves when some
/// are not objects.
#[derive(Debug, Default)]
pub(crate) struct ListSummary {
    count: usize,
    objects: usize,
    fields: Vec<(String, Stats)>,
    slot: HashMap<String, usize>,
    /// The names of fields past [`MAX_FIELDS`], at most [`MAX_FIELD_NAMES`].
    other_fields: Vec<String>,
    other_slot: HashSet<String>,
    /// More field names than [`MAX_FIELD_NAMES`] were seen.
    names_capped: bool,
    /// The first object's keys, at most ten, for messages.
    first_keys: Vec<String>,
    scalars: Stats,
    /// The string items read as text in lines.
    text: TextStats,
}

impl ListSummary {
    /// One more item is counted; [`add`](ListSummary::add) reads it.
    pub(super) fn begin_item(&mut self) {
        self.count += 1;
    }

    /// The item being counted is an object.
    pub(super) fn begin_object(&mut self) {
        self.objects += 1;
    }

    /// The stats of field `key`, the `position`-th of the current object;
    /// `None` for a field past [`MAX_FIELDS`], whose name alone is kept.
    pub(super) fn field(&mut self, position: usize, key: &str) -> Option<&mut Stats> {
        if self.objects == 1 && self.first_keys.len() < 10 {
            self.first_keys.push(key.to_owned());
        }
        // Objects of one type list their fields in one order: the field at
        // this position is usually the one found there before.
        let index = match self.fields.get(position) {
            Some((name, _)) if name == key => position,
            _ => match self.slot.get(key) {
                Some(&index) => index,
                None if self.fields.len() < MAX_FIELDS => {
                    self.slot.insert(key.to_owned(), self.fields.len());
                    self.fields.push((key.to_owned(), Stats::default()));
                    self.fields.len() - 1
                }
                None => {
                    if !self.other_slot.contains(key) {
                        if self.other_fields.len() < MAX_FIELD_NAMES {
                            self.other_slot.insert(key.to_owned());
                            self.other_fields.push(key.to_owned());
                        } else {
                            self.names_capped = true;
                        }
                    }
                    return None;
                }
            },
        };
        Some(&mut self.fields[index].1)
    }

    /// A string item, read as a piece of text too.
    pub(super) fn string_item(&mut self, text: &str) {
        self.text.piece(text);
        self.scalars.string(text);
    }

    /// The stats of the items that are not objects.
    pub(super) fn scalars(&mut self) -> &mut Stats {
        &mut self.scalars
    }

    /// How many items were counted.
    pub(crate) fn count(&self) -> usize {
        self.count
    }

    /// How many of them were objects.
    pub(crate) fn objects(&self) -> usize {
        self.objects
    }

    /// Every field name seen among the objects, described ones first, and
    /// whether more were seen than are remembered.
    pub(crate) fn field_names(&self) -> (Vec<String>, bool) {
        let names = self
            .fields
            .iter()
            .map(|(name, _)| name.clone())
            .chain(self.other_fields.iter().cloned())
            .collect();
        (names, self.names_capped)
    }

    /// The first object's first ten keys.
    pub(crate) fn first_keys(&self) -> &[String] {
        &self.first_keys
    }

    /// The summary: `{type: "list", count, fields?, other_fields?,
    /// items?}`.
    pub(crate) fn render(&self) -> Summary {
        let mut detail = ListDetail {
            fields: None,
            other_fields: None,
            items: None,
            text: self.text.render(self.count).map(Box::new),
        };
        if self.objects > 0 {
            detail.fields = Some(
                self.fields
                    .iter()
                    .map(|(key, stats)| (cut(key), stats.render(self.objects)))
                    .collect(),
            );
            let others = self.other_fields.len();
            if others > 0 {
                detail.other_fields = Some(if self.names_capped {
                    OtherFields::AtLeast { at_least: others }
                } else {
                    OtherFields::Exactly(others)
                });
            }
        }
        if self.objects < self.count {
            // The items that are not objects, described like one field;
            // counted over every item, so `type` says when objects are
            // mixed in.
            let mut scalars = self.scalars.clone();
            if self.objects > 0 {
                scalars.types |= OBJECT;
                scalars.seen += self.objects;
            }
            detail.items = Some(scalars.render(self.count));
        }
        Summary {
            kind: Kind::List,
            count: Some(self.count),
            detail: Detail::List(detail),
        }
    }
}

/// The JSON types a field was seen with, as bits.
const STRING: u8 = 1;
const NUMBER: u8 = 2;
const BOOL: u8 = 4;
const LIST: u8 = 8;
const OBJECT: u8 = 16;
const TYPE_NAMES: [(u8, &str); 5] = [
    (STRING, "string"),
    (NUMBER, "number"),
    (BOOL, "bool"),
    (LIST, "list"),
    (OBJECT, "object"),
];

/// What one field holds across the items of a list, in bounded memory:
/// at most [`MAX_TRACKED_VALUES`] values counted.
#[derive(Debug, Default, Clone)]
pub(super) struct Stats {
    /// Items that have the field, null or not.
    seen: usize,
    nulls: usize,
    types: u8,
    min: Option<Number>,
    max: Option<Number>,
    /// How many items hold each string, number or boolean; for lists, how
    /// often each string item occurs in them.
    values: ValueCounts,
    /// Shortest and longest list.
    lengths: Option<(usize, usize)>,
    /// The keys of object values, in the order first seen, at most
    /// [`MAX_FIELDS`]; and the others, at most [`MAX_FIELD_NAMES`].
    keys: Vec<String>,
    other_keys: HashSet<String>,
}

impl Stats {
    pub(super) fn null(&mut self) {
        self.seen += 1;
        self.nulls += 1;
    }

    pub(super) fn string(&mut self, text: &str) {
        self.seen += 1;
        self.types |= STRING;
        self.values.string(text);
    }

    pub(super) fn boolean(&mut self, flag: bool) {
        self.seen += 1;
        self.types |= BOOL;
        self.values.boolean(flag);
    }

    pub(super) fn number(&mut self, number: Number) {
        self.seen += 1;
        self.types |= NUMBER;
        self.values.number(&number);
        let below = |bound: &Number| as_f64(&number) < as_f64(bound);
        let above = |bound: &Number| as_f64(&number) > as_f64(bound);
        if self.min.as_ref().is_none_or(below) {
            self.min = Some(number.clone());
        }
        if self.max.as_ref().is_none_or(above) {
            self.max = Some(number);
        }
    }

    /// A list begins; its strings follow ([`Stats::list_string`]), then its
    /// length ([`Stats::list_length`]).
    pub(super) fn list(&mut self) {
        self.seen += 1;
        self.types |= LIST;
    }

    /// A string item of a list: a list of tags counts like a field, devices
    /// per tag.
    pub(super) fn list_string(&mut self, text: &str) {
        self.values.string(text);
    }

    pub(super) fn list_length(&mut self, length: usize) {
        let (low, high) = self.lengths.unwrap_or((length, length));
        self.lengths = Some((low.min(length), high.max(length)));
    }

    /// An object begins; its keys follow ([`Stats::object_key`]).
    pub(super) fn object(&mut self) {
        self.seen += 1;
        self.types |= OBJECT;
    }

    pub(super) fn object_key(&mut self, key: &str) {
        if self.keys.iter().any(|known| known == key) || self.other_keys.contains(key) {
            return;
        }
        if self.keys.len() < MAX_FIELDS {
            self.keys.push(key.to_owned());
        } else if self.other_keys.len() < MAX_FIELD_NAMES {
            self.other_keys.insert(key.to_owned());
        }
    }

    /// What this field holds across a list of `items` objects.
    fn render(&self, items: usize) -> FieldSummary {
        let types: Vec<&str> = TYPE_NAMES
            .iter()
            .filter(|(bit, _)| self.types & bit != 0)
            .map(|(_, name)| *name)
            .collect();
        let (min, max) = match (&self.min, &self.max) {
            (Some(min), Some(max)) => (Some(min.clone()), Some(max.clone())),
            _ => (None, None),
        };
        let has_keys = !self.keys.is_empty();
        FieldSummary {
            types: if types.is_empty() {
                "null".to_owned()
            } else {
                types.join("|")
            },
            nulls: self.nulls,
            missing: (self.seen < items).then(|| items - self.seen),
            min,
            max,
            length: self.lengths.map(|(min, max)| Lengths { min, max }),
            keys: has_keys.then(|| self.keys.iter().map(|key| cut(key)).collect()),
            other_keys: (has_keys && !self.other_keys.is_empty()).then_some(self.other_keys.len()),
            counts: self.values.render(),
        }
    }
}

/// A number as `f64`, for comparing integers and floats alike.
fn as_f64(number: &Number) -> f64 {
    number.as_f64().unwrap_or(f64::NAN)
}

/// `text` cut to [`MAX_STRING_CHARS`] characters, `…` marking the cut.
pub(super) fn cut(text: &str) -> String {
    match text.char_indices().nth(MAX_STRING_CHARS) {
        None => text.to_owned(),
        Some((at, _)) => {
            let mut cut = text[..at].to_owned();
            cut.push(ELLIPSIS);
            cut
        }
    }
}

#[cfg(test)]
mod tests;
