//! What a redeeming call asks for: the mode, the page and the filter keys,
//! lifted out of its arguments and checked, and the schema properties that
//! publish them.

use std::collections::HashSet;
use std::str::FromStr;

use serde_json::{Map, Value, json};

use super::preview::fit_or_empty;
use super::{HeavyConfig, Mode};
use crate::call::args;
use crate::call::outcome::CallError;
use crate::call::outcome::call_error::Name;

/// The names of the fields `#[mcp_heavy]` adds to a schema, in the order
/// [`negotiation_properties`] publishes them.
pub(crate) const NEGOTIATION_FIELDS: [&str; 5] = [
    "continuation_token",
    "mode",
    "page",
    "page_size",
    "filter_keys",
];

/// The fields a redemption negotiates: [`NEGOTIATION_FIELDS`] but the
/// token itself.
const REDEMPTION_FIELDS: [&str; 4] = ["mode", "page", "page_size", "filter_keys"];

/// What the caller asked for on redemption.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Negotiation {
    /// The mode.
    pub(crate) mode: Mode,
    /// 1-based page.
    pub(crate) page: usize,
    /// Items per page, from 1 to [`HeavyConfig::max_page_size`]; where
    /// the caller named none, the most a page may hold
    /// ([`HeavyConfig::default_page_size`]) until the page is sized to the
    /// client.
    pub(crate) page_size: usize,
    /// Whether the caller named `page_size`: a page it did not size holds
    /// as many items as fit what its client keeps.
    pub(crate) page_size_asked: bool,
    /// Fields kept by [`Mode::Filtered`]; empty for every other mode.
    pub(crate) filter_keys: Vec<String>,
    /// The bytes of an answer the calling client keeps
    /// ([`ClientTable`](crate::clients::ClientTable)): no answer served
    /// for this negotiation is larger.
    pub(crate) keeps: usize,
}

impl Negotiation {
    /// `mode` with every other field at its default: page 1 of
    /// `config.default_page_size` items, no filter keys.
    // Calls negotiate through `take_negotiation`; only tests build one by
    // hand now that the type is the crate's own.
    #[cfg(test)]
    pub(crate) fn with_mode(mode: Mode, config: &HeavyConfig) -> Negotiation {
        Negotiation {
            mode,
            page: 1,
            page_size: config.default_page_size,
            page_size_asked: false,
            filter_keys: Vec::new(),
            keeps: usize::MAX,
        }
    }

    /// Checks the bounds [`take_negotiation`] enforces, for a negotiation
    /// built by hand; [`serve`](super::serve) calls it first.
    pub(crate) fn check(&self, config: &HeavyConfig) -> Result<(), NegotiationError> {
        if self.page == 0 {
            return Err(NegotiationError::Page { got: "0".into() });
        }
        if self.page_size == 0 || self.page_size > config.max_page_size {
            return Err(NegotiationError::PageSize {
                got: self.page_size.to_string(),
                max: config.max_page_size,
            });
        }
        if self.filter_keys.len() > config.max_filter_keys {
            return Err(NegotiationError::TooManyFilterKeys {
                count: self.filter_keys.len(),
                max: config.max_filter_keys,
            });
        }
        match (self.mode.takes_filter_keys(), self.filter_keys.is_empty()) {
            (true, true) => Err(NegotiationError::FilterKeysRequired),
            (true, false) | (false, true) => Ok(()),
            (false, false) => Err(NegotiationError::FilterKeysWithoutFiltered { mode: self.mode }),
        }
    }
}

/// A negotiation field the caller got wrong, or a mode that does not apply
/// to the stored value. Each message is a sentence naming the field and
/// what is allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NegotiationError {
    /// `mode` is not one of [`Mode::ALL`].
    #[error("mode must be one of {}; got {got}", Mode::names())]
    UnknownMode {
        /// What was sent, as compact JSON (shortened when long).
        got: String,
    },
    /// `page` is not a positive integer.
    #[error("page must be an integer of at least 1 (the first page is 1); got {got}")]
    Page {
        /// What was sent, as compact JSON (shortened when long).
        got: String,
    },
    /// `page_size` is not an integer from 1 to the maximum.
    #[error("page_size must be an integer from 1 to {max}; got {got}")]
    PageSize {
        /// What was sent, as compact JSON (shortened when long).
        got: String,
        /// [`HeavyConfig::max_page_size`].
        max: usize,
    },
    /// `filter_keys` is not a list of strings.
    #[error("filter_keys must be a list of field names (strings); got {got}")]
    FilterKeys {
        /// What was sent, as compact JSON (shortened when long).
        got: String,
    },
    /// `filter_keys` names more distinct fields than
    /// [`HeavyConfig::max_filter_keys`].
    #[error(
        "filter_keys names {count} distinct fields, more than the {max} a call may name; \
         name only the fields you need"
    )]
    TooManyFilterKeys {
        /// How many distinct keys were sent.
        count: usize,
        /// [`HeavyConfig::max_filter_keys`].
        max: usize,
    },
    /// `mode` is `filtered` but `filter_keys` is missing or empty.
    #[error(
        "filter_keys is required with mode filtered: give a non-empty list of field names, \
         e.g. [\"id\", \"name\"]"
    )]
    FilterKeysRequired,
    /// `filter_keys` was given with a mode that ignores it; answering anyway
    /// would hand back every field while the agent believes it filtered.
    #[error(
        "filter_keys applies only with mode filtered, not {mode}; add \"mode\": \"filtered\" or drop filter_keys"
    )]
    FilterKeysWithoutFiltered {
        /// The mode that was asked for.
        mode: Mode,
    },
    /// `filtered` was asked of a value with no object to filter.
    #[error(
        "mode filtered applies to objects and lists of objects, and this result is {kind}; \
         use summary, paginated or full"
    )]
    NotFilterable {
        /// What the stored value is, e.g. `"a string"`.
        kind: String,
    },
    /// A negotiation field came with a first call, which has no stored
    /// result to negotiate: answering anyway would ignore what was asked.
    #[error("{}", without_token(fields))]
    WithoutToken {
        /// The negotiation fields sent, in the schema's order.
        fields: Vec<&'static str>,
    },
    /// One item of the list is larger, alone, than the calling client
    /// keeps of an answer: no page can hold it whole.
    #[error(
        "item {item} of the list alone is {size} bytes, more than this client keeps of an \
         answer ({keeps} bytes); read it narrowed: mode filtered with filter_keys naming the \
         fields you need, page {item} and page_size 1"
    )]
    ItemTooLarge {
        /// The item's place in the list, from 1.
        item: usize,
        /// Its bytes of compact JSON.
        size: usize,
        /// What the client keeps.
        keeps: usize,
    },
    /// The result's summary does not fit what the calling client keeps,
    /// even with no values listed.
    #[error(
        "the summary is {size} bytes, more than this client keeps of an answer ({keeps} bytes); \
         read the result a page at a time (mode paginated), or narrowed (mode filtered with \
         filter_keys)"
    )]
    SummaryTooLarge {
        /// The summary's bytes of compact JSON.
        size: usize,
        /// What the client keeps.
        keeps: usize,
    },
    /// None of `filter_keys` is a field of the stored value.
    #[error("filter_keys {keys} matched no field of the result; its fields include {fields}")]
    NoFieldMatched {
        /// The first few keys that were asked for, as compact JSON, and how
        /// many more there were (`["a","b"] and 3 more`).
        keys: String,
        /// Some of the fields there are, comma-separated.
        fields: String,
    },
}

impl NegotiationError {
    /// The error as the answer to a call through `tool`: its arguments
    /// cannot be served.
    pub(crate) fn invalid_arguments(self, tool: &Name) -> CallError {
        CallError::InvalidArguments {
            tool: tool.clone(),
            at: None,
            problem: self.to_string(),
        }
    }

    /// The argument the error is about (`mode`, `page`, `page_size` or
    /// `filter_keys`), which the tests check each error names.
    #[cfg(test)]
    pub(crate) fn field(&self) -> &'static str {
        match self {
            NegotiationError::UnknownMode { .. }
            | NegotiationError::NotFilterable { .. }
            | NegotiationError::SummaryTooLarge { .. } => "mode",
            NegotiationError::Page { .. } => "page",
            NegotiationError::PageSize { .. } | NegotiationError::ItemTooLarge { .. } => {
                "page_size"
            }
            NegotiationError::FilterKeys { .. }
            | NegotiationError::TooManyFilterKeys { .. }
            | NegotiationError::FilterKeysRequired
            | NegotiationError::FilterKeysWithoutFiltered { .. }
            | NegotiationError::NoFieldMatched { .. } => "filter_keys",
            NegotiationError::WithoutToken { fields } => fields.first().copied().unwrap_or("mode"),
        }
    }
}

/// The sentence of [`NegotiationError::WithoutToken`]: `mode` applies to
/// redeeming a continuation token, and how to get one.
fn without_token(fields: &[&str]) -> String {
    let named: Vec<String> = fields.iter().map(|field| format!("`{field}`")).collect();
    let (named, verb, them) = match named.split_last() {
        Some((last, [])) => (last.clone(), "applies", "it"),
        Some((last, rest)) => (format!("{} and {last}", rest.join(", ")), "apply", "them"),
        None => ("the negotiation fields".to_owned(), "apply", "them"),
    };
    format!(
        "{named} {verb} to redeeming a continuation token, and this call sends none: call \
         without {them} first, then send {them} with the `continuation_token` its answer carries"
    )
}

/// Takes the negotiation fields off a first call (one without a
/// `continuation_token`): a field that is absent or `null` is nothing
/// asked; one with a value is refused, since there is nothing stored yet to
/// serve in a mode or a page.
pub(crate) fn refuse_negotiation(args: &mut Map<String, Value>) -> Result<(), NegotiationError> {
    let fields: Vec<&'static str> = REDEMPTION_FIELDS
        .into_iter()
        .filter(|field| args::take(args, field).is_some_and(|value| !value.is_null()))
        .collect();
    match fields.is_empty() {
        true => Ok(()),
        false => Err(NegotiationError::WithoutToken { fields }),
    }
}

/// Removes the negotiation fields (all but `continuation_token`, which the
/// caller reads to find the stored entry) from `args` and checks them.
///
/// A field that is absent or `null` takes its default: `mode` `paginated`,
/// `page` 1, `page_size` as many items as fit `keeps` bytes (at most
/// [`HeavyConfig::default_page_size`]), `filter_keys`
/// empty. `page` and `page_size` must be JSON integers (`"2"` and `1.5` are
/// refused, not coerced); `page_size` over [`HeavyConfig::max_page_size`]
/// is an error rather than a silent clamp. `filter_keys` is required with
/// `filtered` and refused with any other mode; a key sent twice counts
/// once, and more than [`HeavyConfig::max_filter_keys`] distinct keys are
/// refused. The other arguments keep
/// their order.
pub(crate) fn take_negotiation(
    args: &mut Map<String, Value>,
    config: &HeavyConfig,
    keeps: usize,
) -> Result<Negotiation, NegotiationError> {
    // Take all four before checking any, so a bad field never leaves the
    // others behind in the tool's arguments.
    let [mode, page, page_size, filter_keys] =
        REDEMPTION_FIELDS.map(|name| match args::take(args, name) {
            Some(Value::Null) | None => None,
            Some(value) => Some(value),
        });

    let mode = match mode {
        None => Mode::default(),
        Some(Value::String(name)) => name.parse()?,
        Some(other) => return Err(NegotiationError::UnknownMode { got: quote(&other) }),
    };
    let page = match page {
        None => 1,
        Some(value) => {
            positive_integer(&value).ok_or_else(|| NegotiationError::Page { got: quote(&value) })?
        }
    };
    let page_size = match page_size {
        None => None,
        Some(value) => Some(
            positive_integer(&value)
                .filter(|&size| size <= config.max_page_size)
                .ok_or_else(|| NegotiationError::PageSize {
                    got: quote(&value),
                    max: config.max_page_size,
                })?,
        ),
    };
    let filter_keys = match filter_keys {
        None => Vec::new(),
        Some(value) => {
            let keys = distinct_strings(&value)
                .ok_or_else(|| NegotiationError::FilterKeys { got: quote(&value) })?;
            // Counted before anything is copied: the count is all an error
            // about too many needs.
            if keys.len() > config.max_filter_keys {
                return Err(NegotiationError::TooManyFilterKeys {
                    count: keys.len(),
                    max: config.max_filter_keys,
                });
            }
            keys.into_iter().map(str::to_owned).collect()
        }
    };

    let negotiation = Negotiation {
        mode,
        page,
        page_size: page_size.unwrap_or(config.default_page_size),
        page_size_asked: page_size.is_some(),
        filter_keys,
        keeps,
    };
    negotiation.check(config)?;
    Ok(negotiation)
}

/// A JSON integer of at least 1. Integers too large for `usize` saturate:
/// such a page is past the end either way.
fn positive_integer(value: &Value) -> Option<usize> {
    let n = value.as_u64().filter(|&n| n >= 1)?;
    Some(usize::try_from(n).unwrap_or(usize::MAX))
}

/// A JSON array of strings, each kept once, in the order first sent.
fn distinct_strings(value: &Value) -> Option<Vec<&str>> {
    let keys = value.as_array()?;
    let mut seen = HashSet::with_capacity(keys.len().min(1_024));
    let mut distinct = Vec::new();
    for key in keys {
        let key = key.as_str()?;
        if seen.insert(key) {
            distinct.push(key);
        }
    }
    Some(distinct)
}

/// What the caller sent, for an error message: compact JSON, cut short so a
/// huge wrong value does not come back in the error.
fn quote(value: &Value) -> String {
    fit_or_empty(value, 60).to_string()
}

/// The JSON-schema properties `#[mcp_heavy]` merges into a tool's input
/// schema, keyed by [`NEGOTIATION_FIELDS`] in that order.
///
/// They carry types and bounds (the maximum page size from `config`) and
/// at most a few words of description: every token in `tools/list` is paid
/// by every caller, and the probe's `usage` sentence explains them to
/// the agents that actually get a probe.
pub(crate) fn negotiation_properties(config: &HeavyConfig) -> Map<String, Value> {
    let modes: Vec<&str> = Mode::ALL.iter().map(|mode| mode.as_str()).collect();
    let properties = json!({
        "continuation_token": {"type": "string", "description": token_description(config)},
        "mode": {"type": "string", "enum": modes},
        "page": {"type": "integer", "minimum": 1},
        "page_size": {"type": "integer", "minimum": 1, "maximum": config.max_page_size},
        "filter_keys": {
            "type": "array",
            "items": {"type": "string"},
            "description": "Fields kept by filtered.",
        },
    });
    match properties {
        Value::Object(map) => map,
        _ => unreachable!("json! of an object literal is an object"),
    }
}

/// The description of `continuation_token`: how long a token lives, so a
/// caller knows how long it has, or where one comes from when no store
/// keeps any.
fn token_description(config: &HeavyConfig) -> String {
    let Some(lifetime) = config.token_lifetime else {
        return "From an earlier answer.".to_owned();
    };
    let seconds = lifetime.as_secs();
    let lifetime = match seconds {
        0 => format!("{} ms", lifetime.as_millis()),
        s if s % 3600 == 0 => format!("{} h", s / 3600),
        s if s % 60 == 0 && s >= 120 => format!("{} min", s / 60),
        s => format!("{s} s"),
    };
    format!("Expires {lifetime} after issue.")
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::heavy::test_support::{asked, config, take};

    #[test]
    fn the_token_description_says_how_long_a_token_lives() {
        let described = |lifetime| {
            let config = HeavyConfig {
                token_lifetime: lifetime,
                ..config()
            };
            negotiation_properties(&config)["continuation_token"]["description"].clone()
        };
        assert_eq!(
            described(Some(Duration::from_secs(300))),
            "Expires 5 min after issue."
        );
        assert_eq!(
            described(Some(Duration::from_secs(90))),
            "Expires 90 s after issue."
        );
        assert_eq!(
            described(Some(Duration::from_secs(7200))),
            "Expires 2 h after issue."
        );
        assert_eq!(
            described(Some(Duration::from_millis(250))),
            "Expires 250 ms after issue."
        );
        assert_eq!(described(None), "From an earlier answer.");
        assert_eq!(
            HeavyConfig::default().token_lifetime,
            Some(Duration::from_secs(300)),
            "the default store's TTL"
        );
    }

    // --- negotiation_properties ---

    #[test]
    fn properties_are_the_five_fields_typed_and_bounded() {
        let properties = negotiation_properties(&HeavyConfig {
            max_page_size: 50,
            ..config()
        });
        assert_eq!(properties.keys().collect::<Vec<_>>(), NEGOTIATION_FIELDS);
        assert_eq!(properties["continuation_token"]["type"], "string");
        assert_eq!(
            properties["mode"]["enum"],
            json!(["summary", "paginated", "filtered", "full"])
        );
        assert_eq!(properties["page"], json!({"type": "integer", "minimum": 1}));
        assert_eq!(
            properties["page_size"],
            json!({"type": "integer", "minimum": 1, "maximum": 50})
        );
        assert_eq!(
            properties["filter_keys"]["items"],
            json!({"type": "string"})
        );
    }

    #[test]
    fn properties_carry_no_titles_and_only_a_few_words() {
        for (name, property) in negotiation_properties(&config()) {
            assert!(property.get("title").is_none(), "{name} has a title");
            if let Some(description) = property.get("description").and_then(Value::as_str) {
                assert!(
                    description.split_whitespace().count() <= 5,
                    "{name}: {description}"
                );
            }
        }
    }

    #[test]
    fn properties_publish_the_configured_maximum_page_size() {
        let properties = negotiation_properties(&HeavyConfig::default());
        assert_eq!(properties["page_size"]["maximum"], 200);
    }

    // --- take_negotiation ---

    #[test]
    fn defaults_are_paginated_page_1_of_as_many_as_fit() {
        let negotiation = take(json!({})).unwrap();
        assert_eq!(
            negotiation,
            Negotiation {
                page_size_asked: false,
                ..asked(Mode::Paginated, 1, 200)
            }
        );
        let custom = HeavyConfig {
            default_page_size: 7,
            ..config()
        };
        let negotiation = take_negotiation(&mut Map::new(), &custom, usize::MAX).unwrap();
        assert_eq!(negotiation.page_size, 7);
    }

    #[test]
    fn negotiation_fields_are_removed_but_the_token_and_tool_args_stay_in_order() {
        let mut args = json!({
            "site": "hq", "mode": "filtered", "continuation_token": "t", "page": 2,
            "page_size": 5, "filter_keys": ["id"], "limit": 3,
        });
        let negotiation =
            take_negotiation(args.as_object_mut().unwrap(), &config(), usize::MAX).unwrap();
        assert_eq!(
            negotiation,
            Negotiation {
                filter_keys: vec!["id".into()],
                ..asked(Mode::Filtered, 2, 5)
            }
        );
        assert_eq!(
            args,
            json!({"site": "hq", "continuation_token": "t", "limit": 3})
        );
        assert_eq!(
            args.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["site", "continuation_token", "limit"]
        );
    }

    #[test]
    fn null_fields_take_their_defaults() {
        let negotiation =
            take(json!({"mode": null, "page": null, "page_size": null, "filter_keys": null}))
                .unwrap();
        assert_eq!(
            negotiation,
            Negotiation {
                page_size_asked: false,
                ..asked(Mode::Paginated, 1, 200)
            }
        );
    }

    #[test]
    fn every_mode_parses_by_name() {
        for mode in Mode::ALL {
            assert_eq!(
                take(json!({"mode": mode.as_str(), "filter_keys": ["id"]}))
                    .map(|n| n.mode)
                    .ok(),
                {
                    // filter_keys is only accepted with filtered.
                    (mode == Mode::Filtered).then_some(mode)
                }
            );
            assert_eq!(take(json!({"mode": mode.as_str()})).map(|n| n.mode).ok(), {
                (mode != Mode::Filtered).then_some(mode)
            });
        }
    }

    #[test]
    fn unknown_mode_names_the_enum() {
        let err = take(json!({"mode": "pages"})).unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"mode must be one of summary, paginated, filtered, full; got "pages""#
        );
        assert_eq!(err.field(), "mode");
        let err = take(json!({"mode": 3})).unwrap_err();
        assert_eq!(
            err.to_string(),
            "mode must be one of summary, paginated, filtered, full; got 3"
        );
        // Case matters: the enum is what the schema publishes.
        assert!(take(json!({"mode": "Full"})).is_err());
    }

    #[test]
    fn page_must_be_a_positive_integer() {
        for (bad, shown) in [
            (json!("2"), r#""2""#),
            (json!(1.5), "1.5"),
            (json!(0), "0"),
            (json!(-1), "-1"),
        ] {
            let err = take(json!({"page": bad})).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!("page must be an integer of at least 1 (the first page is 1); got {shown}")
            );
            assert_eq!(err.field(), "page");
        }
        assert_eq!(take(json!({"page": 3})).unwrap().page, 3);
    }

    #[test]
    fn page_size_has_a_maximum_and_names_it() {
        assert_eq!(take(json!({"page_size": 200})).unwrap().page_size, 200);
        let err = take(json!({"page_size": 201})).unwrap_err();
        assert_eq!(
            err.to_string(),
            "page_size must be an integer from 1 to 200; got 201"
        );
        assert_eq!(err.field(), "page_size");
        assert!(take(json!({"page_size": 0})).is_err());
        assert!(take(json!({"page_size": "10"})).is_err());
        let small = HeavyConfig {
            max_page_size: 10,
            ..config()
        };
        let err = take_negotiation(
            json!({"page_size": 11}).as_object_mut().unwrap(),
            &small,
            usize::MAX,
        )
        .unwrap_err();
        assert!(err.to_string().contains("from 1 to 10"), "{err}");
    }

    #[test]
    fn filter_keys_must_be_strings() {
        let err = take(json!({"mode": "filtered", "filter_keys": "id"})).unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"filter_keys must be a list of field names (strings); got "id""#
        );
        assert!(take(json!({"mode": "filtered", "filter_keys": ["id", 2]})).is_err());
    }

    #[test]
    fn filtered_without_keys_says_they_are_required() {
        for args in [
            json!({"mode": "filtered"}),
            json!({"mode": "filtered", "filter_keys": []}),
        ] {
            let err = take(args).unwrap_err();
            assert!(
                err.to_string()
                    .starts_with("filter_keys is required with mode filtered"),
                "{err}"
            );
            assert_eq!(err.field(), "filter_keys");
        }
    }

    #[test]
    fn filter_keys_without_filtered_is_refused() {
        let err = take(json!({"filter_keys": ["id"]})).unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"filter_keys applies only with mode filtered, not paginated; add "mode": "filtered" or drop filter_keys"#
        );
        // An empty list asks for nothing and is harmless.
        assert!(take(json!({"filter_keys": []})).is_ok());
    }

    #[test]
    fn filter_keys_are_deduplicated_before_they_are_counted() {
        let keys: Vec<&str> = std::iter::repeat_n("id", 5_000).chain(["name"]).collect();
        let negotiation = take(json!({"mode": "filtered", "filter_keys": keys})).unwrap();
        assert_eq!(negotiation.filter_keys, ["id", "name"]);
    }

    #[test]
    fn too_many_filter_keys_are_refused_with_the_count_not_the_keys() {
        let keys: Vec<String> = (0..100_000).map(|i| format!("unknown-{i}")).collect();
        let Err(err) = take(json!({"mode": "filtered", "filter_keys": keys})) else {
            panic!("100,000 filter keys were accepted");
        };
        let err = err.to_string();
        assert!(err.contains("100000"), "{err}");
        assert!(err.contains("filter_keys"), "{err}");
        assert!(err.len() < 300, "the error stays short: {err}");
    }

    #[test]
    fn a_huge_wrong_value_is_shortened_in_the_error() {
        let err = take(json!({"page": "x".repeat(5000)})).unwrap_err();
        assert!(err.to_string().len() < 200, "{err}");
    }

    #[test]
    fn a_first_call_with_a_negotiation_field_is_told_it_applies_to_a_redemption() {
        let mut args = json!({"site": "hq", "mode": "full", "page": null});
        let args = args.as_object_mut().unwrap();
        let err = refuse_negotiation(args).unwrap_err();
        assert_eq!(
            err.to_string(),
            "`mode` applies to redeeming a continuation token, and this call sends none: call \
             without it first, then send it with the `continuation_token` its answer carries"
        );
        assert_eq!(err.field(), "mode");
        assert_eq!(args.keys().collect::<Vec<_>>(), ["site"]);

        let mut args = json!({"page_size": 5, "mode": "summary", "page": 2});
        let err = refuse_negotiation(args.as_object_mut().unwrap()).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("`mode`, `page` and `page_size` apply to redeeming"),
            "{err}"
        );

        let mut args = json!({"site": "hq", "mode": null, "filter_keys": null});
        refuse_negotiation(args.as_object_mut().unwrap()).unwrap();
        assert_eq!(args, json!({"site": "hq"}));
    }

    #[test]
    fn a_bad_mode_is_explained_and_a_good_negotiation_leaves_only_the_token() {
        let mut args = serde_json::json!({"continuation_token": "t", "mode": "pages"});
        let args = args.as_object_mut().unwrap();
        let err = take_negotiation(args, &HeavyConfig::default(), usize::MAX).unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"mode must be one of summary, paginated, filtered, full; got "pages""#
        );

        let mut args = serde_json::json!({"continuation_token": "t", "page": 2});
        let args = args.as_object_mut().unwrap();
        let negotiation = take_negotiation(args, &HeavyConfig::default(), usize::MAX).unwrap();
        assert_eq!(
            (negotiation.mode, negotiation.page, negotiation.page_size),
            (Mode::Paginated, 2, 200)
        );
        assert_eq!(args.keys().collect::<Vec<_>>(), ["continuation_token"]);
    }
}
