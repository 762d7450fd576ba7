//! Names and their values written as a JSON object, in the order given:
//! a field's keys, an object's keys, a field's value counts.

use serde::Serialize;
use serde::ser::SerializeMap;

/// Names and their values in the order first given, written as a JSON
/// object: a name given again keeps its place and takes the new value, as
/// a key of a JSON object would (two long field names may be cut to one;
/// value labels never are).
#[derive(Debug)]
pub(in crate::heavy) struct NamedValues<V>(Vec<(String, V)>);

impl<V> FromIterator<(String, V)> for NamedValues<V> {
    fn from_iter<I: IntoIterator<Item = (String, V)>>(entries: I) -> NamedValues<V> {
        let mut named: Vec<(String, V)> = Vec::new();
        for (name, value) in entries {
            match named.iter_mut().find(|(known, _)| *known == name) {
                Some(slot) => slot.1 = value,
                None => named.push((name, value)),
            }
        }
        NamedValues(named)
    }
}

impl<V: Serialize> Serialize for NamedValues<V> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, value) in &self.0 {
            map.serialize_entry(name, value)?;
        }
        map.end()
    }
}
