//! A tower service in front of rmcp's Streamable HTTP service: each
//! request's body is read up to the size limit, and a JSON POST whose body
//! is no well-formed message is answered `400 Bad Request` with a JSON-RPC
//! error (see [`super::jsonrpc`]) instead of rmcp's plain-text refusal. The
//! usual message is parsed once, by rmcp: the guard scans it without
//! building anything, and parses the bytes itself only for the unusual
//! ones and after rmcp refused them.

use std::convert::Infallible;
use std::task::{Context, Poll};

use axum::body::{Bytes, HttpBody};
use axum::http::{Method, Request, Response, StatusCode, header};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full, LengthLimitError, Limited};
use rmcp::model::ErrorData;
use tower_service::Service;

use super::jsonrpc::{self, Refusal};
use crate::store::BoxFuture;

/// The response every layer here answers with: rmcp's.
type HttpResponse = Response<BoxBody<Bytes, Infallible>>;

/// rmcp's Streamable HTTP service behind the JSON-RPC checks: what
/// [`Server::http_service`](crate::Server::http_service) builds.
#[derive(Clone)]
pub struct JsonRpcGuard<S> {
    inner: S,
    max_body_bytes: usize,
}

impl<S> std::fmt::Debug for JsonRpcGuard<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JsonRpcGuard")
            .field("max_body_bytes", &self.max_body_bytes)
            .finish_non_exhaustive()
    }
}

impl<S> JsonRpcGuard<S> {
    /// `inner` behind the checks, reading bodies of at most
    /// `max_body_bytes`.
    pub(crate) fn new(inner: S, max_body_bytes: usize) -> JsonRpcGuard<S> {
        JsonRpcGuard {
            inner,
            max_body_bytes,
        }
    }
}

impl<S, B> Service<Request<B>> for JsonRpcGuard<S>
where
    S: Service<Request<Full<Bytes>>, Response = HttpResponse, Error = Infallible>
        + Clone
        + Send
        + 'static,
    S::Future: Send,
    B: HttpBody + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    type Response = HttpResponse;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<HttpResponse, Infallible>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        // rmcp's service is always ready; it is cloned for each call.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        let mut inner = self.inner.clone();
        let max = self.max_body_bytes;
        Box::pin(async move {
            let (parts, body) = request.into_parts();
            let bytes = match Limited::new(body, max).collect().await {
                Ok(collected) => collected.to_bytes(),
                Err(error) if error.downcast_ref::<LengthLimitError>().is_some() => {
                    let message = format!(
                        "the request body is larger than {max} bytes, the most this server reads"
                    );
                    let refusal = Refusal::invalid_request(None, message);
                    return Ok(refused(StatusCode::PAYLOAD_TOO_LARGE, refusal));
                }
                Err(error) => {
                    let refusal =
                        Refusal::parse_error(format!("the body could not be read: {error}"));
                    return Ok(refused(StatusCode::BAD_REQUEST, refusal));
                }
            };
            let checked = parts.method == Method::POST && is_json(&parts.headers);
            if checked && let Err(refusal) = jsonrpc::check(&bytes) {
                return Ok(refused(StatusCode::BAD_REQUEST, *refusal));
            }
            let response = inner
                .call(Request::from_parts(parts, Full::new(bytes.clone())))
                .await?;
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
fn refused(status: StatusCode, refusal: Refusal) -> HttpResponse {
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
