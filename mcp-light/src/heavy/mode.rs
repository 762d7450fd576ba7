//! The modes a stored result is served in: their names, as a caller sends
//! them and the schema publishes them, and the shape each answer is
//! counted under.

use std::borrow::Cow;
use std::fmt;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Serialize;

use crate::call::outcome::ServedMode;

/// How a stored result is served.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// What the result holds, bounded in size: a list's count and, per
    /// field, its type, nulls, range and how many items hold each repeated
    /// value; an object's keys and their shapes.
    Summary,
    /// One bounded page of a list; a value that is not pageable is returned
    /// whole. The default.
    #[default]
    Paginated,
    /// Only the fields named in `filter_keys`, of the object or of each
    /// object in the list; a list is paged as in [`Mode::Paginated`].
    Filtered,
    /// The value exactly as stored.
    Full,
}

impl Mode {
    /// Every mode, in the order the schema's enum lists them.
    pub const ALL: [Mode; 4] = [Mode::Summary, Mode::Paginated, Mode::Filtered, Mode::Full];

    /// The name a caller sends, e.g. `"paginated"`: the variant's name in
    /// lower case, as it serializes.
    pub const fn as_str(self) -> &'static str {
        match self {
            Mode::Summary => "summary",
            Mode::Paginated => "paginated",
            Mode::Filtered => "filtered",
            Mode::Full => "full",
        }
    }

    /// Every mode's name, comma-separated, in the schema's order: what an
    /// unknown mode is told to send instead.
    pub(crate) fn names() -> String {
        Mode::ALL.map(Mode::as_str).join(", ")
    }

    /// Whether the mode reads `filter_keys`: required with it, refused
    /// with any other.
    pub(crate) const fn takes_filter_keys(self) -> bool {
        match self {
            Mode::Filtered => true,
            Mode::Summary | Mode::Paginated | Mode::Full => false,
        }
    }

    /// The shape an answer served in this mode is counted under.
    pub(crate) const fn served(self) -> ServedMode {
        match self {
            Mode::Summary => ServedMode::Summary,
            Mode::Paginated => ServedMode::Page,
            Mode::Filtered => ServedMode::Filtered,
            Mode::Full => ServedMode::Full,
        }
    }
}

/// One of the names in [`Mode::ALL`], inlined where it is used.
///
/// Written out rather than derived: the derive gives documented variants a
/// `oneOf` of `const`s, each with its description, which is longer in every
/// `tools/list` than this `enum`, and not what the schema has published.
impl JsonSchema for Mode {
    fn schema_name() -> Cow<'static, str> {
        "Mode".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": "string", "enum": Mode::ALL.map(Mode::as_str)})
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use schemars::generate::SchemaSettings;
    use serde_json::json;

    use super::*;

    #[test]
    fn a_mode_serializes_displays_and_parses_as_its_name() {
        for mode in Mode::ALL {
            assert_eq!(serde_json::to_value(mode).unwrap(), json!(mode.as_str()));
            assert_eq!(mode.to_string(), mode.as_str());
            assert_eq!(mode.as_str().parse::<Mode>(), Ok(mode));
        }
        assert_eq!(Mode::names(), "summary, paginated, filtered, full");
        assert_eq!(Mode::default(), Mode::Paginated);
    }

    #[test]
    fn every_mode_is_listed_once_and_served_as_its_own_shape() {
        for (i, mode) in Mode::ALL.into_iter().enumerate() {
            assert!(!Mode::ALL[..i].contains(&mode), "{mode} listed twice");
            assert!(
                !Mode::ALL[..i].iter().any(|m| m.served() == mode.served()),
                "{mode}"
            );
        }
    }

    #[test]
    fn the_schema_is_the_enum_of_names_byte_for_byte() {
        // Where the schema is published, inline: a probe's `available_modes`.
        let generator = SchemaSettings::draft2020_12().into_generator();
        let root = generator.into_root_schema_for::<Vec<Mode>>();
        assert_eq!(
            serde_json::to_string(&root).unwrap(),
            r#"{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"Array_of_Mode","type":"array","items":{"type":"string","enum":["summary","paginated","filtered","full"]}}"#
        );
        let alone = SchemaGenerator::default().into_root_schema_for::<Mode>();
        assert_eq!(
            serde_json::to_value(&alone).unwrap(),
            json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "title": "Mode",
                "type": "string",
                "enum": ["summary", "paginated", "filtered", "full"],
            })
        );
    }
}
