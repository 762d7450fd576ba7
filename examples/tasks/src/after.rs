//! The task manager moved to mcp-light by changing attributes: the list a
//! heavy read, the writes lean ones, the author's annotations kept, and
//! every method's body as it was.

use std::sync::Arc;

use mcp_light::prelude::*;
use rmcp::ErrorData;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::CallToolResult;

use crate::book::{NewPriority, NewTask, Search, TaskBook, TaskFilter, TaskId};

/// The task manager, served by mcp-light: the state its tools share.
#[derive(Clone)]
pub struct Tasks {
    book: Arc<TaskBook>,
}

#[mcp_tools]
impl Tasks {
    /// The server over `book`.
    pub fn new(book: TaskBook) -> Self {
        Self {
            book: Arc::new(book),
        }
    }

    #[mcp_light(
        create,
        resource = "task",
        retrieve = Self::get_task,
        description = "Create a task.",
        annotations(idempotent_hint = false, open_world_hint = false)
    )]
    async fn create_task(&self, params: Parameters<NewTask>) -> Result<CallToolResult, ErrorData> {
        self.book.create(params)
    }

    #[mcp_heavy(
        description = "List the tasks, open or done.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn list_tasks(
        &self,
        params: Parameters<TaskFilter>,
    ) -> Result<CallToolResult, ErrorData> {
        self.book.list(params)
    }

    #[mcp_heavy(
        description = "Find the tasks whose title or notes hold the query.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn search_tasks(&self, params: Parameters<Search>) -> Result<CallToolResult, ErrorData> {
        self.book.search(params)
    }

    #[mcp_tool(
        resource = "task",
        action = "retrieve",
        description = "Fetch one task by its id.",
        annotations(read_only_hint = true, open_world_hint = false)
    )]
    async fn get_task(&self, params: Parameters<TaskId>) -> Result<CallToolResult, ErrorData> {
        self.book.get(params)
    }

    #[mcp_light(
        update,
        resource = "task",
        retrieve = Self::get_task,
        description = "Set a task's priority, 1 (most urgent) to 4.",
        annotations(idempotent_hint = false, open_world_hint = false)
    )]
    async fn set_priority(
        &self,
        params: Parameters<NewPriority>,
    ) -> Result<CallToolResult, ErrorData> {
        self.book.set_priority(params)
    }

    #[mcp_light(
        update,
        resource = "task",
        retrieve = Self::get_task,
        description = "Mark a task done.",
        annotations(idempotent_hint = false, open_world_hint = false)
    )]
    async fn complete_task(&self, params: Parameters<TaskId>) -> Result<CallToolResult, ErrorData> {
        self.book.complete(params)
    }

    #[mcp_light(
        destroy,
        resource = "task",
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
