//! What a call's answer is, decided once, where the answer is made.
//!
//! The code that makes an answer knows what it made: an envelope or a
//! probe, a page served for a token, an error and why. It says so in an
//! [`Outcome`] that travels with the result as an [`Answer`], from the
//! responder up through the call path to the transport. The usage report,
//! the request's span and metrics, and a task's result read that type;
//! nothing parses an answer to learn what happened.
//!
//! [`write`] holds the decision a write takes between its three outcomes;
//! [`error`] the one vocabulary of the errors a call answers.

pub(crate) mod call_error;
pub(crate) mod write;

use rmcp::model::{CallToolResult, ContentBlock};

use crate::error::tool::Unfinished;

pub(crate) use call_error::{CallError, ErrorKind, Unkept};
pub(crate) use write::WriteOutcome;

/// A tool call's result and its outcome (what the answer is, decided where
/// it was made): what the generated code of
/// every tool answers, and what the call path hands to the transport.
#[derive(Debug, Clone)]
pub struct Answer {
    pub(crate) result: CallToolResult,
    pub(crate) outcome: Outcome,
}

impl Answer {
    /// `result`, which is `shape`: its answer bytes counted from its text.
    #[inline]
    pub(crate) fn new(result: CallToolResult, shape: AnswerShape) -> Answer {
        let answer_bytes = text_bytes(&result);
        Answer {
            result,
            outcome: Outcome {
                shape,
                token: None,
                answer_bytes,
                full_bytes: None,
                tier: None,
                usage: None,
            },
        }
    }

    /// The error answer `error` says, of its kind.
    pub(crate) fn error(error: CallError) -> Answer {
        let kind = error.kind();
        Answer::new(
            crate::call::answer::error_result(error.to_string()),
            AnswerShape::Error(kind),
        )
    }

    /// The answer of a call of `tool` whose run did not finish; a panic is
    /// logged, as the server's own failure.
    pub(crate) fn unfinished(tool: &str, unfinished: Unfinished) -> Answer {
        if let Unfinished::Panicked(message) = &unfinished {
            tracing::error!(tool, %message, "tool panicked");
        }
        Answer::error(CallError::Failed {
            tool: tool.to_owned().into(),
            why: unfinished.into(),
        })
    }

    /// A result the tool built itself, answered as built: an error where it
    /// says it is one.
    pub(crate) fn as_built(result: CallToolResult) -> Answer {
        let shape = match result.is_error {
            Some(true) => AnswerShape::Error(ErrorKind::Tool),
            _ => AnswerShape::Full,
        };
        Answer::new(result, shape)
    }

    /// The result itself, answered whole.
    #[inline]
    pub(crate) fn full(value: serde_json::Value) -> Answer {
        Answer::new(crate::call::answer::full_result(value), AnswerShape::Full)
    }

    /// One of mcp-light's own answer shapes (an envelope, a probe, a page).
    pub(crate) fn shaped(answer: &impl serde::Serialize, shape: AnswerShape) -> Answer {
        Answer::new(crate::call::answer::shaped_result(answer), shape)
    }

    /// The answer stands for a full result of `bytes` bytes.
    pub(crate) fn standing_for(mut self, bytes: u64) -> Answer {
        self.outcome.full_bytes = Some(bytes);
        self
    }

    /// The answer minted (or redeemed) a token in the store named `tier`.
    pub(crate) fn with_token(mut self, token: TokenUse, tier: &'static str) -> Answer {
        self.outcome.token = Some(token);
        self.outcome.tier = Some(tier);
        self
    }

    /// The full result the answer stands for counts `full` in the usage
    /// report's encodings: known where that result is at hand.
    pub(crate) fn counting(mut self, full: Option<Counts>) -> Answer {
        if let Some(full) = full {
            self.outcome.usage = Some(Box::new(Usage { full, answer: None }));
        }
        self
    }

    /// The answer goes out over MCP as the JSON-RPC error `error`, the one
    /// a tool's `Err(ErrorData)` says, as rmcp would have sent it. A caller
    /// with no JSON-RPC in between (`Server::call`, a task's result) reads
    /// it as this `isError` result, its `structuredContent` the error's
    /// code, message and data. Kept in the result rather than beside it, so
    /// that an answer, which every call moves, grows by nothing.
    pub(crate) fn answered_over_mcp_as(mut self, error: rmcp::ErrorData) -> Answer {
        self.result.structured_content = serde_json::to_value(&error).ok();
        self.outcome.shape = AnswerShape::Error(ErrorKind::JsonRpc);
        self
    }

    /// The JSON-RPC error an answer of [`ErrorKind::JsonRpc`] goes out as.
    /// Cold, and by reference: the answers that succeed pay nothing for it.
    #[cold]
    #[inline(never)]
    pub(crate) fn take_protocol_error(&mut self) -> rmcp::ErrorData {
        // Written by `answered_over_mcp_as` from an `ErrorData`, so it
        // reads back; the fallback keeps a broken invariant from panicking.
        self.result
            .structured_content
            .take()
            .and_then(|error| serde_json::from_value(error).ok())
            .unwrap_or_else(|| {
                rmcp::ErrorData::internal_error("the tool's error could not be read back", None)
            })
    }

    /// The result as it goes out.
    #[inline]
    pub(crate) fn into_result(self) -> CallToolResult {
        self.result
    }

    /// The outcome.
    pub(crate) fn outcome(&self) -> &Outcome {
        &self.outcome
    }
}

/// What one call's answer is: its shape, its token, its bytes and what it
/// cost in tokens. Small, as it travels with every answer: what only a
/// usage report has is boxed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Outcome {
    pub(crate) shape: AnswerShape,
    /// A continuation token the answer carries (minted) or was served for
    /// (redeemed, in the mode its shape names).
    pub(crate) token: Option<TokenUse>,
    /// Bytes of the answer's text: what the caller's model reads.
    pub(crate) answer_bytes: u64,
    /// Bytes of the full result the answer stands for (an envelope's
    /// `data_size`, a probe's `total_size`); `None` where the answer is
    /// that result, or a redemption's, which stands for nothing new.
    pub(crate) full_bytes: Option<u64>,
    /// The store that keeps the token's result, with a token.
    pub(crate) tier: Option<&'static str>,
    /// The usage report's counts, when the server keeps one.
    pub(crate) usage: Option<Box<Usage>>,
}

/// What an answer and the full result it stands for count in the usage
/// report's encodings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Usage {
    /// The full result's counts: known where that result was at hand, or
    /// the answer's own where the answer is the result.
    pub(crate) full: Counts,
    /// The answer's, once the report is made.
    pub(crate) answer: Option<Counts>,
}

impl Outcome {
    /// The bytes of the full result the answer stands for, counted once per
    /// tool run: the answer's own where it is the result; none for a
    /// redemption.
    pub(crate) const fn full_bytes(&self) -> Option<u64> {
        match (self.full_bytes, self.token) {
            (_, Some(TokenUse::Redeemed)) => None,
            (Some(bytes), _) => Some(bytes),
            (None, _) => Some(self.answer_bytes),
        }
    }

    /// The error's kind, for an error.
    pub(crate) const fn error(&self) -> Option<ErrorKind> {
        match self.shape {
            AnswerShape::Error(kind) => Some(kind),
            _ => None,
        }
    }
}

/// What an answer is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AnswerShape {
    /// A write's lean confirmation.
    Envelope(EnvelopeShape),
    /// A heavy read's probe (with a token, or saying why none).
    Probe,
    /// The result itself: a read's, `verify: true`, a write that could not
    /// be confirmed lean, content blocks.
    Full,
    /// A heavy read's result within its inline budget (or small enough to
    /// fit the preview), answered whole where a probe would have stood.
    Inline,
    /// What a continuation token was redeemed for.
    Served(ServedMode),
    /// An error, of the call or of the tool.
    Error(ErrorKind),
}

/// Which lean envelope a write answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EnvelopeShape {
    /// One object's identity.
    Single,
    /// A bulk write's count and every id.
    BulkIds,
    /// A bulk write's count and a token for the rest.
    BulkToken,
    /// A destroy's confirmation.
    Delete,
}

/// What a redemption served.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ServedMode {
    /// A page of a stored list.
    Page,
    /// A page narrowed to the keys asked for.
    Filtered,
    /// The stored result's summary.
    Summary,
    /// The stored result whole.
    Full,
}

/// A continuation token's part in an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TokenUse {
    /// The answer carries a token it minted.
    Minted,
    /// The answer was served for a token: its shape says what
    /// ([`AnswerShape::Served`]).
    Redeemed,
}

impl TokenUse {
    /// `mcp_light.token`.
    pub(crate) const fn label(self) -> &'static str {
        match self {
            TokenUse::Minted => "minted",
            TokenUse::Redeemed => "redeemed",
        }
    }
}

/// A text's length in the usage report's two encodings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[cfg_attr(not(feature = "usage"), allow(dead_code))]
pub(crate) struct Counts {
    pub(crate) cl100k: usize,
    pub(crate) o200k: usize,
}

impl std::ops::Add for Counts {
    type Output = Counts;

    fn add(self, other: Counts) -> Counts {
        Counts {
            cl100k: self.cl100k + other.cl100k,
            o200k: self.o200k + other.o200k,
        }
    }
}

/// The bytes of a result's text content: what the caller's model reads
/// (the structured content repeats it).
fn text_bytes(result: &CallToolResult) -> u64 {
    result
        .content
        .iter()
        .map(|block| match block {
            ContentBlock::Text(text) => text.text.len() as u64,
            _ => 0,
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_read_whose_result_looks_like_a_probe_is_its_full_result() {
        // The fields a probe carries, in a plain read's own result.
        let read =
            Answer::full(json!({"total_size": 90000, "preview": [], "continuation_token": "t"}));
        let outcome = read.outcome();
        assert_eq!(outcome.shape, AnswerShape::Full);
        assert_eq!(outcome.token, None);
        assert_eq!(outcome.full_bytes(), Some(outcome.answer_bytes));
    }

    #[test]
    fn an_envelope_stands_for_its_full_result_and_a_redemption_for_nothing_new() {
        let envelope = Answer::shaped(
            &json!({"accepted": 60}),
            AnswerShape::Envelope(EnvelopeShape::BulkToken),
        )
        .standing_for(16000)
        .with_token(TokenUse::Minted, "memory");
        let outcome = envelope.outcome();
        assert_eq!(
            outcome.shape,
            AnswerShape::Envelope(EnvelopeShape::BulkToken)
        );
        assert_eq!(outcome.full_bytes(), Some(16000));
        assert_eq!(outcome.token.map(TokenUse::label), Some("minted"));
        assert_eq!(outcome.tier, Some("memory"));

        let page = Answer::shaped(&json!({"items": []}), AnswerShape::Served(ServedMode::Page))
            .with_token(TokenUse::Redeemed, "redis");
        assert_eq!(page.outcome().full_bytes(), None);
    }

    #[test]
    fn an_error_is_of_its_kind() {
        let error = Answer::error(CallError::UnknownTool {
            tool: "nope".into(),
            known: "a, b".into(),
        });
        assert_eq!(error.outcome().error(), Some(ErrorKind::UnknownTool));
        assert_eq!(error.result.is_error, Some(true));
    }
}
