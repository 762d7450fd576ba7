//! Extractors of your own: the traits a parameter's type implements to be
//! taken from the call rather than parsed from its arguments. [`Context`],
//! [`Caller`] and [`State`](crate::State), the extractors mcp-light
//! provides, are at the crate root; a tool that only takes those needs
//! nothing here.
//!
//! A parameter's form says which role it has, and a trait checks that its
//! type can play it:
//!
//! * a plain name with an owned type (`id: u64`, `mut name: String`) is an
//!   **argument**, parsed from the call's JSON arguments and part of the
//!   input schema: its type is `Deserialize + JsonSchema`;
//! * a reference (`ctx: &Context`, `caller: &Caller`) is **borrowed from the
//!   call** ([`FromCallRef`]);
//! * a destructuring pattern (`State(db): State<Db>`) is **taken from the
//!   call** ([`FromCall`]), with the host state it reads listed as
//!   [`StateNeed`]s so that a server without it is refused when it is
//!   built.
//!
//! The compiler resolves the traits, so an alias or a re-export of
//! `Context` or `State` plays the same role.

use std::any::{TypeId, type_name};

use crate::context::{Caller, Context};
use crate::error::tool::ToolError;

/// A value a tool takes from the call rather than from its arguments, with a
/// destructuring parameter such as `State(db): State<Db>`, the way an axum
/// handler takes an extractor.
///
/// [`State`](crate::State) implements it. Implement it for a type of your
/// own to hand tools something built from the host state and the caller:
///
/// ```standalone_crate
/// use mcp_light::prelude::*;
/// use mcp_light::extract::{FromCall, StateNeed};
///
/// struct Tenants;
///
/// impl Tenants {
///     fn of(&self, caller: &Caller) -> String {
///         format!("tenant of {}", caller.identity())
///     }
/// }
///
/// /// The tenant a call acts for.
/// pub struct Tenant(pub String);
///
/// impl FromCall for Tenant {
///     fn from_call(ctx: &Context) -> Result<Self, ToolError> {
///         Ok(Tenant(ctx.state::<Tenants>()?.of(ctx.caller())))
///     }
///
///     fn state_needs(needs: &mut Vec<StateNeed>) {
///         needs.push(StateNeed::of::<Tenants>());
///     }
/// }
///
/// /// Says which tenant is calling.
/// #[mcp_tool]
/// fn whoami(Tenant(tenant): Tenant) -> String {
///     tenant
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be taken from the call",
    label = "a destructured parameter is taken from the call, and `{Self}` is not `FromCall`",
    note = "the call provides `State(value): State<T>` (host state), `&Context`, `&Caller`, and rmcp's `Parameters(args): Parameters<T>` (the whole arguments object); to take `{Self}` from the call, implement `FromCall` for it"
)]
pub trait FromCall: Sized {
    /// Takes the value from the call; an `Err` is answered as the tool's
    /// `isError` result, and the tool does not run.
    fn from_call(ctx: &Context) -> Result<Self, ToolError>;

    /// Whether the extractor reaches the client behind the call (the
    /// request's `_meta`, progress, log messages, questions to the user).
    /// A tool none of whose extractors does is called without the
    /// machinery that talks back, which costs every call; `true` unless an
    /// implementation says otherwise, as [`State`](crate::State) and
    /// [`Caller`] do.
    const NEEDS_CLIENT: bool = true;

    /// Pushes the host state this extractor reads, so that a server missing
    /// it is refused before serving. None by default.
    fn state_needs(needs: &mut Vec<StateNeed>) {
        let _ = needs;
    }
}

/// A value a tool borrows from the call with a reference parameter:
/// `ctx: &Context`, `caller: &Caller`.
///
/// ```standalone_crate
/// use mcp_light::prelude::*;
///
/// /// Says who is calling.
/// #[mcp_tool]
/// fn whoami(caller: &Caller) -> String {
///     caller.identity()
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "a tool cannot borrow `{Self}` from the call",
    label = "a reference parameter is borrowed from the call, and `{Self}` is not `FromCallRef`",
    note = "the call lends `&Context` and `&Caller`; an argument is parsed from the call's JSON and owned by the tool: take it by value, `value: {Self}`"
)]
pub trait FromCallRef {
    /// Borrows the value from the call; an `Err` is answered as the tool's
    /// `isError` result, and the tool does not run.
    fn from_call_ref(ctx: &Context) -> Result<&Self, ToolError>;

    /// Whether the extractor reaches the client behind the call (the
    /// request's `_meta`, progress, log messages, questions to the user).
    /// A tool none of whose extractors does is called without the
    /// machinery that talks back, which costs every call; `true` unless an
    /// implementation says otherwise, as [`State`](crate::State) and
    /// [`Caller`] do.
    const NEEDS_CLIENT: bool = true;

    /// Pushes the host state this extractor reads. None by default.
    fn state_needs(needs: &mut Vec<StateNeed>) {
        let _ = needs;
    }
}

impl FromCallRef for Context {
    #[inline]
    fn from_call_ref(ctx: &Context) -> Result<&Context, ToolError> {
        Ok(ctx)
    }
}

impl FromCallRef for Caller {
    const NEEDS_CLIENT: bool = false;

    #[inline]
    fn from_call_ref(ctx: &Context) -> Result<&Caller, ToolError> {
        Ok(ctx.caller())
    }
}

/// A type of host state a tool needs: what [`ToolDef::state_needs`](crate::catalog::ToolDef::state_needs) lists.
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
    pub(crate) fn type_id(&self) -> TypeId {
        self.type_id
    }

    /// The type's name, for messages.
    pub fn type_name(&self) -> &'static str {
        self.type_name
    }
}
