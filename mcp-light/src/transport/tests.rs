//! Which of rmcp's `ServerHandler` methods reach the composed handler and
//! which mcp-light answers alone, checked one method at a time against the
//! list rmcp declares.

#![allow(deprecated)] // Logging and `resources/subscribe` are still served.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{
    ArgumentInfo, CallToolRequestParams, CallToolResponse, CancelTaskParams,
    CancelledNotificationParam, ClientCapabilities, ClientConfig, ClientNotification,
    CompleteRequestParams, CompleteResult, CustomNotification, CustomRequest, CustomResult,
    DiscoverResult, GetPromptRequestParams, GetPromptResponse, GetSkillRequestParams,
    GetSkillResult, GetTaskParams, GetTaskResult, Implementation, InitializeRequestParams,
    InitializeResult, InputResponses, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListSkillsResult, ListToolsResult, LoggingLevel, NumberOrString,
    PaginatedRequestParams, ProgressNotificationParam, ProgressToken, ProtocolVersion,
    ReadResourceDirectoryRequestParams, ReadResourceDirectoryResult, ReadResourceRequestParams,
    ReadResourceResponse, Reference, ServerCapabilities, ServerConfig, SetLevelRequestParams,
    SubscribeRequestParams, SubscriptionFilter, Tool, UnsubscribeRequestParams, UpdateTaskParams,
};
use rmcp::service::{
    ClientLifecycleMode, NotificationContext, Peer, RequestContext, RoleClient, RoleServer,
    RunningService, ServiceExt, SubscriptionContext,
};
use rmcp::{ClientServiceExt, ErrorData, ServerHandler};

use super::McpHandler;
use crate::context::Caller;
use crate::server::Server;
use crate::server::compose::COMPOSED_METHODS;

/// Every method of rmcp's `ServerHandler`, as rmcp declares them. After an
/// rmcp upgrade, refresh it from the `fn`s of `server_handler_methods!` in
/// rmcp's `src/handler/server.rs`, and [`RMCP_READ`] with it.
const RMCP_METHODS: &[&str] = &[
    "ping",
    "initialize",
    "negotiate_initialize",
    "supported_protocol_versions",
    "discover",
    "complete",
    "set_level",
    "get_prompt",
    "list_prompts",
    "list_resources",
    "list_resource_templates",
    "read_resource",
    "accepted_subscription_filter",
    "listen",
    "subscribe",
    "unsubscribe",
    "call_tool",
    "list_tools",
    "get_tool",
    "on_custom_request",
    "on_cancelled",
    "on_progress",
    "on_initialized",
    "on_roots_list_changed",
    "on_custom_notification",
    "get_info",
    "get_task",
    "update_task",
    "cancel_task",
    "list_skills",
    "get_skill",
    "read_resource_directory",
];

/// The rmcp release [`RMCP_METHODS`] was read from (major and minor: a
/// patch release adds no method).
const RMCP_READ: &str = "3.11.";

/// The methods mcp-light answers without the composed handler.
const OWN: &[&str] = &["set_level"];

/// The composed methods that reach the handler only when it advertises
/// tools.
const TOOLS: &[&str] = &["list_tools", "get_tool", "call_tool"];

/// The one tool [`Recorder`] knows, when it advertises tools.
const RECORDED_TOOL: &str = "recorded_tool";

#[test]
fn the_method_list_was_read_from_the_rmcp_in_use() {
    // rmcp names a server that does not name itself after rmcp, its own
    // crate name and version.
    let rmcp = Implementation::from_build_env();
    assert_eq!(rmcp.name, "rmcp");
    assert!(
        rmcp.version.starts_with(RMCP_READ),
        "mcp-light is built on rmcp {}, but RMCP_METHODS lists the ServerHandler methods of \
         rmcp {RMCP_READ}x: read the new ServerHandler, list its methods in RMCP_METHODS, and \
         add each new one to compose.rs's `composed_methods!` (or answer it in McpHandler and \
         add it to OWN)",
        rmcp.version,
    );
}

#[test]
fn every_rmcp_method_is_composed_or_mcp_lights_own_and_never_both() {
    let rmcp: BTreeSet<&str> = RMCP_METHODS.iter().copied().collect();
    let composed: BTreeSet<&str> = COMPOSED_METHODS.iter().copied().collect();
    let own: BTreeSet<&str> = OWN.iter().copied().collect();
    assert_eq!(
        rmcp.len(),
        RMCP_METHODS.len(),
        "RMCP_METHODS repeats a method"
    );
    assert_eq!(
        composed.len(),
        COMPOSED_METHODS.len(),
        "a method is composed twice"
    );
    assert_eq!(
        composed.intersection(&own).collect::<Vec<_>>(),
        Vec::<&&str>::new(),
        "composed and mcp-light's own"
    );
    let covered: BTreeSet<&str> = composed.union(&own).copied().collect();
    assert_eq!(
        rmcp.difference(&covered).collect::<Vec<_>>(),
        Vec::<&&str>::new(),
        "rmcp methods neither composed nor mcp-light's own"
    );
    assert_eq!(
        covered.difference(&rmcp).collect::<Vec<_>>(),
        Vec::<&&str>::new(),
        "methods rmcp does not declare"
    );
}

#[tokio::test]
async fn each_composed_method_reaches_the_handler_and_each_own_one_does_not() {
    let recorder = Recorder::with_tools();
    let (handler, session) = composing(&recorder).await;
    for &method in RMCP_METHODS {
        tokio::time::timeout(Duration::from_secs(10), session.drive(method, &handler))
            .await
            .unwrap_or_else(|_| panic!("driving {method} never finished"));
        if OWN.contains(&method) {
            // mcp-light's own are all called directly, and done once
            // driven.
            let heard = recorder.take();
            assert!(
                !heard.contains(&method),
                "{method} is mcp-light's, yet the composed handler heard it: {heard:?}"
            );
        } else {
            let heard = recorder.until_heard(method).await;
            assert!(
                heard.contains(&method),
                "{method} never reached the composed handler, which heard {heard:?}"
            );
        }
    }
}

#[tokio::test]
async fn a_handler_without_tools_hears_nothing_of_tools() {
    let recorder = Recorder::default();
    let (handler, session) = composing(&recorder).await;
    for &method in TOOLS {
        session.drive(method, &handler).await;
        let heard = recorder.take();
        assert!(
            heard.is_empty(),
            "driving {method} reached a handler without tools: {heard:?}"
        );
    }
}

/// The handler of a server composed with `recorder`, and a live session
/// with it; what opening the session made `recorder` hear is forgotten.
async fn composing(recorder: &Recorder) -> (McpHandler, Session) {
    let handler = Server::from_registry()
        .with_handler(recorder.clone())
        .build()
        .unwrap()
        .into_handler(Caller::Process);
    let session = tokio::time::timeout(Duration::from_secs(10), Session::open(handler.clone()))
        .await
        .expect("the session opens");
    recorder.take();
    (handler, session)
}

/// A live session with `handler`, on 2026-07-28 (where
/// `subscriptions/listen` exists): its server side lends the contexts the
/// direct calls need.
struct Session {
    client: RunningService<RoleClient, ClientConfig>,
    peer: Peer<RoleServer>,
}

impl Session {
    async fn open(handler: McpHandler) -> Session {
        let (client_io, server_io) = tokio::io::duplex(64 * 1024);
        let client = ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("forwarding-test", "1.0.0"),
        );
        let lifecycle = ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        };
        let connect = async {
            let client = client
                .serve_with_lifecycle(client_io, lifecycle)
                .await
                .expect("the client connects");
            // Discovery leaves the server waiting for the first request
            // that picks the session's lifecycle.
            client.list_all_tools().await.expect("the tools are listed");
            client
        };
        let (server, client) = tokio::join!(handler.serve(server_io), connect);
        let server = server.expect("the server starts");
        let peer = server.peer().clone();
        tokio::spawn(async move {
            let _ = server.waiting().await;
        });
        Session { client, peer }
    }

    fn request(&self) -> RequestContext<RoleServer> {
        RequestContext::new(NumberOrString::Number(7), self.peer.clone())
    }

    /// Calls `method` of `handler` once, or has the client send what calls
    /// it; what it answers does not matter.
    async fn drive(&self, method: &str, handler: &McpHandler) {
        let page = || Some(PaginatedRequestParams::default());
        let introduction = || {
            InitializeRequestParams::new(
                ClientCapabilities::default(),
                Implementation::new("forwarding-test", "1.0.0"),
            )
        };
        match method {
            "ping" => drop(handler.ping(self.request()).await),
            "initialize" => drop(handler.initialize(introduction(), self.request()).await),
            "negotiate_initialize" => drop(handler.negotiate_initialize(&introduction())),
            "supported_protocol_versions" => drop(handler.supported_protocol_versions()),
            "discover" => drop(handler.discover(self.request()).await),
            "complete" => {
                let request = CompleteRequestParams::new(
                    Reference::for_prompt("triage"),
                    ArgumentInfo::new("team", "o"),
                );
                drop(handler.complete(request, self.request()).await)
            }
            "set_level" => {
                let request = SetLevelRequestParams::new(LoggingLevel::Info);
                drop(handler.set_level(request, self.request()).await)
            }
            "get_prompt" => {
                let request = GetPromptRequestParams::new("triage");
                drop(handler.get_prompt(request, self.request()).await)
            }
            "list_prompts" => drop(handler.list_prompts(page(), self.request()).await),
            "list_resources" => drop(handler.list_resources(page(), self.request()).await),
            "list_resource_templates" => drop(
                handler
                    .list_resource_templates(page(), self.request())
                    .await,
            ),
            "read_resource" => {
                let request = ReadResourceRequestParams::new("docs://runbook");
                drop(handler.read_resource(request, self.request()).await)
            }
            "accepted_subscription_filter" => {
                drop(handler.accepted_subscription_filter(&SubscriptionFilter::new()))
            }
            "subscribe" => {
                let request = SubscribeRequestParams::new("docs://runbook");
                drop(handler.subscribe(request, self.request()).await)
            }
            "unsubscribe" => {
                let request = UnsubscribeRequestParams::new("docs://runbook");
                drop(handler.unsubscribe(request, self.request()).await)
            }
            "call_tool" => {
                let request = CallToolRequestParams::new(RECORDED_TOOL);
                drop(handler.call_tool(request, self.request()).await)
            }
            "list_tools" => drop(handler.list_tools(page(), self.request()).await),
            "get_tool" => drop(handler.get_tool(RECORDED_TOOL)),
            "on_custom_request" => {
                let request = CustomRequest::new("x/custom", None);
                drop(handler.on_custom_request(request, self.request()).await)
            }
            "get_info" => drop(handler.get_info()),
            "get_task" => {
                let request = GetTaskParams::new("task-1");
                drop(handler.get_task(request, self.request()).await)
            }
            "update_task" => {
                let request = UpdateTaskParams::new("task-1", InputResponses::new());
                drop(handler.update_task(request, self.request()).await)
            }
            "cancel_task" => {
                let request = CancelTaskParams::new("task-1");
                drop(handler.cancel_task(request, self.request()).await)
            }
            "list_skills" => drop(handler.list_skills(page(), self.request()).await),
            "get_skill" => {
                let request = GetSkillRequestParams::new("skill://triage/SKILL.md");
                drop(handler.get_skill(request, self.request()).await)
            }
            "read_resource_directory" => {
                let request = ReadResourceDirectoryRequestParams::new("skill://triage/");
                drop(
                    handler
                        .read_resource_directory(request, self.request())
                        .await,
                )
            }
            other => self.send_from_client(other).await,
        }
    }

    /// Has the client send what calls `method`: a subscription or a
    /// notification, whose contexts are rmcp's to build.
    async fn send_from_client(&self, method: &str) {
        match method {
            // A `SubscriptionContext` is rmcp's to build: this one goes
            // over the wire, and has been heard once the stream ends.
            "listen" => {
                let filter = SubscriptionFilter::builder()
                    .resources_list_changed()
                    .build();
                let mut subscription = self.client.listen(filter).await.expect("listening");
                while subscription
                    .next()
                    .await
                    .expect("the stream ends")
                    .is_some()
                {}
            }
            // A `NotificationContext` is rmcp's to build too: the client
            // sends these, and the server hears them on a task of its own.
            "on_cancelled" => {
                let notification =
                    CancelledNotificationParam::new(Some(NumberOrString::Number(7)), None);
                self.client.notify_cancelled(notification).await.unwrap()
            }
            "on_progress" => {
                let token = ProgressToken(NumberOrString::Number(7));
                let notification = ProgressNotificationParam::new(token, 0.5);
                self.client.notify_progress(notification).await.unwrap()
            }
            "on_initialized" => self.client.notify_initialized().await.unwrap(),
            "on_roots_list_changed" => self.client.notify_roots_list_changed().await.unwrap(),
            "on_custom_notification" => {
                let notification = CustomNotification::new("x/custom", None);
                let notification = ClientNotification::CustomNotification(notification);
                self.client.send_notification(notification).await.unwrap()
            }
            other => panic!("no way to drive {other}: add it to `Session::drive`"),
        }
    }
}

/// A composed handler that writes down each method called on it, and
/// implements every one, so that none answers rmcp's default unseen.
#[derive(Clone, Default)]
struct Recorder {
    heard: Arc<Mutex<Vec<&'static str>>>,
    /// Whether it advertises tools (it knows [`RECORDED_TOOL`] then).
    tools: bool,
}

impl Recorder {
    fn with_tools() -> Recorder {
        Recorder {
            tools: true,
            ..Recorder::default()
        }
    }

    fn config(&self) -> ServerConfig {
        recorder_config(self.tools)
    }

    fn hear(&self, method: &'static str) {
        self.heard
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(method);
    }

    /// The methods called since the last take.
    fn take(&self) -> Vec<&'static str> {
        std::mem::take(&mut *self.heard.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// The methods called since the last take, once `method` is among them
    /// or a few seconds have passed: a notification is heard on a task of
    /// its own.
    async fn until_heard(&self, method: &'static str) -> Vec<&'static str> {
        let mut heard = self.take();
        for _ in 0..500 {
            if heard.contains(&method) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
            heard.extend(self.take());
        }
        heard
    }

    /// What it answers a request it does not serve.
    fn refuse<T>(&self, method: &'static str) -> Result<T, ErrorData> {
        self.hear(method);
        Err(ErrorData::internal_error(
            format!("{method} reached the recorder"),
            None,
        ))
    }
}

/// The recorder's configuration: resources, so that a listen stream has
/// something to accept, and `tools` if it says so.
fn recorder_config(tools: bool) -> ServerConfig {
    let mut capabilities = ServerCapabilities::builder()
        .enable_resources()
        .enable_resources_list_changed()
        .build();
    if tools {
        capabilities.tools = ServerCapabilities::builder().enable_tools().build().tools;
    }
    ServerConfig::new(capabilities)
}

#[deny(clippy::missing_trait_methods)]
impl ServerHandler for Recorder {
    async fn ping(&self, _: RequestContext<RoleServer>) -> Result<(), ErrorData> {
        self.hear("ping");
        Ok(())
    }

    async fn initialize(
        &self,
        _: InitializeRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        self.hear("initialize");
        Ok(self.config())
    }

    fn negotiate_initialize(
        &self,
        _: &InitializeRequestParams,
    ) -> Result<InitializeResult, ErrorData> {
        self.hear("negotiate_initialize");
        Ok(self.config())
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        self.hear("supported_protocol_versions");
        Cow::Borrowed(ProtocolVersion::KNOWN_VERSIONS)
    }

    async fn discover(&self, _: RequestContext<RoleServer>) -> Result<DiscoverResult, ErrorData> {
        self.hear("discover");
        let versions = ProtocolVersion::KNOWN_VERSIONS.to_vec();
        Ok(DiscoverResult::from_server_info(versions, self.config()))
    }

    async fn complete(
        &self,
        _: CompleteRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        self.refuse("complete")
    }

    async fn set_level(
        &self,
        _: SetLevelRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.refuse("set_level")
    }

    async fn get_prompt(
        &self,
        _: GetPromptRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        self.refuse("get_prompt")
    }

    async fn list_prompts(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.refuse("list_prompts")
    }

    async fn list_resources(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.refuse("list_resources")
    }

    async fn list_resource_templates(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        self.refuse("list_resource_templates")
    }

    async fn read_resource(
        &self,
        _: ReadResourceRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        self.refuse("read_resource")
    }

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        self.hear("accepted_subscription_filter");
        Some(requested.clone())
    }

    /// Ends the stream at once: the client sees it close.
    async fn listen(&self, _: SubscriptionContext) -> Result<(), ErrorData> {
        self.hear("listen");
        Ok(())
    }

    async fn subscribe(
        &self,
        _: SubscribeRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.refuse("subscribe")
    }

    async fn unsubscribe(
        &self,
        _: UnsubscribeRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.refuse("unsubscribe")
    }

    async fn call_tool(
        &self,
        _: CallToolRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.refuse("call_tool")
    }

    async fn list_tools(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        // Answered: a session opens with a `tools/list`.
        self.hear("list_tools");
        let tools = self.get_tool(RECORDED_TOOL).into_iter().collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.hear("get_tool");
        (self.tools && name == RECORDED_TOOL)
            .then(|| Tool::new(RECORDED_TOOL, "recorded", Arc::new(Default::default())))
    }

    async fn on_custom_request(
        &self,
        _: CustomRequest,
        _: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        self.refuse("on_custom_request")
    }

    async fn on_cancelled(
        &self,
        _: CancelledNotificationParam,
        _: NotificationContext<RoleServer>,
    ) {
        self.hear("on_cancelled");
    }

    async fn on_progress(&self, _: ProgressNotificationParam, _: NotificationContext<RoleServer>) {
        self.hear("on_progress");
    }

    async fn on_initialized(&self, _: NotificationContext<RoleServer>) {
        self.hear("on_initialized");
    }

    async fn on_roots_list_changed(&self, _: NotificationContext<RoleServer>) {
        self.hear("on_roots_list_changed");
    }

    async fn on_custom_notification(
        &self,
        _: CustomNotification,
        _: NotificationContext<RoleServer>,
    ) {
        self.hear("on_custom_notification");
    }

    fn get_info(&self) -> ServerConfig {
        self.hear("get_info");
        self.config()
    }

    async fn get_task(
        &self,
        _: GetTaskParams,
        _: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.refuse("get_task")
    }

    async fn update_task(
        &self,
        _: UpdateTaskParams,
        _: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.refuse("update_task")
    }

    async fn cancel_task(
        &self,
        _: CancelTaskParams,
        _: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.refuse("cancel_task")
    }

    async fn list_skills(
        &self,
        _: Option<PaginatedRequestParams>,
        _: RequestContext<RoleServer>,
    ) -> Result<ListSkillsResult, ErrorData> {
        self.refuse("list_skills")
    }

    async fn get_skill(
        &self,
        _: GetSkillRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<GetSkillResult, ErrorData> {
        self.refuse("get_skill")
    }

    async fn read_resource_directory(
        &self,
        _: ReadResourceDirectoryRequestParams,
        _: RequestContext<RoleServer>,
    ) -> Result<ReadResourceDirectoryResult, ErrorData> {
        self.refuse("read_resource_directory")
    }
}
