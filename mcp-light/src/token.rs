//! Continuation tokens (C20).
//!
//! A token is 128 bits from the operating system's CSPRNG written as a
//! zero-padded 39-digit decimal number. Decimal because both cl100k and o200k
//! split digits into groups of three, each group one token: a token costs a
//! model exactly 13 tokens to read back, where hex or base64 of the same 128
//! bits costs 20 or more. Digits are also URL-safe and survive any quoting.
//!
//! ```
//! use mcp_light::token::Token;
//!
//! let token = Token::mint()?;
//! assert_eq!(token.as_str().len(), 39);
//! assert_eq!(Token::parse(token.as_str()), Some(token));
//! # Ok::<(), getrandom::Error>(())
//! ```

use std::fmt;

/// How many decimal digits a token has: `u128::MAX` has 39.
const DIGITS: usize = 39;

/// How many leading digits `Debug` shows: enough to tell tokens apart in a
/// log, few enough (about 13 of 128 bits) to leave the capability secret.
const DEBUG_DIGITS: usize = 4;

/// A continuation token: the capability that redeems a stored result.
///
/// Always 39 ASCII digits whose value fits a `u128`, so each token has one
/// spelling and store lookups compare bytes. `Display` prints the whole token
/// (that is what goes on the wire); `Debug` prints only its first digits,
/// because a token in a log is a token anyone reading the log can redeem.
///
/// ```
/// use mcp_light::token::Token;
///
/// let token = Token::parse("000000000000000000000000000000000000042").unwrap();
/// assert_eq!(token.to_string(), "000000000000000000000000000000000000042");
/// assert_eq!(format!("{token:?}"), "Token(0000…)");
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Token([u8; DIGITS]);

impl Token {
    /// Mints a fresh token from the operating system's CSPRNG.
    ///
    /// Fails only when the OS has no randomness to give; callers then mint
    /// no token at all (C15) rather than a guessable one.
    ///
    /// ```
    /// use mcp_light::token::Token;
    ///
    /// let a = Token::mint()?;
    /// let b = Token::mint()?;
    /// assert_ne!(a, b);
    /// # Ok::<(), getrandom::Error>(())
    /// ```
    pub fn mint() -> Result<Token, getrandom::Error> {
        let mut bytes = [0u8; 16];
        getrandom::fill(&mut bytes)?;
        Ok(Token::from_u128(u128::from_le_bytes(bytes)))
    }

    /// Reads a token a caller sent back; `None` when it cannot be one.
    ///
    /// Accepts exactly the canonical form: 39 ASCII digits, value at most
    /// `u128::MAX`. Nothing is trimmed or normalised (no whitespace, sign,
    /// or shorter unpadded number), so a token has one spelling and a string
    /// that is not byte-for-byte a minted token is refused rather than
    /// guessed at.
    ///
    /// ```
    /// use mcp_light::token::Token;
    ///
    /// let text = "340282366920938463463374607431768211455"; // u128::MAX
    /// assert_eq!(Token::parse(text).unwrap().as_str(), text);
    ///
    /// assert!(Token::parse("42").is_none()); // not padded
    /// assert!(Token::parse(" 340282366920938463463374607431768211455").is_none());
    /// assert!(Token::parse("999999999999999999999999999999999999999").is_none()); // > u128::MAX
    /// ```
    pub fn parse(text: &str) -> Option<Token> {
        let bytes: [u8; DIGITS] = text.as_bytes().try_into().ok()?;
        if !bytes.iter().all(u8::is_ascii_digit) {
            return None;
        }
        // All digits, so the only way `parse` fails is a value above u128::MAX.
        text.parse::<u128>().ok()?;
        Some(Token(bytes))
    }

    /// The token as the caller sees it: 39 ASCII digits.
    ///
    /// ```
    /// use mcp_light::token::Token;
    ///
    /// let token = Token::mint()?;
    /// assert!(token.as_str().bytes().all(|b| b.is_ascii_digit()));
    /// # Ok::<(), getrandom::Error>(())
    /// ```
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).expect("a token holds only ASCII digits")
    }

    /// Writes `value` as 39 zero-padded decimal digits, without allocating.
    fn from_u128(mut value: u128) -> Token {
        let mut digits = [b'0'; DIGITS];
        for digit in digits.iter_mut().rev() {
            *digit = b'0' + (value % 10) as u8;
            value /= 10;
        }
        Token(digits)
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Token({}…)", &self.as_str()[..DEBUG_DIGITS])
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use tiktoken_rs::{CoreBPE, cl100k_base_singleton, o200k_base_singleton};

    use super::*;

    /// The most model tokens a continuation token may cost (C20).
    const MAX_MODEL_TOKENS: usize = 13;

    #[test]
    fn minted_tokens_are_39_digits_and_parse_back() {
        for _ in 0..1_000 {
            let token = Token::mint().unwrap();
            assert_eq!(token.as_str().len(), DIGITS);
            assert!(token.as_str().bytes().all(|b| b.is_ascii_digit()));
            assert_eq!(token.to_string(), token.as_str());
            assert_eq!(Token::parse(token.as_str()), Some(token));
        }
    }

    #[test]
    fn formatting_zero_pads_and_covers_the_whole_u128_range() {
        assert_eq!(Token::from_u128(0).as_str(), "0".repeat(DIGITS));
        assert_eq!(Token::from_u128(42).as_str(), format!("{:039}", 42));
        assert_eq!(Token::from_u128(u128::MAX).as_str(), u128::MAX.to_string());
        let max = Token::parse(&u128::MAX.to_string()).unwrap();
        assert_eq!(max, Token::from_u128(u128::MAX));
    }

    #[test]
    fn parse_rejects_everything_but_the_canonical_form() {
        let good = "0".repeat(DIGITS);
        assert!(Token::parse(&good).is_some());
        let refused = [
            "0".repeat(38),
            "0".repeat(40),
            String::new(),
            // 39 nines overflow u128 (max is 340282366920938463463374607431768211455).
            "9".repeat(39),
            "340282366920938463463374607431768211456".to_owned(),
            format!("a{}", "0".repeat(38)),
            format!("{}A", "0".repeat(38)),
            format!(" {}", "0".repeat(38)),
            format!("{good} "),
            format!("{good}\n"),
            format!("+{}", "0".repeat(38)),
            format!("-{}", "0".repeat(38)),
            // A non-ASCII digit, two bytes long, in a 39-byte string.
            format!("٣{}", "0".repeat(37)),
        ];
        for text in &refused {
            assert_eq!(Token::parse(text), None, "accepted {text:?}");
        }
    }

    #[test]
    fn debug_redacts_display_does_not() {
        let token = Token::mint().unwrap();
        let debug = format!("{token:?}");
        assert_eq!(
            debug,
            format!("Token({}…)", &token.as_str()[..DEBUG_DIGITS])
        );
        assert!(!debug.contains(&token.as_str()[..DEBUG_DIGITS + 1]));
        assert_eq!(format!("{token}"), token.as_str());
        // Debug of a containing struct must not leak it either.
        assert!(!format!("{:?}", Some(&token)).contains(token.as_str()));
    }

    #[test]
    fn ten_thousand_mints_are_distinct() {
        let tokens: HashSet<Token> = (0..10_000).map(|_| Token::mint().unwrap()).collect();
        assert_eq!(tokens.len(), 10_000);
    }

    /// Counts the model tokens of 1,000 minted tokens; returns (min, max, mean).
    fn cost_of_minted_tokens(bpe: &CoreBPE) -> (usize, usize, f64) {
        let counts: Vec<usize> = (0..1_000)
            .map(|_| bpe.count_ordinary(Token::mint().unwrap().as_str()))
            .collect();
        let min = *counts.iter().min().unwrap();
        let max = *counts.iter().max().unwrap();
        let mean = counts.iter().sum::<usize>() as f64 / counts.len() as f64;
        (min, max, mean)
    }

    /// A write envelope around a token: what comes before and after it.
    const ENVELOPE_HEAD: &str = r#"{"status_code":201,"continuation_token":""#;
    const ENVELOPE_TAIL: &str = r#""}"#;

    /// `text` split at its model-token boundaries.
    fn pieces(bpe: &CoreBPE, text: &str) -> Vec<String> {
        bpe.split_by_token_ordinary(text).unwrap()
    }

    #[test]
    fn a_token_costs_at_most_13_model_tokens_in_cl100k_and_o200k() {
        for (name, bpe) in [
            ("cl100k_base", cl100k_base_singleton()),
            ("o200k_base", o200k_base_singleton()),
        ] {
            let (min, max, mean) = cost_of_minted_tokens(bpe);
            println!(
                "{name}: 1,000 minted tokens cost min {min}, max {max}, mean {mean:.3} model tokens"
            );
            assert!(
                max <= MAX_MODEL_TOKENS,
                "{name}: a token cost {max} model tokens"
            );

            // Edge values: leading zeros and the largest token.
            for value in [0, 1, 999, 1_000, u128::MAX] {
                let token = Token::from_u128(value);
                assert!(
                    bpe.count_ordinary(token.as_str()) <= MAX_MODEL_TOKENS,
                    "{name}: {token}"
                );
            }
        }
    }

    #[test]
    fn inside_a_json_envelope_the_digits_add_exactly_13_model_tokens() {
        for (name, bpe) in [
            ("cl100k_base", cl100k_base_singleton()),
            ("o200k_base", o200k_base_singleton()),
        ] {
            let head = pieces(bpe, ENVELOPE_HEAD);
            let tail = pieces(bpe, ENVELOPE_TAIL);
            let mut tokens: Vec<Token> = (0..1_000).map(|_| Token::mint().unwrap()).collect();
            tokens.extend([0, 1, u128::MAX].map(Token::from_u128));
            for token in &tokens {
                // The envelope must split as: the head's pieces unchanged, the
                // 13 three-digit groups, the tail's pieces unchanged. So the
                // digits neither merge with the quotes nor re-split them.
                let groups: Vec<String> = token
                    .as_str()
                    .as_bytes()
                    .chunks(3)
                    .map(|group| String::from_utf8(group.to_vec()).unwrap())
                    .collect();
                let expected: Vec<String> =
                    head.iter().chain(&groups).chain(&tail).cloned().collect();
                let envelope = format!("{ENVELOPE_HEAD}{token}{ENVELOPE_TAIL}");
                assert_eq!(pieces(bpe, &envelope), expected, "{name}: {token}");
                assert_eq!(
                    bpe.count_ordinary(&envelope),
                    head.len() + MAX_MODEL_TOKENS + tail.len(),
                    "{name}: {token}"
                );
            }
            // Against an empty string in the token's place, for the record:
            // `""` is its own piece in o200k, so there the difference is 12.
            let empty = bpe.count_ordinary(&format!("{ENVELOPE_HEAD}{ENVELOPE_TAIL}"));
            let full = bpe.count_ordinary(&format!("{ENVELOPE_HEAD}{}{ENVELOPE_TAIL}", tokens[0]));
            println!(
                "{name}: in a JSON envelope every token is exactly {MAX_MODEL_TOKENS} pieces; \
                 envelope {full} tokens vs {empty} with an empty string"
            );
        }
    }
}
