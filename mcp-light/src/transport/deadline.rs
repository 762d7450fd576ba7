//! The deadline for a request's headers, kept per connection rather than
//! per request.
//!
//! hyper asks its timer for a fresh sleep each time a connection starts
//! waiting for a request head, and drops it once the head is read: on a
//! kept-alive connection, once per request. With tokio's timer that is a
//! registration in, and a removal from, the runtime's timer wheel for
//! every request, each under the wheel's lock, which the workers then
//! contend for.
//!
//! Here the sleep hyper gets ([`HeadSleep`]) only writes its deadline into
//! a slot the connection owns, and reads the clock when polled. The task
//! serving the connection ([`Watched`]) keeps one tokio sleep for that
//! slot, moved only when it goes off before the current deadline: at most
//! one wheel operation per connection per deadline period, however many
//! requests it carries. When a deadline passes, that sleep wakes the
//! connection, hyper polls its [`HeadSleep`], finds it due, and closes the
//! connection as it would with tokio's timer.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use hyper::rt::{Sleep, Timer};
use pin_project_lite::pin_project;

/// A connection's header deadline: armed while hyper waits for a request
/// head, disarmed once the head is read.
#[derive(Debug)]
struct Slot {
    /// What deadlines are counted from.
    origin: Instant,
    /// The armed deadline, as nanoseconds after `origin` plus one; zero
    /// while disarmed.
    armed: AtomicU64,
}

impl Slot {
    fn encode(&self, deadline: Instant) -> u64 {
        let nanos = deadline.saturating_duration_since(self.origin).as_nanos();
        u64::try_from(nanos).unwrap_or(u64::MAX - 1) + 1
    }

    fn decode(&self, armed: u64) -> Instant {
        self.origin + Duration::from_nanos(armed - 1)
    }

    /// The armed deadline, if any.
    fn deadline(&self) -> Option<Instant> {
        match self.armed.load(Ordering::Acquire) {
            0 => None,
            armed => Some(self.decode(armed)),
        }
    }
}

/// The hyper timer of one connection: its sleeps arm that connection's
/// slot. Made by [`watch`], beside the [`Watched`] future that serves the
/// connection and keeps the only tokio sleep.
#[derive(Debug, Clone)]
pub(super) struct HeadTimer(Arc<Slot>);

/// Now, by tokio's clock, which is what the [`Watched`] alarm keeps.
fn now() -> Instant {
    tokio::time::Instant::now().into_std()
}

impl Timer for HeadTimer {
    fn sleep(&self, duration: Duration) -> Pin<Box<dyn Sleep>> {
        self.sleep_until(now() + duration)
    }

    fn now(&self) -> Instant {
        now()
    }

    fn sleep_until(&self, deadline: Instant) -> Pin<Box<dyn Sleep>> {
        let armed = self.0.encode(deadline);
        self.0.armed.store(armed, Ordering::Release);
        Box::pin(HeadSleep {
            slot: Arc::clone(&self.0),
            deadline,
            armed,
        })
    }
}

/// The sleep hyper polls while it waits for a request head. It registers
/// no waker: the [`Watched`] task wakes when the deadline passes.
#[derive(Debug)]
struct HeadSleep {
    slot: Arc<Slot>,
    deadline: Instant,
    /// The slot's value while this sleep is the armed one.
    armed: u64,
}

impl Future for HeadSleep {
    type Output = ();

    fn poll(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<()> {
        if now() >= self.deadline {
            Poll::Ready(())
        } else {
            Poll::Pending
        }
    }
}

impl Sleep for HeadSleep {}

impl Drop for HeadSleep {
    fn drop(&mut self) {
        // Disarms the slot unless a later sleep has armed it since.
        let _ =
            self.slot
                .armed
                .compare_exchange(self.armed, 0, Ordering::AcqRel, Ordering::Relaxed);
    }
}

/// A new connection's header deadline: the timer to give hyper for it,
/// and the watch to serve it under.
pub(super) fn per_connection() -> (HeadTimer, Watch) {
    let slot = Arc::new(Slot {
        origin: Instant::now(),
        armed: AtomicU64::new(0),
    });
    (HeadTimer(Arc::clone(&slot)), Watch(slot))
}

/// The task side of a connection's header deadline; see [`Watched`].
#[derive(Debug)]
pub(super) struct Watch(Arc<Slot>);

impl Watch {
    /// `serving`, woken when its connection's armed deadline passes.
    pub(super) fn serve<F: Future>(self, serving: F) -> Watched<F> {
        Watched {
            serving,
            alarm: tokio::time::sleep_until(self.0.origin.into()),
            set_for: None,
            slot: self.0,
        }
    }
}

pin_project! {
    /// The future serving a connection, with the one tokio sleep that
    /// wakes it when the deadline its [`HeadTimer`] armed passes.
    pub(super) struct Watched<F> {
        #[pin]
        serving: F,
        #[pin]
        alarm: tokio::time::Sleep,
        // The deadline `alarm` is set for; `None` until it is first set,
        // and again once it went off.
        set_for: Option<Instant>,
        slot: Arc<Slot>,
    }
}

impl<F: Future> Future for Watched<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let mut this = self.project();
        if let Poll::Ready(done) = this.serving.as_mut().poll(cx) {
            return Poll::Ready(done);
        }
        // Read after `serving` was polled, which may have armed a new one.
        let Some(deadline) = this.slot.deadline() else {
            return Poll::Pending;
        };
        loop {
            // The alarm goes off no later than the armed deadline. Deadlines
            // only move later, so one set for an earlier one stays, and is
            // moved when it goes off.
            if this.set_for.is_none_or(|set_for| set_for > deadline) {
                this.alarm.as_mut().reset(deadline.into());
                *this.set_for = Some(deadline);
            }
            if this.alarm.as_mut().poll(cx).is_pending() {
                return Poll::Pending;
            }
            let went_off_for = this.set_for.take();
            if went_off_for < Some(deadline) {
                // It went off for a deadline since moved: set it anew,
                // without polling `serving` again.
                continue;
            }
            // The armed deadline has passed: hyper finds its sleep due on
            // this poll and closes the connection.
            return this.serving.as_mut().poll(cx);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stand-in for hyper's connection: it arms its timer as hyper does
    /// while it waits for a head, and ends with an error when the sleep
    /// is due.
    struct Waiting {
        timer: HeadTimer,
        sleep: Option<Pin<Box<dyn Sleep>>>,
        timeout: Duration,
    }

    impl Future for Waiting {
        type Output = &'static str;

        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<&'static str> {
            let timeout = self.timeout;
            let timer = self.timer.clone();
            let sleep = self.sleep.get_or_insert_with(|| timer.sleep(timeout));
            match sleep.as_mut().poll(cx) {
                Poll::Ready(()) => Poll::Ready("header timeout"),
                Poll::Pending => Poll::Pending,
            }
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_connection_waiting_for_a_head_ends_at_its_deadline() {
        let (timer, watch) = per_connection();
        let started = tokio::time::Instant::now();
        let waiting = Waiting {
            timer,
            sleep: None,
            timeout: Duration::from_millis(300),
        };
        let ended = tokio::time::timeout(Duration::from_secs(5), watch.serve(waiting)).await;
        assert_eq!(ended, Ok("header timeout"), "the deadline passed unnoticed");
        assert_eq!(started.elapsed(), Duration::from_millis(300));
    }

    #[tokio::test(start_paused = true)]
    async fn a_read_head_disarms_and_the_next_wait_arms_a_later_deadline() {
        let (timer, watch) = per_connection();
        let first = timer.sleep(Duration::from_millis(300));
        assert!(watch.0.deadline().is_some());
        drop(first);
        assert!(
            watch.0.deadline().is_none(),
            "a dropped sleep left its deadline armed"
        );
        // A later sleep replacing an earlier one (hyper's `reset`) stays
        // armed when the earlier one is dropped after it.
        let earlier = timer.sleep(Duration::from_millis(100));
        let later = timer.sleep(Duration::from_millis(200));
        drop(earlier);
        let armed = watch.0.deadline().expect("the later sleep is armed");
        assert!(armed >= now() + Duration::from_millis(150));
        drop(later);
        assert!(watch.0.deadline().is_none());
    }
}
