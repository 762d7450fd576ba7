//! What mcp-light's rmcp handler needs of an HTTP request, gathered in one
//! typed value, taken once ([`HttpRequest::take`]), so the generic handler
//! knows nothing of where HTTP keeps each piece. The HTTP guard puts an
//! [`HttpContext`] into the request's extensions only when it took a
//! call's arguments; otherwise the principal and scopes are read where the
//! layers in front of it put them.

use std::sync::Arc;

use axum::http::request::Parts;
use rmcp::model::{Extensions, JsonObject};
use rmcp::transport::streamable_http_server::SessionId;

use super::sessions::ValidatedSession;
use crate::context::Caller;
use crate::principal::{GrantedScopes, Principal};

/// What the HTTP guard found in a request for the handler: who the
/// authentication layer (or the host's own) says calls, what the caller's
/// token grants, and a `tools/call`'s arguments the guard already parsed.
/// Cloned only because request extensions must be; the handler moves it
/// out.
#[derive(Debug, Clone, Default)]
pub(crate) struct HttpContext {
    principal: Option<Principal>,
    scopes: Option<GrantedScopes>,
    arguments: Option<Arc<JsonObject>>,
}

impl HttpContext {
    /// What the layers in front of the guard put into `parts`'s
    /// extensions; the scopes only for a server with scoped tools, the only
    /// one that reads them.
    pub(crate) fn of(parts: &Parts, scoped: bool) -> HttpContext {
        HttpContext {
            principal: parts.extensions.get::<Principal>().cloned(),
            scopes: scoped
                .then(|| parts.extensions.get::<GrantedScopes>().cloned())
                .flatten(),
            arguments: None,
        }
    }

    /// Hands the handler the arguments the guard parsed, which stand for
    /// the `{}` rmcp reads in their place.
    pub(crate) fn with_arguments(mut self, arguments: JsonObject) -> HttpContext {
        self.arguments = Some(Arc::new(arguments));
        self
    }

    /// Puts it into the request's extensions, for the handler.
    pub(crate) fn insert(self, parts: &mut Parts) {
        parts.extensions.insert(self);
    }
}

/// One HTTP request as the handler sees it: its [`HttpContext`] and the MCP
/// session rmcp routed it into.
#[derive(Debug, Default)]
pub(crate) struct HttpRequest {
    context: HttpContext,
    session: Option<SessionId>,
}

impl HttpRequest {
    /// Takes what the request carries out of rmcp's `extensions`, once: a
    /// second take finds no context. Behind a transport without mcp-light's
    /// guard (a host's own rmcp HTTP server over
    /// [`Server::into_handler`](crate::Server::into_handler)), the principal
    /// and scopes a host's layer recorded are read where it put them.
    pub(crate) fn take(extensions: &mut Extensions) -> HttpRequest {
        let session = Self::validated(extensions).cloned();
        let context = match extensions.get_mut::<Parts>() {
            Some(parts) => match parts.extensions.remove::<HttpContext>() {
                Some(context) => context,
                None => HttpContext::of(parts, true),
            },
            None => HttpContext::default(),
        };
        HttpRequest { context, session }
    }

    /// The caller the request names: its authenticated [`Principal`], else
    /// the MCP session rmcp routed it into; `None` for a request with
    /// neither (a stateless one). An `Mcp-Session-Id` header that rmcp did
    /// not validate — on a 2026-07-28 request, which is served statelessly
    /// — names nobody.
    pub(crate) fn caller(&mut self) -> Option<Caller> {
        if let Some(principal) = self.context.principal.take() {
            return Some(Caller::Principal(principal));
        }
        self.session
            .as_ref()
            .map(|session| Caller::Session(session.to_string()))
    }

    /// The MCP session rmcp routed the request into, if any.
    pub(crate) fn session_id(&self) -> Option<&str> {
        self.session.as_deref()
    }

    /// The MCP session of a request whose extensions stay as they are (one
    /// passed on to the composed handler): nothing else is read.
    pub(crate) fn session(extensions: &Extensions) -> Option<&str> {
        Self::validated(extensions).map(|session| &**session)
    }

    fn validated(extensions: &Extensions) -> Option<&SessionId> {
        let ValidatedSession(session) = extensions.get::<ValidatedSession>()?;
        Some(session)
    }

    /// The scopes the request's access token grants, when an OAuth layer
    /// (or the host's own) recorded them.
    pub(crate) fn scopes(&mut self) -> Option<GrantedScopes> {
        self.context.scopes.take()
    }

    /// The arguments the HTTP guard parsed, to stand in for the `{}` rmcp
    /// read, when it took them.
    pub(crate) fn arguments(&mut self) -> Option<JsonObject> {
        self.context
            .arguments
            .take()
            .map(|arguments| Arc::try_unwrap(arguments).unwrap_or_else(|shared| (*shared).clone()))
    }
}

#[cfg(test)]
mod tests {
    use axum::http::Request;
    use serde_json::json;

    use super::*;

    fn extensions(
        header: Option<&str>,
        validated: Option<&str>,
        principal: Option<&str>,
        guarded: bool,
    ) -> Extensions {
        let mut request = Request::builder().uri("/mcp");
        if let Some(session) = header {
            request = request.header("mcp-session-id", session);
        }
        let (mut parts, ()) = request.body(()).unwrap().into_parts();
        if let Some(principal) = principal {
            parts.extensions.insert(Principal(principal.to_owned()));
        }
        if guarded {
            HttpContext::of(&parts, false).insert(&mut parts);
        }
        let mut extensions = Extensions::new();
        extensions.insert(parts);
        if let Some(session) = validated {
            extensions.insert(ValidatedSession(SessionId::from(session.to_owned())));
        }
        extensions
    }

    fn caller(mut extensions: Extensions) -> Option<Caller> {
        HttpRequest::take(&mut extensions).caller()
    }

    #[test]
    fn an_authenticated_principal_comes_before_the_session() {
        for guarded in [true, false] {
            let found = caller(extensions(Some("s-1"), Some("s-1"), Some("alice"), guarded));
            assert_eq!(found, Some(Caller::Principal("alice".into())));
        }
    }

    #[test]
    fn without_a_principal_the_validated_session_is_the_caller() {
        assert_eq!(
            caller(extensions(Some("s-1"), Some("s-1"), None, true)),
            Some(Caller::Session("s-1".into()))
        );
    }

    #[test]
    fn a_bare_session_header_names_nobody() {
        assert_eq!(caller(extensions(Some("s-1"), None, None, true)), None);
    }

    #[test]
    fn a_request_with_neither_falls_back_to_the_transport_default() {
        assert_eq!(caller(extensions(None, None, None, true)), None);
        assert_eq!(caller(Extensions::new()), None);
    }

    #[test]
    fn the_context_is_taken_once() {
        let (mut parts, ()) = Request::builder().body(()).unwrap().into_parts();
        parts
            .extensions
            .insert(GrantedScopes::new(["inventory:read"]));
        let arguments = json!({"id": 7}).as_object().unwrap().clone();
        HttpContext::of(&parts, true)
            .with_arguments(arguments.clone())
            .insert(&mut parts);
        let mut extensions = Extensions::new();
        extensions.insert(parts);
        let mut first = HttpRequest::take(&mut extensions);
        assert_eq!(first.arguments(), Some(arguments));
        assert!(first.scopes().is_some());
        let mut second = HttpRequest::take(&mut extensions);
        assert_eq!(second.arguments(), None);
    }
}
