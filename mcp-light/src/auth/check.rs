//! [`Auth`]: the credentials a server takes, and how a request's are checked.

use super::bearer::BearerTokens;
use super::error::{AuthError, AuthRefusal};
#[cfg(feature = "oauth")]
use super::oauth::OAuthResource;
use crate::principal::GrantedScopes;
use crate::principal::Principal;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

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
    pub(crate) inner: Arc<Inner>,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Inner {
    pub(crate) bearer: BearerTokens,
    #[cfg(feature = "oauth")]
    pub(crate) oauth: Option<super::oauth::Verifier>,
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
        Arc::make_mut(&mut self.inner).oauth = Some(super::oauth::Verifier::new(resource)?);
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
