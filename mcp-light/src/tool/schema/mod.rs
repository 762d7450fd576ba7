//! Published input schemas.
//!
//! A tool's parameters are described by schemars; this module turns that into
//! the schema a caller sees: compact (no `$schema`, no titles, `$defs` only
//! for types used more than once), portable (a value of several types, such
//! as a nullable one, written as `anyOf` branches of one `type` each:
//! [`split_type_unions`]), with `verify` on writes and the negotiation
//! fields on heavy reads. The published schema is also the one artifact
//! that decides whether a token may be minted.

mod portable;

use std::sync::Arc;

use schemars::generate::SchemaSettings;
use serde_json::{Map, Value, json};

use crate::heavy::{self, HeavyConfig};
use crate::tool::kind::ToolKind;

pub use portable::split_type_unions;

/// The property `#[mcp_light]` adds to every write schema.
pub(crate) const VERIFY: &str = "verify";

pub(crate) use crate::token::CONTINUATION_TOKEN;

/// Generates the raw schema of a tool's argument struct.
pub(crate) fn generate<A: schemars::JsonSchema>() -> schemars::Schema {
    SchemaSettings::draft2020_12()
        .with(|settings| settings.meta_schema = None)
        .into_generator()
        .into_root_schema_for::<A>()
}

/// Generates the raw schema of a tool's argument struct, with `$schema`,
/// for a tool that publishes it as written.
pub(crate) fn generate_as_written<A: schemars::JsonSchema>() -> schemars::Schema {
    SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<A>()
}

/// Whether `schema` gives a caller a legal slot to send a continuation token
/// back: its `properties` contain `continuation_token`.
///
/// This is the only test mcp-light applies before minting a token, and it
/// reads the very schema published in `tools/list`.
pub(crate) fn discloses_continuation(schema: &Map<String, Value>) -> bool {
    schema
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|properties| properties.contains_key(CONTINUATION_TOKEN))
}

/// An input schema as `tools/list` publishes it, and whether it discloses
/// continuation, read from it once.
///
/// A published schema never changes (new limits publish a new one), so the
/// disclosure is read from it when it is built and kept with it: the answer
/// still comes from the schema and nothing else, without two map lookups
/// on every call.
#[derive(Debug, Clone)]
pub(crate) struct PublishedSchema {
    schema: Arc<Map<String, Value>>,
    discloses: bool,
}

impl PublishedSchema {
    pub(crate) fn new(schema: Map<String, Value>) -> PublishedSchema {
        PublishedSchema {
            discloses: discloses_continuation(&schema),
            schema: Arc::new(schema),
        }
    }

    /// The schema itself.
    pub(crate) fn schema(&self) -> &Arc<Map<String, Value>> {
        &self.schema
    }

    /// Whether the schema has a `continuation_token` property.
    pub(crate) fn discloses_continuation(&self) -> bool {
        self.discloses
    }
}

/// The compacted schema of a tool's parameters, checked to be an object
/// schema with `properties`.
///
/// `as_written` keeps it as schemars wrote it (`$schema`, `$defs`, titles):
/// `schema = "as_written"` in the tool's attribute.
pub(crate) fn params(
    raw: schemars::Schema,
    as_written: bool,
) -> Result<Map<String, Value>, SchemaProblem> {
    let mut schema = match raw.to_value() {
        Value::Object(schema) => schema,
        other => return Err(SchemaProblem::NotAnObject(other)),
    };
    if !as_written {
        compact(&mut schema);
    }
    if schema.get("type").and_then(Value::as_str) != Some("object") {
        return Err(SchemaProblem::NotAnObjectType);
    }
    match schema
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()))
    {
        Value::Object(_) => Ok(schema),
        _ => Err(SchemaProblem::PropertiesNotAnObject),
    }
}

/// The names of the arguments a tool whose parameters' schema is `schema`
/// declares, in its order: its `properties`, with those of the branches a flattened field
/// adds (`allOf`, `anyOf`, `oneOf`), each once. Worked out from the schema
/// when a call is refused, so it names exactly what `tools/list` shows.
pub(crate) fn declared_fields(schema: &schemars::Schema) -> Vec<String> {
    fn gather(
        schema: &Map<String, Value>,
        defs: Option<&Map<String, Value>>,
        names: &mut Vec<String>,
    ) {
        // A schema that is only a reference (a struct taken whole, named
        // in `$defs`) declares what it points at.
        if let Some(target) = schema
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|path| path.rsplit('/').next())
            .and_then(|name| defs?.get(name))
            .and_then(Value::as_object)
        {
            gather(target, defs, names);
        }
        if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
            for name in properties.keys() {
                if !names.contains(name) {
                    names.push(name.clone());
                }
            }
        }
        for branches in ["allOf", "anyOf", "oneOf"] {
            for branch in schema
                .get(branches)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(branch) = branch.as_object() {
                    gather(branch, defs, names);
                }
            }
        }
    }
    let Some(schema) = schema.as_object() else {
        return Vec::new();
    };
    let defs = schema.get("$defs").and_then(Value::as_object);
    let mut names = Vec::new();
    gather(schema, defs, &mut names);
    names
}

/// `schema` spelled for a model that reads it, as a dispatcher's `describe`
/// answers it: an optional argument is one left out of `required`, so the
/// `null` branch the published spelling gives it (`anyOf: [{..},
/// {"type": "null"}]`, which strict function schemas need) goes, with a
/// `default: null` that says the same; so do what only a validator reads
/// (`additionalProperties: false`, `type: object` beside `properties`).
/// Types, enums, bounds, formats, defaults and descriptions stay; the
/// schemas `tools/list` publishes keep the portable spelling.
pub(crate) fn for_reader(schema: &Map<String, Value>) -> Map<String, Value> {
    let mut schema = schema.clone();
    every_object(&mut schema, &mut |object| {
        drop_null_branches(object);
        drop_what_validators_read(object);
    });
    schema
}

/// Calls `f` on `schema`, then on every object inside it, outside in: what
/// `f` brings up from a branch is walked too.
fn every_object(schema: &mut Map<String, Value>, f: &mut impl FnMut(&mut Map<String, Value>)) {
    f(schema);
    for value in schema.values_mut() {
        match value {
            Value::Object(inner) => every_object(inner, f),
            Value::Array(items) => {
                for item in items {
                    if let Value::Object(inner) = item {
                        every_object(inner, f);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Drops the `null` branch of a union (`anyOf`, `oneOf`, a list of
/// `type`s) and the `null` a `default` or an `enum` gives with it; a union
/// left with one branch becomes that branch, beside the keys it had.
fn drop_null_branches(schema: &mut Map<String, Value>) {
    let is_null = |branch: &Value| branch.get("type").and_then(Value::as_str) == Some("null");
    for union in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = schema.get_mut(union) else {
            continue;
        };
        let before = branches.len();
        branches.retain(|branch| !is_null(branch));
        if branches.len() == before {
            continue;
        }
        if schema.get("default").is_some_and(Value::is_null) {
            schema.remove("default");
        }
        if let Some(Value::Array(branches)) = schema.get(union)
            && let [Value::Object(only)] = branches.as_slice()
        {
            let only = only.clone();
            schema.remove(union);
            for (key, value) in only {
                schema.entry(key).or_insert(value);
            }
        }
    }
    if let Some(Value::Array(types)) = schema.get_mut("type")
        && types.iter().any(|kind| kind == "null")
    {
        types.retain(|kind| kind != "null");
        if let [only] = types.as_slice() {
            let only = only.clone();
            schema.insert("type".to_owned(), only);
        }
        if schema.get("default").is_some_and(Value::is_null) {
            schema.remove("default");
        }
        if let Some(Value::Array(values)) = schema.get_mut("enum") {
            values.retain(|value| !value.is_null());
        }
    }
}

/// Drops `additionalProperties: false`, and `type: object` beside
/// `properties`: a reader reads an object's properties as the ones it
/// takes, and a call with another is refused naming them. The published
/// schemas keep both, for the clients that validate.
fn drop_what_validators_read(schema: &mut Map<String, Value>) {
    if schema.get("additionalProperties") == Some(&Value::Bool(false)) {
        schema.remove("additionalProperties");
    }
    if schema.get("type").and_then(Value::as_str) == Some("object")
        && schema.get("properties").is_some_and(Value::is_object)
    {
        schema.remove("type");
    }
}

/// Why a tool's parameters' schema cannot be published: the reason of a
/// [`BuildError::BadSchema`](crate::BuildError::BadSchema).
#[derive(Debug, thiserror::Error)]
pub(crate) enum SchemaProblem {
    #[error("expected a JSON object, got `{0}`")]
    NotAnObject(Value),
    #[error("its `type` is not \"object\"")]
    NotAnObjectType,
    #[error("its `properties` is not an object")]
    PropertiesNotAnObject,
}

/// The schema `tools/list` publishes: the parameters' schema plus `verify`
/// on a write, and the negotiation fields on a heavy read and a bulk write.
pub(crate) fn publish(
    params: &Map<String, Value>,
    kind: ToolKind,
    heavy: &HeavyConfig,
) -> Map<String, Value> {
    let mut schema = params.clone();
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        match kind {
            ToolKind::Write { .. } => {
                properties.insert(VERIFY.to_owned(), verify_property());
            }
            ToolKind::Heavy | ToolKind::Read => {}
        }
        if kind.negotiates() {
            properties.extend(heavy::negotiation_properties(heavy));
        }
    }
    schema
}

/// The first field mcp-light adds to the schema of a tool of `kind` that
/// the tool's own parameters already declare, with what gains it: a
/// struct taken whole (rmcp's `Parameters<T>`) can declare one, where the
/// compiler refuses a named parameter.
pub(crate) fn added_field_taken(
    params: &Map<String, Value>,
    kind: ToolKind,
) -> Option<(&'static str, &'static str)> {
    let properties = params.get("properties").and_then(Value::as_object)?;
    let added_to = match kind {
        ToolKind::Write { .. } if kind.negotiates() => "bulk write",
        ToolKind::Write { .. } => "write",
        ToolKind::Heavy => "heavy read",
        ToolKind::Read => return None,
    };
    let verify: &[&'static str] = match kind {
        ToolKind::Write { .. } => &[VERIFY],
        _ => &[],
    };
    let negotiation: &[&'static str] = match kind.negotiates() {
        true => &heavy::NEGOTIATION_FIELDS,
        false => &[],
    };
    verify
        .iter()
        .chain(negotiation)
        .find(|field| properties.contains_key(**field))
        .map(|field| (*field, added_to))
}

/// `verify: {"type": "boolean", "default": false}`, in a few words.
pub(crate) fn verify_property() -> Value {
    json!({
        "type": "boolean",
        "default": false,
        "description": "Answer the full result instead of a lean envelope."
    })
}

/// Makes a generated schema cheap to read and portable: drops `$schema`,
/// every `title` and what restates JSON Schema's own reading, inlines each
/// `$defs` entry referenced exactly once, and writes each list of types as
/// `anyOf` branches ([`split_type_unions`]).
pub(crate) fn compact(schema: &mut Map<String, Value>) {
    schema.remove("$schema");
    inline_single_use_defs(schema);
    strip_titles(schema);
    drop_implied(schema);
    portable::split_in(schema);
}

/// Drops, here and in every subschema, what says only what its absence
/// says: `"additionalProperties": true` (JSON Schema admits other
/// properties unless told not to; kept beside `unevaluatedProperties`,
/// whose reading it changes), and `"default": null` on a property that is
/// not required (leaving it out is sending nothing, which the tool reads
/// as the null it defaults to). The `null` branch that lets a caller send
/// null stays, which is what the nullable spelling pays for.
fn drop_implied(schema: &mut Map<String, Value>) {
    for (keyword, value) in schema.iter_mut() {
        for sub in portable::subschemas(keyword, value) {
            drop_implied(sub);
        }
    }
    if !schema.contains_key("unevaluatedProperties")
        && matches!(schema.get("additionalProperties"), Some(Value::Bool(true)))
    {
        schema.shift_remove("additionalProperties");
    }
    let required: Vec<String> = match schema.get("required") {
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    };
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        for (name, property) in properties.iter_mut() {
            if let Value::Object(property) = property
                && !required.contains(name)
                && property.get("default") == Some(&Value::Null)
            {
                property.shift_remove("default");
            }
        }
    }
}

fn inline_single_use_defs(root: &mut Map<String, Value>) {
    let Some(Value::Object(mut defs)) = root.remove("$defs") else {
        return;
    };
    // Inlining moves a reference, never copies it, so counts taken once stay
    // true; repeat until nothing single-use is left (defs referring to defs).
    loop {
        let mut counts = std::collections::HashMap::<String, usize>::new();
        count_refs(&Value::Object(root.clone()), &mut counts);
        for def in defs.values() {
            count_refs(def, &mut counts);
        }
        let single: Vec<String> = defs
            .keys()
            .filter(|name| counts.get(*name) == Some(&1) && !refers_to(&defs[*name], name))
            .cloned()
            .collect();
        if single.is_empty() {
            break;
        }
        for name in single {
            let Some(def) = defs.remove(&name) else {
                continue;
            };
            let mut target = def;
            let mut done = replace_ref(root, &name, &mut target);
            if !done {
                for other in defs.values_mut() {
                    if let Value::Object(other) = other
                        && replace_ref(other, &name, &mut target)
                    {
                        done = true;
                        break;
                    }
                }
            }
            debug_assert!(done, "a counted reference to {name} was not found");
        }
    }
    if !defs.is_empty() {
        root.insert("$defs".to_owned(), Value::Object(defs));
    }
}

fn ref_name(value: &Map<String, Value>) -> Option<&str> {
    value
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix("#/$defs/"))
}

fn count_refs(value: &Value, counts: &mut std::collections::HashMap<String, usize>) {
    match value {
        Value::Object(map) => {
            if let Some(name) = ref_name(map) {
                *counts.entry(name.to_owned()).or_default() += 1;
            }
            map.values().for_each(|v| count_refs(v, counts));
        }
        Value::Array(items) => items.iter().for_each(|v| count_refs(v, counts)),
        _ => {}
    }
}

fn refers_to(value: &Value, name: &str) -> bool {
    let mut counts = std::collections::HashMap::new();
    count_refs(value, &mut counts);
    counts.contains_key(name)
}

/// Replaces the one `{"$ref": "#/$defs/<name>", ...}` under `map` with the
/// definition, keeping keys that sat beside the `$ref` (a description).
fn replace_ref(map: &mut Map<String, Value>, name: &str, def: &mut Value) -> bool {
    if ref_name(map) == Some(name) {
        let beside: Map<String, Value> = std::mem::take(map)
            .into_iter()
            .filter(|(k, _)| k != "$ref")
            .collect();
        if let Value::Object(def) = std::mem::take(def) {
            *map = def;
        }
        map.extend(beside);
        return true;
    }
    for value in map.values_mut() {
        if replace_in(value, name, def) {
            return true;
        }
    }
    false
}

fn replace_in(value: &mut Value, name: &str, def: &mut Value) -> bool {
    match value {
        Value::Object(map) => replace_ref(map, name, def),
        Value::Array(items) => items.iter_mut().any(|v| replace_in(v, name, def)),
        _ => false,
    }
}

/// Removes `title` from every schema object. Only schema positions are
/// visited, so a property *named* `title` survives.
fn strip_titles(schema: &mut Map<String, Value>) {
    if matches!(schema.get("title"), Some(Value::String(_))) {
        schema.remove("title");
    }
    for (keyword, value) in schema.iter_mut() {
        for sub in portable::subschemas(keyword, value) {
            strip_titles(sub);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::kind::WriteKind;

    #[test]
    fn a_schema_for_a_reader_has_no_null_branch_and_keeps_everything_else() {
        let published = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "maxLength": 64},
                "role": {"anyOf": [{"type": "string"}, {"type": "null"}], "description": "Its role."},
                "status": {"anyOf": [{"type": "string", "enum": ["active", "planned"]}, {"type": "null"}], "default": null},
                "rack": {"type": ["integer", "null"], "minimum": 1, "enum": [1, 2, null]},
                "tags": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]}},
            },
            "required": ["name"],
            "additionalProperties": false,
        });
        let Value::Object(published) = published else {
            unreachable!()
        };
        let read = Value::Object(for_reader(&published));
        assert_eq!(
            read,
            json!({
                "properties": {
                    "name": {"type": "string", "maxLength": 64},
                    "role": {"description": "Its role.", "type": "string"},
                    "status": {"type": "string", "enum": ["active", "planned"]},
                    "rack": {"type": "integer", "minimum": 1, "enum": [1, 2]},
                    "tags": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer"}]}},
                },
                "required": ["name"],
            })
        );
        // The published spelling is left as it was.
        let published = Value::Object(published).to_string();
        assert!(published.contains("null") && published.contains("additionalProperties"));
    }

    #[test]
    fn a_refusal_names_the_fields_of_properties_flattened_branches_and_a_reference() {
        let schema: schemars::Schema = serde_json::from_value(json!({
            "$ref": "#/$defs/Update",
            "$defs": {"Update": {
                "type": "object",
                "properties": {"id": {"type": "integer"}},
                "anyOf": [{"properties": {"plate": {}}}, {"properties": {"vin": {}, "id": {}}}],
            }},
        }))
        .unwrap();
        assert_eq!(declared_fields(&schema), ["id", "plate", "vin"]);
    }

    #[test]
    fn a_schema_discloses_continuation_by_its_token_property() {
        let heavy =
            json!({"type": "object", "properties": {"continuation_token": {"type": "string"}}});
        let plain = json!({"type": "object", "properties": {"name": {"type": "string"}}});
        assert!(discloses_continuation(heavy.as_object().unwrap()));
        assert!(!discloses_continuation(plain.as_object().unwrap()));
    }

    /// The properties `publish` adds to a schema without any of its own.
    fn added(kind: ToolKind) -> Vec<String> {
        let Value::Object(empty) = json!({"type": "object", "properties": {}}) else {
            unreachable!()
        };
        let published = publish(&empty, kind, &HeavyConfig::new());
        published["properties"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect()
    }

    /// The macros refuse a parameter named like a field the runtime adds;
    /// renaming a field on one side only must fail here, not let a tool's
    /// own parameter and an added field share a name.
    #[test]
    fn the_macros_refuse_exactly_the_fields_the_runtime_adds() {
        let (verify, negotiation) = mcp_light_macros::__reserved_fields!();
        for kind in WriteKind::ALL {
            let write = ToolKind::Write {
                kind,
                status_code: kind.default_status(),
            };
            let mut expected = vec![verify];
            if kind.is_bulk() {
                expected.extend(negotiation);
            }
            assert_eq!(added(write), expected, "{kind:?}");
        }
        assert_eq!(added(ToolKind::Heavy), negotiation);
        assert_eq!(heavy::NEGOTIATION_FIELDS, negotiation);
        assert_eq!(VERIFY, verify);
        assert!(added(ToolKind::Read).is_empty());
    }

    fn compacted(value: Value) -> Value {
        let Value::Object(mut map) = value else {
            unreachable!()
        };
        compact(&mut map);
        Value::Object(map)
    }

    #[test]
    fn single_use_defs_are_inlined_and_repeated_ones_kept() {
        let schema = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": "Args",
            "type": "object",
            "properties": {
                "device": {"$ref": "#/$defs/NewDevice", "description": "The device."},
                "a": {"$ref": "#/$defs/Site"},
                "b": {"$ref": "#/$defs/Site"}
            },
            "$defs": {
                "NewDevice": {"title": "NewDevice", "type": "object", "properties": {"title": {"type": "string"}}},
                "Site": {"type": "string"}
            }
        });
        assert_eq!(
            compacted(schema),
            json!({
                "type": "object",
                "properties": {
                    "device": {"type": "object", "properties": {"title": {"type": "string"}}, "description": "The device."},
                    "a": {"$ref": "#/$defs/Site"},
                    "b": {"$ref": "#/$defs/Site"}
                },
                "$defs": {"Site": {"type": "string"}}
            })
        );
    }

    #[test]
    fn nested_single_use_defs_are_inlined_all_the_way() {
        let schema = json!({
            "type": "object",
            "properties": {"x": {"$ref": "#/$defs/A"}},
            "$defs": {"A": {"type": "object", "properties": {"b": {"$ref": "#/$defs/B"}}}, "B": {"type": "integer"}}
        });
        assert_eq!(
            compacted(schema),
            json!({"type": "object", "properties": {"x": {"type": "object", "properties": {"b": {"type": "integer"}}}}})
        );
    }

    #[test]
    fn compacting_splits_type_lists_and_drops_only_what_absence_says() {
        let schema = json!({
            "type": "object",
            "properties": {
                "rack": {"type": ["string", "null"], "default": null},
                "must": {"type": ["string", "null"], "default": null},
                "extra": {"type": "object", "additionalProperties": true, "default": {}},
                "closed": {"type": "object", "additionalProperties": true, "unevaluatedProperties": false},
                "label": {"type": "string", "default": ""}
            },
            "required": ["must"]
        });
        assert_eq!(
            compacted(schema),
            json!({
                "type": "object",
                "properties": {
                    "rack": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                    "must": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null},
                    "extra": {"type": "object", "default": {}},
                    "closed": {"type": "object", "additionalProperties": true, "unevaluatedProperties": false},
                    "label": {"type": "string", "default": ""}
                },
                "required": ["must"]
            })
        );
    }

    #[test]
    fn recursive_defs_stay_defs() {
        let schema = json!({
            "type": "object",
            "properties": {"tree": {"$ref": "#/$defs/Node"}},
            "$defs": {"Node": {"type": "object", "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}}}}
        });
        let out = compacted(schema.clone());
        assert_eq!(out, schema);
    }
}
