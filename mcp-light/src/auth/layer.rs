//! The tower layer: authenticate, then let the request through with its
//! [`Principal`] or answer the refusal.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::http::Request;
use axum::response::{IntoResponse, Response};
use tower_layer::Layer;
use tower_service::Service;

use super::check::{Auth, Challenger};

/// A tower [`Layer`] that authenticates every request before the service it
/// wraps sees it: built by [`Auth::layer`].
///
/// An authenticated request reaches the inner service with its
/// [`Principal`](crate::principal::Principal) in its extensions, which the MCP handler
/// reads as the caller, and, for an OAuth access token, the
/// [`GrantedScopes`](super::GrantedScopes) the token grants; any other is answered 401 (or 403, 400) by the
/// layer itself.
#[derive(Clone, Debug)]
pub struct AuthLayer {
    auth: Auth,
}

impl AuthLayer {
    pub(super) fn new(auth: Auth) -> AuthLayer {
        AuthLayer { auth }
    }
}

impl<S> Layer<S> for AuthLayer {
    type Service = AuthService<S>;

    fn layer(&self, inner: S) -> AuthService<S> {
        AuthService {
            auth: self.auth.clone(),
            inner,
        }
    }
}

/// The service [`AuthLayer`] wraps around another.
#[derive(Clone, Debug)]
pub struct AuthService<S> {
    auth: Auth,
    inner: S,
}

impl<S, B> Service<Request<B>> for AuthService<S>
where
    S: Service<Request<B>> + Clone + Send + 'static,
    S::Response: IntoResponse,
    S::Future: Send + 'static,
    B: Send + 'static,
{
    type Response = Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: Request<B>) -> Self::Future {
        // The clone that was made ready serves this request; the fresh one
        // waits for the next `poll_ready`.
        let ready = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, ready);
        let auth = self.auth.clone();
        Box::pin(async move {
            match auth.authenticate(request.headers()).await {
                Ok(authenticated) => {
                    let extensions = request.extensions_mut();
                    extensions.insert(authenticated.principal);
                    if let Some(scopes) = authenticated.scopes {
                        extensions.insert(scopes);
                        extensions.insert(Challenger(auth));
                    }
                    Ok(inner.call(request).await?.into_response())
                }
                Err(refusal) => Ok(auth.refuse(refusal)),
            }
        })
    }
}

impl Auth {
    /// The tower layer that authenticates every request of the service it
    /// wraps (see the [module docs](super)).
    pub fn layer(&self) -> AuthLayer {
        AuthLayer::new(self.clone())
    }
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;

    use axum::http::StatusCode;

    use super::*;
    use crate::principal::{GrantedScopes, Principal};

    /// Answers the principal it was handed, so a test sees what got through.
    #[derive(Clone)]
    struct Echo;

    impl Service<Request<()>> for Echo {
        type Response = String;
        type Error = Infallible;
        type Future = std::future::Ready<Result<String, Infallible>>;

        fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
            Poll::Ready(Ok(()))
        }

        fn call(&mut self, request: Request<()>) -> Self::Future {
            let principal = request.extensions().get::<Principal>().cloned();
            let scopes = request.extensions().get::<GrantedScopes>().cloned();
            std::future::ready(Ok(format!("{principal:?} {scopes:?}")))
        }
    }

    async fn send(authorization: Option<&str>) -> (StatusCode, String) {
        let auth = Auth::new()
            .with_bearer_token("alice", "alice-secret-0123456789")
            .unwrap();
        let mut service = auth.layer().layer(Echo);
        let mut request = Request::builder().uri("/mcp");
        if let Some(value) = authorization {
            request = request.header("authorization", value);
        }
        let response = service.call(request.body(()).unwrap()).await.unwrap();
        let status = response.status();
        let body = axum::body::to_bytes(response.into_body(), 1 << 16)
            .await
            .unwrap();
        (status, String::from_utf8(body.to_vec()).unwrap())
    }

    #[tokio::test]
    async fn an_authenticated_request_reaches_the_service_with_its_principal() {
        let (status, body) = send(Some("Bearer alice-secret-0123456789")).await;
        assert_eq!(status, StatusCode::OK);
        // A static token is the operator's own: no scopes narrow it.
        assert_eq!(body, r#"Some(Principal("alice")) None"#);
    }

    #[tokio::test]
    async fn any_other_request_is_answered_by_the_layer() {
        let (status, body) = send(None).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert!(body.contains("requires authentication"), "{body}");
        let (status, _) = send(Some("Bearer wrong-secret-0123456789")).await;
        assert_eq!(status, StatusCode::UNAUTHORIZED);
    }
}
