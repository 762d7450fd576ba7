//! Static bearer tokens: a secret per named caller, set when the server
//! starts.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::AuthError;

/// The shortest secret accepted: 16 characters. A static token is a
/// password sent on every request; anything shorter is guessable.
pub(crate) const MIN_SECRET_LEN: usize = 16;

/// The named secrets a request may present as `Authorization: Bearer …`.
///
/// Secrets are kept as SHA-256 digests and a presented token is compared
/// with every one of them in constant time, so neither the comparison's
/// timing nor a memory dump gives a secret away.
#[derive(Clone, Default)]
pub(crate) struct BearerTokens {
    tokens: Vec<(String, [u8; 32])>,
}

impl BearerTokens {
    /// Adds `secret` for the principal `name`.
    pub(crate) fn add(&mut self, name: &str, secret: &str) -> Result<(), AuthError> {
        if name.is_empty()
            || !name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-@".contains(&b))
        {
            return Err(AuthError::BadTokenName {
                name: name.to_owned(),
            });
        }
        if secret.chars().count() < MIN_SECRET_LEN || secret.chars().any(char::is_whitespace) {
            return Err(AuthError::WeakSecret {
                name: name.to_owned(),
            });
        }
        let digest = digest(secret);
        if let Some((other, _)) = self.tokens.iter().find(|(_, known)| *known == digest) {
            return Err(AuthError::SharedSecret {
                first: other.clone(),
                second: name.to_owned(),
            });
        }
        self.tokens.push((name.to_owned(), digest));
        Ok(())
    }

    /// Whether any secret is configured.
    pub(crate) fn is_empty(&self) -> bool {
        self.tokens.is_empty()
    }

    /// The name whose secret `presented` is, if any.
    pub(crate) fn principal(&self, presented: &str) -> Option<&str> {
        let presented = digest(presented);
        // Every secret is compared, whichever matches.
        let mut found = None;
        for (name, known) in &self.tokens {
            if bool::from(known.ct_eq(&presented)) {
                found = Some(name.as_str());
            }
        }
        found
    }
}

impl std::fmt::Debug for BearerTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<&str> = self.tokens.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("BearerTokens")
            .field("names", &names)
            .finish()
    }
}

fn digest(secret: &str) -> [u8; 32] {
    Sha256::digest(secret.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens() -> BearerTokens {
        let mut tokens = BearerTokens::default();
        tokens.add("alice", "alice-secret-0123456789").unwrap();
        tokens.add("bob", "bob-secret-0123456789").unwrap();
        tokens
    }

    #[test]
    fn a_secret_names_its_principal_and_nothing_else_does() {
        let tokens = tokens();
        assert_eq!(tokens.principal("alice-secret-0123456789"), Some("alice"));
        assert_eq!(tokens.principal("bob-secret-0123456789"), Some("bob"));
        for wrong in [
            "",
            "alice",
            "alice-secret-012345678",
            "alice-secret-0123456789 ",
        ] {
            assert_eq!(tokens.principal(wrong), None, "{wrong:?}");
        }
    }

    #[test]
    fn names_must_be_plain_and_secrets_long() {
        let mut tokens = BearerTokens::default();
        for name in ["", "a b", "https://x", "a:b"] {
            let error = tokens.add(name, "a-long-enough-secret").unwrap_err();
            assert!(matches!(error, AuthError::BadTokenName { .. }), "{name:?}");
        }
        for secret in ["short", "fifteen-chars-x", "has a space in it ok"] {
            let error = tokens.add("ci", secret).unwrap_err();
            assert!(matches!(error, AuthError::WeakSecret { .. }), "{secret:?}");
            assert!(error.to_string().contains("at least 16 characters"));
        }
        tokens.add("ci.bot-1@lab", "sixteen-chars-xx").unwrap();
    }

    #[test]
    fn two_names_cannot_share_a_secret() {
        let mut tokens = tokens();
        let error = tokens.add("carol", "alice-secret-0123456789").unwrap_err();
        assert_eq!(
            error.to_string(),
            "the bearer tokens of `alice` and `carol` are the same secret; give each principal its own"
        );
    }

    #[test]
    fn debug_shows_names_never_secrets() {
        let debug = format!("{:?}", tokens());
        assert!(
            debug.contains("alice") && !debug.contains("secret-0123"),
            "{debug}"
        );
    }
}
