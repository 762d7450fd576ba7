//! How a heavy tool's answer of items is kept: what its stream yields, the
//! tags the compiler picks by the result's type, and the refusal of a
//! stream outside `#[mcp_heavy]`. Generated code reaches these through
//! `__private`.

use std::any::Any;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_core::Stream;

use crate::call::outcome::Answer;
use crate::continuation::keep;
use crate::error::tool::{IntoToolError, ToolError};
use crate::invoke::Responder;
use crate::items::{ItemSender, ItemStream, Producer, run_producer};
use crate::output::ToolResult;

/// What a heavy tool's stream yields: `Result<T, E>`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an item of a `#[mcp_heavy]` tool's stream",
    label = "the stream's items must be `Result<T, E>`",
    note = "a heavy tool's stream yields `Result<T, E>` where `T: Serialize` and `E` converts into `ToolError`: map plain items with `.map(Ok::<_, ToolError>)`, or return an iterator of them"
)]
pub trait StreamItem: Send + 'static {
    /// The item; the tag that takes it asks it to be `Serialize`, where
    /// the compiler's report of one that is not reads as a sentence.
    type Item: Send + 'static;
    /// The item, or its error as a [`ToolError`].
    fn into_item(self) -> Result<Self::Item, ToolError>;
}

impl<T, E> StreamItem for Result<T, E>
where
    T: Send + 'static,
    E: IntoToolError + Send + 'static,
{
    type Item = T;

    fn into_item(self) -> Result<T, ToolError> {
        self.map_err(IntoToolError::into_tool_error)
    }
}

/// A stream or an iterator returned by a tool that is not `#[mcp_heavy]`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a stream or an iterator of items, which only a `#[mcp_heavy]` tool may answer",
    label = "items one at a time are answered by `#[mcp_heavy]` only",
    note = "make the tool `#[mcp_heavy]`, or collect the items into a `Vec` first"
)]
pub trait OnlyHeavy {}

/// The tags the compiler picks for a heavy tool's result, by the technique
/// of [`crate::output::kind`] with four levels: generated code calls
/// `(&&&&out).heavy_kind()` on the converted `Result<R, ToolError>`.
pub mod heavy_kind {
    use super::*;

    /// The result is a stream.
    pub struct StreamTag;
    /// The result is an iterator of `Result`s.
    pub struct TryIterTag;
    /// The result is an iterator of items.
    pub struct IterTag;
    /// The result is a value, serialized whole (a sequence item by item).
    pub struct WholeTag;

    /// Found first: the result is a stream.
    pub trait StreamKind {
        /// The tag of a stream.
        #[inline]
        fn heavy_kind(&self) -> StreamTag {
            StreamTag
        }
    }
    impl<S: Stream> StreamKind for &&&Result<S, ToolError> {}

    /// Found second: an iterator of `Result`s.
    pub trait TryIterKind {
        /// The tag of an iterator of `Result`s.
        #[inline]
        fn heavy_kind(&self) -> TryIterTag {
            TryIterTag
        }
    }
    impl<I, T, E> TryIterKind for &&Result<I, ToolError> where I: Iterator<Item = Result<T, E>> {}

    /// Found third: an iterator.
    pub trait IterKind {
        /// The tag of an iterator.
        #[inline]
        fn heavy_kind(&self) -> IterTag {
            IterTag
        }
    }
    impl<I: Iterator> IterKind for &Result<I, ToolError> {}

    /// Found last: anything else.
    pub trait WholeKind {
        /// The tag of a whole value.
        #[inline]
        fn heavy_kind(&self) -> WholeTag {
            WholeTag
        }
    }
    impl<T> WholeKind for Result<T, ToolError> {}

    impl StreamTag {
        /// A heavy read's answer, the stream's items kept as they come.
        pub async fn heavy<S>(self, responder: Responder, out: Result<S, ToolError>) -> Answer
        where
            S: Stream + Send + 'static,
            S::Item: StreamItem,
            <S::Item as StreamItem>::Item: ToolResult,
        {
            let stream = match out {
                Ok(stream) => stream,
                Err(error) => return responder.failed(error),
            };
            let stream = match producer_of::<S, <S::Item as StreamItem>::Item>(stream) {
                Ok(produce) => {
                    let job = keep::producer_job(move |batches, encoded| {
                        run_producer(produce, &ItemSender::new(batches, Some(encoded)));
                    });
                    return responder.kept(job, std::future::ready(())).await;
                }
                Err(stream) => stream,
            };
            let items = MapItems(Box::pin(stream));
            let (job, feeder) = keep::stream_job(items);
            responder.kept(job, feeder).await
        }

        /// Refuses a stream outside `#[mcp_heavy]`.
        pub fn only_heavy<S: OnlyHeavy>(self, _: &Result<S, ToolError>) {}
    }

    impl TryIterTag {
        /// A heavy read's answer, the iterator run on the blocking pool.
        pub async fn heavy<I>(self, responder: Responder, out: Result<I, ToolError>) -> Answer
        where
            I: Iterator + Send + 'static,
            I::Item: StreamItem,
            <I::Item as StreamItem>::Item: ToolResult,
        {
            match out {
                Ok(items) => {
                    let job = keep::iter_job(items.map(StreamItem::into_item));
                    responder.kept(job, std::future::ready(())).await
                }
                Err(error) => responder.failed(error),
            }
        }

        /// Refuses an iterator outside `#[mcp_heavy]`.
        pub fn only_heavy<I: OnlyHeavy>(self, _: &Result<I, ToolError>) {}
    }

    impl IterTag {
        /// A heavy read's answer, the iterator run on the blocking pool.
        pub async fn heavy<I>(self, responder: Responder, out: Result<I, ToolError>) -> Answer
        where
            I: Iterator + Send + 'static,
            I::Item: ToolResult + Send + 'static,
        {
            match out {
                Ok(items) => {
                    let job = keep::iter_job(items.map(Ok));
                    responder.kept(job, std::future::ready(())).await
                }
                Err(error) => responder.failed(error),
            }
        }

        /// Refuses an iterator outside `#[mcp_heavy]`.
        pub fn only_heavy<I: OnlyHeavy>(self, _: &Result<I, ToolError>) {}
    }

    impl WholeTag {
        /// A heavy read's answer: the value serialized into the store, a
        /// sequence item by item.
        pub async fn heavy<T: ToolResult + Send + 'static>(
            self,
            responder: Responder,
            out: Result<T, ToolError>,
        ) -> Answer {
            match out {
                Ok(result) => {
                    responder
                        .kept(keep::whole_job(result), std::future::ready(()))
                        .await
                }
                Err(error) => responder.failed(error),
            }
        }

        /// Any value may be answered whole.
        pub fn only_heavy<T>(self, _: &Result<T, ToolError>) {}
    }
}

/// The blocking producer of `stream` when it is an [`ItemStream`] made
/// from one ([`ItemStream::blocking`], [`ItemStream::iter`]), which then
/// sends its batches to the encoder itself; else `stream`, to be polled.
fn producer_of<S, T>(stream: S) -> Result<Producer<T>, S>
where
    S: 'static,
    T: Send + 'static,
{
    let mut slot = Some(stream);
    let produce = (&mut slot as &mut dyn Any)
        .downcast_mut::<Option<ItemStream<T>>>()
        .and_then(|items| items.as_mut()?.take_producer());
    match (produce, slot) {
        (Some(produce), _) => Ok(produce),
        (None, Some(stream)) => Err(stream),
        (None, None) => unreachable!("the stream is taken only with its producer"),
    }
}

/// A tool's stream with its items as `Result<T, ToolError>`.
struct MapItems<S>(Pin<Box<S>>);

impl<S> Stream for MapItems<S>
where
    S: Stream,
    S::Item: StreamItem,
{
    type Item = Result<<S::Item as StreamItem>::Item, ToolError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.0
            .as_mut()
            .poll_next(cx)
            .map(|item| item.map(StreamItem::into_item))
    }
}
