//! STUB: replaced by the store/token work.
use super::{BoxFuture, ContinuationStore, Entry, StoreError};
use crate::token::Token;
use std::collections::HashMap;
use std::sync::Mutex;

/// Tells the store what time it is.
pub trait Clock: Send + Sync + 'static {
    /// now
    fn now(&self) -> std::time::Duration;
}
/// The real clock.
#[derive(Debug, Default)]
pub struct SystemClock;
impl Clock for SystemClock {
    fn now(&self) -> std::time::Duration {
        std::time::Duration::ZERO
    }
}
/// A clock tests move by hand.
#[derive(Debug, Default)]
pub struct ManualClock;
/// Limits.
#[derive(Debug, Clone, Default)]
pub struct MemoryStoreConfig;
/// The in-memory store.
#[derive(Default)]
pub struct MemoryStore {
    map: Mutex<HashMap<Token, Entry>>,
}
impl ContinuationStore for MemoryStore {
    fn put<'a>(&'a self, token: &'a Token, entry: Entry) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            self.map.lock().unwrap().insert(token.clone(), entry);
            Ok(())
        })
    }
    fn get<'a>(&'a self, token: &'a Token) -> BoxFuture<'a, Result<Option<Entry>, StoreError>> {
        Box::pin(async move { Ok(self.map.lock().unwrap().get(token).cloned()) })
    }
}
