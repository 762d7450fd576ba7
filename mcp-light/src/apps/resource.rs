//! The viewer as a `ui://` resource: its entry in `resources/list` and its
//! contents for `resources/read`, each with the content security policy it
//! needs, which is none: no origin to connect to or load from.

use rmcp::model::{
    ListResourcesResult, MetaObject, ReadResourceResult, Resource, ResourceContents,
};
use serde_json::json;

use super::{VIEWER_HTML, VIEWER_MIME_TYPE, VIEWER_URI};

/// `_meta.ui` of the viewer's resource: no network origin of any kind, and
/// a border around it.
fn viewer_meta() -> MetaObject {
    let mut meta = MetaObject::default();
    meta.0.insert(
        "ui".to_owned(),
        json!({
            "csp": {"connectDomains": [], "resourceDomains": []},
            "prefersBorder": true,
        }),
    );
    meta
}

/// The viewer's `resources/list` entry.
fn viewer_entry() -> Resource {
    let mut entry = Resource::new(VIEWER_URI, "mcp-light viewer");
    entry.description =
        Some("Pages, filters and charts the result a heavy read or a write kept.".to_owned());
    entry.mime_type = Some(VIEWER_MIME_TYPE.to_owned());
    entry.size = Some(VIEWER_HTML.len() as u64);
    entry.meta = Some(viewer_meta());
    entry
}

/// `listed` with the viewer after the composed handler's resources, on
/// the last page (the one without a `next_cursor`), so it is listed once.
pub(crate) fn list_with_viewer(mut listed: ListResourcesResult) -> ListResourcesResult {
    if listed.next_cursor.is_none() {
        listed.resources.push(viewer_entry());
    }
    listed
}

/// The answer to `resources/read` of `uri` when it is the viewer's.
pub(crate) fn read_viewer(uri: &str) -> Option<ReadResourceResult> {
    (uri == VIEWER_URI).then(|| {
        ReadResourceResult::new(vec![ResourceContents::TextResourceContents {
            uri: VIEWER_URI.to_owned(),
            mime_type: Some(VIEWER_MIME_TYPE.to_owned()),
            text: VIEWER_HTML.to_owned(),
            meta: Some(viewer_meta()),
        }])
    })
}
