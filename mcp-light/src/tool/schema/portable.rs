//! Type unions written as `anyOf` branches of one `type` each.
//!
//! schemars writes an `Option<String>` as `{"type": ["string", "null"]}`.
//! That is legal JSON Schema, and OpenAI's strict function mode takes it,
//! but a client that maps tool schemas onto a dialect of one `type` per
//! schema rejects the tool or drops the constraint: the OpenAPI subset of
//! Gemini's function declarations is one. `{"anyOf": [{"type": "string"},
//! {"type": "null"}]}` says the same, and both take it (Gemini names the
//! second branch's type `NULL`), as does every JSON Schema validator.

use serde_json::{Map, Value};

/// Rewrites, in `schema` and every subschema of it (`$defs` included),
/// each `type` that lists several types as `anyOf` branches of one `type`
/// each: `{"type": ["string", "null"], "maxLength": 64}` becomes
/// `{"anyOf": [{"type": "string", "maxLength": 64}, {"type": "null"}]}`.
///
/// A keyword that constrains values of some types only (`maxLength`,
/// `items`, `minimum`, …) moves into the branches of those types, where it
/// means what it meant; the others (`description`, `default`, `enum`, …)
/// stay beside the branches. What the schema accepts does not change.
///
/// mcp-light publishes every schema this way unless the tool's attribute
/// says `schema = "as_written"`; a schema kept as written can still ask for
/// it, as a schemars transform on the argument types:
///
/// ```
/// use mcp_light::prelude::*;
///
/// #[derive(Deserialize, JsonSchema)]
/// #[schemars(transform = mcp_light::catalog::split_type_unions)]
/// struct Address {
///     street: Option<String>,
/// }
///
/// let schema = schemars::schema_for!(Address);
/// assert_eq!(
///     schema.as_value()["properties"]["street"],
///     serde_json::json!({"anyOf": [{"type": "string"}, {"type": "null"}]})
/// );
/// ```
pub fn split_type_unions(schema: &mut schemars::Schema) {
    if let Some(map) = schema.as_object_mut() {
        split_in(map);
    }
}

/// [`split_type_unions`] on a schema object.
pub(crate) fn split_in(schema: &mut Map<String, Value>) {
    for (keyword, value) in schema.iter_mut() {
        for sub in subschemas(keyword, value) {
            split_in(sub);
        }
    }
    split_here(schema);
}

/// The schema objects directly under `keyword`, when `keyword` holds
/// schemas. Only schema positions are visited, so a property *named*
/// `type` is left alone.
pub(super) fn subschemas<'a>(
    keyword: &str,
    value: &'a mut Value,
) -> Box<dyn Iterator<Item = &'a mut Map<String, Value>> + 'a> {
    match (keyword, value) {
        (
            "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas",
            Value::Object(map),
        ) => Box::new(map.values_mut().filter_map(Value::as_object_mut)),
        ("anyOf" | "oneOf" | "allOf" | "prefixItems", Value::Array(items)) => {
            Box::new(items.iter_mut().filter_map(Value::as_object_mut))
        }
        (
            "items"
            | "additionalProperties"
            | "not"
            | "if"
            | "then"
            | "else"
            | "contains"
            | "propertyNames"
            | "unevaluatedItems"
            | "unevaluatedProperties"
            | "contentSchema",
            Value::Object(sub),
        ) => Box::new(std::iter::once(sub)),
        _ => Box::new(std::iter::empty()),
    }
}

/// The types a keyword constrains, for the keywords that constrain only
/// some; `None` for a keyword that applies whatever the type is.
fn constrains(keyword: &str) -> Option<&'static [&'static str]> {
    const STRING: &[&str] = &["string"];
    const NUMBER: &[&str] = &["number", "integer"];
    const FORMAT: &[&str] = &["string", "number", "integer"];
    const ARRAY: &[&str] = &["array"];
    const OBJECT: &[&str] = &["object"];
    Some(match keyword {
        "maxLength" | "minLength" | "pattern" | "contentEncoding" | "contentMediaType"
        | "contentSchema" => STRING,
        "format" => FORMAT,
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => NUMBER,
        "items" | "prefixItems" | "additionalItems" | "minItems" | "maxItems" | "uniqueItems"
        | "contains" | "minContains" | "maxContains" | "unevaluatedItems" => ARRAY,
        "properties"
        | "patternProperties"
        | "additionalProperties"
        | "required"
        | "minProperties"
        | "maxProperties"
        | "propertyNames"
        | "dependentRequired"
        | "dependentSchemas"
        | "unevaluatedProperties" => OBJECT,
        _ => return None,
    })
}

/// Splits this schema object's own `type`, if it lists several types.
fn split_here(schema: &mut Map<String, Value>) {
    let types: Vec<String> = match schema.get("type") {
        Some(Value::Array(types)) if types.len() > 1 && types.iter().all(Value::is_string) => types
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => return,
    };
    let mut branches: Vec<Map<String, Value>> = types
        .iter()
        .map(|ty| Map::from_iter([("type".to_owned(), Value::String(ty.clone()))]))
        .collect();
    // An `anyOf` of its own beside the type list stays, and the branches
    // join `allOf`: both must hold.
    let beside = schema.contains_key("anyOf");
    // Rebuilt in its own order, the branches where `type` was.
    let mut rebuilt = Map::new();
    for (keyword, value) in std::mem::take(schema) {
        if keyword == "type" {
            if !beside {
                rebuilt.insert("anyOf".to_owned(), Value::Null);
            }
            continue;
        }
        match constrains(&keyword) {
            Some(applies) => {
                for (ty, branch) in types.iter().zip(&mut branches) {
                    if applies.contains(&ty.as_str()) {
                        branch.insert(keyword.clone(), value.clone());
                    }
                }
            }
            None => {
                rebuilt.insert(keyword, value);
            }
        }
    }
    let branches = Value::Array(branches.into_iter().map(Value::Object).collect());
    if beside {
        let mut all = match rebuilt.shift_remove("allOf") {
            Some(Value::Array(all)) => all,
            Some(other) => vec![other],
            None => Vec::new(),
        };
        all.push(Value::Object(Map::from_iter([(
            "anyOf".to_owned(),
            branches,
        )])));
        rebuilt.insert("allOf".to_owned(), Value::Array(all));
    } else {
        rebuilt.insert("anyOf".to_owned(), branches);
    }
    *schema = rebuilt;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn split(value: Value) -> Value {
        let Value::Object(mut map) = value else {
            unreachable!()
        };
        split_in(&mut map);
        Value::Object(map)
    }

    #[test]
    fn a_nullable_string_becomes_two_branches_its_constraints_in_the_string_one() {
        assert_eq!(
            split(json!({"type": ["string", "null"], "maxLength": 64, "description": "Its name."})),
            json!({"anyOf": [{"type": "string", "maxLength": 64}, {"type": "null"}], "description": "Its name."})
        );
    }

    #[test]
    fn nested_unions_are_split_and_a_property_named_type_is_left_alone() {
        let schema = json!({
            "type": "object",
            "properties": {
                "type": {"type": "string"},
                "tags": {"type": ["array", "null"], "items": {"type": ["integer", "null"], "minimum": 1}},
                "extra": {"type": ["object", "null"], "additionalProperties": true, "default": null}
            },
            "$defs": {"A": {"type": ["number", "string"], "format": "x"}}
        });
        assert_eq!(
            split(schema),
            json!({
                "type": "object",
                "properties": {
                    "type": {"type": "string"},
                    "tags": {"anyOf": [
                        {"type": "array", "items": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]}},
                        {"type": "null"}
                    ]},
                    "extra": {"anyOf": [{"type": "object", "additionalProperties": true}, {"type": "null"}], "default": null}
                },
                "$defs": {"A": {"anyOf": [{"type": "number", "format": "x"}, {"type": "string", "format": "x"}]}}
            })
        );
    }

    #[test]
    fn an_anyof_beside_a_type_list_is_kept_and_both_must_hold() {
        assert_eq!(
            split(
                json!({"type": ["string", "null"], "anyOf": [{"minLength": 2}, {"const": null}]})
            ),
            json!({"allOf": [{"anyOf": [{"type": "string"}, {"type": "null"}]}], "anyOf": [{"minLength": 2}, {"const": null}]})
        );
    }

    #[test]
    fn a_single_type_and_a_schema_without_type_are_unchanged() {
        for schema in [
            json!({"type": "string", "maxLength": 3}),
            json!({"type": ["string"]}),
            json!({"enum": ["a", null]}),
        ] {
            assert_eq!(split(schema.clone()), schema);
        }
    }
}
