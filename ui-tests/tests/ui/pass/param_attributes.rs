//! Parameter attributes: `#[serde(...)]` and `#[schemars(...)]` reach the
//! schema; a renamed `#[id]` names the destroy's id.
use mcp_light::catalog::{PublishedTool, Registry, ToolDef};
use mcp_light::prelude::*;

#[derive(Serialize, LightKey)]
pub struct Page {
    pub id: u64,
}

/// Search pages.
#[mcp_tool(name = "page_search")]
fn search(
    #[schemars(description = "Words to look for")] query: String,
    #[serde(default)] limit: u32,
    #[allow(unused_variables)] r#type: Option<String>,
) -> Vec<Page> {
    let _ = (query, limit);
    Vec::new()
}

#[mcp_light(destroy, resource = "page")]
fn page_delete(
    #[id]
    #[serde(rename = "pageId")]
    page: u64,
) -> Result<(), ToolError> {
    let _ = page;
    Ok(())
}

/// Every tool linked into this binary, as the registry checks them.
fn linked() -> impl Iterator<Item = &'static ToolDef> {
    let registry = Registry::collect().unwrap();
    registry
        .iter()
        .map(PublishedTool::def)
        .collect::<Vec<_>>()
        .into_iter()
}

fn main() {
    let search = linked().find(|t| t.name() == "page_search").unwrap();
    let schema = serde_json::to_value(search.params_schema()).unwrap();
    assert_eq!(schema["required"], serde_json::json!(["query"]));
    assert_eq!(
        schema["properties"]["query"]["description"],
        "Words to look for"
    );
    assert_eq!(schema["properties"]["limit"]["default"], 0);
    assert!(schema["properties"].get("type").is_some());

    let delete = linked().find(|t| t.name() == "page_delete").unwrap();
    let schema = serde_json::to_value(delete.params_schema()).unwrap();
    assert_eq!(schema["required"], serde_json::json!(["pageId"]));
}
