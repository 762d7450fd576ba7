//! The lean confirmation envelopes a write answers.

use std::io;

use serde::Serialize;
use serde_json::{Map, Value};

use crate::light_key::KeyFields;
use crate::token::Token;

/// The byte length of `value`'s compact JSON, counted while serializing: no
/// buffer of the full echo is built.
///
/// ```
/// let devices = vec![serde_json::json!({"id": 1, "name": "edge-01"}); 60];
/// assert_eq!(
///     mcp_light::data_size(&devices).unwrap(),
///     serde_json::to_vec(&devices).unwrap().len(),
/// );
/// ```
pub fn data_size<T: Serialize + ?Sized>(value: &T) -> Result<usize, serde_json::Error> {
    let mut counter = ByteCounter(0);
    serde_json::to_writer(&mut counter, value)?;
    Ok(counter.0)
}

/// An `io::Write` that keeps only the number of bytes written to it.
struct ByteCounter(usize);

impl io::Write for ByteCounter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.0 += buf.len();
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// How a bulk envelope lets the caller reach what was written.
#[derive(Debug)]
pub(crate) enum BulkReach {
    /// Outcome 1: the full result is stored behind this token.
    Token(Token),
    /// Outcome 2: the identifiers of the accepted objects, in order.
    Ids(Vec<Value>),
}

/// A lean confirmation envelope, one variant per shape. Its JSON keeps
/// the keys in one documented order: identity first, then the status.
#[derive(Debug)]
pub(crate) enum LeanEnvelope {
    /// `{id, url?, name?, <light keys>, status_code, data_size}` +
    /// `continuation_token` where disclosed.
    Single {
        key: KeyFields,
        status_code: u16,
        data_size: usize,
        token: Option<Token>,
    },
    /// `{accepted, status_code, data_size}` + `continuation_token` or `ids`.
    Bulk {
        accepted: usize,
        status_code: u16,
        data_size: usize,
        reach: BulkReach,
    },
    /// `{id, deleted: true, status_code}`, the id from the call's arguments.
    Destroy {
        id_name: &'static str,
        id: Value,
        status_code: u16,
    },
}

impl LeanEnvelope {
    /// The envelope as a JSON object, keys in their documented order.
    pub(crate) fn into_json(self) -> Map<String, Value> {
        match self {
            LeanEnvelope::Single {
                key,
                status_code,
                data_size,
                token,
            } => {
                let mut out = key.into_map();
                out.insert("status_code".into(), status_code.into());
                out.insert("data_size".into(), data_size.into());
                if let Some(token) = token {
                    out.insert("continuation_token".into(), token.as_str().into());
                }
                out
            }
            LeanEnvelope::Bulk {
                accepted,
                status_code,
                data_size,
                reach,
            } => {
                let mut out = Map::new();
                out.insert("accepted".into(), accepted.into());
                out.insert("status_code".into(), status_code.into());
                out.insert("data_size".into(), data_size.into());
                match reach {
                    BulkReach::Token(token) => {
                        out.insert("continuation_token".into(), token.as_str().into())
                    }
                    BulkReach::Ids(ids) => out.insert("ids".into(), Value::Array(ids)),
                };
                out
            }
            LeanEnvelope::Destroy {
                id_name,
                id,
                status_code,
            } => {
                let mut out = Map::new();
                out.insert(id_name.into(), id);
                out.insert("deleted".into(), true.into());
                out.insert("status_code".into(), status_code.into());
                out
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn keys(map: &Map<String, Value>) -> Vec<&str> {
        map.keys().map(String::as_str).collect()
    }

    #[test]
    fn data_size_counts_what_to_vec_writes() {
        let value = json!({"name": "édge-01 ☃", "n": [1.5, null, true], "s": "a\"b\\c\n"});
        assert_eq!(
            data_size(&value).unwrap(),
            serde_json::to_vec(&value).unwrap().len()
        );
    }

    #[test]
    fn single_envelope_key_order() {
        let mut key = KeyFields::new();
        key.id("id", &1);
        key.field("url", "/d/1");
        key.field("name", "edge-01");
        key.field("site_slug", "hq");
        let token = Token::mint().unwrap();
        let out = LeanEnvelope::Single {
            key,
            status_code: 201,
            data_size: 700,
            token: Some(token),
        }
        .into_json();
        assert_eq!(
            keys(&out),
            [
                "id",
                "url",
                "name",
                "site_slug",
                "status_code",
                "data_size",
                "continuation_token"
            ]
        );
    }

    #[test]
    fn bulk_envelope_key_order_with_ids_and_with_token() {
        let ids = LeanEnvelope::Bulk {
            accepted: 2,
            status_code: 201,
            data_size: 10,
            reach: BulkReach::Ids(vec![json!(1), json!(2)]),
        }
        .into_json();
        assert_eq!(keys(&ids), ["accepted", "status_code", "data_size", "ids"]);
        let token = LeanEnvelope::Bulk {
            accepted: 2,
            status_code: 201,
            data_size: 10,
            reach: BulkReach::Token(Token::mint().unwrap()),
        }
        .into_json();
        assert_eq!(
            keys(&token),
            ["accepted", "status_code", "data_size", "continuation_token"]
        );
    }

    #[test]
    fn destroy_envelope_key_order() {
        let out = LeanEnvelope::Destroy {
            id_name: "id",
            id: json!("9f1c"),
            status_code: 204,
        }
        .into_json();
        assert_eq!(
            Value::Object(out).to_string(),
            r#"{"id":"9f1c","deleted":true,"status_code":204}"#
        );
    }
}
