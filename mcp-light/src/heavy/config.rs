//! The limits of heavy reads ([`HeavyConfig`]).

use crate::error::config::{ConfigError, Unit};
use crate::store::DEFAULT_TTL;

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
