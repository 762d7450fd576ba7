//! Where each item of a stored list starts: the index that lets a store
//! read one page of a list without moving the rest of it.
//!
//! The index of a list of `n` items is `n` byte offsets into the body, one
//! per item, as little-endian `u64`s when a store keeps it as bytes. An
//! item runs from its offset to the next item's, less the comma (or, for
//! the last, the closing bracket) and any whitespace around it.

use std::ops::Range;

use serde_json::value::RawValue;

/// The bytes one offset takes in a stored index.
pub(crate) const OFFSET_BYTES: usize = 8;

/// Where each item of `body` starts, when `body` is a JSON list; `None`
/// for anything else (an object, a scalar, invalid JSON), which is served
/// whole.
pub(crate) fn index_list(body: &[u8]) -> Option<Vec<u64>> {
    let opens_a_list = body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[');
    if !opens_a_list {
        return None;
    }
    // Validates the list and finds its items without building any value.
    let items: Vec<&RawValue> = serde_json::from_slice(body).ok()?;
    let base = body.as_ptr() as usize;
    Some(
        items
            .iter()
            .map(|item| (item.get().as_ptr() as usize - base) as u64)
            .collect(),
    )
}

/// `range` clamped to a list of `total` items: an empty range past the end.
pub(crate) fn clamp(range: Range<usize>, total: usize) -> Range<usize> {
    let start = range.start.min(total);
    start..range.end.clamp(start, total)
}

/// The items `range` of the list `starts` indexes in `body`.
pub(crate) fn slice_items(body: &[u8], starts: &[u64], range: Range<usize>) -> Vec<Vec<u8>> {
    let range = clamp(range, starts.len());
    if range.is_empty() {
        return Vec::new();
    }
    let end = starts
        .get(range.end)
        .map_or(body.len(), |&next| next as usize);
    split_items(
        &body[starts[range.start] as usize..end],
        &starts[range.clone()],
        range.end == starts.len(),
    )
}

/// Cuts `chunk` — the body from the first wanted item's start up to the
/// next item's start (or the end of the body) — into the items that start
/// at `starts`. `through_the_end` says the chunk runs to the end of the
/// list, so its last item is followed by `]` rather than a comma.
pub(crate) fn split_items(chunk: &[u8], starts: &[u64], through_the_end: bool) -> Vec<Vec<u8>> {
    let Some(&first) = starts.first() else {
        return Vec::new();
    };
    let first = first as usize;
    (0..starts.len())
        .map(|i| {
            let start = starts[i] as usize - first;
            let last = i + 1 == starts.len();
            let end = if last {
                chunk.len()
            } else {
                starts[i + 1] as usize - first
            };
            let separator = if last && through_the_end { b']' } else { b',' };
            trim_item(&chunk[start.min(end)..end], separator).to_vec()
        })
        .collect()
}

/// An item's bytes without what follows it: whitespace, one `separator`,
/// whitespace.
fn trim_item(bytes: &[u8], separator: u8) -> &[u8] {
    let bytes = bytes.trim_ascii_end();
    bytes
        .strip_suffix(&[separator])
        .unwrap_or(bytes)
        .trim_ascii_end()
}

/// `starts` as the bytes a store keeps.
pub(crate) fn to_bytes(starts: &[u64]) -> Vec<u8> {
    starts
        .iter()
        .flat_map(|start| start.to_le_bytes())
        .collect()
}

/// Offsets read back from `bytes`; a trailing partial offset is dropped.
pub(crate) fn from_bytes(bytes: &[u8]) -> Vec<u64> {
    bytes
        .chunks_exact(OFFSET_BYTES)
        .map(|chunk| u64::from_le_bytes(chunk.try_into().expect("eight bytes")))
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn items(body: &str, range: Range<usize>) -> Vec<Value> {
        let starts = index_list(body.as_bytes()).expect("a list");
        slice_items(body.as_bytes(), &starts, range)
            .iter()
            .map(|item| serde_json::from_slice(item).unwrap())
            .collect()
    }

    #[test]
    fn every_range_of_a_compact_list_matches_the_parsed_list() {
        let list = json!([1, "two", {"three": [3, {"x": "]"}]}, [4, [4]], null, "a,b]", 7.5]);
        let body = list.to_string();
        let parsed = list.as_array().unwrap();
        for start in 0..=parsed.len() + 1 {
            for end in start..=parsed.len() + 2 {
                let expected: Vec<Value> = parsed
                    .iter()
                    .skip(start)
                    .take(end - start)
                    .cloned()
                    .collect();
                assert_eq!(items(&body, start..end), expected, "{start}..{end}");
            }
        }
    }

    #[test]
    fn whitespace_around_items_is_not_part_of_them() {
        let body = " [ {\"a\": 1} ,\n  [2, 3]\t, \"x\"  ] ";
        let starts = index_list(body.as_bytes()).unwrap();
        let raw = slice_items(body.as_bytes(), &starts, 0..3);
        let raw: Vec<&str> = raw
            .iter()
            .map(|i| std::str::from_utf8(i).unwrap())
            .collect();
        assert_eq!(raw, ["{\"a\": 1}", "[2, 3]", "\"x\""]);
    }

    #[test]
    fn only_lists_are_indexed() {
        assert_eq!(index_list(b"[]"), Some(vec![]));
        assert!(items("[]", 0..20).is_empty());
        for body in [&b"{\"items\":[1]}"[..], b"3", b"\"[\"", b"[1,", b""] {
            assert_eq!(
                index_list(body),
                None,
                "{:?}",
                String::from_utf8_lossy(body)
            );
        }
    }

    #[test]
    fn a_range_past_the_end_is_empty_and_an_absurd_one_does_not_overflow() {
        assert!(items("[1,2,3]", 3..23).is_empty());
        assert_eq!(items("[1,2,3]", 2..usize::MAX), [json!(3)]);
        assert!(items("[1,2,3]", usize::MAX..usize::MAX).is_empty());
        assert_eq!(clamp(5..20, 10), 5..10);
        assert_eq!(clamp(12..20, 10), 10..10);
    }

    #[test]
    fn offsets_round_trip_through_bytes() {
        let starts = vec![1, 300, 70_000, u64::from(u32::MAX) + 9, u64::MAX];
        assert_eq!(to_bytes(&starts).len(), starts.len() * OFFSET_BYTES);
        assert_eq!(from_bytes(&to_bytes(&starts)), starts);
    }
}
