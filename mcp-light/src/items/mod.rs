//! Heavy results of any size: a `#[mcp_heavy]` tool may answer its items
//! one at a time instead of a `Vec`, and they are serialized into the
//! store as they come, never held as a whole. [`ItemStream`] (also at the
//! crate root) is the stream type to name in such a tool's signature;
//! [`ItemSender`] and [`CallOver`] are what its blocking producer sends
//! with and is told when nobody reads any more.
//!
//! A heavy tool may return, in place of `T` in `Result<T, E>` (or plain):
//!
//! - a `Vec<T>` or any other `Serialize` value: a sequence is taken item by
//!   item all the same;
//! - an `impl Iterator<Item = T>` or `impl Iterator<Item = Result<T, E>>`,
//!   run on the blocking pool, where it may block;
//! - an `impl futures_core::Stream<Item = Result<T, E>>`, polled on the
//!   async worker;
//! - an [`ItemStream<T>`], a stream type to name in a signature, made from
//!   a stream, an iterator, or a blocking producer
//!   ([`ItemStream::blocking`]) that sends items through a bounded channel:
//!   the way to read database rows on the blocking pool and stream them.
//!
//! An `Err` item ends the read with that error, and nothing is kept. The
//! compiler picks the way by the returned type; a stream or an iterator
//! anywhere but `#[mcp_heavy]` is a compile error that says so.

pub(crate) mod heavy;

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_core::Stream;
use tokio::sync::mpsc;

use crate::error::tool::{IntoToolError, ToolError};
use crate::runtime::Unfinished;

/// How many batches of items wait between a blocking producer and the
/// read.
const QUEUED_BATCHES: usize = 4;

/// The longest an item waits in a producer's batch before it is sent.
const BATCH_WAIT: std::time::Duration = std::time::Duration::from_millis(50);

/// A stream of a heavy tool's items, `Result<T, ToolError>` each: a type
/// to name in a signature where `impl Stream` will not do.
///
/// ```
/// use mcp_light::prelude::*;
/// use mcp_light::ItemStream;
///
/// #[derive(Serialize)]
/// struct Row { id: u64 }
///
/// /// Every row, read on the blocking pool and streamed into the store.
/// #[mcp_heavy]
/// fn rows(count: u64) -> ItemStream<Row> {
///     ItemStream::blocking(move |sender| {
///         for id in 0..count {
///             sender.send(Row { id })?; // stops when the call is over
///         }
///         Ok(())
///     })
/// }
/// ```
pub struct ItemStream<T> {
    items: Items<T>,
}

/// Where an [`ItemStream`]'s items come from.
enum Items<T> {
    /// A stream, polled where the stream is.
    Stream(Pin<Box<dyn Stream<Item = Result<T, ToolError>> + Send>>),
    /// A blocking producer, not started yet: a heavy read hands it to the
    /// encoder (`keep::producer_job`); polled, it starts as a
    /// [`Blocking`] stream. `None` once taken.
    Producer(Option<Producer<T>>),
}

impl<T: Send + 'static> ItemStream<T> {
    /// The items of `stream`, its errors converted into [`ToolError`]s.
    pub fn new<S, E>(stream: S) -> ItemStream<T>
    where
        S: Stream<Item = Result<T, E>> + Send + 'static,
        E: IntoToolError,
    {
        ItemStream {
            items: Items::Stream(Box::pin(MapErr(Box::pin(stream)))),
        }
    }

    /// The items of `items`, read on the blocking pool.
    pub fn iter<I>(items: I) -> ItemStream<T>
    where
        I: IntoIterator<Item = T>,
        I::IntoIter: Send + 'static,
    {
        let items = items.into_iter();
        ItemStream::blocking(move |sender| {
            for item in items {
                sender.send(item)?;
            }
            Ok(())
        })
    }

    /// The items `produce` sends, run on the blocking pool (so it may
    /// block: read a database, a file) when the stream is first polled. The
    /// channel between them is bounded, so `produce` runs no further ahead
    /// of the store than a few hundred items; [`ItemSender::send`] fails
    /// once the call is over (answered, failed or cancelled), and `?`
    /// ends `produce` then. An `Err` it returns is the stream's last item.
    ///
    /// Answered by a `#[mcp_heavy]` tool, the producer sends its batches
    /// straight to the thread that serializes them, and each comes back
    /// to the producer's thread once serialized, its items freed there, by
    /// the thread that allocated them (as an iterator's are).
    pub fn blocking<F>(produce: F) -> ItemStream<T>
    where
        F: FnOnce(&ItemSender<T>) -> Result<(), ToolError> + Send + 'static,
    {
        ItemStream {
            items: Items::Producer(Some(Box::new(produce))),
        }
    }

    /// The blocking producer this was made from, if it was made from one
    /// and not polled yet; it is left without items.
    pub(crate) fn take_producer(&mut self) -> Option<Producer<T>> {
        match &mut self.items {
            Items::Producer(produce) => produce.take(),
            Items::Stream(_) => None,
        }
    }
}

impl<T: Send + 'static> Stream for ItemStream<T> {
    type Item = Result<T, ToolError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        loop {
            match &mut this.items {
                Items::Stream(stream) => return stream.as_mut().poll_next(cx),
                Items::Producer(produce) => match produce.take() {
                    // Polled, a producer starts as a stream.
                    Some(produce) => this.items = Items::Stream(Box::pin(Blocking::new(produce))),
                    // Taken by the read, which polls it no more.
                    None => return Poll::Ready(None),
                },
            }
        }
    }
}

impl<T> std::fmt::Debug for ItemStream<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ItemStream").finish_non_exhaustive()
    }
}

/// Where [`ItemStream::blocking`]'s producer sends its items. Items go
/// in batches (of 256, or what gathered in 50 ms), so that sending one
/// costs a push, not a channel operation.
pub struct ItemSender<T> {
    sender: mpsc::Sender<Batch<T>>,
    batch: std::cell::RefCell<Gathered<T>>,
    /// Batches sent earlier and done with, when they come back: reused,
    /// their items dropped on the producer's thread.
    returned: Option<std::sync::mpsc::Receiver<Batch<T>>>,
}

/// Items sent together.
type Batch<T> = Vec<Result<T, ToolError>>;

/// The items gathered for the next batch, and since when.
struct Gathered<T> {
    items: Batch<T>,
    since: Option<std::time::Instant>,
}

impl<T> ItemSender<T> {
    /// Sends to `sender`; batches that come back through `returned` are
    /// reused.
    pub(crate) fn new(
        sender: mpsc::Sender<Batch<T>>,
        returned: Option<std::sync::mpsc::Receiver<Batch<T>>>,
    ) -> Self {
        let gathered = Gathered {
            items: Vec::new(),
            since: None,
        };
        ItemSender {
            sender,
            batch: std::cell::RefCell::new(gathered),
            returned,
        }
    }

    /// Sends the next item, waiting while the read is behind. Fails once
    /// the call is over: stop producing then.
    ///
    /// # Panics
    ///
    /// When called on an async worker: it blocks. Call it from the
    /// producer, which runs on the blocking pool.
    pub fn send(&self, item: T) -> Result<(), CallOver> {
        let full = {
            let mut batch = self.batch.borrow_mut();
            batch.items.push(Ok(item));
            let since = *batch.since.get_or_insert_with(std::time::Instant::now);
            batch.items.len() >= crate::continuation::keep::BATCH || since.elapsed() >= BATCH_WAIT
        };
        if full { self.flush() } else { Ok(()) }
    }

    /// Sends what is gathered.
    fn flush(&self) -> Result<(), CallOver> {
        let items = {
            let mut batch = self.batch.borrow_mut();
            batch.since = None;
            if batch.items.is_empty() {
                return Ok(());
            }
            std::mem::replace(&mut batch.items, self.fresh())
        };
        self.sender.blocking_send(items).map_err(|_| CallOver)
    }

    /// Room for the next batch: one that came back, emptied here (so its
    /// items are freed by the thread that made them, which the allocator
    /// does without taking a lock), else a new one.
    fn fresh(&self) -> Batch<T> {
        match self
            .returned
            .as_ref()
            .map(std::sync::mpsc::Receiver::try_recv)
        {
            Some(Ok(mut old)) => {
                old.clear();
                old
            }
            Some(Err(_)) => Vec::with_capacity(crate::continuation::keep::BATCH),
            None => Vec::new(),
        }
    }

    /// Sends what is gathered and then `error`, the stream's last item.
    fn fail(&self, error: ToolError) {
        self.batch.borrow_mut().items.push(Err(error));
        let _ = self.flush();
    }
}

impl<T> std::fmt::Debug for ItemSender<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ItemSender").finish_non_exhaustive()
    }
}

/// The call an [`ItemSender`] sent to is over: answered, failed or
/// cancelled, so nobody reads further items.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the call reading these items is over")]
pub struct CallOver;

/// The producer of [`ItemStream::blocking`].
pub(crate) type Producer<T> = Box<dyn FnOnce(&ItemSender<T>) -> Result<(), ToolError> + Send>;

/// Runs `produce` to its end, sending what it left gathered, or its
/// error as the last item.
pub(crate) fn run_producer<T>(produce: Producer<T>, sender: &ItemSender<T>) {
    let ended = produce(sender).and_then(|()| sender.flush().map_err(ToolError::from));
    if let Err(error) = ended {
        // The stream's last item; nobody may be reading.
        sender.fail(error);
    }
}

/// A blocking producer as a stream, started on first poll.
struct Blocking<T> {
    produce: Option<Producer<T>>,
    sender: Option<ItemSender<T>>,
    items: mpsc::Receiver<Batch<T>>,
    /// The batch being handed out.
    batch: std::vec::IntoIter<Result<T, ToolError>>,
    /// The producer's task, asked how it ended once it sends no more.
    producer: Option<tokio::task::JoinHandle<()>>,
}

impl<T> Blocking<T> {
    fn new(produce: Producer<T>) -> Self {
        let (sender, items) = mpsc::channel(QUEUED_BATCHES);
        Blocking {
            produce: Some(produce),
            sender: Some(ItemSender::new(sender, None)),
            items,
            batch: Vec::new().into_iter(),
            producer: None,
        }
    }
}

impl<T: Send + 'static> Stream for Blocking<T> {
    type Item = Result<T, ToolError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if let (Some(produce), Some(sender)) = (self.produce.take(), self.sender.take()) {
            let run = move || run_producer(produce, &sender);
            match tokio::runtime::Handle::try_current() {
                Ok(runtime) => self.producer = Some(runtime.spawn_blocking(run)),
                Err(_) => drop(std::thread::spawn(run)),
            }
        }
        loop {
            if let Some(item) = self.batch.next() {
                return Poll::Ready(Some(item));
            }
            match self.items.poll_recv(cx) {
                Poll::Ready(Some(batch)) => self.batch = batch.into_iter(),
                Poll::Ready(None) => break,
                Poll::Pending => return Poll::Pending,
            }
        }
        // No more items: a producer that panicked must not pass for the end
        // of the list.
        let Some(producer) = self.producer.as_mut() else {
            return Poll::Ready(None);
        };
        let ended = std::task::ready!(Pin::new(producer).poll(cx));
        self.producer = None;
        Poll::Ready(match ended {
            Err(error) if error.is_panic() => {
                let unfinished = Unfinished::panicked(error.into_panic().as_ref());
                Some(Err(ToolError::new(unfinished.to_string())))
            }
            _ => None,
        })
    }
}

impl<T> Unpin for Blocking<T> {}

/// A stream with its errors converted into [`ToolError`]s.
struct MapErr<S>(Pin<Box<S>>);

impl<S, T, E> Stream for MapErr<S>
where
    S: Stream<Item = Result<T, E>>,
    E: IntoToolError,
{
    type Item = Result<T, ToolError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.0
            .as_mut()
            .poll_next(cx)
            .map(|item| item.map(|item| item.map_err(IntoToolError::into_tool_error)))
    }
}
