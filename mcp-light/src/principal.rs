//! Who an authenticated request comes from, and what its token grants.

use std::sync::Arc;

/// A principal the host authenticated, to whom continuation tokens are bound.
///
/// An HTTP host that authenticates requests inserts it into the request's
/// extensions — [`Auth::layer`](crate::auth::Auth::layer) does, or a tower
/// layer of the host's own in front of
/// [`Server::http_service`](crate::Server::http_service); the caller
/// is then that principal rather than the MCP session, on every replica
/// that shares the continuation store.
///
/// It is the one name of an authenticated caller: [`Caller::Principal`](crate::Caller::Principal)
/// holds it, and [`Caller::identity`](crate::Caller::identity) turns it into
/// the owner of what that caller stores and the tasks it starts.
///
/// ```
/// use mcp_light::{Caller, Principal};
///
/// let alice = Principal::from("alice");
/// assert_eq!(alice.as_str(), "alice");
/// assert_eq!(Caller::Principal(alice).identity(), "principal:alice");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Principal(pub String);

impl Principal {
    /// The principal's name, as the host authenticated it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Principal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for Principal {
    fn from(name: &str) -> Principal {
        Principal(name.to_owned())
    }
}

impl From<String> for Principal {
    fn from(name: String) -> Principal {
        Principal(name)
    }
}

/// The OAuth scopes a request's access token grants, kept in the request's
/// extensions beside its [`Principal`].
///
/// [`Auth::layer`](crate::auth::Auth::layer) inserts them for an OAuth access token (its `scope` and
/// `scp` claims); a host authenticating requests with a layer of its own may
/// insert them too. A request that carries them may call only the tools
/// whose scopes (`scopes = ["..."]` in the tool's attribute,
/// [`ToolDef::scopes`](crate::catalog::ToolDef::scopes)) they all
/// include; a request without them is not checked — a static bearer token,
/// or a server without authentication.
///
/// ```
/// use mcp_light::auth::GrantedScopes;
///
/// let granted = GrantedScopes::new(["inventory:read", "openid"]);
/// assert!(granted.contains("inventory:read"));
/// assert!(!granted.contains("inventory:write"));
/// assert_eq!(granted.missing(&["inventory:read", "inventory:write"]), ["inventory:write"]);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub struct GrantedScopes(Arc<[String]>);

#[cfg_attr(not(feature = "http"), allow(dead_code))]
impl GrantedScopes {
    /// The scopes of a token, each a scope name such as `inventory:read`.
    pub fn new(scopes: impl IntoIterator<Item = impl Into<String>>) -> GrantedScopes {
        GrantedScopes(scopes.into_iter().map(Into::into).collect())
    }

    /// Whether `scope` is granted.
    pub fn contains(&self, scope: &str) -> bool {
        self.0.iter().any(|granted| granted == scope)
    }

    /// The granted scopes, in the token's order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(String::as_str)
    }

    /// Those of `needed` that are not granted, in `needed`'s order.
    pub fn missing<'n>(&self, needed: &[&'n str]) -> Vec<&'n str> {
        needed
            .iter()
            .copied()
            .filter(|scope| !self.contains(scope))
            .collect()
    }
}
