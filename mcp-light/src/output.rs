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

use crate::error::{IntoToolError, ToolError};

/// The tags and the two traits that pick them; generated code glob-imports
/// this module around one method call.
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
