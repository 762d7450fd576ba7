//! The settings of the Redis store: key prefix, entry lifetime, the largest
//! entry, and how long an operation may take.

use std::time::Duration;

use crate::error::config::{ConfigError, Unit};

/// The settings of a [`RedisStore`](super::RedisStore).
///
/// Start from [`RedisStoreConfig::new`] (the defaults) and change what you
/// need with the `with_*` methods; a method whose value can be out of range
/// returns `Result<RedisStoreConfig, ConfigError>`. Every replica sharing
/// one Redis should use the same prefix and TTL.
///
/// ```
/// use std::time::Duration;
/// use mcp_light::store::RedisStoreConfig;
///
/// let config = RedisStoreConfig::new()
///     .with_prefix("inventory:")?
///     .with_ttl(Duration::from_secs(600));
/// assert_eq!(config.prefix, "inventory:");
/// # Ok::<(), mcp_light::ConfigError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RedisStoreConfig {
    /// What every key of the store starts with (default `mcp-light:`), so
    /// the store shares a Redis with other data.
    pub prefix: String,
    /// How long an entry stays redeemable after it was stored (default
    /// 300 s); Redis expires it (`PX`).
    pub ttl: Duration,
    /// The largest result the store keeps, in bytes (default 1 GiB). A
    /// larger one is refused as it streams: the call answers without a
    /// token. Size Redis's memory for what its callers keep.
    pub max_entry_bytes: u64,
    /// The most bytes one Redis string of a body holds (default 1 MiB; at
    /// most 512 MiB, Redis's largest string): a larger body spans several
    /// keys under the same hash tag. Small parts are cheap to append to:
    /// Redis grows a string by copying it, and a 710 MB body appended to in
    /// parts of 256 MiB took twice as long to store as in parts of 1 MiB.
    pub part_bytes: u64,
    /// How long one operation may take before it counts as failed (default
    /// 1 s), connecting included: while Redis is down or unreachable a call
    /// waits at most this long for the store.
    pub timeout: Duration,
}

impl RedisStoreConfig {
    /// The largest result the store keeps, in bytes, unless set.
    pub(crate) const DEFAULT_MAX_ENTRY_BYTES: u64 = crate::defaults::REDIS_MAX_ENTRY_BYTES;
    /// The most bytes one Redis string of a body holds, unless set.
    pub(crate) const DEFAULT_PART_BYTES: u64 = crate::defaults::REDIS_PART_BYTES;
    /// The largest part: Redis's largest string.
    pub(crate) const MAX_PART_BYTES: u64 = 512 << 20;

    /// The defaults: prefix `mcp-light:`, a TTL of 300 s, entries up to
    /// 1 GiB in parts of 1 MiB, operations within 1 s.
    pub fn new() -> RedisStoreConfig {
        RedisStoreConfig {
            prefix: "mcp-light:".to_owned(),
            ttl: crate::defaults::STORE_TTL,
            max_entry_bytes: RedisStoreConfig::DEFAULT_MAX_ENTRY_BYTES,
            part_bytes: RedisStoreConfig::DEFAULT_PART_BYTES,
            timeout: crate::defaults::REDIS_TIMEOUT,
        }
    }

    /// Sets [`prefix`](RedisStoreConfig::prefix).
    ///
    /// Fails when `prefix` contains `{` or `}`: the token is the keys' hash
    /// tag.
    ///
    /// ```
    /// use mcp_light::store::RedisStoreConfig;
    ///
    /// let refused = RedisStoreConfig::new().with_prefix("{app}:").unwrap_err();
    /// assert_eq!(refused.setting(), "RedisStoreConfig::prefix");
    /// ```
    pub fn with_prefix(
        mut self,
        prefix: impl Into<String>,
    ) -> Result<RedisStoreConfig, ConfigError> {
        let prefix = prefix.into();
        check_prefix(&prefix)?;
        self.prefix = prefix;
        Ok(self)
    }

    /// Sets [`ttl`](RedisStoreConfig::ttl).
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_light::store::RedisStoreConfig;
    ///
    /// assert_eq!(RedisStoreConfig::new().with_ttl(Duration::from_secs(60)).ttl.as_secs(), 60);
    /// ```
    pub fn with_ttl(mut self, ttl: Duration) -> RedisStoreConfig {
        self.ttl = ttl;
        self
    }

    /// Sets [`max_entry_bytes`](RedisStoreConfig::max_entry_bytes).
    ///
    /// Fails when `max_entry_bytes` is 0: nothing could be kept.
    ///
    /// ```
    /// use mcp_light::store::RedisStoreConfig;
    ///
    /// assert_eq!(RedisStoreConfig::new().with_max_entry_bytes(1 << 20)?.max_entry_bytes, 1 << 20);
    /// # Ok::<(), mcp_light::ConfigError>(())
    /// ```
    pub fn with_max_entry_bytes(
        mut self,
        max_entry_bytes: u64,
    ) -> Result<RedisStoreConfig, ConfigError> {
        check_max_entry_bytes(max_entry_bytes)?;
        self.max_entry_bytes = max_entry_bytes;
        Ok(self)
    }

    /// Sets [`part_bytes`](RedisStoreConfig::part_bytes).
    ///
    /// Fails when `part_bytes` is 0 or over 512 MiB (Redis's largest
    /// string).
    ///
    /// ```
    /// use mcp_light::store::RedisStoreConfig;
    ///
    /// assert_eq!(RedisStoreConfig::new().with_part_bytes(64 << 20)?.part_bytes, 64 << 20);
    /// assert!(RedisStoreConfig::new().with_part_bytes(1 << 30).is_err());
    /// # Ok::<(), mcp_light::ConfigError>(())
    /// ```
    pub fn with_part_bytes(mut self, part_bytes: u64) -> Result<RedisStoreConfig, ConfigError> {
        check_part_bytes(part_bytes)?;
        self.part_bytes = part_bytes;
        Ok(self)
    }

    /// Sets [`timeout`](RedisStoreConfig::timeout).
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_light::store::RedisStoreConfig;
    ///
    /// let config = RedisStoreConfig::new().with_timeout(Duration::from_millis(250));
    /// assert_eq!(config.timeout.as_millis(), 250);
    /// ```
    pub fn with_timeout(mut self, timeout: Duration) -> RedisStoreConfig {
        self.timeout = timeout;
        self
    }
}

impl RedisStoreConfig {
    /// Checks the settings, naming the first one that makes no sense. The
    /// `with_*` methods refuse those values already; this catches a field
    /// set directly.
    /// [`RedisStore::with_connection`](super::RedisStore::with_connection)
    /// calls it.
    ///
    /// ```
    /// use mcp_light::store::RedisStoreConfig;
    ///
    /// assert!(RedisStoreConfig::new().check().is_ok());
    /// let mut config = RedisStoreConfig::new();
    /// config.part_bytes = 0;
    /// assert_eq!(config.check().unwrap_err().setting(), "RedisStoreConfig::part_bytes");
    /// ```
    pub fn check(&self) -> Result<(), ConfigError> {
        check_prefix(&self.prefix)?;
        check_max_entry_bytes(self.max_entry_bytes)?;
        check_part_bytes(self.part_bytes)
    }
}

fn check_prefix(prefix: &str) -> Result<(), ConfigError> {
    if prefix.contains(['{', '}']) {
        return Err(ConfigError::InvalidText {
            setting: "RedisStoreConfig::prefix",
            value: prefix.to_owned(),
            allowed: "text without `{` or `}`, such as `mcp-light:` (the continuation token \
                      is each key's hash tag)",
        });
    }
    Ok(())
}

fn check_max_entry_bytes(max_entry_bytes: u64) -> Result<(), ConfigError> {
    match max_entry_bytes {
        0 => Err(ConfigError::zero(
            "RedisStoreConfig::max_entry_bytes",
            Unit::Bytes,
            RedisStoreConfig::DEFAULT_MAX_ENTRY_BYTES,
            "an entry of 0 bytes keeps nothing",
        )),
        _ => Ok(()),
    }
}

fn check_part_bytes(part_bytes: u64) -> Result<(), ConfigError> {
    match part_bytes {
        1..=RedisStoreConfig::MAX_PART_BYTES => Ok(()),
        _ => Err(ConfigError::between(
            "RedisStoreConfig::part_bytes",
            part_bytes,
            (1, RedisStoreConfig::MAX_PART_BYTES),
            (Unit::Bytes, RedisStoreConfig::DEFAULT_PART_BYTES),
            "a part is one Redis string, and the most allowed is the largest string Redis keeps",
        )),
    }
}

impl Default for RedisStoreConfig {
    fn default() -> RedisStoreConfig {
        RedisStoreConfig::new()
    }
}
