//! The text of a map key or of a list's string, as serde_json would write
//! it, handed to a closure: what the observers of a list item read of a
//! key or a string, and nothing else.

use serde::ser::{self, Impossible, Serialize};

use super::stop::Stop;

/// The text of a string (a map key, a list's string item), handed to a
/// closure; serde_json writes a map's integer or boolean keys as their
/// text too. Anything else is refused.
pub(super) struct Text<'f> {
    sink: &'f mut dyn FnMut(&str),
    /// A map key: numbers and booleans are written as text too. A list's
    /// item is text only when it is a string.
    key: bool,
}

impl<'f> Text<'f> {
    pub(super) fn key(sink: &'f mut dyn FnMut(&str)) -> Self {
        Text { sink, key: true }
    }

    pub(super) fn string(sink: &'f mut dyn FnMut(&str)) -> Self {
        Text { sink, key: false }
    }
}

macro_rules! text_as_display {
    ($($method:ident($ty:ty);)*) => {
        $(fn $method(self, value: $ty) -> Result<(), Stop> {
            if !self.key {
                return Err(Stop);
            }
            (self.sink)(&value.to_string());
            Ok(())
        })*
    };
}

macro_rules! not_text {
    ($($method:ident($($arg:ty),*);)*) => {
        $(fn $method(self, $(_: $arg),*) -> Result<(), Stop> {
            Err(Stop)
        })*
    };
}

impl ser::Serializer for Text<'_> {
    type Ok = ();
    type Error = Stop;
    type SerializeSeq = Impossible<(), Stop>;
    type SerializeTuple = Impossible<(), Stop>;
    type SerializeTupleStruct = Impossible<(), Stop>;
    type SerializeTupleVariant = Impossible<(), Stop>;
    type SerializeMap = Impossible<(), Stop>;
    type SerializeStruct = Impossible<(), Stop>;
    type SerializeStructVariant = Impossible<(), Stop>;

    fn serialize_str(self, value: &str) -> Result<(), Stop> {
        (self.sink)(value);
        Ok(())
    }

    fn serialize_char(self, value: char) -> Result<(), Stop> {
        (self.sink)(value.encode_utf8(&mut [0; 4]));
        Ok(())
    }

    fn serialize_unit_variant(
        self,
        _: &'static str,
        _: u32,
        name: &'static str,
    ) -> Result<(), Stop> {
        (self.sink)(name);
        Ok(())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Stop> {
        value.serialize(self)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), Stop> {
        value.serialize(self)
    }

    text_as_display! {
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
    }

    not_text! {
        serialize_f32(f32);
        serialize_f64(f64);
        serialize_bytes(&[u8]);
        serialize_none();
        serialize_unit();
        serialize_unit_struct(&'static str);
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), Stop> {
        Err(Stop)
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, Stop> {
        Err(Stop)
    }

    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, Stop> {
        Err(Stop)
    }

    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, Stop> {
        Err(Stop)
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, Stop> {
        Err(Stop)
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, Stop> {
        Err(Stop)
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, Stop> {
        Err(Stop)
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, Stop> {
        Err(Stop)
    }
}
