//! Authenticated HTTP callers: who sends a request becomes the
//! [`Principal`](crate::Principal) its continuation tokens are bound to.
//!
//! Without authentication, a client on protocol 2026-07-28 has no session
//! and every such caller is the same anonymous identity, so a continuation
//! token alone is the capability to redeem it. [`Auth`] names the caller
//! instead, from the request's `Authorization: Bearer …` header:
//!
//! - static bearer tokens ([`Auth::with_bearer_token`]): a secret per named
//!   principal, compared in constant time;
//! - OAuth 2.1 access tokens (cargo feature `oauth`,
//!   `Auth::with_oauth`): JWTs signed by the issuer's keys (its JWKS),
//!   for this server's resource URL, as the MCP authorization spec asks of
//!   a resource server. The principal is the token's issuer and subject.
//!
//! A request without valid credentials is answered 401 before it reaches
//! MCP — no tool runs — with a `WWW-Authenticate: Bearer` challenge that,
//! with OAuth, points to the server's protected resource metadata (RFC
//! 9728); a token without a required scope is answered 403
//! `insufficient_scope`.
//!
//! Scopes are checked twice over. [`OAuthResource::with_required_scopes`]
//! names scopes every request needs; a tool's `scopes = ["..."]` (in its
//! `#[mcp_tool]`, `#[mcp_light]` or `#[mcp_heavy]`) names those a call of
//! that tool needs, beyond them. An OAuth access token's scopes go with
//! its principal ([`GrantedScopes`], in the request's extensions), and a
//! `tools/call` of a tool, or of a dispatcher's action, whose scopes the
//! token lacks is answered 403 `insufficient_scope` with
//! `WWW-Authenticate: Bearer error="insufficient_scope", scope="..."`
//! naming the missing ones, before anything runs. A static bearer token is
//! the operator's own secret, not a grant an authorization server
//! narrowed: it carries no [`GrantedScopes`] and may call every tool. A
//! server none of whose tools names scopes reads nothing of a request to
//! check them.
//!
//! Tokens minted for a principal redeem on every
//! replica that shares the continuation store, and for nobody else.
//!
//! [`Server::serve_http_with`](crate::Server::serve_http_with) mounts it; a
//! host serving its own axum router mounts [`Auth::layer`] on the MCP
//! route and [`Auth::metadata_router`] beside it:
//!
//! ```no_run
//! use mcp_light::auth::Auth;
//!
//! # async fn run(server: mcp_light::Server) -> Result<(), Box<dyn std::error::Error>> {
//! let auth = Auth::new().with_bearer_token("ci", &std::env::var("CI_TOKEN")?)?;
//! let config = rmcp::transport::streamable_http_server::StreamableHttpServerConfig::default();
//! let router = axum::Router::new()
//!     .nest_service("/mcp", server.http_service(config))
//!     .layer(auth.layer())
//!     .merge(auth.metadata_router());
//! # let _ = router;
//! # Ok(()) }
//! ```

// `OAuthResource` exists with the `oauth` feature; without it, the link goes
// to the page docs.rs builds with every feature.
#![cfg_attr(
    feature = "oauth",
    doc = "[`OAuthResource::with_required_scopes`]: OAuthResource::with_required_scopes"
)]
#![cfg_attr(
    not(feature = "oauth"),
    doc = "[`OAuthResource::with_required_scopes`]: https://docs.rs/mcp-light/latest/mcp_light/auth/struct.OAuthResource.html#method.with_required_scopes"
)]

mod check;
pub use check::Auth;
pub(crate) use check::{Challenger, Refused};
pub(crate) use error::AuthRefusal;
mod error;
pub use error::AuthError;
mod audit;
mod bearer;
mod layer;
#[cfg(feature = "oauth")]
mod oauth;

pub use crate::principal::GrantedScopes;
pub use layer::{AuthLayer, AuthService};
#[cfg(feature = "oauth")]
pub use oauth::OAuthResource;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::principal::Principal;
    use axum::http::{HeaderMap, StatusCode, header};
    use check::Authenticated;

    fn headers(values: &[&str]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(header::AUTHORIZATION, value.parse().unwrap());
        }
        headers
    }

    fn auth() -> Auth {
        Auth::new()
            .with_bearer_token("alice", "alice-secret-0123456789")
            .unwrap()
    }

    #[tokio::test]
    async fn a_static_token_names_its_principal() {
        for value in [
            "Bearer alice-secret-0123456789",
            "bearer  alice-secret-0123456789",
        ] {
            let authenticated = auth().authenticate(&headers(&[value])).await;
            let expected = Authenticated {
                principal: Principal("alice".into()),
                scopes: None,
            };
            assert_eq!(authenticated, Ok(expected), "{value}");
        }
    }

    #[tokio::test]
    async fn no_bearer_credentials_are_missing_and_a_bad_header_is_malformed() {
        for values in [
            &[][..],
            &["Basic YWxpY2U6c2VjcmV0"],
            &["alice-secret-0123456789"],
        ] {
            let refused = auth().authenticate(&headers(values)).await;
            assert_eq!(refused, Err(AuthRefusal::Missing), "{values:?}");
        }
        for values in [
            &["Bearer"][..],
            &["Bearer "],
            &[
                "Bearer alice-secret-0123456789",
                "Bearer alice-secret-0123456789",
            ],
        ] {
            let refused = auth().authenticate(&headers(values)).await;
            assert_eq!(refused, Err(AuthRefusal::Malformed), "{values:?}");
        }
    }

    #[tokio::test]
    async fn an_unknown_token_is_invalid() {
        let refused = auth().authenticate(&headers(&["Bearer nope"])).await;
        assert!(
            matches!(refused, Err(AuthRefusal::InvalidToken(_))),
            "{refused:?}"
        );
    }

    #[tokio::test]
    async fn an_empty_auth_refuses_everyone() {
        let auth = Auth::new();
        assert!(!auth.is_configured());
        let refused = auth
            .authenticate(&headers(&["Bearer anything-at-all-really"]))
            .await;
        assert!(matches!(refused, Err(AuthRefusal::InvalidToken(_))));
    }

    #[test]
    fn refusals_answer_401_400_and_403_with_a_bearer_challenge() {
        let auth = auth();
        let missing = auth.refuse(AuthRefusal::Missing);
        assert_eq!(missing.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(missing.headers()[header::WWW_AUTHENTICATE], "Bearer");

        let invalid = auth.refuse(AuthRefusal::InvalidToken("the token \"x\" expired".into()));
        assert_eq!(invalid.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(
            invalid.headers()[header::WWW_AUTHENTICATE],
            "Bearer error=\"invalid_token\", error_description=\"the token 'x' expired\""
        );
        assert_eq!(
            auth.refuse(AuthRefusal::Malformed).status(),
            StatusCode::BAD_REQUEST
        );

        let scope = auth.refuse(AuthRefusal::InsufficientScope("inventory:write".into()));
        assert_eq!(scope.status(), StatusCode::FORBIDDEN);
        assert_eq!(
            scope.headers()[header::WWW_AUTHENTICATE],
            "Bearer error=\"insufficient_scope\", scope=\"inventory:write\""
        );
    }

    /// Found by the `bearer` fuzz target: a JWT whose header was
    /// `{"alg":"EdDSA","kid":"\n\r\t"}` was refused 401 without a
    /// challenge, the refusal naming the key as the token wrote it.
    #[test]
    fn a_challenge_keeps_to_printable_ascii_whatever_the_token_held() {
        let control = auth().refuse(AuthRefusal::InvalidToken(
            "the access token's key `\n\r\t` is not one of the issuer's (é)".into(),
        ));
        assert_eq!(control.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(
            control.headers()[header::WWW_AUTHENTICATE],
            "Bearer error=\"invalid_token\", error_description=\"the access token's key `???` is not one of the issuer's (?)\""
        );
    }
}
