//! Values and negotiations the tests of several heavy modules share.

use serde_json::{Value, json};

use super::{HeavyConfig, Mode, Negotiation, NegotiationError, take_negotiation};
use crate::token::Token;

pub(super) fn config() -> HeavyConfig {
    HeavyConfig::default()
}

/// `n` device rows with ids from 1.
pub(super) fn rows(n: usize) -> Value {
    (1..=n)
        .map(|id| json!({"id": id, "name": format!("edge-{id}"), "site": "hq"}))
        .collect()
}

/// The ids of a page's items.
pub(super) fn ids(page: &Value) -> Vec<u64> {
    page["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["id"].as_u64().unwrap())
        .collect()
}

pub(super) fn asked(mode: Mode, page: usize, page_size: usize) -> Negotiation {
    Negotiation {
        mode,
        page,
        page_size,
        page_size_asked: true,
        filter_keys: Vec::new(),
        keeps: usize::MAX,
    }
}

/// The negotiation in `args`, read with the default limits.
pub(super) fn take(args: Value) -> Result<Negotiation, NegotiationError> {
    let Value::Object(mut args) = args else {
        panic!("args must be an object")
    };
    take_negotiation(&mut args, &config(), usize::MAX)
}

pub(super) fn token() -> Token {
    Token::mint().unwrap()
}

/// The probe of a whole `value`, as a first call answers it.
pub(super) fn probe_of(
    tool: &str,
    value: &Value,
    total_size: u64,
    token: &Token,
    config: &HeavyConfig,
) -> Value {
    let shape = super::digest::ResultShape::of(value, crate::store::Origin::Read);
    let (preview, _) = super::digest::preview_of(value, config);
    serde_json::to_value(super::probe(
        tool, preview, &shape, total_size, token, config,
    ))
    .unwrap()
}

/// The keys of an answer, in order.
pub(super) fn keys(answer: &Value) -> Vec<&str> {
    answer
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect()
}
