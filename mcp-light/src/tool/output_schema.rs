//! Published output schemas: every shape a tool can answer, for hosts that
//! ask for `outputSchema` (opt in with
//! [`ServerBuilder::with_output_schemas`](crate::ServerBuilder::with_output_schemas)).
//!
//! A tool answers more than its result: a write answers a lean envelope or,
//! with `verify: true` or when nothing reaches what it wrote, the full
//! result; a heavy read answers a probe first, then a page, a summary or
//! the full result; a dispatcher answers any of these for the tools it
//! routes, and its `describe` answer. MCP clients validate
//! `structuredContent` against a published `outputSchema` and refuse an
//! answer that does not match, so the schema lists every shape in an
//! `anyOf`. Its root is `{"type": "object"}`, as clients of the 2025
//! protocol revisions require (and `structuredContent` always is one: a
//! result that is not an object arrives wrapped as `{"result": ...}`).
//!
//! Each branch is derived from the type that writes that answer: one Rust
//! type's `Serialize` makes the JSON and its `JsonSchema` the branch, so
//! the two cannot drift apart. The full result's own schema is not known
//! here (the registry records the parameters' schema, not the result's),
//! so its branch admits any object: the schema validates the root and
//! documents the other shapes.

use std::sync::LazyLock;

use schemars::generate::{Contract, SchemaSettings};
use schemars::transform::transform_subschemas;
use schemars::{JsonSchema, Schema};
use serde::Serialize;
use serde_json::{Map, Value, json};

use crate::heavy::{Page, Probe, Summary};
use crate::tool::kind::{ToolKind, WriteKind};
use crate::writes::envelope::{BulkEnvelope, DestroyEnvelope, SingleEnvelope};

/// What a dispatcher's `describe: true` answers: `{description?,
/// params_schema}`, the action's description and the schema its `params`
/// must match. Defined here, beside its schema, so that the schemas of the
/// answers need nothing of the dispatcher that answers it.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(title = "describe")]
pub(crate) struct Described<'r> {
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    description: Option<&'r str>,
    params_schema: &'r Map<String, Value>,
}

impl<'r> Described<'r> {
    /// The answer for an action with `description` (none when empty) whose
    /// `params` must match `params_schema`.
    pub(crate) fn new(description: Option<&'r str>, params_schema: &'r Map<String, Value>) -> Self {
        Described {
            description,
            params_schema,
        }
    }
}

/// One shape an answer can take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum OutputShape {
    /// [`SingleEnvelope`]: `{id?, url?, name?, <light keys>, status_code,
    /// data_size, continuation_token?}`.
    SingleEnvelope,
    /// [`BulkEnvelope`]: `{accepted, status_code, data_size,
    /// continuation_token | ids}`.
    BulkEnvelope,
    /// [`DestroyEnvelope`]: `{<id>, deleted: true, status_code}`.
    DestroyEnvelope,
    /// [`Probe`]: `{preview, total_size, available_modes,
    /// continuation_token, usage}`.
    Probe,
    /// [`Page`]: `{items, page, page_size, total, has_more}`, a wrapper's
    /// other fields first.
    Page,
    /// [`Summary`]: `{type, count?, ...}`.
    Summary,
    /// A dispatcher's `describe` answer, [`Described`]: `{description?,
    /// params_schema}`.
    Described,
    /// The result itself (the `verify` echo too), wrapped as `{"result":
    /// ...}` when it is not an object.
    Result,
}

impl OutputShape {
    /// Every shape, in the order an output schema lists them.
    const ALL: [OutputShape; 8] = [
        OutputShape::SingleEnvelope,
        OutputShape::BulkEnvelope,
        OutputShape::DestroyEnvelope,
        OutputShape::Probe,
        OutputShape::Page,
        OutputShape::Summary,
        OutputShape::Described,
        OutputShape::Result,
    ];

    /// The shapes a tool of `kind` answers when its published schema
    /// `discloses` continuation or not.
    pub(crate) fn of(kind: ToolKind, discloses: bool) -> Vec<OutputShape> {
        let mut shapes = match kind {
            ToolKind::Read if discloses => vec![OutputShape::Probe],
            ToolKind::Read => vec![],
            ToolKind::Heavy => vec![OutputShape::Probe],
            ToolKind::Write { kind, .. } => vec![match kind {
                WriteKind::Destroy => OutputShape::DestroyEnvelope,
                kind if kind.is_bulk() => OutputShape::BulkEnvelope,
                _ => OutputShape::SingleEnvelope,
            }],
        };
        if discloses {
            // A redemption answers a page or a summary of what was stored.
            shapes.extend([OutputShape::Page, OutputShape::Summary]);
        }
        shapes.push(OutputShape::Result);
        shapes
    }

    /// The shape's schema: derived once from the type that writes it.
    fn schema(self) -> &'static Value {
        static BRANCHES: LazyLock<[Value; 8]> =
            LazyLock::new(|| OutputShape::ALL.map(OutputShape::derive));
        let at = OutputShape::ALL.iter().position(|shape| *shape == self);
        &BRANCHES[at.expect("every shape is in OutputShape::ALL")]
    }

    /// The schema schemars derives from the shape's type, for what it
    /// serializes, made [`compact`]. The root of an output schema says it
    /// is an object, so a branch does not say it again.
    fn derive(self) -> Value {
        let schema = match self {
            OutputShape::SingleEnvelope => derived::<SingleEnvelope>(),
            OutputShape::BulkEnvelope => derived::<BulkEnvelope>(),
            OutputShape::DestroyEnvelope => derived::<DestroyEnvelope>(),
            OutputShape::Probe => derived::<Probe>(),
            OutputShape::Page => derived::<Page>(),
            OutputShape::Summary => derived::<Summary>(),
            OutputShape::Described => derived::<Described<'static>>(),
            // Any object: the registry records a tool's parameters, not the
            // type of its result.
            OutputShape::Result => return json!({"title": "result"}),
        };
        let mut branch = schema.to_value();
        if let Some(branch) = branch.as_object_mut() {
            branch.remove("type");
        }
        branch
    }
}

/// The schema of what `T` serializes to, compact, inlined, without `$schema`.
fn derived<T: JsonSchema>() -> Schema {
    let mut schema = SchemaSettings::draft2020_12()
        .with(|settings| {
            settings.meta_schema = None;
            settings.contract = Contract::Serialize;
            settings.inline_subschemas = true;
        })
        .into_generator()
        .into_root_schema_for::<T>();
    compact(&mut schema);
    schema
}

/// Drops from a derived schema, and from each of its subschemas, what a
/// Rust type adds that a client does not check, since every client pays
/// for each schema in every `tools/list`: the doc comments (`description`),
/// an integer's Rust width (`format`, `minimum`, `maximum`), the `type`
/// beside an `enum` (its values say it), and the schemas that admit
/// anything (`items: true`, `additionalProperties: true`, a property whose
/// value may be any JSON).
fn compact(schema: &mut Schema) {
    // Subschemas first, so that one left admitting anything is seen as such.
    transform_subschemas(&mut compact, schema);
    if let Some(object) = schema.as_object_mut() {
        object.remove("description");
        if object.contains_key("enum") {
            object.remove("type");
        }
        if object.get("type").and_then(Value::as_str) == Some("integer") {
            for width in ["format", "minimum", "maximum"] {
                object.remove(width);
            }
        }
        for keyword in ["items", "additionalProperties"] {
            if object.get(keyword).is_some_and(admits_anything) {
                object.remove(keyword);
            }
        }
        if let Some(Value::Object(properties)) = object.get_mut("properties") {
            properties.retain(|_, property| !admits_anything(property));
        }
    }
}

/// Whether `schema` admits any JSON value: `true`, or `{}`.
fn admits_anything(schema: &Value) -> bool {
    match schema {
        Value::Bool(admits) => *admits,
        Value::Object(keywords) => keywords.is_empty(),
        _ => false,
    }
}

/// The output schema admitting every one of `shapes`: an object, and one
/// of the shapes.
pub(crate) fn output_schema(shapes: impl IntoIterator<Item = OutputShape>) -> Map<String, Value> {
    let mut shapes: Vec<OutputShape> = shapes.into_iter().collect();
    shapes.sort_unstable();
    shapes.dedup();
    let mut schema = Map::new();
    schema.insert("type".into(), "object".into());
    // The result alone is any object: the root says it all.
    if shapes != [OutputShape::Result] {
        let branches: Vec<Value> = shapes.iter().map(|shape| shape.schema().clone()).collect();
        schema.insert("anyOf".into(), branches.into());
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::heavy::HeavyConfig;
    use crate::token::Token;
    use crate::writes::envelope::{BulkReach, LeanEnvelope};
    use crate::writes::light_key::KeyFields;

    /// Whether `value` matches `schema`, for the keywords these schemas use.
    fn admits(schema: &Value, value: &Value) -> bool {
        let Some(schema) = schema.as_object() else {
            return true;
        };
        let typed = |name: &str| match name {
            "object" => value.is_object(),
            "array" => value.is_array(),
            "string" => value.is_string(),
            "integer" => value.is_u64() || value.is_i64(),
            "boolean" => value.is_boolean(),
            other => panic!("no check for type {other}"),
        };
        schema.iter().all(|(keyword, rule)| match keyword.as_str() {
            "type" => typed(rule.as_str().unwrap()),
            "const" => value == rule,
            "enum" => rule.as_array().unwrap().contains(value),
            "required" => rule
                .as_array()
                .unwrap()
                .iter()
                .all(|key| value.get(key.as_str().unwrap()).is_some()),
            "properties" => rule
                .as_object()
                .unwrap()
                .iter()
                .all(|(key, sub)| value.get(key).is_none_or(|field| admits(sub, field))),
            "items" => value
                .as_array()
                .is_none_or(|items| items.iter().all(|item| admits(rule, item))),
            "anyOf" => rule
                .as_array()
                .unwrap()
                .iter()
                .any(|sub| admits(sub, value)),
            "title" => true,
            other => panic!("no check for keyword {other}"),
        })
    }

    /// Whether `value` matches the branch of `shape`, not just any object.
    fn is_shape(shape: OutputShape, value: &Value) -> bool {
        admits(shape.schema(), value)
    }

    fn envelopes() -> [(OutputShape, Value); 4] {
        let mut key = KeyFields::new();
        key.id("id", &7);
        key.field("name", "edge-01");
        let single = LeanEnvelope::Single(SingleEnvelope::new(
            key,
            201,
            700,
            Some(Token::mint().unwrap()),
        ));
        let bulk = LeanEnvelope::Bulk(BulkEnvelope::new(
            2,
            201,
            90,
            BulkReach::Ids(vec![json!(1), json!(2)]),
        ));
        let bulk_token = LeanEnvelope::Bulk(BulkEnvelope::new(
            2,
            201,
            90,
            BulkReach::Token(Token::mint().unwrap()),
        ));
        let destroy = LeanEnvelope::Destroy(DestroyEnvelope::new("pk", json!("9f1c"), 204));
        [
            (OutputShape::SingleEnvelope, single),
            (OutputShape::BulkEnvelope, bulk),
            (OutputShape::BulkEnvelope, bulk_token),
            (OutputShape::DestroyEnvelope, destroy),
        ]
        .map(|(shape, envelope)| (shape, serde_json::to_value(envelope).unwrap()))
    }

    /// The branches, word for word, as clients have them: deriving them
    /// from the answer types changed nothing a client sees, and a change
    /// to a type that would change one fails here first.
    #[test]
    fn the_derived_branches_publish_the_documented_shapes() {
        let expected = [
            (
                OutputShape::SingleEnvelope,
                r#"{"title":"envelope","properties":{"status_code":{"type":"integer"},"data_size":{"type":"integer"},"continuation_token":{"type":"string"},"note":{"type":"string"}},"required":["status_code","data_size"]}"#,
            ),
            (
                OutputShape::BulkEnvelope,
                r#"{"title":"envelope","properties":{"accepted":{"type":"integer"},"status_code":{"type":"integer"},"data_size":{"type":"integer"},"continuation_token":{"type":"string"},"ids":{"type":"array"},"note":{"type":"string"}},"required":["accepted","status_code","data_size"]}"#,
            ),
            (
                OutputShape::DestroyEnvelope,
                r#"{"title":"envelope","properties":{"deleted":{"const":true},"status_code":{"type":"integer"}},"required":["deleted","status_code"]}"#,
            ),
            (
                OutputShape::Probe,
                r#"{"title":"probe","properties":{"total_size":{"type":"integer"},"total_items":{"type":"integer"},"paged":{"type":"string"},"available_modes":{"type":"array","items":{"enum":["summary","paginated","filtered","full"]}},"continuation_token":{"type":"string"},"usage":{"type":"string"}},"required":["preview","total_size","available_modes","continuation_token","usage"]}"#,
            ),
            (
                OutputShape::Page,
                r#"{"title":"page","properties":{"items":{"type":"array"},"page":{"type":"integer"},"page_size":{"type":"integer"},"total":{"type":"integer"},"has_more":{"type":"boolean"},"continuation_token":{"type":"string"},"note":{"type":"string"}},"required":["items","page","page_size","total","has_more"]}"#,
            ),
            (
                OutputShape::Summary,
                r#"{"title":"summary","properties":{"type":{"enum":["list","object","string","number","bool","null"]},"count":{"type":"integer"}},"required":["type"]}"#,
            ),
            (
                OutputShape::Described,
                r#"{"title":"describe","properties":{"description":{"type":"string"},"params_schema":{"type":"object"}},"required":["params_schema"]}"#,
            ),
            (OutputShape::Result, r#"{"title":"result"}"#),
        ];
        assert_eq!(expected.map(|(shape, _)| shape), OutputShape::ALL);
        for (shape, branch) in expected {
            assert_eq!(shape.schema().to_string(), branch, "{shape:?}");
        }
    }

    #[test]
    fn each_envelope_matches_its_own_branch() {
        for (shape, envelope) in envelopes() {
            assert!(is_shape(shape, &envelope), "{shape:?}: {envelope}");
        }
    }

    #[test]
    fn a_probe_matches_the_probe_branch() {
        let list: Value = (1..=50).map(|id| json!({"id": id})).collect();
        let config = HeavyConfig::new();
        let (preview, _) = crate::heavy::preview_of(&list, &config);
        let shape = crate::heavy::ResultShape::of(&list, crate::store::Origin::Read);
        let probe =
            crate::heavy::probe("t", preview, &shape, 999, &Token::mint().unwrap(), &config);
        assert!(is_shape(
            OutputShape::Probe,
            &serde_json::to_value(probe).unwrap()
        ));
    }

    #[test]
    fn each_write_kind_lists_its_own_envelope_then_the_result() {
        for kind in WriteKind::ALL {
            let tool = ToolKind::Write {
                kind,
                status_code: kind.default_status(),
            };
            let schema = Value::Object(output_schema(OutputShape::of(tool, false)));
            let branches = schema["anyOf"].as_array().unwrap();
            assert_eq!(branches.len(), 2, "{kind:?}");
            let (envelope, result) = (&branches[0], &branches[1]);
            let own = match kind {
                WriteKind::Destroy => OutputShape::DestroyEnvelope,
                kind if kind.is_bulk() => OutputShape::BulkEnvelope,
                _ => OutputShape::SingleEnvelope,
            };
            for (_, answer) in envelopes().into_iter().filter(|(shape, _)| *shape == own) {
                assert!(admits(envelope, &answer), "{kind:?}: {answer}");
            }
            assert_eq!(result, &json!({"title": "result"}));
            assert!(admits(&schema, &json!({"result": [1, 2]})));
            assert!(!admits(&schema, &json!([1, 2])), "the root is an object");
        }
    }

    #[test]
    fn pages_and_summaries_match_their_branches() {
        use crate::heavy::{Mode, Negotiation, serve};
        use crate::store::Origin;

        let config = HeavyConfig::new();
        let asked = |mode| Negotiation {
            mode,
            page: 2,
            page_size: 5,
            page_size_asked: true,
            filter_keys: if mode == Mode::Filtered {
                vec!["id".into()]
            } else {
                vec![]
            },
            keeps: usize::MAX,
        };
        let list: Value = (1..=12).map(|id| json!({"id": id, "site": "hq"})).collect();
        let wrapper = json!({"count": 12, "results": list.clone()});
        for value in [&list, &wrapper] {
            for mode in [Mode::Paginated, Mode::Filtered] {
                let page = serve(value.clone(), Origin::Read, &asked(mode), &config).unwrap();
                assert!(is_shape(OutputShape::Page, &page), "{mode}: {page}");
            }
        }
        for value in [
            list,
            wrapper,
            json!("text"),
            json!(3),
            json!(null),
            json!(true),
        ] {
            let summary = serve(value, Origin::Read, &asked(Mode::Summary), &config).unwrap();
            assert!(is_shape(OutputShape::Summary, &summary), "{summary}");
        }
    }

    #[test]
    fn a_heavy_read_lists_the_probe_the_page_the_summary_and_the_result() {
        let schema = output_schema(OutputShape::of(ToolKind::Heavy, true));
        let titles: Vec<&str> = schema["anyOf"]
            .as_array()
            .unwrap()
            .iter()
            .map(|branch| branch["title"].as_str().unwrap())
            .collect();
        assert_eq!(titles, ["probe", "page", "summary", "result"]);
        assert_eq!(schema["type"], "object");
    }

    #[test]
    fn a_plain_read_is_any_object_and_nothing_more() {
        assert_eq!(
            Value::Object(output_schema(OutputShape::of(ToolKind::Read, false))),
            json!({"type": "object"})
        );
    }

    #[test]
    fn shapes_given_twice_are_listed_once() {
        let schema = output_schema([OutputShape::Page, OutputShape::Result, OutputShape::Page]);
        assert_eq!(schema["anyOf"].as_array().unwrap().len(), 2);
    }
}
