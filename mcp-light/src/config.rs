//! The error a setting answers a value it cannot take with.
//!
//! Every `with_*` builder that can refuse a value — a limit of 0 that would
//! keep or serve nothing, a share over 100%, a key prefix that breaks the
//! keys — returns `Result<Self, ConfigError>`, so a bad value read from a
//! command line or a file becomes an error the program reports, not a
//! panic. Builders whose every value works return `Self`.

use std::fmt;

/// A setting given a value it cannot take: which setting, the value, and
/// what it may be, in one sentence.
///
/// ```
/// use mcp_light::ConfigError;
/// use mcp_light::store::MemoryStoreConfig;
///
/// let error = MemoryStoreConfig::new().with_caller_share_percent(0).unwrap_err();
/// assert_eq!(
///     error.to_string(),
///     "MemoryStoreConfig::caller_share_percent must be from 1 to 100; got 0 \
///      (the share of the store one caller may hold, in percent; the default is 25)"
/// );
/// assert!(matches!(error, ConfigError::OutOfRange { min: 1, max: Some(100), .. }));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A number outside the range its setting allows.
    #[error("{setting} must be {}; got {value} ({why})", Range(*min, *max))]
    OutOfRange {
        /// The setting, as its type and field: `MemoryStoreConfig::max_bytes`.
        setting: &'static str,
        /// The value given.
        value: u64,
        /// The smallest value allowed.
        min: u64,
        /// The largest value allowed; `None` when any larger one is.
        max: Option<u64>,
        /// What the setting is for or why the range is what it is, and its
        /// default.
        why: &'static str,
    },
    /// Text its setting cannot hold.
    #[error("{setting} must be {allowed}; got `{value}`")]
    InvalidText {
        /// The setting, as its type and field: `RedisStoreConfig::prefix`.
        setting: &'static str,
        /// The text given.
        value: String,
        /// What the setting may hold, and why.
        allowed: &'static str,
    },
}

impl ConfigError {
    /// `value` is below `min`, the smallest value `setting` takes.
    pub(crate) const fn at_least(
        setting: &'static str,
        value: u64,
        min: u64,
        why: &'static str,
    ) -> ConfigError {
        ConfigError::OutOfRange {
            setting,
            value,
            min,
            max: None,
            why,
        }
    }

    /// `setting` was given 0, and takes 1 or more.
    pub(crate) const fn zero(setting: &'static str, why: &'static str) -> ConfigError {
        ConfigError::at_least(setting, 0, 1, why)
    }

    /// `value` is outside `min..=max`, the values `setting` takes.
    pub(crate) const fn between(
        setting: &'static str,
        value: u64,
        (min, max): (u64, u64),
        why: &'static str,
    ) -> ConfigError {
        ConfigError::OutOfRange {
            setting,
            value,
            min,
            max: Some(max),
            why,
        }
    }

    /// The setting the error is about: `MemoryStoreConfig::max_bytes`.
    pub fn setting(&self) -> &'static str {
        match self {
            ConfigError::OutOfRange { setting, .. } | ConfigError::InvalidText { setting, .. } => {
                setting
            }
        }
    }
}

/// An allowed range in words: `at least 1`, `from 1 to 100`.
struct Range(u64, Option<u64>);

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Range(min, None) => write!(f, "at least {min}"),
            Range(min, Some(max)) => write!(f, "from {min} to {max}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_range_error_names_the_setting_the_value_and_the_range() {
        let open = ConfigError::at_least("HeavyConfig::max_filter_keys", 0, 1, "a reason");
        assert_eq!(
            open.to_string(),
            "HeavyConfig::max_filter_keys must be at least 1; got 0 (a reason)"
        );
        assert_eq!(open.setting(), "HeavyConfig::max_filter_keys");
        let closed = ConfigError::between("X::percent", 101, (1, 100), "a share");
        assert_eq!(
            closed.to_string(),
            "X::percent must be from 1 to 100; got 101 (a share)"
        );
    }

    #[test]
    fn a_text_error_quotes_the_text() {
        let error = ConfigError::InvalidText {
            setting: "RedisStoreConfig::prefix",
            value: "{app}:".into(),
            allowed: "text without braces",
        };
        assert_eq!(
            error.to_string(),
            "RedisStoreConfig::prefix must be text without braces; got `{app}:`"
        );
    }
}
