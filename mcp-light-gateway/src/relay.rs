//! What the upstream sends of its own accord, carried to the downstream
//! client: its requests (sampling, elicitation) and notifications
//! (progress, logging, resource updates, list changes).
//!
//! A request or a notification the upstream sends while a tool call is in
//! flight belongs to that call: it is handed to the call's own task
//! ([`Call::serve`]), which sends it to the client that made the call, as
//! part of that call (over Streamable HTTP, on the call's stream). Progress
//! goes to the call whose progress token it names; a request or a log
//! message to the newest call in flight. With no call in flight, a log
//! message and a list change go to the client heard from last; a resource
//! update to the clients subscribed to it.

// Sampling and logging are what clients on 2025-11-25 speak, and what an
// upstream on that revision sends; rmcp marks them deprecated for the
// revisions after it.
#![allow(deprecated, reason = "sampling and logging of clients on 2025-11-25")]

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use mcp_light::rmcp::ErrorData;
use mcp_light::rmcp::model::{
    ClientResult, CreateMessageRequest, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequest, ElicitRequestParams, ElicitResult, LoggingMessageNotificationParam,
    ProgressNotificationParam, ProgressToken, ResourceUpdatedNotificationParam, ServerRequest,
};
use mcp_light::rmcp::service::{NotificationContext, Peer, RequestContext, RoleServer};
use rmcp::ClientHandler;
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation};
use rmcp::model::{
    PromptListChangedNotification, ResourceListChangedNotification, ResourceUpdatedNotification,
    ServerNotification, ToolListChangedNotification,
};
use rmcp::service::RoleClient;
use rmcp::service::SubscriptionSink;
use tokio::sync::{mpsc, oneshot};

/// The routes from the upstream to the downstream clients, shared by the
/// forwarding handler ([`Upstream`](crate::Upstream)) and the upstream
/// client's handler ([`Relay`]).
#[derive(Default)]
pub(crate) struct Routes {
    next: AtomicU64,
    inner: Mutex<RouteTable>,
}

#[derive(Default)]
struct RouteTable {
    /// The calls in flight, oldest first: their number, their inbox and
    /// the upstream progress token of their request.
    calls: Vec<(u64, mpsc::UnboundedSender<Job>, Option<ProgressToken>)>,
    /// The client heard from last.
    last: Option<Peer<RoleServer>>,
    /// The clients subscribed to each resource.
    subscribed: HashMap<String, Vec<Peer<RoleServer>>>,
    /// The open `subscriptions/listen` streams (protocol 2026-07-28), by
    /// number: each takes what its filter accepted.
    listeners: Vec<(u64, SubscriptionSink)>,
}

/// What a call's task does for the upstream, as part of that call.
enum Job {
    Sample(
        CreateMessageRequestParams,
        oneshot::Sender<Result<CreateMessageResult, ErrorData>>,
    ),
    Elicit(
        ElicitRequestParams,
        oneshot::Sender<Result<ElicitResult, ErrorData>>,
    ),
    Log(LoggingMessageNotificationParam),
    Progress(ProgressNotificationParam),
    /// The upstream sent a message longer than the gateway reads, which
    /// was dropped: perhaps this call's answer.
    Dropped(usize),
}

impl Routes {
    fn table(&self) -> std::sync::MutexGuard<'_, RouteTable> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The client that sent a request: where a list change goes.
    pub(crate) fn heard_from(&self, peer: &Peer<RoleServer>) {
        self.table().last = Some(peer.clone());
    }

    /// A call begins; it is routed to until the returned [`Call`] drops.
    pub(crate) fn begin(self: &Arc<Self>, peer: &Peer<RoleServer>) -> Call {
        let number = self.next.fetch_add(1, Ordering::Relaxed);
        let (sender, inbox) = mpsc::unbounded_channel();
        let mut table = self.table();
        table.last = Some(peer.clone());
        table.calls.push((number, sender, None));
        Call {
            routes: Arc::clone(self),
            number,
            inbox,
        }
    }

    pub(crate) fn subscribe(&self, uri: &str, peer: &Peer<RoleServer>) {
        self.table()
            .subscribed
            .entry(uri.to_owned())
            .or_default()
            .push(peer.clone());
    }

    pub(crate) fn unsubscribe(&self, uri: &str) {
        self.table().subscribed.remove(uri);
    }

    /// Whether a client on protocol 2025-11-25 is subscribed to `uri`.
    pub(crate) fn is_subscribed(&self, uri: &str) -> bool {
        self.table().subscribed.contains_key(uri)
    }

    /// A `subscriptions/listen` stream opens: the upstream's notifications
    /// its filter accepts go to `sink` until [`Routes::unlisten`].
    pub(crate) fn listen(&self, sink: SubscriptionSink) -> u64 {
        let number = self.next.fetch_add(1, Ordering::Relaxed);
        self.table().listeners.push((number, sink));
        number
    }

    /// The stream `number` closed.
    pub(crate) fn unlisten(&self, number: u64) {
        self.table().listeners.retain(|(own, _)| *own != number);
    }

    /// Sends `notification` to every open stream whose filter accepts it.
    async fn to_listeners(&self, notification: ServerNotification) {
        let sinks: Vec<SubscriptionSink> = self
            .table()
            .listeners
            .iter()
            .map(|(_, sink)| sink.clone())
            .collect();
        for sink in sinks {
            // A stream that did not ask for it refuses it.
            let _ = sink.send(notification.clone()).await;
        }
    }

    /// The inbox of the call whose progress token is `token`, else of the
    /// newest call.
    fn call_for(&self, token: Option<&ProgressToken>) -> Option<mpsc::UnboundedSender<Job>> {
        let table = self.table();
        let by_token = token.and_then(|token| {
            table
                .calls
                .iter()
                .find(|(_, _, own)| own.as_ref() == Some(token))
        });
        by_token
            .or_else(|| table.calls.last())
            .map(|(_, inbox, _)| inbox.clone())
    }

    fn last(&self) -> Option<Peer<RoleServer>> {
        self.table().last.clone()
    }

    /// The upstream sent a message of more than `limit` bytes, which is
    /// dropped unread: every call in flight ends with an error naming the
    /// limit, rather than wait for an answer that may have been that
    /// message.
    pub(crate) fn dropped(&self, limit: usize) {
        for (_, inbox, _) in &self.table().calls {
            let _ = inbox.send(Job::Dropped(limit));
        }
    }
}

/// A tool call in flight, routed to until it drops.
pub(crate) struct Call {
    routes: Arc<Routes>,
    number: u64,
    inbox: mpsc::UnboundedReceiver<Job>,
}

impl Call {
    /// The upstream progress token of this call's request: the upstream's
    /// progress notifications naming it are this call's.
    pub(crate) fn progress_token(&self, token: ProgressToken) {
        let mut table = self.routes.table();
        if let Some(call) = table.calls.iter_mut().find(|(n, ..)| *n == self.number) {
            call.2 = Some(token);
        }
    }

    /// Runs `upstream` (the call forwarded), meanwhile sending `peer`, on
    /// this task, what the upstream asks or tells as part of it; the
    /// client's progress token, when it sent one, names the progress.
    /// An error when the upstream sent a message too long to read while
    /// the call was in flight.
    pub(crate) async fn serve<T>(
        &mut self,
        upstream: impl Future<Output = T>,
        peer: &Peer<RoleServer>,
        client_token: Option<ProgressToken>,
    ) -> Result<T, ErrorData> {
        let mut upstream = std::pin::pin!(upstream);
        let done = loop {
            tokio::select! {
                done = &mut upstream => break done,
                Some(job) = self.inbox.recv() => match job {
                    Job::Dropped(limit) => return Err(too_long(limit)),
                    job => run(job, peer, client_token.as_ref()).await,
                },
            }
        };
        // rmcp hands each notification to a task of its own, so one the
        // upstream sent before its answer may still be on its way here:
        // what has arrived after a few turns of the scheduler goes first.
        for _ in 0..3 {
            tokio::task::yield_now().await;
            while let Ok(job) = self.inbox.try_recv() {
                run(job, peer, client_token.as_ref()).await;
            }
        }
        Ok(done)
    }
}

/// The error of a call in flight when the upstream sent a message longer
/// than `limit` bytes.
fn too_long(limit: usize) -> ErrorData {
    ErrorData::internal_error(
        format!(
            "the upstream server sent a message longer than the {} MiB the gateway reads \
             while this call was in flight, and it was dropped: this call's answer, most \
             likely. Ask the tool for less, or start the gateway with a larger \
             --max-answer-mib",
            limit >> 20
        ),
        None,
    )
}

impl Drop for Call {
    fn drop(&mut self) {
        self.routes
            .table()
            .calls
            .retain(|(number, ..)| *number != self.number);
    }
}

/// Sends `job` to `peer`; progress under the client's own token, or not at
/// all when the client asked for none.
async fn run(job: Job, peer: &Peer<RoleServer>, client_token: Option<&ProgressToken>) {
    match job {
        Job::Sample(params, reply) => {
            let asked = ServerRequest::CreateMessageRequest(CreateMessageRequest::new(params));
            let answer = match peer.send_request(asked).await {
                Ok(ClientResult::CreateMessageResult(result)) => Ok(*result),
                other => Err(refused("sampling/createMessage", other.err())),
            };
            let _ = reply.send(answer);
        }
        Job::Elicit(params, reply) => {
            let asked = ServerRequest::ElicitRequest(ElicitRequest::new(params));
            let answer = match peer.send_request(asked).await {
                Ok(ClientResult::ElicitResult(result)) => Ok(result),
                other => Err(refused("elicitation/create", other.err())),
            };
            let _ = reply.send(answer);
        }
        Job::Log(params) => {
            let _ = peer.notify_logging_message(params).await;
        }
        Job::Dropped(_) => {}
        Job::Progress(mut params) => {
            if let Some(token) = client_token {
                params.progress_token = token.clone();
                let _ = peer.notify_progress(params).await;
            }
        }
    }
}

/// The upstream's error for a request the client did not answer.
fn refused(method: &str, error: Option<mcp_light::rmcp::service::ServiceError>) -> ErrorData {
    match error {
        Some(mcp_light::rmcp::service::ServiceError::McpError(error)) => error,
        Some(other) => ErrorData::internal_error(
            format!("the gateway's client did not answer {method}: {other}"),
            None,
        ),
        None => ErrorData::internal_error(
            format!("the gateway's client answered {method} with another result"),
            None,
        ),
    }
}

/// The upstream client's handler: what the upstream sends of its own
/// accord goes to the downstream client ([`Routes`]).
pub(crate) struct Relay {
    pub(crate) routes: Arc<Routes>,
}

impl Relay {
    /// Hands `job` to the call it belongs to; gives it back with no call in
    /// flight.
    fn to_call(&self, token: Option<&ProgressToken>, job: Job) -> Option<Job> {
        match self.routes.call_for(token) {
            Some(inbox) => inbox.send(job).err().map(|returned| returned.0),
            None => Some(job),
        }
    }
}

/// A request the upstream sent with no call in flight to carry it.
fn no_call(method: &str) -> ErrorData {
    ErrorData::invalid_request(
        format!(
            "the gateway carries {method} to its client only during a tools/call: no call is in \
             flight"
        ),
        None,
    )
}

impl ClientHandler for Relay {
    fn get_info(&self) -> ClientConfig {
        // Sampling and elicitation are carried to the downstream client,
        // which answers or refuses them.
        let capabilities = ClientCapabilities::builder()
            .enable_sampling()
            .enable_elicitation()
            .build();
        let gateway = Implementation::new("mcp-light-gateway", env!("CARGO_PKG_VERSION"));
        ClientConfig::new(capabilities, gateway)
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let (reply, answer) = oneshot::channel();
        if self.to_call(None, Job::Sample(params, reply)).is_some() {
            return Err(no_call("sampling/createMessage"));
        }
        answer
            .await
            .unwrap_or_else(|_| Err(no_call("sampling/createMessage")))
    }

    async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
        _: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let (reply, answer) = oneshot::channel();
        if self.to_call(None, Job::Elicit(params, reply)).is_some() {
            return Err(no_call("elicitation/create"));
        }
        answer
            .await
            .unwrap_or_else(|_| Err(no_call("elicitation/create")))
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        let token = params.progress_token.clone();
        // Progress of no call in flight has no one to go to.
        let _ = self.to_call(Some(&token), Job::Progress(params));
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        if let Some(Job::Log(params)) = self.to_call(None, Job::Log(params))
            && let Some(peer) = self.routes.last()
        {
            let _ = peer.notify_logging_message(params).await;
        }
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _: NotificationContext<RoleClient>,
    ) {
        let peers = self
            .routes
            .table()
            .subscribed
            .get(&params.uri)
            .cloned()
            .unwrap_or_default();
        for peer in peers {
            let _ = peer.notify_resource_updated(params.clone()).await;
        }
        let updated = ResourceUpdatedNotification::new(params);
        self.routes
            .to_listeners(ServerNotification::ResourceUpdatedNotification(updated))
            .await;
    }

    async fn on_resource_list_changed(&self, _: NotificationContext<RoleClient>) {
        if let Some(peer) = self.routes.last() {
            let _ = peer.notify_resource_list_changed().await;
        }
        let changed = ResourceListChangedNotification {
            method: Default::default(),
            extensions: Default::default(),
        };
        self.routes
            .to_listeners(ServerNotification::ResourceListChangedNotification(changed))
            .await;
    }

    async fn on_tool_list_changed(&self, _: NotificationContext<RoleClient>) {
        if let Some(peer) = self.routes.last() {
            let _ = peer.notify_tool_list_changed().await;
        }
        let changed = ToolListChangedNotification {
            method: Default::default(),
            extensions: Default::default(),
        };
        self.routes
            .to_listeners(ServerNotification::ToolListChangedNotification(changed))
            .await;
    }

    async fn on_prompt_list_changed(&self, _: NotificationContext<RoleClient>) {
        if let Some(peer) = self.routes.last() {
            let _ = peer.notify_prompt_list_changed().await;
        }
        let changed = PromptListChangedNotification {
            method: Default::default(),
            extensions: Default::default(),
        };
        self.routes
            .to_listeners(ServerNotification::PromptListChangedNotification(changed))
            .await;
    }
}

pin_project_lite::pin_project! {
    /// The upstream's stdout as the gateway reads it: each line longer
    /// than its limit is reported to [`Routes::dropped`] once, as rmcp's
    /// transport, reading lines of one byte more at most, drops it.
    pub(crate) struct Watched<R> {
        #[pin]
        read: R,
        line: Line,
    }
}

/// The line being read from the upstream.
struct Line {
    limit: usize,
    /// Its bytes so far.
    run: usize,
    routes: Arc<Routes>,
}

impl<R> Watched<R> {
    /// `read`, its lines of more than `limit` bytes reported to `routes`.
    pub(crate) fn new(read: R, limit: usize, routes: Arc<Routes>) -> Self {
        let line = Line {
            limit,
            run: 0,
            routes,
        };
        Watched { read, line }
    }
}

impl Line {
    /// Counts `bytes` read into the line, and the lines they begin.
    fn count(&mut self, mut bytes: &[u8]) {
        while let Some(at) = bytes.iter().position(|b| *b == b'\n') {
            self.grow(at);
            self.run = 0;
            bytes = &bytes[at + 1..];
        }
        self.grow(bytes.len());
    }

    fn grow(&mut self, by: usize) {
        let before = self.run;
        self.run = self.run.saturating_add(by);
        if before <= self.limit && self.run > self.limit {
            self.routes.dropped(self.limit);
        }
    }
}

impl<R: tokio::io::AsyncRead> tokio::io::AsyncRead for Watched<R> {
    fn poll_read(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let this = self.project();
        let filled = buf.filled().len();
        let polled = this.read.poll_read(cx, buf);
        if polled.is_ready() {
            this.line.count(&buf.filled()[filled..]);
        }
        polled
    }
}
