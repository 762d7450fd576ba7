//! Host state a tool takes by type: [`State`].

use std::borrow::Cow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer};

use crate::context::Context;
use crate::error::tool::ToolError;
use crate::extract::{FromCall, StateNeed};

/// The host state of type `T` registered with
/// [`ServerBuilder::with_state`](crate::ServerBuilder::with_state), taken by a tool with a
/// destructuring parameter: `State(db): State<Db>` gives the tool an
/// `Arc<Db>`.
///
/// The pattern is what makes it host state: a parameter with a plain name
/// (`db: State<Db>`, as an axum handler may write it) is an argument of the
/// tool, parsed from the call's JSON, and does not compile, with a sentence
/// that says to destructure it. A tool's arguments are decided by how its
/// parameters are written, so that the input schema is known where the
/// tool is declared.
///
/// A tool that takes it declares the need in its registration, so
/// [`ServerBuilder::build`](crate::ServerBuilder::build) refuses a server without a `Db`: no call
/// ever meets the tool without it.
/// Were a call to reach the tool anyway, it would answer an `isError`
/// result naming the type.
///
/// ```standalone_crate
/// use mcp_light::prelude::*;
/// use mcp_light::testing::AnswerExt;
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
/// assert!(Server::from_registry().build().is_err());
/// let server = Server::from_registry().with_state(Db { name: "main" }).build()?;
/// let result = server.call("db_name", serde_json::json!({}), Caller::Process).await;
/// assert_eq!(result.json().unwrap(), serde_json::json!({"result": "main"}));
/// # Ok::<(), mcp_light::BuildError>(())
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
    const NEEDS_CLIENT: bool = false;

    #[inline]
    fn from_call(ctx: &Context) -> Result<Self, ToolError> {
        ctx.shared_state::<T>().map(State)
    }

    fn state_needs(needs: &mut Vec<StateNeed>) {
        needs.push(StateNeed::of::<T>());
    }
}

/// What `State<T>` would need to be an argument: implemented by no type a
/// tool can hold as state, so that a `State<T>` parameter with a plain name
/// fails with this sentence rather than with a suggestion to derive
/// `Deserialize` on mcp-light's own type.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "host state is taken by destructuring: write `State(value): State<{Self}>`, not `value: State<{Self}>`",
    label = "a parameter with a plain name is an argument, parsed from the call's JSON, and `State<{Self}>` is host state",
    note = "`State(value): State<{Self}>` takes the host state registered with `ServerBuilder::with_state` and binds `value` to the `Arc<{Self}>` it holds"
)]
pub trait StateIsNotAnArgument {}

/// Never used: its bound is unmet for every state a tool can take.
#[doc(hidden)]
impl<'de, T: StateIsNotAnArgument> Deserialize<'de> for State<T> {
    fn deserialize<D: Deserializer<'de>>(_: D) -> Result<Self, D::Error> {
        Err(serde::de::Error::custom(
            "host state is taken from the call, never parsed",
        ))
    }
}

/// Never used: its bound is unmet for every state a tool can take.
#[doc(hidden)]
impl<T: StateIsNotAnArgument> JsonSchema for State<T> {
    fn schema_name() -> Cow<'static, str> {
        Cow::Borrowed("State")
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        Schema::default()
    }
}
