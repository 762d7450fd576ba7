//! What a tool's return value becomes: the `Result<T, ToolError>` a
//! responder answers.
//!
//! A tool returns either a `Result<T, E>` whose `E` converts into
//! [`ToolError`] (an `Err` is answered `isError`), or a plain `T:
//! Serialize`. The macros cannot see through an alias (`ApiResult<T>`,
//! `anyhow::Result<T>`), so the compiler decides, by the technique anyhow's
//! `anyhow!` uses: generated code calls `(&ret).tool_output_kind()`. Method
//! lookup tries `&R` by value first, where only [`kind::ResultKind`] applies
//! (implemented for every `Result`); anything else is found one autoref
//! later through [`kind::ValueKind`] (implemented for every `&T`). Each
//! answers a zero-sized tag whose `into_output` does the conversion, so the
//! dispatch costs nothing at run time.

use crate::error::tool::{IntoToolError, ToolError};

/// The tags and the two traits that pick them; generated code imports both
/// traits by name (`as _`) around one method call.
pub mod kind {
    use super::*;

    /// The return value is a `Result`: its error converts into a
    /// [`ToolError`].
    pub struct ResultTag;

    /// The return value is the result itself.
    pub struct ValueTag;

    /// Found by value on `&Result<T, E>`, before [`ValueKind`].
    pub trait ResultKind {
        /// The tag of a `Result`.
        #[inline]
        fn tool_output_kind(&self) -> ResultTag {
            ResultTag
        }
    }

    impl<T, E> ResultKind for Result<T, E> {}

    /// Found at the autoref step, so only for what is not a `Result`.
    pub trait ValueKind {
        /// The tag of a plain value.
        #[inline]
        fn tool_output_kind(&self) -> ValueTag {
            ValueTag
        }
    }

    impl<T: ?Sized> ValueKind for &T {}

    impl ResultTag {
        /// The result, its error converted; the bound's sentence is what a
        /// tool with an unconvertible error type reads.
        #[inline]
        pub fn into_output<T, E: IntoToolError>(
            self,
            result: Result<T, E>,
        ) -> Result<T, ToolError> {
            result.map_err(IntoToolError::into_tool_error)
        }
    }

    impl ValueTag {
        /// A plain value is a success.
        #[inline]
        pub fn into_output<T>(self, value: T) -> Result<T, ToolError> {
            Ok(value)
        }

        /// [`ValueTag::into_output`], for a probe that only needs its type.
        #[inline]
        pub fn output_type<T>(self, value: T) -> Result<T, ToolError> {
            Ok(value)
        }
    }

    impl ResultTag {
        /// The type [`ResultTag::into_output`] answers, without its bound:
        /// a probe that only needs the type (never run) leaves the report
        /// of an unconvertible error to the real call.
        #[inline]
        pub fn output_type<T, E>(self, result: Result<T, E>) -> Result<T, ToolError> {
            result.map_err(|_| ToolError::new("a probe's error"))
        }
    }
}

/// Bound on every tool's result type, so that a result that is not
/// `Serialize` gets a sentence instead of a trait-bound dump.
#[diagnostic::on_unimplemented(
    message = "the result type `{Self}` of an MCP tool must implement `serde::Serialize`",
    label = "this type is not `Serialize`",
    note = "add `#[derive(Serialize)]` to `{Self}`, or return a type that is",
    note = "a `#[mcp_tool]` may instead answer MCP content: `Content`, `Vec<Content>`, `CallToolResult`, or a type that implements `ContentAnswer`"
)]
pub trait ToolResult: serde::Serialize {}

impl<T: serde::Serialize + ?Sized> ToolResult for T {}

/// The second choice the compiler makes, on the converted
/// `Result<T, ToolError>`: is `T` MCP content ([`crate::ContentAnswer`]) or JSON?
/// The same technique as [`kind`]: [`answer_kind::ContentKind`] applies by
/// value where `T` is content, [`answer_kind::JsonKind`] one autoref later
/// to everything else. Content wins over `Serialize` (a `Vec<Content>` is
/// both).
pub mod answer_kind {
    use std::future::Future;

    use crate::call::content::ContentAnswer;
    use crate::error::tool::ToolError;
    use crate::invoke::{Answering, Responder};

    /// The success is MCP content.
    pub struct ContentTag;

    /// The success is serialized as JSON.
    pub struct JsonTag;

    /// Found by value on `&Result<T, ToolError>` where `T` is content.
    pub trait ContentKind {
        /// The tag of a content answer.
        #[inline]
        fn tool_answer_kind(&self) -> ContentTag {
            ContentTag
        }
    }

    impl<T: ContentAnswer> ContentKind for Result<T, ToolError> {}

    /// Found at the autoref step, so only for what is not content.
    pub trait JsonKind {
        /// The tag of a JSON answer.
        #[inline]
        fn tool_answer_kind(&self) -> JsonTag {
            JsonTag
        }
    }

    impl<T: ?Sized> JsonKind for &T {}

    /// Never implemented: its sentence is what a `#[mcp_heavy]` or
    /// `#[mcp_light]` tool that returns content reads.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` is MCP content, but a `#[mcp_heavy]` or `#[mcp_light]` tool answers JSON (a probe, an envelope)",
        label = "content is answered by `#[mcp_tool]` only",
        note = "make the tool a `#[mcp_tool]`, return a `Serialize` type, or return a `CallToolResult` that carries the JSON as its `structured_content`"
    )]
    pub trait JsonOnlyAnswer {}

    /// What a tag says of the answer, read by [`answers_content`].
    pub trait AnswerTag {
        /// Whether the answer is MCP content.
        const CONTENT: bool;
    }

    impl AnswerTag for ContentTag {
        const CONTENT: bool = true;
    }

    impl AnswerTag for JsonTag {
        const CONTENT: bool = false;
    }

    /// Whether a tool answers content, read off the tag its (never run)
    /// call would pick: generated code builds a future that calls the tool
    /// and picks the tag, and asks its output type without polling it.
    pub fn answers_content<F: Future<Output = T>, T: AnswerTag>(_: &F) -> bool {
        T::CONTENT
    }

    impl ContentTag {
        /// A read's answer: the content as it is.
        #[inline]
        pub fn read<T: ContentAnswer>(
            self,
            responder: Responder,
            out: Result<T, ToolError>,
        ) -> Answering {
            Answering::now(responder.content(out))
        }

        /// Refuses content where the answer must be JSON.
        #[inline]
        pub fn json_only<T: JsonOnlyAnswer>(self, _: &Result<T, ToolError>) {}
    }

    impl JsonTag {
        /// A read's answer: the result as JSON, or its probe.
        #[inline]
        pub fn read<T: super::ToolResult>(
            self,
            responder: Responder,
            out: Result<T, ToolError>,
        ) -> Answering {
            responder.read(out)
        }

        /// JSON is what a heavy read or a write answers.
        #[inline]
        pub fn json_only<T>(self, _: &Result<T, ToolError>) {}
    }
}

#[cfg(test)]
mod tests {
    use super::kind::*;
    use super::*;

    type ApiResult<T> = Result<T, ToolError>;

    #[derive(Debug)]
    struct Refused;

    impl std::fmt::Display for Refused {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("refused")
        }
    }

    impl std::error::Error for Refused {}

    macro_rules! output {
        ($ret:expr) => {{
            let ret = $ret;
            (&ret).tool_output_kind().into_output(ret)
        }};
    }

    fn message<T>(out: Result<T, ToolError>) -> String {
        out.err().expect("an error").message().to_owned()
    }

    #[test]
    fn results_of_any_convertible_error_are_fallible() {
        let alias: ApiResult<u8> = Err(ToolError::new("alias"));
        assert_eq!(message(output!(alias)), "alias");
        let std: Result<u8, Refused> = Err(Refused);
        assert_eq!(message(output!(std)), "refused");
        let boxed: Result<u8, Box<dyn std::error::Error + Send + Sync>> = Err("boxed".into());
        assert_eq!(message(output!(boxed)), "boxed");
        let text: Result<u8, String> = Err("text".to_owned());
        assert_eq!(message(output!(text)), "text");
        let fine: std::io::Result<u8> = Ok(3);
        assert_eq!(output!(fine).unwrap(), 3);
    }

    #[test]
    fn anything_else_is_the_result_itself() {
        assert_eq!(output!(7u32).unwrap(), 7);
        assert_eq!(output!("text").unwrap(), "text");
        output!(()).unwrap();
        let nested: Option<Result<u8, Refused>> = None;
        assert!(output!(nested).unwrap().is_none());
    }
}
