//! A list item read for its summary through its own `Serialize` impl:
//! what a field holds is seen as serde_json would write it, without
//! building a `Value` of it. A million items are summarized without a
//! million trees of allocations.
//!
//! Each serializer here records and writes nothing else: [`Item`] takes
//! one item of a list, [`Field`] one value (of a field, or an item that is
//! not an object), [`List`] and [`Keys`] a list or an object inside it
//! ([`compound`]), [`Text`] the text of a map key or of a list's string
//! ([`text`]).

mod compound;
mod stop;
mod text;

use serde::ser::{self, Serialize};
use serde_json::Number;

use super::summary::{ListSummary, Stats};
use compound::{Keys, List};
use stop::Stop;
use text::Text;

/// One item of a list: an object's fields go to their own stats, anything
/// else to the list's `items`.
pub(super) struct Item<'a> {
    pub(super) list: &'a mut ListSummary,
}

/// The fields of an object item.
pub(super) struct Object<'a> {
    list: &'a mut ListSummary,
    position: usize,
    /// The key of a map entry whose value comes next.
    key: String,
}

impl<'a> Object<'a> {
    fn new(list: &'a mut ListSummary) -> Self {
        list.begin_object();
        Object {
            list,
            position: 0,
            key: String::new(),
        }
    }

    fn field<T: Serialize + ?Sized>(&mut self, key: &str, value: &T) -> Result<(), Stop> {
        let position = self.position;
        self.position += 1;
        match self.list.field(position, key) {
            Some(stats) => value.serialize(Field { stats }),
            None => Ok(()),
        }
    }
}

/// `key` is how serde_json names a variant that holds a value: an object
/// with that one key.
fn variant_object<'a>(list: &'a mut ListSummary, key: &str) -> Option<&'a mut Stats> {
    list.begin_object();
    list.field(0, key)
}

macro_rules! scalar_item {
    ($($method:ident($ty:ty);)*) => {
        $(fn $method(self, value: $ty) -> Result<(), Stop> {
            value.serialize(Field { stats: self.list.scalars() })
        })*
    };
}

impl<'a> ser::Serializer for Item<'a> {
    type Ok = ();
    type Error = Stop;
    type SerializeSeq = List<'a>;
    type SerializeTuple = List<'a>;
    type SerializeTupleStruct = List<'a>;
    type SerializeTupleVariant = List<'a>;
    type SerializeMap = Object<'a>;
    type SerializeStruct = Object<'a>;
    type SerializeStructVariant = Keys<'a>;

    scalar_item! {
        serialize_bool(bool);
        serialize_i8(i8);
        serialize_i16(i16);
        serialize_i32(i32);
        serialize_i64(i64);
        serialize_i128(i128);
        serialize_u8(u8);
        serialize_u16(u16);
        serialize_u32(u32);
        serialize_u64(u64);
        serialize_u128(u128);
        serialize_f32(f32);
        serialize_f64(f64);
        serialize_char(char);
        serialize_bytes(&[u8]);
    }

    fn serialize_str(self, value: &str) -> Result<(), Stop> {
        self.list.string_item(value);
        Ok(())
    }

    fn serialize_none(self) -> Result<(), Stop> {
        self.list.scalars().null();
        Ok(())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Stop> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), Stop> {
        self.serialize_none()
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Stop> {
        self.serialize_none()
    }

    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        name: &'static str,
    ) -> Result<(), Stop> {
        self.list.scalars().string(name);
        Ok(())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        match variant_object(self.list, variant) {
            Some(stats) => value.serialize(Field { stats }),
            None => Ok(()),
        }
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<List<'a>, Stop> {
        Ok(List::new(Some(self.list.scalars())))
    }

    fn serialize_tuple(self, len: usize) -> Result<List<'a>, Stop> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<List<'a>, Stop> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<List<'a>, Stop> {
        Ok(List::new(variant_object(self.list, variant)))
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Object<'a>, Stop> {
        Ok(Object::new(self.list))
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Object<'a>, Stop> {
        Ok(Object::new(self.list))
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Keys<'a>, Stop> {
        Ok(Keys::new(variant_object(self.list, variant)))
    }
}

impl ser::SerializeMap for Object<'_> {
    type Ok = ();
    type Error = Stop;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Stop> {
        self.key.clear();
        let into = &mut self.key;
        key.serialize(Text::key(&mut |text: &str| into.push_str(text)))
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        let key = std::mem::take(&mut self.key);
        let done = self.field(&key, value);
        self.key = key;
        done
    }

    fn end(self) -> Result<(), Stop> {
        Ok(())
    }
}

impl ser::SerializeStruct for Object<'_> {
    type Ok = ();
    type Error = Stop;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        self.field(key, value)
    }

    fn end(self) -> Result<(), Stop> {
        Ok(())
    }
}

/// One value, recorded in `stats`.
struct Field<'a> {
    stats: &'a mut Stats,
}

macro_rules! number_field {
    ($($method:ident($ty:ty) => $number:expr;)*) => {
        $(fn $method(self, value: $ty) -> Result<(), Stop> {
            let number: Option<Number> = $number(value);
            match number {
                Some(number) => self.stats.number(number),
                // serde_json writes a float that is not finite as null.
                None => self.stats.null(),
            }
            Ok(())
        })*
    };
}

impl<'a> ser::Serializer for Field<'a> {
    type Ok = ();
    type Error = Stop;
    type SerializeSeq = List<'a>;
    type SerializeTuple = List<'a>;
    type SerializeTupleStruct = List<'a>;
    type SerializeTupleVariant = Keys<'a>;
    type SerializeMap = Keys<'a>;
    type SerializeStruct = Keys<'a>;
    type SerializeStructVariant = Keys<'a>;

    number_field! {
        serialize_i8(i8) => |v| Some(Number::from(v));
        serialize_i16(i16) => |v| Some(Number::from(v));
        serialize_i32(i32) => |v| Some(Number::from(v));
        serialize_i64(i64) => |v| Some(Number::from(v));
        serialize_u8(u8) => |v| Some(Number::from(v));
        serialize_u16(u16) => |v| Some(Number::from(v));
        serialize_u32(u32) => |v| Some(Number::from(v));
        serialize_u64(u64) => |v| Some(Number::from(v));
        serialize_i128(i128) => |v: i128| i64::try_from(v).map(Number::from).ok().or_else(|| Number::from_f64(v as f64));
        serialize_u128(u128) => |v: u128| u64::try_from(v).map(Number::from).ok().or_else(|| Number::from_f64(v as f64));
        serialize_f32(f32) => |v: f32| Number::from_f64(f64::from(v));
        serialize_f64(f64) => Number::from_f64;
    }

    fn serialize_bool(self, value: bool) -> Result<(), Stop> {
        self.stats.boolean(value);
        Ok(())
    }

    fn serialize_char(self, value: char) -> Result<(), Stop> {
        self.stats.string(value.encode_utf8(&mut [0; 4]));
        Ok(())
    }

    fn serialize_str(self, value: &str) -> Result<(), Stop> {
        self.stats.string(value);
        Ok(())
    }

    /// serde_json writes bytes as a list of numbers.
    fn serialize_bytes(self, value: &[u8]) -> Result<(), Stop> {
        self.stats.list();
        self.stats.list_length(value.len());
        Ok(())
    }

    fn serialize_none(self) -> Result<(), Stop> {
        self.stats.null();
        Ok(())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Stop> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), Stop> {
        self.serialize_none()
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Stop> {
        self.serialize_none()
    }

    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        name: &'static str,
    ) -> Result<(), Stop> {
        self.stats.string(name);
        Ok(())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: &T,
    ) -> Result<(), Stop> {
        self.stats.object();
        self.stats.object_key(variant);
        Ok(())
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<List<'a>, Stop> {
        Ok(List::new(Some(self.stats)))
    }

    fn serialize_tuple(self, len: usize) -> Result<List<'a>, Stop> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(self, _: &'static str, len: usize) -> Result<List<'a>, Stop> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Keys<'a>, Stop> {
        Ok(Keys::variant(self.stats, variant))
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Keys<'a>, Stop> {
        Ok(Keys::new(Some(self.stats)))
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Keys<'a>, Stop> {
        Ok(Keys::new(Some(self.stats)))
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        _: usize,
    ) -> Result<Keys<'a>, Stop> {
        Ok(Keys::variant(self.stats, variant))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::Serialize;
    use serde_json::Value;

    use super::super::summary::ListSummary;

    #[derive(Serialize)]
    enum Kind {
        Plain,
        Wrapped(u8),
        Pair(i32, String),
        Shaped { x: f64 },
    }

    #[derive(Serialize)]
    struct Unit;

    #[derive(Serialize)]
    struct Id(u64);

    #[derive(Serialize)]
    struct Row {
        id: Id,
        name: String,
        letter: char,
        status: Kind,
        maybe: Option<String>,
        nan: f64,
        big: i128,
        small: i8,
        tags: Vec<Option<String>>,
        numbers: Vec<u32>,
        pair: (u8, &'static str),
        map: BTreeMap<u16, bool>,
        nothing: (),
        unit: Unit,
        #[serde(with = "serde_bytes_like")]
        raw: Vec<u8>,
        value: Value,
    }

    /// Bytes as serde sees bytes (`serialize_bytes`).
    mod serde_bytes_like {
        pub fn serialize<S: serde::Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
            s.serialize_bytes(v)
        }
    }

    fn row(i: usize) -> Row {
        let status = match i % 4 {
            0 => Kind::Plain,
            1 => Kind::Wrapped(i as u8),
            2 => Kind::Pair(-(i as i32), format!("p{i}")),
            _ => Kind::Shaped { x: i as f64 / 3.0 },
        };
        Row {
            id: Id(i as u64),
            name: format!("{}-{i}", "n".repeat(i % 50)),
            letter: char::from(b'a' + (i % 3) as u8),
            status,
            maybe: i.is_multiple_of(2).then(|| format!("m{}", i % 5)),
            nan: if i.is_multiple_of(7) {
                f64::NAN
            } else {
                i as f64
            },
            big: i128::from(i64::MIN) + i as i128,
            small: -(i as i8 % 100),
            tags: vec![Some("a".into()), None, Some(format!("t{}", i % 3))],
            numbers: vec![1, 2, 3],
            pair: (i as u8, "two"),
            map: [(i as u16 % 4, true), (9, false)].into_iter().collect(),
            nothing: (),
            unit: Unit,
            raw: vec![0; i % 5],
            value: serde_json::json!({"nested": [i, "x"], "flag": i.is_multiple_of(2)}),
        }
    }

    #[test]
    fn a_summary_read_through_serialize_equals_one_read_from_the_value() {
        let mut direct = ListSummary::default();
        let mut through_value = ListSummary::default();
        for i in 0..300 {
            let item = row(i);
            direct.add(&item);
            through_value.add(&serde_json::to_value(&item).unwrap());
        }
        let scalars: Vec<Value> = vec![
            Value::from(3),
            Value::from("x"),
            Value::Null,
            Value::from(vec![1, 2]),
        ];
        for item in &scalars {
            direct.add(item);
            through_value.add(&serde_json::to_value(item).unwrap());
        }
        assert_eq!(
            crate::heavy::to_json(direct.render()),
            crate::heavy::to_json(through_value.render())
        );
        assert_eq!(direct.field_names(), through_value.field_names());
        assert_eq!(direct.first_keys(), through_value.first_keys());
    }
}
