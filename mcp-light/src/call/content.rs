//! Answers that are MCP content rather than JSON: text, images, audio,
//! embedded resources, resource links, or a whole `CallToolResult`.
//!
//! A `#[mcp_tool]` whose result implements [`ContentAnswer`] answers it as
//! it is: its blocks become the result's `content`, with no
//! `structuredContent` and no probe. Everything else is JSON, as before.
//! The compiler picks between the two in the generated code (see
//! `output::answer_kind`), so the choice costs nothing at run time.

use rmcp::model::{CallToolResult, ContentBlock};

/// One block of MCP content: text, an image, audio, an embedded resource or
/// a resource link (rmcp's `ContentBlock`).
///
/// ```
/// use mcp_light::prelude::*;
///
/// /// A one-pixel PNG, and what it shows.
/// #[mcp_tool]
/// fn pixel() -> Vec<Content> {
///     vec![
///         Content::image("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==", "image/png"),
///         Content::text("one red pixel"),
///     ]
/// }
/// ```
pub use rmcp::model::ContentBlock as Content;

/// A tool result answered as MCP content instead of being serialized as
/// JSON.
///
/// Implemented for one [`Content`] block, a `Vec` or an array of them, and
/// rmcp's [`CallToolResult`], which is answered whole (its `isError`,
/// `structuredContent` and `_meta` included). Implement it for a type of
/// your own to answer it as content: a chart that renders to an image, a
/// report that embeds a resource.
///
/// Only `#[mcp_tool]` tools answer content. A `#[mcp_light]` write answers
/// an envelope and a `#[mcp_heavy]` read a probe, both JSON, so the compiler
/// refuses a content result on them. A content answer is never kept behind
/// a continuation token and carries no usage report.
///
/// ```
/// use mcp_light::prelude::*;
/// use mcp_light::CallToolResult;
///
/// struct Chart { png_base64: String }
///
/// impl ContentAnswer for Chart {
///     fn into_call_tool_result(self) -> CallToolResult {
///         CallToolResult::success(vec![Content::image(self.png_base64, "image/png")])
///     }
/// }
///
/// /// Plots the load of the last hour.
/// #[mcp_tool]
/// fn load_chart() -> Result<Chart, ToolError> {
///     Ok(Chart { png_base64: String::new() })
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not MCP content",
    note = "a tool answers content with `Content`, `Vec<Content>` or `CallToolResult`; implement `ContentAnswer` for `{Self}` to answer it as content"
)]
pub trait ContentAnswer {
    /// The successful tool result this answer is.
    fn into_call_tool_result(self) -> CallToolResult;
}

impl ContentAnswer for ContentBlock {
    fn into_call_tool_result(self) -> CallToolResult {
        CallToolResult::success(vec![self])
    }
}

impl ContentAnswer for Vec<ContentBlock> {
    fn into_call_tool_result(self) -> CallToolResult {
        CallToolResult::success(self)
    }
}

impl<const N: usize> ContentAnswer for [ContentBlock; N] {
    fn into_call_tool_result(self) -> CallToolResult {
        CallToolResult::success(self.into())
    }
}

impl ContentAnswer for CallToolResult {
    fn into_call_tool_result(self) -> CallToolResult {
        self
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::ResourceContents;

    use super::*;

    #[test]
    fn blocks_become_the_result_content_in_order_without_structured_content() {
        let blocks = [
            Content::text("caption"),
            Content::image("aGk=", "image/png"),
            Content::audio("aGk=", "audio/wav"),
            Content::resource(ResourceContents::text("inside", "test://r")),
        ];
        let result = blocks.clone().into_call_tool_result();
        assert_eq!(result.content, blocks.to_vec());
        assert_eq!(result.is_error, Some(false));
        assert!(result.structured_content.is_none());
        let one = Content::text("alone").into_call_tool_result();
        assert_eq!(one.content, vec![Content::text("alone")]);
    }

    #[test]
    fn a_whole_result_is_answered_unchanged() {
        let error = CallToolResult::error(vec![Content::text("no such file")]);
        assert_eq!(error.clone().into_call_tool_result(), error);
    }
}
