//! An OAuth 2.1 resource server, as the MCP authorization spec asks: JWT
//! access tokens checked against the issuer's published keys (cargo
//! feature `oauth`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::http::header;
use axum::response::IntoResponse;
use jsonwebtoken::jwk::{Jwk, JwkSet, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey, Validation, errors::ErrorKind};
use reqwest::Url;
use rustls_platform_verifier::BuilderVerifierExt;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{AuthError, AuthRefusal, GrantedScopes};
use crate::principal::Principal;

/// Signature algorithms accepted: asymmetric only, so nobody who can read
/// the issuer's published keys can sign a token.
const ALGORITHMS: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// The soonest the issuer's keys are fetched again for a token signed by a
/// key this server does not know: a rotation is picked up within this, and
/// a flood of forged key ids cannot make the server hammer the issuer.
const MIN_REFETCH: Duration = Duration::from_secs(30);

/// How long fetched keys are used before they are fetched again.
const MAX_KEY_AGE: Duration = Duration::from_secs(3600);

/// How long one request to the issuer may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

/// The path of the protected resource metadata (RFC 9728).
const METADATA_PATH: &str = "/.well-known/oauth-protected-resource";

/// What an MCP server accepts as an OAuth 2.1 resource server: tokens of
/// one issuer, for this server's resource URL (cargo feature `oauth`).
///
/// An access token is accepted when it is a JWT signed by one of the
/// issuer's keys (its JWKS, found through the issuer's metadata unless
/// [`with_jwks_url`](OAuthResource::with_jwks_url) names it), with `iss`
/// the issuer, `aud` this resource, `exp` in the future, `nbf` (if any) in
/// the past, and every [required scope](OAuthResource::with_required_scopes).
/// The principal is the issuer and the token's `sub`.
///
/// The issuer's metadata and keys are fetched by an HTTP client made for
/// this resource by [`Auth::with_oauth`](super::Auth::with_oauth). Its TLS
/// runs on the rustls crypto provider the application installed before
/// then (`rustls::crypto::CryptoProvider::get_default`), or else on ring's,
/// handed to that client alone: mcp-light installs no provider for the
/// process, so an application that builds rustls clients of its own
/// installs the provider they use.
///
/// ```no_run
/// use mcp_light::auth::{Auth, OAuthResource};
///
/// let oauth = OAuthResource::new("https://auth.example.com", "https://mcp.example.com/mcp")
///     .with_required_scopes(["inventory"]);
/// let auth = Auth::new().with_oauth(oauth)?;
/// # Ok::<(), mcp_light::auth::AuthError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthResource {
    issuer: String,
    audience: String,
    jwks_url: Option<String>,
    scopes: Vec<String>,
    leeway: Duration,
}

impl OAuthResource {
    /// Tokens of `issuer` (the authorization server's issuer identifier)
    /// for `audience`: this server's resource URL as clients reach it, such
    /// as `https://mcp.example.com/mcp` — behind a load balancer, the
    /// public URL, not the replica's address.
    pub fn new(issuer: impl Into<String>, audience: impl Into<String>) -> OAuthResource {
        OAuthResource {
            issuer: issuer.into(),
            audience: audience.into(),
            jwks_url: None,
            scopes: Vec::new(),
            leeway: Duration::from_secs(60),
        }
    }

    /// Fetches the issuer's keys from `url` instead of the `jwks_uri` of the
    /// issuer's metadata (RFC 8414, then OpenID Connect discovery).
    pub fn with_jwks_url(mut self, url: impl Into<String>) -> OAuthResource {
        self.jwks_url = Some(url.into());
        self
    }

    /// Scopes every token must carry (in `scope`, space-separated, or an
    /// `scp` list); a token without one is answered 403
    /// `insufficient_scope`. Published in the metadata as
    /// `scopes_supported`.
    pub fn with_required_scopes(
        mut self,
        scopes: impl IntoIterator<Item = impl Into<String>>,
    ) -> OAuthResource {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// How far clocks may disagree when `exp` and `nbf` are checked
    /// (default 60 s).
    pub fn with_leeway(mut self, leeway: Duration) -> OAuthResource {
        self.leeway = leeway;
        self
    }
}

/// An [`OAuthResource`] at work: the issuer's keys once fetched, and the
/// metadata document.
///
/// The keys are fetched with an HTTP client of its own, whose TLS runs on
/// the rustls crypto provider the application installed
/// (`rustls::crypto::CryptoProvider::get_default`), or else on ring's,
/// handed to that client alone: mcp-light installs no provider for the
/// process, so an application's own choice, made before or after, stands.
#[derive(Clone, Debug)]
pub(crate) struct Verifier {
    inner: Arc<VerifierInner>,
}

#[derive(Debug)]
struct VerifierInner {
    resource: OAuthResource,
    /// The issuer's identifier, parsed and checked once.
    issuer: Url,
    /// Where the metadata is, as the `WWW-Authenticate` challenge says.
    metadata_url: String,
    /// The paths the metadata is served at.
    metadata_paths: Vec<String>,
    metadata: String,
    http: reqwest::Client,
    keys: tokio::sync::Mutex<KeyCache>,
}

#[derive(Debug, Default)]
struct KeyCache {
    jwks_url: Option<String>,
    keys: Option<JwkSet>,
    fetched: Option<Instant>,
}

#[derive(Deserialize)]
struct Claims {
    /// Required, but read as optional so its absence gets its own message.
    #[serde(default)]
    sub: Option<String>,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    scp: Option<Value>,
}

impl Verifier {
    pub(super) fn new(resource: OAuthResource) -> Result<Verifier, AuthError> {
        let issuer = checked_url("issuer", &resource.issuer)?;
        let audience = checked_url("audience", &resource.audience)?;
        if let Some(jwks) = &resource.jwks_url {
            checked_url("JWKS URL", jwks)?;
        }
        let path = audience.path().trim_end_matches('/');
        let origin = audience.origin().ascii_serialization();
        let metadata_url = format!("{origin}{METADATA_PATH}{path}");
        let mut metadata_paths = vec![METADATA_PATH.to_owned()];
        if !path.is_empty() {
            metadata_paths.push(format!("{METADATA_PATH}{path}"));
        }
        let mut metadata = json!({
            "resource": resource.audience,
            "authorization_servers": [resource.issuer],
            "bearer_methods_supported": ["header"],
        });
        if !resource.scopes.is_empty() {
            metadata["scopes_supported"] = json!(resource.scopes);
        }
        let http = http_client()?;
        Ok(Verifier {
            inner: Arc::new(VerifierInner {
                keys: tokio::sync::Mutex::new(KeyCache {
                    jwks_url: resource.jwks_url.clone(),
                    ..KeyCache::default()
                }),
                resource,
                issuer,
                metadata_url,
                metadata_paths,
                metadata: metadata.to_string(),
                http,
            }),
        })
    }

    /// Where the protected resource metadata is.
    pub(super) fn metadata_url(&self) -> &str {
        &self.inner.metadata_url
    }

    pub(super) fn metadata_router(&self) -> axum::Router {
        let mut router = axum::Router::new();
        for path in &self.inner.metadata_paths {
            let body = self.inner.metadata.clone();
            router = router.route(
                path,
                axum::routing::get(move || async move {
                    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
                }),
            );
        }
        router
    }

    /// The principal `token` names.
    #[cfg(test)]
    pub(super) async fn principal(&self, token: &str) -> Result<Principal, AuthRefusal> {
        self.verify(token).await.map(|(principal, _)| principal)
    }

    /// The principal `token` names and the scopes it grants, or why it is
    /// refused.
    pub(super) async fn verify(
        &self,
        token: &str,
    ) -> Result<(Principal, GrantedScopes), AuthRefusal> {
        let resource = &self.inner.resource;
        let header = jsonwebtoken::decode_header(token).map_err(|_| {
            AuthRefusal::InvalidToken(
                "the bearer token is neither a known token nor a JWT".to_owned(),
            )
        })?;
        if !ALGORITHMS.contains(&header.alg) {
            return Err(AuthRefusal::InvalidToken(format!(
                "access tokens signed with {:?} are not accepted; the issuer must sign with an asymmetric key",
                header.alg
            )));
        }
        let key = self.key(header.kid.as_deref(), header.alg).await?;
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[&resource.issuer]);
        validation.set_audience(&[&resource.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        validation.validate_nbf = true;
        validation.leeway = resource.leeway.as_secs();
        let claims = jsonwebtoken::decode::<Claims>(token, &key, &validation)
            .map_err(|error| AuthRefusal::InvalidToken(self.describe(error.kind())))?
            .claims;
        let granted = granted_scopes(&claims);

        let missing: Vec<&str> = resource
            .scopes
            .iter()
            .filter(|scope| !granted.contains(scope))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            return Err(AuthRefusal::InsufficientScope(missing.join(" ")));
        }
        let Some(subject) = claims.sub else {
            return Err(AuthRefusal::InvalidToken(
                "the access token has no `sub` claim".to_owned(),
            ));
        };
        Ok((
            Principal(format!("{}#{subject}", resource.issuer)),
            GrantedScopes::new(granted),
        ))
    }

    /// Why a token failed validation, in a sentence.
    fn describe(&self, error: &ErrorKind) -> String {
        let resource = &self.inner.resource;
        match error {
            ErrorKind::ExpiredSignature => "the access token has expired".to_owned(),
            ErrorKind::ImmatureSignature => "the access token is not valid yet (nbf)".to_owned(),
            ErrorKind::InvalidIssuer => {
                format!("the access token was not issued by {}", resource.issuer)
            }
            ErrorKind::InvalidAudience => {
                format!(
                    "the access token is not for this resource, {}",
                    resource.audience
                )
            }
            ErrorKind::InvalidSignature => {
                "the access token's signature does not match the issuer's key".to_owned()
            }
            ErrorKind::MissingRequiredClaim(claim) => {
                format!("the access token has no `{claim}` claim")
            }
            other => format!("the access token is not valid ({other:?})"),
        }
    }

    /// The issuer's key `kid` for `alg`, fetching the keys when they are
    /// missing, old, or do not have it.
    async fn key(&self, kid: Option<&str>, alg: Algorithm) -> Result<DecodingKey, AuthRefusal> {
        let mut cache = self.inner.keys.lock().await;
        let age = cache.fetched.map(|at| at.elapsed());
        let known = cache.keys.as_ref().and_then(|keys| find(keys, kid, alg));
        let refetch = match (known.is_some(), age) {
            (_, None) => true,
            (true, Some(age)) => age >= MAX_KEY_AGE,
            (false, Some(age)) => age >= MIN_REFETCH,
        };
        if refetch {
            match self.fetch_keys(&mut cache).await {
                Ok(keys) => {
                    cache.keys = Some(keys);
                    cache.fetched = Some(Instant::now());
                }
                Err(error) => {
                    tracing::warn!(%error, "cannot fetch the OAuth issuer's keys");
                    if cache.keys.is_none() {
                        return Err(AuthRefusal::InvalidToken(format!(
                            "this server cannot check access tokens now: {error}"
                        )));
                    }
                    // Keep the keys it has; try again after MIN_REFETCH.
                    cache.fetched = Instant::now().checked_sub(MAX_KEY_AGE - MIN_REFETCH);
                }
            }
        }
        let jwk = cache
            .keys
            .as_ref()
            .and_then(|keys| find(keys, kid, alg))
            .ok_or_else(|| {
                AuthRefusal::InvalidToken(match kid {
                    Some(kid) => {
                        format!("the access token's key `{kid}` is not one of the issuer's")
                    }
                    None => "the access token names no key (`kid`) and the issuer has several"
                        .to_owned(),
                })
            })?;
        DecodingKey::from_jwk(jwk).map_err(|error| {
            AuthRefusal::InvalidToken(format!("the issuer's key cannot check the token ({error})"))
        })
    }

    /// The issuer's current key set.
    async fn fetch_keys(&self, cache: &mut KeyCache) -> Result<JwkSet, FetchError> {
        let url = match &cache.jwks_url {
            Some(url) => url.clone(),
            None => {
                let url = self.discover_jwks_url().await?;
                cache.jwks_url = Some(url.clone());
                url
            }
        };
        let keys: JwkSet = self.get_json(&url).await?;
        Ok(keys)
    }

    /// The `jwks_uri` of the issuer's metadata: RFC 8414's location first,
    /// then OpenID Connect's.
    async fn discover_jwks_url(&self) -> Result<String, FetchError> {
        let issuer = &self.inner.resource.issuer;
        let parsed = &self.inner.issuer;
        let origin = parsed.origin().ascii_serialization();
        let path = parsed.path().trim_end_matches('/');
        let candidates = [
            format!("{origin}/.well-known/oauth-authorization-server{path}"),
            format!(
                "{}/.well-known/openid-configuration",
                issuer.trim_end_matches('/')
            ),
        ];
        let mut errors = Vec::new();
        for url in candidates {
            match self.get_json::<Value>(&url).await {
                Ok(metadata) => {
                    if metadata["issuer"].as_str() != Some(issuer.as_str()) {
                        errors.push(FetchError::OtherIssuer { url });
                        continue;
                    }
                    match metadata["jwks_uri"].as_str() {
                        Some(jwks) => {
                            checked_url("JWKS URL", jwks).map_err(FetchError::BadJwksUrl)?;
                            return Ok(jwks.to_owned());
                        }
                        None => errors.push(FetchError::NoJwksUri { url }),
                    }
                }
                Err(error) => errors.push(error),
            }
        }
        Err(FetchError::NoKeys(errors))
    }

    async fn get_json<T: serde::de::DeserializeOwned>(&self, url: &str) -> Result<T, FetchError> {
        let response =
            self.inner
                .http
                .get(url)
                .send()
                .await
                .map_err(|source| FetchError::Unreachable {
                    url: url.to_owned(),
                    source,
                })?;
        let status = response.status();
        if !status.is_success() {
            return Err(FetchError::Status {
                url: url.to_owned(),
                status,
            });
        }
        response.json().await.map_err(|source| FetchError::NotJson {
            url: url.to_owned(),
            source,
        })
    }
}

/// Why the issuer's keys could not be fetched: the sentence a refused token
/// and the log give.
#[derive(Debug, thiserror::Error)]
enum FetchError {
    /// A metadata document names an issuer other than the one configured.
    #[error("{url} names another issuer")]
    OtherIssuer { url: String },
    /// A metadata document has no `jwks_uri`.
    #[error("{url} has no jwks_uri")]
    NoJwksUri { url: String },
    /// The `jwks_uri` of the issuer's metadata is not a URL keys are
    /// fetched from.
    #[error(transparent)]
    BadJwksUrl(AuthError),
    /// No metadata document gave the keys: why, for each place looked at.
    #[error(
        "the issuer's metadata gives no keys ({}); set the JWKS URL explicitly",
        Joined(.0)
    )]
    NoKeys(Vec<FetchError>),
    /// The request did not get an answer.
    #[error("{url}: {source}")]
    Unreachable { url: String, source: reqwest::Error },
    /// The answer was not a success.
    #[error("{url} answered {status}")]
    Status {
        url: String,
        status: reqwest::StatusCode,
    },
    /// The answer was not the JSON document expected.
    #[error("{url} did not answer the JSON expected: {source}")]
    NotJson { url: String, source: reqwest::Error },
}

/// Errors one after the other, separated by `; `.
struct Joined<'e>(&'e [FetchError]);

impl std::fmt::Display for Joined<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, error) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{error}")?;
        }
        Ok(())
    }
}

/// The client the issuer's keys are fetched with, its TLS on the crypto
/// provider the application installed, else on ring's for this client
/// alone: a library that installed one would take the choice from the
/// application.
fn http_client() -> Result<reqwest::Client, AuthError> {
    let provider = rustls::crypto::CryptoProvider::get_default()
        .cloned()
        .unwrap_or_else(|| Arc::new(rustls::crypto::ring::default_provider()));
    let client_error = |error: &dyn std::fmt::Display| AuthError::Client(error.to_string());
    let mut tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .and_then(BuilderVerifierExt::with_platform_verifier)
        .map_err(|error| client_error(&error))?
        .with_no_client_auth();
    // What reqwest offers when it builds the TLS itself, without HTTP/2.
    tls.alpn_protocols = vec![b"http/1.1".to_vec()];
    reqwest::Client::builder()
        .timeout(FETCH_TIMEOUT)
        .tls_backend_preconfigured(tls)
        .build()
        .map_err(|error| client_error(&error))
}

/// The key of `keys` a token signed with `alg` under `kid` is checked
/// with: the one with that id (the only one, when the token names none),
/// meant for signatures and, if it says, for `alg`.
fn find<'k>(keys: &'k JwkSet, kid: Option<&str>, alg: Algorithm) -> Option<&'k Jwk> {
    let jwk = match kid {
        Some(kid) => keys.find(kid)?,
        None => match keys.keys.as_slice() {
            [only] => only,
            _ => return None,
        },
    };
    let for_signing = !matches!(
        jwk.common.public_key_use,
        Some(PublicKeyUse::Encryption | PublicKeyUse::Other(_))
    );
    let for_alg = jwk
        .common
        .key_algorithm
        .is_none_or(|key_alg| serde_json::to_value(key_alg).ok() == serde_json::to_value(alg).ok());
    (for_signing && for_alg).then_some(jwk)
}

/// The scopes a token grants: `scope` (space-separated) and `scp` (a list,
/// or a space-separated string).
fn granted_scopes(claims: &Claims) -> Vec<String> {
    let mut scopes: Vec<String> = claims
        .scope
        .iter()
        .flat_map(|scope| scope.split_whitespace().map(str::to_owned))
        .collect();
    match &claims.scp {
        Some(Value::String(scp)) => scopes.extend(scp.split_whitespace().map(str::to_owned)),
        Some(Value::Array(scp)) => {
            scopes.extend(scp.iter().filter_map(Value::as_str).map(str::to_owned));
        }
        _ => {}
    }
    scopes
}

/// `url` parsed, when it is https, or http on a loopback host.
fn checked_url(what: &'static str, url: &str) -> Result<Url, AuthError> {
    let bad = || AuthError::BadUrl {
        what,
        url: url.to_owned(),
    };
    let parsed = Url::parse(url).map_err(|_| bad())?;
    let loopback = matches!(parsed.host_str(), Some("127.0.0.1" | "[::1]" | "localhost"));
    match parsed.scheme() {
        "https" => Ok(parsed),
        "http" if loopback => Ok(parsed),
        _ => Err(bad()),
    }
}

mod audit;
#[cfg(test)]
mod tests;
