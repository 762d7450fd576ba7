//! What time it is, for expiry: the real clock, or one tests move by hand.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::lock::lock;

/// Tells the store what time it is.
///
/// Monotonic time since an arbitrary origin; only differences matter. The
/// store asks it on every `put` and `get`, so it should be cheap.
///
/// ```
/// use std::time::Duration;
/// use mcp_light::store::Clock;
///
/// /// A clock stopped at one instant.
/// struct Frozen(Duration);
///
/// impl Clock for Frozen {
///     fn now(&self) -> Duration {
///         self.0
///     }
/// }
///
/// assert_eq!(Frozen(Duration::from_secs(5)).now(), Duration::from_secs(5));
/// ```
pub trait Clock: Send + Sync + 'static {
    /// The time elapsed since this clock's origin.
    fn now(&self) -> Duration;
}

/// The real clock: time elapsed since the clock was made, from
/// [`Instant`], so wall-clock changes never expire or revive entries.
///
/// ```
/// use mcp_light::store::{Clock, SystemClock};
///
/// let clock = SystemClock::new();
/// let before = clock.now();
/// assert!(clock.now() >= before);
/// ```
#[derive(Debug, Clone, Copy)]
pub struct SystemClock {
    origin: Instant,
}

impl SystemClock {
    /// A clock whose origin is now.
    ///
    /// ```
    /// use mcp_light::store::{Clock, SystemClock};
    ///
    /// assert!(SystemClock::new().now().as_secs() < 1);
    /// ```
    pub fn new() -> SystemClock {
        SystemClock {
            origin: Instant::now(),
        }
    }
}

impl Default for SystemClock {
    fn default() -> SystemClock {
        SystemClock::new()
    }
}

impl Clock for SystemClock {
    fn now(&self) -> Duration {
        self.origin.elapsed()
    }
}

/// A clock tests move by hand, so entries expire without sleeping.
///
/// Share it with the store through an `Arc` and keep a handle to move it.
///
/// ```
/// use std::sync::Arc;
/// use std::time::Duration;
/// use mcp_light::store::{ContinuationStore, Entry, ManualClock, MemoryStore, MemoryStoreConfig, Origin, Owner};
/// use mcp_light::token::Token;
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let clock = Arc::new(ManualClock::new());
/// let store = MemoryStore::with_clock(MemoryStoreConfig::default(), clock.clone());
/// let token = Token::mint().unwrap();
/// let owner = Owner::new("process", "device_list");
/// let entry = Entry::new(owner, Origin::Read, &b"[]"[..]);
/// store.put(&token, entry).await.unwrap();
///
/// clock.advance(Duration::from_secs(300)); // the default TTL
/// assert_eq!(store.get(&token).await.unwrap(), None);
/// # });
/// ```
#[derive(Debug, Default)]
pub struct ManualClock {
    now: Mutex<Duration>,
}

impl ManualClock {
    /// A clock that reads zero until moved.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_light::store::{Clock, ManualClock};
    ///
    /// assert_eq!(ManualClock::new().now(), Duration::ZERO);
    /// ```
    pub fn new() -> ManualClock {
        ManualClock::default()
    }

    /// Moves the clock forward by `by`.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_light::store::{Clock, ManualClock};
    ///
    /// let clock = ManualClock::new();
    /// clock.advance(Duration::from_secs(2));
    /// clock.advance(Duration::from_secs(3));
    /// assert_eq!(clock.now(), Duration::from_secs(5));
    /// ```
    pub fn advance(&self, by: Duration) {
        *lock(&self.now) += by;
    }

    /// Sets the clock to `now`. Setting it backwards is allowed; the store
    /// then treats entries stored "in the future" as brand new.
    ///
    /// ```
    /// use std::time::Duration;
    /// use mcp_light::store::{Clock, ManualClock};
    ///
    /// let clock = ManualClock::new();
    /// clock.set(Duration::from_secs(300));
    /// assert_eq!(clock.now(), Duration::from_secs(300));
    /// ```
    pub fn set(&self, now: Duration) {
        *lock(&self.now) = now;
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Duration {
        *lock(&self.now)
    }
}
