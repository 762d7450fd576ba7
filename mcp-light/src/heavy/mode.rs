//! The modes a stored result is served in: their names, as a caller sends
//! them and the schema publishes them.

use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Serialize;
use serde_json::Value;

use super::NegotiationError;

/// How a stored result is served.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
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

    /// The name a caller sends, e.g. `"paginated"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Mode::Summary => "summary",
            Mode::Paginated => "paginated",
            Mode::Filtered => "filtered",
            Mode::Full => "full",
        }
    }
}

/// A mode serializes as its name, as a caller sends it.
impl Serialize for Mode {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// One of the names in [`Mode::ALL`].
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

impl FromStr for Mode {
    type Err = NegotiationError;

    /// Reads a mode by its name; anything else is
    /// [`NegotiationError::UnknownMode`].
    fn from_str(name: &str) -> Result<Mode, NegotiationError> {
        Mode::ALL
            .into_iter()
            .find(|mode| mode.as_str() == name)
            .ok_or_else(|| NegotiationError::UnknownMode {
                got: Value::from(name).to_string(),
            })
    }
}
