//! The usage report: what an answer cost the caller's context, and what the
//! full result it stands for would have cost, in real model tokens.
//!
//! A server that keeps a report ([`ServerBuilder::with_usage_report`](crate::ServerBuilder::with_usage_report), cargo
//! feature `usage`) puts it in the `_meta` of every `tools/call` answer,
//! under [`USAGE_META_KEY`]:
//!
//! ```json
//! {"io.github.mcp-light/usage": {
//!   "cl100k_base": {"answer": 33, "full": 15476},
//!   "o200k_base": {"answer": 33, "full": 15728}}}
//! ```
//!
//! `answer` counts what the model reads: the compact JSON of the answer's
//! `structuredContent` where it has one, as Codex, Claude Code and VS Code
//! hand it to their models, else its text content; `full`
//! counts the full result the answer stands for: the echo a lean envelope
//! replaced, the stored result behind a probe or a redemption's page or
//! summary. For an answer that is the result itself (a plain read, a heavy
//! read answered whole, `verify: true`, an error), the two are equal. Both are counted with tiktoken's
//! `cl100k_base` and `o200k_base` encodings, never estimated from bytes.
//!
//! A server without a report does none of this work: no text is counted and
//! no result serialized for it. Counting is not free — a 60-device echo is
//! 42 KB of JSON to tokenize twice — so a stored result is counted once and
//! its counts remembered for the redemptions that follow.
//!
//! [`ServerBuilder::with_usage_report`]: crate::ServerBuilder::with_usage_report

#[cfg(feature = "usage")]
use std::collections::{HashMap, VecDeque};
#[cfg(feature = "usage")]
use std::sync::Mutex;

#[cfg(feature = "usage")]
use rmcp::model::CallToolResult;
use serde::Serialize;

use crate::call::outcome::Answer;
#[cfg(feature = "usage")]
use crate::call::outcome::Usage;
#[cfg(feature = "usage")]
use serde_json::json;
#[cfg(all(test, feature = "usage"))]
use serde_json::{Map, Value};

/// The `_meta` key of the usage report.
///
/// A reverse-DNS prefix the project can stand behind (`io.github.mcp-light`,
/// after the GitHub organization that would host it), and one MCP leaves to
/// implementations: the specification reserves prefixes whose second label
/// is `modelcontextprotocol` or `mcp` (revision 2025-11-25), and earlier any
/// prefix with such a label followed by another (2025-06-18). Here the
/// labels are `io`, `github` and `mcp-light`, so neither rule reserves it.
///
/// ```
/// assert_eq!(mcp_light::telemetry::USAGE_META_KEY, "io.github.mcp-light/usage");
/// ```
pub const USAGE_META_KEY: &str = "io.github.mcp-light/usage";

pub(crate) use crate::call::outcome::Counts;

/// Counts answers and full results, and remembers the counts of stored
/// results. One per server that reports usage.
#[derive(Debug)]
pub(crate) struct UsageReport {
    #[cfg(feature = "usage")]
    remembered: Mutex<Remembered>,
    /// Without the `usage` feature there is no tokenizer, so no report can
    /// be built: every `Option<UsageReport>` is `None`, and its methods
    /// unreachable.
    #[cfg(not(feature = "usage"))]
    never: std::convert::Infallible,
}

#[cfg(feature = "usage")]
impl UsageReport {
    /// A report, its two encodings loaded now rather than on the first call.
    pub(crate) fn new() -> UsageReport {
        tiktoken_rs::cl100k_base_singleton();
        tiktoken_rs::o200k_base_singleton();
        UsageReport {
            remembered: Mutex::new(Remembered::default()),
        }
    }

    /// `text` in both encodings.
    pub(crate) fn count(&self, text: &str) -> Counts {
        Counts {
            cl100k: tiktoken_rs::cl100k_base_singleton().count_ordinary(text),
            o200k: tiktoken_rs::o200k_base_singleton().count_ordinary(text),
        }
    }

    /// `value`'s compact JSON in both encodings.
    pub(crate) fn count_value<T: Serialize + ?Sized>(&self, value: &T) -> Counts {
        // A value that does not serialize is answered as an error before
        // anything is counted; zero stands for the impossible.
        serde_json::to_string(value)
            .map(|text| self.count(&text))
            .unwrap_or_default()
    }

    /// A stored result's compact JSON in both encodings, counted once: a
    /// probe or an envelope counts it, and the redemptions after it find
    /// the counts here.
    /// Some bytes of a result as it streams into the store, cut between
    /// its items: the sum over the pieces is the result's count to within
    /// the tokens a cut splits.
    pub(crate) fn count_bytes(&self, bytes: &[u8]) -> Counts {
        self.count(&String::from_utf8_lossy(bytes))
    }

    pub(crate) fn count_stored(&self, body: &[u8]) -> Counts {
        if body.len() < Remembered::SMALLEST {
            return self.count(&String::from_utf8_lossy(body));
        }
        let key = Remembered::key(body);
        if let Some(counts) = self.remembered().get(&key) {
            return counts;
        }
        let counts = self.count(&String::from_utf8_lossy(body));
        self.remembered().insert(key, counts);
        counts
    }

    /// The report step, applied once to every answer a call ends with:
    /// the answer's text counted, and the full result's counts its
    /// [`Outcome`](crate::call::outcome::Outcome) carries (known where that result was at hand),
    /// or the answer's own where the answer is the result. Both go in the
    /// outcome and in the result's `_meta`.
    pub(crate) fn report(&self, answer: &mut Answer) {
        // A JSON-RPC error carries the error in `structuredContent` until it
        // goes out as one: what is read of it is its message.
        let json_rpc = matches!(
            answer.outcome.shape,
            crate::call::outcome::AnswerShape::Error(crate::call::outcome::ErrorKind::JsonRpc)
        );
        let counted = self.count_answer(&answer.result, !json_rpc);
        let usage = answer.outcome.usage.get_or_insert_with(|| {
            Box::new(Usage {
                full: counted,
                answer: None,
            })
        });
        usage.answer = Some(counted);
        let full = usage.full;
        Self::insert(&mut answer.result, counted, full);
    }

    fn insert(result: &mut CallToolResult, answer: Counts, full: Counts) {
        let report = json!({
            "cl100k_base": {"answer": answer.cl100k, "full": full.cl100k},
            "o200k_base": {"answer": answer.o200k, "full": full.o200k},
        });
        result
            .meta
            .get_or_insert_with(Default::default)
            .0
            .insert(USAGE_META_KEY.to_owned(), report);
    }

    /// What the model reads of the answer: the compact JSON of its
    /// `structuredContent` where it has one (what Codex, Claude Code and VS
    /// Code hand their models: the text itself for an object, the text
    /// wrapped in `{"result":…}` for anything else), else its text content.
    fn count_answer(&self, result: &CallToolResult, structured: bool) -> Counts {
        if let Some(structured) = result.structured_content.as_ref().filter(|_| structured) {
            return self.count_value(structured);
        }
        result
            .content
            .iter()
            .filter_map(|block| block.as_text())
            .map(|text| self.count(&text.text))
            .fold(Counts::default(), |sum, counts| sum + counts)
    }

    fn remembered(&self) -> std::sync::MutexGuard<'_, Remembered> {
        // Counts are plain numbers: a panic elsewhere cannot leave them torn.
        self.remembered
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(not(feature = "usage"))]
impl UsageReport {
    pub(crate) fn count_bytes(&self, _: &[u8]) -> Counts {
        match self.never {}
    }

    pub(crate) fn count_value<T: Serialize + ?Sized>(&self, _: &T) -> Counts {
        match self.never {}
    }

    pub(crate) fn count_stored(&self, _: &[u8]) -> Counts {
        match self.never {}
    }

    pub(crate) fn report(&self, _: &mut Answer) {
        match self.never {}
    }
}

/// The counts of recently stored results, by a hash of their bytes and
/// their length, the oldest forgotten first.
#[cfg(feature = "usage")]
#[derive(Debug, Default)]
struct Remembered {
    counts: HashMap<(u64, usize), Counts>,
    order: VecDeque<(u64, usize)>,
}

#[cfg(feature = "usage")]
impl Remembered {
    /// How many stored results' counts are kept.
    const CAPACITY: usize = 1024;
    /// Results shorter than this many bytes are counted again rather than
    /// remembered: counting them costs about what hashing them does.
    const SMALLEST: usize = 4096;

    fn key(body: &[u8]) -> (u64, usize) {
        use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
        // A fixed hasher, so equal bodies meet however they were stored.
        (
            BuildHasherDefault::<DefaultHasher>::default().hash_one(body),
            body.len(),
        )
    }

    fn get(&self, key: &(u64, usize)) -> Option<Counts> {
        self.counts.get(key).copied()
    }

    fn insert(&mut self, key: (u64, usize), counts: Counts) {
        if self.counts.insert(key, counts).is_none() {
            self.order.push_back(key);
        }
        while self.order.len() > Self::CAPACITY {
            if let Some(oldest) = self.order.pop_front() {
                self.counts.remove(&oldest);
            }
        }
    }
}

/// The report found in `result`'s `_meta`, if any: `(encoding, answer,
/// full)` rows, for tests.
#[cfg(all(test, feature = "usage"))]
fn reported(result: &CallToolResult) -> Option<Vec<(String, u64, u64)>> {
    let report: &Map<String, Value> = result.meta.as_ref()?.0.get(USAGE_META_KEY)?.as_object()?;
    Some(
        report
            .iter()
            .map(|(encoding, counts)| {
                (
                    encoding.clone(),
                    counts["answer"].as_u64().unwrap(),
                    counts["full"].as_u64().unwrap(),
                )
            })
            .collect(),
    )
}

#[cfg(all(test, feature = "usage"))]
mod tests {
    use rmcp::model::ContentBlock;

    use super::*;
    use crate::call::outcome::{AnswerShape, EnvelopeShape};

    /// A key is `prefix/name`; the prefix is dot-separated labels that start
    /// with a letter and end with a letter or digit, hyphens inside.
    fn is_valid_key(key: &str) -> bool {
        let Some((prefix, name)) = key.split_once('/') else {
            return false;
        };
        let label_ok = |label: &str| {
            let first = label.chars().next();
            let last = label.chars().last();
            first.is_some_and(|c| c.is_ascii_alphabetic())
                && last.is_some_and(|c| c.is_ascii_alphanumeric())
                && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        };
        prefix.split('.').all(label_ok)
            && name
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric())
            && name
                .chars()
                .last()
                .is_some_and(|c| c.is_ascii_alphanumeric())
    }

    #[test]
    fn the_meta_key_is_well_formed_and_reserved_by_no_revision_of_mcp() {
        assert!(is_valid_key(USAGE_META_KEY));
        let labels: Vec<&str> = USAGE_META_KEY
            .split('/')
            .next()
            .unwrap()
            .split('.')
            .collect();
        let reserved = |label: &&str| matches!(*label, "modelcontextprotocol" | "mcp");
        // 2025-11-25: the second label.
        assert!(!reserved(&labels[1]));
        // 2025-06-18: such a label anywhere but last.
        assert!(!labels[..labels.len() - 1].iter().any(reserved));
        // The checks themselves catch what the specification reserves.
        assert!(reserved(
            &"io.modelcontextprotocol".split('.').nth(1).unwrap()
        ));
        assert!(!is_valid_key("io.github.-bad/usage"));
    }

    #[test]
    fn counts_are_the_real_encodings_not_bytes_over_four() {
        let usage = UsageReport::new();
        let text = r#"{"id":"7d993af6-6c8d-4141-8a87-f4aed4e673e7"}"#;
        let counts = usage.count(text);
        assert_eq!(
            counts.cl100k,
            tiktoken_rs::cl100k_base()
                .unwrap()
                .encode_ordinary(text)
                .len()
        );
        assert_eq!(
            counts.o200k,
            tiktoken_rs::o200k_base()
                .unwrap()
                .encode_ordinary(text)
                .len()
        );
        assert_ne!(counts.cl100k, text.len() / 4);
    }

    #[test]
    fn a_report_gives_the_answer_and_the_full_result_in_both_encodings() {
        let usage = UsageReport::new();
        let full = usage.count(r#"[{"id":1,"name":"edge-01"},{"id":2,"name":"edge-02"}]"#);
        let result = CallToolResult::success(vec![ContentBlock::text(r#"{"accepted":2}"#)]);
        let mut answer = Answer::new(result, AnswerShape::Envelope(EnvelopeShape::BulkToken))
            .counting(Some(full));
        usage.report(&mut answer);
        let counted = usage.count(r#"{"accepted":2}"#);
        assert_eq!(
            reported(&answer.result).unwrap(),
            [
                (
                    "cl100k_base".to_owned(),
                    counted.cl100k as u64,
                    full.cl100k as u64
                ),
                (
                    "o200k_base".to_owned(),
                    counted.o200k as u64,
                    full.o200k as u64
                ),
            ]
        );
        // The outcome carries what the report says.
        let usage = answer.outcome.usage.as_deref().unwrap();
        assert_eq!((usage.answer, usage.full), (Some(counted), full));
    }

    #[test]
    fn the_answer_counted_is_the_structured_content_a_client_hands_its_model() {
        let usage = UsageReport::new();
        let list = json!([{"id": 1}, {"id": 2}]);
        let result = crate::call::answer::shaped_result(&list);
        let mut answer = Answer::new(result, AnswerShape::Envelope(EnvelopeShape::BulkToken));
        usage.report(&mut answer);
        let read = usage.count(r#"{"result":[{"id":1},{"id":2}]}"#);
        assert_ne!(read, usage.count(r#"[{"id":1},{"id":2}]"#));
        let reported = reported(&answer.result).unwrap();
        assert_eq!(
            (reported[0].1, reported[1].1),
            (read.cl100k as u64, read.o200k as u64)
        );
    }

    #[test]
    fn an_answer_that_is_its_result_reports_itself_as_the_full_result() {
        let usage = UsageReport::new();
        let result = CallToolResult::error(vec![ContentBlock::text("no such device")]);
        let mut answer = Answer::new(
            result,
            AnswerShape::Error(crate::call::outcome::ErrorKind::Tool),
        );
        usage.report(&mut answer);
        for (_, counted, full) in reported(&answer.result).unwrap() {
            assert_eq!(counted, full);
            assert!(counted > 0);
        }
    }

    #[test]
    fn a_stored_result_is_counted_once_and_remembered() {
        let usage = UsageReport::new();
        let body = serde_json::to_vec(&vec![json!({"name": "edge", "n": 1}); 500]).unwrap();
        let counts = usage.count_stored(&body);
        assert_eq!(counts, usage.count(std::str::from_utf8(&body).unwrap()));
        assert_eq!(
            usage.remembered().get(&Remembered::key(&body)),
            Some(counts)
        );
        // The next time, what was remembered is answered, not a new count.
        let marked = Counts {
            cl100k: 1,
            o200k: 2,
        };
        usage.remembered().insert(Remembered::key(&body), marked);
        assert_eq!(usage.count_stored(&body), marked);
    }

    #[test]
    fn remembered_counts_are_bounded_the_oldest_forgotten_first() {
        let mut remembered = Remembered::default();
        for n in 0..Remembered::CAPACITY + 10 {
            remembered.insert((n as u64, n), Counts::default());
        }
        assert_eq!(remembered.counts.len(), Remembered::CAPACITY);
        assert!(remembered.get(&(0, 0)).is_none());
        assert!(
            remembered
                .get(&(Remembered::CAPACITY as u64 + 9, Remembered::CAPACITY + 9))
                .is_some()
        );
    }
}
