//! The transport-free server: a registry, the host's state, a continuation
//! store, and the one call path every transport uses.

use std::any::Any;
use std::borrow::Cow;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::task::{Context as TaskContext, Poll};

use rmcp::model::CallToolResult;
use serde_json::{Map, Value};

use crate::context::StateMap;
use crate::dispatch::Dispatcher;
use crate::heavy::{self, HeavyConfig, Mode};
use crate::invoke::{
    Called, Invocation, Responder, Shared, error_result, full_result, full_result_with_text,
};
use crate::registry::PublishedTool;
use crate::schema::{CONTINUATION_TOKEN, VERIFY};
use crate::store::{ContinuationStore, MemoryStore};
use crate::token::Token;
use crate::{Caller, Context, Registry, RegistryError};

/// A set of tools ready to be called: the registry, the host's state and a
/// continuation store.
///
/// [`Server::call`] is the whole protocol-facing surface: a tool name, JSON
/// arguments and a caller in, the MCP tool result out. Transports are thin
/// layers over it, and tests need none.
///
/// ```
/// use mcp_light::prelude::*;
///
/// /// Says hello.
/// #[mcp_tool]
/// fn greet(name: String) -> String {
///     format!("hello, {name}")
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let server = Server::from_registry()?;
/// let result = server.call("greet", serde_json::json!({"name": "edge"}), Caller::Anonymous).await;
/// assert_eq!(result.is_error, Some(false));
/// assert_eq!(result.structured_content.unwrap(), serde_json::json!({"result": "hello, edge"}));
/// # Ok::<(), mcp_light::RegistryError>(())
/// # }).unwrap();
/// ```
#[derive(Clone)]
pub struct Server {
    registry: Arc<Registry>,
    implementation: rmcp::model::Implementation,
    dispatchers: Arc<Vec<Dispatcher>>,
    pub(crate) state: Arc<StateMap>,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Server {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Server")
            .field("tools", &self.registry.len())
            .field(
                "dispatchers",
                &self
                    .dispatchers
                    .iter()
                    .map(Dispatcher::name)
                    .collect::<Vec<_>>(),
            )
            .field("state", &self.state)
            .field("store", &self.shared.store.is_some())
            .field("heavy", &self.shared.heavy)
            .finish()
    }
}

impl Server {
    /// A server for every tool registered in the binary, with an in-memory
    /// continuation store ([`MemoryStore::default`]).
    pub fn from_registry() -> Result<Server, RegistryError> {
        Ok(Server::new(Registry::collect()?))
    }

    /// A server for `registry`, with an in-memory continuation store.
    pub fn new(registry: Registry) -> Server {
        Server {
            registry: Arc::new(registry),
            implementation: rmcp::model::Implementation::new(
                "mcp-light",
                env!("CARGO_PKG_VERSION"),
            ),
            dispatchers: Arc::new(Vec::new()),
            state: Arc::new(StateMap::default()),
            shared: Arc::new(Shared {
                store: Some(Arc::new(MemoryStore::default())),
                heavy: HeavyConfig::default(),
                store_failing: AtomicBool::new(false),
            }),
        }
    }

    /// Hands `value` to every tool, which reads it with
    /// [`Context::state`]. One value per type; a second of the same type
    /// replaces the first.
    pub fn with_state<T: Send + Sync + 'static>(self, value: T) -> Server {
        self.with_shared_state(Arc::new(value))
    }

    /// Like [`Server::with_state`], for a value the host keeps a handle on
    /// too: tools still read it as `ctx.state::<T>()`.
    pub fn with_shared_state<T: Send + Sync + 'static>(mut self, value: Arc<T>) -> Server {
        Arc::make_mut(&mut self.state).insert(value);
        self
    }

    /// Adds a group dispatcher named `name` (C22): one tool taking
    /// `resource`, `action`, `params`, a top-level `verify` and the
    /// negotiation fields, routed to every registered tool that has a
    /// resource and an action. Its schema discloses continuation, so routed
    /// writes answer envelopes with a continuation token.
    ///
    /// Fails when `name` is taken or two tools claim one resource and action.
    pub fn with_dispatcher(mut self, name: impl Into<String>) -> Result<Server, RegistryError> {
        let dispatcher = Dispatcher::build(name.into(), &self.registry, &self.shared.heavy)?;
        if self.dispatcher(dispatcher.name()).is_some() {
            return Err(RegistryError::DuplicateName {
                name: dispatcher.name().to_owned(),
                first: "a dispatcher".to_owned(),
                second: "another dispatcher".to_owned(),
            });
        }
        Arc::make_mut(&mut self.dispatchers).push(dispatcher);
        Ok(self)
    }

    /// The dispatcher named `name`.
    pub fn dispatcher(&self, name: &str) -> Option<&Dispatcher> {
        self.dispatchers.iter().find(|d| d.name() == name)
    }

    /// The dispatchers, in the order they were added.
    pub fn dispatchers(&self) -> &[Dispatcher] {
        &self.dispatchers
    }

    /// Every tool `tools/list` shows: the registered tools, then the
    /// dispatchers.
    pub fn list_tools(&self) -> Vec<rmcp::model::Tool> {
        let tools = self.registry.iter().map(PublishedTool::to_tool);
        tools
            .chain(self.dispatchers.iter().map(Dispatcher::to_tool))
            .collect()
    }

    /// Keeps continuation results in `store` instead of the default
    /// in-memory one.
    pub fn with_store(self, store: impl ContinuationStore) -> Server {
        self.with_shared_store(Some(Arc::new(store)))
    }

    /// Keeps continuation results in a store shared with other servers, or
    /// in none: without a store no token is ever minted, writes answer
    /// token-free envelopes or full results and heavy reads answer whole
    /// (C15).
    pub fn with_shared_store(mut self, store: Option<Arc<dyn ContinuationStore>>) -> Server {
        self.shared_mut().store = store;
        self
    }

    /// Sets page sizes, the preview length and the size backstop of heavy
    /// reads. Published schemas follow (the maximum `page_size`).
    pub fn with_heavy_config(mut self, config: HeavyConfig) -> Server {
        self.registry = Arc::new(self.registry.republish(&config));
        self.dispatchers = Arc::new(
            self.dispatchers
                .iter()
                .map(|d| d.republish(&config))
                .collect(),
        );
        self.shared_mut().heavy = config;
        self
    }

    fn shared_mut(&mut self) -> &mut Shared {
        if Arc::get_mut(&mut self.shared).is_none() {
            let shared = Shared {
                store: self.shared.store.clone(),
                heavy: self.shared.heavy.clone(),
                store_failing: AtomicBool::new(false),
            };
            self.shared = Arc::new(shared);
        }
        Arc::get_mut(&mut self.shared).expect("a fresh Arc is unique")
    }

    /// Names this server in the MCP handshake (`serverInfo`); by default
    /// `mcp-light` and its version.
    pub fn with_implementation(
        mut self,
        name: impl Into<String>,
        version: impl Into<String>,
    ) -> Server {
        self.implementation = rmcp::model::Implementation::new(name, version);
        self
    }

    /// What this server calls itself in the MCP handshake.
    pub fn implementation(&self) -> &rmcp::model::Implementation {
        &self.implementation
    }

    /// The tools this server serves.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Calls `tool` with `arguments` (a JSON object, or `null` for none) on
    /// behalf of `caller`.
    ///
    /// Never panics and never fails: bad arguments, an unknown tool, a tool
    /// that returns `Err` or panics, and a refused continuation token all
    /// answer an `isError` result that says what is wrong (C24).
    pub async fn call(&self, tool: &str, arguments: Value, caller: Caller) -> CallToolResult {
        let mut args = match arguments {
            Value::Object(args) => args,
            Value::Null => Map::new(),
            other => {
                return error_result(format!(
                    "the arguments of `{tool}` must be a JSON object, not {}",
                    json_kind(&other)
                ));
            }
        };
        if let Some(dispatcher) = self.dispatcher(tool) {
            let called = Called {
                caller,
                tool: Cow::Owned(tool.to_owned()),
            };
            let discloses = dispatcher.discloses_continuation();
            if discloses && let Some(token) = args.remove(CONTINUATION_TOKEN) {
                dispatcher.drop_routing(&mut args);
                return Box::pin(self.redeem(&called, token, args)).await;
            }
            return match dispatcher.route(&self.registry, args) {
                Ok((routed, args)) => self.run(routed, discloses, called, args).await,
                Err(message) => error_result(message),
            };
        }
        let Some(published) = self.registry.get(tool) else {
            let mut names = self.registry.names();
            for dispatcher in self.dispatchers.iter() {
                names.push_str(", ");
                names.push_str(dispatcher.name());
            }
            return error_result(format!("unknown tool `{tool}`; this server has: {names}"));
        };
        let called = Called {
            caller,
            tool: Cow::Borrowed(published.name()),
        };
        self.run(published, published.discloses_continuation(), called, args)
            .await
    }

    /// Runs `tool` for a caller who called the tool `called.tool`, whose
    /// published schema `discloses` continuation or not. The flat path and a
    /// dispatcher differ only in these two.
    pub(crate) async fn run(
        &self,
        tool: &PublishedTool,
        discloses: bool,
        called: Called,
        mut args: Map<String, Value>,
    ) -> CallToolResult {
        if discloses && let Some(token) = args.remove(CONTINUATION_TOKEN) {
            return Box::pin(self.redeem(&called, token, args)).await;
        }
        let def = tool.def();
        // `verify` is taken off every call: a write honors it, a read ignores
        // it (C3).
        let verify = match args.remove(VERIFY) {
            None | Some(Value::Null) => false,
            Some(Value::Bool(verify)) => verify,
            Some(other) if def.kind().is_write() => {
                return error_result(format!(
                    "invalid arguments for `{}` at `verify`: expected true or false, got {other}",
                    def.name()
                ));
            }
            Some(_) => false,
        };
        if def.kind().is_heavy() {
            // A first call has nothing to negotiate yet; the fields only
            // matter when a token comes back.
            if let Err(error) = heavy::take_negotiation(&mut args, &self.shared.heavy) {
                return error_result(format!("invalid arguments for `{}`: {error}", def.name()));
            }
        }
        let invocation = Invocation {
            ctx: Context::new(Arc::clone(&self.state), called.caller.clone()),
            args,
            responder: Responder {
                shared: Arc::clone(&self.shared),
                tool: def.name(),
                kind: def.kind(),
                called,
                discloses,
                retrieve_published: tool.retrieve_published(),
                verify,
            },
        };
        match CatchUnwind((def.invoke_fn())(invocation)).await {
            Ok(result) => result,
            Err(panic) => {
                let message = panic_message(panic.as_ref());
                tracing::error!(tool = def.name(), %message, "tool panicked");
                error_result(format!("`{}` failed: it panicked: {message}", def.name()))
            }
        }
    }

    /// Serves a stored result; the tool is never run (C17).
    async fn redeem(
        &self,
        called: &Called,
        token: Value,
        mut args: Map<String, Value>,
    ) -> CallToolResult {
        let tool = &called.tool;
        let start_again = format!("start again by calling `{tool}` without `continuation_token`");
        let negotiation = match heavy::take_negotiation(&mut args, &self.shared.heavy) {
            Ok(negotiation) => negotiation,
            Err(error) => return error_result(format!("invalid arguments for `{tool}`: {error}")),
        };
        let Some(token) = token.as_str().and_then(Token::parse) else {
            return error_result(format!(
                "`continuation_token` must be the token string a previous answer of `{tool}` gave; {start_again}"
            ));
        };
        let Some(store) = &self.shared.store else {
            return error_result(format!(
                "this server keeps no continuation store, so no token redeems; {start_again}"
            ));
        };
        let entry = match store.get(&token).await {
            Ok(Some(entry)) => entry,
            Ok(None) => {
                return error_result(format!(
                    "this continuation token is unknown or has expired; {start_again} \
                     (after a write, read what was written with its retrieve tool instead of repeating the write)"
                ));
            }
            Err(error) => {
                return error_result(format!("{error}; try again shortly, or {start_again}"));
            }
        };
        if entry.owner != called.owner() {
            return error_result(format!(
                "this continuation token was issued to another caller or through another tool, \
                 so `{tool}` will not redeem it; {start_again}"
            ));
        }
        // A page of a stored list parses only that page.
        if let Some(page) =
            heavy::page_of_stored_list(&entry.body, entry.origin, &negotiation, &self.shared.heavy)
        {
            return match page {
                Ok(page) => full_result(page),
                Err(error) => error_result(format!("invalid arguments for `{tool}`: {error}")),
            };
        }
        let value: Value = match serde_json::from_slice(&entry.body) {
            Ok(value) => value,
            Err(error) => {
                return error_result(format!(
                    "the stored result is damaged ({error}); {start_again}"
                ));
            }
        };
        if negotiation.mode == Mode::Full {
            // The stored bytes are the result's compact JSON already; only
            // `structuredContent` needs the parsed value.
            let text = String::from_utf8_lossy(&entry.body).into_owned();
            return full_result_with_text(value, text);
        }
        match heavy::serve(value, entry.origin, &negotiation, &self.shared.heavy) {
            Ok(value) => full_result(value),
            Err(error) => error_result(format!("invalid arguments for `{tool}`: {error}")),
        }
    }
}

fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn panic_message(panic: &(dyn Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a non-string panic payload".to_owned())
}

/// Turns a panic inside a tool's future into an error the caller sees, so
/// one bad tool cannot take the server down (C24).
struct CatchUnwind<F>(F);

impl<F: Future + Unpin> Future for CatchUnwind<F> {
    type Output = Result<F::Output, Box<dyn Any + Send>>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<Self::Output> {
        let inner = &mut self.0;
        match catch_unwind(AssertUnwindSafe(|| Pin::new(inner).poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(output)) => Poll::Ready(Ok(output)),
            Err(panic) => Poll::Ready(Err(panic)),
        }
    }
}
