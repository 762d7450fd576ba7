//! mcp-light's tools composed with an rmcp handler for the rest of MCP,
//! behind rmcp's own client.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use mcp_light::prelude::*;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    ArgumentInfo, CallToolRequest, CallToolRequestParams, CancelTaskParams,
    CancelledNotificationParam, ClientCapabilities, ClientConfig, ClientRequest,
    CompleteRequestParams, CompleteResult, CompletionInfo, DetailedTask, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, GetSkillRequestParams, GetSkillResult, GetTaskParams,
    GetTaskResult, Implementation, InitializeRequestParams, InitializeResult, InputResponses,
    ListPromptsResult, ListResourcesResult, ListSkillsResult, NumberOrString,
    PaginatedRequestParams, ProgressNotificationParam, ProgressToken, Prompt, PromptMessage,
    ProtocolVersion, ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Reference, RequestId,
    Resource, ResourceContents, Role, ServerCapabilities, ServerConfig, Skill, SkillFrontmatter,
    SkillResources, Task, TaskPayload, TaskStatus, UpdateTaskParams,
};
use rmcp::service::{
    NotificationContext, PeerRequestOptions, RequestContext, RoleClient, RoleServer, RunningService,
};
use serde_json::json;

use crate::fixtures::connect;

/// Prompts, one resource and completions, written with rmcp.
#[derive(Clone)]
struct Library;

impl ServerHandler for Library {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_prompts()
            .enable_resources()
            .enable_completions()
            .build();
        let mut info = ServerConfig::new(capabilities);
        info.instructions = Some("Ask the librarian.".to_owned());
        info
    }

    async fn list_prompts(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, rmcp::ErrorData> {
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            "summarize",
            Some("Summarize a book"),
            None,
        )]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, rmcp::ErrorData> {
        let text = format!("Summarize {}.", request.name);
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]).into())
    }

    async fn list_resources(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, rmcp::ErrorData> {
        let shelf = Resource::new("library://shelf", "shelf");
        Ok(ListResourcesResult::with_all_items(vec![shelf]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, rmcp::ErrorData> {
        match request.uri.as_str() {
            "library://shelf" => Ok(ReadResourceResult::new(vec![ResourceContents::text(
                "three books",
                "library://shelf",
            )])
            .into()),
            other => Err(rmcp::ErrorData::resource_not_found(
                format!("no resource {other}"),
                None,
            )),
        }
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, rmcp::ErrorData> {
        let values = ["dune", "dracula"]
            .into_iter()
            .filter(|title| title.starts_with(&request.argument.value))
            .map(str::to_owned)
            .collect();
        Ok(CompleteResult::new(CompletionInfo::new(values).unwrap()))
    }
}

/// Counts the books on the shelf.
#[mcp_tool]
fn compose_count_books() -> u32 {
    3
}

#[tokio::test]
async fn the_handler_answers_everything_but_tools_and_capabilities_are_merged() {
    let server = crate::fixtures::linked()
        .with_implementation("library", "1.2.3")
        .with_handler(Library)
        .build()
        .unwrap();
    let client = connect(server).await;

    let info = client.peer_info().expect("the server introduced itself");
    assert!(info.capabilities.tools.is_some(), "{info:?}");
    assert!(info.capabilities.prompts.is_some(), "{info:?}");
    assert!(info.capabilities.resources.is_some(), "{info:?}");
    assert!(info.capabilities.completions.is_some(), "{info:?}");
    assert_eq!(info.server_info.as_ref().unwrap().name, "library");
    assert_eq!(info.instructions.as_deref(), Some("Ask the librarian."));

    let tools = client.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|t| t.name == "compose_count_books"));
    let count = client
        .call_tool(CallToolRequestParams::new("compose_count_books"))
        .await
        .unwrap();
    assert_eq!(count.structured_content, Some(json!({"result": 3})));

    let prompts = client.list_prompts(None).await.unwrap();
    assert_eq!(prompts.prompts[0].name, "summarize");
    let prompt = client
        .get_prompt(GetPromptRequestParams::new("summarize"))
        .await
        .unwrap();
    assert_eq!(
        prompt.messages[0].content.as_text().unwrap().text,
        "Summarize summarize."
    );

    let resources = client.list_all_resources().await.unwrap();
    assert_eq!(resources[0].uri, "library://shelf");
    let shelf = client
        .read_resource(ReadResourceRequestParams::new("library://shelf"))
        .await
        .unwrap();
    assert_eq!(
        shelf.contents[0],
        ResourceContents::text("three books", "library://shelf")
    );
    assert!(
        client
            .read_resource(ReadResourceRequestParams::new("library://attic"))
            .await
            .is_err()
    );

    let completed = client
        .complete(CompleteRequestParams::new(
            Reference::for_prompt("summarize"),
            ArgumentInfo::new("title", "dr"),
        ))
        .await
        .unwrap();
    assert_eq!(completed.completion.values, ["dracula"]);
}

#[tokio::test]
async fn a_server_without_a_handler_has_tools_only() {
    let client = connect(crate::fixtures::linked().build().unwrap()).await;
    let info = client.peer_info().unwrap();
    assert!(info.capabilities.tools.is_some());
    assert!(info.capabilities.prompts.is_none(), "{info:?}");
    // With the `apps` feature, the viewer is a resource.
    assert_eq!(
        info.capabilities.resources.is_some(),
        cfg!(feature = "apps"),
        "{info:?}"
    );
    assert!(client.list_prompts(None).await.is_err());
    assert!(
        client
            .read_resource(ReadResourceRequestParams::new("library://shelf"))
            .await
            .is_err()
    );
}

// ---- everything the handler announces is its to answer ------------------

const SKILL: &str = "skill://triage/SKILL.md";
const SKILL_DIRECTORY: &str = "skill://triage/";

/// What [`Archive`] heard of the session.
#[derive(Default)]
struct Heard {
    /// The client that introduced itself in `initialize`.
    introduced: Option<String>,
    progress: Vec<ProgressToken>,
    cancelled: Vec<Option<RequestId>>,
    updated_tasks: Vec<String>,
    cancelled_tasks: Vec<String>,
}

/// Skills served as resources, the skill's directory, and tasks, written
/// with rmcp; it notes what the client tells it.
#[derive(Clone, Default)]
struct Archive {
    heard: Arc<Mutex<Heard>>,
}

impl Archive {
    fn heard(&self) -> std::sync::MutexGuard<'_, Heard> {
        self.heard.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn skill() -> Skill {
        let about = SkillFrontmatter::new("triage", "Triage the open alerts.");
        Skill::new(SKILL, about, SkillResources::Dynamic)
    }
}

impl ServerHandler for Archive {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_resources()
            .enable_skills_with_directory_read()
            .enable_tasks()
            .build();
        ServerConfig::new(capabilities)
    }

    /// Notes who the client is, then answers as rmcp would.
    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, rmcp::ErrorData> {
        self.heard().introduced = Some(request.client_info.name.clone());
        context.peer.set_peer_info(request.clone());
        self.negotiate_initialize(&request)
    }

    async fn list_skills(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, rmcp::ErrorData> {
        Ok(ListSkillsResult::with_all_items(vec![Self::skill()]))
    }

    async fn get_skill(
        &self,
        request: GetSkillRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, rmcp::ErrorData> {
        match request.uri.as_str() {
            SKILL => Ok(GetSkillResult::new(Self::skill())),
            other => Err(rmcp::ErrorData::invalid_params(
                format!("no skill at {other}"),
                None,
            )),
        }
    }

    async fn read_resource_directory(
        &self,
        request: ReadResourceDirectoryRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, rmcp::ErrorData> {
        match request.uri.as_str() {
            SKILL_DIRECTORY => Ok(ListResourcesResult::with_all_items(vec![Resource::new(
                SKILL, "SKILL.md",
            )])),
            other => Err(rmcp::ErrorData::invalid_params(
                format!("{other} is not a directory"),
                None,
            )),
        }
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        _: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, rmcp::ErrorData> {
        let at = "2026-01-01T00:00:00Z";
        let task = Task::new(request.task_id, TaskStatus::Working, at, at);
        Ok(GetTaskResult::new(DetailedTask::new(
            task,
            TaskPayload::Working,
        )))
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        _: RequestContext<RoleServer>,
    ) -> Result<(), rmcp::ErrorData> {
        self.heard().updated_tasks.push(request.task_id);
        Ok(())
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        _: RequestContext<RoleServer>,
    ) -> Result<(), rmcp::ErrorData> {
        self.heard().cancelled_tasks.push(request.task_id);
        Ok(())
    }

    async fn on_progress(
        &self,
        notification: ProgressNotificationParam,
        _: NotificationContext<RoleServer>,
    ) {
        self.heard().progress.push(notification.progress_token);
    }

    async fn on_cancelled(
        &self,
        notification: CancelledNotificationParam,
        _: NotificationContext<RoleServer>,
    ) {
        self.heard().cancelled.push(notification.request_id);
    }
}

/// A client that takes part in tasks.
fn task_client() -> ClientConfig {
    ClientConfig::new(
        ClientCapabilities::builder().enable_tasks().build(),
        Implementation::new("archivist", "1.0.0"),
    )
}

/// `client` connected to `server`, on 2025-11-25 (`initialize`) or
/// 2026-07-28 (`server/discover`).
async fn connect_as(
    server: Server,
    client: ClientConfig,
    version: ProtocolVersion,
) -> RunningService<RoleClient, ClientConfig> {
    let client_io = crate::fixtures::pipe(server.into_handler(mcp_light::Caller::Process));
    let lifecycle = crate::fixtures::lifecycle(version);
    rmcp::ClientServiceExt::serve_with_lifecycle(client, client_io, lifecycle)
        .await
        .expect("the client connects")
}

/// Waits a few seconds at most for `done` to hold: a notification is
/// heard on a task of the server's own.
async fn eventually(mut done: impl FnMut() -> bool) -> bool {
    for _ in 0..500 {
        if done() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    done()
}

#[tokio::test]
async fn the_handlers_skills_directories_and_tasks_are_answered_by_it_on_both_protocols() {
    for version in [ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2026_07_28] {
        let archive = Archive::default();
        let server = crate::fixtures::linked()
            .with_implementation("archive", "2.0.0")
            .with_handler(archive.clone())
            .build()
            .unwrap();
        let client = connect_as(server, task_client(), version.clone()).await;

        // What the handshake announces: the handler's extensions beside
        // mcp-light's tools, under mcp-light's name.
        let info = client.peer_info().expect("the server introduced itself");
        let capabilities = &info.capabilities;
        assert!(
            capabilities.supports_directory_read(),
            "{version}: {info:?}"
        );
        assert!(capabilities.supports_tasks(), "{version}: {info:?}");
        assert!(capabilities.resources.is_some(), "{version}: {info:?}");
        assert!(capabilities.tools.is_some(), "{version}: {info:?}");
        assert_eq!(info.server_info.as_ref().unwrap().name, "archive");

        let skills = client.list_skills(None).await.expect("skills/list");
        assert_eq!(skills.skills, [Archive::skill()], "{version}");
        let skill = client
            .get_skill(GetSkillRequestParams::new(SKILL))
            .await
            .expect("skills/get");
        assert_eq!(skill.skill, Archive::skill(), "{version}");
        let directory = client
            .read_resource_directory(ReadResourceDirectoryRequestParams::new(SKILL_DIRECTORY))
            .await
            .expect("resources/directory/read");
        assert_eq!(directory.resources[0].uri, SKILL, "{version}");

        let task = client
            .get_task(GetTaskParams::new("task-7"))
            .await
            .expect("tasks/get");
        assert_eq!(task.task.task.task_id, "task-7", "{version}");
        assert_eq!(task.task.status(), TaskStatus::Working, "{version}");
        client
            .update_task(UpdateTaskParams::new("task-7", InputResponses::new()))
            .await
            .expect("tasks/update");
        client
            .cancel_task(CancelTaskParams::new("task-7"))
            .await
            .expect("tasks/cancel");
        assert_eq!(archive.heard().updated_tasks, ["task-7"], "{version}");
        assert_eq!(archive.heard().cancelled_tasks, ["task-7"], "{version}");
    }
}

#[tokio::test]
async fn the_handlers_initialize_sees_the_client_and_its_answer_gains_the_tools() {
    let archive = Archive::default();
    let server = crate::fixtures::linked()
        .with_handler(archive.clone())
        .build()
        .unwrap();
    let client = connect_as(server, task_client(), ProtocolVersion::V_2025_11_25).await;
    assert_eq!(archive.heard().introduced.as_deref(), Some("archivist"));
    let info = client.peer_info().unwrap();
    assert!(info.capabilities.tools.is_some(), "{info:?}");
    assert!(info.capabilities.logging.is_some(), "{info:?}");
    assert!(info.capabilities.supports_skills(), "{info:?}");
    // mcp-light's name, not the one rmcp gives a server that names none.
    assert_eq!(info.server_info.as_ref().unwrap().name, "mcp-light");
}

/// What [`compose_wait_for_cancellation`] went through.
#[derive(Default)]
struct Waiting {
    started: AtomicBool,
    saw_cancellation: AtomicBool,
}

/// Waits until its call is cancelled.
// It reads its state with `ctx.state`, so that on the servers of other test
// modules, which do not register it, it answers at once instead of waiting.
#[mcp_tool]
async fn compose_wait_for_cancellation(ctx: &Context) -> Result<String, ToolError> {
    let waiting = ctx.state::<Waiting>()?;
    waiting.started.store(true, Ordering::SeqCst);
    ctx.cancelled().await;
    waiting.saw_cancellation.store(true, Ordering::SeqCst);
    Ok("cancelled".to_owned())
}

#[tokio::test]
async fn progress_and_cancellations_reach_the_handler_and_a_cancelled_tool_still_stops() {
    let archive = Archive::default();
    let waiting = Arc::new(Waiting::default());
    let server = crate::fixtures::linked()
        .with_shared_state(Arc::clone(&waiting))
        .with_handler(archive.clone())
        .build()
        .unwrap();
    let client = connect_as(server, task_client(), ProtocolVersion::V_2025_11_25).await;

    let token = ProgressToken(NumberOrString::String("upload-1".into()));
    client
        .notify_progress(ProgressNotificationParam::new(token.clone(), 0.5))
        .await
        .unwrap();
    assert!(
        eventually(|| archive.heard().progress == [token.clone()]).await,
        "the handler heard no progress"
    );

    let call = CallToolRequest::new(CallToolRequestParams::new("compose_wait_for_cancellation"));
    let handle = client
        .send_request_with_option(
            ClientRequest::CallToolRequest(call),
            PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    let id = handle.id.clone();
    assert!(
        eventually(|| waiting.started.load(Ordering::SeqCst)).await,
        "the tool never started"
    );
    handle.cancel(Some("changed my mind".into())).await.unwrap();
    assert!(
        eventually(|| waiting.saw_cancellation.load(Ordering::SeqCst)).await,
        "the tool never saw its call cancelled"
    );
    assert!(
        eventually(|| archive.heard().cancelled == [Some(id.clone())]).await,
        "the handler heard {:?}, not the cancellation of {id:?}",
        archive.heard().cancelled
    );
}
