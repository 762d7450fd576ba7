//! A `CallToolResult` the tool builds itself, under `#[mcp_heavy]` and
//! `#[mcp_light]`: the body stays as written, and the discipline applies to
//! the JSON the result carries.
//!
//! What the answer is made of, in order:
//! - a result with `isError: true` is the tool's error, answered as built;
//! - its `structuredContent`, when it has one: the heavy read's result, or
//!   the written object the envelope identifies;
//! - else its text, when every block is text: one block that parses as
//!   JSON is that JSON; other text is, for a heavy read, the text itself
//!   (a string the probe measures and `full` answers), and for a write
//!   the answer as built, since a line of text echoes no object;
//! - anything else (an image, a resource, nothing at all) is answered as
//!   built: there is no JSON to shape.
//!
//! The answer mcp-light makes (the result whole, a probe, an envelope)
//! carries its JSON in `structuredContent` and as text, as every mcp-light
//! answer does; a line the tool wrote beside its structured content is not
//! part of it.
//!
//! The compiler picks this path in the generated code, by the technique
//! of [`crate::output::kind`]: [`built_kind::BuiltKind`] applies by
//! value to `Result<CallToolResult, ToolError>`, [`built_kind::OtherKind`]
//! one autoref later to every other result, which passes as it is.

use std::fmt;

use rmcp::model::CallToolResult;
use serde_json::Value;

use crate::error::tool::ToolError;

/// A result answered as the tool built it, carried to the answer as the
/// source of a [`ToolError`] (see [`into_built`]).
pub(crate) struct AsBuilt(pub(crate) CallToolResult);

impl fmt::Debug for AsBuilt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("AsBuilt").field(&self.0).finish()
    }
}

impl fmt::Display for AsBuilt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let texts = self.0.content.iter().filter_map(|block| block.as_text());
        for (index, text) in texts.enumerate() {
            if index > 0 {
                f.write_str("\n")?;
            }
            f.write_str(&text.text)?;
        }
        Ok(())
    }
}

impl std::error::Error for AsBuilt {}

/// The result a tool built itself, where `error` carries one to be
/// answered as built; else the error as it is.
pub(crate) fn into_built(error: ToolError) -> Result<CallToolResult, ToolError> {
    error.into_source::<AsBuilt>().map(|built| built.0)
}

/// What text that is not JSON becomes.
#[derive(Clone, Copy)]
enum PlainText {
    /// A heavy read's result: the text, as a string.
    Value,
    /// A kept answer too large for the client: the text in pieces
    /// ([`text_pieces`]), which page.
    Pieces,
    /// A write's answer: the result as built.
    AsBuilt,
}

/// The most bytes of one piece of text kept in pieces: a longer line is
/// cut (at a character's boundary) into pieces of at most this many.
pub(crate) const MAX_PIECE_BYTES: usize = 1_000;

/// `text` as a list of pieces that join back into it exactly: each line
/// with its `\n`, a line longer than [`MAX_PIECE_BYTES`] cut into pieces
/// of at most that many bytes (only the last of them ends with the `\n`).
/// A list pages, within what a client keeps, where one long string could
/// only be answered whole.
pub(crate) fn text_pieces(text: &str) -> Vec<Value> {
    let mut pieces = Vec::new();
    for line in text.split_inclusive('\n') {
        let mut rest = line;
        while rest.len() > MAX_PIECE_BYTES {
            let mut cut = MAX_PIECE_BYTES;
            while !rest.is_char_boundary(cut) {
                cut -= 1;
            }
            let (piece, after) = rest.split_at(cut);
            pieces.push(Value::String(piece.to_owned()));
            rest = after;
        }
        pieces.push(Value::String(rest.to_owned()));
    }
    pieces
}

/// What a built result comes to: the JSON it carries, or itself, to be
/// answered as built.
enum Carried {
    Json(Value),
    AsBuilt(CallToolResult),
}

impl Carried {
    /// The JSON, or the result carried to the answer as the source of a
    /// [`ToolError`].
    fn into_output(self) -> Result<Value, ToolError> {
        match self {
            Carried::Json(value) => Ok(value),
            Carried::AsBuilt(result) => Err(ToolError::from(AsBuilt(result))),
        }
    }
}

/// The JSON a built result carries, or the result itself where it is to
/// be answered as built.
fn carried(result: CallToolResult, text: PlainText) -> Carried {
    if result.is_error == Some(true) {
        return Carried::AsBuilt(result);
    }
    let CallToolResult {
        content,
        structured_content,
        ..
    } = &result;
    if let Some(value) = structured_content {
        return Carried::Json(value.clone());
    }
    let texts: Option<Vec<&str>> = content
        .iter()
        .map(|block| block.as_text().map(|text| text.text.as_str()))
        .collect();
    match (texts.as_deref(), text) {
        (None | Some([]), _) => Carried::AsBuilt(result),
        (Some([one]), text) => match serde_json::from_str(one) {
            Ok(value) => Carried::Json(value),
            Err(_) => match text {
                PlainText::Value => Carried::Json(Value::String((*one).to_owned())),
                PlainText::Pieces => Carried::Json(Value::Array(text_pieces(one))),
                PlainText::AsBuilt => Carried::AsBuilt(result),
            },
        },
        (Some(texts), PlainText::Value) => Carried::Json(Value::String(texts.join("\n"))),
        (Some(texts), PlainText::Pieces) => {
            Carried::Json(Value::Array(text_pieces(&texts.join("\n"))))
        }
        (Some(_), PlainText::AsBuilt) => Carried::AsBuilt(result),
    }
}

/// The JSON a kept answer too large for the client carries, its text in
/// pieces ([`text_pieces`]) where that is all it carries; `Err` with the
/// result itself where it is answered as built (an error, other content,
/// nothing). What a composed handler's kept tool keeps.
///
/// A structured content that is one string field (`{"content": "…"}`, as
/// servers that wrap their text for an output schema answer) carries that
/// text: its JSON where it is a JSON list or object, else its pieces.
pub(crate) fn carried_by_read(result: CallToolResult) -> Result<Value, Box<CallToolResult>> {
    if let Some(text) = wrapped_text(&result) {
        return Ok(match serde_json::from_str::<Value>(text) {
            Ok(value @ (Value::Array(_) | Value::Object(_))) => value,
            _ => Value::Array(text_pieces(text)),
        });
    }
    match carried(result, PlainText::Pieces) {
        Carried::Json(value) => Ok(value),
        Carried::AsBuilt(result) => Err(Box::new(result)),
    }
}

/// The JSON a composed handler's write answered, or the result itself
/// where it carries none (an error, plain text, other content), to be
/// answered as built.
pub(crate) fn carried_by_write(result: CallToolResult) -> Result<Value, Box<CallToolResult>> {
    match carried(result, PlainText::AsBuilt) {
        Carried::Json(value) => Ok(value),
        Carried::AsBuilt(result) => Err(Box::new(result)),
    }
}

/// The text of a successful result whose structured content is an object
/// of one string field.
fn wrapped_text(result: &CallToolResult) -> Option<&str> {
    if result.is_error == Some(true) {
        return None;
    }
    let Some(Value::Object(fields)) = &result.structured_content else {
        return None;
    };
    let mut values = fields.values();
    match (values.next(), values.next()) {
        (Some(Value::String(text)), None) => Some(text),
        _ => None,
    }
}

/// The tags and the traits that pick them; generated code imports the
/// traits around one method call.
pub mod built_kind {
    use rmcp::model::CallToolResult;
    use serde_json::Value;

    use super::{PlainText, carried};
    use crate::error::tool::ToolError;

    /// The success is a `CallToolResult` the tool built.
    pub struct BuiltTag;

    /// The success is anything else.
    pub struct OtherTag;

    /// Found by value on `&Result<CallToolResult, ToolError>`.
    pub trait BuiltKind {
        /// The tag of a built result.
        #[inline]
        fn tool_built_kind(&self) -> BuiltTag {
            BuiltTag
        }
    }

    impl BuiltKind for Result<CallToolResult, ToolError> {}

    /// Found at the autoref step, so only for any other success.
    pub trait OtherKind {
        /// The tag of any other success.
        #[inline]
        fn tool_built_kind(&self) -> OtherTag {
            OtherTag
        }
    }

    impl<T: ?Sized> OtherKind for &T {}

    impl BuiltTag {
        /// A heavy read's result: the JSON the result carries, its text as
        /// a string when that is all it carries.
        pub fn heavy(self, out: Result<CallToolResult, ToolError>) -> Result<Value, ToolError> {
            out.and_then(|result| carried(result, PlainText::Value).into_output())
        }

        /// A write's result: the JSON the result carries; a result that
        /// carries none is answered as built.
        pub fn write(self, out: Result<CallToolResult, ToolError>) -> Result<Value, ToolError> {
            out.and_then(|result| carried(result, PlainText::AsBuilt).into_output())
        }
    }

    impl OtherTag {
        /// Any other success, as it is.
        #[inline]
        pub fn heavy<T>(self, out: T) -> T {
            out
        }

        /// Any other success, as it is.
        #[inline]
        pub fn write<T>(self, out: T) -> T {
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::ContentBlock;
    use serde_json::json;

    use super::*;

    fn built(result: CallToolResult, text: PlainText) -> Result<Value, Box<CallToolResult>> {
        carried(result, text)
            .into_output()
            .map_err(|error| Box::new(into_built(error).expect("answered as built")))
    }

    #[test]
    fn structured_content_is_what_the_discipline_reads() {
        let mut result = CallToolResult::success(vec![ContentBlock::text("Created task 5")]);
        result.structured_content = Some(json!({"id": 5, "title": "write docs"}));
        let value = built(result, PlainText::AsBuilt).unwrap();
        assert_eq!(value, json!({"id": 5, "title": "write docs"}));
    }

    #[test]
    fn a_json_text_block_is_its_json() {
        let result = CallToolResult::success(vec![ContentBlock::text(r#"[{"id":1},{"id":2}]"#)]);
        let value = built(result, PlainText::AsBuilt).unwrap();
        assert_eq!(value, json!([{"id": 1}, {"id": 2}]));
    }

    #[test]
    fn plain_text_is_a_heavy_reads_string_and_a_writes_answer_as_built() {
        let lines = || {
            CallToolResult::success(vec![
                ContentBlock::text("task 1: write docs"),
                ContentBlock::text("task 2: ship"),
            ])
        };
        assert_eq!(
            built(lines(), PlainText::Value).unwrap(),
            json!("task 1: write docs\ntask 2: ship")
        );
        let as_built = built(lines(), PlainText::AsBuilt).unwrap_err();
        assert_eq!(as_built.content.len(), 2);
    }

    #[test]
    fn a_kept_answer_wrapping_its_text_in_one_field_keeps_the_text() {
        let wrapped = |text: &str| {
            let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
            result.structured_content = Some(json!({ "content": text }));
            carried_by_read(result).unwrap()
        };
        // JSON text: its JSON.
        let tree = json!([{"name": "src", "children": [{"name": "lib.rs"}]}]);
        assert_eq!(wrapped(&serde_json::to_string_pretty(&tree).unwrap()), tree);
        // Plain text: its pieces.
        assert_eq!(wrapped("a\nb"), json!(["a\n", "b"]));
        // A number's text stays text.
        assert_eq!(wrapped("42"), json!(["42"]));
        // Two fields, or one that is not a string: the structured content.
        let mut two = CallToolResult::success(vec![]);
        two.structured_content = Some(json!({"content": "a", "more": "b"}));
        assert_eq!(
            carried_by_read(two).unwrap(),
            json!({"content": "a", "more": "b"})
        );
        let mut count = CallToolResult::success(vec![]);
        count.structured_content = Some(json!({"count": 3}));
        assert_eq!(carried_by_read(count).unwrap(), json!({"count": 3}));
    }

    #[test]
    fn text_in_pieces_joins_back_into_the_text() {
        let long = "é".repeat(MAX_PIECE_BYTES);
        let text = format!("first line\n{long}\n\nlast, without a newline");
        let pieces = text_pieces(&text);
        let joined: String = pieces.iter().map(|piece| piece.as_str().unwrap()).collect();
        assert_eq!(joined, text);
        assert_eq!(pieces[0], json!("first line\n"));
        assert!(
            pieces
                .iter()
                .all(|piece| piece.as_str().unwrap().len() <= MAX_PIECE_BYTES)
        );
        // The long line (2,001 bytes) is two full pieces and its newline,
        // the blank line one, the last one.
        assert_eq!(pieces.len(), 1 + 3 + 1 + 1, "{pieces:?}");
        assert_eq!(pieces.last().unwrap(), &json!("last, without a newline"));
        let kept = carried_by_read(CallToolResult::success(vec![ContentBlock::text(
            text.clone(),
        )]));
        assert_eq!(kept.unwrap(), Value::Array(pieces));
    }

    #[test]
    fn an_error_or_other_content_is_answered_as_built() {
        let error = CallToolResult::error(vec![ContentBlock::text("no task 9")]);
        let as_built = built(error, PlainText::Value).unwrap_err();
        assert_eq!(as_built.is_error, Some(true));
        let message = carried(
            CallToolResult::error(vec![ContentBlock::text("no task 9")]),
            PlainText::Value,
        )
        .into_output()
        .unwrap_err();
        assert_eq!(message.message(), "no task 9");
        let image = CallToolResult::success(vec![ContentBlock::image("AAAA", "image/png")]);
        assert!(built(image, PlainText::Value).is_err());
        assert!(built(CallToolResult::success(vec![]), PlainText::Value).is_err());
    }
}
