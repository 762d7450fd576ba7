//! What a tool receives besides its arguments: the application state and the
//! caller, gathered in the [`Context`] every call carries.

use std::any::{Any, TypeId, type_name};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use crate::ToolError;

/// Who is calling, as far as the transport can tell. Continuation
/// tokens are bound to it: a token minted for one caller is refused to
/// another.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Caller {
    /// A principal the host authenticated.
    Principal(String),
    /// An MCP session (Streamable HTTP after the initialize handshake).
    Session(String),
    /// The client process at the other end of stdio.
    Process,
    /// Nobody in particular — a client on a protocol version with neither
    /// sessions nor authentication. Every such caller shares this identity,
    /// so a continuation token's 128 random bits alone are the capability to
    /// redeem it: treat tokens as secrets.
    Anonymous,
}

impl Caller {
    /// The identity a continuation entry is bound to.
    pub fn identity(&self) -> String {
        match self {
            Caller::Principal(p) => format!("principal:{p}"),
            Caller::Session(s) => format!("session:{s}"),
            Caller::Process => "process".to_owned(),
            Caller::Anonymous => "anonymous".to_owned(),
        }
    }
}

/// Values a host hands to every tool, one per type.
#[derive(Default, Clone)]
pub(crate) struct StateMap {
    values: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl StateMap {
    pub(crate) fn insert<T: Send + Sync + 'static>(&mut self, value: Arc<T>) {
        self.values.insert(TypeId::of::<T>(), value);
    }

    /// Whether a value of the type `type_id` names is registered.
    pub(crate) fn contains(&self, type_id: TypeId) -> bool {
        self.values.contains_key(&type_id)
    }

    fn get<T: Send + Sync + 'static>(&self) -> Option<&Arc<dyn Any + Send + Sync>> {
        self.values.get(&TypeId::of::<T>())
    }
}

/// The error a tool answers when the state it reads was never registered.
pub(crate) fn no_state<T>() -> ToolError {
    ToolError::new(format!(
        "the server has no state of type `{}`; register it with Server::with_state",
        type_name::<T>()
    ))
}

impl fmt::Debug for StateMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("StateMap")
            .field("len", &self.values.len())
            .finish()
    }
}

/// A tool's view of the server: the state the host registered with
/// [`Server::with_state`](crate::Server::with_state), and who is calling.
///
/// A tool borrows it from the call as a `&Context` parameter; it is not part
/// of the tool's input schema. To take one piece, borrow `&Caller` or
/// destructure [`State`](crate::State) instead: a tool that takes
/// `State(db): State<Db>` has its state checked when the server is built
/// ([`Server::check_state`](crate::Server::check_state)), while
/// `ctx.state::<Db>()` is only looked up when it runs.
///
/// ```
/// use mcp_light::prelude::*;
///
/// struct Inventory { site: &'static str }
///
/// /// Names the site this server manages.
/// #[mcp_tool]
/// fn home_site(ctx: &Context) -> Result<String, ToolError> {
///     Ok(ctx.state::<Inventory>()?.site.to_owned())
/// }
/// ```
#[derive(Debug, Clone)]
pub struct Context {
    state: Arc<StateMap>,
    caller: Caller,
}

impl Context {
    pub(crate) fn new(state: Arc<StateMap>, caller: Caller) -> Self {
        Context { state, caller }
    }

    /// The state of type `T` the host registered, or an error naming the
    /// type when there is none.
    pub fn state<T: Send + Sync + 'static>(&self) -> Result<&T, ToolError> {
        self.state
            .get::<T>()
            .and_then(|value| value.downcast_ref::<T>())
            .ok_or_else(no_state::<T>)
    }

    /// The state of type `T`, shared: what [`State<T>`](crate::State) holds.
    pub(crate) fn shared_state<T: Send + Sync + 'static>(&self) -> Result<Arc<T>, ToolError> {
        self.state
            .get::<T>()
            .and_then(|value| Arc::clone(value).downcast::<T>().ok())
            .ok_or_else(no_state::<T>)
    }

    /// Who is calling.
    pub fn caller(&self) -> &Caller {
        &self.caller
    }
}
