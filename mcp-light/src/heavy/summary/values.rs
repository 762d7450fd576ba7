//! How many items hold each value of a field, told apart by the whole
//! value: strings, numbers and booleans alike, in memory bounded whatever
//! the list.
//!
//! A string of at most [`MAX_KEPT_BYTES`] bytes is kept whole; a longer
//! one as the SHA-256 of all of it beside its first characters, so two
//! values alike in their first 40 characters are two values. A number is told apart by its JSON text (`1` and `1.0` are two
//! values), a boolean by itself.
//!
//! The counts are listed as `values` only where values repeat: a field
//! whose every value is different says `"distinct": N, "unique": true`
//! instead, and one whose values hardly repeat (its [`MAX_VALUES`] most
//! frequent cover less than half of it) says only how many there are.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Number;
use sha2::{Digest, Sha256};

use super::named::NamedValues;
use crate::heavy::ELLIPSIS;

/// The most values listed for one field, the most frequent first; items
/// holding any other value are counted as `other`.
pub const MAX_VALUES: usize = 20;

/// Strings a summary shows — values, keys, a string result — are cut to this
/// many characters, `…` marking the cut. A value's label cut so ends with
/// `…#` and hex digits of the whole value's SHA-256, so two values alike
/// in these characters have two labels.
pub const MAX_STRING_CHARS: usize = 40;

/// The most distinct values counted for one field (1,000). Below it every
/// count is exact; past it, values first seen after the limit are counted
/// in `other`, and `distinct` becomes `distinct_at_least`.
/// Values are told apart by the whole value, however long.
pub const MAX_TRACKED_VALUES: usize = 1_000;

/// A string of at most this many bytes is counted as itself; a longer one
/// by its SHA-256, its first [`MAX_STRING_CHARS`] characters kept for its
/// label. No more than a value cut to 40 characters of up to four bytes
/// each was kept before: the hash is paid only by long strings.
const MAX_KEPT_BYTES: usize = 128;

/// The hex digits of the SHA-256 a cut label ends with, at the least; more
/// when two listed values share their first characters and these digits.
const LABEL_DIGITS: usize = 8;

/// A number, told apart as its JSON text is: an integer by its value, a
/// float by its bits (`1` and `1.0` differ, as their texts do).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum NumberKey {
    Unsigned(u64),
    Negative(i64),
    Float(u64),
}

impl NumberKey {
    fn of(number: &Number) -> NumberKey {
        if let Some(n) = number.as_u64() {
            NumberKey::Unsigned(n)
        } else if let Some(n) = number.as_i64() {
            NumberKey::Negative(n)
        } else {
            NumberKey::Float(number.as_f64().unwrap_or(f64::NAN).to_bits())
        }
    }

    fn as_f64(self) -> f64 {
        match self {
            NumberKey::Unsigned(n) => n as f64,
            NumberKey::Negative(n) => n as f64,
            NumberKey::Float(bits) => f64::from_bits(bits),
        }
    }

    /// The number's JSON text, as serde_json writes it.
    fn text(self) -> String {
        match self {
            NumberKey::Unsigned(n) => n.to_string(),
            NumberKey::Negative(n) => n.to_string(),
            NumberKey::Float(bits) => Number::from_f64(f64::from_bits(bits))
                .map_or_else(|| "null".into(), |n| n.to_string()),
        }
    }
}

/// How many items hold each value of one field, at most
/// [`MAX_TRACKED_VALUES`] values.
#[derive(Debug, Default, Clone)]
pub(super) struct ValueCounts {
    /// Strings of at most [`MAX_KEPT_BYTES`] bytes (or
    /// [`MAX_STRING_CHARS`] characters), whole.
    whole: HashMap<Box<str>, usize>,
    /// Longer strings by the SHA-256 of all of it, each with its first
    /// [`MAX_STRING_CHARS`] characters (for its label) and its count.
    hashed: HashMap<[u8; 32], (Box<str>, usize)>,
    numbers: HashMap<NumberKey, usize>,
    /// Items holding `false`, `true`.
    bools: [usize; 2],
    /// Values seen after [`MAX_TRACKED_VALUES`] others were being counted.
    untracked: usize,
}

impl ValueCounts {
    /// Counts one occurrence of `text`; a value already counted costs a
    /// lookup (and a long one its hash), no allocation.
    pub(super) fn string(&mut self, text: &str) {
        let cut_at = if text.len() <= MAX_KEPT_BYTES {
            None
        } else {
            text.char_indices().nth(MAX_STRING_CHARS).map(|(at, _)| at)
        };
        match cut_at {
            None => {
                if let Some(n) = self.whole.get_mut(text) {
                    *n += 1;
                } else if self.has_room() {
                    self.whole.insert(text.into(), 1);
                } else {
                    self.untracked += 1;
                }
            }
            Some(at) => {
                let digest: [u8; 32] = Sha256::digest(text.as_bytes()).into();
                if let Some((_, n)) = self.hashed.get_mut(&digest) {
                    *n += 1;
                } else if self.has_room() {
                    self.hashed.insert(digest, (text[..at].into(), 1));
                } else {
                    self.untracked += 1;
                }
            }
        }
    }

    pub(super) fn number(&mut self, number: &Number) {
        let key = NumberKey::of(number);
        if let Some(n) = self.numbers.get_mut(&key) {
            *n += 1;
        } else if self.has_room() {
            self.numbers.insert(key, 1);
        } else {
            self.untracked += 1;
        }
    }

    pub(super) fn boolean(&mut self, flag: bool) {
        let slot = usize::from(flag);
        if self.bools[slot] > 0 || self.has_room() {
            self.bools[slot] += 1;
        } else {
            self.untracked += 1;
        }
    }

    fn has_room(&self) -> bool {
        self.tracked() < MAX_TRACKED_VALUES
    }

    /// How many distinct values are counted.
    fn tracked(&self) -> usize {
        let bools = self.bools.iter().filter(|n| **n > 0).count();
        self.whole.len() + self.hashed.len() + self.numbers.len() + bools
    }

    /// What the counts say: the values listed where they repeat, else how
    /// many there are.
    pub(super) fn render(&self) -> ValueSummary {
        let mut out = ValueSummary::default();
        let mut counted: Vec<(Counted<'_>, usize)> = Vec::with_capacity(self.tracked());
        for (flag, n) in [false, true].into_iter().zip(self.bools) {
            if n > 0 {
                counted.push((Counted::Bool(flag), n));
            }
        }
        counted.extend(
            self.numbers
                .iter()
                .map(|(key, n)| (Counted::Number(*key), *n)),
        );
        counted.extend(
            self.whole
                .iter()
                .map(|(text, n)| (Counted::Whole(text), *n)),
        );
        counted.extend(
            self.hashed
                .iter()
                .map(|(digest, (head, n))| (Counted::Hashed { head, digest }, *n)),
        );
        if counted.is_empty() {
            return out;
        }
        if self.untracked == 0 && counted.iter().all(|(_, n)| *n == 1) {
            out.distinct = Some(counted.len());
            out.unique = Some(true);
            return out;
        }
        counted.sort_unstable_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.order(&b.0)));
        let total: usize = counted.iter().map(|(_, n)| n).sum::<usize>() + self.untracked;
        let top = counted.len().min(MAX_VALUES);
        let listed: usize = counted[..top].iter().map(|(_, n)| n).sum();
        let cut_off = counted.len() > MAX_VALUES || self.untracked > 0;
        if !cut_off || 2 * listed >= total {
            let shown = &counted[..top];
            let (labels, cut) = labels(shown);
            out.values = Some(
                labels
                    .into_iter()
                    .zip(shown.iter().map(|(_, n)| *n))
                    .collect(),
            );
            out.cut_labels = cut.then_some(true);
            if cut_off {
                out.other = Some(total - listed);
            }
        }
        if self.untracked > 0 {
            // Some values were first seen after the limit: how many distinct
            // values there are is known only from below.
            out.distinct_at_least = Some(counted.len() + 1);
        } else if cut_off {
            out.distinct = Some(counted.len());
        }
        out
    }
}

/// What a field's value counts say: `{values?, cut_labels?, other?,
/// distinct? | distinct_at_least?, unique?}`.
#[derive(Debug, Default, Serialize)]
pub(super) struct ValueSummary {
    /// How many items hold each value, the most frequent first.
    #[serde(skip_serializing_if = "Option::is_none")]
    values: Option<NamedValues<usize>>,
    /// Some label in `values` is a long value cut: its first characters,
    /// `…#` and hex digits of the whole value's SHA-256.
    #[serde(skip_serializing_if = "Option::is_none")]
    cut_labels: Option<bool>,
    /// Items holding a value not listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    other: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    distinct: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    distinct_at_least: Option<usize>,
    /// Every value is held by one item: nothing repeats, nothing is listed.
    #[serde(skip_serializing_if = "Option::is_none")]
    unique: Option<bool>,
}

/// One counted value, borrowed from the counts.
#[derive(Debug, Clone, Copy)]
enum Counted<'a> {
    Bool(bool),
    Number(NumberKey),
    Whole(&'a str),
    Hashed { head: &'a str, digest: &'a [u8; 32] },
}

impl Counted<'_> {
    /// The order of values held by as many items: booleans, numbers by
    /// value, then strings by text, so that a listing is the same at every
    /// read.
    fn order(&self, other: &Counted<'_>) -> Ordering {
        let rank = |value: &Counted<'_>| match value {
            Counted::Bool(_) => 0,
            Counted::Number(_) => 1,
            Counted::Whole(_) | Counted::Hashed { .. } => 2,
        };
        match (self, other) {
            (Counted::Bool(a), Counted::Bool(b)) => a.cmp(b),
            (Counted::Number(a), Counted::Number(b)) => a.as_f64().total_cmp(&b.as_f64()),
            (Counted::Whole(a), Counted::Whole(b)) => a.cmp(b),
            (Counted::Whole(a), Counted::Hashed { head, .. }) => a.cmp(head).then(Ordering::Less),
            (Counted::Hashed { head, .. }, Counted::Whole(b)) => {
                head.cmp(b).then(Ordering::Greater)
            }
            (Counted::Hashed { head: a, digest: x }, Counted::Hashed { head: b, digest: y }) => {
                a.cmp(b).then_with(|| x.cmp(y))
            }
            _ => rank(self).cmp(&rank(other)),
        }
    }
}

/// The labels of `listed`, no two alike, and whether one is cut: a string
/// as itself, cut past [`MAX_STRING_CHARS`] characters to `…#` and as many
/// hex digits of its SHA-256 as tell the listed values apart
/// ([`LABEL_DIGITS`] at the least); a number as its JSON text; a boolean
/// as `true` or `false`. Where strings are listed beside numbers or
/// booleans, the strings are quoted as JSON (`"\"1\""` beside `1`).
fn labels(listed: &[(Counted<'_>, usize)]) -> (Vec<String>, bool) {
    // Each string's characters shown, and for one cut, its hash in hex.
    let strings: Vec<Option<(&str, Option<String>)>> = listed
        .iter()
        .map(|(value, _)| match value {
            Counted::Whole(text) => Some(match text.char_indices().nth(MAX_STRING_CHARS) {
                None => (*text, None),
                Some((at, _)) => {
                    let digest: [u8; 32] = Sha256::digest(text.as_bytes()).into();
                    (&text[..at], Some(hex_of(&digest)))
                }
            }),
            Counted::Hashed { head, digest } => Some((*head, Some(hex_of(digest)))),
            Counted::Bool(_) | Counted::Number(_) => None,
        })
        .collect();
    let cut: Vec<(&str, &str)> = strings
        .iter()
        .flatten()
        .filter_map(|(head, hex)| Some((*head, hex.as_deref()?)))
        .collect();
    let alike = |digits: usize| {
        cut.iter().enumerate().any(|(at, (head, hex))| {
            cut[at + 1..]
                .iter()
                .any(|(other, more)| head == other && hex[..digits] == more[..digits])
        })
    };
    let mut digits = LABEL_DIGITS;
    while digits < 64 && alike(digits) {
        digits += 2;
    }
    let quoted = strings.iter().any(Option::is_some) && strings.iter().any(Option::is_none);
    let labels = listed
        .iter()
        .zip(&strings)
        .map(|((value, _), string)| {
            let label = match (value, string) {
                (Counted::Bool(flag), _) => return flag.to_string(),
                (Counted::Number(key), _) => return key.text(),
                (_, Some((head, Some(hex)))) => format!("{head}{ELLIPSIS}#{}", &hex[..digits]),
                (_, Some((text, None))) => (*text).to_owned(),
                (_, None) => String::new(),
            };
            if quoted {
                serde_json::Value::String(label).to_string()
            } else {
                label
            }
        })
        .collect();
    (labels, !cut.is_empty())
}

/// The 64 hex digits of a SHA-256.
fn hex_of(digest: &[u8; 32]) -> String {
    let mut hex = String::with_capacity(64);
    for byte in digest {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_values_alike_in_their_first_characters_and_digits_get_more_digits() {
        let head = "h".repeat(MAX_STRING_CHARS);
        // Two digests alike in their first four bytes (eight hex digits),
        // and a third unlike them.
        let (mut one, two, three) = ([1; 32], [2; 32], [3; 32]);
        one[..4].copy_from_slice(&two[..4]);
        let long = |digest| {
            (
                Counted::Hashed {
                    head: &head,
                    digest,
                },
                1,
            )
        };
        let (labels, cut) = labels(&[
            long(&one),
            long(&two),
            long(&three),
            (Counted::Whole("h"), 1),
        ]);
        assert!(cut);
        assert_eq!(
            labels,
            [
                format!("{head}…#0202020201"),
                format!("{head}…#0202020202"),
                format!("{head}…#0303030303"),
                "h".to_owned(),
            ]
        );
    }

    #[test]
    fn at_most_the_tracked_values_are_kept_and_the_rest_counted_as_untracked() {
        let mut counts = ValueCounts::default();
        for i in 0..2_000 {
            counts.string(&format!("{i}"));
            counts.string(&format!("{}{i}", "long ".repeat(30)));
            counts.number(&Number::from(i));
        }
        counts.boolean(true);
        assert_eq!(counts.tracked(), MAX_TRACKED_VALUES);
        assert_eq!(counts.untracked, 3 * 2_000 + 1 - MAX_TRACKED_VALUES);
        // A value already counted is counted on.
        counts.string("0");
        assert_eq!(counts.whole["0"], 2);
        // Strings of 150 bytes and more were kept as their hash.
        assert!(!counts.hashed.is_empty());
    }
}
