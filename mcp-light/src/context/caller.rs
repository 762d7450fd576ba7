//! Who calls ([`Caller`]), and the host state a call reads by type.

use crate::error::tool::ToolError;
use crate::principal::Principal;
use std::any::{Any, TypeId, type_name};
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

/// Who is calling, as far as the transport can tell. Continuation
/// tokens are bound to it: a token minted for one caller is refused to
/// another.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Caller {
    /// A principal the host authenticated.
    Principal(Principal),
    /// An MCP session (Streamable HTTP after the initialize handshake).
    Session(String),
    /// The client process at the other end of stdio.
    Process,
    /// Nobody in particular — a client on a protocol version with neither
    /// sessions nor authentication. Every such caller shares this identity,
    /// so a continuation token's 130 random bits alone are the capability to
    /// redeem it: treat tokens as secrets.
    Anonymous,
}

impl Caller {
    /// The caller's identity: the one way a caller becomes the owner of
    /// what it stores (a continuation entry's [`Owner`](crate::store::Owner))
    /// and of the tasks it starts, and what a `requestState` is bound to.
    /// Tokens, tasks and rounds are refused to any other identity.
    ///
    /// ```
    /// use mcp_light::Caller;
    ///
    /// assert_eq!(Caller::Principal("ada".into()).identity(), "principal:ada");
    /// assert_eq!(Caller::Session("s-1".into()).identity(), "session:s-1");
    /// assert_eq!(Caller::Process.identity(), "process");
    /// assert_eq!(Caller::Anonymous.identity(), "anonymous");
    /// ```
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

    pub(crate) fn get<T: Send + Sync + 'static>(&self) -> Option<&Arc<dyn Any + Send + Sync>> {
        self.values.get(&TypeId::of::<T>())
    }
}

/// The error a tool answers when the state it reads was never registered.
pub(crate) fn no_state<T>() -> ToolError {
    ToolError::new(format!(
        "the server has no state of type `{}`; register it with ServerBuilder::with_state",
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
