//! Sessions the transport validated, told apart from a bare header, and
//! bounded in number.
//!
//! A 2025-era client sends `Mcp-Session-Id` on every request after the
//! initialize handshake, and rmcp routes such a request into that session
//! only after checking that the session exists. A 2026-07-28 request is
//! served statelessly, and a header it carries was checked by nobody: a
//! caller could name someone else's session and claim the continuation
//! tokens bound to it. So the session a request counts as is the one rmcp
//! routed it into, marked here on its way in, never the header itself.
//!
//! Each open session holds a task, channels and buffers in this process
//! until the client closes it (`DELETE`) or it sits idle past its timeout,
//! so their number is bounded ([`SessionSlots`]): overall, and for each
//! authenticated principal. An `initialize` past a bound is refused before
//! rmcp creates anything.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use futures_core::Stream;
use rmcp::model::{ClientJsonRpcMessage, GetExtensions, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::{EventStore, ServerSseMessage};
use rmcp::transport::streamable_http_server::{RestoreOutcome, SessionId, SessionManager};

/// The session a request was routed into after rmcp validated it: put into
/// the request's extensions by [`ValidatedSessions`], read by the handler
/// when it names the caller.
#[derive(Debug, Clone)]
pub(crate) struct ValidatedSession(pub(crate) SessionId);

/// rmcp's in-memory session manager, marking every message it routes into a
/// session with that session's id, so that only sessions the transport
/// validated identify a caller (see [`Server::http_service`](crate::Server::http_service)),
/// and holding each session's slot ([`SessionSlots`]) until it closes.
///
/// Everything else is [`LocalSessionManager`]'s: session creation, streams,
/// resumption, closing.
#[derive(Debug)]
pub(crate) struct ValidatedSessions {
    inner: LocalSessionManager,
    /// The slot of each open session, taken from the `initialize` that
    /// opened it; freed when the session closes.
    held: Mutex<HashMap<SessionId, Slot>>,
}

impl ValidatedSessions {
    /// Sessions that close after `idle_timeout` without a request (rmcp's
    /// keep-alive).
    pub(crate) fn new(idle_timeout: std::time::Duration) -> ValidatedSessions {
        let mut inner = LocalSessionManager::default();
        inner.session_config.keep_alive = Some(idle_timeout);
        ValidatedSessions {
            inner,
            held: Mutex::new(HashMap::new()),
        }
    }

    /// Keeps the slot reserved for the `initialize` in `message`, if any,
    /// as session `id`'s until it closes.
    fn hold_slot(&self, id: &SessionId, message: &ClientJsonRpcMessage) {
        let ClientJsonRpcMessage::Request(request) = message else {
            return;
        };
        let slot = request
            .request
            .extensions()
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<Reservation>())
            .and_then(Reservation::take);
        if let Some(slot) = slot {
            lock(&self.held).insert(id.clone(), slot);
        }
    }
}

/// The session bounds an HTTP server keeps, and how many sessions hold a
/// slot now: overall, and for each authenticated principal. A session
/// without a principal counts only overall: behind a load balancer every
/// client has the balancer's address, so an address is no caller.
#[derive(Debug)]
pub(crate) struct SessionSlots {
    max: usize,
    max_per_principal: usize,
    held: Mutex<Held>,
}

#[derive(Debug, Default)]
struct Held {
    open: usize,
    by_principal: HashMap<String, usize>,
}

/// Why a session could not be opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SessionsFull {
    /// The server holds its most sessions.
    Overall { max: usize },
    /// This principal holds its most sessions.
    Principal { principal: String, max: usize },
}

impl std::fmt::Display for SessionsFull {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionsFull::Overall { max } => write!(
                f,
                "this server already holds its most open sessions ({max}); try again later, \
                 or speak protocol 2026-07-28, which needs no session"
            ),
            SessionsFull::Principal { principal, max } => write!(
                f,
                "the caller `{principal}` already holds its most open sessions on this server \
                 ({max}); close one (DELETE /mcp with its Mcp-Session-Id) or let an idle one \
                 expire first"
            ),
        }
    }
}

impl SessionSlots {
    /// At most `max` sessions open, at most `max_per_principal` of them
    /// for one principal.
    pub(crate) fn new(max: usize, max_per_principal: usize) -> Arc<SessionSlots> {
        Arc::new(SessionSlots {
            max,
            max_per_principal,
            held: Mutex::new(Held::default()),
        })
    }

    /// A slot for a session `principal` (if authenticated) opens, or why
    /// there is none. The slot is free again when the [`Reservation`] is
    /// dropped unused, or when the session it was kept for closes.
    pub(crate) fn reserve(
        self: &Arc<Self>,
        principal: Option<&str>,
    ) -> Result<Reservation, SessionsFull> {
        let mut held = lock(&self.held);
        if held.open >= self.max {
            return Err(SessionsFull::Overall { max: self.max });
        }
        if let Some(principal) = principal {
            let count = held.by_principal.entry(principal.to_owned()).or_default();
            if *count >= self.max_per_principal {
                return Err(SessionsFull::Principal {
                    principal: principal.to_owned(),
                    max: self.max_per_principal,
                });
            }
            *count += 1;
        }
        held.open += 1;
        Ok(Reservation(Arc::new(Mutex::new(Some(Slot {
            slots: Arc::clone(self),
            principal: principal.map(str::to_owned),
        })))))
    }

    fn free(&self, principal: Option<&str>) {
        let mut held = lock(&self.held);
        held.open = held.open.saturating_sub(1);
        if let Some(principal) = principal
            && let Some(count) = held.by_principal.get_mut(principal)
        {
            *count -= 1;
            if *count == 0 {
                held.by_principal.remove(principal);
            }
        }
    }
}

/// One session's place under the bounds; freed when dropped.
#[derive(Debug)]
struct Slot {
    slots: Arc<SessionSlots>,
    principal: Option<String>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.slots.free(self.principal.as_deref());
    }
}

/// A slot reserved for the session an `initialize` request opens, carried
/// in the request's extensions to the session manager, which keeps it
/// while the session lives. Dropped unused (the handshake failed), it
/// frees the slot.
#[derive(Debug, Clone)]
pub(crate) struct Reservation(Arc<Mutex<Option<Slot>>>);

impl Reservation {
    fn take(&self) -> Option<Slot> {
        lock(&self.0).take()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Marks `message` as routed into session `id`.
fn mark(id: &SessionId, message: &mut ClientJsonRpcMessage) {
    let marker = ValidatedSession(id.clone());
    match message {
        ClientJsonRpcMessage::Request(request) => {
            request.request.extensions_mut().insert(marker);
        }
        ClientJsonRpcMessage::Notification(notification) => {
            notification.notification.extensions_mut().insert(marker);
        }
        ClientJsonRpcMessage::Response(_) | ClientJsonRpcMessage::Error(_) => {}
    }
}

impl SessionManager for ValidatedSessions {
    type Error = <LocalSessionManager as SessionManager>::Error;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    fn create_session(
        &self,
    ) -> impl Future<Output = Result<(SessionId, Self::Transport), Self::Error>> + Send {
        self.inner.create_session()
    }

    fn initialize_session(
        &self,
        id: &SessionId,
        mut message: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<ServerJsonRpcMessage, Self::Error>> + Send {
        mark(id, &mut message);
        self.hold_slot(id, &message);
        self.inner.initialize_session(id, message)
    }

    fn has_session(
        &self,
        id: &SessionId,
    ) -> impl Future<Output = Result<bool, Self::Error>> + Send {
        self.inner.has_session(id)
    }

    /// Closes the session (a `DELETE`, its idle timeout, its end) and
    /// frees its slot; rmcp may call it twice for one session.
    fn close_session(
        &self,
        id: &SessionId,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send {
        let slot = lock(&self.held).remove(id);
        drop(slot);
        self.inner.close_session(id)
    }

    fn create_stream(
        &self,
        id: &SessionId,
        mut message: ClientJsonRpcMessage,
    ) -> impl Future<
        Output = Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error>,
    > + Send {
        mark(id, &mut message);
        self.inner.create_stream(id, message)
    }

    fn accept_message(
        &self,
        id: &SessionId,
        mut message: ClientJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send {
        mark(id, &mut message);
        self.inner.accept_message(id, message)
    }

    fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> impl Future<
        Output = Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error>,
    > + Send {
        self.inner.create_standalone_stream(id)
    }

    fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> impl Future<
        Output = Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error>,
    > + Send {
        self.inner.resume(id, last_event_id)
    }

    fn restore_session(
        &self,
        id: SessionId,
    ) -> impl Future<Output = Result<RestoreOutcome<Self::Transport>, Self::Error>> + Send {
        self.inner.restore_session(id)
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.inner.event_store()
    }
}
