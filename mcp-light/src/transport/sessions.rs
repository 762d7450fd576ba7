//! Sessions the transport validated, told apart from a bare header.
//!
//! A 2025-era client sends `Mcp-Session-Id` on every request after the
//! initialize handshake, and rmcp routes such a request into that session
//! only after checking that the session exists. A 2026-07-28 request is
//! served statelessly, and a header it carries was checked by nobody: a
//! caller could name someone else's session and claim the continuation
//! tokens bound to it. So the session a request counts as is the one rmcp
//! routed it into, marked here on its way in, never the header itself.

use futures_core::Stream;
use rmcp::model::{ClientJsonRpcMessage, GetExtensions, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::{EventStore, ServerSseMessage};
use rmcp::transport::streamable_http_server::{RestoreOutcome, SessionId, SessionManager};
use std::sync::Arc;

/// The session a request was routed into after rmcp validated it: put into
/// the request's extensions by [`ValidatedSessions`], read by the handler
/// when it names the caller.
#[derive(Debug, Clone)]
pub(crate) struct ValidatedSession(pub(crate) SessionId);

/// rmcp's in-memory session manager, marking every message it routes into a
/// session with that session's id, so that only sessions the transport
/// validated identify a caller (see [`Server::http_service`](crate::Server::http_service)).
///
/// Everything else is [`LocalSessionManager`]'s: session creation, streams,
/// resumption, closing.
#[derive(Debug, Default)]
pub(crate) struct ValidatedSessions {
    inner: LocalSessionManager,
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
        self.inner.initialize_session(id, message)
    }

    fn has_session(
        &self,
        id: &SessionId,
    ) -> impl Future<Output = Result<bool, Self::Error>> + Send {
        self.inner.has_session(id)
    }

    fn close_session(
        &self,
        id: &SessionId,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send {
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
