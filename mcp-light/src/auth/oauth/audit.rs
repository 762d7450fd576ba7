//! What an audit ([`crate::audit`]) reports of an OAuth resource: whether
//! the issuer's metadata and keys can be fetched now, with the client and
//! the timeout tokens are checked with.

use jsonwebtoken::jwk::JwkSet;

use super::{ALGORITHMS, FetchError, Verifier, find};
use crate::audit::{Finding, OAUTH_ISSUER, OAUTH_KEYS};

impl Verifier {
    /// The issuer tokens must name in `iss`.
    pub(crate) fn issuer(&self) -> &str {
        &self.inner.resource.issuer
    }

    /// The issuer's metadata (unless the JWKS URL is set), then its keys:
    /// `✓` or `✗` for each. Nothing is cached: the keys a token is checked
    /// with are fetched when the first token comes, as without an audit.
    pub(crate) async fn audit(&self) -> Vec<Finding> {
        let issuer = self.issuer();
        let mut findings = Vec::new();
        let jwks_url = match &self.inner.resource.jwks_url {
            Some(url) => url.clone(),
            None => match self.discover_jwks_url().await {
                Ok(url) => {
                    findings.push(Finding::pass(
                        OAUTH_ISSUER,
                        format!("the OAuth issuer {issuer} answers its metadata, naming its keys at {url}"),
                    ));
                    url
                }
                Err(error) => {
                    findings.push(Finding::error(
                        OAUTH_ISSUER,
                        format!(
                            "the OAuth issuer {issuer} gives no keys, so every access token \
                             is refused 401; check the issuer URL (OAuthResource::new), or \
                             name its keys' URL (OAuthResource::with_jwks_url). Why: {}",
                            explained(&error)
                        ),
                    ));
                    return findings;
                }
            },
        };
        findings.push(match self.get_json::<JwkSet>(&jwks_url).await {
            Ok(keys) => {
                let signing = keys
                    .keys
                    .iter()
                    .filter(|jwk| {
                        ALGORITHMS
                            .iter()
                            .any(|&alg| find(&keys, jwk.common.key_id.as_deref(), alg).is_some())
                    })
                    .count();
                match signing {
                    0 => Finding::error(
                        OAUTH_KEYS,
                        format!(
                            "the OAuth issuer's keys at {jwks_url} hold no key for signatures \
                             with an asymmetric algorithm, so every access token is refused; \
                             check that the URL is the issuer's JWKS"
                        ),
                    ),
                    signing => Finding::pass(
                        OAUTH_KEYS,
                        format!(
                            "the OAuth issuer's keys at {jwks_url} answer: {signing} for signatures"
                        ),
                    ),
                }
            }
            Err(error) => Finding::error(
                OAUTH_KEYS,
                format!(
                    "cannot fetch the OAuth issuer's keys ({}), so every access token is \
                     refused 401; check the JWKS URL (OAuthResource::with_jwks_url), or that \
                     the issuer serves it",
                    explained(&error)
                ),
            ),
        });
        findings
    }
}

/// Why a fetch failed, down to its root cause: a request that got no
/// answer says why (`Connection refused`), where reqwest's own message
/// says only that sending failed.
fn explained(error: &FetchError) -> String {
    match error {
        FetchError::Unreachable { url, source } => {
            let mut cause: &dyn std::error::Error = source;
            while let Some(deeper) = cause.source() {
                cause = deeper;
            }
            format!("{url}: {cause}")
        }
        FetchError::NoKeys(errors) => {
            let errors: Vec<String> = errors.iter().map(explained).collect();
            format!("no metadata document names its keys: {}", errors.join("; "))
        }
        other => other.to_string(),
    }
}
