//! Who an authenticated request comes from.

/// A principal the host authenticated, to whom continuation tokens are bound.
///
/// An HTTP host that authenticates requests inserts it into the request's
/// extensions — [`Auth::layer`](crate::auth::Auth::layer) does, or a tower
/// layer of the host's own in front of
/// [`Server::http_service`](crate::Server::http_service); the caller
/// is then that principal rather than the MCP session, on every replica
/// that shares the continuation store.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Principal(pub String);
