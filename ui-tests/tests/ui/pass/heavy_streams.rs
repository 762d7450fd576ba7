//! Every way a heavy read may answer its items.

use mcp_light::ItemStream;
use mcp_light::prelude::*;

#[derive(Serialize)]
struct Row {
    id: u64,
}

#[mcp_heavy]
fn as_vec(count: u64) -> Vec<Row> {
    (0..count).map(|id| Row { id }).collect()
}

#[mcp_heavy]
fn as_iterator(count: u64) -> impl Iterator<Item = Row> + Send + 'static {
    (0..count).map(|id| Row { id })
}

#[mcp_heavy]
fn as_fallible_iterator(
    count: u64,
) -> impl Iterator<Item = Result<Row, std::io::Error>> + Send + 'static {
    (0..count).map(|id| Ok(Row { id }))
}

#[mcp_heavy]
async fn as_stream(count: u64) -> impl futures_core::Stream<Item = Result<Row, ToolError>> + Send {
    ItemStream::iter((0..count).map(|id| Row { id }))
}

#[mcp_heavy]
fn as_item_stream(count: u64) -> Result<ItemStream<Row>, ToolError> {
    Ok(ItemStream::blocking(move |sender| {
        for id in 0..count {
            sender.send(Row { id })?;
        }
        Ok(())
    }))
}

fn main() {}
