//! The lean confirmation envelopes a write answers.

use std::borrow::Cow;
use std::io;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Serialize;
use serde::ser::SerializeMap;
use serde_json::{Map, Value};

use crate::token::Token;
use crate::writes::light_key::KeyFields;

/// The byte length of `value`'s compact JSON, counted while serializing: no
/// buffer of the full echo is built.
pub(crate) fn data_size<T: Serialize + ?Sized>(value: &T) -> Result<usize, serde_json::Error> {
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

/// A lean confirmation envelope, one variant per shape. Each shape is a
/// type whose fields, in order, are the envelope's keys: identity first,
/// then the status.
#[derive(Debug, Serialize)]
#[serde(untagged)]
pub(crate) enum LeanEnvelope {
    /// A single write's.
    Single(SingleEnvelope),
    /// A bulk write's.
    Bulk(BulkEnvelope),
    /// A destroy's.
    Destroy(DestroyEnvelope),
}

/// `{id, url?, name?, <light keys>, status_code, data_size}`, plus
/// `continuation_token` where the caller's schema discloses continuation.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(title = "envelope")]
pub(crate) struct SingleEnvelope {
    /// The identifying fields, in envelope order. Which ones a result has
    /// depends on its type, so the published schema names none of them.
    #[serde(flatten)]
    #[schemars(skip)]
    key: Map<String, Value>,
    status_code: u16,
    /// The byte length of the full result's compact JSON.
    data_size: usize,
    /// Left out, never `null`, when there is none: a string where present.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    continuation_token: Option<String>,
    /// Why the envelope stands where `verify: true` asked for the full
    /// result: that result is more than the client keeps.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    note: Option<String>,
}

impl SingleEnvelope {
    /// The envelope of an object identified by `key`, with `token` where
    /// one was minted.
    pub(crate) fn new(
        key: KeyFields,
        status_code: u16,
        data_size: usize,
        token: Option<Token>,
    ) -> SingleEnvelope {
        SingleEnvelope {
            key: key.into_map(),
            status_code,
            data_size,
            continuation_token: token.map(|token| token.as_str().to_owned()),
            note: None,
        }
    }

    /// The envelope, saying `note` where there is one.
    pub(crate) fn noting(mut self, note: Option<String>) -> SingleEnvelope {
        self.note = note;
        self
    }
}

/// `{accepted, status_code, data_size}` plus `continuation_token` or
/// `ids`, as [`BulkReach`] says; with a token, the `ids` too while the
/// envelope stays within its bound ([`BulkEnvelope::listing`]).
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(title = "envelope")]
pub(crate) struct BulkEnvelope {
    /// How many objects were written.
    accepted: usize,
    status_code: u16,
    data_size: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    continuation_token: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Vec<Value>")]
    ids: Option<Vec<Value>>,
    /// Why the envelope stands where `verify: true` asked for the full
    /// result: that result is more than the client keeps.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    note: Option<String>,
}

impl BulkEnvelope {
    /// The envelope of `accepted` objects, reached as `reach` says.
    pub(crate) fn new(
        accepted: usize,
        status_code: u16,
        data_size: usize,
        reach: BulkReach,
    ) -> BulkEnvelope {
        let (continuation_token, ids) = match reach {
            BulkReach::Token(token) => (Some(token.as_str().to_owned()), None),
            BulkReach::Ids(ids) => (None, Some(ids)),
        };
        BulkEnvelope {
            accepted,
            status_code,
            data_size,
            continuation_token,
            ids,
            note: None,
        }
    }

    /// The envelope listing `ids` as well, if the whole of it then takes at
    /// most `bound` bytes of compact JSON; else as it was. Counted id by
    /// id, stopping at the bound: ten thousand ids cost what the first
    /// few dozen do.
    pub(crate) fn listing(mut self, ids: Vec<Value>, bound: usize) -> BulkEnvelope {
        // `,"ids":[` and `]`.
        let mut used = data_size(&self).unwrap_or(usize::MAX).saturating_add(9);
        for (index, id) in ids.iter().enumerate() {
            let comma = usize::from(index > 0);
            used = used.saturating_add(data_size(id).unwrap_or(usize::MAX) + comma);
            if used > bound {
                return self;
            }
        }
        self.ids = Some(ids);
        self
    }

    /// The envelope, saying `note` where there is one.
    pub(crate) fn noting(mut self, note: Option<String>) -> BulkEnvelope {
        self.note = note;
        self
    }
}

/// `{<id>, deleted: true, status_code}`, the id from the call's arguments
/// under its own name (`id`, `pk`, or the argument marked `#[id]`).
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(title = "envelope")]
pub(crate) struct DestroyEnvelope {
    /// Named as the tool names it, so the published schema cannot.
    #[serde(flatten)]
    #[schemars(skip)]
    id: NamedId,
    deleted: Deleted,
    status_code: u16,
}

impl DestroyEnvelope {
    /// The envelope of the object whose identifier `id` the call gave as
    /// `id_name`.
    pub(crate) fn new(id_name: &'static str, id: Value, status_code: u16) -> DestroyEnvelope {
        DestroyEnvelope {
            id: NamedId {
                name: id_name,
                value: id,
            },
            deleted: Deleted,
            status_code,
        }
    }
}

/// One field whose name is known only at run time: `{name: value}`.
#[derive(Debug)]
struct NamedId {
    name: &'static str,
    value: Value,
}

impl Serialize for NamedId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(1))?;
        map.serialize_entry(self.name, &self.value)?;
        map.end()
    }
}

/// `deleted: true`, the only value a destroy envelope has there.
#[derive(Debug)]
struct Deleted;

impl Serialize for Deleted {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bool(true)
    }
}

impl JsonSchema for Deleted {
    fn schema_name() -> Cow<'static, str> {
        "Deleted".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"const": true})
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn data_size_is_the_length_of_compact_json() {
        let devices = vec![json!({"id": 1, "name": "edge-01"}); 60];
        assert_eq!(
            data_size(&devices).unwrap(),
            serde_json::to_vec(&devices).unwrap().len(),
        );
    }

    fn keys(value: &Value) -> Vec<&str> {
        value
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect()
    }

    fn wire(envelope: LeanEnvelope) -> Value {
        serde_json::to_value(envelope).unwrap()
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
        let out = wire(LeanEnvelope::Single(SingleEnvelope::new(
            key,
            201,
            700,
            Some(token),
        )));
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
        let ids = wire(LeanEnvelope::Bulk(BulkEnvelope::new(
            2,
            201,
            10,
            BulkReach::Ids(vec![json!(1), json!(2)]),
        )));
        assert_eq!(keys(&ids), ["accepted", "status_code", "data_size", "ids"]);
        let token = wire(LeanEnvelope::Bulk(BulkEnvelope::new(
            2,
            201,
            10,
            BulkReach::Token(Token::mint().unwrap()),
        )));
        assert_eq!(
            keys(&token),
            ["accepted", "status_code", "data_size", "continuation_token"]
        );
    }

    #[test]
    fn destroy_envelope_key_order() {
        let out = wire(LeanEnvelope::Destroy(DestroyEnvelope::new(
            "id",
            json!("9f1c"),
            204,
        )));
        assert_eq!(
            out.to_string(),
            r#"{"id":"9f1c","deleted":true,"status_code":204}"#
        );
    }
}
