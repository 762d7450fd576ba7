//! A result serialized item by item into chunks, its digest computed on
//! the way: the one pass that everything a probe and its redemptions need
//! comes from.

use std::fmt;
use std::sync::Arc;

use serde::Serialize;
use serde::ser::{self, Impossible, SerializeSeq};
use serde_json::Value;

use crate::error::tool::ToolError;
use crate::heavy::{Digest, HeavyConfig, ListDigest, preview_of};
use crate::runtime::Unfinished;
use crate::store::{Chunk, Origin};
use crate::usage::{Counts, UsageReport};

/// The bytes a chunk gathers before it is handed to the store.
pub(crate) const CHUNK_BYTES: usize = 256 << 10;

/// Why a result could not be kept.
#[derive(Debug)]
pub(crate) enum Failed {
    /// The tool's stream or iterator gave an error.
    Tool(ToolError),
    /// An item cannot be serialized as JSON.
    Unserializable(serde_json::Error),
    /// Nobody takes the chunks any more: the call was dropped.
    Cancelled,
    /// The encoder, or the tool's iterator feeding it, did not finish on
    /// the blocking pool: it panicked, or the runtime dropped it.
    Unfinished(Unfinished),
}

/// What encoding a result found.
#[derive(Debug)]
pub(crate) struct Encoded {
    /// The result's bytes as compact JSON.
    pub(crate) size: u64,
    /// How many items, for a pageable list.
    pub(crate) items: Option<u64>,
    pub(crate) digest: Digest,
    pub(crate) preview: Value,
    /// The whole result, when it fits the preview.
    pub(crate) fits_preview: Option<Value>,
    /// The whole result, when it is at most the encoder's `small` bytes.
    pub(crate) small: Option<Value>,
}

/// Serializes a result into chunks handed to `out`.
pub(crate) struct Encoder<'o> {
    origin: Origin,
    config: HeavyConfig,
    /// Results up to this many bytes are also kept whole, as values.
    small_limit: usize,
    out: &'o mut dyn FnMut(Chunk) -> bool,
    usage: Option<Arc<UsageReport>>,
    counts: Counts,
    chunk: Vec<u8>,
    starts: Vec<u64>,
    /// The bytes handed out so far.
    flushed: u64,
    state: State,
}

enum State {
    Empty,
    List {
        items: u64,
        digest: Box<ListDigest>,
        small: Option<Vec<Value>>,
    },
    Whole {
        digest: Box<Digest>,
        preview: Value,
        fits_preview: Option<Value>,
        small: Option<Value>,
    },
}

impl<'o> Encoder<'o> {
    pub(crate) fn new(
        origin: Origin,
        config: HeavyConfig,
        small_limit: usize,
        usage: Option<Arc<UsageReport>>,
        out: &'o mut dyn FnMut(Chunk) -> bool,
    ) -> Self {
        Encoder {
            origin,
            config,
            small_limit,
            out,
            usage,
            counts: Counts::default(),
            chunk: Vec::with_capacity(CHUNK_BYTES + (CHUNK_BYTES >> 2)),
            starts: Vec::new(),
            flushed: 0,
            state: State::Empty,
        }
    }

    /// The result is a list whose items follow ([`Encoder::item`]).
    pub(crate) fn begin_list(&mut self) {
        if let State::Empty = self.state {
            self.chunk.push(b'[');
            self.state = State::List {
                items: 0,
                digest: Box::new(ListDigest::new(&self.config)),
                small: Some(Vec::new()),
            };
        }
    }

    /// The next item of the list: written as JSON and counted straight
    /// from its `Serialize` impl; made a value only while the preview or
    /// the small result still takes it (the first few kilobytes).
    pub(crate) fn item<T: Serialize + ?Sized>(&mut self, item: &T) -> Result<(), Failed> {
        self.begin_list();
        let State::List {
            items,
            digest,
            small,
        } = &mut self.state
        else {
            unreachable!("begin_list made it a list");
        };
        let mark = self.chunk.len();
        if *items > 0 {
            self.chunk.push(b',');
        }
        let start = self.flushed + self.chunk.len() as u64;
        if let Err(error) = serde_json::to_writer(&mut self.chunk, item) {
            self.chunk.truncate(mark);
            return Err(Failed::Unserializable(error));
        }
        self.starts.push(start);
        *items += 1;
        digest.add(item);
        let size = self.flushed as usize + self.chunk.len() + 1;
        if size > self.small_limit {
            *small = None;
        }
        if small.is_some() || digest.wants_preview() {
            let value = serde_json::to_value(item).map_err(Failed::Unserializable)?;
            if digest.wants_preview() {
                digest.preview(&value);
            }
            if let Some(small) = small {
                small.push(value);
            }
        }
        if self.chunk.len() >= CHUNK_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    /// A whole result: a sequence is taken item by item, anything else as
    /// one value.
    pub(crate) fn whole<T: Serialize + ?Sized>(&mut self, result: &T) -> Result<(), Failed> {
        if self.origin.is_pageable() {
            match result.serialize(TopLevel { encoder: self }) {
                Ok(()) => return Ok(()),
                Err(TopError::NotASequence) => {}
                Err(TopError::Failed(failed)) => return Err(failed),
            }
        }
        let value = serde_json::to_value(result).map_err(Failed::Unserializable)?;
        self.value(value)
    }

    /// A whole result that is already a value.
    pub(crate) fn value(&mut self, value: Value) -> Result<(), Failed> {
        if let (Value::Array(items), true) = (&value, self.origin.is_pageable()) {
            self.begin_list();
            for item in items {
                self.item(item)?;
            }
            return Ok(());
        }
        serde_json::to_writer(&mut self.chunk, &value).map_err(Failed::Unserializable)?;
        let (preview, fits_preview) = preview_of(&value, &self.config);
        let small = (self.chunk.len() <= self.small_limit).then(|| value.clone());
        self.state = State::Whole {
            digest: Box::new(Digest::of(&value, self.origin)),
            preview,
            fits_preview,
            small,
        };
        Ok(())
    }

    /// Hands the gathered bytes out.
    fn flush(&mut self) -> Result<(), Failed> {
        if self.chunk.is_empty() {
            return Ok(());
        }
        if let Some(usage) = &self.usage {
            self.counts = self.counts + usage.count_bytes(&self.chunk);
        }
        let bytes = std::mem::replace(
            &mut self.chunk,
            Vec::with_capacity(CHUNK_BYTES + (CHUNK_BYTES >> 2)),
        );
        self.flushed += bytes.len() as u64;
        let chunk = Chunk::new(bytes, std::mem::take(&mut self.starts));
        if (self.out)(chunk) {
            Ok(())
        } else {
            Err(Failed::Cancelled)
        }
    }

    /// Ends the result: the last chunk handed out, the digest made.
    pub(crate) fn finish(mut self) -> Result<Encoded, Failed> {
        // Nothing was given: an empty list.
        self.begin_list();
        if let State::List { .. } = self.state {
            self.chunk.push(b']');
        }
        self.flush()?;
        let size = self.flushed;
        let usage = self
            .usage
            .is_some()
            .then_some((self.counts.cl100k, self.counts.o200k));
        let mut encoded = match self.state {
            State::List {
                items,
                digest,
                small,
            } => {
                let (digest, preview, fits_preview) = digest.finish();
                Encoded {
                    size,
                    items: Some(items),
                    digest,
                    preview,
                    fits_preview,
                    small: small.map(Value::Array),
                }
            }
            State::Whole {
                digest,
                preview,
                fits_preview,
                small,
            } => Encoded {
                size,
                items: None,
                digest: *digest,
                preview,
                fits_preview,
                small,
            },
            State::Empty => unreachable!("begin_list made it a list"),
        };
        encoded.digest.usage = usage;
        Ok(encoded)
    }
}

/// Serializes the top level of a result: a sequence goes to the encoder
/// item by item; anything else is refused at once, untouched, for the
/// encoder to take whole.
struct TopLevel<'e, 'o> {
    encoder: &'e mut Encoder<'o>,
}

#[derive(Debug)]
enum TopError {
    NotASequence,
    Failed(Failed),
}

impl fmt::Display for TopError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TopError::NotASequence => f.write_str("not a sequence"),
            TopError::Failed(failed) => write!(f, "{failed:?}"),
        }
    }
}

impl std::error::Error for TopError {}

impl ser::Error for TopError {
    fn custom<T: fmt::Display>(message: T) -> Self {
        TopError::Failed(Failed::Unserializable(serde_json::Error::io(
            std::io::Error::other(message.to_string()),
        )))
    }
}

struct Items<'e, 'o> {
    encoder: &'e mut Encoder<'o>,
}

impl SerializeSeq for Items<'_, '_> {
    type Ok = ();
    type Error = TopError;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, item: &T) -> Result<(), TopError> {
        self.encoder.item(item).map_err(TopError::Failed)
    }

    fn end(self) -> Result<(), TopError> {
        self.encoder.begin_list();
        Ok(())
    }
}

macro_rules! not_a_sequence {
    ($($method:ident($($arg:ty),*);)*) => {
        $(fn $method(self, $(_: $arg),*) -> Result<(), TopError> {
            Err(TopError::NotASequence)
        })*
    };
}

impl<'e, 'o> ser::Serializer for TopLevel<'e, 'o> {
    type Ok = ();
    type Error = TopError;
    type SerializeSeq = Items<'e, 'o>;
    type SerializeTuple = Impossible<(), TopError>;
    type SerializeTupleStruct = Impossible<(), TopError>;
    type SerializeTupleVariant = Impossible<(), TopError>;
    type SerializeMap = Impossible<(), TopError>;
    type SerializeStruct = Impossible<(), TopError>;
    type SerializeStructVariant = Impossible<(), TopError>;

    fn serialize_seq(self, _: Option<usize>) -> Result<Items<'e, 'o>, TopError> {
        self.encoder.begin_list();
        Ok(Items {
            encoder: self.encoder,
        })
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), TopError> {
        value.serialize(self)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), TopError> {
        value.serialize(self)
    }

    not_a_sequence! {
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
        serialize_str(&str);
        serialize_bytes(&[u8]);
        serialize_none();
        serialize_unit();
        serialize_unit_struct(&'static str);
        serialize_unit_variant(&'static str, u32, &'static str);
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<(), TopError> {
        Err(TopError::NotASequence)
    }

    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, TopError> {
        Err(TopError::NotASequence)
    }

    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, TopError> {
        Err(TopError::NotASequence)
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, TopError> {
        Err(TopError::NotASequence)
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, TopError> {
        Err(TopError::NotASequence)
    }

    fn serialize_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStruct, TopError> {
        Err(TopError::NotASequence)
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, TopError> {
        Err(TopError::NotASequence)
    }
}
