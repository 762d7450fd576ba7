//! How a host says what mcp-light does with its composed handler's tools: [`HandlerTools`] and [`HandlerTool`].

use super::handler_writes::HandlerWrite;
use std::collections::HashMap;

/// What a server does with the answers of the tools of the handler composed
/// with [`ServerBuilder::with_handler`](crate::ServerBuilder::with_handler)
/// ([`ServerBuilder::with_handler_tools`](crate::ServerBuilder::with_handler_tools)).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum HandlerTools {
    /// Answered and published as the handler answers and lists them: a
    /// server moving to mcp-light one tool at a time changes nothing for
    /// the tools it has not moved.
    #[default]
    AsAnswered,
    /// Answered within what the calling client keeps: each tool publishes
    /// `continuation_token` and the negotiation fields, an answer larger
    /// than the client keeps is kept behind a token and answered with a
    /// probe, and a call with the token is served from the store in the
    /// mode it asks (`summary`, `paginated`, `filtered`, `full`) without
    /// calling the handler again.
    Kept,
}

/// What a server does with the answers of one tool of the composed handler,
/// over what [`HandlerTools`] says of them all
/// ([`ServerBuilder::with_handler_tool`](crate::ServerBuilder::with_handler_tool)).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum HandlerTool {
    /// Answered and published as the handler answers and lists it, even
    /// where the others are kept: a tool whose every answer the client must
    /// read whole.
    AsAnswered,
    /// Kept ([`HandlerTools::Kept`]), and of an answer too large for the
    /// client only the value at this JSON pointer (RFC 6901, such as
    /// `/entities` or `/0/children`) in what the answer carries: the list
    /// the maintainer knows its items are in, which then pages. An answer
    /// without it is kept whole.
    KeptAt(String),
    /// Kept, and a write: its schema publishes `verify` beside the
    /// negotiation fields, and a successful answer that carries JSON is
    /// answered with a lean envelope naming what was written (a token
    /// stands for the whole answer; `verify: true` answers it where it
    /// fits the client).
    Write(HandlerWrite),
}

/// A dispatcher over the handler's tools as the builder was given it: its
/// name, and each group's name and tools.
#[derive(Debug, Clone)]
pub(crate) struct AskedDispatcher {
    pub(crate) name: String,
    pub(crate) groups: Vec<(String, Vec<String>)>,
}

/// What is done with the composed handler's tools: all of them, and those
/// named.
#[derive(Debug, Clone, Default)]
pub(crate) struct HandlerToolsSet {
    pub(crate) all: HandlerTools,
    pub(crate) each: HashMap<String, HandlerTool>,
    /// The dispatchers asked for: each one's name and groups (resource,
    /// tool names), built into [`HandlerToolsSet::dispatchers`] with the
    /// server.
    pub(crate) asked: Vec<AskedDispatcher>,
    /// The dispatchers over the handler's tools.
    pub(crate) dispatchers: Vec<crate::catalog::dispatch::Dispatcher>,
    /// A call of the handler's tools may become a task.
    pub(crate) tasks: bool,
}
