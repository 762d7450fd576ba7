//! A task manager on a JSONL file, whose tools build their own
//! `CallToolResult`s (a line of text and `structured_content`), as rmcp's
//! examples do: the second migration fixture.
//!
//! - [`book`]: the tasks, the file they live in, and the handlers that
//!   build each tool's result. Both servers call them as they are.
//! - [`before`]: the server as written for rmcp, in a `#[tool_router]`
//!   impl, with the author's annotations (`idempotent_hint = false` on the
//!   writes).
//! - [`after`]: the same server moved to mcp-light by changing attributes:
//!   `#[mcp_tools]` where `#[tool_router]` was, `#[mcp_tool]`,
//!   `#[mcp_light]` and `#[mcp_heavy]` where `#[tool]` was, the author's
//!   annotations kept. Not one method body changed:
//!   `diff examples/tasks/src/before.rs examples/tasks/src/after.rs` shows
//!   the whole move, and the fixture's test compares the bodies token by
//!   token.

pub mod after;
pub mod before;
pub mod book;
