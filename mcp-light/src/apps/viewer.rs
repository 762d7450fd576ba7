//! The MCP Apps extension and the viewer page mcp-light serves under it.

/// The MCP Apps extension's identifier, as a client declares it under
/// `capabilities.extensions`.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/ui";

/// The MIME type of an MCP Apps view, which a declaring client lists in
/// its `mimeTypes`.
pub const VIEWER_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The viewer's resource: what `_meta.ui.resourceUri` names and
/// `resources/read` answers.
pub const VIEWER_URI: &str = "ui://mcp-light/viewer.html";

/// The viewer page, bundled from `viewer/src` by `viewer/build.mjs`.
pub const VIEWER_HTML: &str = include_str!("viewer.html");
