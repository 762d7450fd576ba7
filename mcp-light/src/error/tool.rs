//! Errors a tool returns, and errors raised while assembling the registry.

use std::fmt;

/// The error a tool returns. Its message reaches the caller as an `isError`
/// tool result; the server keeps serving.
///
/// Any `std::error::Error + Send + Sync + 'static` converts into it with `?`,
/// so a tool can return `Result<T, ToolError>` and still use `?` on database,
/// I/O or parse errors. For a plain message, use [`ToolError::new`].
///
/// A tool need not return `ToolError` itself: any `Result<T, E>` whose `E`
/// converts into a boxed `std::error::Error + Send + Sync` is answered the
/// same way (a std error, `Box<dyn Error + Send + Sync>`, `anyhow::Error`,
/// `String`), aliases such as `type ApiResult<T> = Result<T, ToolError>`
/// included.
///
/// ```
/// use mcp_light::ToolError;
///
/// fn find(id: u32) -> Result<&'static str, ToolError> {
///     match id {
///         1 => Ok("edge-01"),
///         _ => Err(ToolError::new(format!("no device with id {id}"))),
///     }
/// }
/// assert_eq!(find(2).unwrap_err().to_string(), "no device with id 2");
/// ```
pub struct ToolError {
    message: String,
    source: Option<Box<dyn std::error::Error + Send + Sync + 'static>>,
}

impl ToolError {
    /// An error with this message.
    pub fn new(message: impl fmt::Display) -> Self {
        ToolError {
            message: message.to_string(),
            source: None,
        }
    }

    /// The message the caller sees.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// The error this one was converted from, if any.
    pub fn source(&self) -> Option<&(dyn std::error::Error + Send + Sync + 'static)> {
        self.source.as_deref()
    }

    /// The error this one was converted from, taken out, where it is an
    /// `E`; else this error as it is.
    pub(crate) fn into_source<E: std::error::Error + 'static>(self) -> Result<E, ToolError> {
        let ToolError { message, source } = self;
        match source.map(|source| source.downcast::<E>()) {
            Some(Ok(source)) => Ok(*source),
            Some(Err(source)) => Err(ToolError {
                message,
                source: Some(source),
            }),
            None => Err(ToolError {
                message,
                source: None,
            }),
        }
    }
}

impl<E> From<E> for ToolError
where
    E: std::error::Error + Send + Sync + 'static,
{
    fn from(error: E) -> Self {
        ToolError {
            message: error.to_string(),
            source: Some(Box::new(error)),
        }
    }
}

/// Turns the error of a tool's result into the [`ToolError`] the caller sees.
///
/// Implemented for `ToolError` itself and for every error that converts into
/// `Box<dyn Error + Send + Sync>`. The two sets cannot overlap, because only
/// this crate could make `ToolError` such an error; a direct `From` impl for
/// `anyhow::Error` or `Box<dyn Error>` would overlap with the blanket `From`
/// above, since their crates may one day implement `Error` for them.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "the error type `{Self}` of this tool's result does not convert into `ToolError`",
    label = "a tool's `Err` must be a `ToolError` or a `std::error::Error + Send + Sync + 'static`",
    note = "implement `std::error::Error` for `{Self}` (for example with `#[derive(thiserror::Error)]`), or return `Result<T, ToolError>` and convert the error where it arises: `.map_err(ToolError::new)` if it implements `Display`"
)]
pub trait IntoToolError {
    /// The error as the caller sees it.
    fn into_tool_error(self) -> ToolError;
}

impl IntoToolError for ToolError {
    fn into_tool_error(self) -> ToolError {
        self
    }
}

impl<E> IntoToolError for E
where
    E: Into<Box<dyn std::error::Error + Send + Sync + 'static>>,
{
    fn into_tool_error(self) -> ToolError {
        let error = self.into();
        ToolError {
            message: error.to_string(),
            source: Some(error),
        }
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl fmt::Debug for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut d = f.debug_struct("ToolError");
        d.field("message", &self.message);
        if let Some(source) = &self.source {
            d.field("source", source);
        }
        d.finish()
    }
}

/// Why a server cannot be built: its tools cannot be served as registered,
/// or its settings do not fit together ([`ServerBuilder::build`](crate::ServerBuilder::build)).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// Two functions registered a tool under one name.
    #[error(
        "two tools are named `{name}`: `{first}` and `{second}`; \
         rename one function or give it `name = \"...\"` in its attribute"
    )]
    DuplicateName {
        /// The tool name both functions claim.
        name: String,
        /// The path of the function registered first.
        first: String,
        /// The path of the other function.
        second: String,
    },
    /// mcp-light and the handler composed with
    /// [`ServerBuilder::with_handler`](crate::ServerBuilder::with_handler) serve a tool of one
    /// name: one of the two could never be called.
    #[error(
        "the tool `{name}` is served twice: by {served_by} and by the handler composed with \
         `with_handler`; rename one (`name = \"...\"` in mcp-light's attribute, \
         `#[tool(name = \"...\")]` in rmcp's), or take it out of the handler's router once it \
         has moved"
    )]
    ServedTwice {
        /// The name both serve.
        name: String,
        /// What serves it in mcp-light: a function's path, a dispatcher, the viewer.
        served_by: String,
    },
    /// A dispatcher was given the name of a registered tool.
    #[error(
        "the dispatcher name `{name}` is already the name of the tool `{function}`; pick another name"
    )]
    DispatcherNameTaken {
        /// The name both claim.
        name: String,
        /// The function registered under it.
        function: String,
    },
    /// A dispatcher over the composed handler's tools is named as one of
    /// the server's own tools or dispatchers.
    #[error(
        "the handler dispatcher name `{name}` is already the name of one of this server's tools \
         or dispatchers; pick another name"
    )]
    HandlerDispatcherNameTaken {
        /// The name both claim.
        name: String,
    },
    /// Two tools claim one resource and action, so a dispatcher cannot route.
    #[error(
        "dispatcher `{dispatcher}` cannot route resource `{resource}` action `{action}`: \
         both `{first}` and `{second}` claim it; give one of them another `action = \"...\"`"
    )]
    AmbiguousRoute {
        /// The dispatcher.
        dispatcher: String,
        /// The resource.
        resource: String,
        /// The action.
        action: String,
        /// The function seen first.
        first: String,
        /// The other function.
        second: String,
    },
    /// A tool takes host state (`State<T>`) the server was not given.
    #[error(
        "the tool `{tool}` (`{function}`) takes host state of type `{type_name}`, and the server \
         has none; register one with `ServerBuilder::with_state`"
    )]
    MissingState {
        /// The tool.
        tool: String,
        /// The path of its function.
        function: String,
        /// The type of the missing state.
        type_name: String,
    },
    /// A setting holds a value the server cannot serve by.
    #[error(transparent)]
    Config(#[from] crate::error::config::ConfigError),
    /// The task settings ([`TaskConfig`](crate::tasks::TaskConfig)) cannot
    /// be used: what is wrong, and how to fix it.
    #[error("the task settings cannot be used: {0}; fix them in ServerBuilder::with_task_config")]
    TaskConfig(#[from] crate::error::config::TaskConfigError),
    /// No random bytes could be drawn for the key that seals the
    /// `requestState` of input-required results, and the server was given
    /// none ([`ServerBuilder::with_request_state_key`](crate::ServerBuilder::with_request_state_key)).
    #[error(
        "no random bytes could be drawn for the key that seals request states ({source}); \
         give the server a key with ServerBuilder::with_request_state_key, or build it where \
         the operating system's random source can be read"
    )]
    NoRandomness {
        /// Why the operating system gave none.
        source: std::io::Error,
    },
    /// A tool's generated input schema is not a JSON object schema.
    #[error("the input schema of `{tool}` is not an object schema: {reason}")]
    BadSchema {
        /// The tool.
        tool: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A tool's own arguments declare a field mcp-light adds to its
    /// schema: `verify` on a write, a negotiation field on a heavy read.
    /// Only a struct taken whole (rmcp's `Parameters<T>`) can; a named
    /// parameter is refused by the compiler.
    #[error(
        "the tool `{tool}` (`{function}`) takes an argument `{field}`, which mcp-light adds to \
         the schema of every {added_to}: keep the tool a `#[mcp_tool]`, which publishes its \
         arguments as they are"
    )]
    AddedFieldTaken {
        /// The tool.
        tool: String,
        /// The path of its function.
        function: String,
        /// The field both declare.
        field: &'static str,
        /// What kind of tool gains the field: "write", "heavy read".
        added_to: &'static str,
    },
}

/// Why a continuation store could not do what was asked (the store's
/// own failures; see [`ContinuationStore`](crate::store::ContinuationStore)).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// The store cannot be reached or refused the operation.
    #[error("the continuation store is unavailable: {0}")]
    Unavailable(String),
    /// The entry is larger than the store will ever hold.
    #[error("the result is {size} bytes, more than the store's limit of {limit} bytes")]
    TooLarge {
        /// The entry's size in bytes (so far, when it was refused while
        /// being written).
        size: u64,
        /// The store's limit in bytes.
        limit: u64,
    },
    /// The store ran out of room of its own, on disk say.
    #[error("the continuation store has no room for this result: {0}")]
    Full(String),
}

/// Work that did not run to its end: it panicked, or the runtime dropped
/// it. A call whose tool or answer comes to this answers
/// "`tool` failed: " and this error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Unfinished {
    /// The work panicked, with this message.
    #[error("it panicked: {0}")]
    Panicked(String),
    /// The runtime dropped the work before it finished: it is shutting
    /// down.
    #[error("it was cancelled: the runtime shut down before it finished")]
    Cancelled,
}

impl Unfinished {
    /// The work panicked with `payload`, what `catch_unwind` or a
    /// `JoinError` hands back.
    pub(crate) fn panicked(payload: &(dyn std::any::Any + Send)) -> Unfinished {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a non-string panic payload".to_owned());
        Unfinished::Panicked(message)
    }
}
