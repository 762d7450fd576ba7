//! STUB
/// generate
pub(crate) fn generate<A: schemars::JsonSchema>() -> schemars::Schema { schemars::SchemaGenerator::default().into_root_schema_for::<A>() }
/// Whether a schema discloses continuation.
pub fn discloses_continuation(schema: &serde_json::Map<String, serde_json::Value>) -> bool { schema.get("properties").and_then(|p| p.get("continuation_token")).is_some() }
