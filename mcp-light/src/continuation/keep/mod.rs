//! Keeping a read's result: serialized item by item on the blocking pool,
//! written to the store chunk by chunk as it is produced, and answered with
//! a probe made from what was learned on the way — or, for a heavy read
//! whose result turns out to be within its inline budget, answered whole,
//! with nothing written.
//!
//! Three parts run at once for one call: the *feeder* pulls the items of a
//! tool's stream on the async worker; the *encoder* (on the blocking pool)
//! serializes them, cuts the bytes into chunks and digests the result
//! ([`encoder`]); the *writer* (back on the async worker) hands the chunks
//! to the store. Two bounded channels join them, so a result of any size
//! holds at most a few chunks in memory, whatever its length. The writer
//! holds the first chunks back while the result is still within the inline
//! budget (and the first one always, while it may still fit the preview):
//! past the budget it begins the entry and writes them, so a result that
//! answers itself never reaches the store, and one that does not is cut
//! over to it at the budget instead of being read whole first. A store that
//! fails on the way (down, full, over its limit) only stops the writing:
//! the encoder goes on to the end, so the answer still has the result's
//! size, preview and summary, and says why no token was minted.

mod encoder;

use std::future::Future;
use std::sync::Arc;

use serde::Serialize;
use tokio::sync::mpsc;

use crate::call::answer::full_result;
use crate::call::outcome::{Answer, AnswerShape, CallError, TokenUse, Unkept};
use crate::continuation::{Called, Continuations};
use crate::error::tool::ToolError;
use crate::heavy;
use crate::runtime::Unfinished;
use crate::store::{Chunk, EntryWriter, Origin, Sealed, StoreError};
use crate::token::Token;
use crate::usage::UsageReport;

pub(crate) use encoder::{Encoded, Encoder, Failed};

/// Items travel to the encoder in batches of this many, so that handing
/// one over costs a channel operation per batch, not per item.
pub(crate) const BATCH: usize = 256;

/// How many batches wait between a tool's items and the encoder.
const QUEUED_BATCHES: usize = 4;

/// How many chunks wait between the encoder and the store.
const QUEUED_CHUNKS: usize = 2;

/// The work the encoder thread does: feed the result to the encoder.
pub(crate) type Job = Box<dyn FnOnce(&mut Encoder<'_>) -> Result<(), Failed> + Send>;

/// A batch of a tool's items.
type Batch<T> = Vec<Result<T, ToolError>>;

/// A whole result as an encoder job: a sequence is taken item by item.
pub(crate) fn whole_job<T: Serialize + Send + 'static>(result: T) -> Job {
    Box::new(move |encoder| encoder.whole(&result))
}

/// An iterator's items as an encoder job. The iterator runs on a thread of
/// the blocking pool of its own (it may block: read a database, a file),
/// beside the encoder's, so reading and encoding overlap on two cores.
///
/// Encoded batches go back to the iterator's thread to be dropped there:
/// the items' memory is freed by the thread that allocated it, which the
/// allocator does without a lock (freed by the encoder, a million rows'
/// strings contended for the allocator's arena lock a third of the time).
pub(crate) fn iter_job<I, T>(items: I) -> Job
where
    I: Iterator<Item = Result<T, ToolError>> + Send + 'static,
    T: Serialize + Send + 'static,
{
    producer_job(move |batches, encoded| {
        // A batch the encoder is done with: its items dropped here, its
        // room reused.
        let fresh = || match encoded.try_recv() {
            Ok(mut old) => {
                old.clear();
                old
            }
            Err(_) => Vec::with_capacity(BATCH),
        };
        let mut batch = fresh();
        for item in items {
            let failed = item.is_err();
            batch.push(item);
            if batch.len() == BATCH || failed {
                let full = std::mem::replace(&mut batch, fresh());
                // The encoder stopped (a failure, a cancelled call).
                if batches.blocking_send(full).is_err() || failed {
                    return;
                }
            }
        }
        let _ = batches.blocking_send(batch);
    })
}

/// A producer's batches as an encoder job: `produce` runs on a thread of
/// the blocking pool of its own, beside the encoder's, and sends its
/// batches to the encoder through the first channel it is given; each
/// batch comes back encoded through the second, so that the producer
/// reuses it and drops its items on its own thread. An iterator
/// ([`iter_job`]) and a tool's blocking producer (`ItemStream::blocking`)
/// run this way.
pub(crate) fn producer_job<T, P>(produce: P) -> Job
where
    T: Serialize + Send + 'static,
    P: FnOnce(mpsc::Sender<Batch<T>>, std::sync::mpsc::Receiver<Batch<T>>) + Send + 'static,
{
    Box::new(move |encoder| {
        let (batches, mut queue) = mpsc::channel::<Batch<T>>(QUEUED_BATCHES);
        let (done, encoded) = std::sync::mpsc::channel::<Batch<T>>();
        let runtime = tokio::runtime::Handle::current();
        let producer = runtime.spawn_blocking(move || produce(batches, encoded));
        encode_batches(encoder, &mut queue, Some(&done))?;
        // The queue closed: the producer ended, or panicked, which must not
        // pass for the end of the list.
        match runtime.block_on(producer) {
            Err(error) if error.is_panic() => Err(Failed::Unfinished(Unfinished::panicked(
                error.into_panic().as_ref(),
            ))),
            _ => Ok(()),
        }
    })
}

/// Encodes the batches `queue` receives until it closes, handing each one
/// encoded to `done` (to be dropped where it was made), if given.
fn encode_batches<T: Serialize>(
    encoder: &mut Encoder<'_>,
    queue: &mut mpsc::Receiver<Batch<T>>,
    done: Option<&std::sync::mpsc::Sender<Batch<T>>>,
) -> Result<(), Failed> {
    encoder.begin_list();
    while let Some(mut batch) = queue.blocking_recv() {
        for item in &mut batch {
            match item {
                Ok(item) => encoder.item(item)?,
                Err(error) => {
                    let error = std::mem::replace(error, ToolError::new(""));
                    return Err(Failed::Tool(error));
                }
            }
        }
        if let Some(done) = done {
            // The producer may have ended: then the batch drops here.
            let _ = done.send(batch);
        }
    }
    Ok(())
}

/// A stream's items: the encoder job that takes them from a queue, and the
/// feeder that fills it from the stream on the async worker, a batch of
/// what the stream has ready at a time.
pub(crate) fn stream_job<S, T>(stream: S) -> (Job, impl Future<Output = ()> + Send)
where
    S: futures_core::Stream<Item = Result<T, ToolError>> + Send,
    T: Serialize + Send + 'static,
{
    let (batches, mut queue) = mpsc::channel::<Batch<T>>(QUEUED_BATCHES);
    let job: Job = Box::new(move |encoder| encode_batches(encoder, &mut queue, None));
    let feeder = async move {
        let mut stream = std::pin::pin!(stream);
        loop {
            // Wait for one item, then take whatever else is ready.
            let Some(first) = next(stream.as_mut()).await else {
                return;
            };
            let mut failed = first.is_err();
            let mut batch = vec![first];
            let mut ended = false;
            while batch.len() < BATCH && !failed {
                match ready(stream.as_mut()).await {
                    Ready::Item(item) => {
                        failed = item.is_err();
                        batch.push(item);
                    }
                    Ready::End => {
                        ended = true;
                        break;
                    }
                    Ready::Pending => break,
                }
            }
            // The encoder stopped (a failure, a cancelled call): stop too.
            if batches.send(batch).await.is_err() || failed || ended {
                return;
            }
        }
    };
    (job, feeder)
}

/// The next item of `stream`.
async fn next<S: futures_core::Stream + ?Sized>(
    mut stream: std::pin::Pin<&mut S>,
) -> Option<S::Item> {
    std::future::poll_fn(|cx| stream.as_mut().poll_next(cx)).await
}

/// What a stream has without waiting.
enum Ready<T> {
    Item(T),
    End,
    Pending,
}

/// The next item of `stream` if it is ready now.
async fn ready<S: futures_core::Stream + ?Sized>(
    mut stream: std::pin::Pin<&mut S>,
) -> Ready<S::Item> {
    std::future::poll_fn(|cx| {
        std::task::Poll::Ready(match stream.as_mut().poll_next(cx) {
            std::task::Poll::Ready(Some(item)) => Ready::Item(item),
            std::task::Poll::Ready(None) => Ready::End,
            std::task::Poll::Pending => Ready::Pending,
        })
    })
    .await
}

/// What a kept read is answered with, and by whom.
pub(crate) struct Keep<'c> {
    pub(crate) continuations: &'c Continuations,
    pub(crate) called: &'c Called,
    /// The scopes the tool requires: what a result kept asks of every
    /// redemption.
    pub(crate) scopes: &'static [&'static str],
    /// Whether a token may be minted for this caller.
    pub(crate) can_mint: bool,
    /// A heavy read's inline budget in bytes: a result within it (or one
    /// that fits the preview) answers itself, a larger one is stored for a
    /// probe. `None` for a plain read, stored only over the size backstop.
    pub(crate) inline_budget: Option<usize>,
    /// The size backstop as it stands for this client: a result larger
    /// than it is never answered whole. `None` when the backstop is off.
    pub(crate) backstop: Option<usize>,
    pub(crate) usage: Option<Arc<UsageReport>>,
}

impl Keep<'_> {
    /// Runs `job` (and `feeder`, for a stream) and answers: the result
    /// itself when it is small (within a heavy read's inline budget, a
    /// plain read's size backstop), else a probe with a token, else (the
    /// store could not keep it) a probe without one.
    pub(crate) async fn run(self, job: Job, feeder: impl Future<Output = ()>) -> Answer {
        if tokio::runtime::Handle::try_current().is_err() {
            // The encoder and the writer run at once, on two threads.
            return Answer::error(CallError::NoRuntime {
                tool: self.called.tool.clone(),
            });
        }
        let heavy = self.continuations.heavy().clone();
        // Kept whole besides: a result the answer may still be (within the
        // inline budget, or within the backstop when the store fails).
        let small_limit = heavy
            .size_backstop
            .unwrap_or(heavy.max_full_bytes)
            .max(self.inline_budget.unwrap_or(0));
        let (chunks, mut received) = mpsc::channel::<Chunk>(QUEUED_CHUNKS);
        let usage = self.usage.clone();
        let encoding = run_encoder(move || {
            let mut out = move |chunk| chunks.blocking_send(chunk).is_ok();
            let mut encoder = Encoder::new(Origin::Read, heavy, small_limit, usage, &mut out);
            job(&mut encoder)?;
            encoder.finish()
        });
        let mut writing = Writing::new(&self);
        let write = async {
            while let Some(chunk) = received.recv().await {
                writing.take(chunk).await;
            }
        };
        let (encoded, (), ()) = tokio::join!(encoding, feeder, write);
        let encoded = match encoded {
            Ok(encoded) => encoded,
            Err(failed) => return self.failed(failed),
        };
        self.answer(encoded, writing).await
    }

    async fn answer(&self, mut encoded: Encoded, mut writing: Writing<'_>) -> Answer {
        let config = self.continuations.heavy();
        match self.inline_budget {
            // Nothing to page, or cheaper whole than a probe and a page:
            // the result answers itself, counted as the result it is. The
            // writer held every chunk of it back, so the store never saw
            // it (dropped, a writer that had begun would leave nothing).
            Some(budget) => {
                let whole = encoded.fits_preview.take().or_else(|| {
                    (encoded.size <= budget as u64)
                        .then(|| encoded.small.take())
                        .flatten()
                });
                if let Some(whole) = whole {
                    drop(writing);
                    return Answer::new(full_result(whole), AnswerShape::Inline);
                }
            }
            None if !self.over_backstop(encoded.size) => {
                if let Some(whole) = encoded.small.take() {
                    return Answer::full(whole);
                }
            }
            None => {}
        }
        let full = encoded.digest.full_counts();
        let sealed = Sealed::new(
            encoded.size,
            encoded.items,
            Arc::from(encoded.digest.to_bytes()),
        );
        let kept = writing
            .commit(sealed)
            .await
            .map_err(|why| match writing.too_large {
                // Refused as it streamed: the reason gives the whole size.
                Some(limit) => Unkept::Store(StoreError::TooLarge {
                    size: encoded.size,
                    limit,
                }),
                None => why,
            });
        let tool = &self.called.tool;
        let answer = match kept {
            Ok(token) => Answer::shaped(
                &heavy::probe(
                    tool,
                    encoded.preview.clone(),
                    &encoded.digest.shape,
                    encoded.size,
                    &token,
                    config,
                ),
                AnswerShape::Probe,
            )
            .with_token(TokenUse::Minted, self.continuations.store_name()),
            Err(_) if !self.over_backstop(encoded.size) && encoded.small.is_some() => {
                Answer::full(encoded.small.clone().expect("checked"))
            }
            Err(why) => Answer::shaped(
                &heavy::unkept_probe(
                    tool,
                    encoded.preview.clone(),
                    encoded.digest.summary.clone(),
                    encoded.size,
                    &why.to_string(),
                ),
                AnswerShape::Probe,
            ),
        };
        answer.standing_for(encoded.size).counting(full)
    }

    /// Whether a result of `size` bytes is over the backstop.
    fn over_backstop(&self, size: u64) -> bool {
        self.backstop.is_some_and(|limit| size > limit as u64)
    }

    fn failed(&self, failed: Failed) -> Answer {
        let tool = self.called.tool.clone();
        match failed {
            Failed::Tool(error) => Answer::error(CallError::Failed {
                tool,
                why: error.into(),
            }),
            Failed::Unserializable(error) => {
                Answer::error(CallError::Unserializable { tool, error })
            }
            Failed::Cancelled => Answer::error(CallError::Cancelled { tool }),
            Failed::Unfinished(unfinished) => Answer::unfinished(&tool, unfinished),
        }
    }
}

/// Runs the encoder on the blocking pool (inline without a runtime). A
/// panic there is an error that names it.
async fn run_encoder(
    work: impl FnOnce() -> Result<Encoded, Failed> + Send + 'static,
) -> Result<Encoded, Failed> {
    crate::runtime::run_sync(work)
        .await
        .unwrap_or_else(|unfinished| Err(Failed::Unfinished(unfinished)))
}

/// The store's side of a kept result: the chunks are held until a second
/// one shows the result is large and the held bytes are over the inline
/// budget (a result within it answers itself and is never stored); from
/// then on every chunk is written as it comes.
struct Writing<'k> {
    keep: &'k Keep<'k>,
    /// The chunks held back, in order, and their bytes.
    held: Vec<Chunk>,
    held_bytes: usize,
    /// The bytes that may be held back: the inline budget.
    hold: usize,
    open: Option<(Token, Box<dyn EntryWriter + 'k>)>,
    /// Why the result cannot be kept, once that is known.
    refused: Option<Unkept>,
    /// The store's limit, when it refused the result as too large part-way
    /// (its size known only at the end).
    too_large: Option<u64>,
}

impl<'k> Writing<'k> {
    fn new(keep: &'k Keep<'k>) -> Self {
        let refused = (!keep.can_mint).then_some(Unkept::NoStore);
        Writing {
            keep,
            held: Vec::new(),
            held_bytes: 0,
            hold: keep.inline_budget.unwrap_or(0),
            open: None,
            refused,
            too_large: None,
        }
    }

    async fn take(&mut self, chunk: Chunk) {
        if self.refused.is_some() {
            return;
        }
        if self.open.is_some() {
            self.write(chunk).await;
            return;
        }
        self.held_bytes += chunk.bytes.len();
        self.held.push(chunk);
        if self.held.len() < 2 || self.held_bytes <= self.hold {
            return;
        }
        // Over the budget: the result is stored, from its first chunk on.
        if !self.open().await {
            self.held = Vec::new();
            self.held_bytes = 0;
            return;
        }
        self.write_held().await;
    }

    /// Writes the chunks held back so far, in order.
    async fn write_held(&mut self) {
        for chunk in std::mem::take(&mut self.held) {
            self.write(chunk).await;
        }
        self.held_bytes = 0;
    }

    /// Starts the entry under a fresh token.
    async fn open(&mut self) -> bool {
        let keep = self.keep;
        match keep
            .continuations
            .begin(keep.called, keep.scopes, Origin::Read)
            .await
        {
            Ok(open) => {
                self.open = Some(open);
                true
            }
            Err(why) => {
                self.refused = Some(why);
                false
            }
        }
    }

    async fn write(&mut self, chunk: Chunk) {
        let Some((_, writer)) = self.open.as_mut() else {
            return;
        };
        if let Err(error) = writer.write(chunk).await {
            self.open = None;
            self.keep.continuations.store_failed(&error);
            self.too_large = match error {
                StoreError::TooLarge { limit, .. } => Some(limit),
                _ => None,
            };
            self.refused = Some(Unkept::Store(error));
        }
    }

    /// Commits the entry (writing what was held), or says why it could not.
    async fn commit(&mut self, sealed: Sealed) -> Result<Token, Unkept> {
        if let Some(why) = self.refused.take() {
            return Err(why);
        }
        if self.open.is_none() {
            if !self.open().await {
                return Err(self.refused.take().unwrap_or(Unkept::NoStore));
            }
            self.write_held().await;
        }
        let Some((token, writer)) = self.open.take() else {
            return Err(self.refused.take().unwrap_or(Unkept::NoStore));
        };
        let bytes = sealed.size;
        match writer.commit(sealed).await {
            Ok(()) => {
                self.keep.continuations.store_worked();
                self.keep.continuations.stored(bytes);
                Ok(token)
            }
            Err(error) => {
                self.keep.continuations.store_failed(&error);
                Err(Unkept::Store(error))
            }
        }
    }
}
