//! Continuation tokens (C20). STUB: replaced by the store/token work.

use std::fmt;

/// A continuation token.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Token(String);

impl Token {
    /// Mints a fresh token from the operating system's CSPRNG.
    pub fn mint() -> Result<Token, getrandom::Error> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes)?;
        Ok(Token(format!("{:039}", u128::from_le_bytes(bytes))))
    }

    /// Reads a token a caller sent back; `None` when it cannot be one.
    pub fn parse(text: &str) -> Option<Token> {
        (text.len() == 39 && text.bytes().all(|b| b.is_ascii_digit()))
            .then(|| Token(text.to_owned()))
    }

    /// The token as the caller sees it.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Token({}…)", &self.0[..6])
    }
}
