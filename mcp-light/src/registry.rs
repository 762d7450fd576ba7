//! STUB
use crate::ToolDef;
/// All tools.
#[linkme::distributed_slice]
pub static TOOLS: [ToolDef];
/// A registry.
pub struct Registry {}
/// A published tool.
pub struct PublishedTool {}
