//! Continuation tokens.
//!
//! A token is four groups of six random decimal digits, each followed by a
//! random word from a fixed list: `481207ment930114ound552019ship118345est`.
//! The shape is chosen for what a model pays to read a token back. Both
//! cl100k and o200k split digits into groups of three, each group one model
//! token (about 10 bits), and every word in the list is one model token
//! between digits (about 12.6 bits), so a token costs exactly 12 model
//! tokens for 130 bits from the operating system's CSPRNG — where 128 bits as
//! 39 digits cost 13, and hex or base64 cost 20 or more. Digits and lowercase
//! ASCII letters are URL-safe and survive any quoting.
//!
//! ```
//! use mcp_light::token::Token;
//!
//! let token = Token::mint()?;
//! assert_eq!(Token::parse(token.as_str()), Some(token));
//! # Ok::<(), getrandom::Error>(())
//! ```

use std::fmt;
use std::sync::LazyLock;

/// The property a continuation token travels in, in answers and
/// arguments; its presence in a schema means the schema discloses
/// continuation.
pub(crate) const CONTINUATION_TOKEN: &str = "continuation_token";

/// How many digit-and-word groups a token has.
const GROUPS: usize = 4;

/// How many digits open each group: two model tokens of three digits.
const GROUP_DIGITS: usize = 6;

/// `10^GROUP_DIGITS`: the number of values a group's digits take.
const GROUP_VALUES: u32 = 1_000_000;

/// How many leading characters `Debug` shows: enough to tell tokens apart in
/// a log, few enough (about 13 of 130 bits) to leave the capability secret.
const DEBUG_CHARS: usize = 4;

/// The words a group ends with, sorted: every lowercase ASCII string of two
/// to four letters that is a single model token in both cl100k and o200k
/// when it stands between digits, less words that read as offensive or
/// alarming. 6,421 words: about 12.6 bits each.
static WORDS: LazyLock<Vec<&'static str>> =
    LazyLock::new(|| include_str!("words.txt").lines().collect());

/// A continuation token: the capability that redeems a stored result.
///
/// Always four groups of six ASCII digits and a listed word, so each token
/// has one spelling and store lookups compare bytes. `Display` prints the
/// whole token (that is what goes on the wire); `Debug` prints only its
/// first characters, because a token in a log is a token anyone reading the
/// log can redeem.
///
/// ```
/// use mcp_light::token::Token;
///
/// let token = Token::parse("000042ment930114ound552019ship118345est").unwrap();
/// assert_eq!(token.to_string(), "000042ment930114ound552019ship118345est");
/// assert_eq!(format!("{token:?}"), "Token(0000…)");
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Token(Box<str>);

impl Token {
    /// Mints a fresh token from the operating system's CSPRNG.
    ///
    /// Fails only when the OS has no randomness to give; callers then mint
    /// no token at all rather than a guessable one.
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
        let words = &*WORDS;
        let mut random = Random::new()?;
        let mut text = String::with_capacity(GROUPS * (GROUP_DIGITS + 4));
        for _ in 0..GROUPS {
            let digits = random.below(GROUP_VALUES)?;
            let word = words[random.below(words.len() as u32)? as usize];
            text.push_str(&format!("{digits:06}{word}"));
        }
        Ok(Token(text.into_boxed_str()))
    }

    /// Reads a token a caller sent back; `None` when it cannot be one.
    ///
    /// Accepts exactly the canonical form: four groups of six ASCII digits
    /// followed by a listed word. Nothing is trimmed or normalised (no
    /// whitespace, no capitals), so a token has one spelling and a string
    /// that is not byte-for-byte a minted token is refused rather than
    /// guessed at.
    ///
    /// ```
    /// use mcp_light::token::Token;
    ///
    /// assert!(Token::parse("481207ment930114ound552019ship118345est").is_some());
    /// assert!(Token::parse("481207MENT930114ound552019ship118345est").is_none());
    /// assert!(Token::parse("481207ment930114ound552019ship").is_none());
    /// assert!(Token::parse(" 481207ment930114ound552019ship118345est").is_none());
    /// ```
    pub fn parse(text: &str) -> Option<Token> {
        let mut rest = text;
        for _ in 0..GROUPS {
            let digits = rest.get(..GROUP_DIGITS)?;
            if !digits.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            rest = &rest[GROUP_DIGITS..];
            let end = rest
                .find(|c: char| !c.is_ascii_lowercase())
                .unwrap_or(rest.len());
            WORDS.binary_search(&&rest[..end]).ok()?;
            rest = &rest[end..];
        }
        rest.is_empty().then(|| Token(text.into()))
    }

    /// The token as the caller sees it.
    ///
    /// ```
    /// use mcp_light::token::Token;
    ///
    /// let token = Token::mint()?;
    /// assert!(token.as_str().bytes().all(|b| b.is_ascii_digit() || b.is_ascii_lowercase()));
    /// # Ok::<(), getrandom::Error>(())
    /// ```
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Uniform draws from the OS CSPRNG, a buffer at a time.
struct Random {
    buffer: [u8; 64],
    used: usize,
}

impl Random {
    fn new() -> Result<Random, getrandom::Error> {
        let mut buffer = [0; 64];
        getrandom::fill(&mut buffer)?;
        Ok(Random { buffer, used: 0 })
    }

    fn next_u32(&mut self) -> Result<u32, getrandom::Error> {
        if self.used + 4 > self.buffer.len() {
            getrandom::fill(&mut self.buffer)?;
            self.used = 0;
        }
        let bytes = self.buffer[self.used..self.used + 4]
            .try_into()
            .expect("four bytes");
        self.used += 4;
        Ok(u32::from_le_bytes(bytes))
    }

    /// A value in `0..bound`, every one equally likely: draws at or above the
    /// largest multiple of `bound` are thrown away rather than folded in.
    fn below(&mut self, bound: u32) -> Result<u32, getrandom::Error> {
        let zone = u32::MAX - u32::MAX % bound;
        loop {
            let draw = self.next_u32()?;
            if draw < zone {
                return Ok(draw % bound);
            }
        }
    }
}

impl fmt::Display for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Token({}…)", &self.as_str()[..DEBUG_CHARS])
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use tiktoken_rs::{CoreBPE, cl100k_base_singleton, o200k_base_singleton};

    use super::*;

    /// What a token costs a model to read back: 2 digit tokens and a word
    /// per group. The contract allows at most 13.
    const MODEL_TOKENS: usize = 12;

    fn encodings() -> [(&'static str, &'static CoreBPE); 2] {
        [
            ("cl100k_base", cl100k_base_singleton()),
            ("o200k_base", o200k_base_singleton()),
        ]
    }

    /// The groups of three digits and the words of `token`, in order: the
    /// pieces a model should see.
    fn expected_pieces(token: &Token) -> Vec<String> {
        let mut pieces = Vec::new();
        let mut rest = token.as_str();
        while !rest.is_empty() {
            let split = rest
                .find(|c: char| {
                    c.is_ascii_digit() != rest.starts_with(|c: char| c.is_ascii_digit())
                })
                .unwrap_or(rest.len());
            let (run, tail) = rest.split_at(split);
            if run.starts_with(|c: char| c.is_ascii_digit()) {
                pieces.extend(
                    run.as_bytes()
                        .chunks(3)
                        .map(|g| String::from_utf8(g.to_vec()).unwrap()),
                );
            } else {
                pieces.push(run.to_owned());
            }
            rest = tail;
        }
        pieces
    }

    #[test]
    fn the_word_list_is_sorted_lowercase_and_carries_enough_entropy() {
        let words = &*WORDS;
        assert!(
            words.windows(2).all(|w| w[0] < w[1]),
            "sorted and unique, for binary search"
        );
        assert!(
            words
                .iter()
                .all(|w| (2..=4).contains(&w.len()) && w.bytes().all(|b| b.is_ascii_lowercase()))
        );
        let bits = GROUPS as f64 * ((GROUP_VALUES as f64).log2() + (words.len() as f64).log2());
        assert!(bits >= 128.0, "a token carries {bits:.1} bits");
        println!("{} words; a token carries {bits:.2} bits", words.len());
    }

    #[test]
    fn every_word_is_one_model_token_between_digits() {
        for (name, bpe) in encodings() {
            for word in WORDS.iter() {
                let text = format!("123456{word}789012");
                assert_eq!(
                    bpe.split_by_token_ordinary(&text).unwrap(),
                    ["123", "456", word, "789", "012"],
                    "{name}: {word}"
                );
            }
        }
    }

    #[test]
    fn minted_tokens_have_the_canonical_shape_and_parse_back() {
        for _ in 0..1_000 {
            let token = Token::mint().unwrap();
            let text = token.as_str();
            assert!(
                (GROUPS * (GROUP_DIGITS + 2)..=GROUPS * (GROUP_DIGITS + 4)).contains(&text.len()),
                "{text}"
            );
            assert_eq!(token.to_string(), text);
            assert_eq!(Token::parse(text), Some(token.clone()));
            assert_eq!(expected_pieces(&token).len(), MODEL_TOKENS, "{text}");
        }
    }

    #[test]
    fn parse_rejects_everything_but_the_canonical_form() {
        let good = "000000aa000000aa000000aa000000aa";
        assert!(Token::parse(good).is_some());
        let refused = [
            String::new(),
            good[..good.len() - 2].to_owned(),
            format!("{good}000000aa"),
            format!("{good}0"),
            format!(" {good}"),
            format!("{good} "),
            format!("{good}\n"),
            good.replacen("aa", "AA", 1),
            good.replacen("aa", "zzzz", 1), // not in the list
            good.replacen("000000", "00000", 1),
            good.replacen("000000", "0000000", 1),
            good.replacen("000000", "+00000", 1),
            good.replacen("000000", "٣0000", 1),
            "0".repeat(39), // the shape of an older token
        ];
        for text in &refused {
            assert_eq!(Token::parse(text), None, "accepted {text:?}");
        }
    }

    #[test]
    fn draws_below_a_bound_stay_below_it_and_reach_every_value() {
        let mut random = Random::new().unwrap();
        let mut seen = [false; 7];
        for _ in 0..1_000 {
            let value = random.below(7).unwrap();
            seen[value as usize] = true;
        }
        assert!(seen.iter().all(|s| *s));
    }

    #[test]
    fn debug_redacts_display_does_not() {
        let token = Token::mint().unwrap();
        let debug = format!("{token:?}");
        assert_eq!(debug, format!("Token({}…)", &token.as_str()[..DEBUG_CHARS]));
        assert!(!debug.contains(&token.as_str()[..DEBUG_CHARS + 1]));
        assert_eq!(format!("{token}"), token.as_str());
        assert!(!format!("{:?}", Some(&token)).contains(token.as_str()));
    }

    #[test]
    fn ten_thousand_mints_are_distinct() {
        let tokens: HashSet<Token> = (0..10_000).map(|_| Token::mint().unwrap()).collect();
        assert_eq!(tokens.len(), 10_000);
    }

    /// A write envelope around a token: what comes before and after it.
    const ENVELOPE_HEAD: &str = r#"{"status_code":201,"continuation_token":""#;
    const ENVELOPE_TAIL: &str = r#""}"#;

    #[test]
    fn a_token_costs_12_model_tokens_alone_and_inside_a_json_envelope() {
        for (name, bpe) in encodings() {
            let head = bpe.split_by_token_ordinary(ENVELOPE_HEAD).unwrap();
            let tail = bpe.split_by_token_ordinary(ENVELOPE_TAIL).unwrap();
            let mut costs = Vec::new();
            for _ in 0..1_000 {
                let token = Token::mint().unwrap();
                let alone = bpe.split_by_token_ordinary(token.as_str()).unwrap();
                assert_eq!(alone, expected_pieces(&token), "{name}: {token}");
                costs.push(alone.len());
                // In an envelope: the head's pieces unchanged, the token's
                // pieces, the tail's pieces unchanged — nothing merges across
                // the quotes.
                let envelope = format!("{ENVELOPE_HEAD}{token}{ENVELOPE_TAIL}");
                let expected: Vec<String> = head
                    .iter()
                    .cloned()
                    .chain(alone)
                    .chain(tail.iter().cloned())
                    .collect();
                assert_eq!(
                    bpe.split_by_token_ordinary(&envelope).unwrap(),
                    expected,
                    "{name}: {token}"
                );
            }
            assert!(
                costs.iter().all(|&c| c == MODEL_TOKENS),
                "{name}: {costs:?}"
            );
            println!("{name}: 1,000 minted tokens cost exactly {MODEL_TOKENS} model tokens each");
        }
    }
}
