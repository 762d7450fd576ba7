//! Long calls as tasks, behind rmcp's own client on protocol 2026-07-28:
//! a call that outlasts the server's `task_after` answers a task, followed
//! with `tasks/get`, answered with `tasks/update`, stopped with
//! `tasks/cancel`; two servers on one store (memory, and a real Redis)
//! follow each other's tasks.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_light::context::Elicitation;
use mcp_light::prelude::*;
use mcp_light::store::{ContinuationStore, MemoryStore};
use mcp_light::tasks::TaskConfig;
use mcp_light::tools;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams, ClientCapabilities,
    ClientConfig, CreateTaskResult, ErrorCode, GetTaskParams, GetTaskResult, Implementation,
    InputResponses, ProtocolVersion, TaskPayload, TaskStatus, UpdateTaskParams,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceError, ServiceExt};
use serde_json::{Value, json};

// ---- the tools -----------------------------------------------------------
// Their names hold `forever` so that the arbitrary-arguments property test,
// which calls every linked tool, leaves them alone.

/// The tags of the tools the server dropped, for the cancellation tests.
static DROPPED: Mutex<Vec<String>> = Mutex::new(Vec::new());

struct DropTag(String);

impl Drop for DropTag {
    fn drop(&mut self) {
        DROPPED.lock().unwrap().push(self.0.clone());
    }
}

fn dropped(tag: &str) -> bool {
    DROPPED.lock().unwrap().iter().any(|seen| seen == tag)
}

/// Sleeps `ms` milliseconds, then answers `tag`.
#[mcp_tool(task)]
async fn tasked_forever_nap(tag: String, ms: u64) -> String {
    let _flag = DropTag(tag.clone());
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("woke {tag}")
}

/// Reports progress, then waits until cancelled.
#[mcp_tool(task)]
async fn tasked_forever_progress(ctx: &Context, tag: String) -> String {
    let _flag = DropTag(tag);
    // Progress made once the call is a task is its status message.
    tokio::time::sleep(Duration::from_millis(10)).await;
    ctx.progress(1.0, Some(4.0), Some("first quarter")).await;
    std::future::pending::<()>().await;
    "never".to_owned()
}

/// Runs only as a task.
#[mcp_tool(task = "required")]
async fn tasked_forever_required() -> String {
    tokio::time::sleep(Duration::from_millis(20)).await;
    "required done".to_owned()
}

/// Panics once it waited.
#[mcp_tool(task)]
async fn tasked_forever_panic() -> String {
    tokio::time::sleep(Duration::from_millis(20)).await;
    panic!("a bug in the task");
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Confirm {
    confirm: bool,
}

/// Waits a moment, then asks to confirm.
#[mcp_tool(task)]
async fn tasked_forever_confirm(ctx: &Context, what: String) -> Result<String, ToolError> {
    tokio::time::sleep(Duration::from_millis(20)).await;
    let answer = ctx
        .ask("confirm")
        .elicit::<Confirm>(format!("Really {what}?"))
        .await?;
    Ok(match answer {
        Elicitation::Accept(Confirm { confirm: true }) => format!("did {what}"),
        _ => format!("did not {what}"),
    })
}

/// Waits `ms`, then answers `n` rows of 200 characters: past the inline
/// budget (70 rows and more), a probe and a token; within it, the rows.
#[mcp_heavy(task)]
async fn tasked_forever_rows(n: usize, ms: u64) -> Vec<String> {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    (0..n).map(|i| format!("{i:0200}")).collect()
}

/// Waits `ms`, or until it is told it is cancelled and then `wind_down`
/// ms more: answers which came first.
#[mcp_tool(task)]
async fn tasked_forever_listening(ctx: &Context, ms: u64, wind_down: u64) -> String {
    tokio::select! {
        () = ctx.cancelled() => {
            tokio::time::sleep(Duration::from_millis(wind_down)).await;
            "told cancelled".to_owned()
        }
        () = tokio::time::sleep(Duration::from_millis(ms)) => "slept".to_owned(),
    }
}

fn task_tools() -> ServerBuilder {
    Server::from_tools(tools![
        tasked_forever_listening,
        tasked_forever_nap,
        tasked_forever_progress,
        tasked_forever_required,
        tasked_forever_panic,
        tasked_forever_confirm,
        tasked_forever_rows,
    ])
}

/// A server of the tools above on `store`; a call becomes a task when it
/// waits at all.
fn replica(store: Arc<dyn ContinuationStore>, config: TaskConfig) -> Server {
    task_tools()
        .with_shared_store(Some(store))
        .with_task_config(config)
        .build()
        .unwrap()
}

fn at_once() -> TaskConfig {
    TaskConfig::new()
        .with_after(Duration::ZERO)
        .with_poll_interval(Duration::from_millis(50))
        .with_watch_interval(Duration::from_millis(20))
}

// ---- the client ----------------------------------------------------------

/// A 2026-07-28 client that declares elicitation and, if asked, tasks.
#[derive(Clone)]
struct TaskClient {
    tasks: bool,
}

impl ClientHandler for TaskClient {
    fn get_info(&self) -> ClientConfig {
        let capabilities = if self.tasks {
            ClientCapabilities::builder()
                .enable_elicitation()
                .enable_tasks()
                .build()
        } else {
            ClientCapabilities::builder().enable_elicitation().build()
        };
        ClientConfig::new(capabilities, Implementation::new("task-test", "1"))
    }
}

type Connected = RunningService<RoleClient, TaskClient>;

async fn connect(server: &Server, caller: Caller, tasks: bool) -> Connected {
    let client_io = crate::fixtures::pipe(server.clone().into_handler(caller));
    let lifecycle = crate::fixtures::lifecycle(ProtocolVersion::V_2026_07_28);
    TaskClient { tasks }
        .serve_with_lifecycle(client_io, lifecycle)
        .await
        .expect("the client connects")
}

fn params(tool: &str, args: Value) -> CallToolRequestParams {
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    CallToolRequestParams::new(tool.to_owned()).with_arguments(args)
}

async fn call(client: &Connected, tool: &str, args: Value) -> CallToolResponse {
    client
        .call_tool_once(params(tool, args))
        .await
        .expect("tools/call answers")
}

async fn started(client: &Connected, tool: &str, args: Value) -> CreateTaskResult {
    match call(client, tool, args).await {
        CallToolResponse::Task(task) => task,
        other => panic!("a task, got {other:?}"),
    }
}

async fn get(client: &Connected, id: &str) -> GetTaskResult {
    client
        .get_task(GetTaskParams::new(id))
        .await
        .expect("tasks/get answers")
}

fn refusal(error: ServiceError) -> ErrorData {
    match error {
        ServiceError::McpError(error) => error,
        other => panic!("a JSON-RPC error, got {other:?}"),
    }
}

/// Polls `tasks/get` until the task is terminal, for 10 s at most.
async fn settled(client: &Connected, id: &str) -> GetTaskResult {
    until(client, id, |status| status.is_terminal()).await
}

async fn until(client: &Connected, id: &str, done: impl Fn(TaskStatus) -> bool) -> GetTaskResult {
    let started = Instant::now();
    loop {
        let task = get(client, id).await;
        if done(task.task.status()) {
            return task;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "task {id} stayed {:?}",
            task.task.status()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn completed(task: &GetTaskResult) -> CallToolResult {
    match &task.task.payload {
        TaskPayload::Completed { result } => {
            serde_json::from_value(Value::Object(result.clone())).unwrap()
        }
        other => panic!("a completed task, got {other:?}"),
    }
}

fn text(result: &CallToolResult) -> String {
    result.content[0].as_text().unwrap().text.clone()
}

fn json_of(result: &CallToolResult) -> Value {
    assert_eq!(result.is_error, Some(false), "{result:?}");
    serde_json::from_str(&text(result)).unwrap()
}

// ---- one server ----------------------------------------------------------

#[tokio::test]
async fn a_call_that_waits_becomes_a_task_whose_result_tasks_get_inlines() {
    let server = replica(Arc::new(MemoryStore::default()), at_once());
    let client = connect(&server, Caller::Process, true).await;
    let task = started(
        &client,
        "tasked_forever_nap",
        json!({"tag": "inline-1", "ms": 50}),
    )
    .await;
    assert_eq!(task.task.status, TaskStatus::Working);
    assert_eq!(task.task.task_id.len(), 32);
    assert_eq!(task.task.poll_interval_ms, Some(50));
    assert!(task.task.ttl_ms.is_some_and(|ttl| ttl > 0));
    // Created before the answer: a tasks/get right away finds it.
    let first = get(&client, &task.task.task_id).await;
    assert_eq!(first.task.task.task_id, task.task.task_id);
    let done = settled(&client, &task.task.task_id).await;
    assert_eq!(json_of(&completed(&done)), json!("woke inline-1"));
}

#[tokio::test]
async fn a_tasks_call_is_counted_with_the_outcome_its_task_ends_with() {
    let recorder = metrics_util::debugging::DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let _guard = metrics::set_default_local_recorder(&recorder);
    let server = replica(Arc::new(MemoryStore::default()), at_once());
    let client = connect(&server, Caller::Process, true).await;
    let task = started(&client, "tasked_forever_rows", json!({"n": 500, "ms": 30})).await;
    let rows = [("gen_ai.tool.name", "tasked_forever_rows")];
    let counted = crate::telemetry::Recorded::take(&snapshotter);
    // Answered as a task: not counted yet.
    assert_eq!(counted.counted(mcp_light::telemetry::CALLS, &rows), 0);

    let done = settled(&client, &task.task.task_id).await;
    assert!(json_of(&completed(&done))["continuation_token"].is_string());
    let counted = crate::telemetry::Recorded::take(&snapshotter);
    let probe = [rows[0], ("mcp_light.outcome", "probe")];
    assert_eq!(counted.counted(mcp_light::telemetry::CALLS, &probe), 1);
    let full = counted.counted(mcp_light::telemetry::FULL_BYTES, &rows);
    let answered = counted.counted(mcp_light::telemetry::ANSWER_BYTES, &rows);
    assert!(
        full > 100_000 && answered * 10 < full,
        "{answered} of {full}"
    );
}

#[tokio::test]
async fn a_heavy_task_within_the_inline_budget_completes_with_the_rows_counted_inline() {
    let recorder = metrics_util::debugging::DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    let _guard = metrics::set_default_local_recorder(&recorder);
    let store = Arc::new(MemoryStore::default());
    let server = replica(store.clone(), at_once());
    let client = connect(&server, Caller::Process, true).await;
    let task = started(&client, "tasked_forever_rows", json!({"n": 3, "ms": 30})).await;
    let done = settled(&client, &task.task.task_id).await;
    let rows: Vec<String> = (0..3).map(|i| format!("{i:0200}")).collect();
    assert_eq!(json_of(&completed(&done)), json!(rows));
    assert_eq!(store.len(), 0, "no result kept for a token");

    let counted = crate::telemetry::Recorded::take(&snapshotter);
    let tool = ("gen_ai.tool.name", "tasked_forever_rows");
    let inline = [tool, ("mcp_light.outcome", "inline")];
    assert_eq!(counted.counted(mcp_light::telemetry::CALLS, &inline), 1);
    let answered = counted.counted(mcp_light::telemetry::ANSWER_BYTES, &[tool]);
    assert_eq!(answered, serde_json::to_vec(&rows).unwrap().len() as u64);
    assert_eq!(
        counted.counted(mcp_light::telemetry::FULL_BYTES, &[tool]),
        answered,
        "the answer is the full result"
    );
}

#[tokio::test]
async fn a_call_that_finishes_within_task_after_is_answered_inline() {
    let config = at_once().with_after(Duration::from_secs(5));
    let server = replica(Arc::new(MemoryStore::default()), config);
    let client = connect(&server, Caller::Process, true).await;
    match call(
        &client,
        "tasked_forever_nap",
        json!({"tag": "quick", "ms": 10}),
    )
    .await
    {
        CallToolResponse::Complete(result) => {
            assert_eq!(json_of(&result), json!("woke quick"));
        }
        other => panic!("an inline result, got {other:?}"),
    }
}

#[tokio::test]
async fn a_client_without_the_extension_gets_a_plain_result_or_the_missing_capability() {
    let server = replica(Arc::new(MemoryStore::default()), at_once());
    let client = connect(&server, Caller::Process, false).await;
    match call(
        &client,
        "tasked_forever_nap",
        json!({"tag": "plain", "ms": 30}),
    )
    .await
    {
        CallToolResponse::Complete(result) => {
            assert_eq!(json_of(&result), json!("woke plain"));
        }
        other => panic!("a plain result, got {other:?}"),
    }
    let error = client
        .call_tool_once(params("tasked_forever_required", json!({})))
        .await
        .map(|_| ())
        .map_err(refusal)
        .unwrap_err();
    assert_eq!(error.code, ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY);
    assert!(
        error.message.contains("io.modelcontextprotocol/tasks"),
        "{}",
        error.message
    );
    let data = error.data.unwrap();
    assert!(
        data["requiredCapabilities"]["extensions"]["io.modelcontextprotocol/tasks"].is_object()
    );
    // And tasks/* are refused to it too.
    let error = refusal(
        client
            .get_task(GetTaskParams::new("0".repeat(32)))
            .await
            .unwrap_err(),
    );
    assert_eq!(error.code, ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY);
}

/// Tasks are offered to 2026-07-28 requests only, so only that
/// generation's handshake (`server/discover`) names the extension: the
/// 2025-11-25 `initialize` answer has no `extensions` in its capabilities'
/// schema, and none of its calls becomes a task.
#[tokio::test]
async fn only_the_2026_07_28_handshake_advertises_the_tasks_extension() {
    let server = replica(Arc::new(MemoryStore::default()), at_once());
    let discovered = connect(&server, Caller::Process, true).await;
    let info = discovered
        .peer_info()
        .expect("the server introduced itself");
    assert!(info.capabilities.supports_tasks(), "{info:?}");

    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    let handler = server.clone().into_handler(Caller::Process);
    tokio::spawn(async move {
        let running = handler.serve(server_io).await.expect("the server starts");
        let _ = running.waiting().await;
    });
    let initialized = TaskClient { tasks: true }
        .serve_with_lifecycle(client_io, ClientLifecycleMode::Initialize)
        .await
        .expect("the client connects");
    let info = initialized
        .peer_info()
        .expect("the server introduced itself");
    assert_eq!(info.protocol_version, ProtocolVersion::V_2025_11_25);
    assert!(info.capabilities.tools.is_some(), "{info:?}");
    assert_eq!(info.capabilities.extensions, None, "{info:?}");
    // Its task-capable calls are answered as any call is.
    match call(
        &initialized,
        "tasked_forever_nap",
        json!({"tag": "initialized", "ms": 30}),
    )
    .await
    {
        CallToolResponse::Complete(result) => {
            assert_eq!(json_of(&result), json!("woke initialized"));
        }
        other => panic!("a plain result, got {other:?}"),
    }
}

#[tokio::test]
async fn a_required_task_tool_through_server_call_says_it_needs_a_client() {
    let server = replica(Arc::new(MemoryStore::default()), at_once());
    let result = server
        .call("tasked_forever_required", json!({}), Caller::Process)
        .await;
    assert_eq!(result.is_error, Some(true));
    assert!(
        text(&result).contains("runs only as a task"),
        "{}",
        text(&result)
    );
}

#[tokio::test]
async fn cancel_stops_the_tool_and_the_task_settles_cancelled() {
    let server = replica(Arc::new(MemoryStore::default()), at_once());
    let client = connect(&server, Caller::Process, true).await;
    let task = started(
        &client,
        "tasked_forever_progress",
        json!({"tag": "cancel-1"}),
    )
    .await;
    let id = task.task.task_id;
    // Progress is the status message.
    let started = Instant::now();
    let message = loop {
        if let Some(message) = get(&client, &id).await.task.task.status_message {
            break message;
        }
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "no status message"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(message, "1/4: first quarter");
    client
        .cancel_task(CancelTaskParams::new(id.clone()))
        .await
        .unwrap();
    let done = settled(&client, &id).await;
    assert_eq!(done.task.status(), TaskStatus::Cancelled);
    assert!(dropped("cancel-1"));
    // Cancelling a terminal task is acknowledged the same way.
    client.cancel_task(CancelTaskParams::new(id)).await.unwrap();
}

#[tokio::test]
async fn a_call_that_became_a_task_is_not_told_cancelled_when_its_request_ends() {
    // The request that started the task is answered (with the task) at
    // once; the tool, listening for cancellation, must sleep on.
    let server = replica(Arc::new(MemoryStore::default()), at_once());
    let client = connect(&server, Caller::Process, true).await;
    let task = started(
        &client,
        "tasked_forever_listening",
        json!({"ms": 300, "wind_down": 0}),
    )
    .await;
    let done = settled(&client, &task.task.task_id).await;
    assert_eq!(done.task.status(), TaskStatus::Completed);
    assert_eq!(json_of(&completed(&done)), json!("slept"));
}

/// Starts `tasked_forever_listening` as a task on a server with `config`,
/// cancels it at once, and answers what the task settled as.
async fn listening_then_cancelled(config: TaskConfig, wind_down: u64) -> GetTaskResult {
    let server = replica(Arc::new(MemoryStore::default()), config);
    let client = connect(&server, Caller::Process, true).await;
    let task = started(
        &client,
        "tasked_forever_listening",
        json!({"ms": 60_000, "wind_down": wind_down}),
    )
    .await;
    let id = task.task.task_id;
    client
        .cancel_task(CancelTaskParams::new(id.clone()))
        .await
        .unwrap();
    settled(&client, &id).await
}

#[tokio::test]
async fn cancelling_a_task_tells_its_tool_which_may_still_end_on_its_own() {
    // Told, the tool answered within the grace it is given (1 s): what it
    // answered is the task's result.
    let done = listening_then_cancelled(at_once(), 100).await;
    assert_eq!(done.task.status(), TaskStatus::Completed);
    assert_eq!(json_of(&completed(&done)), json!("told cancelled"));
}

#[tokio::test]
async fn a_cancelled_tasks_tool_that_outlasts_its_grace_is_dropped_and_the_task_is_cancelled() {
    let config = at_once().with_cancel_grace(Duration::from_millis(50));
    let done = listening_then_cancelled(config, 2_000).await;
    assert_eq!(done.task.status(), TaskStatus::Cancelled);
}

#[tokio::test]
async fn a_panicking_task_fails_with_an_internal_error() {
    let server = replica(Arc::new(MemoryStore::default()), at_once());
    let client = connect(&server, Caller::Process, true).await;
    let task = started(&client, "tasked_forever_panic", json!({})).await;
    let done = settled(&client, &task.task.task_id).await;
    match &done.task.payload {
        TaskPayload::Failed { error } => {
            assert_eq!(error["code"], json!(-32603));
            let message = error["message"].as_str().unwrap();
            assert!(message.contains("a bug in the task"), "{message}");
        }
        other => panic!("a failed task, got {other:?}"),
    }
}

#[tokio::test]
async fn an_ask_parks_the_task_until_tasks_update_brings_the_answer() {
    let server = replica(Arc::new(MemoryStore::default()), at_once());
    let client = connect(&server, Caller::Process, true).await;
    let task = started(&client, "tasked_forever_confirm", json!({"what": "erase"})).await;
    let id = task.task.task_id;
    let parked = until(&client, &id, |status| status == TaskStatus::InputRequired).await;
    let TaskPayload::InputRequired { input_requests } = &parked.task.payload else {
        panic!("input required, got {:?}", parked.task.payload);
    };
    assert_eq!(input_requests.keys().collect::<Vec<_>>(), ["confirm"]);
    // An answer under a key never asked is acknowledged and changes nothing.
    let mut stray = InputResponses::new();
    stray.insert("unknown-key".into(), json!({"ignored": true}));
    client
        .update_task(UpdateTaskParams::new(id.clone(), stray))
        .await
        .unwrap();
    assert_eq!(
        get(&client, &id).await.task.status(),
        TaskStatus::InputRequired
    );
    let mut answers = InputResponses::new();
    answers.insert(
        "confirm".into(),
        json!({"action": "accept", "content": {"confirm": true}}),
    );
    client
        .update_task(UpdateTaskParams::new(id.clone(), answers))
        .await
        .unwrap();
    let done = settled(&client, &id).await;
    assert_eq!(json_of(&completed(&done)), json!("did erase"));
}

#[tokio::test]
async fn unknown_malformed_and_other_callers_task_ids_are_invalid_params() {
    let server = replica(Arc::new(MemoryStore::default()), at_once());
    let alice = connect(&server, Caller::Principal("alice".into()), true).await;
    let bob = connect(&server, Caller::Principal("bob".into()), true).await;
    let task = started(
        &alice,
        "tasked_forever_nap",
        json!({"tag": "alice", "ms": 20}),
    )
    .await;
    let id = task.task.task_id;
    for probe in [
        id.clone(),
        "0".repeat(32),
        "not-a-task".to_owned(),
        String::new(),
    ] {
        let error = refusal(
            bob.get_task(GetTaskParams::new(probe.clone()))
                .await
                .unwrap_err(),
        );
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{probe}");
        let error = refusal(
            bob.cancel_task(CancelTaskParams::new(probe.clone()))
                .await
                .unwrap_err(),
        );
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{probe}");
        let error = refusal(
            bob.update_task(UpdateTaskParams::new(probe.clone(), InputResponses::new()))
                .await
                .unwrap_err(),
        );
        assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{probe}");
    }
    // Its owner still sees it, and Bob's attempts did not cancel it.
    let done = settled(&alice, &id).await;
    assert_eq!(json_of(&completed(&done)), json!("woke alice"));
}

#[tokio::test]
async fn a_task_expires_after_its_ttl() {
    let config = at_once().with_ttl(Duration::from_millis(300));
    let server = replica(Arc::new(MemoryStore::default()), config);
    let client = connect(&server, Caller::Process, true).await;
    let task = started(
        &client,
        "tasked_forever_nap",
        json!({"tag": "ttl", "ms": 10}),
    )
    .await;
    assert_eq!(task.task.ttl_ms, Some(300));
    settled(&client, &task.task.task_id).await;
    tokio::time::sleep(Duration::from_millis(400)).await;
    let error = refusal(
        client
            .get_task(GetTaskParams::new(task.task.task_id))
            .await
            .unwrap_err(),
    );
    assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
}

/// Two servers on one store: a task started on `a` is followed, answered
/// and cancelled through `b`, and its result's token redeems on `b`.
async fn replicas_follow_each_other(
    store_a: Arc<dyn ContinuationStore>,
    store_b: Arc<dyn ContinuationStore>,
) {
    let a = replica(store_a, at_once());
    let b = replica(store_b, at_once());
    let on_a = connect(&a, Caller::Principal("carol".into()), true).await;
    let on_b = connect(&b, Caller::Principal("carol".into()), true).await;

    // Followed on B to completed, with a lean result whose token redeems on B.
    let task = started(&on_a, "tasked_forever_rows", json!({"n": 2000, "ms": 30})).await;
    let done = settled(&on_b, &task.task.task_id).await;
    let probe = json_of(&completed(&done));
    let token = probe["continuation_token"]
        .as_str()
        .expect("a probe with a token");
    assert!(text(&completed(&done)).len() < 2_000, "lean: {probe}");
    // The 2,000 rows (about 400 KB) are more than this client keeps: B
    // answers them a page at a time, as many as fit, to the last.
    let first = match call(
        &on_b,
        "tasked_forever_rows",
        json!({"continuation_token": token}),
    )
    .await
    {
        CallToolResponse::Complete(result) => json_of(&result),
        other => panic!("a page of the result, got {other:?}"),
    };
    assert_eq!(first["total"], 2000, "{first}");
    assert_eq!(first["page"], 1);
    assert_eq!(first["items"][0], format!("{:0200}", 0));
    let size = first["page_size"].as_u64().expect("a page size");
    let last = match call(
        &on_b,
        "tasked_forever_rows",
        json!({"continuation_token": token, "page": 2000_u64.div_ceil(size), "page_size": size}),
    )
    .await
    {
        CallToolResponse::Complete(result) => json_of(&result),
        other => panic!("the last page of the result, got {other:?}"),
    };
    assert_eq!(last["has_more"], false, "{last}");
    assert_eq!(
        last["items"].as_array().unwrap().last(),
        Some(&json!(format!("{:0200}", 1999))),
        "{last}"
    );

    // Cancelled from B, the tool on A stops.
    let tag = format!("replica-cancel-{}", task.task.task_id);
    let task = started(&on_a, "tasked_forever_progress", json!({"tag": tag})).await;
    on_b.cancel_task(CancelTaskParams::new(task.task.task_id.clone()))
        .await
        .unwrap();
    let done = settled(&on_a, &task.task.task_id).await;
    assert_eq!(done.task.status(), TaskStatus::Cancelled);
    assert!(dropped(&tag));

    // A question raised on A is answered through B.
    let task = started(&on_a, "tasked_forever_confirm", json!({"what": "move"})).await;
    let id = task.task.task_id;
    until(&on_b, &id, |status| status == TaskStatus::InputRequired).await;
    let mut answers = InputResponses::new();
    answers.insert(
        "confirm".into(),
        json!({"action": "accept", "content": {"confirm": true}}),
    );
    on_b.update_task(UpdateTaskParams::new(id.clone(), answers))
        .await
        .unwrap();
    let done = settled(&on_b, &id).await;
    assert_eq!(json_of(&completed(&done)), json!("did move"));
}

#[tokio::test]
async fn servers_sharing_a_memory_store_follow_each_other_s_tasks() {
    let store: Arc<dyn ContinuationStore> = Arc::new(MemoryStore::default());
    replicas_follow_each_other(Arc::clone(&store), store).await;
}

#[cfg(feature = "redis")]
mod on_redis {
    use super::*;
    use crate::redis_store::Redis;
    use mcp_light::store::{RedisStore, RedisStoreConfig};

    fn store(redis: &Redis) -> Arc<dyn ContinuationStore> {
        Arc::new(RedisStore::open(&redis.url(), RedisStoreConfig::new()).unwrap())
    }

    #[tokio::test]
    async fn replicas_on_one_redis_follow_cancel_and_answer_each_other_s_tasks() {
        let Some(redis) = Redis::start() else { return };
        replicas_follow_each_other(store(&redis), store(&redis)).await;
    }

    #[test]
    fn a_task_whose_replica_died_is_reported_failed_after_its_lease() {
        let Some(redis) = Redis::start() else { return };
        let lease = TaskConfig::new()
            .with_after(Duration::ZERO)
            .with_lease(Duration::from_millis(600))
            .with_watch_interval(Duration::from_millis(50));
        // Replica A lives in a runtime of its own, dropped mid-task.
        let id = {
            let runtime = tokio::runtime::Runtime::new().unwrap();
            runtime.block_on(async {
                let a = replica(store(&redis), lease.clone());
                let on_a = connect(&a, Caller::Process, true).await;
                let task = started(&on_a, "tasked_forever_progress", json!({"tag": "dies"})).await;
                task.task.task_id
            })
        };
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(async {
            let b = replica(store(&redis), lease);
            let on_b = connect(&b, Caller::Process, true).await;
            assert!(!get(&on_b, &id).await.task.status().is_terminal());
            let done = settled(&on_b, &id).await;
            match &done.task.payload {
                TaskPayload::Failed { error } => {
                    let message = error["message"].as_str().unwrap();
                    assert!(message.contains("lease"), "{message}");
                }
                other => panic!("a failed task, got {other:?}"),
            }
        });
    }
}
