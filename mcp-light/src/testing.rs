//! What a test of a tool reads its answers with: [`AnswerExt`] reads the
//! [`CallToolResult`] that [`Server::call`](crate::Server::call)
//! answers as JSON or as an error's text, the way an MCP client reads it.
//!
//! Not in the [prelude](crate::prelude), which holds what a tool's own code
//! writes: a test module adds `use mcp_light::testing::AnswerExt;`.

use rmcp::model::CallToolResult;
use serde_json::Value;

/// Reads a tool's answer ([`CallToolResult`]) as JSON or as an error's
/// text, the way an MCP client reads it: for tests that call tools through
/// [`Server::call`](crate::Server::call).
///
/// In [`testing`](crate::testing), beside the prelude a tool module uses.
///
/// ```standalone_crate
/// use mcp_light::prelude::*;
/// use mcp_light::testing::AnswerExt;
/// use serde_json::json;
///
/// /// Halves an even number.
/// #[mcp_tool]
/// fn halve(n: u32) -> Result<u32, ToolError> {
///     match n % 2 {
///         0 => Ok(n / 2),
///         _ => Err(ToolError::new(format!("{n} is odd"))),
///     }
/// }
///
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// let server = Server::from_tools(tools![halve]).build().unwrap();
/// let half = server.call("halve", json!({"n": 8}), Caller::Process).await;
/// assert_eq!(half.json().unwrap(), json!({"result": 4}));
/// let odd = server.call("halve", json!({"n": 7}), Caller::Process).await;
/// assert_eq!(odd.error_text().unwrap(), "`halve` failed: 7 is odd");
/// assert!(odd.json().is_err());
/// # });
/// ```
pub trait AnswerExt {
    /// The JSON of a successful answer: its `structuredContent`, else its
    /// first text block parsed as JSON.
    ///
    /// `structuredContent` is a JSON object: a tool result that is not one
    /// is wrapped under the key `result` (`{"result": 4}`), as a client receives it. An error answer
    /// (`isError: true`) is an [`AnswerError::IsError`] carrying its text.
    fn json(&self) -> Result<Value, AnswerError>;

    /// The text of an error answer (`isError: true`): bad arguments, an
    /// unknown tool, a tool that returned `Err` or panicked. A successful
    /// answer is an [`AnswerError::NotAnError`].
    fn error_text(&self) -> Result<&str, AnswerError>;
}

/// Why an answer could not be read as asked.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AnswerError {
    /// JSON was asked of an error answer.
    #[error("the tool answered an error, not JSON: {message}")]
    IsError {
        /// The error answer's text.
        message: String,
    },
    /// An error's text was asked of a successful answer.
    #[error("the tool answered a success, not an error: {answer}")]
    NotAnError {
        /// The successful answer's JSON, or its text when it is not JSON.
        answer: String,
    },
    /// The answer has no `structuredContent` and no text block.
    #[error("the answer carries neither structuredContent nor a text block")]
    NoText,
    /// The answer's text block is not JSON (content such as prose, with no
    /// `structuredContent` beside it).
    #[error("the answer's text is not JSON ({source}): {text}")]
    NotJson {
        /// The text block.
        text: String,
        /// Why it does not parse.
        source: serde_json::Error,
    },
}

impl AnswerExt for CallToolResult {
    fn json(&self) -> Result<Value, AnswerError> {
        if self.is_error == Some(true) {
            let message = first_text(self).unwrap_or_default().to_owned();
            return Err(AnswerError::IsError { message });
        }
        if let Some(structured) = &self.structured_content {
            return Ok(structured.clone());
        }
        let text = first_text(self).ok_or(AnswerError::NoText)?;
        serde_json::from_str(text).map_err(|source| AnswerError::NotJson {
            text: text.to_owned(),
            source,
        })
    }

    fn error_text(&self) -> Result<&str, AnswerError> {
        if self.is_error != Some(true) {
            let answer = match &self.structured_content {
                Some(structured) => structured.to_string(),
                None => first_text(self).unwrap_or_default().to_owned(),
            };
            return Err(AnswerError::NotAnError { answer });
        }
        first_text(self).ok_or(AnswerError::NoText)
    }
}

/// The text of the answer's first text block.
fn first_text(answer: &CallToolResult) -> Option<&str> {
    answer
        .content
        .iter()
        .find_map(|block| block.as_text())
        .map(|text| text.text.as_str())
}

#[cfg(test)]
mod tests {
    use rmcp::model::ContentBlock;
    use serde_json::json;

    use super::*;
    use crate::call::answer::{error_result, full_result, shaped_result};

    #[test]
    fn a_full_result_reads_as_its_structured_content() {
        assert_eq!(
            full_result(json!({"id": 1})).json().unwrap(),
            json!({"id": 1})
        );
        assert_eq!(full_result(json!(4)).json().unwrap(), json!({"result": 4}));
        let envelope = shaped_result(&json!({"accepted": 2}));
        assert_eq!(envelope.json().unwrap(), json!({"accepted": 2}));
    }

    #[test]
    fn an_answer_without_structured_content_reads_its_text() {
        let text = CallToolResult::success(vec![ContentBlock::text("[1,2]")]);
        assert_eq!(text.json().unwrap(), json!([1, 2]));
        let prose = CallToolResult::success(vec![ContentBlock::text("hello")]);
        assert!(matches!(prose.json(), Err(AnswerError::NotJson { .. })));
        let empty = CallToolResult::success(Vec::new());
        assert!(matches!(empty.json(), Err(AnswerError::NoText)));
    }

    #[test]
    fn an_error_reads_as_text_and_never_as_json() {
        let error = error_result("no device 9");
        assert_eq!(error.error_text().unwrap(), "no device 9");
        let Err(AnswerError::IsError { message }) = error.json() else {
            panic!("an error answer read as JSON");
        };
        assert_eq!(message, "no device 9");
    }

    #[test]
    fn a_success_is_not_an_error() {
        let Err(AnswerError::NotAnError { answer }) = full_result(json!({"id": 1})).error_text()
        else {
            panic!("a success read as an error");
        };
        assert_eq!(answer, r#"{"id":1}"#);
    }
}
