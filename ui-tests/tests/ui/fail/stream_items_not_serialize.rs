use std::pin::Pin;
use std::task::{Context, Poll};

use mcp_light::prelude::*;
use mcp_light::ItemStream;

struct Row {
    id: u64,
}

#[mcp_heavy]
fn rows(count: u64) -> ItemStream<Row> {
    ItemStream::iter((0..count).map(|id| Row { id }))
}

/// Counts to three, plainly.
struct Count(u64);

impl futures_core::Stream for Count {
    type Item = u64;

    fn poll_next(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<Option<u64>> {
        self.0 += 1;
        Poll::Ready((self.0 <= 3).then_some(self.0))
    }
}

/// A stream's items are `Result`s.
#[mcp_heavy]
fn plain_items() -> Count {
    Count(0)
}

fn main() {}
