//! What a test of a tool reads its answers with: [`AnswerExt`] reads the
//! [`CallToolResult`](crate::CallToolResult) that [`Server::call`](crate::Server::call)
//! answers as JSON or as an error's text, the way an MCP client reads it.
//!
//! Not in the [prelude](crate::prelude), which holds what a tool's own code
//! writes: a test module adds `use mcp_light::testing::AnswerExt;`.

pub use crate::call::answer::{AnswerError, AnswerExt};
