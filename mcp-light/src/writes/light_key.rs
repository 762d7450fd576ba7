//! Which fields identify an object in a lean envelope.

use serde::Serialize;
use serde_json::{Map, Value};

/// Names the fields that identify an object in a lean envelope.
///
/// Derive it with `#[derive(LightKey)]`. The fields are taken in priority
/// order: `id`/`pk` → `url` → `name`/`display` → the fields listed in
/// `#[light_key(...)]`, each under its *serialized* name (serde `rename` and
/// `rename_all` are honored). A field that serializes to `null` is left out.
///
/// ```
/// use mcp_light::prelude::*;
///
/// #[derive(Serialize, LightKey)]
/// #[serde(rename_all = "camelCase")]
/// #[light_key(site_slug)]
/// struct Device {
///     id: u64,
///     name: String,
///     site_slug: String,
///     serial: String,
/// }
///
/// let device = Device { id: 7, name: "edge-01".into(), site_slug: "hq".into(), serial: "X1".into() };
/// let mut key = KeyFields::new();
/// device.light_key(&mut key);
/// assert_eq!(serde_json::Value::Object(key.into_map()).to_string(), r#"{"id":7,"name":"edge-01","siteSlug":"hq"}"#);
/// assert_eq!(device.light_id(), Some(serde_json::json!(7)));
/// ```
///
/// `serde_json::Value` implements it by looking the same names up at run
/// time, so tools with dynamic results get envelopes too.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not say which of its fields identify it in a lean envelope",
    label = "a write's envelope names its result's identifying fields through `LightKey`",
    note = "add `#[derive(LightKey)]` to `{Self}` (with `#[light_key(...)]` for extra key fields), or return a `serde_json::Value`"
)]
pub trait LightKey {
    /// Appends the identifying fields to `out`, in envelope order.
    fn light_key(&self, out: &mut KeyFields);

    /// The object's identifier (`id` or `pk`), if it has one that is not
    /// `null`. A bulk write whose every object has one answers `ids`; one
    /// missing identifier means the full result is returned.
    fn light_id(&self) -> Option<Value>;
}

/// The longest string field an envelope echoes whole, in bytes.
const ECHOED_STRING: usize = 256;

/// `long` cut to fewer than [`ECHOED_STRING`] bytes at a character
/// boundary, with `…` after it.
fn shortened(long: &str) -> String {
    let mut end = ECHOED_STRING - 1;
    while !long.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &long[..end])
}

/// The identifying fields of one object, in envelope order.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct KeyFields {
    map: Map<String, Value>,
    id: Option<String>,
}

impl KeyFields {
    /// No fields yet.
    pub fn new() -> Self {
        KeyFields::default()
    }

    /// Records the identifier under `name`. A `null` identifier is left out.
    pub fn id(&mut self, name: &str, value: &(impl Serialize + ?Sized)) {
        if self.push(name, value, false) {
            self.id = Some(name.to_owned());
        }
    }

    /// Records an identifying field under `name`. A `null` value, or a name
    /// already recorded, is left out. A string longer than 256 bytes is
    /// cut there and ends in `…`: an envelope confirms, it does not echo
    /// (the identifier itself is always kept whole).
    pub fn field(&mut self, name: &str, value: &(impl Serialize + ?Sized)) {
        self.push(name, value, true);
    }

    fn push(&mut self, name: &str, value: &(impl Serialize + ?Sized), shorten: bool) -> bool {
        if self.map.contains_key(name) {
            return false;
        }
        match serde_json::to_value(value) {
            Ok(Value::Null) | Err(_) => false,
            Ok(Value::String(long)) if shorten && long.len() > ECHOED_STRING => {
                self.map
                    .insert(name.to_owned(), Value::String(shortened(&long)));
                true
            }
            Ok(value) => {
                self.map.insert(name.to_owned(), value);
                true
            }
        }
    }

    /// Whether an identifier was recorded.
    pub fn has_id(&self) -> bool {
        self.id.is_some()
    }

    /// The fields, in envelope order.
    pub fn into_map(self) -> Map<String, Value> {
        self.map
    }
}

/// The conventional names, in priority order within each group.
const ID_NAMES: [&str; 2] = ["id", "pk"];
const URL_NAMES: [&str; 1] = ["url"];
const NAME_NAMES: [&str; 2] = ["name", "display"];

impl LightKey for Value {
    fn light_key(&self, out: &mut KeyFields) {
        let Some(object) = self.as_object() else {
            return;
        };
        if let Some((name, value)) = first_present(object, &ID_NAMES) {
            out.id(name, value);
        }
        for group in [&URL_NAMES[..], &NAME_NAMES[..]] {
            if let Some((name, value)) = first_present(object, group) {
                out.field(name, value);
            }
        }
    }

    fn light_id(&self) -> Option<Value> {
        let object = self.as_object()?;
        first_present(object, &ID_NAMES).map(|(_, value)| value.clone())
    }
}

fn first_present<'a>(
    object: &'a Map<String, Value>,
    names: &[&'static str],
) -> Option<(&'static str, &'a Value)> {
    names
        .iter()
        .find_map(|&name| object.get(name).filter(|v| !v.is_null()).map(|v| (name, v)))
}

impl<T: LightKey + ?Sized> LightKey for &T {
    fn light_key(&self, out: &mut KeyFields) {
        (**self).light_key(out)
    }

    fn light_id(&self) -> Option<Value> {
        (**self).light_id()
    }
}

impl<T: LightKey + ?Sized> LightKey for Box<T> {
    fn light_key(&self, out: &mut KeyFields) {
        (**self).light_key(out)
    }

    fn light_id(&self) -> Option<Value> {
        (**self).light_id()
    }
}

/// The result of a bulk write: a list of objects that each implement
/// [`LightKey`]. Implemented for `Vec<T>` and slices of any `T: LightKey +
/// Serialize`, and for `serde_json::Value` (an array; any other value counts
/// as one object).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a list of objects, so it cannot be the result of a bulk write",
    note = "a bulk write returns `Vec<T>` where `T: LightKey`, or a `serde_json::Value` array"
)]
pub trait BulkResult: Serialize {
    /// The type of one written object.
    type Item: LightKey;

    /// The written objects, in the order they were accepted.
    fn items(&self) -> &[Self::Item];
}

/// The bound on the items of a bulk write's list: [`LightKey`], under a
/// sentence about the bulk write, for a list whose items lack it.
/// Implemented for every `LightKey` type.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "the items of a bulk write's `Vec<{Self}>` must implement `LightKey`, which names the fields that identify each of them in the envelope",
    label = "the items of this list are not `LightKey`",
    note = "add `#[derive(LightKey)]` to `{Self}` (and `#[light_key(...)]` for fields beyond id, url and name), or return a `Vec<serde_json::Value>`"
)]
pub trait BulkItem: LightKey {}

// Not recommended, so that a list of items without `LightKey` is reported
// with `BulkItem`'s sentence rather than `LightKey`'s.
#[diagnostic::do_not_recommend]
impl<T: LightKey + ?Sized> BulkItem for T {}

impl<T: BulkItem + Serialize> BulkResult for Vec<T> {
    type Item = T;

    fn items(&self) -> &[T] {
        self
    }
}

impl<T: BulkItem + Serialize> BulkResult for [T] {
    type Item = T;

    fn items(&self) -> &[T] {
        self
    }
}

/// A list's items; an object with exactly one list field, that list's (as
/// MCP's `structuredContent`, always an object, carries a list: `{"created":
/// [...]}`), which is also the list its token pages; anything else, one
/// item.
impl BulkResult for Value {
    type Item = Value;

    fn items(&self) -> &[Value] {
        match self {
            Value::Array(items) => items,
            Value::Object(map) => {
                let mut lists = map.values().filter_map(Value::as_array);
                match (lists.next(), lists.next()) {
                    (Some(items), None) => items,
                    _ => std::slice::from_ref(self),
                }
            }
            other => std::slice::from_ref(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key_of(value: &Value) -> Value {
        let mut key = KeyFields::new();
        value.light_key(&mut key);
        Value::Object(key.into_map())
    }

    #[test]
    fn a_bulk_value_is_its_list_or_its_one_list_field_else_one_item() {
        let list = json!([{"id": 1}, {"id": 2}]);
        assert_eq!(list.items().len(), 2);
        let wrapped = json!({"created": [{"id": 1}, {"id": 2}, {"id": 3}], "count": 3});
        assert_eq!(wrapped.items().len(), 3);
        let two_lists = json!({"created": [{"id": 1}], "skipped": [{"id": 2}]});
        assert_eq!(two_lists.items(), std::slice::from_ref(&two_lists));
        let one = json!({"id": 1});
        assert_eq!(one.items(), std::slice::from_ref(&one));
    }

    #[test]
    fn value_takes_id_then_url_then_name_in_that_order() {
        let object = json!({"name": "edge-01", "serial": "X", "url": "/d/1", "id": 1});
        assert_eq!(
            key_of(&object).to_string(),
            r#"{"id":1,"url":"/d/1","name":"edge-01"}"#
        );
    }

    #[test]
    fn value_falls_back_to_pk_and_display() {
        let object = json!({"pk": "a1", "display": "Edge 01"});
        assert_eq!(
            key_of(&object).to_string(),
            r#"{"pk":"a1","display":"Edge 01"}"#
        );
        assert_eq!(object.light_id(), Some(json!("a1")));
    }

    #[test]
    fn null_identifier_counts_as_missing() {
        let object = json!({"id": null, "name": "x"});
        assert_eq!(object.light_id(), None);
        let mut key = KeyFields::new();
        object.light_key(&mut key);
        assert!(!key.has_id());
    }

    #[test]
    fn non_array_value_is_one_bulk_item() {
        let single = json!({"id": 1});
        assert_eq!(single.items().len(), 1);
        assert_eq!(json!([{"id": 1}, {"id": 2}]).items().len(), 2);
    }
}
