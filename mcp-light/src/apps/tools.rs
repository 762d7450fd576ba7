//! The tools only the viewer sees (`_meta.ui.visibility: ["app"]`): a page,
//! a filtered page, the summary, or the written objects of a result a call
//! kept. Each takes the token that answer carried, and may name the tool
//! whose answer it was (without it, the tool the token was kept for: a
//! host need not say which tool answered); the token is redeemed as the
//! model's own redemption would be, for the same caller and the same tool,
//! so another caller is refused and every bound holds. A fetch by ids
//! names the write whose retrieve tool fetches them. The model-facing path
//! is not touched: these are separate names, listed only to a client that
//! shows views.

use rmcp::model::{MetaObject, Tool};
use serde_json::{Map, Value, json};

use crate::heavy::{HeavyConfig, Mode, negotiation_properties};
use crate::tool::schema::CONTINUATION_TOKEN;

/// One of the viewer's own tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ViewTool {
    /// A page of a stored list.
    Page,
    /// A page of a stored list, each item narrowed to some keys.
    Filter,
    /// The stored result's summary: its size, its fields, value counts.
    Summary,
    /// A write's objects: by its token (the whole result, within the
    /// `full` bound), or by its ids through its retrieve tool.
    Fetch,
}

/// The field naming the tool whose answer a view tool reads: optional
/// beside a token, which names its own.
pub(crate) const TOOL: &str = "tool";
/// The field of [`ViewTool::Fetch`] that names written objects.
pub(crate) const IDS: &str = "ids";

impl ViewTool {
    /// Every view tool, in the order `tools/list` shows them.
    pub(crate) const ALL: [ViewTool; 4] = [
        ViewTool::Page,
        ViewTool::Filter,
        ViewTool::Summary,
        ViewTool::Fetch,
    ];

    /// The tool's name.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            ViewTool::Page => "view_page",
            ViewTool::Filter => "view_filter",
            ViewTool::Summary => "view_summary",
            ViewTool::Fetch => "view_fetch",
        }
    }

    /// The view tool called `name`, if any.
    pub(crate) fn named(name: &str) -> Option<ViewTool> {
        ViewTool::ALL.into_iter().find(|view| view.name() == name)
    }

    /// The name of the redemption mode the tool asks for; the fetch by ids
    /// redeems nothing.
    pub(crate) const fn mode(self) -> &'static str {
        let mode = match self {
            ViewTool::Page => Mode::Paginated,
            ViewTool::Filter => Mode::Filtered,
            ViewTool::Summary => Mode::Summary,
            ViewTool::Fetch => Mode::Full,
        };
        mode.as_str()
    }

    /// The fields the tool takes besides `tool` and `continuation_token`.
    pub(crate) const fn fields(self) -> &'static [&'static str] {
        match self {
            ViewTool::Page => &["page", "page_size"],
            ViewTool::Filter => &["page", "page_size", "filter_keys"],
            ViewTool::Summary => &[],
            ViewTool::Fetch => &[IDS],
        }
    }

    const fn description(self) -> &'static str {
        match self {
            ViewTool::Page => "A page of the result behind a continuation token.",
            ViewTool::Filter => "A page of the result behind a token, narrowed to filter_keys.",
            ViewTool::Summary => "The summary of the result behind a continuation token.",
            ViewTool::Fetch => {
                "A write's objects: by its continuation token, or by ids through its retrieve tool."
            }
        }
    }

    /// The tool as `tools/list` shows it to a client that shows views.
    fn to_tool(self, heavy: &HeavyConfig) -> Tool {
        let negotiation = negotiation_properties(heavy);
        let mut properties = Map::new();
        properties.insert(TOOL.to_owned(), json!({"type": "string"}));
        properties.insert(CONTINUATION_TOKEN.to_owned(), json!({"type": "string"}));
        for field in self.fields() {
            let schema = match *field {
                IDS => json!({"type": "array", "maxItems": heavy.max_page_size}),
                field => negotiation[field].clone(),
            };
            properties.insert((*field).to_owned(), schema);
        }
        // `tool` is left out beside a token; a fetch takes a token or ids.
        let required: &[&str] = match self {
            ViewTool::Page | ViewTool::Summary => &[CONTINUATION_TOKEN],
            ViewTool::Filter => &[CONTINUATION_TOKEN, "filter_keys"],
            ViewTool::Fetch => &[],
        };
        let mut schema = Map::new();
        schema.insert("type".to_owned(), json!("object"));
        schema.insert("properties".to_owned(), Value::Object(properties));
        if !required.is_empty() {
            schema.insert("required".to_owned(), json!(required));
        }
        schema.insert("additionalProperties".to_owned(), json!(false));
        let mut tool = Tool::new(self.name(), self.description(), schema);
        let mut meta = MetaObject::default();
        meta.0
            .insert("ui".to_owned(), json!({"visibility": ["app"]}));
        tool.meta = Some(meta);
        tool
    }
}

/// The view tools as `tools/list` shows them to a client that shows views.
pub(crate) fn view_tools(heavy: &HeavyConfig) -> impl Iterator<Item = Tool> + '_ {
    ViewTool::ALL.into_iter().map(|view| view.to_tool(heavy))
}
