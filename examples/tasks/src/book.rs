//! The tasks, kept one JSON object a line in a file, and the handlers
//! that answer each tool: each builds its own `CallToolResult`, a short
//! line of text beside the result as `structured_content`.

use std::fs::{self, File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rmcp::ErrorData;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock as Content};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

/// A task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Task {
    pub id: u64,
    pub title: String,
    /// 1 (most urgent) to 4.
    pub priority: u8,
    pub done: bool,
    pub notes: String,
}

/// A task to create.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NewTask {
    /// What is to be done.
    pub title: String,
    /// 1 (most urgent) to 4; 3 when left out.
    #[serde(default = "default_priority")]
    pub priority: u8,
    /// Anything worth knowing.
    #[serde(default)]
    pub notes: String,
}

fn default_priority() -> u8 {
    3
}

/// Which task.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct TaskId {
    /// The task's id.
    pub id: u64,
}

/// A task's new priority.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NewPriority {
    /// The task's id.
    pub id: u64,
    /// 1 (most urgent) to 4.
    pub priority: u8,
}

/// Which tasks to list.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct TaskFilter {
    /// Only the tasks done (true) or open (false).
    pub done: Option<bool>,
}

/// What to search for.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct Search {
    /// Words looked for in the titles and notes, case ignored.
    pub query: String,
}

/// The tasks and the file they are kept in.
#[derive(Debug)]
pub struct TaskBook {
    path: PathBuf,
    /// Held while the file is read or written.
    lock: Mutex<()>,
}

impl TaskBook {
    /// The tasks kept in `path`, which is made empty when missing.
    pub fn open(path: impl AsRef<Path>) -> std::io::Result<TaskBook> {
        let path = path.as_ref().to_owned();
        if !path.exists() {
            File::create(&path)?;
        }
        Ok(TaskBook {
            path,
            lock: Mutex::new(()),
        })
    }

    /// Every task, in the order created.
    pub fn tasks(&self) -> Result<Vec<Task>, ErrorData> {
        let _held = self
            .lock
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        self.read()
    }

    fn read(&self) -> Result<Vec<Task>, ErrorData> {
        let file = File::open(&self.path).map_err(internal)?;
        BufReader::new(file)
            .lines()
            .map(|line| serde_json::from_str(&line.map_err(internal)?).map_err(internal))
            .collect()
    }

    fn write(&self, tasks: &[Task]) -> Result<(), ErrorData> {
        let partial = self.path.with_extension("jsonl.partial");
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&partial)
            .map_err(internal)?;
        for task in tasks {
            let line = serde_json::to_string(task).map_err(internal)?;
            writeln!(file, "{line}").map_err(internal)?;
        }
        file.sync_all().map_err(internal)?;
        fs::rename(&partial, &self.path).map_err(internal)
    }

    /// Changes the task `id` with `change`, and answers it changed.
    fn change(&self, id: u64, change: impl FnOnce(&mut Task)) -> Result<Task, ErrorData> {
        let _held = self
            .lock
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut tasks = self.read()?;
        let task = tasks
            .iter_mut()
            .find(|task| task.id == id)
            .ok_or_else(|| ErrorData::invalid_params(format!("no task has the id {id}"), None))?;
        change(task);
        let task = task.clone();
        self.write(&tasks)?;
        Ok(task)
    }

    /// `create_task`.
    pub fn create(
        &self,
        Parameters(new): Parameters<NewTask>,
    ) -> Result<CallToolResult, ErrorData> {
        check_priority(new.priority)?;
        let _held = self
            .lock
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut tasks = self.read()?;
        let task = Task {
            id: tasks.last().map_or(1, |last| last.id + 1),
            title: new.title,
            priority: new.priority,
            done: false,
            notes: new.notes,
        };
        tasks.push(task.clone());
        self.write(&tasks)?;
        let mut result =
            CallToolResult::success(vec![Content::text(format!("Created task {}", task.id))]);
        result.structured_content = Some(json!(task));
        Ok(result)
    }

    /// `list_tasks`.
    pub fn list(
        &self,
        Parameters(filter): Parameters<TaskFilter>,
    ) -> Result<CallToolResult, ErrorData> {
        let tasks: Vec<Task> = self
            .tasks()?
            .into_iter()
            .filter(|task| filter.done.is_none_or(|done| task.done == done))
            .collect();
        let mut result =
            CallToolResult::success(vec![Content::text(format!("{} tasks", tasks.len()))]);
        result.structured_content = Some(json!({ "tasks": tasks }));
        Ok(result)
    }

    /// `search_tasks`: its result is one JSON text block, without
    /// structured content.
    pub fn search(
        &self,
        Parameters(search): Parameters<Search>,
    ) -> Result<CallToolResult, ErrorData> {
        let query = search.query.to_lowercase();
        let found: Vec<Task> = self
            .tasks()?
            .into_iter()
            .filter(|task| {
                task.title.to_lowercase().contains(&query)
                    || task.notes.to_lowercase().contains(&query)
            })
            .collect();
        let text = serde_json::to_string(&found).map_err(internal)?;
        Ok(CallToolResult::success(vec![Content::text(text)]))
    }

    /// `get_task`.
    pub fn get(
        &self,
        Parameters(TaskId { id }): Parameters<TaskId>,
    ) -> Result<CallToolResult, ErrorData> {
        match self.tasks()?.into_iter().find(|task| task.id == id) {
            Some(task) => {
                let mut result = CallToolResult::success(vec![Content::text(format!(
                    "Task {id}: {}",
                    task.title
                ))]);
                result.structured_content = Some(json!(task));
                Ok(result)
            }
            None => Ok(CallToolResult::error(vec![Content::text(format!(
                "no task has the id {id}"
            ))])),
        }
    }

    /// `set_priority`.
    pub fn set_priority(
        &self,
        Parameters(NewPriority { id, priority }): Parameters<NewPriority>,
    ) -> Result<CallToolResult, ErrorData> {
        check_priority(priority)?;
        let task = self.change(id, |task| task.priority = priority)?;
        let mut result = CallToolResult::success(vec![Content::text(format!(
            "Task {id} has priority {priority}"
        ))]);
        result.structured_content = Some(json!(task));
        Ok(result)
    }

    /// `complete_task`.
    pub fn complete(
        &self,
        Parameters(TaskId { id }): Parameters<TaskId>,
    ) -> Result<CallToolResult, ErrorData> {
        let task = self.change(id, |task| task.done = true)?;
        let mut result = CallToolResult::success(vec![Content::text(format!("Task {id} is done"))]);
        result.structured_content = Some(json!(task));
        Ok(result)
    }

    /// `delete_task`.
    pub fn delete(
        &self,
        Parameters(TaskId { id }): Parameters<TaskId>,
    ) -> Result<CallToolResult, ErrorData> {
        let _held = self
            .lock
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut tasks = self.read()?;
        let Some(at) = tasks.iter().position(|task| task.id == id) else {
            return Ok(CallToolResult::error(vec![Content::text(format!(
                "no task has the id {id}"
            ))]));
        };
        let task = tasks.remove(at);
        self.write(&tasks)?;
        let mut result = CallToolResult::success(vec![Content::text(format!("Deleted task {id}"))]);
        result.structured_content = Some(json!(task));
        Ok(result)
    }
}

fn check_priority(priority: u8) -> Result<(), ErrorData> {
    if (1..=4).contains(&priority) {
        Ok(())
    } else {
        Err(ErrorData::invalid_params(
            format!("priority {priority} is not one of 1, 2, 3, 4"),
            None,
        ))
    }
}

fn internal(error: impl std::fmt::Display) -> ErrorData {
    ErrorData::internal_error(error.to_string(), None)
}
