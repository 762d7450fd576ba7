//! Heavy reads: the probe a first call answers and the modes
//! a continuation is served in.
//!
//! A tool marked `#[mcp_heavy]` does not answer its result. Its first call
//! answers a probe, `{preview, total_size, available_modes,
//! continuation_token, usage}`, and keeps the result in the continuation
//! store: the preview is the result cut short as real JSON (at most
//! [`HeavyConfig::preview_chars`] characters), `available_modes` lists the
//! modes (`summary`, `paginated`, `filtered`, `full`) that do something
//! useful with this value, and `usage` is one or two sentences on how to
//! call again. A call that sends the token back is served from the store in
//! the mode it asks for, without running the tool again; a wrong `mode`,
//! `page`, `page_size` or `filter_keys` is answered as an error that says
//! what to send instead. The tool's schema gains those five fields with
//! their types and bounds and almost no prose, because every caller pays
//! for `tools/list`; the instructions travel in the probe's `usage`
//! sentence instead, on the calls that need them. [`HeavyConfig`] sets the
//! inline budget, the page sizes, the preview length, the size backstop and
//! how many `filter_keys` a call may name.
//!
//! A result whose compact JSON is at most the inline budget
//! ([`HeavyConfig::inline_budget`], or the tool's own `inline = N`) is
//! cheaper whole than a probe and the page an agent reads after it: such a
//! first call answers the result itself, in one call, and keeps nothing.
//!
//! Storing the result, minting the token and checking the owner happen
//! elsewhere; this module decides what the agent reads.
//!
//! # Paging
//!
//! A value is *pageable* when it is a list, or an object with a list field
//! (a "wrapper" such as `{"count": 93, "results": [...]}`; of a read's several
//! list fields, the one with the most items pages, the first of equals, and
//! the probe names it as `paged`), and it
//! was not produced by a single write ([`Origin::SingleWrite`]: one device
//! with a `tags` list is one object, not a page of tags). A page is
//! `{items, page, page_size, total, has_more}`; a wrapper keeps its other
//! fields, in their order, before those five (or, when one of them is named
//! like a page field, the page object sits under the list's own key, so
//! nothing is overwritten). A page past the end is empty
//! with `has_more: false` rather than an error: `total` and `page_size` are
//! beside it, so the agent can see where the end was, and an empty list's
//! page 1 needs no special case.

// Adding a mode: a mode is defined in this module and nowhere else. Add its variant to
// `Mode` and to `Mode::ALL` (`mode.rs`, in the order the schema lists
// it), and the compiler stops at every match that must handle it: its
// name and the shape its answer is counted under (`mode.rs`, with a new
// `ServedMode` in `call/outcome/mod.rs` if that shape is new), whether it
// takes `filter_keys`, when a probe offers it (`probe.rs`), how it serves a
// value (`serve`, in `mod.rs`) and which reads of the store it makes
// (`stored.rs`, which the continuation's redemption calls). The schema's
// enum, the parsing of `mode` and its error, and the viewer's tools take
// its name from `Mode`. Then name it where this documentation lists the
// modes, describe it in `serve`'s documentation and in the heavy-reads
// guide (`docs/heavy-reads.md`), and test it beside the others.
//
// One concern a file: `mode` names the modes, `negotiation` reads and
// publishes the fields, `probe` (cut by `preview`) answers a first call,
// and `serve` here answers a redemption of a `serde_json::Value` through
// `page`, `summary` and `filter`; `stored` serves a redemption from the
// store, reading only what the mode needs.

mod digest;
mod filter;
mod mode;
mod negotiation;
mod observe;
mod page;
mod preview;
mod probe;
mod stored;
mod summarize;
mod summary;
#[cfg(test)]
mod test_support;
mod trim;

use serde_json::Value;

use crate::error::config::{ConfigError, Unit};
use crate::store::{DEFAULT_TTL, Origin};
use filter::filter;
use page::{layout, paginate};
use summarize::summarize;

pub(crate) use digest::{Digest, ListDigest, ResultShape, preview_of};
pub(crate) use filter::check_list_keys;
pub(crate) use mode::Mode;
pub(crate) use negotiation::NegotiationError;
pub(crate) use negotiation::{
    NEGOTIATION_FIELDS, Negotiation, negotiation_properties, refuse_negotiation, take_negotiation,
};
pub(crate) use page::{
    Page, WRAPPING, fit, fitting_page_size, items_room, narrow_item, page_range,
};
pub(crate) use probe::{Probe, probe, unkept_probe};
pub(crate) use stored::{Served, StoredResult, serve_body, serve_from_store};
pub(crate) use summary::Summary;
pub use summary::{MAX_FIELD_NAMES, MAX_FIELDS, MAX_STRING_CHARS, MAX_TRACKED_VALUES, MAX_VALUES};
pub(crate) use trim::fit_summary;

/// Marks a shortened string in a preview or a summary.
const ELLIPSIS: char = '…';

/// Limits of heavy reads: the inline budget, page sizes, the preview
/// length, the size backstop and how many `filter_keys` a call may name.
///
/// Start from [`HeavyConfig::new`] (the defaults) and change what you need
/// with the `with_*` methods; the fields stay readable. A method whose
/// value can be out of range (a page size of 0) returns
/// `Result<HeavyConfig, ConfigError>`. The struct is `#[non_exhaustive]`
/// so that later limits can be added without breaking callers, which is
/// why it cannot be written as a literal outside mcp-light.
///
/// ```
/// use mcp_light::Server;
/// use mcp_light::heavy::HeavyConfig;
///
/// let config = HeavyConfig::new()
///     .with_max_page_size(50)?
///     .with_size_backstop(None);
/// // A default page holds at most as many as a caller may ask for.
/// assert_eq!((config.default_page_size, config.max_page_size), (50, 50));
/// let server = Server::from_registry().with_heavy_config(config).build()?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct HeavyConfig {
    /// The largest result, in bytes of its compact JSON, that a heavy
    /// read's first call answers whole instead of with a probe (14 KiB,
    /// 14,336 bytes): in one call, nothing stored, no token. A larger one
    /// answers a probe, and so does one larger than the calling client
    /// keeps of an answer ([`clients`](crate::clients)): the budget a call
    /// answers by is the smaller of the two. A tool's `#[mcp_heavy(inline = N)]` takes
    /// precedence. 0 probes every result but one that fits where the
    /// preview goes (an empty list). No budget answers more than
    /// [`max_full_bytes`](HeavyConfig::max_full_bytes) whole.
    pub inline_budget: usize,
    /// The most items a page holds when the caller gives no `page_size`
    /// (200): as many as fit what the calling client keeps, at least one,
    /// and never more than this.
    pub default_page_size: usize,
    /// The largest page a caller may ask for (200); a larger `page_size` is
    /// an error, not silently clamped, so the agent never believes it got
    /// more than it did.
    pub max_page_size: usize,
    /// Results larger than this many bytes are answered with a probe where
    /// the schema discloses continuation; `None` switches the backstop
    /// off. Default 25,000. It is also the most a result the store would
    /// not keep is answered inline: a larger one gets a probe without
    /// token, its summary and the store's reason, never the result itself
    /// (with `None`, such a result comes back whole).
    pub size_backstop: Option<usize>,
    /// The longest a probe's `preview` may be, in characters of compact JSON
    /// (200).
    pub preview_chars: usize,
    /// The most distinct `filter_keys` one call may name (64); duplicates
    /// count once. More is an error that gives the count, not the keys, so
    /// neither the filtering nor the answer grows with what a caller sends.
    pub max_filter_keys: usize,
    /// The largest stored result answered whole (16 MiB): by mode `full`,
    /// and by any mode of a result that is not a list (an object holding a
    /// list is paged after reading it whole). A larger one is answered with
    /// an error giving its size and the modes that page, filter or
    /// summarize it; a list is paged by range at any size.
    pub max_full_bytes: usize,
    /// How long a continuation token lives, published in the description
    /// of every `continuation_token` property: the TTL of the server's
    /// store, set by [`Server`](crate::Server) whenever its store or this
    /// config changes, so it cannot drift from the store. `None` without a
    /// store. Defaults to the in-memory store's 300 s.
    pub(crate) token_lifetime: Option<std::time::Duration>,
}

impl HeavyConfig {
    /// The page size when the caller gives none, unless set.
    pub(crate) const DEFAULT_PAGE_SIZE: usize = crate::defaults::PAGE_SIZE;
    /// The largest page a caller may ask for, unless set.
    pub(crate) const DEFAULT_MAX_PAGE_SIZE: usize = crate::defaults::MAX_PAGE_SIZE;
    /// The most distinct `filter_keys` one call may name, unless set.
    pub(crate) const DEFAULT_MAX_FILTER_KEYS: usize = crate::defaults::MAX_FILTER_KEYS;

    /// The defaults: an inline budget of 14 KiB, default pages of as many
    /// items as fit the client up to 200, at most 200 per page, a size
    /// backstop of 25,000 bytes, previews of at most 200 characters, at
    /// most 64 `filter_keys`, and whole answers of at most 16 MiB.
    /// The same as [`HeavyConfig::default`], but usable in a `const`.
    ///
    /// ```
    /// use mcp_light::heavy::HeavyConfig;
    ///
    /// const CONFIG: HeavyConfig = HeavyConfig::new().with_preview_chars(120);
    /// assert_eq!(HeavyConfig::new(), HeavyConfig::default());
    /// assert_eq!(CONFIG.preview_chars, 120);
    /// ```
    pub const fn new() -> HeavyConfig {
        HeavyConfig {
            inline_budget: crate::defaults::INLINE_BUDGET,
            default_page_size: HeavyConfig::DEFAULT_PAGE_SIZE,
            max_page_size: HeavyConfig::DEFAULT_MAX_PAGE_SIZE,
            size_backstop: Some(crate::defaults::SIZE_BACKSTOP),
            preview_chars: crate::defaults::PREVIEW_CHARS,
            max_filter_keys: HeavyConfig::DEFAULT_MAX_FILTER_KEYS,
            max_full_bytes: crate::defaults::MAX_FULL_BYTES,
            // The store a server starts with is the default in-memory one.
            token_lifetime: Some(DEFAULT_TTL),
        }
    }

    /// Sets [`inline_budget`](HeavyConfig::inline_budget): a heavy read's
    /// first call answers a result of at most `inline_budget` bytes (its
    /// compact JSON) whole, in one call, and a larger one with a probe
    /// (default 14,336). 0 answers every result with a probe, but for one
    /// that fits the preview. A tool's `#[mcp_heavy(inline = N)]` sets its
    /// own.
    ///
    /// While a result streams in, at most this many bytes of it (and one
    /// chunk) wait to learn which answer it gets; past the budget it goes
    /// on to the store, so the budget is also what a call may hold in
    /// memory for it.
    ///
    /// ```
    /// use mcp_light::heavy::HeavyConfig;
    ///
    /// let config = HeavyConfig::new().with_inline_budget(16 * 1024);
    /// assert_eq!(config.inline_budget, 16_384);
    /// assert_eq!(HeavyConfig::new().inline_budget, mcp_light::defaults::INLINE_BUDGET);
    /// ```
    pub const fn with_inline_budget(mut self, inline_budget: usize) -> HeavyConfig {
        self.inline_budget = inline_budget;
        self
    }

    /// Sets [`default_page_size`](HeavyConfig::default_page_size), the most
    /// items of a page when the caller gives no `page_size` (default 200;
    /// fewer where they would not fit the client). Keep it at most
    /// [`max_page_size`](HeavyConfig::max_page_size): above it, a call that
    /// names no `page_size` is refused.
    ///
    /// Fails when `default_page_size` is 0: such a page holds nothing.
    ///
    /// ```
    /// use mcp_light::heavy::HeavyConfig;
    ///
    /// let config = HeavyConfig::new().with_default_page_size(50)?;
    /// assert_eq!(config.default_page_size, 50);
    /// assert!(HeavyConfig::new().with_default_page_size(0).is_err());
    /// # Ok::<(), mcp_light::ConfigError>(())
    /// ```
    pub const fn with_default_page_size(
        mut self,
        default_page_size: usize,
    ) -> Result<HeavyConfig, ConfigError> {
        if default_page_size == 0 {
            return Err(ConfigError::zero(
                "HeavyConfig::default_page_size",
                Unit::Count,
                HeavyConfig::DEFAULT_PAGE_SIZE as u64,
                "a page of 0 items holds nothing",
            ));
        }
        self.default_page_size = default_page_size;
        Ok(self)
    }

    /// Sets [`max_page_size`](HeavyConfig::max_page_size), the largest
    /// `page_size` a caller may ask for (default 200). Tool schemas publish
    /// it as the maximum; a larger ask is an error, not clamped. A
    /// [`default_page_size`](HeavyConfig::default_page_size) above it comes
    /// down to it: a page a caller may not ask for is no default.
    ///
    /// Fails when `max_page_size` is 0: every page would be refused.
    ///
    /// ```
    /// use mcp_light::heavy::HeavyConfig;
    ///
    /// let config = HeavyConfig::new().with_max_page_size(500)?;
    /// assert_eq!(config.max_page_size, 500);
    /// let config = HeavyConfig::new().with_max_page_size(50)?;
    /// assert_eq!(config.default_page_size, 50);
    /// # Ok::<(), mcp_light::ConfigError>(())
    /// ```
    pub const fn with_max_page_size(
        mut self,
        max_page_size: usize,
    ) -> Result<HeavyConfig, ConfigError> {
        if max_page_size == 0 {
            return Err(ConfigError::zero(
                "HeavyConfig::max_page_size",
                Unit::Count,
                HeavyConfig::DEFAULT_MAX_PAGE_SIZE as u64,
                "with 0 every page is refused",
            ));
        }
        self.max_page_size = max_page_size;
        if self.default_page_size > max_page_size {
            self.default_page_size = max_page_size;
        }
        Ok(self)
    }

    /// Sets [`size_backstop`](HeavyConfig::size_backstop): results larger
    /// than this many bytes are answered with a probe where the schema
    /// discloses continuation; `None` switches the backstop off
    /// (default `Some(25_000)`).
    ///
    /// ```
    /// use mcp_light::heavy::HeavyConfig;
    ///
    /// let config = HeavyConfig::new().with_size_backstop(Some(100_000));
    /// assert!(!config.over_backstop(60_000));
    /// assert!(!HeavyConfig::new().with_size_backstop(None).over_backstop(usize::MAX));
    /// ```
    pub const fn with_size_backstop(mut self, size_backstop: Option<usize>) -> HeavyConfig {
        self.size_backstop = size_backstop;
        self
    }

    /// Sets [`preview_chars`](HeavyConfig::preview_chars), the longest a
    /// probe's `preview` may be in characters of compact JSON (default
    /// 200).
    ///
    /// ```
    /// use mcp_light::heavy::HeavyConfig;
    ///
    /// let config = HeavyConfig::new().with_preview_chars(80);
    /// assert_eq!(config.preview_chars, 80);
    /// ```
    pub const fn with_preview_chars(mut self, preview_chars: usize) -> HeavyConfig {
        self.preview_chars = preview_chars;
        self
    }

    /// Sets [`max_filter_keys`](HeavyConfig::max_filter_keys), the most
    /// distinct `filter_keys` one call may name (default 64).
    ///
    /// Fails when `max_filter_keys` is 0: `filtered` needs at least one key,
    /// so such a server could never filter.
    ///
    /// ```
    /// use mcp_light::heavy::HeavyConfig;
    ///
    /// let config = HeavyConfig::new().with_max_filter_keys(16)?;
    /// assert_eq!(config.max_filter_keys, 16);
    /// let refused = HeavyConfig::new().with_max_filter_keys(0).unwrap_err();
    /// assert_eq!(refused.setting(), "HeavyConfig::max_filter_keys");
    /// # Ok::<(), mcp_light::ConfigError>(())
    /// ```
    pub const fn with_max_filter_keys(
        mut self,
        max_filter_keys: usize,
    ) -> Result<HeavyConfig, ConfigError> {
        if max_filter_keys == 0 {
            return Err(ConfigError::zero(
                "HeavyConfig::max_filter_keys",
                Unit::Count,
                HeavyConfig::DEFAULT_MAX_FILTER_KEYS as u64,
                "mode filtered needs at least one key",
            ));
        }
        self.max_filter_keys = max_filter_keys;
        Ok(self)
    }

    /// Sets [`max_full_bytes`](HeavyConfig::max_full_bytes), the largest
    /// stored result answered whole (default 16 MiB).
    ///
    /// ```
    /// use mcp_light::heavy::HeavyConfig;
    ///
    /// let config = HeavyConfig::new().with_max_full_bytes(1 << 20);
    /// assert_eq!(config.max_full_bytes, 1 << 20);
    /// ```
    pub const fn with_max_full_bytes(mut self, max_full_bytes: usize) -> HeavyConfig {
        self.max_full_bytes = max_full_bytes;
        self
    }

    /// Whether a result of `size` bytes is over the size backstop.
    pub fn over_backstop(&self, size: usize) -> bool {
        self.size_backstop.is_some_and(|limit| size > limit)
    }
}

impl Default for HeavyConfig {
    fn default() -> Self {
        HeavyConfig::new()
    }
}

/// Serves a stored result as `negotiation` asks.
///
/// * [`Mode::Paginated`]: a pageable value becomes
///   `{items, page, page_size, total, has_more}`. A wrapper object (a list
///   field; of a read's several, the longest) keeps its other fields, in order,
///   before those five;
///   if one of them is itself named like a page field, the page object
///   takes the list's place under the list's key instead, so nothing is
///   overwritten. Anything else, and everything from
///   [`Origin::SingleWrite`], is returned whole.
/// * [`Mode::Summary`]: what the value holds, bounded in size. A list gives
///   its `count` and, per field of its objects, the field's type, its
///   `nulls`, numbers' `min` and `max`, lists' `length`, objects' `keys`,
///   and `values`: how many items hold each value (for a list of strings,
///   how often each string occurs), for fields whose values repeat (at most 20 listed, the most frequent first, the rest counted as
///   `other`; `distinct` says how many there are when not all are listed).
///   An object gives its keys and the shape of each value, and for a
///   wrapper the summary of its paged list; a scalar its value. At most 30
///   fields or keys are described, and strings are cut to 40 characters.
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
pub(crate) fn serve(
    value: Value,
    origin: Origin,
    negotiation: &Negotiation,
    config: &HeavyConfig,
) -> Result<Value, NegotiationError> {
    negotiation.check(config)?;
    match negotiation.mode {
        Mode::Full => Ok(value),
        Mode::Summary => fit_summary(to_json(summarize(&value, origin)), negotiation.keeps),
        Mode::Paginated => {
            let layout = layout(&value, origin);
            paginate(value, layout, negotiation, None)
        }
        Mode::Filtered => filter(value, origin, negotiation),
    }
}

/// One of the answer shapes as a JSON value.
fn to_json(answer: impl serde::Serialize) -> Value {
    // The shapes hold strings, numbers and JSON values: nothing in them can
    // fail to serialize.
    serde_json::to_value(answer).expect("an answer shape serializes to JSON")
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use test_support::{asked, config, rows};

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
    fn serve_pages_a_wrapper_after_its_siblings_but_never_a_single_write() {
        let config = HeavyConfig::default();
        let value = json!({
            "site": "hq",
            "devices": (1..=45).map(|id| json!({"id": id})).collect::<Vec<_>>(),
        });

        let mut negotiation = Negotiation::with_mode(Mode::Paginated, &config);
        negotiation.page = 3;
        negotiation.page_size = 20;
        negotiation.page_size_asked = true;
        let page = serve(value.clone(), Origin::Read, &negotiation, &config).unwrap();
        assert_eq!(
            page.to_string(),
            r#"{"site":"hq","items":[{"id":41},{"id":42},{"id":43},{"id":44},{"id":45}],"page":3,"page_size":20,"total":45,"has_more":false}"#
        );

        // One written object is never paged, whatever lists it holds.
        let whole = serve(value.clone(), Origin::SingleWrite, &negotiation, &config).unwrap();
        assert_eq!(whole, value);
    }
}
