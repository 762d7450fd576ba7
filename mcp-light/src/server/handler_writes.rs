//! A composed handler's tool that writes, answered with a lean envelope
//! ([`HandlerTool::Write`](crate::HandlerTool::Write)): what a maintainer
//! knows of a tool whose code is not theirs, such as a server behind
//! `mcp-light-gateway`.
//!
//! The handler's answer is read for the JSON it carries (its
//! `structuredContent`, else a text block that is JSON); the envelope names
//! the written objects by the fields the [`HandlerWrite`] gives, else by
//! the conventional ones (`id`/`pk`, `url`, `name`/`display`). The tool is
//! kept, so its schema publishes `continuation_token` beside `verify`: the
//! full answer is stored behind the token, and `verify: true` answers it
//! inline where it fits the client. An answer that carries no JSON (plain
//! text, an error) passes as the handler gave it.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use serde::Serialize;
use serde_json::{Map, Value};

use crate::call::outcome::{Answer, CallError};
use crate::invoke::ToolFacts;
use crate::tool::kind::WriteKind;
use crate::writes::light_key::{BulkResult, KeyFields, LightKey};

/// How a composed handler's write tool is answered: its kind, the fields
/// that identify what it wrote, and where a bulk write's list is.
///
/// ```
/// use mcp_light::HandlerWrite;
/// use mcp_light::catalog::WriteKind;
///
/// // The knowledge graph's `create_entities` answers
/// // `{"entities": [{"name": …, "entityType": …, "observations": […]}, …]}`.
/// let write = HandlerWrite::new(WriteKind::BulkCreate)
///     .identified_by(["name"])
///     .items_at("/entities");
/// assert_eq!(write.kind(), WriteKind::BulkCreate);
/// assert_eq!(write.status_code(), 201);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandlerWrite {
    pub(super) kind: WriteKind,
    pub(super) status_code: u16,
    pub(super) id: Vec<String>,
    pub(super) items: Option<String>,
}

impl HandlerWrite {
    /// A write of `kind`, its status code the kind's (201 for a create,
    /// 204 for a destroy, else 200), its objects named by the conventional
    /// fields.
    pub fn new(kind: WriteKind) -> HandlerWrite {
        HandlerWrite {
            kind,
            status_code: kind.default_status(),
            id: Vec::new(),
            items: None,
        }
    }

    /// Names the written objects by these fields of each: the first is its
    /// identifier (in a bulk envelope's `ids`, and for a destroy the
    /// argument the call names it by), the others are echoed beside it.
    /// Without them, `id`/`pk`, `url` and `name`/`display` are looked for.
    #[must_use]
    pub fn identified_by<S: Into<String>>(mut self, fields: impl IntoIterator<Item = S>) -> Self {
        self.id = fields.into_iter().map(Into::into).collect();
        self
    }

    /// A bulk write's objects are the list at this JSON pointer (RFC 6901,
    /// such as `/entities`) in what the answer carries; the list is also
    /// what is stored behind the token. Without it, the answer's list, or
    /// its one list field.
    #[must_use]
    pub fn items_at(mut self, pointer: impl Into<String>) -> Self {
        self.items = Some(pointer.into());
        self
    }

    /// Reports `status_code` in the envelope instead of the kind's.
    #[must_use]
    pub fn status(mut self, status_code: u16) -> Self {
        self.status_code = status_code;
        self
    }

    /// The write's kind.
    pub fn kind(&self) -> WriteKind {
        self.kind
    }

    /// The status code its envelope reports.
    pub fn status_code(&self) -> u16 {
        self.status_code
    }

    /// The fields that identify a written object, the identifier first;
    /// empty for the conventional ones.
    pub fn id_fields(&self) -> &[String] {
        &self.id
    }

    /// The JSON pointer to a bulk write's list, if one is given.
    pub fn items(&self) -> Option<&str> {
        self.items.as_deref()
    }
}

/// What a call of a handler's write takes off its arguments before the
/// handler sees them.
#[derive(Debug, Default)]
pub(crate) struct WriteCall {
    pub(super) verify: bool,
    /// A destroy's identifier, as the call's arguments name it.
    pub(super) destroyed: Option<Value>,
}

impl WriteCall {
    /// Takes `verify` off `args` (the handler's own schema has none), and
    /// notes a destroy's identifier; `Err` with the refusal of a `verify`
    /// that is not a boolean.
    pub(crate) fn take(
        write: &HandlerWrite,
        tool: &str,
        args: &mut Map<String, Value>,
    ) -> Result<WriteCall, Box<Answer>> {
        let verify = match args.remove(crate::tool::schema::VERIFY) {
            None | Some(Value::Null) => false,
            Some(Value::Bool(verify)) => verify,
            Some(other) => {
                return Err(Box::new(Answer::error(CallError::InvalidArguments {
                    tool: tool.to_owned().into(),
                    at: Some(crate::tool::schema::VERIFY.to_owned()),
                    problem: format!("expected true or false, got {other}"),
                })));
            }
        };
        let destroyed = (write.kind == WriteKind::Destroy)
            .then(|| args.get(write.identifier()).cloned())
            .flatten();
        Ok(WriteCall { verify, destroyed })
    }
}

impl HandlerWrite {
    /// The identifier's name: the first field given, else `id`.
    pub(super) fn identifier(&self) -> &str {
        self.id.first().map_or("id", String::as_str)
    }
}

/// One written object, named by the fields a [`HandlerWrite`] gives (the
/// conventional ones where it gives none); it serializes as the object.
#[derive(Serialize)]
#[serde(transparent)]
pub(super) struct Named<'a> {
    #[serde(skip)]
    pub(super) id: &'a [String],
    pub(super) value: Value,
}

impl LightKey for Named<'_> {
    fn light_key(&self, out: &mut KeyFields) {
        let Some((identifier, others)) = self.id.split_first() else {
            return self.value.light_key(out);
        };
        let Some(object) = self.value.as_object() else {
            return;
        };
        if let Some(id) = object.get(identifier) {
            out.id(identifier, id);
        }
        for name in others {
            if let Some(field) = object.get(name) {
                out.field(name, field);
            }
        }
    }

    fn light_id(&self) -> Option<Value> {
        match self.id.first() {
            Some(identifier) => self
                .value
                .get(identifier)
                .filter(|id| !id.is_null())
                .cloned(),
            None => self.value.light_id(),
        }
    }
}

/// A bulk write's answer: serialized as it was carried, its objects named.
pub(super) struct NamedList<'a> {
    pub(super) whole: Value,
    pub(super) items: Vec<Named<'a>>,
}

impl Serialize for NamedList<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.whole.serialize(serializer)
    }
}

impl<'a> BulkResult for NamedList<'a> {
    type Item = Named<'a>;

    fn items(&self) -> &[Named<'a>] {
        &self.items
    }
}

/// The facts an answer reads of the tool `name`: made once per name a
/// process sees (the handler's tools are few and named at build time), so
/// that a handler's write answers as a registered one does.
pub(super) fn facts_of(name: &str) -> &'static ToolFacts {
    static FACTS: Mutex<Option<HashMap<String, &'static ToolFacts>>> = Mutex::new(None);
    let mut facts = FACTS.lock().unwrap_or_else(PoisonError::into_inner);
    facts
        .get_or_insert_with(HashMap::new)
        .entry(name.to_owned())
        .or_insert_with(|| {
            Box::leak(Box::new(ToolFacts {
                name: interned(name),
                params_schema: any_object,
                scopes: &[],
                inline_budget: None,
            }))
        })
}

/// `text`, kept for the process: once per distinct text.
pub(crate) fn interned(text: &str) -> &'static str {
    static TEXTS: Mutex<Option<HashMap<String, &'static str>>> = Mutex::new(None);
    let mut texts = TEXTS.lock().unwrap_or_else(PoisonError::into_inner);
    texts
        .get_or_insert_with(HashMap::new)
        .entry(text.to_owned())
        .or_insert_with(|| Box::leak(text.to_owned().into_boxed_str()))
}

/// What a handler's tool takes, as far as the server knows.
pub(super) fn any_object() -> schemars::Schema {
    schemars::json_schema!({"type": "object"})
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_fields_given_name_the_object_the_first_its_identifier() {
        let id = ["name".to_owned(), "entityType".to_owned()];
        let named = Named {
            id: &id,
            value: json!({"entityType": "person", "name": "Ada", "observations": ["x"]}),
        };
        let mut key = KeyFields::new();
        named.light_key(&mut key);
        assert!(key.has_id());
        assert_eq!(
            Value::Object(key.into_map()).to_string(),
            r#"{"name":"Ada","entityType":"person"}"#
        );
        assert_eq!(named.light_id(), Some(json!("Ada")));
    }

    #[test]
    fn without_fields_the_conventional_ones_name_it() {
        let named = Named {
            id: &[],
            value: json!({"id": 7, "name": "edge"}),
        };
        assert_eq!(named.light_id(), Some(json!(7)));
        let missing = Named {
            id: &["path".to_owned()],
            value: json!({"id": 7}),
        };
        assert_eq!(missing.light_id(), None);
    }

    #[test]
    fn a_list_serializes_as_it_was_carried() {
        let whole = json!({"entities": [{"name": "a"}], "note": "kept"});
        let list = NamedList {
            items: vec![Named {
                id: &[],
                value: json!({"name": "a"}),
            }],
            whole: whole.clone(),
        };
        assert_eq!(serde_json::to_value(&list).unwrap(), whole);
        assert_eq!(list.items().len(), 1);
    }

    #[test]
    fn a_verify_that_is_not_a_boolean_is_refused_and_a_destroy_keeps_its_id() {
        let write = HandlerWrite::new(WriteKind::Destroy).identified_by(["path"]);
        let mut args = json!({"path": "/a", "verify": "yes"})
            .as_object()
            .cloned()
            .unwrap();
        assert!(WriteCall::take(&write, "delete", &mut args).is_err());
        let mut args = json!({"path": "/a", "verify": true})
            .as_object()
            .cloned()
            .unwrap();
        let call = WriteCall::take(&write, "delete", &mut args).unwrap();
        assert!(call.verify);
        assert_eq!(call.destroyed, Some(json!("/a")));
        assert!(!args.contains_key("verify"), "the handler never sees it");
    }

    #[test]
    fn facts_are_made_once_per_name() {
        assert!(std::ptr::eq(facts_of("create_x"), facts_of("create_x")));
        assert_eq!(facts_of("create_x").name, "create_x");
    }
}
