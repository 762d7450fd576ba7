//! Taking mcp-light's own fields (`verify`, `continuation_token`, the
//! negotiation and routing fields) off a call's arguments before the tool
//! sees them.

use serde_json::{Map, Value};

/// Up to this many arguments, a key is looked for by comparing keys before
/// any hashing.
const SCAN_LIMIT: usize = 16;

/// Removes `key` from `args`, the other arguments keeping their order.
///
/// Most calls carry a few arguments and none of mcp-light's own fields, so
/// comparing the keys answers "absent" for less than hashing the key would
/// cost; only a key that is there, or a large call, is looked up by hash.
pub(crate) fn take(args: &mut Map<String, Value>, key: &str) -> Option<Value> {
    if args.len() <= SCAN_LIMIT && !args.keys().any(|k| k == key) {
        return None;
    }
    args.shift_remove(key)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn map(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => unreachable!(),
        }
    }

    #[test]
    fn a_present_key_is_taken_and_the_rest_keep_their_order() {
        let mut args = map(json!({"a": 1, "verify": true, "b": 2, "c": 3}));
        assert_eq!(take(&mut args, "verify"), Some(json!(true)));
        assert_eq!(args.keys().collect::<Vec<_>>(), ["a", "b", "c"]);
    }

    #[test]
    fn an_absent_key_leaves_the_arguments_alone() {
        let mut args = map(json!({"a": 1, "b": 2}));
        assert_eq!(take(&mut args, "verify"), None);
        assert_eq!(args, map(json!({"a": 1, "b": 2})));
    }

    #[test]
    fn a_large_call_is_looked_up_by_hash_with_the_same_result() {
        let mut args: Map<String, Value> = (0..100).map(|i| (format!("k{i}"), json!(i))).collect();
        assert_eq!(take(&mut args, "k57"), Some(json!(57)));
        assert_eq!(take(&mut args, "verify"), None);
        assert_eq!(args.len(), 99);
        assert_eq!(args.keys().nth(57).map(String::as_str), Some("k58"));
    }
}
