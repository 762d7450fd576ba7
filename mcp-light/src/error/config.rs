//! The error a setting answers a value it cannot take with.
//!
//! Every `with_*` builder that can refuse a value — a limit of 0 that would
//! keep or serve nothing, a share over 100%, a key prefix that breaks the
//! keys — returns `Result<Self, ConfigError>`, so a bad value read from a
//! command line or a file becomes an error the program reports, not a
//! panic. Builders whose every value works return `Self`.
//!
//! A refusal carries the setting's default as a number, taken from the
//! constant the setting starts from; the one sentence that shows it is the
//! format string of [`ConfigError::OutOfRange`], so a default changed in its
//! constant changes every message that gives it.

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
/// assert!(matches!(
///     error,
///     ConfigError::OutOfRange { min: 1, max: Some(100), default: Some(25), .. }
/// ));
///
/// // A setting that counts bytes gives its range and default in bytes.
/// let error = MemoryStoreConfig::new().with_max_bytes(0).unwrap_err();
/// assert_eq!(
///     error.to_string(),
///     "MemoryStoreConfig::max_bytes must be at least 1 byte; got 0 \
///      (a store of 0 bytes keeps nothing; the default is 64 MiB)"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// A number outside the range its setting allows.
    #[error(
        "{setting} must be {}; got {value} ({why}{})",
        Range { min: *min, max: *max, bytes: *bytes },
        DefaultIs { default: *default, bytes: *bytes }
    )]
    OutOfRange {
        /// The setting, as its type and field: `MemoryStoreConfig::max_bytes`.
        setting: &'static str,
        /// The value given.
        value: u64,
        /// The smallest value allowed.
        min: u64,
        /// The largest value allowed; `None` when any larger one is.
        max: Option<u64>,
        /// The value the setting has unless it is set, from the constant it
        /// starts from; `None` for a setting without one (a key drawn at
        /// random).
        default: Option<u64>,
        /// Whether the setting counts bytes: its range and default then
        /// read `1 byte`, `64 MiB`, where a count reads `1,024`.
        bytes: bool,
        /// What the setting is for, or why its range is what it is.
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

/// What a setting's numbers count: things (pages, sessions, percent) or
/// bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unit {
    /// Shown as a number, its thousands grouped: `1,024`.
    Count,
    /// Shown in the largest binary unit that holds it whole: `64 MiB`.
    Bytes,
}

impl ConfigError {
    /// `value` is below `min`, the smallest value `setting` takes; the
    /// setting has no default to give.
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
            default: None,
            bytes: false,
            why,
        }
    }

    /// `setting`, counted in `unit` and `default` unless set, was given 0,
    /// and takes 1 or more.
    pub(crate) const fn zero(
        setting: &'static str,
        unit: Unit,
        default: u64,
        why: &'static str,
    ) -> ConfigError {
        ConfigError::OutOfRange {
            setting,
            value: 0,
            min: 1,
            max: None,
            default: Some(default),
            bytes: matches!(unit, Unit::Bytes),
            why,
        }
    }

    /// `value` is outside `min..=max`, the values `setting` takes; it is
    /// counted in `unit` and `default` unless set.
    pub(crate) const fn between(
        setting: &'static str,
        value: u64,
        (min, max): (u64, u64),
        (unit, default): (Unit, u64),
        why: &'static str,
    ) -> ConfigError {
        ConfigError::OutOfRange {
            setting,
            value,
            min,
            max: Some(max),
            default: Some(default),
            bytes: matches!(unit, Unit::Bytes),
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

/// An allowed range in words: `at least 1`, `from 1 to 100`,
/// `from 1 byte to 512 MiB`.
struct Range {
    min: u64,
    max: Option<u64>,
    bytes: bool,
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = |n| Amount::new(n, self.bytes);
        match self.max {
            None => write!(f, "at least {}", shown(self.min)),
            Some(max) => write!(f, "from {} to {}", shown(self.min), shown(max)),
        }
    }
}

/// `; the default is 64 MiB` after the reason, or nothing for a setting
/// without a default.
struct DefaultIs {
    default: Option<u64>,
    bytes: bool,
}

impl fmt::Display for DefaultIs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.default {
            Some(default) => write!(f, "; the default is {}", Amount::new(default, self.bytes)),
            None => Ok(()),
        }
    }
}

/// A number as a message shows it: a count, or a size in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Amount {
    n: u64,
    unit: Unit,
}

impl Amount {
    const fn new(n: u64, bytes: bool) -> Amount {
        let unit = if bytes { Unit::Bytes } else { Unit::Count };
        Amount { n, unit }
    }
}

impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [(u32, &str); 4] = [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")];
        let n = self.n;
        if self.unit == Unit::Count {
            return write!(f, "{}", Grouped(n));
        }
        let whole = UNITS
            .iter()
            .find(|(shift, _)| n != 0 && n.trailing_zeros() >= *shift);
        match whole {
            Some((shift, unit)) => write!(f, "{} {unit}", Grouped(n >> shift)),
            None if n == 1 => f.write_str("1 byte"),
            None => write!(f, "{} bytes", Grouped(n)),
        }
    }
}

/// A number with its thousands grouped by commas: `10,000`.
struct Grouped(u64);

impl fmt::Display for Grouped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = self.0.to_string();
        for (i, digit) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                f.write_str(",")?;
            }
            write!(f, "{digit}")?;
        }
        Ok(())
    }
}

/// Why a [`TaskConfig`](crate::tasks::TaskConfig) cannot be used; [`BuildError::TaskConfig`](crate::BuildError::TaskConfig)
/// carries it.
///
/// ```
/// use std::time::Duration;
///
/// use mcp_light::tasks::{TaskConfig, TaskConfigError};
/// use mcp_light::{BuildError, Server};
///
/// let config = TaskConfig::new().with_lease(Duration::from_millis(50));
/// let error = Server::from_tools([]).with_task_config(config).build().unwrap_err();
/// assert!(matches!(
///     error,
///     BuildError::TaskConfig(TaskConfigError::WatchNotWithinLease { .. })
/// ));
/// assert_eq!(
///     error.to_string(),
///     "the task settings cannot be used: the task watch interval (100ms) must be shorter \
///      than the lease (50ms); fix them in ServerBuilder::with_task_config"
/// );
/// ```
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TaskConfigError {
    /// A duration that must be longer than zero is zero.
    #[error("the task {setting} must be longer than zero")]
    Zero {
        /// The setting, in words: `poll interval`, `lease`,
        /// `watch interval`, `TTL`.
        setting: &'static str,
    },
    /// The running replica would look for a cancellation or answers no
    /// more often than its lease lasts, so the lease would lapse.
    #[error(
        "the task watch interval ({watch_interval:?}) must be shorter than the lease ({lease:?})"
    )]
    WatchNotWithinLease {
        /// [`TaskConfig::with_watch_interval`](crate::tasks::TaskConfig::with_watch_interval).
        watch_interval: std::time::Duration,
        /// [`TaskConfig::with_lease`](crate::tasks::TaskConfig::with_lease).
        lease: std::time::Duration,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::tool::BuildError;
    use crate::heavy::HeavyConfig;
    use crate::server::Server;
    use crate::store::MemoryStoreConfig;

    /// The end of the message of a setting whose default is `default`,
    /// counted in `unit`, as the one format string of `OutOfRange` shows
    /// it.
    fn default_is(default: usize, unit: Unit) -> String {
        let shown = Amount::new(default as u64, unit == Unit::Bytes);
        format!("; the default is {shown})")
    }

    /// `error` is a range error whose default is `default`, and its message
    /// shows it.
    #[track_caller]
    fn gives_default(error: ConfigError, default: usize, unit: Unit) {
        let text = error.to_string();
        assert!(
            matches!(error, ConfigError::OutOfRange { default: Some(d), .. } if d == default as u64),
            "{error:?}"
        );
        assert!(text.contains(&default_is(default, unit)), "{text}");
    }

    #[test]
    fn a_range_error_names_the_setting_the_value_and_the_range() {
        let open = ConfigError::at_least("Server::key (its length)", 5, 32, "a reason");
        assert_eq!(
            open.to_string(),
            "Server::key (its length) must be at least 32; got 5 (a reason)"
        );
        assert_eq!(open.setting(), "Server::key (its length)");
        let zero = ConfigError::zero("HeavyConfig::max_filter_keys", Unit::Count, 64, "a reason");
        assert_eq!(
            zero.to_string(),
            "HeavyConfig::max_filter_keys must be at least 1; got 0 (a reason; the default is 64)"
        );
        let closed =
            ConfigError::between("X::percent", 101, (1, 100), (Unit::Count, 25), "a share");
        assert_eq!(
            closed.to_string(),
            "X::percent must be from 1 to 100; got 101 (a share; the default is 25)"
        );
        let bytes = ConfigError::between(
            "X::part_bytes",
            0,
            (1, 512 << 20),
            (Unit::Bytes, 1 << 20),
            "a part",
        );
        assert_eq!(
            bytes.to_string(),
            "X::part_bytes must be from 1 byte to 512 MiB; got 0 (a part; the default is 1 MiB)"
        );
    }

    #[test]
    fn amounts_read_as_counts_or_sizes() {
        let count = |n| Amount::new(n, false).to_string();
        assert_eq!(
            [
                count(0),
                count(25),
                count(512),
                count(1024),
                count(10_000),
                count(1 << 20)
            ],
            ["0", "25", "512", "1,024", "10,000", "1,048,576"]
        );
        let size = |n| Amount::new(n, true).to_string();
        assert_eq!(
            [size(0), size(1), size(1000), size(1536), size(64 << 10)],
            ["0 bytes", "1 byte", "1,000 bytes", "1,536 bytes", "64 KiB"]
        );
        assert_eq!(
            [
                size(4 << 20),
                size(1 << 30),
                size(3 << 40),
                size(2048 << 30)
            ],
            ["4 MiB", "1 GiB", "3 TiB", "2 TiB"]
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

    #[test]
    fn heavy_reads_refuse_a_zero_with_the_default_their_constant_holds() {
        let defaults = HeavyConfig::new();
        assert_eq!(
            (
                defaults.default_page_size,
                defaults.max_page_size,
                defaults.max_filter_keys
            ),
            (
                HeavyConfig::DEFAULT_PAGE_SIZE,
                HeavyConfig::DEFAULT_MAX_PAGE_SIZE,
                HeavyConfig::DEFAULT_MAX_FILTER_KEYS
            )
        );
        let default_page_size = HeavyConfig::new().with_default_page_size(0).unwrap_err();
        gives_default(
            default_page_size,
            HeavyConfig::DEFAULT_PAGE_SIZE,
            Unit::Count,
        );
        let max_page_size = HeavyConfig::new().with_max_page_size(0).unwrap_err();
        gives_default(
            max_page_size,
            HeavyConfig::DEFAULT_MAX_PAGE_SIZE,
            Unit::Count,
        );
        let max_filter_keys = HeavyConfig::new().with_max_filter_keys(0).unwrap_err();
        gives_default(
            max_filter_keys,
            HeavyConfig::DEFAULT_MAX_FILTER_KEYS,
            Unit::Count,
        );

        // A default page larger than the largest, refused by `build`.
        let mut heavy = HeavyConfig::new().with_max_page_size(10).unwrap();
        heavy.default_page_size = 50;
        let Err(BuildError::Config(too_large)) =
            Server::from_tools([]).with_heavy_config(heavy).build()
        else {
            panic!("a default page over the largest was let through");
        };
        assert_eq!(too_large.setting(), "HeavyConfig::default_page_size");
        gives_default(too_large, HeavyConfig::DEFAULT_PAGE_SIZE, Unit::Count);
    }

    #[test]
    fn the_memory_store_refuses_with_the_default_its_constant_holds() {
        let defaults = MemoryStoreConfig::new();
        assert_eq!(
            (
                defaults.max_bytes,
                defaults.max_entry_bytes,
                usize::from(defaults.caller_share_percent)
            ),
            (
                MemoryStoreConfig::DEFAULT_MAX_BYTES,
                MemoryStoreConfig::DEFAULT_MAX_ENTRY_BYTES,
                usize::from(MemoryStoreConfig::DEFAULT_CALLER_SHARE_PERCENT)
            )
        );
        let max_bytes = MemoryStoreConfig::new().with_max_bytes(0).unwrap_err();
        gives_default(max_bytes, MemoryStoreConfig::DEFAULT_MAX_BYTES, Unit::Bytes);
        let max_entry_bytes = MemoryStoreConfig::new()
            .with_max_entry_bytes(0)
            .unwrap_err();
        gives_default(
            max_entry_bytes,
            MemoryStoreConfig::DEFAULT_MAX_ENTRY_BYTES,
            Unit::Bytes,
        );
        let share = MemoryStoreConfig::new()
            .with_caller_share_percent(101)
            .unwrap_err();
        gives_default(
            share,
            usize::from(MemoryStoreConfig::DEFAULT_CALLER_SHARE_PERCENT),
            Unit::Count,
        );
    }

    #[cfg(feature = "redis")]
    #[test]
    fn the_redis_store_refuses_with_the_default_its_constant_holds() {
        use crate::store::RedisStoreConfig;

        let defaults = RedisStoreConfig::new();
        assert_eq!(
            (defaults.max_entry_bytes, defaults.part_bytes),
            (
                RedisStoreConfig::DEFAULT_MAX_ENTRY_BYTES,
                RedisStoreConfig::DEFAULT_PART_BYTES
            )
        );
        let max_entry_bytes = RedisStoreConfig::new().with_max_entry_bytes(0).unwrap_err();
        gives_default(
            max_entry_bytes,
            RedisStoreConfig::DEFAULT_MAX_ENTRY_BYTES as usize,
            Unit::Bytes,
        );
        let part_bytes = RedisStoreConfig::new()
            .with_part_bytes(RedisStoreConfig::MAX_PART_BYTES + 1)
            .unwrap_err();
        let shown = Amount::new(RedisStoreConfig::MAX_PART_BYTES, true);
        assert!(
            part_bytes.to_string().contains(&format!(" to {shown}; ")),
            "{part_bytes}"
        );
        gives_default(
            part_bytes,
            RedisStoreConfig::DEFAULT_PART_BYTES as usize,
            Unit::Bytes,
        );
    }

    #[cfg(feature = "stdio")]
    #[test]
    fn stdio_refuses_with_the_default_its_constant_holds() {
        use crate::defaults;
        use crate::transport::StdioOptions;

        let options = StdioOptions::new();
        assert_eq!(options.max_line_bytes(), defaults::MAX_LINE_BYTES);
        let max_line_bytes = options.with_max_line_bytes(0).unwrap_err();
        gives_default(max_line_bytes, defaults::MAX_LINE_BYTES, Unit::Bytes);
    }

    #[cfg(feature = "http")]
    #[test]
    fn http_refuses_with_the_defaults_its_constants_hold() {
        use crate::defaults;
        use crate::transport::HttpOptions;

        let options = HttpOptions::new();
        assert_eq!(
            (options.max_sessions(), options.max_sessions_per_principal()),
            (defaults::MAX_SESSIONS, defaults::MAX_SESSIONS_PER_PRINCIPAL)
        );
        let new = HttpOptions::new;
        let max_body_bytes = new().with_max_body_bytes(0).unwrap_err();
        gives_default(max_body_bytes, defaults::MAX_BODY_BYTES, Unit::Bytes);
        let max_connections = new().with_max_connections(0).unwrap_err();
        gives_default(max_connections, defaults::MAX_CONNECTIONS, Unit::Count);
        let max_sessions = new().with_max_sessions(0).unwrap_err();
        gives_default(max_sessions, defaults::MAX_SESSIONS, Unit::Count);
        let per_principal = new().with_max_sessions_per_principal(0).unwrap_err();
        gives_default(
            per_principal,
            defaults::MAX_SESSIONS_PER_PRINCIPAL,
            Unit::Count,
        );
    }
}
