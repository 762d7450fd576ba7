//! Tools that talk back — progress, log messages, cancellation, questions
//! for the user, the client's model and the client — behind rmcp's own
//! client: over an in-process pipe on protocol 2025-11-25 (a session,
//! requests to the client) and 2026-07-28 (input-required results), and
//! over Streamable HTTP for a stateless request's notifications.

#![allow(deprecated)] // rmcp marks logging, sampling and roots deprecated.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_light::context::{Elicitation, LogLevel};
use mcp_light::prelude::*;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ClientCapabilities, ClientInfo,
    ClientRequest, CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams,
    ElicitResult, ElicitationAction, Implementation, InputRequest, InputRequiredResult,
    InputResponses, ListRootsResult, LoggingLevel, LoggingMessageNotificationParam,
    ProgressNotificationParam, ProtocolVersion, RequestMetaObject, Root, SamplingMessage,
    ServerResult, SetLevelRequestParams,
};
use rmcp::service::{
    ClientServiceExt, NotificationContext, PeerRequestOptions, RequestContext, RoleClient,
    RunningService,
};
use rmcp::{ClientHandler, ErrorData};
use serde_json::{Value, json};

use crate::fixtures::pipe;

// ---- the tools -----------------------------------------------------------

/// How often the tools ran, and what they saw.
#[derive(Default)]
pub struct Seen {
    runs: AtomicUsize,
    writes: AtomicUsize,
    dropped: AtomicBool,
}

/// Reports three steps of progress.
#[mcp_tool]
async fn talk_progress(ctx: &Context) -> String {
    for step in 1..=3 {
        ctx.progress(f64::from(step), Some(3.0), Some(&format!("step {step}")))
            .await;
    }
    "done".to_owned()
}

/// Logs one message at each of three levels.
#[mcp_tool]
async fn talk_log(ctx: &Context) -> String {
    ctx.log(LogLevel::Debug, "debug detail").await;
    ctx.log_as("talk", LogLevel::Info, json!({"step": "info"}))
        .await;
    ctx.log(LogLevel::Error, "an error").await;
    "logged".to_owned()
}

/// Sets a flag when the server drops it.
struct DropFlag<'s>(&'s Seen);

impl Drop for DropFlag<'_> {
    fn drop(&mut self) {
        self.0.dropped.store(true, Ordering::SeqCst);
    }
}

// The tools read their state with `ctx.state`, so that servers of other
// test modules, which do not register it, still build.

/// Waits until the end of time.
#[mcp_tool]
async fn talk_forever(ctx: &Context) -> Result<String, ToolError> {
    let seen = ctx.state::<Seen>()?;
    let _flag = DropFlag(seen);
    seen.runs.fetch_add(1, Ordering::SeqCst);
    std::future::pending::<()>().await;
    Ok("never".to_owned())
}

/// Waits until the end of time, taking nothing that reaches the client:
/// served without the talk-back machinery, and still stopped when the
/// client cancels.
#[mcp_tool]
async fn talk_forever_quietly(State(seen): State<Seen>) -> String {
    let _flag = DropFlag(&seen);
    seen.runs.fetch_add(1, Ordering::SeqCst);
    std::future::pending::<()>().await;
    "never".to_owned()
}

/// Answers once the client cancels.
#[mcp_tool]
async fn talk_until_cancelled(ctx: &Context) -> Result<String, ToolError> {
    let seen = ctx.state::<Seen>()?;
    seen.runs.fetch_add(1, Ordering::SeqCst);
    ctx.cancelled().await;
    assert!(ctx.is_cancelled());
    seen.writes.fetch_add(1, Ordering::SeqCst);
    Ok("cancelled".to_owned())
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Confirm {
    confirm: bool,
    #[serde(default)]
    note: Option<String>,
}

/// Asks the user to confirm.
#[mcp_tool]
async fn talk_confirm(ctx: &Context) -> Result<String, ToolError> {
    Ok(match ctx.elicit::<Confirm>("Go ahead?").await? {
        Elicitation::Accept(Confirm { confirm, note }) => format!("accept {confirm} {note:?}"),
        Elicitation::Decline => "decline".to_owned(),
        Elicitation::Cancel => "cancel".to_owned(),
    })
}

/// Asks with a schema written by hand.
#[mcp_tool]
async fn talk_schema(ctx: &Context) -> Result<Value, ToolError> {
    let schema = json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "status": {"type": "string", "enum": ["active", "inactive"], "default": "active"},
            "titled": {"type": "string", "oneOf": [{"const": "v1", "title": "First"}]},
            "legacy": {"type": "string", "enum": ["o1"], "enumNames": ["Option One"]},
            "multi": {"type": "array", "items": {"anyOf": [{"const": "v1", "title": "First"}]}}
        }
    });
    Ok(match ctx.elicit_schema("Your details", schema).await? {
        Elicitation::Accept(content) => Value::Object(content),
        other => json!(format!("{other:?}")),
    })
}

/// Asks the user to open a page.
#[mcp_tool]
async fn talk_url(ctx: &Context) -> Result<String, ToolError> {
    let answer = ctx
        .elicit_url("Sign in", "https://example.com/login", "login-1")
        .await?;
    Ok(format!("{answer:?}"))
}

/// Asks the client's model.
#[mcp_tool]
async fn talk_sample(ctx: &Context, prompt: String) -> Result<String, ToolError> {
    let params = CreateMessageRequestParams::new(vec![SamplingMessage::user_text(prompt)], 50);
    let answer = ctx.sample(params).await?;
    let text = answer.message.content.first().and_then(|c| c.as_text());
    Ok(format!(
        "{}: {}",
        answer.model,
        text.map_or("", |t| &t.text)
    ))
}

/// Lists the client's roots.
#[mcp_tool]
async fn talk_roots(ctx: &Context) -> Result<Vec<String>, ToolError> {
    let roots = ctx.roots().await?;
    Ok(roots.roots.into_iter().map(|root| root.uri).collect())
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Name {
    name: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Colour {
    colour: String,
}

/// Two questions, one after the other; a write after both.
#[mcp_tool]
async fn talk_two_rounds(ctx: &Context, greeting: String) -> Result<String, ToolError> {
    let seen = ctx.state::<Seen>()?;
    seen.runs.fetch_add(1, Ordering::SeqCst);
    let Elicitation::Accept(Name { name }) = ctx.ask("name").elicit("Your name?").await? else {
        return Ok("no name".to_owned());
    };
    let Elicitation::Accept(Colour { colour }) = ctx.elicit("Your colour?").await? else {
        return Ok("no colour".to_owned());
    };
    seen.writes.fetch_add(1, Ordering::SeqCst);
    Ok(format!("{greeting} {name}, {colour}"))
}

/// Two questions at once.
#[mcp_tool]
async fn talk_together(ctx: &Context) -> Result<String, ToolError> {
    let (name, roots) = tokio::join!(ctx.ask("name").elicit::<Name>("Your name?"), ctx.roots());
    let Elicitation::Accept(Name { name }) = name? else {
        return Ok("no name".to_owned());
    };
    Ok(format!("{name} with {} roots", roots?.roots.len()))
}

/// Answers the request's `_meta`.
#[mcp_tool]
fn talk_meta(ctx: &Context) -> Value {
    Value::Object(ctx.meta().clone())
}

fn server(seen: &Arc<Seen>) -> Server {
    builder(seen).build().unwrap()
}

fn builder(seen: &Arc<Seen>) -> ServerBuilder {
    let tools = tools![
        talk_progress,
        talk_log,
        talk_forever,
        talk_forever_quietly,
        talk_until_cancelled,
        talk_confirm,
        talk_schema,
        talk_url,
        talk_sample,
        talk_roots,
        talk_two_rounds,
        talk_together,
        talk_meta,
    ];
    Server::from_tools(tools).with_shared_state(Arc::clone(seen))
}

// ---- the client ----------------------------------------------------------

/// A client that records what the server sends and answers its questions
/// as told.
#[derive(Clone)]
struct Client {
    capabilities: ClientCapabilities,
    elicited: ElicitResult,
    progress: Arc<Mutex<Vec<ProgressNotificationParam>>>,
    logs: Arc<Mutex<Vec<LoggingMessageNotificationParam>>>,
    asked: Arc<Mutex<Vec<Value>>>,
}

impl Client {
    fn new(capabilities: ClientCapabilities) -> Client {
        Client {
            capabilities,
            elicited: ElicitResult::new(ElicitationAction::Accept)
                .with_content(json!({"confirm": true, "note": "fine"})),
            progress: Arc::default(),
            logs: Arc::default(),
            asked: Arc::default(),
        }
    }

    fn everything() -> Client {
        Client::new(
            ClientCapabilities::builder()
                .enable_elicitation()
                .enable_sampling()
                .enable_roots()
                .build(),
        )
    }

    fn answering(mut self, action: ElicitationAction, content: Option<Value>) -> Client {
        let mut elicited = ElicitResult::new(action);
        elicited.content = content;
        self.elicited = elicited;
        self
    }

    fn logged(&self) -> Vec<(LogLevel, Value)> {
        let logs = self.logs.lock().unwrap();
        logs.iter()
            .map(|log| (LogLevel::from(log.level), log.data.clone()))
            .collect()
    }
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientInfo {
        ClientInfo::new(
            self.capabilities.clone(),
            Implementation::new("talkback-test", "1.0.0"),
        )
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.asked
            .lock()
            .unwrap()
            .push(serde_json::to_value(&request).unwrap());
        Ok(self.elicited.clone())
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        self.asked
            .lock()
            .unwrap()
            .push(serde_json::to_value(&params).unwrap());
        Ok(CreateMessageResult::new(
            SamplingMessage::assistant_text("hello there"),
            "test-model".to_owned(),
        ))
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        Ok(ListRootsResult::new(vec![Root::new("file:///srv")]))
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(params);
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.logs.lock().unwrap().push(params);
    }
}

/// `client` connected to `handler`, on 2025-11-25 (`initialize`) or
/// 2026-07-28 (`server/discover`).
async fn connect_handler<C: ClientHandler>(
    handler: mcp_light::transport::McpHandler,
    client: C,
    version: ProtocolVersion,
) -> RunningService<RoleClient, C> {
    client
        .serve_with_lifecycle(pipe(handler), crate::fixtures::lifecycle(version))
        .await
        .expect("the client connects")
}

/// A client connected to `server` as the client process of stdio.
async fn connect(
    server: Server,
    client: Client,
    version: ProtocolVersion,
) -> RunningService<RoleClient, Client> {
    connect_handler(server.into_handler(Caller::Process), client, version).await
}

async fn legacy(server: Server, client: Client) -> RunningService<RoleClient, Client> {
    connect(server, client, ProtocolVersion::V_2025_11_25).await
}

async fn stateless(server: Server, client: Client) -> RunningService<RoleClient, Client> {
    connect(server, client, ProtocolVersion::V_2026_07_28).await
}

fn params(tool: &str, args: Value) -> CallToolRequestParams {
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    CallToolRequestParams::new(tool.to_owned()).with_arguments(args)
}

fn text(result: &CallToolResult) -> String {
    result.content[0].as_text().unwrap().text.clone()
}

fn answered(result: &CallToolResult) -> Value {
    assert_eq!(result.is_error, Some(false), "{result:?}");
    serde_json::from_str(&text(result)).unwrap()
}

fn failed(result: &CallToolResult) -> String {
    assert_eq!(result.is_error, Some(true), "{result:?}");
    text(result)
}

async fn call(
    client: &RunningService<RoleClient, Client>,
    tool: &str,
    args: Value,
) -> CallToolResult {
    client
        .call_tool(params(tool, args))
        .await
        .expect("tools/call answers")
}

/// One round of a call on 2026-07-28, answered as it comes.
async fn once(
    client: &RunningService<RoleClient, Client>,
    params: CallToolRequestParams,
) -> CallToolResponse {
    client
        .call_tool_once(params)
        .await
        .expect("tools/call answers")
}

/// The JSON-RPC error one round of a call answers.
async fn once_refused(
    client: &RunningService<RoleClient, Client>,
    params: CallToolRequestParams,
) -> ErrorData {
    match client.call_tool_once(params).await {
        Err(rmcp::ServiceError::McpError(error)) => error,
        other => panic!("a JSON-RPC error, got {other:?}"),
    }
}

fn input_required(response: CallToolResponse) -> InputRequiredResult {
    match response {
        CallToolResponse::InputRequired(result) => result,
        other => panic!("expected an input-required result, got {other:?}"),
    }
}

fn complete(response: CallToolResponse) -> CallToolResult {
    match response {
        CallToolResponse::Complete(result) => result,
        other => panic!("expected a complete result, got {other:?}"),
    }
}

fn retry(
    mut params: CallToolRequestParams,
    state: Option<String>,
    responses: Value,
) -> CallToolRequestParams {
    let responses: InputResponses = serde_json::from_value(responses).unwrap();
    params.input_responses = Some(responses);
    params.request_state = state;
    params
}

/// Lets notifications sent before the response reach the client handler.
async fn settle() {
    tokio::time::sleep(Duration::from_millis(50)).await;
}

// ---- progress ------------------------------------------------------------

#[tokio::test]
async fn progress_reaches_the_client_under_the_request_token() {
    let client = Client::everything();
    let running = legacy(server(&Arc::default()), client.clone()).await;
    // rmcp's client gives every request a progress token of its own.
    let handle = running
        .send_request_with_option(
            ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(params(
                "talk_progress",
                json!({}),
            ))),
            PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    let token = handle.progress_token.clone();
    let ServerResult::CallToolResult(result) = handle.await_response().await.unwrap() else {
        panic!("a tool result")
    };
    assert_eq!(answered(&result), json!("done"));
    settle().await;
    let progress = client.progress.lock().unwrap().clone();
    let seen: Vec<_> = progress
        .iter()
        .map(|p| {
            (
                p.progress_token.clone(),
                p.progress,
                p.total,
                p.message.clone(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [1.0, 2.0, 3.0].map(|n| (token.clone(), n, Some(3.0), Some(format!("step {n}"))))
    );
}

#[tokio::test]
async fn a_call_through_server_call_talks_to_nobody_and_its_asks_fail_clearly() {
    let server = server(&Arc::default());
    let result = server
        .call("talk_progress", json!({}), Caller::Process)
        .await;
    assert_eq!(answered(&result), json!("done"));
    let asked = server
        .call("talk_confirm", json!({}), Caller::Process)
        .await;
    assert_eq!(
        failed(&asked),
        "`talk_confirm` failed: this call has no MCP client to answer an elicitation \
         (elicitation/create): it was made with Server::call, not over a transport"
    );
    let meta = server.call("talk_meta", json!({}), Caller::Process).await;
    assert_eq!(answered(&meta), json!({}));
}

// ---- logging -------------------------------------------------------------

#[tokio::test]
async fn before_set_level_every_message_is_sent_and_after_it_only_as_severe() {
    let client = Client::everything();
    let running = legacy(server(&Arc::default()), client.clone()).await;
    call(&running, "talk_log", json!({})).await;
    settle().await;
    let levels: Vec<_> = client
        .logged()
        .into_iter()
        .map(|(level, _)| level)
        .collect();
    assert_eq!(levels, [LogLevel::Debug, LogLevel::Info, LogLevel::Error]);

    client.logs.lock().unwrap().clear();
    running
        .set_level(SetLevelRequestParams::new(LoggingLevel::Info))
        .await
        .unwrap();
    call(&running, "talk_log", json!({})).await;
    settle().await;
    assert_eq!(
        client.logged(),
        [
            (LogLevel::Info, json!({"step": "info"})),
            (LogLevel::Error, json!("an error"))
        ]
    );
    let logger = client.logs.lock().unwrap()[0].logger.clone();
    assert_eq!(logger.as_deref(), Some("talk"));
}

#[tokio::test]
async fn a_session_level_stays_with_its_session() {
    let server = server(&Arc::default());
    let first = Client::everything();
    let second = Client::everything();
    let handler = server.into_handler(Caller::Process);
    // One handler, cloned per session as the HTTP service does.
    let legacy_version = ProtocolVersion::V_2025_11_25;
    let one = connect_handler(handler.clone(), first.clone(), legacy_version.clone()).await;
    let two = connect_handler(handler.clone(), second.clone(), legacy_version).await;
    one.set_level(SetLevelRequestParams::new(LoggingLevel::Error))
        .await
        .unwrap();
    call(&one, "talk_log", json!({})).await;
    call(&two, "talk_log", json!({})).await;
    settle().await;
    assert_eq!(first.logged().len(), 1);
    assert_eq!(second.logged().len(), 3);
}

#[tokio::test]
async fn on_2026_a_request_gets_log_messages_only_at_the_level_its_meta_names() {
    let client = Client::everything();
    let running = stateless(server(&Arc::default()), client.clone()).await;
    call(&running, "talk_log", json!({})).await;
    settle().await;
    assert!(client.logged().is_empty(), "{:?}", client.logged());

    let mut request = params("talk_log", json!({}));
    let mut meta = RequestMetaObject::new();
    meta.set_log_level(LoggingLevel::Info);
    request.meta = Some(meta);
    running.call_tool(request).await.unwrap();
    settle().await;
    let levels: Vec<_> = client
        .logged()
        .into_iter()
        .map(|(level, _)| level)
        .collect();
    assert_eq!(levels, [LogLevel::Info, LogLevel::Error]);
}

#[tokio::test]
async fn on_2026_set_level_is_not_a_method() {
    let running = stateless(server(&Arc::default()), Client::everything()).await;
    let error = running
        .set_level(SetLevelRequestParams::new(LoggingLevel::Info))
        .await
        .unwrap_err();
    assert!(
        error.to_string().contains("-32601") || error.to_string().contains("not found"),
        "{error}"
    );
}

// ---- cancellation --------------------------------------------------------

async fn cancel_after_start(tool: &str, seen: &Arc<Seen>) {
    let running = legacy(server(seen), Client::everything()).await;
    let handle = running
        .send_request_with_option(
            ClientRequest::CallToolRequest(rmcp::model::CallToolRequest::new(params(
                tool,
                json!({}),
            ))),
            PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    while seen.runs.load(Ordering::SeqCst) == 0 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    handle.cancel(Some("changed my mind".into())).await.unwrap();
    settle().await;
}

#[tokio::test]
async fn a_cancelled_call_stops_the_tool() {
    let seen = Arc::new(Seen::default());
    cancel_after_start("talk_forever", &seen).await;
    assert!(seen.dropped.load(Ordering::SeqCst), "the tool still runs");
}

/// A tool that takes nothing reaching the client is called without the
/// talk-back machinery; the client's cancellation still stops it.
#[tokio::test]
async fn a_cancelled_call_stops_a_tool_that_never_talks_back() {
    let server = server(&Arc::default());
    let quiet = server.registry().get("talk_forever_quietly").unwrap();
    assert!(!quiet.def().needs_client());
    assert!(
        server
            .registry()
            .get("talk_forever")
            .unwrap()
            .def()
            .needs_client()
    );

    let seen = Arc::new(Seen::default());
    cancel_after_start("talk_forever_quietly", &seen).await;
    assert!(seen.dropped.load(Ordering::SeqCst), "the tool still runs");
}

#[tokio::test]
async fn a_tool_sees_its_call_cancelled() {
    let seen = Arc::new(Seen::default());
    cancel_after_start("talk_until_cancelled", &seen).await;
    // The tool is polled before the server gives up on it, so one that
    // selects on the cancellation finishes.
    assert_eq!(seen.writes.load(Ordering::SeqCst), 1);
}

// ---- asking, on 2025-11-25 ------------------------------------------------

#[tokio::test]
async fn an_elicitation_answers_accept_decline_and_cancel() {
    let seen = Arc::new(Seen::default());
    let accepting = legacy(server(&seen), Client::everything()).await;
    let result = call(&accepting, "talk_confirm", json!({})).await;
    assert_eq!(answered(&result), json!("accept true Some(\"fine\")"));

    let declining = Client::everything().answering(ElicitationAction::Decline, None);
    let declining = legacy(server(&seen), declining).await;
    let result = call(&declining, "talk_confirm", json!({})).await;
    assert_eq!(answered(&result), json!("decline"));

    let cancelling = Client::everything().answering(ElicitationAction::Cancel, None);
    let cancelling = legacy(server(&seen), cancelling).await;
    let result = call(&cancelling, "talk_confirm", json!({})).await;
    assert_eq!(answered(&result), json!("cancel"));
}

#[tokio::test]
async fn an_elicitation_asks_with_the_schema_of_the_answer_type() {
    let client = Client::everything();
    let running = legacy(server(&Arc::default()), client.clone()).await;
    call(&running, "talk_confirm", json!({})).await;
    let asked = client.asked.lock().unwrap()[0].clone();
    assert_eq!(asked["message"], "Go ahead?");
    let schema = &asked["requestedSchema"];
    assert_eq!(schema["type"], "object");
    assert_eq!(schema["properties"]["confirm"]["type"], "boolean");
    assert_eq!(schema["required"], json!(["confirm"]));
}

#[tokio::test]
async fn an_answer_that_does_not_fit_the_type_is_an_error_naming_it() {
    let client =
        Client::everything().answering(ElicitationAction::Accept, Some(json!({"confirm": "yes"})));
    let running = legacy(server(&Arc::default()), client).await;
    let message = failed(&call(&running, "talk_confirm", json!({})).await);
    assert!(
        message.starts_with("`talk_confirm` failed: the user's answer does not match `")
            && message.contains("Confirm"),
        "{message}"
    );
}

#[tokio::test]
async fn a_hand_written_schema_reaches_the_client_with_its_defaults_and_enums() {
    let client =
        Client::everything().answering(ElicitationAction::Accept, Some(json!({"name": "Jane"})));
    let running = legacy(server(&Arc::default()), client.clone()).await;
    let result = call(&running, "talk_schema", json!({})).await;
    assert_eq!(answered(&result), json!({"name": "Jane"}));
    let asked = client.asked.lock().unwrap()[0].clone();
    let properties = &asked["requestedSchema"]["properties"];
    assert_eq!(properties["name"]["default"], "John Doe");
    assert_eq!(properties["status"]["enum"], json!(["active", "inactive"]));
    assert_eq!(properties["status"]["default"], "active");
    assert_eq!(
        properties["titled"]["oneOf"],
        json!([{"const": "v1", "title": "First"}])
    );
    assert_eq!(properties["legacy"]["enumNames"], json!(["Option One"]));
    assert_eq!(
        properties["multi"]["items"]["anyOf"],
        json!([{"const": "v1", "title": "First"}])
    );
}

#[tokio::test]
async fn sampling_and_roots_reach_the_client() {
    let client = Client::everything();
    let running = legacy(server(&Arc::default()), client.clone()).await;
    let result = call(&running, "talk_sample", json!({"prompt": "Say hi"})).await;
    assert_eq!(answered(&result), json!("test-model: hello there"));
    let asked = client.asked.lock().unwrap()[0].clone();
    assert_eq!(asked["messages"][0]["content"]["text"], "Say hi");
    assert_eq!(asked["maxTokens"], 50);
    let roots = call(&running, "talk_roots", json!({})).await;
    assert_eq!(answered(&roots), json!(["file:///srv"]));
}

#[tokio::test]
async fn asking_a_client_that_did_not_declare_the_capability_fails_at_once() {
    let running = legacy(
        server(&Arc::default()),
        Client::new(ClientCapabilities::default()),
    )
    .await;
    let ask = |tool: &'static str, args: Value| {
        let running = &running;
        async move {
            tokio::time::timeout(Duration::from_secs(5), call(running, tool, args))
                .await
                .expect("an undeclared capability answers at once")
        }
    };
    let elicit = failed(&ask("talk_confirm", json!({})).await);
    assert_eq!(
        elicit,
        "`talk_confirm` failed: the client did not declare the `elicitation.form` capability, \
         so it cannot answer an elicitation (elicitation/create); check \
         `ctx.client_capabilities()` first, or do without"
    );
    let url = failed(&ask("talk_url", json!({})).await);
    assert!(url.contains("`elicitation.url` capability"), "{url}");
    let sample = failed(&ask("talk_sample", json!({"prompt": "hi"})).await);
    assert!(sample.contains("`sampling` capability"), "{sample}");
    let roots = failed(&ask("talk_roots", json!({})).await);
    assert!(roots.contains("`roots` capability"), "{roots}");
}

#[tokio::test]
async fn url_mode_needs_its_own_declaration() {
    // `elicitation: {}` declares form mode only.
    let running = legacy(server(&Arc::default()), Client::everything()).await;
    let url = failed(&call(&running, "talk_url", json!({})).await);
    assert!(url.contains("`elicitation.url` capability"), "{url}");

    let capabilities: ClientCapabilities =
        serde_json::from_value(json!({"elicitation": {"form": {}, "url": {}}})).unwrap();
    let running = legacy(server(&Arc::default()), Client::new(capabilities)).await;
    assert_eq!(
        answered(&call(&running, "talk_url", json!({})).await),
        json!("Accept(())")
    );
}

/// A client that never answers an elicitation.
#[derive(Clone)]
struct Silent(Client);

impl ClientHandler for Silent {
    fn get_info(&self) -> ClientInfo {
        self.0.get_info()
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        std::future::pending().await
    }
}

#[tokio::test]
async fn a_client_that_never_answers_times_out_with_an_error_naming_the_timeout() {
    let server = builder(&Arc::default())
        .with_ask_timeout(Duration::from_millis(100))
        .build()
        .unwrap();
    let handler = server.into_handler(Caller::Process);
    let silent = Silent(Client::everything());
    let running = connect_handler(handler, silent, ProtocolVersion::V_2025_11_25).await;
    let result = running
        .call_tool(params("talk_confirm", json!({})))
        .await
        .unwrap();
    assert_eq!(
        failed(&result),
        "`talk_confirm` failed: the client did not answer an elicitation (elicitation/create) \
         within 100ms (the server's ask timeout, ServerBuilder::with_ask_timeout)"
    );
}

// ---- asking, on 2026-07-28: input-required results -------------------------

#[tokio::test]
async fn on_2026_an_ask_answers_input_required_and_the_retry_completes() {
    let client = Client::everything();
    let running = stateless(server(&Arc::default()), client).await;
    let first = params("talk_confirm", json!({}));
    let asked = input_required(once(&running, first.clone()).await);
    let requests = asked.input_requests.clone().unwrap();
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["mcp-light/0"]);
    let wire = serde_json::to_value(&requests["mcp-light/0"]).unwrap();
    assert_eq!(wire["method"], "elicitation/create");
    assert_eq!(wire["params"]["message"], "Go ahead?");
    assert!(asked.request_state.is_some());

    let answer = json!({"mcp-light/0": {"action": "accept", "content": {"confirm": false}}});
    let done = complete(once(&running, retry(first, asked.request_state, answer)).await);
    assert_eq!(answered(&done), json!("accept false None"));
}

#[tokio::test]
async fn on_2026_rmcp_s_client_drives_the_rounds_itself() {
    let running = stateless(server(&Arc::default()), Client::everything()).await;
    let result = call(&running, "talk_confirm", json!({})).await;
    assert_eq!(answered(&result), json!("accept true Some(\"fine\")"));
}

#[tokio::test]
async fn on_2026_two_rounds_carry_the_first_answer_in_the_sealed_state() {
    let seen = Arc::new(Seen::default());
    let running = stateless(server(&seen), Client::everything()).await;
    let first = params("talk_two_rounds", json!({"greeting": "hi"}));
    let one = input_required(once(&running, first.clone()).await);
    assert_eq!(
        one.input_requests
            .as_ref()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["name"]
    );
    let name = json!({"name": {"action": "accept", "content": {"name": "Ada"}}});
    let two = input_required(
        once(
            &running,
            retry(first.clone(), one.request_state.clone(), name),
        )
        .await,
    );
    assert_eq!(
        two.input_requests
            .as_ref()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["mcp-light/1"]
    );
    assert_ne!(two.request_state, one.request_state);
    // The second retry names only the second answer: the first comes back
    // from the state.
    let colour = json!({"mcp-light/1": {"action": "accept", "content": {"colour": "teal"}}});
    let done = complete(once(&running, retry(first, two.request_state, colour)).await);
    assert_eq!(answered(&done), json!("hi Ada, teal"));
    // Three rounds ran the tool three times; the write after the asks once.
    assert_eq!(seen.runs.load(Ordering::SeqCst), 3);
    assert_eq!(seen.writes.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn on_2026_asks_made_together_come_in_one_round() {
    let running = stateless(server(&Arc::default()), Client::everything()).await;
    let first = params("talk_together", json!({}));
    let asked = input_required(once(&running, first.clone()).await);
    let requests = asked.input_requests.clone().unwrap();
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["mcp-light/1", "name"]);
    assert!(matches!(requests["name"], InputRequest::Elicitation(_)));
    assert!(matches!(
        requests["mcp-light/1"],
        InputRequest::ListRoots(_)
    ));
    let answers = json!({
        "name": {"action": "accept", "content": {"name": "Ada"}},
        "mcp-light/1": {"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]},
        "unasked": {"action": "accept", "content": {}}
    });
    let done = complete(once(&running, retry(first, asked.request_state, answers)).await);
    assert_eq!(answered(&done), json!("Ada with 2 roots"));
}

#[tokio::test]
async fn on_2026_a_missing_answer_is_asked_again() {
    let running = stateless(server(&Arc::default()), Client::everything()).await;
    let first = params("talk_confirm", json!({}));
    let wrong = json!({"wrong_key": {"action": "accept", "content": {"confirm": true}}});
    let again = input_required(once(&running, retry(first, None, wrong)).await);
    assert_eq!(
        again.input_requests.unwrap().keys().collect::<Vec<_>>(),
        ["mcp-light/0"]
    );
}

#[tokio::test]
async fn on_2026_an_answer_of_the_wrong_shape_is_an_invalid_params_error() {
    let running = stateless(server(&Arc::default()), Client::everything()).await;
    let first = params("talk_confirm", json!({}));
    let error = once_refused(&running, retry(first, None, json!({"mcp-light/0": 12345}))).await;
    assert_eq!(error.code, rmcp::model::ErrorCode::INVALID_PARAMS);
    assert!(
        error.message.starts_with(
            "inputResponses[\"mcp-light/0\"] is not an answer to an elicitation (elicitation/create): "
        ),
        "{}",
        error.message
    );
}

async fn refused(running: &RunningService<RoleClient, Client>, params: CallToolRequestParams) {
    let error = once_refused(running, params).await;
    assert_eq!(error.code, rmcp::model::ErrorCode::INVALID_PARAMS);
    assert!(
        error
            .message
            .starts_with("the requestState of this tools/call does not verify"),
        "{}",
        error.message
    );
}

#[tokio::test]
async fn on_2026_a_tampered_state_is_refused() {
    let seen = Arc::new(Seen::default());
    let running = stateless(server(&seen), Client::everything()).await;
    let first = params("talk_two_rounds", json!({"greeting": "hi"}));
    let one = input_required(once(&running, first.clone()).await);
    let tampered = format!("{}-TAMPERED", one.request_state.unwrap());
    let name = json!({"name": {"action": "accept", "content": {"name": "Ada"}}});
    refused(&running, retry(first, Some(tampered), name)).await;
}

#[tokio::test]
async fn on_2026_a_state_is_bound_to_its_arguments_tool_and_server_key() {
    let seen = Arc::new(Seen::default());
    let running = stateless(server(&seen), Client::everything()).await;
    let first = params("talk_two_rounds", json!({"greeting": "hi"}));
    let one = input_required(once(&running, first.clone()).await);
    let name = json!({"name": {"action": "accept", "content": {"name": "Ada"}}});
    let two = input_required(once(&running, retry(first, one.request_state, name.clone())).await);
    // The state carries Ada's answer; replayed against other arguments it
    // must not open.
    let other_args = params("talk_two_rounds", json!({"greeting": "bye"}));
    refused(
        &running,
        retry(other_args, two.request_state.clone(), json!({})),
    )
    .await;
    // Another server's key does not open it either.
    let other_server = builder(&seen)
        .with_request_state_key(*b"another server's 32-byte secret!")
        .unwrap()
        .build()
        .unwrap();
    let elsewhere = stateless(other_server, Client::everything()).await;
    let same_args = params("talk_two_rounds", json!({"greeting": "hi"}));
    refused(&elsewhere, retry(same_args, two.request_state, json!({}))).await;
}

#[tokio::test]
async fn on_2026_a_state_is_bound_to_its_caller() {
    let seen = Arc::new(Seen::default());
    let server = builder(&seen)
        .with_request_state_key(*b"one key both callers share, 32b!")
        .unwrap()
        .build()
        .unwrap();
    let first = params("talk_two_rounds", json!({"greeting": "hi"}));
    let mine = stateless(server.clone(), Client::everything()).await;
    let one = input_required(once(&mine, first.clone()).await);
    // The same state and answers from another caller: a handler whose
    // transport names its callers differently.
    let handler = server.into_handler(Caller::Principal("mallory".into()));
    let theirs =
        connect_handler(handler, Client::everything(), ProtocolVersion::V_2026_07_28).await;
    let name = json!({"name": {"action": "accept", "content": {"name": "Ada"}}});
    refused(
        &theirs,
        retry(first.clone(), one.request_state.clone(), name.clone()),
    )
    .await;
    // The caller it was sealed for still opens it.
    let two = input_required(once(&mine, retry(first, one.request_state, name)).await);
    assert!(two.request_state.is_some());
}

#[tokio::test]
async fn on_2026_asking_for_what_the_request_did_not_declare_is_refused_with_the_capability() {
    let running = stateless(
        server(&Arc::default()),
        Client::new(ClientCapabilities::default()),
    )
    .await;
    let error = once_refused(&running, params("talk_roots", json!({}))).await;
    assert_eq!(error.code.0, -32021, "{error:?}");
    assert!(error.message.contains("`roots` capability"), "{error:?}");
    assert_eq!(
        error.data,
        Some(json!({"requiredCapabilities": {"roots": {}}}))
    );
    let error = once_refused(&running, params("talk_sample", json!({"prompt": "hi"}))).await;
    assert_eq!(error.code.0, -32021, "{error:?}");
    assert_eq!(
        error.data,
        Some(json!({"requiredCapabilities": {"sampling": {}}}))
    );
}

#[tokio::test]
async fn on_2026_the_request_meta_is_the_tool_s() {
    let running = stateless(server(&Arc::default()), Client::everything()).await;
    let meta = answered(&call(&running, "talk_meta", json!({})).await);
    assert_eq!(
        meta["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    assert!(meta["io.modelcontextprotocol/clientCapabilities"]["roots"].is_object());
}

// ---- notifications of a stateless request, over Streamable HTTP -------------

/// Serves `server` over Streamable HTTP on a free port; its address.
#[cfg(feature = "http")]
async fn serve_http(server: Server) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(server.serve_http(listener, std::future::pending()));
    address
}

/// Posts one 2026-07-28 `tools/call` of `tool` with `meta` (beside the
/// required keys) and answers every JSON-RPC message of the response, in
/// order: the notifications the request's stream carried, then the result.
/// rmcp's client cannot leave the progress token out, so this speaks
/// HTTP/1.1 by hand.
#[cfg(feature = "http")]
async fn post_stateless(address: std::net::SocketAddr, tool: &str, meta: Value) -> Vec<Value> {
    let mut params_meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    });
    params_meta
        .as_object_mut()
        .unwrap()
        .extend(meta.as_object().unwrap().clone());
    let body = json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": tool, "arguments": {}, "_meta": params_meta}
    })
    .to_string();
    let headers = [
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", tool),
    ];
    let (head, messages) =
        crate::fixtures::post_mcp(address, &body, &headers, Duration::from_secs(10)).await;
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    messages
}

#[cfg(feature = "http")]
#[tokio::test]
async fn a_stateless_request_gets_its_progress_and_log_messages_on_its_own_stream() {
    let address = serve_http(server(&Arc::default())).await;
    let messages = post_stateless(address, "talk_progress", json!({"progressToken": "t-1"})).await;
    let methods: Vec<_> = messages.iter().map(|m| m["method"].clone()).collect();
    assert_eq!(
        methods,
        [
            json!("notifications/progress"),
            json!("notifications/progress"),
            json!("notifications/progress"),
            Value::Null
        ],
        "{messages:?}"
    );
    assert_eq!(messages[0]["params"]["progressToken"], "t-1");
    assert_eq!(messages[2]["params"]["progress"], 3.0);
    assert_eq!(messages[3]["id"], 7);

    let messages = post_stateless(
        address,
        "talk_log",
        json!({"io.modelcontextprotocol/logLevel": "error"}),
    )
    .await;
    assert_eq!(messages.len(), 2, "{messages:?}");
    assert_eq!(messages[0]["method"], "notifications/message");
    assert_eq!(messages[0]["params"]["level"], "error");
    assert_eq!(messages[0]["params"]["data"], "an error");
}

#[cfg(feature = "http")]
#[tokio::test]
async fn a_stateless_request_without_a_token_or_a_level_gets_only_its_result() {
    let address = serve_http(server(&Arc::default())).await;
    for tool in ["talk_progress", "talk_log"] {
        let messages = post_stateless(address, tool, json!({})).await;
        assert_eq!(messages.len(), 1, "{messages:?}");
        assert_eq!(messages[0]["id"], 7);
        assert!(messages[0]["result"].is_object(), "{messages:?}");
    }
}
