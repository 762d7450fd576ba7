//! The errors a call answers, each sentence written once: the `Display` of
//! a [`CallError`] is the text the caller reads in the `isError` result.

use std::borrow::Cow;
use std::fmt;

use crate::call::args::LongArgument;
use crate::error::tool::StoreError;
use crate::error::tool::ToolError;
use crate::error::tool::Unfinished;

/// A tool's name in an error: the name it is published under, or one a
/// caller sent.
pub(crate) type Name = Cow<'static, str>;

/// Why a call was answered with an error.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CallError {
    #[error("the arguments of `{tool}` must be a JSON object, not {found}")]
    NotAnObject { tool: Name, found: &'static str },
    /// A string of the arguments past the server's bound, found before
    /// any tool is.
    #[error(transparent)]
    Bounds(LongArgument),
    #[error(
        "`{tool}` is published only through `{dispatcher}` here: call `{dispatcher}` with \
         \"resource\": \"{resource}\", \"action\": \"{action}\" and the arguments in \"params\" \
         (\"describe\": true answers their schema)"
    )]
    OnlyThroughDispatcher {
        tool: Name,
        dispatcher: Name,
        resource: &'static str,
        action: &'static str,
    },
    #[error("unknown tool `{tool}`; this server has: {known}")]
    UnknownTool { tool: Name, known: String },
    /// A dispatcher could not route the call: the sentence of its routing
    /// error, which the dispatcher writes (it knows its fields' names).
    #[error("{0}")]
    Route(String),
    #[error(
        "insufficient_scope: `{tool}` needs the OAuth scope `{missing}`, which the access token \
         does not grant; ask the authorization server for a token with `{missing}`"
    )]
    MissingScope { tool: Name, missing: String },
    #[error(
        "`{tool}` runs only as a task, and a call through Server::call has no client to follow \
         one: call it over MCP from a client that declares the {} extension",
        rmcp::model::TASKS_EXTENSION_ID
    )]
    TaskOnly { tool: Name },
    /// Arguments the tool (or mcp-light's own fields) cannot take, `at` the
    /// field when one is to blame.
    #[error("invalid arguments for `{tool}`{}: {problem}", At(at.as_deref()))]
    InvalidArguments {
        tool: Name,
        at: Option<String>,
        problem: String,
    },
    /// Arguments a tool's own parse refused, with what the tool takes.
    #[error(
        "invalid arguments for `{tool}`{}: {problem}; `{tool}` takes {takes}",
        At(at.as_deref())
    )]
    ArgumentsRefused {
        tool: Name,
        at: Option<String>,
        problem: String,
        takes: Takes,
    },
    /// A top-level argument the tool does not declare: what it takes, and,
    /// when the argument is an object (the fields wrapped in one more
    /// level), that they go at the top level.
    #[error(
        "invalid arguments for `{tool}`: unknown field `{field}`; `{tool}` takes {takes}{}",
        Unwrap(wrapped.then_some(field.as_str()))
    )]
    UnknownArgument {
        tool: Name,
        field: String,
        takes: Takes,
        wrapped: bool,
    },
    /// Invalid arguments of a call a dispatcher routed, with the schema its
    /// `params` must match.
    #[error("{0}")]
    Taught(String),
    #[error("`{tool}` failed: {why}")]
    Failed { tool: Name, why: Failure },
    #[error("`{tool}` returned a result that cannot be serialized as JSON: {error}")]
    Unserializable {
        tool: Name,
        error: serde_json::Error,
    },
    #[error("`{tool}` was cancelled")]
    Cancelled { tool: Name },
    #[error("`{tool}` cannot keep its result outside a Tokio runtime; serve it from one")]
    NoRuntime { tool: Name },
    #[error(
        "`{tool}` did not finish within {limit}, this server's deadline for one tool run, and \
         was stopped; a write may or may not have happened, so read before retrying it"
    )]
    Deadline { tool: Name, limit: String },
    #[error("this call needs an MCP client to answer it")]
    NeedsClient,
    /// A protocol error answered as a tool error, where the call has no
    /// client to send it to ([`Server::call`](crate::Server::call)).
    #[error("{0}")]
    Protocol(String),
    #[error(
        "`continuation_token` must be the token string a previous answer of `{tool}` gave; {}",
        StartAgain(tool)
    )]
    BadToken { tool: Name },
    #[error("{}, so no token redeems; {}", Unkept::NoStore, StartAgain(tool))]
    NoStore { tool: Name },
    /// Word for word the same whatever the reason, so a caller cannot tell
    /// someone else's live token from a dead one.
    #[error(
        "this continuation token is unknown, has expired, or was issued to another caller or \
         through another tool; {} (after a write, read what was written with its retrieve tool \
         instead of repeating the write)",
        StartAgain(tool)
    )]
    TokenRefused { tool: Name },
    #[error("{error}; try again shortly, or {}", StartAgain(tool))]
    StoreUnavailable { tool: Name, error: StoreError },
    #[error(
        "the stored result of `{tool}` is {size} bytes, more than the {limit} bytes answered \
         whole; {instead}"
    )]
    TooLargeWhole {
        tool: Name,
        size: u64,
        limit: usize,
        instead: &'static str,
    },
    #[error(
        "the stored result of `{tool}` is {size} bytes, more than this client keeps of an \
         answer ({keeps} bytes); {instead}"
    )]
    TooLargeForClient {
        tool: Name,
        size: u64,
        keeps: usize,
        instead: &'static str,
    },
    #[error(
        "the stored result of `{tool}` is damaged ({error}); {}",
        StartAgain(tool)
    )]
    Damaged { tool: Name, error: String },
}

/// Why a result was not kept behind a token: a probe's `why_no_token`.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Unkept {
    #[error("this server keeps no continuation store")]
    NoStore,
    #[error("no random token could be drawn: {0}")]
    NoRandomness(getrandom::Error),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Why a tool failed: its own error, or its run did not finish.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Failure {
    #[error("{0}")]
    Tool(ToolError),
    #[error(transparent)]
    Unfinished(#[from] Unfinished),
}

impl From<ToolError> for Failure {
    fn from(error: ToolError) -> Failure {
        Failure::Tool(error)
    }
}

/// What kind of error a call answered: `mcp_light.error` on the request's
/// span.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ErrorKind {
    /// The arguments were refused before the tool ran.
    Arguments,
    /// No such tool, or one only a dispatcher reaches.
    UnknownTool,
    /// The access token lacks a scope the tool needs.
    Scope,
    /// The call cannot be answered here (a task-only tool, a call that
    /// needs a client, a protocol refusal).
    Unanswerable,
    /// The tool failed, panicked or was cancelled.
    Tool,
    /// The tool failed with rmcp's `ErrorData`, which goes out over MCP as
    /// that JSON-RPC error.
    JsonRpc,
    /// The tool ran past the server's deadline.
    Deadline,
    /// The tool's result cannot be serialized.
    Serialization,
    /// A continuation token that redeems nothing for this caller.
    Token,
    /// The continuation store failed, or holds something it cannot serve.
    Store,
}

impl ErrorKind {
    /// The kind's name in telemetry.
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Arguments => "arguments",
            ErrorKind::UnknownTool => "unknown_tool",
            ErrorKind::Scope => "scope",
            ErrorKind::Unanswerable => "unanswerable",
            ErrorKind::Tool => "tool",
            ErrorKind::JsonRpc => "jsonrpc",
            ErrorKind::Deadline => "deadline",
            ErrorKind::Serialization => "serialization",
            ErrorKind::Token => "token",
            ErrorKind::Store => "store",
        }
    }
}

impl CallError {
    /// The error's kind.
    pub(crate) const fn kind(&self) -> ErrorKind {
        match self {
            CallError::NotAnObject { .. }
            | CallError::Bounds(_)
            | CallError::Route(_)
            | CallError::InvalidArguments { .. }
            | CallError::ArgumentsRefused { .. }
            | CallError::UnknownArgument { .. }
            | CallError::Taught(_)
            | CallError::TooLargeWhole { .. }
            | CallError::TooLargeForClient { .. } => ErrorKind::Arguments,
            CallError::OnlyThroughDispatcher { .. } | CallError::UnknownTool { .. } => {
                ErrorKind::UnknownTool
            }
            CallError::MissingScope { .. } => ErrorKind::Scope,
            CallError::TaskOnly { .. } | CallError::NeedsClient | CallError::Protocol(_) => {
                ErrorKind::Unanswerable
            }
            CallError::Failed { .. }
            | CallError::Cancelled { .. }
            | CallError::NoRuntime { .. } => ErrorKind::Tool,
            CallError::Deadline { .. } => ErrorKind::Deadline,
            CallError::Unserializable { .. } => ErrorKind::Serialization,
            CallError::BadToken { .. }
            | CallError::NoStore { .. }
            | CallError::TokenRefused { .. } => ErrorKind::Token,
            CallError::StoreUnavailable { .. } | CallError::Damaged { .. } => ErrorKind::Store,
        }
    }
}

/// ` at `field``, when a field is to blame.
struct At<'a>(Option<&'a str>);

/// The argument names a tool declares, as a refusal lists them: the first
/// [`Takes::LISTED`], then how many more its schema has.
#[derive(Debug)]
pub(crate) struct Takes(pub(crate) Vec<String>);

impl Takes {
    /// How many names a refusal spells out: enough for most tools, and a
    /// bound on the message for a tool with hundreds.
    const LISTED: usize = 12;
}

impl std::fmt::Display for Takes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.0.is_empty() {
            return f.write_str("no arguments");
        }
        for (i, name) in self.0.iter().take(Takes::LISTED).enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "`{name}`")?;
        }
        match self.0.len().checked_sub(Takes::LISTED) {
            Some(more) if more > 0 => write!(f, " and {more} more (see its input schema)"),
            _ => Ok(()),
        }
    }
}

/// `; send them at the top level, not inside `field``, for an unknown
/// argument that wraps the fields in an object.
struct Unwrap<'a>(Option<&'a str>);

impl std::fmt::Display for Unwrap<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(field) => write!(f, "; send them at the top level, not inside `{field}`"),
            None => Ok(()),
        }
    }
}

impl fmt::Display for At<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(at) => write!(f, " at `{at}`"),
            None => Ok(()),
        }
    }
}

/// What a caller whose token redeems nothing does next.
pub(crate) struct StartAgain<'a>(pub(crate) &'a str);

impl fmt::Display for StartAgain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "start again by calling `{}` without `continuation_token`",
            self.0
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_message_reads_as_the_caller_sees_it() {
        let tool: Name = "device_list".into();
        assert_eq!(
            CallError::InvalidArguments {
                tool: tool.clone(),
                at: Some("verify".into()),
                problem: "expected true or false, got 3".into(),
            }
            .to_string(),
            "invalid arguments for `device_list` at `verify`: expected true or false, got 3"
        );
        assert_eq!(
            CallError::InvalidArguments {
                tool: tool.clone(),
                at: None,
                problem: "page must be at least 1".into(),
            }
            .to_string(),
            "invalid arguments for `device_list`: page must be at least 1"
        );
        assert_eq!(
            CallError::NoStore { tool: tool.clone() }.to_string(),
            "this server keeps no continuation store, so no token redeems; start again by \
             calling `device_list` without `continuation_token`"
        );
        assert_eq!(
            CallError::Failed {
                tool,
                why: ToolError::new("no site 9").into(),
            }
            .to_string(),
            "`device_list` failed: no site 9"
        );
    }

    #[test]
    fn the_sentence_every_refused_token_gets_names_no_reason() {
        let refused = CallError::TokenRefused {
            tool: "inventory".into(),
        };
        assert_eq!(refused.kind(), ErrorKind::Token);
        assert!(refused.to_string().starts_with(
            "this continuation token is unknown, has expired, or was issued to another caller"
        ));
    }
}
