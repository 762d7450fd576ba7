//! Host state a tool takes by type: [`State`].

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use crate::context::Context;
use crate::error::ToolError;
use crate::extract::{FromCall, StateNeed};

/// The host state of type `T` registered with
/// [`Server::with_state`](crate::Server::with_state), taken by a tool with a
/// destructuring parameter: `State(db): State<Db>` gives the tool an
/// `Arc<Db>`.
///
/// A tool that takes it declares the need in its registration, so
/// [`Server::check_state`](crate::Server::check_state) refuses a server without a `Db` before any call.
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
