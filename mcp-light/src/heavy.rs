//! Heavy-read negotiation (C16, C17). STUB: replaced by the heavy work.

use serde_json::{Map, Value};

use crate::store::Origin;
use crate::token::Token;

/// The names of the fields `#[mcp_heavy]` adds to a schema.
pub const NEGOTIATION_FIELDS: [&str; 5] = [
    "continuation_token",
    "mode",
    "page",
    "page_size",
    "filter_keys",
];

/// How a stored result is served.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// The shape of the result.
    Summary,
    /// One page.
    #[default]
    Paginated,
    /// Only some keys.
    Filtered,
    /// Everything.
    Full,
}

/// Limits of the negotiation.
#[derive(Debug, Clone)]
pub struct HeavyConfig {
    /// Page size when the caller gives none.
    pub default_page_size: usize,
    /// The largest page a caller may ask for.
    pub max_page_size: usize,
    /// Results larger than this many bytes are answered with a probe where
    /// the schema discloses continuation; `None` switches the backstop off.
    pub size_backstop: Option<usize>,
}

impl Default for HeavyConfig {
    fn default() -> Self {
        HeavyConfig {
            default_page_size: 20,
            max_page_size: 200,
            size_backstop: Some(25_000),
        }
    }
}

/// What the caller asked for on redemption.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Negotiation {
    /// The mode.
    pub mode: Mode,
    /// 1-based page.
    pub page: usize,
    /// Items per page.
    pub page_size: usize,
    /// Keys kept by `filtered`.
    pub filter_keys: Vec<String>,
}

/// A negotiation field the caller got wrong.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct NegotiationError(String);

/// Removes the negotiation fields (all but `continuation_token`) from `args`.
pub fn take_negotiation(
    args: &mut Map<String, Value>,
    config: &HeavyConfig,
) -> Result<Negotiation, NegotiationError> {
    let _ = (args, config);
    Ok(Negotiation {
        mode: Mode::Paginated,
        page: 1,
        page_size: 20,
        filter_keys: vec![],
    })
}

/// The schema properties `#[mcp_heavy]` merges into a tool's schema.
pub fn negotiation_properties() -> Map<String, Value> {
    NEGOTIATION_FIELDS
        .iter()
        .map(|f| (f.to_string(), serde_json::json!({})))
        .collect()
}

/// The probe a first call answers.
pub fn probe(tool: &str, value: &Value, total_size: usize, token: &Token) -> Map<String, Value> {
    let _ = (tool, value);
    let mut m = Map::new();
    m.insert("total_size".into(), total_size.into());
    m.insert("continuation_token".into(), token.as_str().into());
    m
}

/// Serves a stored result as `negotiation` asks.
pub fn serve(
    value: Value,
    origin: Origin,
    negotiation: &Negotiation,
    config: &HeavyConfig,
) -> Result<Value, NegotiationError> {
    let _ = (origin, negotiation, config);
    Ok(value)
}
