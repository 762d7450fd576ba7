//! mcp-light's tools composed with an rmcp handler for the rest of MCP,
//! behind rmcp's own client.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use mcp_light::CallToolResult;
use mcp_light::prelude::*;
use rmcp::handler::server::ServerHandler;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
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
use rmcp::model::{JsonObject, ListToolsResult, Tool};
use rmcp::service::{
    NotificationContext, PeerRequestOptions, RequestContext, RoleClient, RoleServer, RunningService,
};
use rmcp::{tool, tool_handler, tool_router};
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

// ---- an rmcp `#[tool_router]` server's tools, served beside mcp-light's --

/// What `legacy_echo` takes.
#[derive(Debug, Deserialize, JsonSchema)]
struct EchoArgs {
    /// The text to answer.
    text: String,
}

/// What `legacy_sum` takes.
#[derive(Debug, Deserialize, JsonSchema)]
struct SumArgs {
    a: i64,
    b: i64,
}

/// Two tools not ported yet, in rmcp's own router.
#[derive(Clone)]
struct Legacy {
    tool_router: ToolRouter<Legacy>,
}

#[tool_router]
impl Legacy {
    fn new() -> Legacy {
        Legacy {
            tool_router: Self::tool_router(),
        }
    }

    #[tool(description = "Answers its text")]
    fn legacy_echo(&self, Parameters(EchoArgs { text }): Parameters<EchoArgs>) -> String {
        text
    }

    #[tool(description = "Adds two numbers")]
    fn legacy_sum(&self, Parameters(SumArgs { a, b }): Parameters<SumArgs>) -> String {
        (a + b).to_string()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Legacy {}

/// One tool of rmcp's router under the name of an mcp-light tool.
#[derive(Clone)]
struct Clashing {
    tool_router: ToolRouter<Clashing>,
}

#[tool_router]
impl Clashing {
    fn new() -> Clashing {
        Clashing {
            tool_router: Self::tool_router(),
        }
    }

    #[tool(description = "Counts the books again")]
    fn compose_count_books(&self) -> String {
        "4".to_owned()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Clashing {}

/// A handler that lists the name of an mcp-light tool but whose
/// `get_tool` knows nothing: rmcp's default.
#[derive(Clone)]
struct Undescribed;

impl ServerHandler for Undescribed {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, rmcp::ErrorData> {
        let tool = Tool::new("compose_count_books", "counts", Arc::new(JsonObject::new()));
        Ok(ListToolsResult::with_all_items(vec![tool]))
    }
}

/// mcp-light's `compose_count_books` beside [`Legacy`].
pub(crate) fn beside_legacy() -> Server {
    Server::from_tools(tools![compose_count_books])
        .with_handler(Legacy::new())
        .build()
        .unwrap()
}

/// The text of a call's first content.
fn text(result: &CallToolResult) -> &str {
    &result.content[0].as_text().expect("text content").text
}

#[tokio::test]
async fn a_tool_routers_tools_are_listed_after_mcp_lights_and_each_call_reaches_its_server() {
    let client = connect(beside_legacy()).await;
    let info = client.peer_info().unwrap();
    assert!(info.capabilities.tools.is_some(), "{info:?}");

    let tools = client.list_all_tools().await.unwrap();
    let names: Vec<_> = tools.iter().map(|tool| &*tool.name).collect();
    assert_eq!(names, ["compose_count_books", "legacy_echo", "legacy_sum"]);
    // The handler's, exactly as its router lists them.
    assert_eq!(tools[1..], Legacy::new().tool_router.list_all());

    let count = client
        .call_tool(CallToolRequestParams::new("compose_count_books"))
        .await
        .unwrap();
    assert_eq!(count.structured_content, Some(json!({"result": 3})));
    let echo = client
        .call_tool(
            CallToolRequestParams::new("legacy_echo")
                .with_arguments(json!({"text": "hello"}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_eq!((text(&echo), echo.is_error), ("hello", Some(false)));
    let sum = client
        .call_tool(
            CallToolRequestParams::new("legacy_sum")
                .with_arguments(json!({"a": 2, "b": 40}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_eq!(text(&sum), "42");
    // The handler's own refusal of its arguments comes back as it sent it.
    let refused = client
        .call_tool(CallToolRequestParams::new("legacy_sum"))
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true));
    assert!(
        !text(&refused).contains("compose_count_books"),
        "{refused:?}"
    );

    // A name neither serves: mcp-light's answer, which names the handler.
    let unknown = client
        .call_tool(CallToolRequestParams::new("legacy_product"))
        .await
        .unwrap();
    assert_eq!(unknown.is_error, Some(true));
    let message = text(&unknown);
    assert!(
        message.starts_with("unknown tool `legacy_product`"),
        "{message}"
    );
    assert!(message.contains("compose_count_books"), "{message}");
    assert!(
        message.contains("the handler composed with `with_handler`"),
        "{message}"
    );
}

#[tokio::test]
async fn a_handlers_tools_are_served_on_2026_07_28_too() {
    let client = connect_as(
        beside_legacy(),
        task_client(),
        ProtocolVersion::V_2026_07_28,
    )
    .await;
    let names: Vec<_> = client
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|tool| tool.name)
        .collect();
    assert_eq!(names, ["compose_count_books", "legacy_echo", "legacy_sum"]);
    let echo = client
        .call_tool(
            CallToolRequestParams::new("legacy_echo")
                .with_arguments(json!({"text": "stateless"}).as_object().unwrap().clone()),
        )
        .await
        .unwrap();
    assert_eq!(text(&echo), "stateless");
}

#[test]
fn a_name_both_serve_is_refused_when_the_server_is_built_naming_both() {
    let refused = Server::from_tools(tools![compose_count_books])
        .with_handler(Clashing::new())
        .build()
        .unwrap_err();
    let message = refused.to_string();
    assert!(message.contains("`compose_count_books`"), "{message}");
    assert!(
        message.contains("compose::compose_count_books"),
        "the function's path: {message}"
    );
    assert!(
        message.contains("the handler composed with `with_handler`"),
        "{message}"
    );
    assert!(message.contains("rename one"), "the fix: {message}");
    // The same name is free beside a handler that does not advertise
    // tools: its tools are not served.
    Server::from_tools(tools![compose_count_books])
        .with_handler(Library)
        .build()
        .unwrap();
}

#[test]
fn a_dispatchers_name_is_refused_too() {
    let refused = Server::from_tools(tools![compose_count_books])
        .with_dispatcher("legacy_echo")
        .with_handler(Legacy::new())
        .build()
        .unwrap_err()
        .to_string();
    assert!(refused.contains("`legacy_echo`"), "{refused}");
    assert!(
        refused.contains("ServerBuilder::with_dispatcher(\"legacy_echo\")"),
        "{refused}"
    );
}

#[tokio::test]
async fn a_name_only_the_handlers_list_shows_is_refused_by_tools_list_with_the_same_sentence() {
    let server = Server::from_tools(tools![compose_count_books])
        .with_handler(Undescribed)
        .build()
        .expect("its get_tool says nothing, so nothing is known to clash");
    let client = connect(server).await;
    let refused = client.list_all_tools().await.unwrap_err().to_string();
    let at_build = Server::from_tools(tools![compose_count_books])
        .with_handler(Clashing::new())
        .build()
        .unwrap_err()
        .to_string();
    assert!(refused.contains(&at_build), "{refused}\nvs\n{at_build}");
    // mcp-light's tool is still served, and a name the handler's
    // `get_tool` does not know is not handed to it.
    let count = client
        .call_tool(CallToolRequestParams::new("compose_count_books"))
        .await
        .unwrap();
    assert_eq!(count.structured_content, Some(json!({"result": 3})));
}

#[tokio::test]
async fn server_call_says_a_handlers_tool_is_reached_over_mcp() {
    let server = beside_legacy();
    let refused = server
        .call("legacy_echo", json!({"text": "hi"}), Caller::Process)
        .await;
    assert_eq!(refused.is_error, Some(true));
    let message = text(&refused);
    assert!(
        message.starts_with(
            "`legacy_echo` is a tool of the handler composed with `with_handler`, which answers \
             its calls over MCP only"
        ),
        "{message}"
    );
    let count = server
        .call("compose_count_books", json!({}), Caller::Process)
        .await;
    assert_eq!(count.structured_content, Some(json!({"result": 3})));
}

#[cfg(feature = "http")]
#[tokio::test]
async fn a_handlers_tools_are_served_over_streamable_http() {
    use crate::raw_http::{INITIALIZE, post, serve};

    let served = serve(beside_legacy(), mcp_light::transport::HttpOptions::new()).await;
    // A 2025-era session, whose calls' arguments the HTTP guard takes out
    // of the body before rmcp reads it.
    let opened = post(served.addr, INITIALIZE, &[]).await;
    let session = opened
        .header("mcp-session-id")
        .expect("a session")
        .to_owned();
    let in_session = [
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-06-18"),
    ];
    let initialized = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    assert_eq!(
        post(served.addr, initialized, &in_session).await.status,
        202
    );
    let list = r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#;
    let listed = post(served.addr, list, &in_session)
        .await
        .message(2)
        .unwrap();
    let names: Vec<_> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["compose_count_books", "legacy_echo", "legacy_sum"]);
    let call = r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"legacy_sum","arguments":{"a":40,"b":2}}}"#;
    let sum = post(served.addr, call, &in_session)
        .await
        .message(3)
        .unwrap();
    assert_eq!(sum["result"]["content"][0]["text"], "42", "{sum}");

    // A 2026-07-28 request, on its own.
    let call = json!({
        "jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {
            "name": "legacy_echo", "arguments": {"text": "over HTTP"},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    })
    .to_string();
    let headers = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "legacy_echo"),
    ];
    let echo = post(served.addr, &call, &headers).await;
    assert_eq!(echo.status, 200, "{}", echo.text());
    let echo = echo.message(4).unwrap();
    assert_eq!(echo["result"]["content"][0]["text"], "over HTTP", "{echo}");
}

/// A tool of rmcp's router under the name of one of the viewer's tools.
#[cfg(feature = "apps")]
#[derive(Clone)]
struct Paging {
    tool_router: ToolRouter<Paging>,
}

#[cfg(feature = "apps")]
#[tool_router]
impl Paging {
    #[tool(description = "Pages something else")]
    fn view_page(&self) -> String {
        "a page".to_owned()
    }
}

#[cfg(feature = "apps")]
#[tool_handler(router = self.tool_router)]
impl ServerHandler for Paging {}

#[cfg(feature = "apps")]
#[test]
fn a_name_of_the_viewers_tools_is_refused_too() {
    let paging = Paging {
        tool_router: Paging::tool_router(),
    };
    let refused = Server::from_tools(tools![compose_count_books])
        .with_handler(paging)
        .build()
        .unwrap_err()
        .to_string();
    assert!(refused.contains("`view_page`"), "{refused}");
    assert!(refused.contains("the MCP Apps viewer"), "{refused}");
}

/// A record store written for rmcp, whose tools answer everything at once.
#[derive(Clone)]
struct Records {
    tool_router: ToolRouter<Records>,
}

/// How many records to answer.
#[derive(serde::Deserialize, serde::Serialize, schemars::JsonSchema)]
struct Count {
    count: usize,
}

/// One record as the records room answers it.
fn record(n: usize) -> serde_json::Value {
    json!({"id": n, "shelf": format!("shelf-{}", n % 4), "note": "kept in the records room since the flood"})
}

#[tool_router]
impl Records {
    fn new() -> Records {
        Records {
            tool_router: Self::tool_router(),
        }
    }

    #[tool(description = "Lists records, as structured content")]
    fn records_list(&self, Parameters(Count { count }): Parameters<Count>) -> CallToolResult {
        let records: Vec<_> = (1..=count).map(record).collect();
        let mut result = CallToolResult::success(vec![Content::text(format!("{count} records"))]);
        result.structured_content = Some(json!({ "records": records }));
        result
    }

    #[tool(description = "How many records there are, with an output schema")]
    fn records_total(&self) -> rmcp::handler::server::wrapper::Json<Count> {
        rmcp::handler::server::wrapper::Json(Count { count: 1_000 })
    }

    #[tool(description = "The records room's log, as plain text")]
    fn records_log(&self, Parameters(Count { count }): Parameters<Count>) -> String {
        (1..=count)
            .map(|n| format!("line {n}: a record was filed\n"))
            .collect()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Records {}

fn call_params(tool: &'static str, args: serde_json::Value) -> CallToolRequestParams {
    CallToolRequestParams::new(tool).with_arguments(args.as_object().unwrap().clone())
}

#[tokio::test]
async fn a_kept_handlers_large_answers_answer_a_probe_whose_token_pages_them_back() {
    let kept = Server::from_tools(tools![compose_count_books])
        .with_handler(Records::new())
        .with_handler_tools(mcp_light::HandlerTools::Kept)
        .build()
        .unwrap();
    let client = connect(kept).await;
    let as_answered = connect(
        Server::from_tools(tools![compose_count_books])
            .with_handler(Records::new())
            .build()
            .unwrap(),
    )
    .await;

    // Each of the handler's tools publishes the token's slot, beside its
    // own arguments; as answered, the list is the handler's own.
    let tools = client.list_all_tools().await.unwrap();
    let list = tools
        .iter()
        .find(|tool| tool.name == "records_list")
        .unwrap();
    let properties = list.input_schema["properties"].as_object().unwrap();
    assert!(properties.contains_key("count") && properties.contains_key("continuation_token"));
    assert_eq!(
        as_answered.list_all_tools().await.unwrap()[1..],
        Records::new().tool_router.list_all()
    );
    // A probe would not match the handler's output schema: a kept tool
    // publishes none.
    let total = |tools: &[Tool]| {
        let tool = tools
            .iter()
            .find(|tool| tool.name == "records_total")
            .unwrap();
        tool.output_schema.is_some()
    };
    assert!(total(&Records::new().tool_router.list_all()));
    assert!(!total(&tools));

    // An answer that fits passes as the handler gave it.
    let small = call_params("records_list", json!({"count": 3}));
    let direct = as_answered.call_tool(small.clone()).await.unwrap();
    assert_eq!(client.call_tool(small).await.unwrap(), direct);

    // A large one answers a probe; its pages join into the handler's list.
    let large = call_params("records_list", json!({"count": 1_000}));
    let whole = as_answered.call_tool(large.clone()).await.unwrap();
    let whole = whole.structured_content.unwrap()["records"].clone();
    let probe = client.call_tool(large).await.unwrap();
    let probe = probe.structured_content.unwrap();
    let token = probe["continuation_token"]
        .as_str()
        .expect("a token")
        .to_owned();
    assert!(probe.to_string().len() < 2_000, "{probe}");
    let mut paged = Vec::new();
    for page in 1..=100 {
        let asked = json!({"continuation_token": token, "page": page});
        let answer = client
            .call_tool(call_params("records_list", asked))
            .await
            .unwrap();
        let answer = answer.structured_content.unwrap();
        paged.extend(answer["items"].as_array().unwrap().iter().cloned());
        if answer["has_more"] == false {
            break;
        }
    }
    assert_eq!(serde_json::Value::Array(paged), whole);

    // The summary counts the shelves without reading a page.
    let summary = json!({"continuation_token": token, "mode": "summary"});
    let summary = client
        .call_tool(call_params("records_list", summary))
        .await
        .unwrap();
    let summary = summary.structured_content.unwrap();
    assert_eq!(
        summary["list"]["fields"]["shelf"]["values"],
        json!({"shelf-1": 250, "shelf-2": 250, "shelf-3": 250, "shelf-0": 250}),
        "{summary}"
    );

    // The token is the tool's: another tool's name refuses it.
    let elsewhere = json!({"continuation_token": token, "count": 1});
    let refused = client
        .call_tool(call_params("records_log", elsewhere))
        .await
        .unwrap();
    assert_eq!(refused.is_error, Some(true), "{refused:?}");

    // Plain text too large is kept in pieces, a line each, whose pages join
    // back into the text; a mode without a token is refused, naming the fix.
    let log_call = call_params("records_log", json!({"count": 2_000}));
    let direct_log = as_answered.call_tool(log_call.clone()).await.unwrap();
    let log = client.call_tool(log_call).await.unwrap();
    let log = log.structured_content.unwrap();
    let token = log["continuation_token"]
        .as_str()
        .expect("a token")
        .to_owned();
    let mut text = String::new();
    for page in 1..=100 {
        let asked = json!({"continuation_token": token, "page": page, "count": 0});
        let answer = client
            .call_tool(call_params("records_log", asked))
            .await
            .unwrap();
        let answer = answer.structured_content.unwrap();
        for piece in answer["items"].as_array().unwrap() {
            text.push_str(piece.as_str().unwrap());
        }
        if answer["has_more"] == false {
            break;
        }
    }
    assert_eq!(text, direct_log.content[0].as_text().unwrap().text);
    let moded = client
        .call_tool(call_params(
            "records_log",
            json!({"count": 1, "mode": "full"}),
        ))
        .await
        .unwrap();
    assert_eq!(moded.is_error, Some(true), "{moded:?}");
}
