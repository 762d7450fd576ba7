//! The call and its answer: what comes in, what the tool takes from it,
//! and what goes back.
//!
//! - `args`: a call's arguments on their way in, bounded and stripped of
//!   mcp-light's own fields before the tool sees them.
//! - `context/` (`mcp_light::context`): what a call carries: the caller,
//!   the line back to the client, the task it may become. `extract`
//!   (`mcp_light::extract`): extractors of your own. `state`: host state
//!   taken by type. `wrappers`: rmcp's `Parameters<T>` and `Json<T>`.
//! - `invoke`: one call of one tool. `offload`: work too large for the
//!   async workers, on the blocking pool.
//! - `output`: what a tool's return value becomes. `content`: answers that
//!   are MCP content rather than JSON. `built`: a `CallToolResult` a heavy
//!   read or a write builds itself, and the JSON the discipline reads of it.
//! - `outcome/`: what an answer is ([`Answer`](outcome::Answer)), decided
//!   where it is made, with the errors a call answers (`call_error`) and
//!   the outcome a write takes (`write`). `answer/`: the tool results
//!   themselves, and reading them back as a client does; `testing`
//!   (`mcp_light::testing`) hands that to a test.
//! - `roundtrip`: what a tool's asks of the client need from the server.

pub(crate) mod answer;
pub(crate) mod args;
pub(crate) mod built;
pub(crate) mod content;
pub mod context;
pub mod extract;
pub(crate) mod invoke;
pub(crate) mod offload;
pub(crate) mod outcome;
pub(crate) mod output;
pub(crate) mod roundtrip;
pub(crate) mod state;
pub mod testing;
pub(crate) mod wrappers;
