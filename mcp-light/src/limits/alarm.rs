//! The clock tool deadlines ring on: a server's own, whose thread starts
//! with its first alarm, sleeps until the earliest one and wakes the call
//! waiting on it. It needs nothing of the runtime the call runs on, so a
//! deadline holds on a tokio runtime built without its time driver, and
//! under any other executor. Tokio's own timers cannot be asked whether
//! that driver is there; they panic when it is not.
//!
//! Every alarm keeps its clock, so the thread rings whatever is still set
//! after the server is dropped, and ends with the last handle to the
//! clock: a process that builds and drops servers keeps no thread of
//! theirs.
//!
//! The clock is the wall clock: a test that pauses tokio's clock does not
//! pause tool deadlines.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError, Weak};
use std::task::{Context, Poll, Waker};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// The name of a clock's thread, as debuggers and `/proc` show it.
pub(crate) const THREAD_NAME: &str = "mcp-light-deadlines";

/// A server's clock: cheap to clone, each clone a handle to one thread,
/// started with the first alarm set and ended with the last handle.
#[derive(Clone, Default)]
pub(crate) struct AlarmClock {
    owner: Arc<Owner>,
}

/// What the handles share: the alarms, and the thread once it started.
#[derive(Default)]
struct Owner {
    shared: Arc<Shared>,
    /// `None` inside when the thread could not be started.
    thread: OnceLock<Option<JoinHandle<()>>>,
}

impl std::fmt::Debug for AlarmClock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AlarmClock")
            .field("running", &matches!(self.owner.thread.get(), Some(Some(_))))
            .finish_non_exhaustive()
    }
}

impl AlarmClock {
    /// A clock whose thread has not started.
    pub(crate) fn new() -> AlarmClock {
        AlarmClock::default()
    }

    /// A future that completes `after` from when it was made, on this
    /// clock.
    pub(crate) fn alarm(&self, after: Duration) -> Alarm {
        self.clone().into_alarm(after)
    }

    /// [`AlarmClock::alarm`], taking this handle into the alarm.
    pub(crate) fn into_alarm(self, after: Duration) -> Alarm {
        let ringing = Arc::new(Ringing::default());
        // A deadline too far to write down never rings.
        if let Some(at) = Instant::now().checked_add(after) {
            self.start();
            self.owner.shared.set(at, Arc::downgrade(&ringing));
        }
        Alarm {
            ringing,
            _clock: self,
        }
    }

    /// Starts the thread, once; after that, one atomic load.
    fn start(&self) {
        self.owner.thread.get_or_init(|| {
            // The thread holds the alarms, never a handle: the handles
            // alone decide when it ends.
            let shared = Arc::clone(&self.owner.shared);
            let started = thread::Builder::new()
                .name(THREAD_NAME.to_owned())
                .spawn(move || shared.run());
            match started {
                Ok(thread) => Some(thread),
                Err(error) => {
                    tracing::warn!(%error, "the thread that ends tool runs at their deadline could not start; tools run without a deadline");
                    None
                }
            }
        });
    }
}

impl Drop for Owner {
    fn drop(&mut self) {
        lock(&self.shared.alarms).stopped = true;
        self.shared.changed.notify_one();
        if let Some(thread) = self.thread.take().flatten() {
            // A waker the thread runs could drop the last handle; the
            // thread cannot wait for itself, and ends on its own.
            if thread.thread().id() != thread::current().id() {
                let _ = thread.join();
            }
        }
    }
}

/// Completes when its time comes; dropped, it is forgotten by the clock
/// when that time comes.
#[derive(Debug)]
pub(crate) struct Alarm {
    ringing: Arc<Ringing>,
    /// Keeps the clock's thread running until this alarm is gone.
    _clock: AlarmClock,
}

#[derive(Debug, Default)]
struct Ringing {
    rang: AtomicBool,
    waker: Mutex<Option<Waker>>,
}

impl Ringing {
    fn ring(&self) {
        self.rang.store(true, Ordering::Release);
        if let Some(waker) = lock(&self.waker).take() {
            waker.wake();
        }
    }
}

impl Future for Alarm {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let ringing = &self.ringing;
        if ringing.rang.load(Ordering::Acquire) {
            return Poll::Ready(());
        }
        lock(&ringing.waker).replace(cx.waker().clone());
        // It may have rung between the check and the waker's arrival.
        if ringing.rang.load(Ordering::Acquire) {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

/// The alarms set, the earliest first, and the thread's signal.
#[derive(Default)]
struct Shared {
    alarms: Mutex<Alarms>,
    changed: Condvar,
}

#[derive(Default)]
struct Alarms {
    queue: BinaryHeap<Reverse<Set>>,
    /// At this many alarms, those dropped before their time are cleared
    /// out, so calls that finish early do not pile up until theirs.
    prune_at: usize,
    /// The last handle is gone: the thread ends.
    stopped: bool,
}

/// One alarm in the queue, ordered by its time alone.
struct Set {
    at: Instant,
    ringing: Weak<Ringing>,
}

impl PartialEq for Set {
    fn eq(&self, other: &Set) -> bool {
        self.at == other.at
    }
}

impl Eq for Set {}

impl PartialOrd for Set {
    fn partial_cmp(&self, other: &Set) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Set {
    fn cmp(&self, other: &Set) -> std::cmp::Ordering {
        self.at.cmp(&other.at)
    }
}

/// The fewest alarms worth clearing out.
const PRUNE_FLOOR: usize = 1024;

impl Shared {
    /// Queues an alarm, and wakes the clock's thread only when it must
    /// sleep less: the alarm is the earliest. Calls set their deadlines in
    /// the order they start, each later than the last, so nearly every call
    /// leaves the thread asleep. Answers whether it woke the thread.
    fn set(&self, at: Instant, ringing: Weak<Ringing>) -> bool {
        let mut alarms = lock(&self.alarms);
        if alarms.queue.len() >= alarms.prune_at.max(PRUNE_FLOOR) {
            alarms
                .queue
                .retain(|Reverse(set)| set.ringing.strong_count() > 0);
            alarms.prune_at = alarms.queue.len() * 2;
        }
        // The thread sleeps until the earliest alarm queued, or one cleared
        // out just now, which is earlier still: it wakes in time for any
        // alarm not before that.
        let earliest = alarms.queue.peek().is_none_or(|Reverse(next)| at < next.at);
        alarms.queue.push(Reverse(Set { at, ringing }));
        if earliest {
            self.changed.notify_one();
        }
        earliest
    }

    /// Rings each alarm at its time, until the last handle is gone.
    fn run(&self) {
        let mut due = Vec::new();
        let mut alarms = lock(&self.alarms);
        loop {
            if alarms.stopped {
                return;
            }
            let now = Instant::now();
            while alarms
                .queue
                .peek()
                .is_some_and(|Reverse(set)| set.at <= now)
            {
                if let Some(Reverse(set)) = alarms.queue.pop() {
                    due.extend(set.ringing.upgrade());
                }
            }
            if !due.is_empty() {
                // Woken without the queue held: a waker may run anything.
                drop(alarms);
                due.drain(..).for_each(|ringing| ringing.ring());
                alarms = lock(&self.alarms);
                continue;
            }
            alarms = match alarms.queue.peek() {
                None => self
                    .changed
                    .wait(alarms)
                    .unwrap_or_else(PoisonError::into_inner),
                Some(Reverse(next)) => {
                    let wait = next.at.saturating_duration_since(now);
                    let waited = self.changed.wait_timeout(alarms, wait);
                    waited.unwrap_or_else(PoisonError::into_inner).0
                }
            };
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Polls `future` to completion on this thread, outside any runtime.
    fn block_on<F: Future + Unpin>(mut future: F) -> F::Output {
        let thread = thread::current();
        let waker = Waker::from(Arc::new(Unpark(thread)));
        let mut cx = Context::from_waker(&waker);
        loop {
            if let Poll::Ready(done) = Pin::new(&mut future).poll(&mut cx) {
                return done;
            }
            thread::park();
        }
    }

    struct Unpark(thread::Thread);

    impl std::task::Wake for Unpark {
        fn wake(self: Arc<Self>) {
            self.0.unpark();
        }
    }

    #[test]
    fn an_alarm_rings_at_its_time_without_a_runtime() {
        let clock = AlarmClock::new();
        let started = Instant::now();
        block_on(clock.alarm(Duration::from_millis(50)));
        assert!(started.elapsed() >= Duration::from_millis(50));
    }

    #[test]
    fn alarms_ring_in_their_order_whatever_the_order_they_were_set_in() {
        let clock = AlarmClock::new();
        let late = clock.alarm(Duration::from_millis(400));
        let started = Instant::now();
        block_on(clock.alarm(Duration::from_millis(20)));
        assert!(started.elapsed() < Duration::from_millis(400));
        block_on(late);
        assert!(started.elapsed() >= Duration::from_millis(380));
    }

    #[test]
    fn only_an_alarm_earlier_than_every_other_wakes_the_clock() {
        let shared = Shared::default();
        let ringing = Arc::new(Ringing::default());
        let now = Instant::now();
        let at = |secs| now + Duration::from_secs(secs);
        assert!(shared.set(at(10), Arc::downgrade(&ringing)), "the first");
        assert!(!shared.set(at(20), Arc::downgrade(&ringing)), "a later one");
        assert!(
            !shared.set(at(10), Arc::downgrade(&ringing)),
            "an equal one"
        );
        assert!(
            shared.set(at(5), Arc::downgrade(&ringing)),
            "an earlier one"
        );
    }

    #[test]
    fn dropped_alarms_are_cleared_out() {
        let clock = AlarmClock::new();
        for _ in 0..3 * PRUNE_FLOOR {
            drop(clock.alarm(Duration::from_secs(3600)));
        }
        assert!(lock(&clock.owner.shared.alarms).queue.len() <= 2 * PRUNE_FLOOR + 1);
    }

    #[test]
    fn a_deadline_too_far_to_write_down_never_rings() {
        let mut never = AlarmClock::new().alarm(Duration::MAX);
        let mut cx = Context::from_waker(Waker::noop());
        assert!(Pin::new(&mut never).poll(&mut cx).is_pending());
    }

    #[test]
    fn a_clock_starts_its_thread_with_its_first_alarm_only() {
        let clock = AlarmClock::new();
        assert!(clock.owner.thread.get().is_none(), "started unasked");
        drop(clock.alarm(Duration::from_secs(3600)));
        assert!(matches!(clock.owner.thread.get(), Some(Some(_))));
    }

    #[test]
    fn the_clocks_thread_ends_with_its_last_handle_not_before() {
        let clock = AlarmClock::new();
        block_on(clock.alarm(Duration::from_millis(10)));
        // The thread holds the alarms; it lets go of them when it returns.
        let alarms = Arc::downgrade(&clock.owner.shared);
        let pending = clock.alarm(Duration::from_millis(100));
        drop(clock);
        assert!(alarms.upgrade().is_some(), "ended with an alarm still set");
        let started = Instant::now();
        block_on(pending);
        assert!(started.elapsed() >= Duration::from_millis(50), "rang early");
        // Dropping the last handle joins the thread: nothing is left.
        assert!(alarms.upgrade().is_none(), "the thread outlived its clock");
    }
}
