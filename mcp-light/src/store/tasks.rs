//! Where tasks ([`crate::tasks`]) are kept: the [`TaskStore`] trait and
//! its in-process implementation.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use tokio::sync::Notify;

use super::{BoxFuture, StoreError};

/// What reached a task from its callers since it started: a cancellation,
/// and the answers sent with `tasks/update`, by their keys.
#[derive(Debug, Default, Clone, PartialEq)]
#[non_exhaustive]
pub struct TaskSignals {
    /// `tasks/cancel` was called.
    pub cancelled: bool,
    /// Every answer sent so far, as `(key, JSON)`; empty unless asked for.
    pub responses: Vec<(String, Vec<u8>)>,
}

/// A task as [`TaskStore::read`] finds it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct StoredTask {
    /// The record mcp-light last wrote.
    pub record: Vec<u8>,
    /// The keys of the answers sent to the task so far.
    pub answered: Vec<String>,
}

impl StoredTask {
    /// A task read back: its record and the keys answered.
    pub fn new(record: Vec<u8>, answered: Vec<String>) -> StoredTask {
        StoredTask { record, answered }
    }
}

/// Keeps tasks where every replica sees them.
///
/// A task is three things under its id: its record (opaque bytes
/// mcp-light writes: status, result, owner, lease), a cancellation flag,
/// and the answers callers sent it. Only the replica running the task
/// writes the record after creating it; any replica sets the flag and adds
/// answers. Everything expires `ttl` after the task was created.
///
/// [`MemoryTasks`] keeps them in the process; the Redis store keeps them
/// in Redis. A [`ContinuationStore`](crate::store::ContinuationStore)
/// offers its own through [`tasks`](crate::store::ContinuationStore::tasks).
pub trait TaskStore: Send + Sync + 'static {
    /// Stores the record of a new task, for `ttl`. Once this returns, a
    /// [`read`](TaskStore::read) on any replica finds it.
    fn create<'a>(
        &'a self,
        id: &'a str,
        record: Vec<u8>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// The record of task `id` and the keys of the answers sent to it, or
    /// `None` once it expired (or never was).
    fn read<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<StoredTask>, StoreError>>;

    /// Replaces the record of task `id`, keeping its expiry; a task that
    /// expired stays expired.
    fn write<'a>(&'a self, id: &'a str, record: Vec<u8>) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Flags task `id` cancelled, for `ttl` at most.
    fn cancel<'a>(&'a self, id: &'a str, ttl: Duration) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Adds `responses` (`(key, JSON)`) to the answers of task `id`, for
    /// `ttl` at most.
    fn respond<'a>(
        &'a self,
        id: &'a str,
        responses: Vec<(String, Vec<u8>)>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Whether task `id` was cancelled, and, when `with_responses`, every
    /// answer sent to it.
    fn signals<'a>(
        &'a self,
        id: &'a str,
        with_responses: bool,
    ) -> BoxFuture<'a, Result<TaskSignals, StoreError>>;

    /// Completes when task `id` may have been signalled; `most` is how
    /// long the running task waits at most before it looks at the store
    /// anyway, on its server's clock. The default, for a store that cannot
    /// tell, never completes: the task looks every `most`. A store that can
    /// tell the running task at once overrides it.
    fn wait<'a>(&'a self, id: &'a str, most: Duration) -> BoxFuture<'a, ()> {
        let _ = (id, most);
        Box::pin(std::future::pending())
    }
}

/// Tasks kept in this process: what a server uses when its continuation
/// store keeps no tasks of its own. A cancellation or an answer wakes the
/// task at once. Its tasks are seen only by servers that share it.
#[derive(Debug, Default)]
pub struct MemoryTasks {
    tasks: Mutex<HashMap<String, Slot>>,
}

#[derive(Debug)]
struct Slot {
    record: Vec<u8>,
    expires: Instant,
    cancelled: bool,
    responses: Vec<(String, Vec<u8>)>,
    signalled: Arc<Notify>,
}

impl MemoryTasks {
    /// An empty set of tasks.
    pub fn new() -> MemoryTasks {
        MemoryTasks::default()
    }

    /// How many tasks are kept, expired ones not yet removed included.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether no task is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Slot>> {
        self.tasks.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `f` on the live slot of task `id`, if any.
    fn with_slot<T>(&self, id: &str, f: impl FnOnce(&mut Slot) -> T) -> Option<T> {
        let mut tasks = self.lock();
        let slot = tasks.get_mut(id)?;
        if slot.expires <= Instant::now() {
            tasks.remove(id);
            return None;
        }
        Some(f(slot))
    }
}

fn ready<'a, T: Send + 'a>(value: T) -> BoxFuture<'a, T> {
    Box::pin(std::future::ready(value))
}

impl TaskStore for MemoryTasks {
    fn create<'a>(
        &'a self,
        id: &'a str,
        record: Vec<u8>,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        let now = Instant::now();
        let mut tasks = self.lock();
        // Creating is rare next to reading: the moment to drop what expired.
        tasks.retain(|_, slot| slot.expires > now);
        tasks.insert(
            id.to_owned(),
            Slot {
                record,
                expires: now + ttl,
                cancelled: false,
                responses: Vec::new(),
                signalled: Arc::new(Notify::new()),
            },
        );
        ready(Ok(()))
    }

    fn read<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<StoredTask>, StoreError>> {
        let found = self.with_slot(id, |slot| {
            let keys = slot.responses.iter().map(|(key, _)| key.clone()).collect();
            StoredTask::new(slot.record.clone(), keys)
        });
        ready(Ok(found))
    }

    fn write<'a>(&'a self, id: &'a str, record: Vec<u8>) -> BoxFuture<'a, Result<(), StoreError>> {
        self.with_slot(id, |slot| slot.record = record);
        ready(Ok(()))
    }

    fn cancel<'a>(&'a self, id: &'a str, _ttl: Duration) -> BoxFuture<'a, Result<(), StoreError>> {
        self.with_slot(id, |slot| {
            slot.cancelled = true;
            slot.signalled.notify_one();
        });
        ready(Ok(()))
    }

    fn respond<'a>(
        &'a self,
        id: &'a str,
        responses: Vec<(String, Vec<u8>)>,
        _ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        self.with_slot(id, |slot| {
            for (key, value) in responses {
                match slot.responses.iter_mut().find(|(have, _)| *have == key) {
                    Some(existing) => existing.1 = value,
                    None => slot.responses.push((key, value)),
                }
            }
            slot.signalled.notify_one();
        });
        ready(Ok(()))
    }

    fn signals<'a>(
        &'a self,
        id: &'a str,
        with_responses: bool,
    ) -> BoxFuture<'a, Result<TaskSignals, StoreError>> {
        let signals = self.with_slot(id, |slot| TaskSignals {
            cancelled: slot.cancelled,
            responses: if with_responses {
                slot.responses.clone()
            } else {
                Vec::new()
            },
        });
        ready(Ok(signals.unwrap_or_default()))
    }

    fn wait<'a>(&'a self, id: &'a str, most: Duration) -> BoxFuture<'a, ()> {
        let _ = most;
        let signalled = self.with_slot(id, |slot| Arc::clone(&slot.signalled));
        Box::pin(async move {
            match signalled {
                Some(signalled) => signalled.notified().await,
                // Gone or never there: only the running task's own look at
                // the store, at `most`, finds that out.
                None => std::future::pending().await,
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_task_reads_back_until_it_expires_and_keeps_its_signals() {
        let tasks = MemoryTasks::new();
        tasks
            .create("t1", b"one".to_vec(), Duration::from_secs(60))
            .await
            .unwrap();
        tasks.write("t1", b"two".to_vec()).await.unwrap();
        tasks
            .respond(
                "t1",
                vec![("k".into(), b"1".to_vec())],
                Duration::from_secs(60),
            )
            .await
            .unwrap();
        let stored = tasks.read("t1").await.unwrap().unwrap();
        assert_eq!(stored.record, b"two");
        assert_eq!(stored.answered, ["k"]);
        let signals = tasks.signals("t1", true).await.unwrap();
        assert!(!signals.cancelled);
        assert_eq!(signals.responses, [("k".to_owned(), b"1".to_vec())]);
        tasks.cancel("t1", Duration::from_secs(60)).await.unwrap();
        assert!(tasks.signals("t1", false).await.unwrap().cancelled);

        tasks
            .create("t2", b"x".to_vec(), Duration::from_millis(1))
            .await
            .unwrap();
        std::thread::sleep(Duration::from_millis(5));
        assert!(tasks.read("t2").await.unwrap().is_none());
        // A write does not bring an expired task back.
        tasks.write("t2", b"y".to_vec()).await.unwrap();
        assert!(tasks.read("t2").await.unwrap().is_none());
    }

    #[tokio::test]
    async fn a_cancellation_wakes_the_waiting_task_at_once() {
        let tasks = Arc::new(MemoryTasks::new());
        tasks
            .create("t", Vec::new(), Duration::from_secs(60))
            .await
            .unwrap();
        let waiting = {
            let tasks = Arc::clone(&tasks);
            tokio::spawn(async move {
                let started = Instant::now();
                tasks.wait("t", Duration::from_secs(30)).await;
                started.elapsed()
            })
        };
        tokio::task::yield_now().await;
        tasks.cancel("t", Duration::from_secs(60)).await.unwrap();
        let waited = waiting.await.unwrap();
        assert!(waited < Duration::from_secs(30), "{waited:?}");
    }
}
