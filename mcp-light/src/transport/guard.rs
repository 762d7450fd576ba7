//! A tower service in front of rmcp's Streamable HTTP service: each
//! request's body is read up to the size limit, and a JSON POST whose body
//! is no well-formed message is answered `400 Bad Request` with a JSON-RPC
//! error (see [`super::jsonrpc`]) instead of rmcp's plain-text refusal. The
//! usual message is parsed once, by rmcp: the guard scans it without
//! building anything, and parses the bytes itself only for the unusual
//! ones and after rmcp refused them.
//!
//! A `tools/call` whose tool (or dispatcher action) needs OAuth scopes the
//! request's token does not grant ([`GrantedScopes`]) is refused `403
//! insufficient_scope` here, before rmcp reads it; only a server with
//! scoped tools scans a call for that, and only for a token that says what
//! it grants.
//!
//! An `initialize` that opens a session takes a slot of the session bounds
//! ([`SessionSlots`]) here, or is refused with a JSON-RPC error: `503`
//! when the server holds its most sessions, `429` when the caller does.

use std::convert::Infallible;
use std::task::{Context, Poll};

use axum::body::{Bytes, HttpBody};
use axum::http::{Method, Request, Response, StatusCode, header};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use std::sync::Arc;

use rmcp::model::{CallToolRequestMethod, ConstString, ErrorData, ProtocolVersion};
use rmcp::transport::StreamableHttpService;
use tower_service::Service;

use super::McpHandler;
use super::jsonrpc::{self, Checked, MessageRefusal};
use super::origins::AllowedOrigins;
use super::request::HttpContext;
use super::sessions::{SessionSlots, SessionsFull, ValidatedSessions};
use crate::auth::{Auth, AuthRefusal, Challenger, Refused};
use crate::principal::{GrantedScopes, Principal};
use crate::server::Server;
use crate::store::BoxFuture;

/// The response every layer here answers with: rmcp's.
type HttpResponse = Response<BoxBody<Bytes, Infallible>>;

/// rmcp's Streamable HTTP service behind the JSON-RPC checks: what
/// [`Server::http_service`](crate::Server::http_service) builds.
/// rmcp's Streamable HTTP service, as the guard hands it the requests it
/// let through.
pub(crate) type Rmcp = StreamableHttpService<McpHandler, ValidatedSessions>;

/// The guard, cheap to clone (a router clones its service per request):
/// rmcp's service sits behind an `Arc` and is called through a shared
/// reference ([`StreamableHttpService::handle`]), so no request clones it
/// and the configuration it carries.
#[derive(Clone)]
pub(crate) struct JsonRpcGuard {
    rmcp: Arc<Rmcp>,
    max_body_bytes: usize,
    origins: Option<Arc<AllowedOrigins>>,
    sessions: Arc<SessionSlots>,
    scoped: Option<Server>,
}

impl std::fmt::Debug for JsonRpcGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonRpcGuard")
            .field("max_body_bytes", &self.max_body_bytes)
            .field("scoped", &self.scoped.is_some())
            .finish_non_exhaustive()
    }
}

impl JsonRpcGuard {
    pub(crate) fn new(
        rmcp: Rmcp,
        max_body_bytes: usize,
        origins: Option<AllowedOrigins>,
        sessions: Arc<SessionSlots>,
        scoped: Option<Server>,
    ) -> JsonRpcGuard {
        JsonRpcGuard {
            rmcp: Arc::new(rmcp),
            max_body_bytes,
            origins: origins.map(Arc::new),
            sessions,
            scoped,
        }
    }
}

impl<B> Service<Request<B>> for JsonRpcGuard
where
    B: HttpBody + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = HttpResponse;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<HttpResponse, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        if let Some(refusal) = self
            .origins
            .as_deref()
            .and_then(|origins| origins.refusal(request.headers()))
        {
            return Box::pin(std::future::ready(Ok(forbidden(refusal))));
        }
        let rmcp = Arc::clone(&self.rmcp);
        let max = self.max_body_bytes;
        let sessions = Arc::clone(&self.sessions);
        let scoped = self.scoped.clone();
        Box::pin(async move {
            let (mut parts, body) = request.into_parts();
            let bytes = match Limited::new(body, max).collect().await {
                Ok(collected) => collected.to_bytes(),
                Err(error) if error.downcast_ref::<LengthLimitError>().is_some() => {
                    let message = format!(
                        "the request body is larger than {max} bytes, the most this server reads"
                    );
                    let refusal = MessageRefusal::invalid_request(None, message);
                    return Ok(refused(StatusCode::PAYLOAD_TOO_LARGE, refusal));
                }
                Err(error) => {
                    let refusal =
                        MessageRefusal::parse_error(format!("the body could not be read: {error}"));
                    return Ok(refused(StatusCode::BAD_REQUEST, refusal));
                }
            };
            let checked = parts.method == Method::POST && is_json(&parts.headers);
            if checked
                && let Some(server) = &scoped
                && let Some(granted) = parts.extensions.get::<GrantedScopes>()
                && let Some(refusal) = scope_refusal(server, granted, &bytes)
            {
                let auth = parts.extensions.get::<Challenger>().map(|c| &c.0);
                return Ok(challenged(auth, refusal));
            }
            let mut body = bytes.clone();
            if checked {
                match jsonrpc::check(&bytes, may_take_arguments(&parts.headers)) {
                    Err(refusal) => return Ok(refused(StatusCode::BAD_REQUEST, *refusal)),
                    Ok(Checked::AsIs) => {}
                    // With a session header, rmcp routes it into that
                    // session: it opens none.
                    Ok(Checked::Initialize(_)) if parts.headers.contains_key(SESSION_ID) => {}
                    Ok(Checked::Initialize(id)) => {
                        let principal = parts.extensions.get::<Principal>();
                        match sessions.reserve(principal.map(|Principal(name)| name.as_str())) {
                            Ok(reservation) => {
                                parts.extensions.insert(reservation);
                            }
                            Err(full) => {
                                let status = match full {
                                    SessionsFull::Overall { .. } => StatusCode::SERVICE_UNAVAILABLE,
                                    SessionsFull::Principal { .. } => StatusCode::TOO_MANY_REQUESTS,
                                };
                                tracing::debug!(%full, "refused to open a session");
                                return Ok(refused(
                                    status,
                                    MessageRefusal::busy(id, full.to_string()),
                                ));
                            }
                        }
                    }
                    Ok(Checked::Arguments { span, arguments }) => {
                        let mut rest = Vec::with_capacity(bytes.len() - span.len() + 2);
                        rest.extend_from_slice(&bytes[..span.start]);
                        rest.extend_from_slice(b"{}");
                        rest.extend_from_slice(&bytes[span.end..]);
                        body = Bytes::from(rest);
                        // The handler reads the rest off the request itself
                        // (`HttpRequest::take`): only the arguments taken
                        // here travel in a context of their own.
                        HttpContext::of(&parts, scoped.is_some())
                            .with_arguments(arguments)
                            .insert(&mut parts);
                    }
                }
            }
            let response = rmcp
                .handle(Request::from_parts(parts, Full::new(body)))
                .await;
            // rmcp answers a JSON body it could not read `415` in plain
            // text; the bytes were not parsed before, so they are now, to
            // say what is wrong in JSON-RPC's terms.
            if checked
                && response.status() == StatusCode::UNSUPPORTED_MEDIA_TYPE
                && let Err(refusal) = jsonrpc::parse(&bytes)
            {
                return Ok(refused(StatusCode::BAD_REQUEST, *refusal));
            }
            Ok(response)
        })
    }
}

/// The refusal of a `tools/call` in `bytes` whose tool, or the tool its
/// dispatcher routes to, needs scopes `granted` lacks; `None` for any
/// other message, and for one the scan cannot read (the call path checks
/// those after routing). The scan builds nothing but what it borrows.
fn scope_refusal(server: &Server, granted: &GrantedScopes, bytes: &[u8]) -> Option<AuthRefusal> {
    use serde::Deserialize;
    use serde_json::value::RawValue;
    use std::borrow::Cow;

    #[derive(Deserialize)]
    struct Head<'a> {
        #[serde(borrow)]
        method: Option<Cow<'a, str>>,
        #[serde(borrow)]
        params: Option<&'a RawValue>,
    }
    #[derive(Deserialize)]
    struct Params<'a> {
        #[serde(borrow)]
        name: Cow<'a, str>,
        #[serde(borrow)]
        arguments: Option<&'a RawValue>,
    }
    /// A dispatcher's routing fields. A `describe: true` of an action is
    /// checked as a call of it: an action the caller may not use is not
    /// shown to it, nor its schema.
    #[derive(Deserialize)]
    struct Routing<'a> {
        #[serde(borrow)]
        resource: Option<Cow<'a, str>>,
        #[serde(borrow)]
        action: Option<Cow<'a, str>>,
    }

    let head = serde_json::from_slice::<Head<'_>>(bytes).ok()?;
    if head.method.as_deref() != Some(CallToolRequestMethod::VALUE) {
        return None;
    }
    let params = serde_json::from_str::<Params<'_>>(head.params?.get()).ok()?;
    let routing = params
        .arguments
        .and_then(|arguments| serde_json::from_str::<Routing<'_>>(arguments.get()).ok());
    let route = routing
        .as_ref()
        .and_then(|routing| match (&routing.resource, &routing.action) {
            (Some(resource), Some(action)) => Some((&**resource, &**action)),
            _ => None,
        });
    let needed = server.scopes_of_call(&params.name, route);
    if needed.is_empty() {
        return None;
    }
    let missing = granted.missing(needed);
    if missing.is_empty() {
        return None;
    }
    let tool = match route {
        Some((resource, action)) => format!("{} ({resource} {action})", params.name),
        None => params.name.into_owned(),
    };
    Some(AuthRefusal::ToolScope {
        tool,
        missing: missing.join(" "),
    })
}

/// `refusal` answered as `auth` answers it (with its resource metadata
/// URL), or as an [`Auth`] without OAuth would.
fn challenged(auth: Option<&Auth>, refusal: AuthRefusal) -> HttpResponse {
    let Refused {
        status,
        challenge,
        body,
    } = match auth {
        Some(auth) => auth.refused(refusal),
        None => Auth::new().refused(refusal),
    };
    let mut response = Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "text/plain; charset=utf-8");
    if let Some(challenge) = challenge {
        response = response.header(header::WWW_AUTHENTICATE, challenge);
    }
    response
        .body(Full::new(Bytes::from(body)).boxed())
        .expect("a status and valid headers make a valid response")
}

/// A `403 Forbidden` in plain text, as rmcp answers a refused `Host` or
/// `Origin`.
fn forbidden(message: &'static str) -> HttpResponse {
    Response::builder()
        .status(StatusCode::FORBIDDEN)
        .body(Full::new(Bytes::from_static(message.as_bytes())).boxed())
        .expect("a status makes a valid response")
}

/// The header a 2025-era client names its session in.
const SESSION_ID: &str = "mcp-session-id";

/// Whether rmcp reads nothing of a `tools/call`'s arguments but hands them
/// to the call: on protocol versions before 2026-07-28, which check no
/// `Mcp-Param-*` header against them. A request without the version
/// header is of an earlier version.
fn may_take_arguments(headers: &axum::http::HeaderMap) -> bool {
    headers
        .get("mcp-protocol-version")
        .map(|version| version.as_bytes())
        .is_none_or(|version| version < ProtocolVersion::STANDARD_HEADERS.as_str().as_bytes())
}

/// Whether the request says its body is JSON; rmcp answers any other
/// POST `415 Unsupported Media Type` itself.
fn is_json(headers: &axum::http::HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
}

/// `refusal` as a JSON-RPC error body under `status`.
fn refused(status: StatusCode, refusal: MessageRefusal) -> HttpResponse {
    let body = serde_json::to_vec(&refusal.into_message()).unwrap_or_else(|error| {
        // Not reached: rmcp's error message always serializes.
        let fallback = ErrorData::internal_error(error.to_string(), None);
        serde_json::to_vec(&fallback).unwrap_or_default()
    });
    Response::builder()
        .status(status)
        .header(header::CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from(body)).boxed())
        .expect("a status and a content type make a valid response")
}
