//! What a request carries of HTTP when mcp-light is built without the
//! `http` feature: nothing. The handler reads it the same way either way,
//! as its `HttpRequest`.

use crate::context::Caller;

/// Without HTTP, a request carries nothing of it.
#[derive(Debug, Default)]
pub(crate) struct NoHttp;

impl NoHttp {
    pub(super) fn take(_: &mut rmcp::model::Extensions) -> NoHttp {
        NoHttp
    }

    pub(super) fn caller(&mut self) -> Option<Caller> {
        None
    }

    pub(super) fn session_id(&self) -> Option<&str> {
        None
    }

    pub(super) fn session(_: &rmcp::model::Extensions) -> Option<&str> {
        None
    }

    pub(super) fn scopes(&mut self) -> Option<crate::principal::GrantedScopes> {
        None
    }

    pub(super) fn arguments(&mut self) -> Option<rmcp::model::JsonObject> {
        None
    }
}
