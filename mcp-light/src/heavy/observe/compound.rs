//! What the observers of a list item record of a compound value they meet:
//! [`List`], a list's length and the strings among its items, and
//! [`Keys`], an object's keys (serde's compound serializers, one per
//! shape).

use serde::ser::{self, Serialize};

use super::stop::Stop;
use super::text::Text;
use crate::heavy::summary::Stats;

/// A list value: its length, and the strings among its items.
pub(in crate::heavy) struct List<'a> {
    stats: Option<&'a mut Stats>,
    length: usize,
}

impl<'a> List<'a> {
    pub(super) fn new(mut stats: Option<&'a mut Stats>) -> Self {
        if let Some(stats) = stats.as_deref_mut() {
            stats.list();
        }
        List { stats, length: 0 }
    }

    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
        self.length += 1;
        let Some(stats) = self.stats.as_deref_mut() else {
            return Ok(());
        };
        // Only a string item is counted; anything else is skipped.
        match value.serialize(Text::string(&mut |text: &str| stats.list_string(text))) {
            Ok(()) | Err(Stop) => Ok(()),
        }
    }

    fn finish(self) -> Result<(), Stop> {
        if let Some(stats) = self.stats {
            stats.list_length(self.length);
        }
        Ok(())
    }
}

macro_rules! list_compound {
    ($($trait:ident::$method:ident;)*) => {
        $(impl ser::$trait for List<'_> {
            type Ok = ();
            type Error = Stop;

            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Stop> {
                self.element(value)
            }

            fn end(self) -> Result<(), Stop> {
                self.finish()
            }
        })*
    };
}

list_compound! {
    SerializeSeq::serialize_element;
    SerializeTuple::serialize_element;
    SerializeTupleStruct::serialize_field;
    SerializeTupleVariant::serialize_field;
}

/// An object value: its keys.
pub(in crate::heavy) struct Keys<'a> {
    stats: Option<&'a mut Stats>,
}

impl<'a> Keys<'a> {
    pub(super) fn new(mut stats: Option<&'a mut Stats>) -> Self {
        if let Some(stats) = stats.as_deref_mut() {
            stats.object();
        }
        Keys { stats }
    }

    /// serde_json writes a variant holding values as an object with one key.
    pub(super) fn variant(stats: &'a mut Stats, variant: &str) -> Self {
        stats.object();
        stats.object_key(variant);
        Keys { stats: None }
    }

    fn key(&mut self, key: &str) {
        if let Some(stats) = self.stats.as_deref_mut() {
            stats.object_key(key);
        }
    }
}

impl ser::SerializeMap for Keys<'_> {
    type Ok = ();
    type Error = Stop;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Stop> {
        match self.stats.as_deref_mut() {
            Some(stats) => key.serialize(Text::key(&mut |text: &str| stats.object_key(text))),
            None => Ok(()),
        }
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, _: &T) -> Result<(), Stop> {
        Ok(())
    }

    fn end(self) -> Result<(), Stop> {
        Ok(())
    }
}

macro_rules! keys_compound {
    ($($trait:ident;)*) => {
        $(impl ser::$trait for Keys<'_> {
            type Ok = ();
            type Error = Stop;

            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                _: &T,
            ) -> Result<(), Stop> {
                self.key(key);
                Ok(())
            }

            fn end(self) -> Result<(), Stop> {
                Ok(())
            }
        })*
    };
}

keys_compound! {
    SerializeStruct;
    SerializeStructVariant;
}

impl ser::SerializeTupleVariant for Keys<'_> {
    type Ok = ();
    type Error = Stop;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, _: &T) -> Result<(), Stop> {
        Ok(())
    }

    fn end(self) -> Result<(), Stop> {
        Ok(())
    }
}
