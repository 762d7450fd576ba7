//! What a tool's asks need from the server: how long a request to the
//! client may wait (protocol 2025-11-25), and the key and lifetime of the
//! sealed `requestState` that carries a call's answers from one round to
//! the next (protocol 2026-07-28).

use std::collections::BTreeMap;
use std::io::Write;
use std::time::Duration;

use rmcp::model::{RequestStateCodec, RequestStateError, SealOptions};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::error::tool::BuildError;

pub(crate) use crate::defaults::ASK_TIMEOUT as DEFAULT_ASK_TIMEOUT;

pub(crate) use crate::defaults::REQUEST_STATE_TTL as DEFAULT_REQUEST_STATE_TTL;

/// What a builder was told about tools that talk back;
/// [`TalkbackConfig::build`] makes the server's [`Talkback`] of it.
#[derive(Debug)]
pub(crate) struct TalkbackConfig {
    /// The key the application gave; `None` draws one at build.
    pub(crate) key: Option<RequestStateCodec>,
    pub(crate) state_ttl: Duration,
    pub(crate) ask_timeout: Duration,
}

impl Default for TalkbackConfig {
    fn default() -> TalkbackConfig {
        TalkbackConfig {
            key: None,
            state_ttl: DEFAULT_REQUEST_STATE_TTL,
            ask_timeout: DEFAULT_ASK_TIMEOUT,
        }
    }
}

impl TalkbackConfig {
    /// The server's settings, with a key drawn from the operating system's
    /// randomness when none was given.
    pub(crate) fn build(self) -> Result<Talkback, BuildError> {
        self.build_with(getrandom::fill)
    }

    /// [`TalkbackConfig::build`], drawing the key with `fill`.
    fn build_with(
        self,
        fill: impl FnOnce(&mut [u8]) -> Result<(), getrandom::Error>,
    ) -> Result<Talkback, BuildError> {
        let codec = match self.key {
            Some(codec) => codec,
            None => drawn_key(fill)?,
        };
        Ok(Talkback {
            codec,
            state_ttl: self.state_ttl,
            ask_timeout: self.ask_timeout,
        })
    }
}

/// A key of the shortest length accepted, filled by `fill`. Without
/// randomness the server is not built: states it sealed would open nowhere
/// else, and a guessable key is worse than none.
fn drawn_key(
    fill: impl FnOnce(&mut [u8]) -> Result<(), getrandom::Error>,
) -> Result<RequestStateCodec, BuildError> {
    let mut key = [0u8; RequestStateCodec::MIN_KEY_LENGTH];
    fill(&mut key).map_err(|error| BuildError::NoRandomness {
        source: std::io::Error::other(error),
    })?;
    // Exactly the length `try_new` would check for.
    Ok(RequestStateCodec::new_unchecked(key.to_vec()))
}

/// A server's settings for tools that talk back.
#[derive(Debug)]
pub(crate) struct Talkback {
    pub(crate) codec: RequestStateCodec,
    pub(crate) state_ttl: Duration,
    pub(crate) ask_timeout: Duration,
}

/// What a sealed `requestState` holds: the answers a call's asks got so far.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Carried {
    pub(crate) answers: BTreeMap<String, Value>,
}

impl Talkback {
    /// `carried`, sealed and bound to `binding`.
    pub(crate) fn seal(
        &self,
        carried: &Carried,
        binding: &[u8],
    ) -> Result<String, RequestStateError> {
        let options = SealOptions::new()
            .associated_data(binding)
            .ttl(self.state_ttl);
        self.codec.seal_json_with(carried, &options)
    }

    /// The answers `sealed` carries, if it was sealed here for `binding`
    /// and has not expired.
    pub(crate) fn open(&self, sealed: &str, binding: &[u8]) -> Option<Carried> {
        match self.codec.open_json_with(sealed, binding) {
            Ok(carried) => Some(carried),
            Err(error) => {
                tracing::debug!(%error, "a requestState was refused");
                None
            }
        }
    }
}

/// What a sealed state is bound to: the caller's identity, the tool called
/// (a dispatcher, when routed), the tool that runs, and the arguments
/// without mcp-light's own fields — a digest, keys sorted, so a client that
/// resends them in another order is served.
pub(crate) fn binding(
    identity: &str,
    called: &str,
    tool: &str,
    args: &Map<String, Value>,
) -> [u8; 32] {
    let mut digest = Sha256::new();
    for part in [identity, called, tool] {
        digest.update((part.len() as u64).to_be_bytes());
        digest.update(part.as_bytes());
    }
    canonical(&mut DigestWriter(&mut digest), args);
    digest.finalize().into()
}

struct DigestWriter<'a>(&'a mut Sha256);

impl Write for DigestWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Writes `object` as JSON with every object's keys sorted.
fn canonical(out: &mut impl Write, object: &Map<String, Value>) {
    let mut keys: Vec<&String> = object.keys().collect();
    keys.sort();
    let _ = out.write_all(b"{");
    for (i, key) in keys.into_iter().enumerate() {
        if i > 0 {
            let _ = out.write_all(b",");
        }
        let _ = serde_json::to_writer(&mut *out, key);
        let _ = out.write_all(b":");
        canonical_value(out, &object[key]);
    }
    let _ = out.write_all(b"}");
}

fn canonical_value(out: &mut impl Write, value: &Value) {
    match value {
        Value::Object(object) => canonical(out, object),
        Value::Array(items) => {
            let _ = out.write_all(b"[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    let _ = out.write_all(b",");
                }
                canonical_value(out, item);
            }
            let _ = out.write_all(b"]");
        }
        scalar => {
            let _ = serde_json::to_writer(&mut *out, scalar);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => unreachable!(),
        }
    }

    #[test]
    fn the_binding_ignores_key_order_but_not_values_callers_or_tools() {
        let bind = |who: &str, tool: &str, value: Value| binding(who, "desk", tool, &args(value));
        let first = bind("alice", "book", json!({"a": 1, "b": {"y": 2, "x": 3}}));
        let reordered = bind("alice", "book", json!({"b": {"x": 3, "y": 2}, "a": 1}));
        assert_eq!(first, reordered);
        let changed = bind("alice", "book", json!({"a": 2, "b": {"x": 3, "y": 2}}));
        assert_ne!(first, changed);
        let other_caller = bind("bob", "book", json!({"a": 1, "b": {"y": 2, "x": 3}}));
        assert_ne!(first, other_caller);
        let other_tool = bind("alice", "cancel", json!({"a": 1, "b": {"y": 2, "x": 3}}));
        assert_ne!(first, other_tool);
        // The parts are length-prefixed: moving a letter from one to the
        // next is another binding.
        assert_ne!(
            binding("ab", "c", "t", &Map::new()),
            binding("a", "bc", "t", &Map::new())
        );
    }

    #[test]
    fn a_sealed_state_opens_only_for_its_binding() {
        let talkback = TalkbackConfig::default().build().unwrap();
        let mut carried = Carried::default();
        carried
            .answers
            .insert("k".into(), json!({"action": "decline"}));
        let sealed = talkback.seal(&carried, b"one").unwrap();
        assert_eq!(
            talkback.open(&sealed, b"one").unwrap().answers,
            carried.answers
        );
        assert!(talkback.open(&sealed, b"two").is_none());
        assert!(
            talkback
                .open(&format!("{sealed}-TAMPERED"), b"one")
                .is_none()
        );
    }

    #[test]
    fn a_server_is_not_built_without_randomness_for_its_key() {
        let failing = |_: &mut [u8]| Err(getrandom::Error::UNSUPPORTED);
        let error = TalkbackConfig::default().build_with(failing).unwrap_err();
        assert!(
            matches!(error, BuildError::NoRandomness { .. }),
            "{error:?}"
        );
        let message = error.to_string();
        assert!(message.contains("no random bytes"), "{message}");
        assert!(
            message.contains("ServerBuilder::with_request_state_key"),
            "{message}"
        );
    }

    #[test]
    fn a_given_key_needs_no_randomness() {
        let key = RequestStateCodec::try_new(*b"a 32-byte secret shared by all!!").unwrap();
        let given = TalkbackConfig {
            key: Some(key),
            ..TalkbackConfig::default()
        };
        let failing = |_: &mut [u8]| Err(getrandom::Error::UNSUPPORTED);
        assert!(given.build_with(failing).is_ok());
    }

    #[test]
    fn each_drawn_key_is_the_servers_own() {
        let one = TalkbackConfig::default().build().unwrap();
        let other = TalkbackConfig::default().build().unwrap();
        let sealed = one.seal(&Carried::default(), b"b").unwrap();
        assert!(one.open(&sealed, b"b").is_some());
        assert!(other.open(&sealed, b"b").is_none());
    }
}
