//! Authenticated HTTP callers: who sends a request becomes the
//! [`Principal`] its continuation tokens are bound to.
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

mod audit;
mod bearer;
mod layer;
#[cfg(feature = "oauth")]
mod oauth;

use std::sync::Arc;

use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

pub use crate::principal::GrantedScopes;
use crate::principal::Principal;
use bearer::BearerTokens;
pub use layer::{AuthLayer, AuthService};
#[cfg(feature = "oauth")]
pub use oauth::OAuthResource;

/// Who may call an HTTP server, and who they are: static bearer tokens,
/// OAuth access tokens, or both.
///
/// Cheap to clone: clones share the configuration (and, with OAuth, the
/// issuer's keys once fetched).
///
/// ```
/// use mcp_light::auth::Auth;
///
/// let auth = Auth::new()
///     .with_bearer_token("alice", "a-long-random-secret-of-alice")?
///     .with_bearer_token("ci", "a-long-random-secret-of-ci")?;
/// assert!(auth.is_configured());
/// # Ok::<(), mcp_light::auth::AuthError>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Auth {
    inner: Arc<Inner>,
}

#[derive(Clone, Debug, Default)]
struct Inner {
    bearer: BearerTokens,
    #[cfg(feature = "oauth")]
    oauth: Option<oauth::Verifier>,
}

/// A mistake in the authentication configuration.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AuthError {
    /// A static token's principal name is empty or has other characters
    /// than letters, digits and `._-@`.
    #[error(
        "`{name}` cannot name a principal: use letters, digits and `._-@` only, such as `ci-bot`"
    )]
    BadTokenName {
        /// The name given.
        name: String,
    },
    /// A static token's secret is too short, or has whitespace in it.
    #[error(
        "the bearer token of `{name}` is too weak: use a secret of at least 16 characters without whitespace, such as the output of `openssl rand -hex 32`"
    )]
    WeakSecret {
        /// The principal the secret was for.
        name: String,
    },
    /// Two principals were given one secret, so a request could not tell
    /// which of them it is.
    #[error(
        "the bearer tokens of `{first}` and `{second}` are the same secret; give each principal its own"
    )]
    SharedSecret {
        /// The principal the secret was first given to.
        first: String,
        /// The principal it was given to again.
        second: String,
    },
    /// An OAuth URL is not an absolute `https` URL (or `http` on a loopback
    /// address).
    #[error(
        "the OAuth {what} `{url}` is not usable: give an absolute https URL (http only on 127.0.0.1, [::1] or localhost), such as https://auth.example.com"
    )]
    BadUrl {
        /// Which URL: `issuer`, `audience`, `JWKS URL`.
        what: &'static str,
        /// The URL given.
        url: String,
    },
    /// The HTTP client that fetches the issuer's keys could not be built.
    #[error("cannot build the HTTP client that fetches the issuer's keys: {0}")]
    Client(String),
}

impl Auth {
    /// No credentials yet: add static tokens or OAuth. An `Auth` with
    /// neither refuses every request.
    pub fn new() -> Auth {
        Auth::default()
    }

    /// Accepts `Authorization: Bearer <secret>` as the principal `name`.
    ///
    /// `name` is letters, digits and `._-@`; `secret` has at least 16
    /// characters and no whitespace, and is not another name's secret. A
    /// name may have several secrets (to rotate one).
    pub fn with_bearer_token(mut self, name: &str, secret: &str) -> Result<Auth, AuthError> {
        Arc::make_mut(&mut self.inner).bearer.add(name, secret)?;
        Ok(self)
    }

    /// Accepts OAuth 2.1 access tokens as `resource` describes (cargo
    /// feature `oauth`).
    #[cfg(feature = "oauth")]
    pub fn with_oauth(mut self, resource: OAuthResource) -> Result<Auth, AuthError> {
        Arc::make_mut(&mut self.inner).oauth = Some(oauth::Verifier::new(resource)?);
        Ok(self)
    }

    /// Whether any credential is accepted at all.
    pub fn is_configured(&self) -> bool {
        #[cfg(feature = "oauth")]
        if self.inner.oauth.is_some() {
            return true;
        }
        !self.inner.bearer.is_empty()
    }

    /// The tower layer that authenticates every request of the service it
    /// wraps (see the [module docs](self)).
    pub fn layer(&self) -> AuthLayer {
        AuthLayer::new(self.clone())
    }

    /// The routes of the OAuth protected resource metadata (RFC 9728):
    /// `/.well-known/oauth-protected-resource`, and the same followed by the
    /// resource URL's path (`…/mcp`), each answering the JSON document. Empty
    /// without OAuth. Mount it beside, not behind, [`Auth::layer`]: clients
    /// read it before they have a token.
    pub fn metadata_router(&self) -> axum::Router {
        #[cfg(feature = "oauth")]
        if let Some(oauth) = &self.inner.oauth {
            return oauth.metadata_router();
        }
        axum::Router::new()
    }

    /// The principal a request's headers name, with the scopes its token
    /// grants, or why it is refused. A static bearer token is granted every
    /// scope (it carries no [`GrantedScopes`]).
    pub(crate) async fn authenticate(
        &self,
        headers: &HeaderMap,
    ) -> Result<Authenticated, AuthRefusal> {
        let Some(presented) = bearer_token(headers)? else {
            return Err(AuthRefusal::Missing);
        };
        if let Some(name) = self.inner.bearer.principal(presented) {
            return Ok(Authenticated {
                principal: Principal(name.to_owned()),
                scopes: None,
            });
        }
        #[cfg(feature = "oauth")]
        if let Some(oauth) = &self.inner.oauth {
            let (principal, scopes) = oauth.verify(presented).await?;
            return Ok(Authenticated {
                principal,
                scopes: Some(scopes),
            });
        }
        Err(AuthRefusal::InvalidToken(
            "the bearer token is not one this server accepts".to_owned(),
        ))
    }

    /// The answer to a refused request.
    pub(crate) fn refuse(&self, refusal: AuthRefusal) -> Response {
        let Refused {
            status,
            challenge,
            body,
        } = self.refused(refusal);
        let mut response = (status, body).into_response();
        if let Some(challenge) = challenge {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, challenge);
        }
        response
    }

    /// The status, challenge and body that answer a refused request.
    pub(crate) fn refused(&self, refusal: AuthRefusal) -> Refused {
        let mut challenge = String::from("Bearer");
        let mut push = |key: &str, value: &str| {
            let separator = if challenge.len() > "Bearer".len() {
                ", "
            } else {
                " "
            };
            // A challenge's values are quoted printable ASCII (RFC 6750):
            // a control or non-ASCII character from the token (its `kid`)
            // would make the header invalid, and the 401 would go out
            // without its challenge.
            let value: String = value
                .chars()
                .map(|c| match c {
                    '"' | '\\' => '\'',
                    ' '..='~' => c,
                    _ => '?',
                })
                .collect();
            challenge.push_str(&format!("{separator}{key}=\"{value}\""));
        };
        #[cfg(feature = "oauth")]
        if let Some(oauth) = &self.inner.oauth {
            push("resource_metadata", oauth.metadata_url());
        }
        let (status, body) = match &refusal {
            AuthRefusal::Missing => (
                StatusCode::UNAUTHORIZED,
                "this MCP server requires authentication: send `Authorization: Bearer <token>` with a token it accepts"
                    .to_owned(),
            ),
            AuthRefusal::Malformed => {
                push("error", "invalid_request");
                (
                    StatusCode::BAD_REQUEST,
                    "send one Authorization header, `Bearer <token>`, with the token after `Bearer `"
                    .to_owned(),
                )
            }
            AuthRefusal::InvalidToken(why) => {
                push("error", "invalid_token");
                push("error_description", why);
                (
                    StatusCode::UNAUTHORIZED,
                    format!("{why}; get a valid token and send it as `Authorization: Bearer <token>`"),
                )
            }
            AuthRefusal::InsufficientScope(scopes) => {
                push("error", "insufficient_scope");
                push("scope", scopes);
                (
                    StatusCode::FORBIDDEN,
                    format!("the access token lacks a scope this server requires; ask the authorization server for `{scopes}`"),
                )
            }
            AuthRefusal::ToolScope { tool, missing } => {
                push("error", "insufficient_scope");
                push("scope", missing);
                (
                    StatusCode::FORBIDDEN,
                    format!(
                        "`{tool}` needs the scope `{missing}`, which the access token does not grant; \
                         ask the authorization server for a token with `{missing}`"
                    ),
                )
            }
        };
        Refused {
            status,
            challenge: HeaderValue::from_str(&challenge).ok(),
            body,
        }
    }
}

/// Who a request is, once authenticated: its principal and, for an OAuth
/// access token, the scopes it grants.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Authenticated {
    pub(crate) principal: Principal,
    /// `None` for a static bearer token, which is not narrowed by scopes.
    pub(crate) scopes: Option<GrantedScopes>,
}

/// The [`Auth`] that let a request through, in its extensions: whoever
/// refuses it later for a scope answers the same challenge.
#[derive(Debug, Clone)]
pub(crate) struct Challenger(pub(crate) Auth);

/// The parts of a refusal's HTTP answer.
pub(crate) struct Refused {
    pub(crate) status: StatusCode,
    /// The `WWW-Authenticate` challenge.
    pub(crate) challenge: Option<HeaderValue>,
    pub(crate) body: String,
}

/// Why a request is not let through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum AuthRefusal {
    /// No bearer credentials (no `Authorization` header, or another
    /// scheme): 401.
    Missing,
    /// Two `Authorization` headers, or `Bearer` without a token: 400.
    Malformed,
    /// A token that is not accepted, and why: 401 `invalid_token`.
    InvalidToken(String),
    /// A valid token without the scopes named: 403 `insufficient_scope`.
    #[cfg_attr(not(feature = "oauth"), allow(dead_code))]
    InsufficientScope(String),
    /// A valid token without the scopes `missing` (space-separated) that
    /// a call of `tool` needs: 403 `insufficient_scope`.
    ToolScope { tool: String, missing: String },
}

/// The token of `Authorization: Bearer <token>`; `None` without bearer
/// credentials (no header, or another scheme such as `Basic`).
fn bearer_token(headers: &HeaderMap) -> Result<Option<&str>, AuthRefusal> {
    let mut values = headers.get_all(header::AUTHORIZATION).iter();
    let Some(value) = values.next() else {
        return Ok(None);
    };
    if values.next().is_some() {
        return Err(AuthRefusal::Malformed);
    }
    let value = value.to_str().map_err(|_| AuthRefusal::Malformed)?;
    let (scheme, token) = value.split_once(' ').unwrap_or((value, ""));
    if !scheme.eq_ignore_ascii_case("bearer") {
        return Ok(None);
    }
    match token.trim() {
        "" => Err(AuthRefusal::Malformed),
        token => Ok(Some(token)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
