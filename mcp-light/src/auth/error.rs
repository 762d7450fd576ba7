//! What building an [`Auth`](super::Auth) refuses.

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
