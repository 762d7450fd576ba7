//! JSON as a client could write it, built from fuzz input: written as
//! text, so a duplicate key, a number past `u64` or `f64`, an escape of
//! an odd character and a deep nesting reach the parser as they would on
//! the wire.

use std::fmt::Write;

use arbitrary::Arbitrary;
use serde_json::Value;

/// Words of the protocol and of the inventory, so that fuzzed JSON meets
/// the fields the server looks for rather than only random names.
pub const WORDS: &[&str] = &[
    "device",
    "devices",
    "site",
    "id",
    "name",
    "slug",
    "site_slug",
    "role",
    "device_type",
    "status",
    "serial",
    "asset_tag",
    "platform",
    "rack",
    "position",
    "face",
    "region",
    "tags",
    "active",
    "planned",
    "offline",
    "lab",
    "leaf",
    "router",
    "resource",
    "action",
    "params",
    "create",
    "retrieve",
    "list",
    "update",
    "partial_update",
    "destroy",
    "bulk_create",
    "describe",
    "continuation_token",
    "mode",
    "page",
    "page_size",
    "filter_keys",
    "verify",
    "summary",
    "paginated",
    "filtered",
    "full",
    "items",
    "results",
    "00000000-0000-0000-0000-000000000000",
    "0196f0c4-5b1e-7c3a-9d2e-3f4a5b6c7d8e",
    "",
];

/// Strings a parser or a counter of characters may get wrong.
const ODD: &[&str] = &[
    "\\u0000",
    "\\ud83d\\ude00",
    "\\ud800",
    "\\udfff\\ud800",
    "\u{feff}",
    "\u{200d}",
    "\u{202e}",
    "e\u{301}\u{301}\u{301}",
    "\u{10ffff}",
    "\\\"",
    "\\\\",
    "\\/",
    "\\n\\r\\t",
    "\u{7f}",
    "Ω≈ç√∫",
    "🏳\u{fe0f}\u{200d}🌈",
    "%00",
    "../",
];

/// A JSON value, as fuzz input.
#[derive(Arbitrary, Debug, Clone)]
pub enum Json {
    Null,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(f64),
    Huge(Huge),
    Str(Text),
    Array(Vec<Json>),
    Object(Vec<(Text, Json)>),
    /// A nesting deeper than the input would otherwise reach: `depth`
    /// arrays or objects around `inner`.
    Deep {
        depth: u16,
        objects: bool,
        inner: Box<Json>,
    },
}

/// A number written as digits: beyond what `u64` and `f64` hold, with a
/// fraction and an exponent of any size.
#[derive(Arbitrary, Debug, Clone)]
pub struct Huge {
    negative: bool,
    digits: u8,
    fraction: u8,
    exponent: Option<i32>,
}

/// The text of a string or a key.
#[derive(Arbitrary, Debug, Clone)]
pub enum Text {
    Word(u8),
    Odd(u8),
    Plain(String),
    /// One character many times, for length and character-count limits.
    Repeated(char, u16),
}

impl Text {
    /// The text, escaped for a JSON string (the `Odd` escapes are written
    /// as they are).
    pub fn write_escaped(&self, out: &mut String) {
        match self {
            Text::Word(i) => escape(WORDS[usize::from(*i) % WORDS.len()], out),
            Text::Odd(i) => out.push_str(ODD[usize::from(*i) % ODD.len()]),
            Text::Plain(text) => escape(text, out),
            Text::Repeated(c, n) => {
                let one = c.to_string();
                for _ in 0..*n {
                    escape(&one, out);
                }
            }
        }
    }

    /// The text as a Rust string: what the escapes stand for, or the
    /// replacement character where they stand for nothing.
    pub fn to_text(&self) -> String {
        let mut quoted = String::from("\"");
        self.write_escaped(&mut quoted);
        quoted.push('"');
        serde_json::from_str(&quoted).unwrap_or_else(|_| "\u{fffd}".to_owned())
    }
}

fn escape(text: &str, out: &mut String) {
    let quoted = serde_json::to_string(text).expect("a string serializes");
    out.push_str(&quoted[1..quoted.len() - 1]);
}

impl Json {
    /// The value as JSON text, duplicate keys and all.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Int(n) => write!(out, "{n}").unwrap(),
            Json::Uint(n) => write!(out, "{n}").unwrap(),
            Json::Float(x) if x.is_finite() => write!(out, "{x:?}").unwrap(),
            Json::Float(_) => out.push_str("1e400"),
            Json::Huge(huge) => {
                if huge.negative {
                    out.push('-');
                }
                out.push('1');
                out.extend(std::iter::repeat_n('9', usize::from(huge.digits)));
                if huge.fraction > 0 {
                    out.push('.');
                    out.extend(std::iter::repeat_n('7', usize::from(huge.fraction)));
                }
                if let Some(exponent) = huge.exponent {
                    write!(out, "e{exponent}").unwrap();
                }
            }
            Json::Str(text) => {
                out.push('"');
                text.write_escaped(out);
                out.push('"');
            }
            Json::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            Json::Object(fields) => {
                out.push('{');
                for (i, (key, value)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push('"');
                    key.write_escaped(out);
                    out.push_str("\":");
                    value.write(out);
                }
                out.push('}');
            }
            Json::Deep {
                depth,
                objects,
                inner,
            } => {
                let depth = usize::from(*depth % 600);
                for _ in 0..depth {
                    out.push_str(if *objects { "{\"a\":" } else { "[" });
                }
                inner.write(out);
                for _ in 0..depth {
                    out.push(if *objects { '}' } else { ']' });
                }
            }
        }
    }

    /// The value as a client's JSON parser would read its text, or `None`
    /// when the text is no JSON a client could send (too deep, a number
    /// out of range, a lone surrogate).
    pub fn to_value(&self) -> Option<Value> {
        serde_json::from_str(&self.to_text()).ok()
    }
}
