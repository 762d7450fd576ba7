//! A value cut down to a budget of compact-JSON characters and still valid
//! JSON: the probe's preview, and what an error message quotes.

use std::io;

use serde_json::{Map, Value, json};

use super::ELLIPSIS;

/// [`fit`], or an empty value of the same kind when not even a shortened
/// first item fits (a key longer than the budget, say): still valid JSON,
/// still within the budget.
pub(super) fn fit_or_empty(value: &Value, budget: usize) -> Value {
    fit(value, budget).unwrap_or_else(|| match value {
        Value::Array(_) => json!([]),
        Value::Object(_) => json!({}),
        _ => Value::Null,
    })
}

/// `value` cut short to at most `budget` characters of compact JSON, or
/// `None` when nothing of it fits.
///
/// A value that fits is kept whole. Otherwise a list keeps its leading items
/// and an object its leading entries, as many as fit whole; the first one
/// that does not fit is cut down (recursively) to the room left when it is
/// the very first, so an item with a 5 KB description still shows its first
/// keys, or when it is a string, whose `…` shows the cut. Later containers
/// are not cut: their missing parts would not show. A string is cut to a
/// prefix ending in `…`. Numbers, booleans and null are never cut.
fn fit(value: &Value, budget: usize) -> Option<Value> {
    if json_chars_within(value, budget).is_some() {
        return Some(value.clone());
    }
    // Both kinds of container cost two characters for their brackets and one
    // per comma.
    let inner = budget.checked_sub(2)?;
    match value {
        Value::String(text) => cut_string(text, budget).map(Value::String),
        Value::Array(items) => {
            let mut kept = Vec::new();
            let mut used = 0;
            for item in items {
                let comma = usize::from(!kept.is_empty());
                let Some(room) = inner.checked_sub(used + comma) else {
                    break;
                };
                if let Some(len) = json_chars_within(item, room) {
                    used += comma + len;
                    kept.push(item.clone());
                    continue;
                }
                if let Some(cut) = fit_tail(item, room, kept.is_empty()) {
                    kept.push(cut);
                }
                break;
            }
            (!kept.is_empty()).then_some(Value::Array(kept))
        }
        Value::Object(map) => {
            let mut kept = Map::new();
            let mut used = 0;
            for (key, field) in map {
                let comma = usize::from(!kept.is_empty());
                // `"key":` before the value.
                let label = json_string_chars(key) + 1;
                let Some(room) = inner.checked_sub(used + comma + label) else {
                    break;
                };
                if let Some(len) = json_chars_within(field, room) {
                    used += comma + label + len;
                    kept.insert(key.clone(), field.clone());
                    continue;
                }
                if let Some(cut) = fit_tail(field, room, kept.is_empty()) {
                    kept.insert(key.clone(), cut);
                }
                break;
            }
            (!kept.is_empty()).then_some(Value::Object(kept))
        }
        _ => None,
    }
}

/// The first child of a container that did not fit whole, cut to `room`
/// when that is honest (see [`fit`]).
fn fit_tail(child: &Value, room: usize, first: bool) -> Option<Value> {
    if first || child.is_string() {
        fit(child, room)
    } else {
        None
    }
}

/// The longest prefix of `text` that, with `…` added, is at most `budget`
/// characters as a JSON string; `None` when not even one character fits.
fn cut_string(text: &str, budget: usize) -> Option<String> {
    // Two quotes and the ellipsis.
    let mut room = budget.checked_sub(3)?;
    let mut end = 0;
    for (at, c) in text.char_indices() {
        let width = escaped_chars(c);
        if width > room {
            break;
        }
        room -= width;
        end = at + c.len_utf8();
    }
    (end > 0).then(|| format!("{}{ELLIPSIS}", &text[..end]))
}

/// How many characters `c` takes inside a JSON string as serde_json writes it.
fn escaped_chars(c: char) -> usize {
    match c {
        '"' | '\\' | '\u{8}' | '\u{c}' | '\n' | '\r' | '\t' => 2,
        c if c < ' ' => 6,
        _ => 1,
    }
}

/// The length of `text` written as a JSON string, quotes included.
fn json_string_chars(text: &str) -> usize {
    2 + text.chars().map(escaped_chars).sum::<usize>()
}

/// The length of `value` as compact JSON, in characters, or `None` when it
/// is longer than `cap`. Stops writing as soon as the cap is passed, so
/// measuring the first item of a 10 MB list costs at most `cap` characters.
fn json_chars_within(value: &Value, cap: usize) -> Option<usize> {
    struct Counter {
        chars: usize,
        cap: usize,
    }
    impl io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            // Count characters, not bytes: skip UTF-8 continuation bytes.
            self.chars += buf.iter().filter(|&&byte| byte & 0xC0 != 0x80).count();
            if self.chars > self.cap {
                Err(io::Error::other("over the cap"))
            } else {
                Ok(buf.len())
            }
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter { chars: 0, cap };
    serde_json::to_writer(&mut counter, value).ok()?;
    Some(counter.chars)
}

/// The preview of a list built one item at a time: the leading items that
/// fit the budget are kept, and at the first that does not, the preview is
/// cut as [`fit_or_empty`] would cut the whole list, and nothing more is
/// kept. A list that ends before that fits whole.
#[derive(Debug)]
pub(crate) struct ListPreview {
    budget: usize,
    kept: Vec<Value>,
    /// The characters the kept items and their commas take.
    used: usize,
    /// The preview, once an item did not fit.
    cut: Option<Value>,
}

impl ListPreview {
    pub(crate) fn new(budget: usize) -> ListPreview {
        ListPreview {
            budget,
            kept: Vec::new(),
            used: 0,
            cut: None,
        }
    }

    /// Whether it still takes items.
    pub(crate) fn wants_more(&self) -> bool {
        self.cut.is_none()
    }

    /// Offers the next item of the list.
    pub(crate) fn offer(&mut self, item: &Value) {
        if self.cut.is_some() {
            return;
        }
        let comma = usize::from(!self.kept.is_empty());
        let room = self
            .budget
            .checked_sub(2 + self.used + comma)
            .and_then(|room| json_chars_within(item, room));
        match room {
            Some(len) => {
                self.used += comma + len;
                self.kept.push(item.clone());
            }
            None => {
                let mut head = std::mem::take(&mut self.kept);
                head.push(item.clone());
                self.cut = Some(fit_or_empty(&Value::Array(head), self.budget));
            }
        }
    }

    /// The preview, and the whole list when it fits the budget.
    pub(crate) fn finish(self) -> (Value, Option<Value>) {
        match self.cut {
            Some(cut) => (cut, None),
            None => {
                let whole = Value::Array(self.kept);
                (whole.clone(), Some(whole))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heavy::HeavyConfig;
    use crate::heavy::test_support::probe_of;
    use crate::heavy::test_support::{config, rows, token};

    /// The preview as the agent reads it: compact JSON text.
    fn preview_text(value: &Value) -> String {
        let probe = probe_of("device_list", value, 0, &token(), &config());
        probe["preview"].to_string()
    }

    fn assert_preview_ok(value: &Value) -> String {
        let text = preview_text(value);
        assert!(
            text.chars().count() <= 200,
            "{} chars: {text}",
            text.chars().count()
        );
        let reparsed: Value = serde_json::from_str(&text).expect("preview is valid JSON");
        assert_eq!(reparsed.to_string(), text);
        text
    }

    #[test]
    fn preview_of_a_10000_item_list_is_its_leading_items_whole() {
        let value = rows(10_000);
        let text = assert_preview_ok(&value);
        let preview: Vec<Value> = serde_json::from_str(&text).unwrap();
        assert!(!preview.is_empty());
        assert_eq!(preview[..], value.as_array().unwrap()[..preview.len()]);
        // As many as fit: one more would not have.
        let one_more = Value::from(value.as_array().unwrap()[..=preview.len()].to_vec());
        assert!(one_more.to_string().chars().count() > 200);
    }

    #[test]
    fn preview_of_a_list_of_small_numbers_counts_its_commas() {
        let value: Value = (0..10_000).collect();
        let text = assert_preview_ok(&value);
        // 0..=68 is 10 one-digit and 59 two-digit numbers, 68 commas and
        // two brackets: 198 characters; 69 would make it 201.
        let expected: Value = (0..=68).collect();
        assert_eq!(text, expected.to_string());
    }

    #[test]
    fn preview_of_a_single_5kb_string_is_a_cut_string() {
        let text = assert_preview_ok(&json!("é\"\n".repeat(1700)));
        assert!(text.ends_with("…\""), "{text}");
        assert!(text.chars().count() >= 195, "wasted budget: {text}");
        assert_preview_ok(&json!("a".repeat(5000)));
    }

    #[test]
    fn preview_of_an_object_is_its_leading_keys_with_values_as_they_are() {
        let value: Value = (0..100)
            .map(|i| (format!("key{i}"), json!(i)))
            .collect::<Map<_, _>>()
            .into();
        let text = assert_preview_ok(&value);
        assert!(text.starts_with(r#"{"key0":0,"key1":1,"#), "{text}");
        let mixed =
            json!({"id": 1, "on": true, "none": null, "tags": ["a"], "blob": "b".repeat(5000)});
        let text = assert_preview_ok(&mixed);
        assert!(
            text.starts_with(r#"{"id":1,"on":true,"none":null,"tags":["a"],"blob":"bbb"#),
            "{text}"
        );
        assert!(
            text.ends_with("…\"}") && text.chars().count() >= 195,
            "{text}"
        );
        // A container after the first is left out rather than cut: its
        // missing keys would not show.
        let nested = json!({"id": 1, "meta": {"a": 1, "blob": "b".repeat(5000)}});
        assert_eq!(assert_preview_ok(&nested), r#"{"id":1}"#);
    }

    #[test]
    fn preview_shortens_a_first_item_too_big_to_fit() {
        let value = json!([{"id": 1, "name": "edge", "description": "d".repeat(5000)}, {"id": 2}]);
        let text = assert_preview_ok(&value);
        assert!(
            text.starts_with(r#"[{"id":1,"name":"edge","description":"ddd"#),
            "{text}"
        );
        assert!(text.ends_with("…\"}]"), "{text}");
        let blob_first = json!([{"description": "d".repeat(5000), "id": 1}]);
        let text = assert_preview_ok(&blob_first);
        assert!(
            text.starts_with(r#"[{"description":"ddd"#) && text.ends_with("…\"}]"),
            "{text}"
        );
    }

    #[test]
    fn preview_of_nested_values_and_scalars() {
        let nested =
            json!({"data": {"devices": rows(500), "sites": [{"name": "hq", "racks": rows(50)}]}});
        assert_preview_ok(&nested);
        let deep = (0..300).fold(json!("leaf"), |inner, _| json!([inner]));
        assert_preview_ok(&deep);
        for scalar in [
            json!(1),
            json!(-2.5),
            json!(true),
            json!(null),
            json!("short"),
        ] {
            assert_eq!(assert_preview_ok(&scalar), scalar.to_string());
        }
        assert_eq!(assert_preview_ok(&json!([])), "[]");
        assert_eq!(assert_preview_ok(&json!({})), "{}");
    }

    #[test]
    fn preview_with_an_absurd_key_is_still_valid_and_short() {
        let value = json!({"k".repeat(500): 1});
        assert_eq!(assert_preview_ok(&value), "{}");
    }

    #[test]
    fn preview_respects_a_configured_length() {
        let short = HeavyConfig {
            preview_chars: 40,
            ..config()
        };
        let probe = probe_of("t", &rows(100), 1, &token(), &short);
        assert!(probe["preview"].to_string().chars().count() <= 40);
    }
}
