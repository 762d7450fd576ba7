//! rmcp's own wrappers, taken as they are: `Parameters<T>`, the whole
//! arguments object of a tool, and `Json<T>`, a structured answer.
//!
//! A server written with rmcp's `#[tool_router]` takes its arguments as
//! `Parameters<Req>` and answers `Json<T>`. Moved to mcp-light with its
//! attributes changed, the same signatures mean the same thing: `Req`'s
//! schema is the tool's input schema, flat, and `Json<T>` answers like `T`.
//! One thing differs on purpose: an argument `Req` does not declare is
//! refused, naming the fields it does ([`Closed`]), where serde alone
//! would drop it and the tool would answer success having ignored it.

use serde::de::{self, DeserializeSeed, Deserializer, Visitor};
use serde_json::Value;

use rmcp::handler::server::wrapper::{Json, Parameters};

/// What a parameter typed `Parameters<..>` must be: rmcp's
/// `Parameters<T>`, whose `T` is the whole arguments object. The macros
/// read a parameter of that type name this way; this bound makes the
/// compiler confirm it is rmcp's.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not rmcp's `Parameters<T>`",
    label = "a parameter typed `Parameters<..>` is read as rmcp's whole-arguments wrapper",
    note = "use `rmcp::handler::server::wrapper::Parameters<T>` (also `mcp_light::prelude::Parameters`), whose `T` implements `Deserialize` and `JsonSchema`; a type of your own is taken from the call by destructuring it, and implementing `mcp_light::extract::FromCall` for it"
)]
pub trait WholeArguments: de::DeserializeOwned + schemars::JsonSchema {}

impl<T: de::DeserializeOwned + schemars::JsonSchema> WholeArguments for Parameters<T> {}

/// Forwards each named `Deserializer` method that takes only a visitor to
/// the `&Value` behind [`Closed`].
macro_rules! forward_to_value {
    ($($method:ident)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
                self.0.$method(visitor)
            }
        )*
    };
}

/// Parses `T` from `args`, refusing an argument `T`'s struct does not
/// declare: the deserializer serde's derive hands its field names to
/// ([`Deserializer::deserialize_struct`]) checks the object's keys against
/// them first, and a key outside them is serde's own `unknown field`
/// error, which lists the declared fields. Only the top level is closed,
/// and only a struct: a map, an enum or a struct with a flattened field
/// reads its arguments as serde does.
pub(crate) struct Closed<'a>(pub(crate) &'a Value);

impl<'de> Deserializer<'de> for Closed<'de> {
    type Error = serde_json::Error;

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        if let Value::Object(args) = self.0
            && let Some(unknown) = args.keys().find(|key| !fields.contains(&key.as_str()))
        {
            return Err(de::Error::unknown_field(unknown, fields));
        }
        self.0.deserialize_struct(name, fields, visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        // serde_json hands a newtype struct the value itself.
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.0.deserialize_enum(name, variants, visitor)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.0.deserialize_unit_struct(name, visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.0.deserialize_tuple(len, visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.0.deserialize_tuple_struct(name, len, visitor)
    }

    forward_to_value! {
        deserialize_any deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32
        deserialize_i64 deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32
        deserialize_u64 deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char
        deserialize_str deserialize_string deserialize_bytes deserialize_byte_buf
        deserialize_option deserialize_unit deserialize_seq deserialize_map
        deserialize_identifier deserialize_ignored_any
    }
}

/// The fields `T`'s top level declares when [`Closed`] refuses any other
/// argument (`T` deserializes as a struct); `None` when it reads its
/// arguments as serde does (a map, an enum, a flattened field). Found by
/// asking `T`'s `Deserialize` what it would read, without any input.
pub(crate) fn closed_fields<T: de::DeserializeOwned>() -> Option<&'static [&'static str]> {
    let asked = std::cell::Cell::new(None);
    let _ = T::deserialize(Probe(&asked));
    asked.get()
}

/// A deserializer that records the fields a struct asks for and refuses
/// everything, so that nothing is built.
struct Probe<'a>(&'a std::cell::Cell<Option<&'static [&'static str]>>);

impl<'de> Deserializer<'de> for Probe<'_> {
    type Error = serde_json::Error;

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        fields: &'static [&'static str],
        _visitor: V,
    ) -> Result<V::Value, Self::Error> {
        self.0.set(Some(fields));
        Err(de::Error::custom("probed"))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        // As `Closed` does: a newtype is read as what it wraps.
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_any<V: Visitor<'de>>(self, _visitor: V) -> Result<V::Value, Self::Error> {
        Err(de::Error::custom("probed"))
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct seq tuple tuple_struct map enum identifier ignored_any
    }
}

/// `schema`, the published schema of the whole arguments `A`, closed at
/// the top level (`additionalProperties: false`) where a call refuses an
/// argument `A` does not declare: the schema says what the call path
/// does. A schema that already says what other properties may be, or
/// whose properties are not the fields `A` reads, is left as it is.
pub(crate) fn close_whole<A: de::DeserializeOwned>(
    mut schema: schemars::Schema,
) -> schemars::Schema {
    let Some(fields) = closed_fields::<A>() else {
        return schema;
    };
    let Some(object) = schema.as_object_mut() else {
        return schema;
    };
    let declared = object
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|properties| properties.keys().all(|key| fields.contains(&key.as_str())));
    if declared && !object.contains_key("additionalProperties") {
        object.insert("additionalProperties".to_owned(), Value::Bool(false));
    }
    schema
}

/// `T` parsed from `args` as [`Closed`] reads it.
pub(crate) fn parse_closed<'a, T: de::Deserialize<'a>>(
    args: &'a Value,
) -> Result<T, serde_json::Error> {
    std::marker::PhantomData::<T>.deserialize(Closed(args))
}

/// The second step from a tool's return value to its answer, after its
/// error is converted ([`crate::output::kind`]): rmcp's `Json<T>` answers
/// as `T`. The same autoref technique: [`json_kind::JsonWrapperKind`]
/// applies by value to `Result<Json<T>, ToolError>`,
/// [`json_kind::PlainKind`] one autoref later to everything else, and
/// neither costs anything at run time.
pub mod json_kind {
    use super::Json;
    use crate::error::tool::ToolError;

    /// The success is rmcp's `Json<T>`.
    pub struct JsonWrapperTag;

    /// The success is the answer as it is.
    pub struct PlainTag;

    /// Found by value on `&Result<Json<T>, ToolError>`.
    pub trait JsonWrapperKind {
        /// The tag of a `Json<T>` success.
        #[inline]
        fn tool_json_kind(&self) -> JsonWrapperTag {
            JsonWrapperTag
        }
    }

    impl<T> JsonWrapperKind for Result<Json<T>, ToolError> {}

    /// Found at the autoref step, so only for any other success.
    pub trait PlainKind {
        /// The tag of any other success.
        #[inline]
        fn tool_json_kind(&self) -> PlainTag {
            PlainTag
        }
    }

    impl<T: ?Sized> PlainKind for &T {}

    impl JsonWrapperTag {
        /// `T`, out of its wrapper.
        #[inline]
        pub fn unwrap_json<T>(self, out: Result<Json<T>, ToolError>) -> Result<T, ToolError> {
            out.map(|Json(value)| value)
        }
    }

    impl PlainTag {
        /// The success as it is.
        #[inline]
        pub fn unwrap_json<T>(self, out: Result<T, ToolError>) -> Result<T, ToolError> {
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;
    use crate::error::tool::ToolError;

    #[derive(Debug, Deserialize, PartialEq, schemars::JsonSchema)]
    struct Update {
        id: u32,
        #[serde(alias = "km")]
        odometer_km: Option<u32>,
    }

    #[test]
    fn declared_fields_parse_as_serde_reads_them() {
        let update: Update = parse_closed(&json!({"id": 3, "km": 5})).unwrap();
        assert_eq!(
            update,
            Update {
                id: 3,
                odometer_km: Some(5)
            }
        );
        let bare: Parameters<Update> = parse_closed(&json!({"id": 4})).unwrap();
        assert_eq!(bare.0.odometer_km, None);
    }

    /// The wrapper rmcp's server accepted and ignored: refused, naming the
    /// fields the struct declares.
    #[test]
    fn the_published_schema_is_closed_where_the_call_refuses_undeclared_arguments() {
        #[derive(Deserialize, schemars::JsonSchema)]
        struct Open {
            id: u32,
            #[serde(flatten)]
            rest: serde_json::Map<String, Value>,
        }
        let closed = close_whole::<Parameters<Update>>(crate::tool::schema::generate::<
            Parameters<Update>,
        >());
        assert_eq!(closed.get("additionalProperties"), Some(&json!(false)));
        assert!(parse_closed::<Parameters<Update>>(&json!({"id": 1, "colour": "red"})).is_err());

        let open =
            close_whole::<Parameters<Open>>(crate::tool::schema::generate::<Parameters<Open>>());
        assert_ne!(open.get("additionalProperties"), Some(&json!(false)));
        let parsed = parse_closed::<Parameters<Open>>(&json!({"id": 1, "colour": "red"}));
        let Parameters(parsed) = parsed.unwrap();
        assert_eq!((parsed.id, &parsed.rest["colour"]), (1, &json!("red")));
        assert_eq!(closed_fields::<Parameters<Open>>(), None);
    }

    #[test]
    fn an_undeclared_argument_is_refused_naming_the_declared_ones() {
        let nested = json!({"id": 3, "data": {"odometer_km": 5}});
        let error = parse_closed::<Parameters<Update>>(&nested).unwrap_err();
        assert_eq!(
            error.to_string(),
            "unknown field `data`, expected one of `id`, `km`, `odometer_km`"
        );
    }

    /// Only the top level is closed: a nested struct reads as serde does,
    /// and a map takes any key.
    #[test]
    fn below_the_top_level_serde_decides() {
        #[derive(Deserialize)]
        struct Outer {
            inner: Update,
        }
        let outer: Outer = parse_closed(&json!({"inner": {"id": 1, "extra": true}})).unwrap();
        assert_eq!(outer.inner.id, 1);
        let map: Parameters<serde_json::Map<String, Value>> =
            parse_closed(&json!({"anything": 1})).unwrap();
        assert_eq!(map.0.len(), 1);
    }

    #[test]
    #[allow(
        clippy::needless_borrow,
        reason = "written as generated code writes it, where the borrow picks the tag"
    )]
    fn a_json_success_answers_as_its_value() {
        use json_kind::*;
        let wrapped: Result<Json<u32>, ToolError> = Ok(Json(7));
        let out = (&wrapped).tool_json_kind().unwrap_json(wrapped);
        assert_eq!(out.unwrap(), 7);
        let plain: Result<u32, ToolError> = Ok(8);
        let out = (&plain).tool_json_kind().unwrap_json(plain);
        assert_eq!(out.unwrap(), 8);
    }
}
