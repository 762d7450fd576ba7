//! What a tool receives besides its arguments: the application state, the
//! caller and the client behind the call, gathered in the [`Context`] every
//! call carries.
//!
//! [`Context`] and [`Caller`] are at the crate root too. The rest is what a
//! tool that talks back to the client needs: a named question ([`Ask`]),
//! the user's answer to one ([`Elicitation`]), a log message's
//! [`LogLevel`].

mod caller;
pub use caller::Caller;
pub(crate) use caller::StateMap;

mod call_context;
pub use call_context::Context;
mod input;
mod peer;
mod rounds;
mod task;
mod want;

pub use input::{Ask, Elicitation};
pub use peer::LogLevel;
pub(crate) use peer::{
    SessionKeeps, SessionLogLevel, StopWatch, Stopped, Stops, Talk, is_stateless,
    run_until_cancelled,
};
pub(crate) use task::{TaskLink, View};
