//! What a person sees of an answer the agent did not read: the MCP Apps
//! viewer (the `apps` feature). The guide below is `docs/apps.md`; its
//! example is a doctest.
#![doc = include_str!("../../docs/apps.md")]

mod viewer;
pub use viewer::{EXTENSION_ID, VIEWER_HTML, VIEWER_MIME_TYPE, VIEWER_URI};
mod resource;
mod tools;

use rmcp::model::{ClientCapabilities, MetaObject, Tool};

use crate::catalog::dispatch::Dispatcher;
use crate::catalog::registry::Registry;
use serde_json::{Value, json};

pub(crate) use resource::{list_with_viewer, read_viewer};
pub(crate) use tools::{IDS, TOOL, ViewTool, view_tools};

/// Whether a client's capabilities declare the MCP Apps extension with the
/// viewer's MIME type (a declaration without `mimeTypes` counts: it names
/// the one type the extension has).
pub(crate) fn declared(capabilities: &ClientCapabilities) -> bool {
    let Some(settings) = capabilities
        .extensions
        .as_ref()
        .and_then(|extensions| extensions.get(EXTENSION_ID))
    else {
        return false;
    };
    match settings.get("mimeTypes") {
        None => true,
        Some(Value::Array(types)) => types.iter().any(|t| t == VIEWER_MIME_TYPE),
        Some(_) => false,
    }
}

/// Whether a client that shows views is pointed at the viewer for
/// `dispatcher`'s answers: when any tool it routes to has a view.
pub(crate) fn dispatcher_has_view(dispatcher: &Dispatcher, registry: &Registry) -> bool {
    dispatcher.routed_tools().any(|name| {
        registry
            .get(name)
            .is_some_and(|routed| routed.def().has_view())
    })
}

/// `tool` as a declaring client sees it: with `_meta.ui.resourceUri`
/// naming the viewer, beside whatever `_meta` it had.
pub(crate) fn with_view(mut tool: Tool) -> Tool {
    let meta = tool.meta.get_or_insert_with(MetaObject::default);
    meta.0
        .insert("ui".to_owned(), json!({"resourceUri": VIEWER_URI}));
    tool
}

/// The `tools/list` a declaring client gets: `listed` (what every other
/// client gets), each tool `viewed[i]` says has a view naming the viewer,
/// then the app-only tools.
pub(crate) fn listed_for_views(
    listed: &[Tool],
    viewed: &[bool],
    heavy: &crate::heavy::HeavyConfig,
) -> Vec<Tool> {
    let mut tools: Vec<Tool> = listed
        .iter()
        .zip(viewed)
        .map(|(tool, &view)| match view {
            true => with_view(tool.clone()),
            false => tool.clone(),
        })
        .collect();
    tools.extend(view_tools(heavy));
    tools
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declaring(settings: Value) -> ClientCapabilities {
        serde_json::from_value(json!({"extensions": {EXTENSION_ID: settings}})).unwrap()
    }

    #[test]
    fn a_declaration_counts_with_the_viewers_mime_type_or_none() {
        assert!(declared(&declaring(
            json!({"mimeTypes": [VIEWER_MIME_TYPE]})
        )));
        assert!(declared(&declaring(json!({}))));
        assert!(!declared(&declaring(json!({"mimeTypes": ["text/html"]}))));
        assert!(!declared(&declaring(
            json!({"mimeTypes": VIEWER_MIME_TYPE})
        )));
        assert!(!declared(&ClientCapabilities::default()));
    }

    #[test]
    fn the_viewer_is_one_page_that_reaches_no_origin() {
        assert!(VIEWER_HTML.starts_with("<!doctype html>"));
        // Everything is inline: no script, style or image is fetched.
        for fetched in ["src=\"http", "href=\"http", "src='http", "@import"] {
            assert!(
                !VIEWER_HTML.contains(fetched),
                "the viewer fetches {fetched}"
            );
        }
    }
}
