//! The task manager as written for rmcp: a `#[tool_router]` impl whose
//! methods hand their arguments to the [`TaskBook`]'s handlers, which
//! build each `CallToolResult`.

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ServerCapabilities, ServerConfig};
use rmcp::{ErrorData, ServerHandler, tool, tool_handler, tool_router};

use crate::book::{NewPriority, NewTask, Search, TaskBook, TaskFilter, TaskId};

/// The task manager, served by rmcp.
#[derive(Clone)]
pub struct Tasks {
    book: Arc<TaskBook>,
    tool_router: ToolRouter<Tasks>,
}

#[tool_router]
impl Tasks {
    /// The server over `book`.
    pub fn new(book: TaskBook) -> Self {
        Self {
            book: Arc::new(book),
            tool_router: Self::tool_router(),
        }
    }

    #[tool(
        description = "Create a task.",
        annotations(idempotent_hint = false, open_world_hint = false)
    )]
    async fn create_task(&self, params: Parameters<NewTask>) -> Result<CallToolResult, ErrorData> {
        self.book.create(params)
    }

    #[tool(
        description = "List the tasks, open or done.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn list_tasks(
        &self,
        params: Parameters<TaskFilter>,
    ) -> Result<CallToolResult, ErrorData> {
        self.book.list(params)
    }

    #[tool(
        description = "Find the tasks whose title or notes hold the query.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn search_tasks(&self, params: Parameters<Search>) -> Result<CallToolResult, ErrorData> {
        self.book.search(params)
    }

    #[tool(
        description = "Fetch one task by its id.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn get_task(&self, params: Parameters<TaskId>) -> Result<CallToolResult, ErrorData> {
        self.book.get(params)
    }

    #[tool(
        description = "Set a task's priority, 1 (most urgent) to 4.",
        annotations(idempotent_hint = false, open_world_hint = false)
    )]
    async fn set_priority(
        &self,
        params: Parameters<NewPriority>,
    ) -> Result<CallToolResult, ErrorData> {
        self.book.set_priority(params)
    }

    #[tool(
        description = "Mark a task done.",
        annotations(idempotent_hint = false, open_world_hint = false)
    )]
    async fn complete_task(&self, params: Parameters<TaskId>) -> Result<CallToolResult, ErrorData> {
        self.book.complete(params)
    }

    #[tool(
        description = "Delete a task.",
        annotations(
            destructive_hint = true,
            idempotent_hint = false,
            open_world_hint = false
        )
    )]
    async fn delete_task(&self, params: Parameters<TaskId>) -> Result<CallToolResult, ErrorData> {
        self.book.delete(params)
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Tasks {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}
