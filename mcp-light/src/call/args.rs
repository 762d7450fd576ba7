//! A call's arguments on their way in: bounded in size, stripped of
//! mcp-light's own fields (`verify`, `continuation_token`, the negotiation
//! and routing fields) before the tool sees them, and refused in the words
//! of JSON when they do not bind; and the bound an argument's type meets
//! ([`ToolArgument`]).

use std::fmt::Write as _;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

pub(crate) use crate::defaults::MAX_ARGUMENT_STRING as DEFAULT_MAX_ARGUMENT_STRING;

/// The bound on an argument's type. Generated code states it as
/// `for<'a> T: ToolArgument` on the argument struct's derived impls and on
/// the functions that use them: rustc then checks it where those functions
/// are registered, and a type that is not an argument reports this sentence
/// once, instead of serde's and schemars' derive errors.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "the argument type `{Self}` must implement `Deserialize` and `JsonSchema`",
    label = "a parameter with a plain name is an argument, parsed from the call's JSON",
    note = "to take it from the call instead, borrow it (`ctx: &Context`, `caller: &Caller`) or destructure it (`State(db): State<Db>`)",
    note = "to keep it an argument, add `#[derive(Deserialize, JsonSchema)]` to `{Self}`"
)]
pub trait ToolArgument: DeserializeOwned + JsonSchema {}

impl<T: DeserializeOwned + JsonSchema> ToolArgument for T {}

/// How deep [`check_strings`] looks. A call that arrives over a transport
/// is never deeper (serde_json refuses more than 128 levels); one built in
/// process and nested deeper is checked down to this depth.
const MAX_DEPTH: usize = 256;

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

/// Arguments holding a string, or an object key, longer than the server
/// takes: the sentence a call answers them with names where the string is,
/// how long it is and the limit.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum LongArgument {
    /// A string value, at `path` (`devices[3].serial`).
    #[error(
        "invalid arguments for `{tool}` at `{path}`: the string is {len} bytes long, and this \
         server takes at most {max} bytes in one argument string; send a shorter value"
    )]
    String {
        /// The tool called.
        tool: String,
        /// Where the string is.
        path: String,
        /// Its length in bytes.
        len: usize,
        /// The longest the server takes.
        max: usize,
    },
    /// An object key, in the object at `path` (empty: the arguments
    /// themselves). It is not quoted back: it is the over-long string.
    #[error(
        "invalid arguments for `{tool}`: a key{} is {len} bytes long, and this server takes at \
         most {max} bytes in one argument string; send a shorter value",
        In(path)
    )]
    Key {
        /// The tool called.
        tool: String,
        /// The object holding the key.
        path: String,
        /// The key's length in bytes.
        len: usize,
        /// The longest the server takes.
        max: usize,
    },
}

/// ` in `devices[3]``, or nothing for the arguments themselves.
struct In<'a>(&'a str);

impl std::fmt::Display for In<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            "" => Ok(()),
            path => write!(f, " in `{path}`"),
        }
    }
}

/// Refuses arguments holding a string, or an object key, longer than `max`
/// bytes, naming where it is (`device.name`, `devices[3].serial`), how
/// long it is and the limit.
pub(crate) fn check_strings(
    tool: &str,
    args: &Map<String, Value>,
    max: usize,
) -> Result<(), LongArgument> {
    // Every call is walked, and nearly all of them hold nothing too long:
    // that walk builds nothing. The path is worked out only for the rest.
    if !any_long_in_object(args, max, 0) {
        return Ok(());
    }
    let Some((path, len, is_key)) = find_long_in_object(args, max, 0) else {
        return Ok(());
    };
    let (tool, path) = (tool.to_owned(), render_path(&path));
    Err(match is_key {
        true => LongArgument::Key {
            tool,
            path,
            len,
            max,
        },
        false => LongArgument::String {
            tool,
            path,
            len,
            max,
        },
    })
}

/// Whether [`find_long_in_object`] finds anything under `object`, worked
/// out without building a path. A scalar, nearly every argument, is
/// answered in line.
fn any_long_in_object(object: &Map<String, Value>, max: usize, depth: usize) -> bool {
    for (key, value) in object {
        if key.len() > max || any_long(value, max, depth + 1) {
            return true;
        }
    }
    false
}

/// Whether [`find_long`] finds anything in `value`.
#[inline(always)]
fn any_long(value: &Value, max: usize, depth: usize) -> bool {
    match value {
        Value::String(s) => s.len() > max && depth <= MAX_DEPTH,
        Value::Object(_) | Value::Array(_) => any_long_within(value, max, depth),
        _ => false,
    }
}

/// [`any_long`] in an object or an array.
#[inline(never)]
fn any_long_within(value: &Value, max: usize, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    match value {
        Value::Object(object) => any_long_in_object(object, max, depth),
        Value::Array(items) => items.iter().any(|item| any_long(item, max, depth + 1)),
        _ => false,
    }
}

/// One step into a JSON value: an object key or an array index.
enum Step<'a> {
    Key(&'a str),
    Index(usize),
}

/// The first over-long string under `object`: its path (innermost step
/// first), its length and whether it is a key.
fn find_long_in_object<'a>(
    object: &'a Map<String, Value>,
    max: usize,
    depth: usize,
) -> Option<(Vec<Step<'a>>, usize, bool)> {
    for (key, value) in object {
        if key.len() > max {
            return Some((Vec::new(), key.len(), true));
        }
        if let Some((mut path, len, is_key)) = find_long(value, max, depth + 1) {
            path.push(Step::Key(key));
            return Some((path, len, is_key));
        }
    }
    None
}

/// The first over-long string in `value`, down to [`MAX_DEPTH`]. A
/// scalar, nearly every argument, is answered in line; the walk into an
/// object or an array is out of line.
#[inline]
fn find_long(value: &Value, max: usize, depth: usize) -> Option<(Vec<Step<'_>>, usize, bool)> {
    match value {
        Value::String(s) if s.len() > max && depth <= MAX_DEPTH => {
            Some((Vec::new(), s.len(), false))
        }
        Value::Object(_) | Value::Array(_) => find_long_within(value, max, depth),
        _ => None,
    }
}

/// [`find_long`] in an object or an array.
fn find_long_within(
    value: &Value,
    max: usize,
    depth: usize,
) -> Option<(Vec<Step<'_>>, usize, bool)> {
    if depth > MAX_DEPTH {
        return None;
    }
    match value {
        Value::Object(object) => find_long_in_object(object, max, depth),
        Value::Array(items) => items.iter().enumerate().find_map(|(index, item)| {
            find_long(item, max, depth + 1).map(|(mut path, len, is_key)| {
                path.push(Step::Index(index));
                (path, len, is_key)
            })
        }),
        _ => None,
    }
}

/// `a.b[3].c` from steps innermost first.
fn render_path(path: &[Step<'_>]) -> String {
    let mut out = String::new();
    for step in path.iter().rev() {
        match step {
            Step::Key(key) if out.is_empty() => out.push_str(key),
            Step::Key(key) => {
                out.push('.');
                out.push_str(key);
            }
            Step::Index(index) => {
                let _ = write!(out, "[{index}]");
            }
        }
    }
    out
}

/// The field a serde refusal of an unknown field names (`unknown field
/// `data`, expected ...` or, for a struct with a flattened field, `unknown
/// field `data``); `None` for any other refusal.
pub(crate) fn unknown_field(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("unknown field `")?;
    rest.split_once('`').map(|(field, _)| field)
}

/// A serde message about JSON input, in the words of JSON instead of
/// Rust's: `expected struct NewDevice` becomes `expected an object`,
/// `invalid type: sequence` becomes `invalid type: array`, `expected u16`
/// says which integers fit. The rest of the message, and the field names
/// it quotes, are kept.
pub(crate) fn json_terms(message: &str) -> String {
    if message.starts_with("data did not match any variant of untagged enum") {
        return "the value matches none of the shapes the schema allows".to_owned();
    }
    let Some((head, expected)) = message.split_once(", expected ") else {
        return message.to_owned();
    };
    // Only the serde forms whose `expected` names a type are rewritten;
    // `unknown field `x`, expected one of ...` keeps its list.
    let Some(unexpected) = ["invalid type: ", "invalid value: "]
        .into_iter()
        .find_map(|prefix| head.strip_prefix(prefix).map(|rest| (prefix, rest)))
    else {
        return message.to_owned();
    };
    let (prefix, unexpected) = unexpected;
    format!(
        "{prefix}{}, expected {}",
        unexpected_in_json(unexpected),
        expected_in_json(expected)
    )
}

/// serde's name for what it was given, as JSON calls it.
fn unexpected_in_json(unexpected: &str) -> String {
    match unexpected {
        "map" => "object".to_owned(),
        "sequence" => "array".to_owned(),
        "unit value" => "null".to_owned(),
        other => other
            .strip_prefix("integer ")
            .or_else(|| other.strip_prefix("floating point "))
            .map_or_else(
                || other.to_owned(),
                |number| format!("number {}", number.trim_matches('`')),
            ),
    }
}

/// serde's `expecting` text, as JSON calls it.
fn expected_in_json(expected: &str) -> String {
    let integer = |low: i128, high: i128| format!("an integer from {low} to {high}");
    match expected {
        "string or map" => "a string or an object".to_owned(),
        "a map" | "map" => "an object".to_owned(),
        "a sequence" | "sequence" => "an array".to_owned(),
        "unit" => "null".to_owned(),
        "a borrowed string" => "a string".to_owned(),
        "char" => "a string of one character".to_owned(),
        "u8" => integer(0, u8::MAX.into()),
        "u16" => integer(0, u16::MAX.into()),
        "u32" => integer(0, u32::MAX.into()),
        "u64" | "u128" | "usize" => "a non-negative integer".to_owned(),
        "i8" => integer(i8::MIN.into(), i8::MAX.into()),
        "i16" => integer(i16::MIN.into(), i16::MAX.into()),
        "i32" => integer(i32::MIN.into(), i32::MAX.into()),
        "i64" | "i128" | "isize" => "an integer".to_owned(),
        "f32" | "f64" => "a number".to_owned(),
        other if other.starts_with("struct ") => "an object".to_owned(),
        other if other.starts_with("tuple struct ") || other.starts_with("a tuple of size ") => {
            "an array".to_owned()
        }
        other if other.starts_with("unit struct ") => "null".to_owned(),
        other if other.starts_with("enum ") => "one of the values its schema lists".to_owned(),
        other if other.starts_with("option") => "a value or null".to_owned(),
        other => other.to_owned(),
    }
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
    fn the_quick_walk_finds_what_the_path_finder_finds() {
        // Nested down to and past the depth looked at, with a long string,
        // a long key, or nothing long at the bottom.
        let nested = |depth: usize, leaf: Value| {
            (0..depth).fold(leaf, |inner, level| {
                if level % 2 == 0 {
                    json!([inner])
                } else {
                    json!({ "k": inner })
                }
            })
        };
        let long = "x".repeat(20);
        for depth in [
            0,
            1,
            2,
            3,
            MAX_DEPTH - 2,
            MAX_DEPTH - 1,
            MAX_DEPTH,
            MAX_DEPTH + 1,
            MAX_DEPTH + 3,
        ] {
            for leaf in [
                json!(long),
                json!({ long.clone(): 1 }),
                json!("short"),
                json!(12),
                json!(null),
            ] {
                let args = map(json!({"a": 1, "deep": nested(depth, leaf.clone())}));
                assert_eq!(
                    any_long_in_object(&args, 10, 0),
                    find_long_in_object(&args, 10, 0).is_some(),
                    "depth {depth}, leaf {leaf}"
                );
            }
        }
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

#[cfg(test)]
mod bounds_and_wording {
    use std::collections::BTreeMap;

    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct NewDevice {
        name: String,
        position: Option<u16>,
        tags: Vec<String>,
        extra: BTreeMap<String, Value>,
        pair: (u8, u8),
        level: i8,
        ratio: f64,
        status: Status,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "snake_case")]
    #[allow(dead_code)]
    enum Status {
        Active,
        Planned,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Call {
        device: NewDevice,
    }

    fn device() -> Value {
        json!({"name": "edge", "position": 1, "tags": [], "extra": {}, "pair": [1, 2],
               "level": 0, "ratio": 0.5, "status": "active"})
    }

    /// The message serde gives for `call` bound to [`Call`], through the
    /// rewrite.
    fn message(call: Value) -> String {
        let error = serde_path_to_error::deserialize::<_, Call>(&call).unwrap_err();
        json_terms(&error.inner().to_string())
    }

    fn with(field: &str, value: Value) -> Value {
        let mut device = device();
        device[field] = value;
        json!({ "device": device })
    }

    #[test]
    fn a_struct_given_something_else_expects_an_object() {
        let text = message(json!({"device": "edge"}));
        assert_eq!(text, "invalid type: string \"edge\", expected an object");
        let text = message(json!({"device": true}));
        assert_eq!(text, "invalid type: boolean `true`, expected an object");
    }

    #[test]
    fn no_rust_type_names_reach_the_caller() {
        for (field, value) in [
            ("name", json!({"a": 1})),
            ("name", json!(null)),
            ("position", json!(70000)),
            ("position", json!(-1)),
            ("position", json!(1.5)),
            ("tags", json!({"a": 1})),
            ("extra", json!([1])),
            ("pair", json!("x")),
            ("level", json!(300)),
            ("ratio", json!("x")),
            ("status", json!(5)),
            ("status", json!("asleep")),
        ] {
            let text = message(with(field, value.clone()));
            for rust in [
                "struct",
                "u16",
                "u8",
                "i8",
                "f64",
                "sequence",
                "map",
                "unit",
                "tuple",
                "enum",
                "Status",
                "NewDevice",
            ] {
                assert!(!text.contains(rust), "{field} = {value}: {text}");
            }
        }
    }

    #[test]
    fn an_integer_out_of_range_says_which_integers_fit() {
        let text = message(with("position", json!(70000)));
        assert_eq!(
            text,
            "invalid value: number 70000, expected an integer from 0 to 65535"
        );
        let text = message(with("name", json!(null)));
        assert_eq!(text, "invalid type: null, expected a string");
    }

    #[test]
    fn messages_without_a_type_are_kept() {
        let text = message(with("status", json!("asleep")));
        assert_eq!(
            text,
            "unknown variant `asleep`, expected `active` or `planned`"
        );
        assert_eq!(json_terms("missing field `name`"), "missing field `name`");
    }

    #[test]
    fn a_long_string_is_named_by_its_path() {
        let args = json!({"devices": [{"name": "ok"}, {"name": "x".repeat(11)}]});
        let Value::Object(args) = args else {
            unreachable!()
        };
        let error = check_strings("device_bulk_create", &args, 10)
            .unwrap_err()
            .to_string();
        assert_eq!(
            error,
            "invalid arguments for `device_bulk_create` at `devices[1].name`: the string is 11 \
             bytes long, and this server takes at most 10 bytes in one argument string; send a \
             shorter value"
        );
        assert!(check_strings("t", &args, 11).is_ok());
    }

    #[test]
    fn a_long_key_of_the_arguments_themselves_is_named_as_a_key() {
        let mut args = Map::new();
        args.insert("k".repeat(20), json!(1));
        assert_eq!(
            check_strings("t", &args, 16).unwrap_err().to_string(),
            "invalid arguments for `t`: a key is 20 bytes long, and this server takes at most 16 \
             bytes in one argument string; send a shorter value"
        );
    }

    #[test]
    fn a_long_key_is_refused_too() {
        let mut inner = Map::new();
        inner.insert("k".repeat(20), json!(1));
        let mut args = Map::new();
        args.insert("custom_fields".into(), Value::Object(inner));
        let error = check_strings("t", &args, 16).unwrap_err().to_string();
        assert!(
            error.starts_with(
                "invalid arguments for `t`: a key in `custom_fields` is 20 bytes long"
            ),
            "{error}"
        );
    }
}
