//! What an audit ([`crate::audit`]) reports of the authentication: the
//! credentials it accepts and, with OAuth, whether the issuer answers.

use super::Auth;
use crate::audit::Finding;

impl Auth {
    /// The credentials a request may present, as a report names them.
    pub(crate) fn accepted(&self) -> String {
        let bearer = (!self.inner.bearer.is_empty()).then_some("static bearer tokens");
        #[cfg(feature = "oauth")]
        if let Some(oauth) = &self.inner.oauth {
            let oauth = format!("OAuth access tokens of {}", oauth.issuer());
            return match bearer {
                Some(bearer) => format!("{bearer} or {oauth}"),
                None => oauth,
            };
        }
        bearer.unwrap_or("no credential").to_owned()
    }

    /// With OAuth, whether the issuer's metadata and keys can be fetched
    /// now (`oauth issuer`, `oauth keys`); nothing for static tokens,
    /// which depend on nothing outside the process.
    pub(crate) async fn audit(&self) -> Vec<Finding> {
        #[cfg(feature = "oauth")]
        if let Some(oauth) = &self.inner.oauth {
            return oauth.audit().await;
        }
        Vec::new()
    }
}
