//! The store's one way to lock its state.

use std::sync::{Mutex, MutexGuard, PoisonError};

/// Locks `mutex`, recovering from poisoning: nothing panics while the state
/// is half-updated (the clock is read before any change), so a poisoned
/// lock still guards consistent data.
pub(super) fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
