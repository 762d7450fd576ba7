//! Host state a tool takes by type ([`State`]), and what every tool needs of
//! it, checked when the server is built rather than on each call.

use std::any::{TypeId, type_name};
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use crate::context::StateMap;
use crate::error::RegistryError;
use crate::extract::FromCall;
use crate::tool::ToolDef;
use crate::{Context, Server, ToolError};

/// The host state of type `T` registered with
/// [`Server::with_state`](crate::Server::with_state), taken by a tool with a
/// destructuring parameter: `State(db): State<Db>` gives the tool an
/// `Arc<Db>`.
///
/// A tool that takes it declares the need in its registration, so
/// [`Server::check_state`] refuses a server without a `Db` before any call.
/// Were a call to reach the tool anyway, it would answer an `isError`
/// result naming the type.
///
/// ```standalone_crate
/// use mcp_light::prelude::*;
///
/// struct Db {
///     name: &'static str,
/// }
///
/// /// Names the database.
/// #[mcp_tool]
/// fn db_name(State(db): State<Db>) -> String {
///     db.name.to_owned()
/// }
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// assert!(Server::from_registry()?.check_state().is_err());
/// let server = Server::from_registry()?.with_state(Db { name: "main" });
/// server.check_state()?;
/// let result = server.call("db_name", serde_json::json!({}), Caller::Process).await;
/// assert_eq!(result.structured_content.unwrap(), serde_json::json!({"result": "main"}));
/// # Ok::<(), mcp_light::RegistryError>(())
/// # }).unwrap();
/// ```
pub struct State<T>(pub Arc<T>);

impl<T> Deref for State<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> Clone for State<T> {
    fn clone(&self) -> Self {
        State(Arc::clone(&self.0))
    }
}

impl<T: fmt::Debug> fmt::Debug for State<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("State").field(&self.0).finish()
    }
}

impl<T: Send + Sync + 'static> FromCall for State<T> {
    #[inline]
    fn from_call(ctx: &Context) -> Result<Self, ToolError> {
        ctx.shared_state::<T>().map(State)
    }

    fn state_needs(needs: &mut Vec<StateNeed>) {
        needs.push(StateNeed::of::<T>());
    }
}

/// A type of host state a tool needs: what [`ToolDef::state_needs`] lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StateNeed {
    type_id: TypeId,
    type_name: &'static str,
}

impl StateNeed {
    /// The need for state of type `T`.
    pub fn of<T: 'static>() -> StateNeed {
        StateNeed {
            type_id: TypeId::of::<T>(),
            type_name: type_name::<T>(),
        }
    }

    /// The type's id, as the server keys its state.
    pub fn type_id(&self) -> TypeId {
        self.type_id
    }

    /// The type's name, for messages.
    pub fn type_name(&self) -> &'static str {
        self.type_name
    }
}

/// The first tool of `defs` that needs state `state` lacks, as an error
/// naming the tool and the type.
pub(crate) fn missing_state<'a>(
    defs: impl IntoIterator<Item = &'a ToolDef>,
    state: &StateMap,
) -> Result<(), RegistryError> {
    let mut needs = Vec::new();
    for def in defs {
        needs.clear();
        def.push_state_needs(&mut needs);
        if let Some(need) = needs.iter().find(|need| !state.contains(need.type_id)) {
            return Err(RegistryError::MissingState {
                tool: def.name().to_owned(),
                function: def.function().to_owned(),
                type_name: need.type_name.to_owned(),
            });
        }
    }
    Ok(())
}

impl Server {
    /// Checks that every tool finds the host state it takes
    /// ([`State<T>`](State), or any [`FromCall`] extractor that declares a
    /// need): an error names the first tool and type missing. Call it once
    /// the state is registered, before serving.
    ///
    /// ```standalone_crate
    /// use mcp_light::prelude::*;
    ///
    /// struct Clock;
    ///
    /// /// Ticks.
    /// #[mcp_tool]
    /// fn tick(State(_clock): State<Clock>) -> u32 {
    ///     1
    /// }
    ///
    /// let error = Server::from_registry()?.check_state().unwrap_err();
    /// assert!(error.to_string().contains("`tick`"));
    /// Server::from_registry()?.with_state(Clock).check_state()?;
    /// # Ok::<(), mcp_light::RegistryError>(())
    /// ```
    pub fn check_state(&self) -> Result<(), RegistryError> {
        missing_state(self.registry().iter().map(|tool| tool.def()), &self.state)
    }
}
