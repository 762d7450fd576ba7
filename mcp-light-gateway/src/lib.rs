//! mcp-light's answer discipline in front of an MCP server it did not
//! build.
//!
//! [`Upstream`] is an rmcp server handler that forwards what it is asked to
//! the server behind it, through rmcp's client: tools, resources and their
//! templates, prompts, completions, subscriptions. [`gateway`] composes it
//! with an mcp-light server whose handler tools are kept
//! ([`HandlerTools::Kept`]): each of the upstream's tools publishes
//! `continuation_token` and the negotiation fields beside its own
//! arguments, an answer that fits what the calling client keeps passes
//! through untouched, and a larger one is kept behind a token bound to the
//! caller and the tool and answered with a probe. The token is served from
//! mcp-light's store (paginated, summary, filtered, full), never forwarded.
//!
//! ```no_run
//! use mcp_light_gateway::{Upstream, gateway};
//! use rmcp::transport::TokioChildProcess;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let mut command = tokio::process::Command::new("npx");
//! command.args(["-y", "@modelcontextprotocol/server-filesystem", "/srv"]);
//! let upstream = Upstream::connect(TokioChildProcess::new(command)?).await?;
//! gateway(upstream).build()?.serve_stdio().await?;
//! # Ok(())
//! # }
//! ```

pub mod config;
mod relay;

use std::collections::HashSet;
use std::sync::{Arc, PoisonError, RwLock};

use mcp_light::rmcp::ErrorData;
use mcp_light::rmcp::handler::server::ServerHandler;
use mcp_light::rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResponse, CallToolResult, CancelTaskParams,
    CancelledNotificationParam, ClientRequest, CompleteRequestParams, CompleteResult,
    ExtensionCapabilities, GetPromptRequestParams, GetPromptResponse, GetPromptResult,
    GetTaskParams, GetTaskResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, RequestMetaObject,
    ResultType, ServerCapabilities, ServerConfig, ServerResult, SubscribeRequestParams, Tool,
    UnsubscribeRequestParams, UpdateTaskParams,
};
use mcp_light::rmcp::model::{RequestId, SubscriptionFilter};
use mcp_light::rmcp::service::{
    Peer, PeerRequestOptions, RequestContext, RoleClient, RoleServer, RunningService, ServiceError,
    SubscriptionContext,
};
use mcp_light::{HandlerTools, Server, ServerBuilder};
use rmcp::ServiceExt;
use rmcp::handler::client::ClientHandler;
use rmcp::transport::IntoTransport;
use rmcp::transport::async_rw::AsyncRwTransport;

use relay::{Relay, Routes, Watched};

/// The server behind the gateway, as an rmcp handler that forwards each
/// request to it and answers what it answers.
#[derive(Clone)]
pub struct Upstream {
    inner: Arc<Inner>,
}

struct Inner {
    client: RunningService<RoleClient, Relay>,
    /// Where what the upstream sends of its own accord goes.
    routes: Arc<Routes>,
    /// What the upstream said of itself at the handshake.
    config: ServerConfig,
    /// The upstream's tools as last listed: what `get_tool` answers.
    tools: RwLock<Vec<Tool>>,
    /// The tools neither listed nor called ([`Upstream::hide`]).
    hidden: RwLock<HashSet<String>>,
}

/// Why the gateway could not start on the upstream.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum UpstreamError {
    /// The handshake with the upstream failed.
    #[error("the upstream server did not complete the MCP handshake: {0}")]
    Handshake(String),
    /// The upstream answered its handshake but not `tools/list`.
    #[error("the upstream server advertises tools but did not list them: {0}")]
    Tools(#[source] ServiceError),
}

impl Upstream {
    /// Connects to the server on `transport` (a child process, an
    /// in-process pipe, any rmcp transport but Streamable HTTP's, for
    /// which see [`connect_http`](Upstream::connect_http)), shakes hands
    /// as rmcp's client, asks what it offers a client of protocol
    /// 2026-07-28 beyond that (`server/discover`: the tasks extension), and
    /// reads its tools.
    ///
    /// # Errors
    ///
    /// When the handshake fails, or the upstream advertises tools and does
    /// not list them.
    pub async fn connect<T, E, A>(transport: T) -> Result<Upstream, UpstreamError>
    where
        T: IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        Upstream::connect_with(Arc::new(Routes::default()), transport, true).await
    }

    /// Connects to the server that `transport`, rmcp's Streamable HTTP
    /// client, reaches, as [`connect`](Upstream::connect) does but without
    /// `server/discover`: rmcp's HTTP client takes a discovery as a new
    /// negotiation, after which the upstream refuses the session's
    /// requests. The upstream's extensions (tasks) are then not offered
    /// to the gateway's clients.
    ///
    /// # Errors
    ///
    /// As [`connect`](Upstream::connect).
    pub async fn connect_http<T, E, A>(transport: T) -> Result<Upstream, UpstreamError>
    where
        T: IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        Upstream::connect_with(Arc::new(Routes::default()), transport, false).await
    }

    /// Connects to the server that reads `write` and writes `read` (a
    /// child process's stdin and stdout), one JSON-RPC message a line, as
    /// [`connect`](Upstream::connect) does.
    ///
    /// A message longer than `max_message_bytes` is dropped unread, and
    /// every tool call in flight then ends with an error naming the limit:
    /// one of them was most likely waiting for it. (rmcp's own child
    /// process transport reads 16 MiB at most, and a call whose answer is
    /// longer waits for ever.)
    ///
    /// # Errors
    ///
    /// As [`connect`](Upstream::connect).
    pub async fn connect_lines<R, W>(
        read: R,
        write: W,
        max_message_bytes: usize,
    ) -> Result<Upstream, UpstreamError>
    where
        R: tokio::io::AsyncRead + Send + Unpin + 'static,
        W: tokio::io::AsyncWrite + Send + Unpin + 'static,
    {
        let routes = Arc::new(Routes::default());
        let read = Watched::new(read, max_message_bytes, Arc::clone(&routes));
        let transport = AsyncRwTransport::new_client(read, write)
            .with_max_line_length(max_message_bytes.saturating_add(1));
        Upstream::connect_with(routes, transport, true).await
    }

    async fn connect_with<T, E, A>(
        routes: Arc<Routes>,
        transport: T,
        discovers: bool,
    ) -> Result<Upstream, UpstreamError>
    where
        T: IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let relay = Relay {
            routes: Arc::clone(&routes),
        };
        let client = relay
            .serve(transport)
            .await
            .map_err(|error| UpstreamError::Handshake(error.to_string()))?;
        let mut config = client
            .peer_info()
            .map(|info| {
                let mut config = ServerConfig::new(info.capabilities.clone());
                config.instructions.clone_from(&info.instructions);
                if let Some(server_info) = &info.server_info {
                    config.server_info = server_info.clone();
                }
                config
            })
            .unwrap_or_else(|| ServerConfig::new(ServerCapabilities::default()));
        if discovers && let Some(extensions) = discovered_extensions(&client).await {
            config
                .capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .extend(extensions);
        }
        let tools = if config.capabilities.tools.is_some() {
            client
                .list_all_tools()
                .await
                .map_err(UpstreamError::Tools)?
        } else {
            Vec::new()
        };
        Ok(Upstream {
            inner: Arc::new(Inner {
                client,
                routes,
                config,
                tools: RwLock::new(tools),
                hidden: RwLock::default(),
            }),
        })
    }

    /// Neither lists nor calls the upstream's tool `name`: a call of it is
    /// refused as a call of a tool that does not exist.
    pub fn hide(&self, name: &str) {
        self.inner
            .hidden
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(name.to_owned());
    }

    fn is_hidden(&self, name: &str) -> bool {
        self.inner
            .hidden
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .contains(name)
    }

    /// The upstream's tools, as last listed (the hidden ones too).
    pub fn tools(&self) -> Vec<Tool> {
        self.inner
            .tools
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// What the upstream offers a client of protocol 2026-07-28 beyond what
/// its `initialize` answered (whose capabilities have no extensions): its
/// extensions, the tasks extension among them, by `server/discover`. An
/// upstream of an earlier revision refuses the method, or does not answer
/// it within a few seconds: none.
async fn discovered_extensions(
    client: &RunningService<RoleClient, Relay>,
) -> Option<ExtensionCapabilities> {
    let me = client.service().get_info();
    let meta = RequestMetaObject::with_client_context(
        ProtocolVersion::V_2026_07_28,
        me.client_info,
        me.capabilities,
    );
    let discovered = tokio::time::timeout(DISCOVERY, client.discover(meta)).await;
    discovered.ok()?.ok()?.capabilities.extensions
}

/// How long the gateway waits for the upstream's `server/discover`.
const DISCOVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// An mcp-light server in front of `upstream`: its tools kept
/// ([`HandlerTools::Kept`]), everything else forwarded. In front of an
/// upstream without tasks of its own, a call that outlasts the tasks' wait
/// ([`ServerBuilder::with_task_after`], a second by default) becomes the
/// gateway's task for a client that declared the extension
/// ([`ServerBuilder::with_handler_tasks`]). Set the store, the
/// limits, the clients' table or telemetry on the builder as for any
/// mcp-light server, then build and serve it.
pub fn gateway(upstream: Upstream) -> ServerBuilder {
    let name = upstream.inner.config.server_info.name.clone();
    // An upstream with tasks of its own answers its long calls as tasks;
    // in front of one without, the gateway does (for a client that
    // declared the extension, a call past the tasks' wait).
    let own_tasks = upstream.inner.config.capabilities.supports_tasks();
    let builder = Server::from_tools([])
        .with_implementation(
            format!("mcp-light-gateway ({name})"),
            env!("CARGO_PKG_VERSION"),
        )
        .with_handler(upstream)
        .with_handler_tools(HandlerTools::Kept);
    if own_tasks {
        builder
    } else {
        builder.with_handler_tasks()
    }
}

/// A result forwarded as the client's protocol revision has it: an
/// upstream on a revision before 2026-07-28 writes no `resultType`, which
/// that revision requires of every result (rmcp's server takes a
/// `"complete"` off again for a client on an older revision).
trait Forwarded {
    fn complete(self) -> Self;
}

macro_rules! forwarded_results {
    ($($result:ty),*) => {$(
        impl Forwarded for $result {
            fn complete(mut self) -> Self {
                self.result_type.get_or_insert(ResultType::COMPLETE);
                self
            }
        }
    )*};
}

forwarded_results!(
    CallToolResult,
    ListToolsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ReadResourceResult,
    ListPromptsResult,
    GetPromptResult,
    CompleteResult
);

impl Forwarded for ReadResourceResponse {
    fn complete(self) -> Self {
        match self {
            ReadResourceResponse::Complete(result) => result.complete().into(),
            other => other,
        }
    }
}

impl Forwarded for GetPromptResponse {
    fn complete(self) -> Self {
        match self {
            GetPromptResponse::Complete(result) => result.complete().into(),
            other => other,
        }
    }
}

/// The upstream's answer to a forwarded request, as the downstream client
/// receives it: its result [complete](Forwarded::complete), its error
/// [forwarded].
fn forward<T: Forwarded>(answered: Result<T, ServiceError>) -> Result<T, ErrorData> {
    answered.map(Forwarded::complete).map_err(forwarded)
}

/// An upstream call in flight: dropped before its answer came, it sends
/// the upstream `notifications/cancelled` for it.
struct Unanswered(Option<(Peer<RoleClient>, RequestId)>);

impl Drop for Unanswered {
    fn drop(&mut self) {
        if let Some((peer, id)) = self.0.take()
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(async move {
                let reason = "the gateway's client stopped waiting for the call".to_owned();
                let _ = peer
                    .notify_cancelled(CancelledNotificationParam::new(Some(id), Some(reason)))
                    .await;
            });
        }
    }
}

/// What the downstream client's request says of the client in its `_meta`
/// (on protocol 2026-07-28 its revision, capabilities, name and log level;
/// on earlier ones nothing), for the upstream to read on the request it
/// is forwarded as: a server then answers that client as it would
/// directly, an input-required result where it cannot ask it, a refusal
/// where it lacks a capability. Its progress token is the gateway's own.
fn client_context(context: &RequestContext<RoleServer>) -> Option<RequestMetaObject> {
    let mut meta = context.meta.clone();
    meta.remove(PROGRESS_TOKEN);
    (!meta.is_empty()).then_some(meta)
}

/// A request's parameters, which carry the client's context upstream
/// ([`client_context`]).
trait Asked: Sized {
    fn meta(&mut self) -> &mut Option<RequestMetaObject>;

    /// The parameters with the downstream client's context in their
    /// `_meta`, beside what the client put there itself.
    fn with_client(mut self, context: &RequestContext<RoleServer>) -> Self {
        if let Some(client) = client_context(context) {
            match self.meta() {
                Some(meta) => {
                    for (key, value) in client.0.0 {
                        meta.entry(key).or_insert(value);
                    }
                }
                empty => *empty = Some(client),
            }
        }
        self
    }
}

macro_rules! asked_params {
    ($($params:ty),*) => {$(
        impl Asked for $params {
            fn meta(&mut self) -> &mut Option<RequestMetaObject> {
                &mut self.meta
            }
        }
    )*};
}

asked_params!(
    GetTaskParams,
    UpdateTaskParams,
    CancelTaskParams,
    PaginatedRequestParams,
    ReadResourceRequestParams,
    GetPromptRequestParams,
    CompleteRequestParams,
    SubscribeRequestParams,
    UnsubscribeRequestParams
);

/// Optional parameters (a list's first page) with the client's context:
/// made where the client's request had none and its context says
/// something.
fn paginated_from_client(
    request: Option<PaginatedRequestParams>,
    context: &RequestContext<RoleServer>,
) -> Option<PaginatedRequestParams> {
    match request {
        Some(request) => Some(request.with_client(context)),
        None => client_context(context).map(|meta| {
            let mut params = PaginatedRequestParams::default();
            params.meta = Some(meta);
            params
        }),
    }
}

/// The `_meta` key of a request's progress token.
const PROGRESS_TOKEN: &str = "progressToken";

/// The upstream's error as the downstream client receives it: its own
/// JSON-RPC error where it sent one, else an internal error naming what
/// went wrong between the gateway and the upstream.
fn forwarded(error: ServiceError) -> ErrorData {
    match error {
        ServiceError::McpError(error) => error,
        other => ErrorData::internal_error(format!("the upstream server: {other}"), None),
    }
}

impl ServerHandler for Upstream {
    fn get_info(&self) -> ServerConfig {
        self.inner.config.clone()
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.inner.routes.heard_from(&context.peer);
        let first_page = request.as_ref().is_none_or(|page| page.cursor.is_none());
        let mut listed = forward(
            self.inner
                .client
                .list_tools(paginated_from_client(request, &context))
                .await,
        )?;
        let mut known = self
            .inner
            .tools
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        if first_page {
            known.clear();
        }
        for tool in &listed.tools {
            known.retain(|seen| seen.name != tool.name);
            known.push(tool.clone());
        }
        drop(known);
        listed.tools.retain(|tool| !self.is_hidden(&tool.name));
        Ok(listed)
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        if self.is_hidden(name) {
            return None;
        }
        self.inner
            .tools
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .find(|tool| tool.name == name)
            .cloned()
    }

    /// Forwards the call; what the upstream asks or tells meanwhile
    /// (sampling, elicitation, logging, progress) goes to the caller as
    /// part of it, and the caller's cancellation goes upstream.
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if self.is_hidden(&request.name) {
            return Err(ErrorData::invalid_params(
                format!(
                    "no tool is named `{}`; tools/list names the tools",
                    request.name
                ),
                None,
            ));
        }
        let mut call = self.inner.routes.begin(&context.peer);
        let asked = ClientRequest::CallToolRequest(CallToolRequest::new(request));
        let mut options = PeerRequestOptions::no_options();
        options.meta = client_context(&context);
        let handle = self
            .inner
            .client
            .send_cancellable_request(asked, options)
            .await
            .map_err(forwarded)?;
        call.progress_token(handle.progress_token.clone());
        // A call dropped unanswered (its client gone, its task cancelled)
        // is cancelled upstream too.
        let mut unanswered =
            Unanswered(Some((self.inner.client.peer().clone(), handle.id.clone())));
        let client_token = context.meta.get_progress_token();
        let answered = tokio::select! {
            answered = call.serve(handle.await_response(), &context.peer, client_token) => answered?,
            // Cancelled upstream as `unanswered` drops.
            () = context.ct.cancelled() => {
                return Err(ErrorData::internal_error("the call was cancelled", None));
            }
        };
        unanswered.0 = None;
        match answered.map_err(forwarded)? {
            ServerResult::CallToolResult(result) => {
                Ok(CallToolResponse::Complete(result.complete()))
            }
            ServerResult::InputRequiredResult(result) => {
                Ok(CallToolResponse::InputRequired(result))
            }
            ServerResult::CreateTaskResult(result) => Ok(CallToolResponse::Task(result)),
            _ => Err(ErrorData::internal_error(
                "the upstream server answered tools/call with another kind of result",
                None,
            )),
        }
    }

    #[allow(deprecated, reason = "what a client on 2025-11-25 sends")]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let uri = request.uri.clone();
        self.inner
            .client
            .subscribe(request.with_client(&context))
            .await
            .map_err(forwarded)?;
        self.inner.routes.subscribe(&uri, &context.peer);
        Ok(())
    }

    #[allow(deprecated, reason = "what a client on 2025-11-25 sends")]
    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let uri = request.uri.clone();
        self.inner
            .client
            .unsubscribe(request.with_client(&context))
            .await
            .map_err(forwarded)?;
        self.inner.routes.unsubscribe(&uri);
        Ok(())
    }

    /// A `subscriptions/listen` stream (protocol 2026-07-28) gets what it
    /// asks for that the gateway advertises, as the upstream does (rmcp
    /// narrows it to that).
    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(requested.clone())
    }

    /// Carries the upstream's list changes and the updates of the
    /// resources the stream accepted to it until the client closes it:
    /// the gateway subscribes upstream to each such resource, and
    /// unsubscribes when no client wants it any more.
    #[allow(
        deprecated,
        reason = "the gateway's own session with the upstream is 2025-11-25's"
    )]
    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let uris = context
            .accepted()
            .resource_subscriptions
            .clone()
            .unwrap_or_default();
        for uri in &uris {
            if !self.inner.routes.is_subscribed(uri) {
                // An upstream without subscriptions sends no updates.
                let _ = self
                    .inner
                    .client
                    .subscribe(SubscribeRequestParams::new(uri.clone()))
                    .await;
            }
        }
        let number = self.inner.routes.listen(context.sink().clone());
        context.cancelled().await;
        self.inner.routes.unlisten(number);
        for uri in &uris {
            if !self.inner.routes.is_subscribed(uri) {
                let _ = self
                    .inner
                    .client
                    .unsubscribe(UnsubscribeRequestParams::new(uri.clone()))
                    .await;
            }
        }
        Ok(())
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        self.inner.routes.heard_from(&context.peer);
        forward(
            self.inner
                .client
                .list_resources(paginated_from_client(request, &context))
                .await,
        )
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        forward(
            self.inner
                .client
                .list_resource_templates(paginated_from_client(request, &context))
                .await,
        )
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        forward(
            self.inner
                .client
                .read_resource_once(request.with_client(&context))
                .await,
        )
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        self.inner.routes.heard_from(&context.peer);
        forward(
            self.inner
                .client
                .list_prompts(paginated_from_client(request, &context))
                .await,
        )
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        forward(
            self.inner
                .client
                .get_prompt_once(request.with_client(&context))
                .await,
        )
    }

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        self.inner
            .client
            .get_task(request.with_client(&context))
            .await
            .map_err(forwarded)
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.inner
            .client
            .update_task(request.with_client(&context))
            .await
            .map_err(forwarded)
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.inner
            .client
            .cancel_task(request.with_client(&context))
            .await
            .map_err(forwarded)
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        forward(
            self.inner
                .client
                .complete(request.with_client(&context))
                .await,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_light::rmcp::model::{ContentBlock, ResourceContents};

    #[test]
    fn a_result_the_upstream_wrote_without_its_type_is_forwarded_complete() {
        let mut listed = ListToolsResult::with_all_items(Vec::new());
        listed.result_type = None;
        assert_eq!(listed.complete().result_type, Some(ResultType::COMPLETE));

        let mut called = CallToolResult::success(vec![ContentBlock::text("done")]);
        called.result_type = None;
        assert_eq!(called.complete().result_type, Some(ResultType::COMPLETE));

        let mut read = ReadResourceResult::new(vec![ResourceContents::text("x", "a://b")]);
        read.result_type = None;
        let ReadResourceResponse::Complete(read) = ReadResourceResponse::from(read).complete()
        else {
            panic!("a complete read stays complete");
        };
        assert_eq!(read.result_type, Some(ResultType::COMPLETE));
    }

    #[test]
    fn a_type_the_upstream_wrote_is_kept() {
        let mut listed = ListPromptsResult::with_all_items(Vec::new());
        let other = ResultType::TASK;
        listed.result_type = Some(other.clone());
        assert_eq!(listed.complete().result_type, Some(other));
    }
}
