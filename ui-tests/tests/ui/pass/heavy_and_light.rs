//! `#[mcp_heavy]` and `#[mcp_light]` on one function, in either order,
//! register one heavy tool.
use mcp_light::catalog::{PublishedTool, Registry, ToolDef, ToolKind};
use mcp_light::prelude::*;

#[derive(Serialize, LightKey)]
pub struct Report {
    pub id: u64,
}

/// Build a report.
#[mcp_heavy(resource = "report")]
#[mcp_light(create, name = "report_build")]
async fn build_report(ctx: &Context, size: u32) -> Result<Vec<Report>, ToolError> {
    let _ = ctx;
    Ok((0..u64::from(size)).map(|id| Report { id }).collect())
}

#[mcp_light(create, resource = "report")]
#[mcp_heavy(resource = "report", action = "export")]
fn export_report(page_count: u32) -> Vec<Report> {
    (0..u64::from(page_count)).map(|id| Report { id }).collect()
}

#[mcp_heavy]
fn all_reports() -> Vec<Report> {
    Vec::new()
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
    assert_eq!(linked().count(), 3);
    for name in ["report_build", "export_report", "all_reports"] {
        let found: Vec<_> = linked().filter(|t| t.name() == name).collect();
        assert_eq!(found.len(), 1, "{name}");
        assert_eq!(found[0].kind(), ToolKind::Heavy, "{name}");
        assert!(found[0].kind().is_heavy() && !found[0].kind().is_write());
    }

    let build = linked().find(|t| t.name() == "report_build").unwrap();
    assert_eq!(build.description(), "Build a report.");
    assert_eq!(build.resource(), Some("report"));
    assert_eq!(build.action(), Some("create"));
    assert!(build.function().ends_with("::build_report"));

    let export = linked().find(|t| t.name() == "export_report").unwrap();
    assert_eq!(export.action(), Some("export"));
    assert_eq!(export.resource(), Some("report"));

    let all = linked().find(|t| t.name() == "all_reports").unwrap();
    assert_eq!(all.action(), None);
    assert_eq!(all.resource(), None);
}
