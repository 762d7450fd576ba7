//! Heavy-read negotiation (C16, C17, C26): the probe a first call answers and
//! the modes a continuation is served in.
//!
//! Everything here is a pure function on [`serde_json::Value`]. Storing the
//! result, minting the token and checking the owner are the caller's work;
//! this module decides what the agent reads.
//!
//! * [`negotiation_properties`] is what `#[mcp_heavy]` merges into a tool's
//!   input schema: five properties and almost no prose, because every caller
//!   pays for `tools/list` (C26). The instructions travel in the probe's
//!   `usage` sentence instead, on the calls that need them.
//! * [`probe`] answers the first call: a short preview, the size, the modes
//!   that make sense for this value, the token and one `usage` sentence.
//! * [`take_negotiation`] lifts `mode`, `page`, `page_size` and `filter_keys`
//!   out of a redeeming call's arguments and checks them.
//! * [`serve`] turns the stored value into what the negotiation asks for.
//!
//! # Paging
//!
//! A value is *pageable* when it is a list, or an object with exactly one
//! list field (a "wrapper" such as `{"count": 93, "results": [...]}`), and it
//! was not produced by a single write ([`Origin::SingleWrite`]: one device
//! with a `tags` list is one object, not a page of tags). A page is
//! `{items, page, page_size, total, has_more}`; a wrapper keeps its other
//! fields, in their order, before those five (or, when one of them is named
//! like a page field, the page object sits under the list's own key, so
//! nothing is overwritten). A page past the end is empty
//! with `has_more: false` rather than an error: `total` and `page_size` are
//! beside it, so the agent can see where the end was, and an empty list's
//! page 1 needs no special case.

use std::fmt;
use std::io;
use std::str::FromStr;

use serde_json::{Map, Value, json};

use crate::store::Origin;
use crate::token::Token;

/// The names of the fields `#[mcp_heavy]` adds to a schema, in the order
/// [`negotiation_properties`] publishes them.
pub const NEGOTIATION_FIELDS: [&str; 5] = [
    "continuation_token",
    "mode",
    "page",
    "page_size",
    "filter_keys",
];

/// The fields of a page, in the order [`serve`] writes them.
const PAGE_FIELDS: [&str; 5] = ["items", "page", "page_size", "total", "has_more"];

/// How many leading items (or entries) a summary shows.
const SUMMARY_ITEMS: usize = 3;

/// Strings in a summary longer than this many characters are shortened.
const SUMMARY_STRING_CHARS: usize = 80;

/// How many keys of an object a summary names.
const SUMMARY_KEYS: usize = 50;

/// Marks a shortened string in a preview or a summary.
const ELLIPSIS: char = '…';

/// How a stored result is served.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// The shape of the result: its type, its size or keys, and the first
    /// few items with long values shortened.
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

/// Limits of the negotiation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeavyConfig {
    /// Page size when the caller gives none (20).
    pub default_page_size: usize,
    /// The largest page a caller may ask for (200); a larger `page_size` is
    /// an error, not silently clamped, so the agent never believes it got
    /// more than it did.
    pub max_page_size: usize,
    /// Results larger than this many bytes are answered with a probe where
    /// the schema discloses continuation (C18); `None` switches the backstop
    /// off. Default 25,000.
    pub size_backstop: Option<usize>,
    /// The longest a probe's `preview` may be, in characters of compact JSON
    /// (200).
    pub preview_chars: usize,
}

impl HeavyConfig {
    /// Whether a result of `size` bytes is over the size backstop (C18).
    pub fn over_backstop(&self, size: usize) -> bool {
        self.size_backstop.is_some_and(|limit| size > limit)
    }
}

impl Default for HeavyConfig {
    fn default() -> Self {
        HeavyConfig {
            default_page_size: 20,
            max_page_size: 200,
            size_backstop: Some(25_000),
            preview_chars: 200,
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
    /// Items per page, from 1 to [`HeavyConfig::max_page_size`].
    pub page_size: usize,
    /// Fields kept by [`Mode::Filtered`]; empty for every other mode.
    pub filter_keys: Vec<String>,
}

impl Negotiation {
    /// `mode` with every other field at its default: page 1 of
    /// `config.default_page_size` items, no filter keys.
    pub fn with_mode(mode: Mode, config: &HeavyConfig) -> Negotiation {
        Negotiation {
            mode,
            page: 1,
            page_size: config.default_page_size,
            filter_keys: Vec::new(),
        }
    }

    /// Checks the bounds [`take_negotiation`] enforces, for a negotiation
    /// built by hand; [`serve`] calls it first.
    pub fn check(&self, config: &HeavyConfig) -> Result<(), NegotiationError> {
        if self.page == 0 {
            return Err(NegotiationError::Page { got: "0".into() });
        }
        if self.page_size == 0 || self.page_size > config.max_page_size {
            return Err(NegotiationError::PageSize {
                got: self.page_size.to_string(),
                max: config.max_page_size,
            });
        }
        match (self.mode, self.filter_keys.is_empty()) {
            (Mode::Filtered, true) => Err(NegotiationError::FilterKeysRequired),
            (Mode::Filtered, false) | (_, true) => Ok(()),
            (mode, false) => Err(NegotiationError::FilterKeysWithoutFiltered { mode }),
        }
    }
}

/// A negotiation field the caller got wrong, or a mode that does not apply
/// to the stored value. Each message is a sentence naming the field and
/// what is allowed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum NegotiationError {
    /// `mode` is not one of the four.
    #[error("mode must be one of summary, paginated, filtered, full; got {got}")]
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
    /// None of `filter_keys` is a field of the stored value.
    #[error("filter_keys {keys} matched no field of the result; its fields include {fields}")]
    NoFieldMatched {
        /// The keys that were asked for, as compact JSON.
        keys: String,
        /// Some of the fields there are, comma-separated.
        fields: String,
    },
}

impl NegotiationError {
    /// The argument the error is about (`mode`, `page`, `page_size` or
    /// `filter_keys`), for callers that point at it.
    pub fn field(&self) -> &'static str {
        match self {
            NegotiationError::UnknownMode { .. } | NegotiationError::NotFilterable { .. } => "mode",
            NegotiationError::Page { .. } => "page",
            NegotiationError::PageSize { .. } => "page_size",
            NegotiationError::FilterKeys { .. }
            | NegotiationError::FilterKeysRequired
            | NegotiationError::FilterKeysWithoutFiltered { .. }
            | NegotiationError::NoFieldMatched { .. } => "filter_keys",
        }
    }
}

/// Removes the negotiation fields (all but `continuation_token`, which the
/// caller reads to find the stored entry) from `args` and checks them.
///
/// A field that is absent or `null` takes its default: `mode` `paginated`,
/// `page` 1, `page_size` [`HeavyConfig::default_page_size`], `filter_keys`
/// empty. `page` and `page_size` must be JSON integers (`"2"` and `1.5` are
/// refused, not coerced); `page_size` over [`HeavyConfig::max_page_size`]
/// is an error rather than a silent clamp. `filter_keys` is required with
/// `filtered` and refused with any other mode. The other arguments keep
/// their order.
///
/// ```
/// use mcp_light::heavy::{HeavyConfig, Mode, take_negotiation};
///
/// let mut args = serde_json::json!({"continuation_token": "t", "mode": "pages"});
/// let args = args.as_object_mut().unwrap();
/// let err = take_negotiation(args, &HeavyConfig::default()).unwrap_err();
/// assert_eq!(
///     err.to_string(),
///     r#"mode must be one of summary, paginated, filtered, full; got "pages""#
/// );
///
/// let mut args = serde_json::json!({"continuation_token": "t", "page": 2});
/// let args = args.as_object_mut().unwrap();
/// let negotiation = take_negotiation(args, &HeavyConfig::default()).unwrap();
/// assert_eq!((negotiation.mode, negotiation.page, negotiation.page_size), (Mode::Paginated, 2, 20));
/// assert_eq!(args.keys().collect::<Vec<_>>(), ["continuation_token"]);
/// ```
pub fn take_negotiation(
    args: &mut Map<String, Value>,
    config: &HeavyConfig,
) -> Result<Negotiation, NegotiationError> {
    // Take all four before checking any, so a bad field never leaves the
    // others behind in the tool's arguments.
    let [mode, page, page_size, filter_keys] =
        ["mode", "page", "page_size", "filter_keys"].map(|name| match args.shift_remove(name) {
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
        None => config.default_page_size,
        Some(value) => positive_integer(&value)
            .filter(|&size| size <= config.max_page_size)
            .ok_or_else(|| NegotiationError::PageSize {
                got: quote(&value),
                max: config.max_page_size,
            })?,
    };
    let filter_keys = match filter_keys {
        None => Vec::new(),
        Some(value) => string_list(&value)
            .ok_or_else(|| NegotiationError::FilterKeys { got: quote(&value) })?,
    };

    let negotiation = Negotiation {
        mode,
        page,
        page_size,
        filter_keys,
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

/// A JSON array of strings.
fn string_list(value: &Value) -> Option<Vec<String>> {
    value
        .as_array()?
        .iter()
        .map(|key| key.as_str().map(str::to_owned))
        .collect()
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
/// by every caller (C26), and the probe's `usage` sentence explains them to
/// the agents that actually get a probe.
///
/// ```
/// use mcp_light::heavy::{HeavyConfig, negotiation_properties};
///
/// let properties = negotiation_properties(&HeavyConfig::default());
/// assert_eq!(properties["page_size"]["maximum"], 200);
/// ```
pub fn negotiation_properties(config: &HeavyConfig) -> Map<String, Value> {
    let modes: Vec<&str> = Mode::ALL.iter().map(|mode| mode.as_str()).collect();
    let properties = json!({
        "continuation_token": {"type": "string", "description": "From an earlier answer."},
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

/// The probe a first call to a heavy tool answers instead of the result:
/// `{preview, total_size, available_modes, continuation_token, usage}`, in
/// that order.
///
/// * `preview` is the value cut short, as real JSON (not a string holding
///   it), at most [`HeavyConfig::preview_chars`] characters when written as
///   compact JSON. Containers keep as many leading items (list) or entries
///   (object) as fit whole; only when not even the first fits is that one
///   shortened the same way, down to its first keys or a string prefix
///   ending in `…`. Values are never converted to strings.
/// * `total_size` is passed through: the stored result's size in bytes.
/// * `available_modes` lists the modes that do something useful with this
///   value: `paginated` only for pageable values, `filtered` only for
///   objects and lists holding objects.
/// * `usage` is two sentences naming `tool`, where `continuation_token` and
///   `mode` go, and what omitting `mode` returns.
///
/// The probe stands for a read ([`Origin::Read`]); writes answer envelopes.
///
/// ```
/// use mcp_light::heavy::{HeavyConfig, probe};
/// use mcp_light::token::Token;
///
/// let devices: Vec<_> = (1..=500).map(|id| serde_json::json!({"id": id, "name": format!("edge-{id}")})).collect();
/// let value = serde_json::Value::from(devices);
/// let token = Token::mint().unwrap();
/// let probe = probe("device_list", &value, 12_345, &token, &HeavyConfig::default());
///
/// assert_eq!(
///     probe.keys().collect::<Vec<_>>(),
///     ["preview", "total_size", "available_modes", "continuation_token", "usage"]
/// );
/// assert!(probe["preview"].to_string().starts_with(r#"[{"id":1,"name":"edge-1"},"#));
/// assert!(probe["preview"].to_string().chars().count() <= 200);
/// assert_eq!(probe["available_modes"], serde_json::json!(["summary", "paginated", "filtered", "full"]));
/// assert!(probe["usage"].as_str().unwrap().contains("device_list"));
/// ```
pub fn probe(
    tool: &str,
    value: &Value,
    total_size: usize,
    token: &Token,
    config: &HeavyConfig,
) -> Map<String, Value> {
    let modes = available_modes(value);
    let mut probe = Map::new();
    probe.insert("preview".into(), fit_or_empty(value, config.preview_chars));
    probe.insert("total_size".into(), total_size.into());
    probe.insert(
        "available_modes".into(),
        modes.iter().map(|mode| mode.as_str()).collect(),
    );
    probe.insert("continuation_token".into(), token.as_str().into());
    probe.insert("usage".into(), usage(tool, value, &modes, config).into());
    probe
}

/// The modes worth offering for `value`, in [`Mode::ALL`] order.
fn available_modes(value: &Value) -> Vec<Mode> {
    let pageable = !matches!(layout(value, Origin::Read), Layout::Whole);
    let filterable = match value {
        Value::Object(_) => true,
        Value::Array(items) => items.iter().any(Value::is_object),
        _ => false,
    };
    Mode::ALL
        .into_iter()
        .filter(|mode| match mode {
            Mode::Summary | Mode::Full => true,
            Mode::Paginated => pageable,
            Mode::Filtered => filterable,
        })
        .collect()
}

/// The probe's instructions: what is stored, how to redeem it, and what the
/// default returns for this value.
fn usage(tool: &str, value: &Value, modes: &[Mode], config: &HeavyConfig) -> String {
    let what = match (value, layout(value, Origin::Read)) {
        (Value::Array(items), _) => format!("a list of {} items", items.len()),
        (Value::Object(map), Layout::Wrapper(key)) => {
            let count = map.get(&key).and_then(Value::as_array).map_or(0, Vec::len);
            format!("an object whose \"{key}\" lists {count} items")
        }
        (other, _) => kind(other).to_owned(),
    };
    let default = if modes.contains(&Mode::Paginated) {
        format!(
            "without mode you get page 1 of up to {} items, and page and page_size pick others",
            config.default_page_size
        )
    } else {
        "without mode you get the whole result".to_owned()
    };
    let filter = if modes.contains(&Mode::Filtered) {
        ", plus filter_keys for filtered"
    } else {
        ""
    };
    format!(
        "Stored: {what}. Call {tool} again with continuation_token at the top \
         level and mode (one of available_modes) beside it{filter}; {default}."
    )
}

/// Serves a stored result as `negotiation` asks.
///
/// * [`Mode::Paginated`]: a pageable value becomes
///   `{items, page, page_size, total, has_more}`. A wrapper object (exactly
///   one list field) keeps its other fields, in order, before those five;
///   if one of them is itself named like a page field, the page object
///   takes the list's place under the list's key instead, so nothing is
///   overwritten. Anything else, and everything from
///   [`Origin::SingleWrite`], is returned whole.
/// * [`Mode::Summary`]: `{type, count, ...}` — a list's item count and first
///   three items; an object's key count, up to 50 keys each with the shape
///   of its value (`"list(93)"`, `"object(4)"`, `"string"`, ...), and for a
///   wrapper the name of the paged list and its first three items; a
///   scalar's value. Strings over 80 characters are cut with `…`, nested
///   lists over three items keep three and a `"… N more"` marker.
/// * [`Mode::Filtered`]: the records — the items of a pageable list, else
///   the object itself — keep only `filter_keys`, in their own order. Items
///   that are not objects are kept as they are, so positions and `total`
///   match `paginated`. A list is paged exactly like `paginated`, because
///   filtering narrows rows but does not shorten the list: 10,000 rows of
///   two fields are still too many to return at once. A wrapper's other
///   fields are kept unfiltered. Keys that match no field anywhere are an
///   error naming the fields there are.
/// * [`Mode::Full`]: `value` unchanged.
///
/// The negotiation is checked first ([`Negotiation::check`]), so one built
/// by hand gets the same errors as one from [`take_negotiation`].
///
/// ```
/// use mcp_light::heavy::{HeavyConfig, Mode, Negotiation, serve};
/// use mcp_light::store::Origin;
/// use serde_json::json;
///
/// let config = HeavyConfig::default();
/// let value = json!({"site": "hq", "devices": (1..=45).map(|id| json!({"id": id})).collect::<Vec<_>>()});
///
/// let mut negotiation = Negotiation::with_mode(Mode::Paginated, &config);
/// negotiation.page = 3;
/// let page = serve(value.clone(), Origin::Read, &negotiation, &config).unwrap();
/// assert_eq!(
///     page.to_string(),
///     r#"{"site":"hq","items":[{"id":41},{"id":42},{"id":43},{"id":44},{"id":45}],"page":3,"page_size":20,"total":45,"has_more":false}"#
/// );
///
/// // One written object is never paged, whatever lists it holds.
/// let whole = serve(value.clone(), Origin::SingleWrite, &negotiation, &config).unwrap();
/// assert_eq!(whole, value);
/// ```
pub fn serve(
    value: Value,
    origin: Origin,
    negotiation: &Negotiation,
    config: &HeavyConfig,
) -> Result<Value, NegotiationError> {
    negotiation.check(config)?;
    match negotiation.mode {
        Mode::Full => Ok(value),
        Mode::Summary => Ok(summarize(&value, origin)),
        Mode::Paginated => {
            let layout = layout(&value, origin);
            Ok(paginate(value, layout, negotiation, None))
        }
        Mode::Filtered => filter(value, origin, negotiation),
    }
}

/// How `paginated` and `filtered` treat a value.
#[derive(Debug, PartialEq, Eq)]
enum Layout {
    /// A list: paged.
    List,
    /// An object with exactly one list field, named here: that list is paged.
    Wrapper(String),
    /// Anything else: served whole.
    Whole,
}

/// The layout of `value`; a single write is always whole.
fn layout(value: &Value, origin: Origin) -> Layout {
    if origin == Origin::SingleWrite {
        return Layout::Whole;
    }
    match value {
        Value::Array(_) => Layout::List,
        Value::Object(map) => {
            let mut lists = map.iter().filter(|(_, field)| field.is_array());
            match (lists.next(), lists.next()) {
                (Some((key, _)), None) => Layout::Wrapper(key.clone()),
                _ => Layout::Whole,
            }
        }
        _ => Layout::Whole,
    }
}

/// Pages `value` according to `layout`; `keep` narrows the page's items
/// (or a whole object) to those fields.
fn paginate(
    value: Value,
    layout: Layout,
    negotiation: &Negotiation,
    keep: Option<&[String]>,
) -> Value {
    match (layout, value) {
        (Layout::List, Value::Array(items)) => Value::Object(page(items, negotiation, keep)),
        (Layout::Wrapper(key), Value::Object(map)) => {
            let collides = map
                .keys()
                .any(|field| *field != key && PAGE_FIELDS.contains(&field.as_str()));
            let mut out = Map::new();
            for (field, inner) in map {
                match inner {
                    // The page takes the list's place for now; moved below.
                    Value::Array(items) if field == key => {
                        out.insert(field, Value::Object(page(items, negotiation, keep)));
                    }
                    other => {
                        out.insert(field, other);
                    }
                }
            }
            // Flat after the siblings unless that would overwrite one of them.
            if !collides && let Some(Value::Object(fields)) = out.shift_remove(&key) {
                out.extend(fields);
            }
            Value::Object(out)
        }
        (_, Value::Object(map)) if keep.is_some() => Value::Object(narrow(map, keep)),
        (_, value) => value,
    }
}

/// One page of a stored result that is a list, parsing only the page's
/// items: the rest of the list is scanned, not built into values. `None`
/// when this shortcut does not apply (another mode, a single write, a body
/// that is not a list) and [`serve`] must have the parsed value.
///
/// ```
/// use mcp_light::heavy::{HeavyConfig, Mode, Negotiation, page_of_stored_list};
/// use mcp_light::store::Origin;
///
/// let config = HeavyConfig::default();
/// let second = Negotiation { page: 2, page_size: 2, ..Negotiation::with_mode(Mode::Paginated, &config) };
/// let page = page_of_stored_list(b"[1,2,3,4,5]", Origin::Read, &second, &config).unwrap().unwrap();
/// assert_eq!(page.to_string(), r#"{"items":[3,4],"page":2,"page_size":2,"total":5,"has_more":true}"#);
/// ```
pub fn page_of_stored_list(
    body: &[u8],
    origin: Origin,
    negotiation: &Negotiation,
    config: &HeavyConfig,
) -> Option<Result<Value, NegotiationError>> {
    let is_list = body.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[');
    if negotiation.mode != Mode::Paginated || origin == Origin::SingleWrite || !is_list {
        return None;
    }
    if let Err(error) = negotiation.check(config) {
        return Some(Err(error));
    }
    let raw: Vec<&serde_json::value::RawValue> = serde_json::from_slice(body).ok()?;
    let (start, end) = page_bounds(raw.len(), negotiation);
    let items = raw[start..end]
        .iter()
        .map(|item| serde_json::from_str(item.get()))
        .collect::<Result<Vec<Value>, _>>()
        .ok()?;
    Some(Ok(Value::Object(page_fields(
        items,
        raw.len(),
        negotiation,
    ))))
}

/// Where the page `negotiation` asks for starts and ends in a list of
/// `total` items; an absurd page number is simply past the end.
fn page_bounds(total: usize, negotiation: &Negotiation) -> (usize, usize) {
    let start = (negotiation.page - 1)
        .saturating_mul(negotiation.page_size)
        .min(total);
    (
        start,
        start.saturating_add(negotiation.page_size).min(total),
    )
}

/// `{items, page, page_size, total, has_more}` for a page of `items` out of
/// `total`.
fn page_fields(items: Vec<Value>, total: usize, negotiation: &Negotiation) -> Map<String, Value> {
    let (_, end) = page_bounds(total, negotiation);
    let mut fields = Map::new();
    fields.insert("items".into(), items.into());
    fields.insert("page".into(), negotiation.page.into());
    fields.insert("page_size".into(), negotiation.page_size.into());
    fields.insert("total".into(), total.into());
    fields.insert("has_more".into(), (end < total).into());
    fields
}

/// One page of `items` as `{items, page, page_size, total, has_more}`.
fn page(
    items: Vec<Value>,
    negotiation: &Negotiation,
    keep: Option<&[String]>,
) -> Map<String, Value> {
    let total = items.len();
    let (start, _) = page_bounds(total, negotiation);
    let taken: Vec<Value> = items
        .into_iter()
        .skip(start)
        .take(negotiation.page_size)
        .map(|item| match item {
            Value::Object(map) if keep.is_some() => Value::Object(narrow(map, keep)),
            other => other,
        })
        .collect();
    page_fields(taken, total, negotiation)
}

/// `map` with only the fields in `keep` (all of them when `keep` is `None`),
/// in the map's own order.
fn narrow(map: Map<String, Value>, keep: Option<&[String]>) -> Map<String, Value> {
    match keep {
        None => map,
        Some(keys) => map
            .into_iter()
            .filter(|(field, _)| keys.contains(field))
            .collect(),
    }
}

/// `filtered`: finds the records, checks that the keys match something, then
/// pages like `paginated` with the items narrowed.
fn filter(
    value: Value,
    origin: Origin,
    negotiation: &Negotiation,
) -> Result<Value, NegotiationError> {
    let keys = negotiation.filter_keys.as_slice();
    let mut layout = layout(&value, origin);
    // A wrapper whose list holds no objects has nothing to filter inside it,
    // so its own fields are the record (e.g. `{"count": 3, "names": [...]}`).
    if let (Layout::Wrapper(key), Value::Object(map)) = (&layout, &value)
        && !map[key]
            .as_array()
            .is_some_and(|items| items.iter().any(Value::is_object))
    {
        layout = Layout::Whole;
    }
    let records: Vec<&Map<String, Value>> = match (&layout, &value) {
        (Layout::List, Value::Array(items)) => items.iter().filter_map(Value::as_object).collect(),
        (Layout::Wrapper(key), Value::Object(map)) => map[key]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_object)
            .collect(),
        (_, Value::Object(map)) => vec![map],
        (_, other) => {
            return Err(NegotiationError::NotFilterable {
                kind: kind(other).into(),
            });
        }
    };
    if let Value::Array(items) = &value
        && records.is_empty()
        && !items.is_empty()
    {
        return Err(NegotiationError::NotFilterable {
            kind: "a list without objects".into(),
        });
    }
    let matched = records
        .iter()
        .any(|record| keys.iter().any(|key| record.contains_key(key)));
    if let (false, Some(first)) = (matched, records.first()) {
        let fields: Vec<&str> = first.keys().take(10).map(String::as_str).collect();
        return Err(NegotiationError::NoFieldMatched {
            keys: Value::from(keys).to_string(),
            fields: fields.join(", "),
        });
    }
    Ok(paginate(value, layout, negotiation, Some(keys)))
}

/// `summary`: the type, the count, the keys or the first few items.
fn summarize(value: &Value, origin: Origin) -> Value {
    match value {
        Value::Array(items) => json!({
            "type": "list",
            "count": items.len(),
            "first": items.iter().take(SUMMARY_ITEMS).map(shorten).collect::<Vec<_>>(),
        }),
        Value::Object(map) => {
            let keys: Map<String, Value> = map
                .iter()
                .take(SUMMARY_KEYS)
                .map(|(key, field)| (key.clone(), shape(field).into()))
                .collect();
            let mut summary = Map::new();
            summary.insert("type".into(), "object".into());
            summary.insert("count".into(), map.len().into());
            summary.insert("keys".into(), keys.into());
            if let Layout::Wrapper(key) = layout(value, origin) {
                let first: Vec<Value> = map[&key]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .take(SUMMARY_ITEMS)
                    .map(shorten)
                    .collect();
                summary.insert("paged".into(), key.into());
                summary.insert("first".into(), first.into());
            }
            Value::Object(summary)
        }
        Value::String(text) => json!({
            "type": "string",
            "length": text.chars().count(),
            "value": shorten(value),
        }),
        scalar => json!({"type": shape(scalar), "value": scalar}),
    }
}

/// The shape of a value in a word: `"list(93)"`, `"object(4)"`, `"string"`.
fn shape(value: &Value) -> String {
    match value {
        Value::Array(items) => format!("list({})", items.len()),
        Value::Object(map) => format!("object({})", map.len()),
        Value::String(_) => "string".into(),
        Value::Number(_) => "number".into(),
        Value::Bool(_) => "bool".into(),
        Value::Null => "null".into(),
    }
}

/// The value as a summary shows it: long strings cut, long lists cut to a
/// few items and a marker saying how many were left out.
fn shorten(value: &Value) -> Value {
    match value {
        Value::String(text) if text.chars().count() > SUMMARY_STRING_CHARS => {
            let mut cut: String = text.chars().take(SUMMARY_STRING_CHARS).collect();
            cut.push(ELLIPSIS);
            cut.into()
        }
        Value::Array(items) => {
            let mut kept: Vec<Value> = items.iter().take(SUMMARY_ITEMS).map(shorten).collect();
            if items.len() > SUMMARY_ITEMS {
                kept.push(format!("{ELLIPSIS} {} more", items.len() - SUMMARY_ITEMS).into());
            }
            kept.into()
        }
        Value::Object(map) => map
            .iter()
            .map(|(key, field)| (key.clone(), shorten(field)))
            .collect(),
        other => other.clone(),
    }
}

/// What a value is, with its article, for messages.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
        Value::String(_) => "a string",
        Value::Number(_) => "a number",
        Value::Bool(_) => "a boolean",
        Value::Null => "null",
    }
}

/// [`fit`], or an empty value of the same kind when not even a shortened
/// first item fits (a key longer than the budget, say): still valid JSON,
/// still within the budget.
fn fit_or_empty(value: &Value, budget: usize) -> Value {
    fit(value, budget).unwrap_or_else(|| match value {
        Value::Array(_) => json!([]),
        Value::Object(_) => json!({}),
        _ => Value::Null,
    })
}

/// `value` cut short to at most `budget` characters of compact JSON, or
/// `None` when nothing of it fits.
///
/// A value that fits is kept whole. Otherwise a list keeps its leading items
/// and an object its leading entries, as many as fit whole; the first one
/// that does not fit is cut down (recursively) to the room left when it is
/// the very first, so an item with a 5 KB description still shows its first
/// keys, or when it is a string, whose `…` shows the cut. Later containers
/// are not cut: their missing parts would not show. A string is cut to a
/// prefix ending in `…`. Numbers, booleans and null are never cut.
fn fit(value: &Value, budget: usize) -> Option<Value> {
    if json_chars_within(value, budget).is_some() {
        return Some(value.clone());
    }
    // Both kinds of container cost two characters for their brackets and one
    // per comma.
    let inner = budget.checked_sub(2)?;
    match value {
        Value::String(text) => cut_string(text, budget).map(Value::String),
        Value::Array(items) => {
            let mut kept = Vec::new();
            let mut used = 0;
            for item in items {
                let comma = usize::from(!kept.is_empty());
                let Some(room) = inner.checked_sub(used + comma) else {
                    break;
                };
                if let Some(len) = json_chars_within(item, room) {
                    used += comma + len;
                    kept.push(item.clone());
                    continue;
                }
                if let Some(cut) = fit_tail(item, room, kept.is_empty()) {
                    kept.push(cut);
                }
                break;
            }
            (!kept.is_empty()).then_some(Value::Array(kept))
        }
        Value::Object(map) => {
            let mut kept = Map::new();
            let mut used = 0;
            for (key, field) in map {
                let comma = usize::from(!kept.is_empty());
                // `"key":` before the value.
                let label = json_string_chars(key) + 1;
                let Some(room) = inner.checked_sub(used + comma + label) else {
                    break;
                };
                if let Some(len) = json_chars_within(field, room) {
                    used += comma + label + len;
                    kept.insert(key.clone(), field.clone());
                    continue;
                }
                if let Some(cut) = fit_tail(field, room, kept.is_empty()) {
                    kept.insert(key.clone(), cut);
                }
                break;
            }
            (!kept.is_empty()).then_some(Value::Object(kept))
        }
        _ => None,
    }
}

/// The first child of a container that did not fit whole, cut to `room`
/// when that is honest (see [`fit`]).
fn fit_tail(child: &Value, room: usize, first: bool) -> Option<Value> {
    if first || child.is_string() {
        fit(child, room)
    } else {
        None
    }
}

/// The longest prefix of `text` that, with `…` added, is at most `budget`
/// characters as a JSON string; `None` when not even one character fits.
fn cut_string(text: &str, budget: usize) -> Option<String> {
    // Two quotes and the ellipsis.
    let mut room = budget.checked_sub(3)?;
    let mut end = 0;
    for (at, c) in text.char_indices() {
        let width = escaped_chars(c);
        if width > room {
            break;
        }
        room -= width;
        end = at + c.len_utf8();
    }
    (end > 0).then(|| format!("{}{ELLIPSIS}", &text[..end]))
}

/// How many characters `c` takes inside a JSON string as serde_json writes it.
fn escaped_chars(c: char) -> usize {
    match c {
        '"' | '\\' | '\u{8}' | '\u{c}' | '\n' | '\r' | '\t' => 2,
        c if c < ' ' => 6,
        _ => 1,
    }
}

/// The length of `text` written as a JSON string, quotes included.
fn json_string_chars(text: &str) -> usize {
    2 + text.chars().map(escaped_chars).sum::<usize>()
}

/// The length of `value` as compact JSON, in characters, or `None` when it
/// is longer than `cap`. Stops writing as soon as the cap is passed, so
/// measuring the first item of a 10 MB list costs at most `cap` characters.
fn json_chars_within(value: &Value, cap: usize) -> Option<usize> {
    struct Counter {
        chars: usize,
        cap: usize,
    }
    impl io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            // Count characters, not bytes: skip UTF-8 continuation bytes.
            self.chars += buf.iter().filter(|&&byte| byte & 0xC0 != 0x80).count();
            if self.chars > self.cap {
                Err(io::Error::other("over the cap"))
            } else {
                Ok(buf.len())
            }
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter { chars: 0, cap };
    serde_json::to_writer(&mut counter, value).ok()?;
    Some(counter.chars)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> HeavyConfig {
        HeavyConfig::default()
    }

    fn rows(n: usize) -> Value {
        (1..=n)
            .map(|id| json!({"id": id, "name": format!("edge-{id}"), "site": "hq"}))
            .collect()
    }

    fn ids(page: &Value) -> Vec<u64> {
        page["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|item| item["id"].as_u64().unwrap())
            .collect()
    }

    fn asked(mode: Mode, page: usize, page_size: usize) -> Negotiation {
        Negotiation {
            mode,
            page,
            page_size,
            filter_keys: Vec::new(),
        }
    }

    fn filtered(keys: &[&str], page: usize) -> Negotiation {
        Negotiation {
            mode: Mode::Filtered,
            page,
            page_size: 20,
            filter_keys: keys.iter().map(|key| key.to_string()).collect(),
        }
    }

    fn take(args: Value) -> Result<Negotiation, NegotiationError> {
        let Value::Object(mut args) = args else {
            panic!("args must be an object")
        };
        take_negotiation(&mut args, &config())
    }

    fn token() -> Token {
        Token::mint().unwrap()
    }

    /// The preview as the agent reads it: compact JSON text.
    fn preview_text(value: &Value) -> String {
        let probe = probe("device_list", value, 0, &token(), &config());
        probe["preview"].to_string()
    }

    fn assert_preview_ok(value: &Value) -> String {
        let text = preview_text(value);
        assert!(
            text.chars().count() <= 200,
            "{} chars: {text}",
            text.chars().count()
        );
        let reparsed: Value = serde_json::from_str(&text).expect("preview is valid JSON");
        assert_eq!(reparsed.to_string(), text);
        text
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

    // --- take_negotiation ---

    #[test]
    fn defaults_are_paginated_page_1_of_20() {
        let negotiation = take(json!({})).unwrap();
        assert_eq!(negotiation, asked(Mode::Paginated, 1, 20));
        let custom = HeavyConfig {
            default_page_size: 7,
            ..config()
        };
        let negotiation = take_negotiation(&mut Map::new(), &custom).unwrap();
        assert_eq!(negotiation.page_size, 7);
    }

    #[test]
    fn negotiation_fields_are_removed_but_the_token_and_tool_args_stay_in_order() {
        let mut args = json!({
            "site": "hq", "mode": "filtered", "continuation_token": "t", "page": 2,
            "page_size": 5, "filter_keys": ["id"], "limit": 3,
        });
        let negotiation = take_negotiation(args.as_object_mut().unwrap(), &config()).unwrap();
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
        assert_eq!(negotiation, asked(Mode::Paginated, 1, 20));
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
        let err = take_negotiation(json!({"page_size": 11}).as_object_mut().unwrap(), &small)
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
    fn a_huge_wrong_value_is_shortened_in_the_error() {
        let err = take(json!({"page": "x".repeat(5000)})).unwrap_err();
        assert!(err.to_string().len() < 200, "{err}");
    }

    // --- paginated ---

    #[test]
    fn list_page_1_middle_last_and_past_end() {
        let value = rows(45);
        let first = serve(
            value.clone(),
            Origin::Read,
            &asked(Mode::Paginated, 1, 20),
            &config(),
        )
        .unwrap();
        assert_eq!(
            first.as_object().unwrap().keys().collect::<Vec<_>>(),
            PAGE_FIELDS
        );
        assert_eq!(ids(&first), (1..=20).collect::<Vec<_>>());
        assert_eq!(
            (&first["page"], &first["page_size"], &first["total"]),
            (&json!(1), &json!(20), &json!(45))
        );
        assert_eq!(first["has_more"], true);

        let middle = serve(
            value.clone(),
            Origin::Read,
            &asked(Mode::Paginated, 2, 20),
            &config(),
        )
        .unwrap();
        assert_eq!(ids(&middle), (21..=40).collect::<Vec<_>>());
        assert_eq!(middle["has_more"], true);

        let last = serve(
            value.clone(),
            Origin::Read,
            &asked(Mode::Paginated, 3, 20),
            &config(),
        )
        .unwrap();
        assert_eq!(ids(&last), (41..=45).collect::<Vec<_>>());
        assert_eq!(last["has_more"], false);

        let past = serve(
            value,
            Origin::Read,
            &asked(Mode::Paginated, 4, 20),
            &config(),
        )
        .unwrap();
        assert_eq!(
            past,
            json!({"items": [], "page": 4, "page_size": 20, "total": 45, "has_more": false})
        );
    }

    #[test]
    fn an_exactly_full_last_page_has_no_more() {
        let page = serve(
            rows(40),
            Origin::Read,
            &asked(Mode::Paginated, 2, 20),
            &config(),
        )
        .unwrap();
        assert_eq!(ids(&page).len(), 20);
        assert_eq!(page["has_more"], false);
    }

    #[test]
    fn an_empty_list_has_an_empty_first_page() {
        let page = serve(
            json!([]),
            Origin::Read,
            &asked(Mode::Paginated, 1, 20),
            &config(),
        )
        .unwrap();
        assert_eq!(
            page,
            json!({"items": [], "page": 1, "page_size": 20, "total": 0, "has_more": false})
        );
    }

    #[test]
    fn an_absurd_page_is_past_the_end_not_an_overflow() {
        let page = serve(
            rows(3),
            Origin::Read,
            &asked(Mode::Paginated, usize::MAX, 200),
            &config(),
        )
        .unwrap();
        assert_eq!(page["items"], json!([]));
        assert_eq!(page["has_more"], false);
    }

    #[test]
    fn the_default_negotiation_serves_20_items() {
        let negotiation = take(json!({})).unwrap();
        let page = serve(rows(100), Origin::Read, &negotiation, &config()).unwrap();
        assert_eq!(ids(&page).len(), 20);
    }

    #[test]
    fn page_size_up_to_the_maximum_is_served_and_over_it_refused() {
        let page = serve(
            rows(500),
            Origin::Read,
            &asked(Mode::Paginated, 1, 200),
            &config(),
        )
        .unwrap();
        assert_eq!(ids(&page).len(), 200);
        let err = serve(
            rows(500),
            Origin::Read,
            &asked(Mode::Paginated, 1, 201),
            &config(),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "page_size must be an integer from 1 to 200; got 201"
        );
        let err = serve(
            rows(5),
            Origin::Read,
            &asked(Mode::Paginated, 0, 20),
            &config(),
        )
        .unwrap_err();
        assert_eq!(err.field(), "page");
    }

    #[test]
    fn an_object_with_one_list_pages_it_and_keeps_its_siblings_first() {
        let value = json!({"site": "hq", "devices": rows(25), "generated": "now"});
        let page = serve(
            value,
            Origin::Read,
            &asked(Mode::Paginated, 2, 20),
            &config(),
        )
        .unwrap();
        assert_eq!(
            page.as_object().unwrap().keys().collect::<Vec<_>>(),
            [
                "site",
                "generated",
                "items",
                "page",
                "page_size",
                "total",
                "has_more"
            ]
        );
        assert_eq!(
            (&page["site"], &page["generated"]),
            (&json!("hq"), &json!("now"))
        );
        assert_eq!(ids(&page), (21..=25).collect::<Vec<_>>());
        assert_eq!(
            (&page["total"], &page["has_more"]),
            (&json!(25), &json!(false))
        );
    }

    #[test]
    fn a_sibling_named_like_a_page_field_is_not_overwritten() {
        let value = json!({"total": 5000, "page": 7, "results": rows(3)});
        let page = serve(
            value,
            Origin::Read,
            &asked(Mode::Paginated, 1, 2),
            &config(),
        )
        .unwrap();
        assert_eq!(
            page,
            json!({
                "total": 5000, "page": 7,
                "results": {"items": [rows(3)[0], rows(3)[1]], "page": 1, "page_size": 2, "total": 3, "has_more": true},
            })
        );
    }

    #[test]
    fn a_list_field_named_items_pages_flat() {
        let value = json!({"items": rows(3), "next": null});
        let page = serve(
            value,
            Origin::Read,
            &asked(Mode::Paginated, 1, 2),
            &config(),
        )
        .unwrap();
        assert_eq!(page["next"], Value::Null);
        assert_eq!(ids(&page), [1, 2]);
    }

    #[test]
    fn an_object_with_two_lists_is_returned_whole() {
        let value = json!({"devices": rows(30), "sites": ["hq", "lab"]});
        let served = serve(
            value.clone(),
            Origin::Read,
            &asked(Mode::Paginated, 1, 20),
            &config(),
        )
        .unwrap();
        assert_eq!(served, value);
    }

    #[test]
    fn non_lists_are_returned_whole() {
        for value in [
            json!({"id": 1, "name": "edge"}),
            json!("text"),
            json!(3),
            json!(null),
        ] {
            let served = serve(
                value.clone(),
                Origin::Read,
                &asked(Mode::Paginated, 1, 20),
                &config(),
            )
            .unwrap();
            assert_eq!(served, value);
        }
    }

    #[test]
    fn a_single_write_is_never_paged() {
        let device = json!({"id": 7, "name": "edge-01", "tags": (0..50).collect::<Vec<_>>()});
        for mode in [Mode::Paginated, Mode::Full] {
            let served = serve(
                device.clone(),
                Origin::SingleWrite,
                &asked(mode, 1, 20),
                &config(),
            )
            .unwrap();
            assert_eq!(served, device);
        }
        let list = rows(30);
        let served = serve(
            list.clone(),
            Origin::SingleWrite,
            &asked(Mode::Paginated, 1, 20),
            &config(),
        )
        .unwrap();
        assert_eq!(served, list);
    }

    #[test]
    fn a_bulk_write_is_paged() {
        let page = serve(
            rows(30),
            Origin::BulkWrite,
            &asked(Mode::Paginated, 2, 20),
            &config(),
        )
        .unwrap();
        assert_eq!(ids(&page), (21..=30).collect::<Vec<_>>());
    }

    // --- summary ---

    #[test]
    fn summary_of_a_list_counts_and_shows_three_shortened_items() {
        let long = "x".repeat(500);
        let value: Value = (1..=1000)
            .map(|id| json!({"id": id, "note": long}))
            .collect();
        let summary = serve(value, Origin::Read, &asked(Mode::Summary, 1, 20), &config()).unwrap();
        assert_eq!(
            summary.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["type", "count", "first"]
        );
        assert_eq!(
            (&summary["type"], &summary["count"]),
            (&json!("list"), &json!(1000))
        );
        let first = summary["first"].as_array().unwrap();
        assert_eq!(first.len(), 3);
        let note = first[0]["note"].as_str().unwrap();
        assert_eq!(note, format!("{}…", "x".repeat(80)));
        assert!(summary.to_string().len() < 600, "{summary}");
    }

    #[test]
    fn summary_of_an_object_gives_its_keys_and_their_shapes() {
        let value = json!({"id": 7, "name": "edge", "tags": ["a", "b"], "meta": {"x": 1}, "ok": true, "gone": null});
        let summary = serve(value, Origin::Read, &asked(Mode::Summary, 1, 20), &config()).unwrap();
        assert_eq!(
            summary,
            json!({
                "type": "object", "count": 6,
                "keys": {"id": "number", "name": "string", "tags": "list(2)", "meta": "object(1)", "ok": "bool", "gone": "null"},
                "paged": "tags",
                "first": ["a", "b"],
            })
        );
    }

    #[test]
    fn summary_of_a_wrapper_names_the_paged_list_and_its_first_items() {
        let value = json!({"count": 93, "next": "p2", "previous": null, "results": rows(93)});
        let summary = serve(value, Origin::Read, &asked(Mode::Summary, 1, 20), &config()).unwrap();
        assert_eq!(summary["keys"]["results"], "list(93)");
        assert_eq!(summary["paged"], "results");
        assert_eq!(
            summary["first"],
            json!([rows(3)[0], rows(3)[1], rows(3)[2]])
        );
    }

    #[test]
    fn summary_of_a_single_write_names_no_paged_list() {
        let device = json!({"id": 7, "tags": ["a", "b"]});
        let summary = serve(
            device,
            Origin::SingleWrite,
            &asked(Mode::Summary, 1, 20),
            &config(),
        )
        .unwrap();
        assert!(summary.get("paged").is_none(), "{summary}");
    }

    #[test]
    fn summary_of_a_huge_object_names_at_most_50_keys() {
        let value: Value = (0..1000)
            .map(|i| (format!("k{i}"), json!(i)))
            .collect::<Map<_, _>>()
            .into();
        let summary = serve(value, Origin::Read, &asked(Mode::Summary, 1, 20), &config()).unwrap();
        assert_eq!(summary["count"], 1000);
        assert_eq!(summary["keys"].as_object().unwrap().len(), 50);
    }

    #[test]
    fn summary_of_scalars() {
        let summary = serve(
            json!("y".repeat(5000)),
            Origin::Read,
            &asked(Mode::Summary, 1, 20),
            &config(),
        )
        .unwrap();
        assert_eq!(
            summary,
            json!({"type": "string", "length": 5000, "value": format!("{}…", "y".repeat(80))})
        );
        let summary = serve(
            json!(42),
            Origin::Read,
            &asked(Mode::Summary, 1, 20),
            &config(),
        )
        .unwrap();
        assert_eq!(summary, json!({"type": "number", "value": 42}));
        let summary = serve(
            json!(null),
            Origin::Read,
            &asked(Mode::Summary, 1, 20),
            &config(),
        )
        .unwrap();
        assert_eq!(summary, json!({"type": "null", "value": null}));
    }

    #[test]
    fn summary_cuts_nested_lists_with_a_count_of_the_rest() {
        let value = json!([{"id": 1, "ports": (1..=48).collect::<Vec<_>>()}]);
        let summary = serve(value, Origin::Read, &asked(Mode::Summary, 1, 20), &config()).unwrap();
        assert_eq!(summary["first"][0]["ports"], json!([1, 2, 3, "… 45 more"]));
    }

    // --- filtered ---

    #[test]
    fn filtered_keeps_only_the_keys_of_an_object_in_its_own_order() {
        let value = json!({"id": 7, "name": "edge", "serial": "X1", "site": "hq"});
        let served = serve(
            value,
            Origin::Read,
            &filtered(&["site", "id", "absent"], 1),
            &config(),
        )
        .unwrap();
        assert_eq!(served.to_string(), r#"{"id":7,"site":"hq"}"#);
    }

    #[test]
    fn filtered_narrows_each_object_of_a_list_and_pages_it() {
        let mut value = rows(45);
        value
            .as_array_mut()
            .unwrap()
            .insert(0, json!("not an object"));
        let served = serve(value, Origin::Read, &filtered(&["id"], 1), &config()).unwrap();
        let items = served["items"].as_array().unwrap();
        assert_eq!(items.len(), 20);
        assert_eq!(items[0], "not an object");
        assert_eq!(items[1], json!({"id": 1}));
        assert_eq!(
            (&served["total"], &served["has_more"]),
            (&json!(46), &json!(true))
        );

        let last = serve(rows(45), Origin::Read, &filtered(&["name"], 3), &config()).unwrap();
        assert_eq!(
            last["items"],
            json!([{"name": "edge-41"}, {"name": "edge-42"}, {"name": "edge-43"}, {"name": "edge-44"}, {"name": "edge-45"}])
        );
        assert_eq!(last["has_more"], false);
    }

    #[test]
    fn filtered_narrows_a_wrappers_items_and_keeps_its_other_fields() {
        let value = json!({"count": 45, "results": rows(45)});
        let served = serve(value, Origin::Read, &filtered(&["id"], 1), &config()).unwrap();
        assert_eq!(served["count"], 45);
        assert_eq!(served["items"][0], json!({"id": 1}));
        assert_eq!(served["total"], 45);
    }

    #[test]
    fn filtered_on_a_single_write_narrows_the_object_itself() {
        let device = json!({"id": 7, "name": "edge", "tags": ["a"]});
        let served = serve(
            device,
            Origin::SingleWrite,
            &filtered(&["tags"], 1),
            &config(),
        )
        .unwrap();
        assert_eq!(served, json!({"tags": ["a"]}));
    }

    #[test]
    fn filtered_keys_that_match_nothing_name_the_fields_there_are() {
        let err = serve(rows(3), Origin::Read, &filtered(&["nmae"], 1), &config()).unwrap_err();
        assert_eq!(
            err.to_string(),
            r#"filter_keys ["nmae"] matched no field of the result; its fields include id, name, site"#
        );
    }

    #[test]
    fn filtered_on_a_scalar_or_a_list_of_scalars_is_refused() {
        let err = serve(
            json!("text"),
            Origin::Read,
            &filtered(&["id"], 1),
            &config(),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "mode filtered applies to objects and lists of objects, and this result is a string; use summary, paginated or full"
        );
        let err = serve(
            json!([1, 2]),
            Origin::Read,
            &filtered(&["id"], 1),
            &config(),
        )
        .unwrap_err();
        assert!(err.to_string().contains("a list without objects"), "{err}");
    }

    #[test]
    fn filtered_without_keys_is_refused_by_serve_too() {
        let err = serve(
            rows(3),
            Origin::Read,
            &asked(Mode::Filtered, 1, 20),
            &config(),
        )
        .unwrap_err();
        assert_eq!(err, NegotiationError::FilterKeysRequired);
    }

    // --- full ---

    #[test]
    fn full_returns_exactly_the_input() {
        for value in [
            rows(300),
            json!({"site": "hq", "devices": rows(30)}),
            json!("x"),
            json!({"b": 1, "a": [1, 2]}),
        ] {
            for origin in [Origin::Read, Origin::SingleWrite, Origin::BulkWrite] {
                let served =
                    serve(value.clone(), origin, &asked(Mode::Full, 1, 20), &config()).unwrap();
                assert_eq!(served.to_string(), value.to_string());
            }
        }
    }

    // --- probe ---

    #[test]
    fn probe_keys_are_in_order() {
        let probe = probe("device_list", &rows(100), 4321, &token(), &config());
        assert_eq!(
            probe.keys().collect::<Vec<_>>(),
            [
                "preview",
                "total_size",
                "available_modes",
                "continuation_token",
                "usage"
            ]
        );
        assert_eq!(probe["total_size"], 4321);
    }

    #[test]
    fn probe_carries_the_token() {
        let token = token();
        let probe = probe("device_list", &rows(100), 1, &token, &config());
        assert_eq!(probe["continuation_token"], token.as_str());
    }

    #[test]
    fn usage_names_the_tool_the_fields_and_the_real_default() {
        let small = HeavyConfig {
            default_page_size: 15,
            ..config()
        };
        let probe = probe("device_list", &rows(100), 1, &token(), &small);
        let usage = probe["usage"].as_str().unwrap();
        for needle in [
            "device_list",
            "continuation_token",
            "top level",
            "mode",
            "page 1 of up to 15 items",
            "100 items",
        ] {
            assert!(usage.contains(needle), "{needle:?} missing from {usage}");
        }
        assert!(usage.split(". ").count() <= 2, "{usage}");
    }

    #[test]
    fn usage_says_a_non_pageable_value_comes_back_whole() {
        let probe = probe(
            "device_get",
            &json!({"id": 1, "blob": "z".repeat(30_000)}),
            1,
            &token(),
            &config(),
        );
        let usage = probe["usage"].as_str().unwrap();
        assert!(usage.contains("device_get"), "{usage}");
        assert!(
            usage.contains("without mode you get the whole result"),
            "{usage}"
        );
    }

    #[test]
    fn available_modes_fit_the_value() {
        let modes =
            |value: &Value| probe("t", value, 1, &token(), &config())["available_modes"].clone();
        assert_eq!(
            modes(&rows(5)),
            json!(["summary", "paginated", "filtered", "full"])
        );
        assert_eq!(
            modes(&json!([1, 2, 3])),
            json!(["summary", "paginated", "full"])
        );
        assert_eq!(
            modes(&json!({"id": 1, "name": "x"})),
            json!(["summary", "filtered", "full"])
        );
        assert_eq!(
            modes(&json!({"n": 2, "rows": rows(2)})),
            json!(["summary", "paginated", "filtered", "full"])
        );
        assert_eq!(modes(&json!("text")), json!(["summary", "full"]));
    }

    #[test]
    fn preview_of_a_10000_item_list_is_its_leading_items_whole() {
        let value = rows(10_000);
        let text = assert_preview_ok(&value);
        let preview: Vec<Value> = serde_json::from_str(&text).unwrap();
        assert!(!preview.is_empty());
        assert_eq!(preview[..], value.as_array().unwrap()[..preview.len()]);
        // As many as fit: one more would not have.
        let one_more = Value::from(value.as_array().unwrap()[..=preview.len()].to_vec());
        assert!(one_more.to_string().chars().count() > 200);
    }

    #[test]
    fn preview_of_a_list_of_small_numbers_counts_its_commas() {
        let value: Value = (0..10_000).collect();
        let text = assert_preview_ok(&value);
        // 0..=68 is 10 one-digit and 59 two-digit numbers, 68 commas and
        // two brackets: 198 characters; 69 would make it 201.
        let expected: Value = (0..=68).collect();
        assert_eq!(text, expected.to_string());
    }

    #[test]
    fn preview_of_a_single_5kb_string_is_a_cut_string() {
        let text = assert_preview_ok(&json!("é\"\n".repeat(1700)));
        assert!(text.ends_with("…\""), "{text}");
        assert!(text.chars().count() >= 195, "wasted budget: {text}");
        assert_preview_ok(&json!("a".repeat(5000)));
    }

    #[test]
    fn preview_of_an_object_is_its_leading_keys_with_values_as_they_are() {
        let value: Value = (0..100)
            .map(|i| (format!("key{i}"), json!(i)))
            .collect::<Map<_, _>>()
            .into();
        let text = assert_preview_ok(&value);
        assert!(text.starts_with(r#"{"key0":0,"key1":1,"#), "{text}");
        let mixed =
            json!({"id": 1, "on": true, "none": null, "tags": ["a"], "blob": "b".repeat(5000)});
        let text = assert_preview_ok(&mixed);
        assert!(
            text.starts_with(r#"{"id":1,"on":true,"none":null,"tags":["a"],"blob":"bbb"#),
            "{text}"
        );
        assert!(
            text.ends_with("…\"}") && text.chars().count() >= 195,
            "{text}"
        );
        // A container after the first is left out rather than cut: its
        // missing keys would not show.
        let nested = json!({"id": 1, "meta": {"a": 1, "blob": "b".repeat(5000)}});
        assert_eq!(assert_preview_ok(&nested), r#"{"id":1}"#);
    }

    #[test]
    fn preview_shortens_a_first_item_too_big_to_fit() {
        let value = json!([{"id": 1, "name": "edge", "description": "d".repeat(5000)}, {"id": 2}]);
        let text = assert_preview_ok(&value);
        assert!(
            text.starts_with(r#"[{"id":1,"name":"edge","description":"ddd"#),
            "{text}"
        );
        assert!(text.ends_with("…\"}]"), "{text}");
        let blob_first = json!([{"description": "d".repeat(5000), "id": 1}]);
        let text = assert_preview_ok(&blob_first);
        assert!(
            text.starts_with(r#"[{"description":"ddd"#) && text.ends_with("…\"}]"),
            "{text}"
        );
    }

    #[test]
    fn preview_of_nested_values_and_scalars() {
        let nested =
            json!({"data": {"devices": rows(500), "sites": [{"name": "hq", "racks": rows(50)}]}});
        assert_preview_ok(&nested);
        let deep = (0..300).fold(json!("leaf"), |inner, _| json!([inner]));
        assert_preview_ok(&deep);
        for scalar in [
            json!(1),
            json!(-2.5),
            json!(true),
            json!(null),
            json!("short"),
        ] {
            assert_eq!(assert_preview_ok(&scalar), scalar.to_string());
        }
        assert_eq!(assert_preview_ok(&json!([])), "[]");
        assert_eq!(assert_preview_ok(&json!({})), "{}");
    }

    #[test]
    fn preview_with_an_absurd_key_is_still_valid_and_short() {
        let value = json!({"k".repeat(500): 1});
        assert_eq!(assert_preview_ok(&value), "{}");
    }

    #[test]
    fn preview_respects_a_configured_length() {
        let short = HeavyConfig {
            preview_chars: 40,
            ..config()
        };
        let probe = probe("t", &rows(100), 1, &token(), &short);
        assert!(probe["preview"].to_string().chars().count() <= 40);
    }

    #[test]
    fn the_whole_probe_stays_small() {
        let probe = probe("device_list", &rows(10_000), 987_654, &token(), &config());
        let text = Value::Object(probe).to_string();
        assert!(text.len() < 700, "{} bytes: {text}", text.len());
    }

    #[test]
    fn backstop_threshold() {
        assert!(!config().over_backstop(25_000));
        assert!(config().over_backstop(25_001));
        assert!(
            !HeavyConfig {
                size_backstop: None,
                ..config()
            }
            .over_backstop(usize::MAX)
        );
    }

    #[test]
    fn a_page_of_a_stored_list_matches_the_page_of_the_parsed_list() {
        let config = HeavyConfig::default();
        let list = json!(
            (0..45)
                .map(|i| json!({"id": i, "tags": ["a"]}))
                .collect::<Vec<_>>()
        );
        let body = serde_json::to_vec(&list).unwrap();
        for origin in [Origin::Read, Origin::BulkWrite] {
            for (page, page_size) in [(1, 20), (3, 20), (4, 20), (usize::MAX, 20), (2, 7)] {
                let negotiation = Negotiation {
                    page,
                    page_size,
                    ..Negotiation::with_mode(Mode::Paginated, &config)
                };
                let shortcut = page_of_stored_list(&body, origin, &negotiation, &config)
                    .expect("a stored list takes the shortcut")
                    .unwrap();
                let parsed = serve(list.clone(), origin, &negotiation, &config).unwrap();
                assert_eq!(shortcut, parsed, "page {page} of {page_size}");
            }
        }
    }

    #[test]
    fn the_stored_list_shortcut_leaves_everything_else_to_serve() {
        let config = HeavyConfig::default();
        let paginated = Negotiation::with_mode(Mode::Paginated, &config);
        let list = b"[1,2,3]";
        assert!(page_of_stored_list(list, Origin::SingleWrite, &paginated, &config).is_none());
        assert!(
            page_of_stored_list(br#"{"items":[1]}"#, Origin::Read, &paginated, &config).is_none()
        );
        for mode in [Mode::Full, Mode::Summary] {
            let negotiation = Negotiation::with_mode(mode, &config);
            assert!(page_of_stored_list(list, Origin::Read, &negotiation, &config).is_none());
        }
        let too_big = Negotiation {
            page_size: config.max_page_size + 1,
            ..paginated
        };
        assert!(
            page_of_stored_list(list, Origin::Read, &too_big, &config)
                .unwrap()
                .is_err()
        );
    }
}
