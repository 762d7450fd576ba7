//! Every way a heavy read may answer its items, and the inline budget it
//! may set for itself.

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

/// Runs on the async worker (`inline`) and answers up to 16 KiB whole
/// (`inline = N`): the two meanings side by side.
#[mcp_heavy(inline, inline = 16_384)]
fn as_vec_whole_up_to_16_kib(count: u64) -> Vec<Row> {
    (0..count).map(|id| Row { id }).collect()
}

/// Answers a probe for anything larger than its preview.
#[mcp_heavy(inline = 0)]
fn as_vec_always_probed(count: u64) -> Vec<Row> {
    (0..count).map(|id| Row { id }).collect()
}

fn main() {
    let [server_default, whole, probed] =
        mcp_light::tools![as_vec, as_vec_whole_up_to_16_kib, as_vec_always_probed];
    assert_eq!(server_default.inline_budget(), None);
    assert_eq!(whole.inline_budget(), Some(16 * 1024));
    assert_eq!(probed.inline_budget(), Some(0));
}
