//! The call and its answer: what comes in, what the tool takes from it,
//! and what goes back.
//!
//! - `args`: a call's arguments on their way in, bounded and stripped of
//!   mcp-light's own fields before the tool sees them.
//! - `wrappers`: rmcp's `Parameters<T>` and `Json<T>`.
//! - `content`: answers that are MCP content rather than JSON. `built`: a
//!   `CallToolResult` a heavy read or a write builds itself, and the JSON
//!   the discipline reads of it.
//! - `outcome/`: what an answer is ([`Answer`](outcome::Answer)), decided
//!   where it is made, with the errors a call answers (`call_error`) and
//!   the outcome a write takes (`write`). `answer`: the tool results
//!   themselves; reading them back as a client does is `testing`'s
//!   (`mcp_light::testing`).
//! - `roundtrip`: what a tool's asks of the client need from the server.

pub(crate) mod answer;
pub(crate) mod args;
pub(crate) mod built;
pub(crate) mod content;
pub(crate) mod outcome;
pub(crate) mod roundtrip;
pub(crate) mod wrappers;
