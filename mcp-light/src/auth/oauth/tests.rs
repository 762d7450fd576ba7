//! The resource server against an issuer the tests run themselves: keys
//! generated here, metadata and JWKS served on 127.0.0.1.

use std::time::{SystemTime, UNIX_EPOCH};

use axum::http::{HeaderMap, StatusCode, header};
use jsonwebtoken::{EncodingKey, Header};
use serde_json::json;

use super::*;
use crate::auth::Auth;

const AUDIENCE: &str = "http://127.0.0.1:8080/mcp";

/// An Ed25519 key pair: the private half signs, the public half is in the
/// issuer's JWKS under `kid`.
struct Key {
    kid: String,
    encoding: EncodingKey,
}

impl Key {
    fn generate(kid: &str) -> Key {
        let mut seed = [0u8; 32];
        getrandom::fill(&mut seed).unwrap();
        // PKCS#8 v1 of an Ed25519 private key: a fixed prefix, then the seed.
        let mut der = hex("302e020100300506032b657004220420");
        der.extend_from_slice(&seed);
        Key {
            kid: kid.to_owned(),
            encoding: EncodingKey::from_ed_der(&der),
        }
    }

    fn jwk(&self) -> Value {
        let mut jwk = Jwk::from_encoding_key(&self.encoding, Algorithm::EdDSA).unwrap();
        jwk.common.key_id = Some(self.kid.clone());
        serde_json::to_value(jwk).unwrap()
    }

    fn sign(&self, claims: Value) -> String {
        let mut header = Header::new(Algorithm::EdDSA);
        header.kid = Some(self.kid.clone());
        jsonwebtoken::encode(&header, &claims, &self.encoding).unwrap()
    }
}

fn hex(text: &str) -> Vec<u8> {
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).unwrap())
        .collect()
}

fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// An authorization server on 127.0.0.1: its RFC 8414 metadata and JWKS.
struct Issuer {
    url: String,
    key: Key,
}

impl Issuer {
    async fn start(published: Vec<Value>) -> Issuer {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let metadata = json!({"issuer": url, "jwks_uri": format!("{url}/jwks")}).to_string();
        let jwks = json!({"keys": published}).to_string();
        let router = axum::Router::new()
            .route(
                "/.well-known/oauth-authorization-server",
                axum::routing::get(move || async move { metadata }),
            )
            .route("/jwks", axum::routing::get(move || async move { jwks }));
        tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
        Issuer {
            url,
            key: Key::generate("k1"),
        }
    }

    /// An issuer publishing its own key.
    async fn new() -> Issuer {
        let key = Key::generate("k1");
        let mut issuer = Issuer::start(vec![key.jwk()]).await;
        issuer.key = key;
        issuer
    }

    fn claims(&self) -> Value {
        json!({
            "iss": self.url, "aud": AUDIENCE, "sub": "user-7",
            "exp": now() + 600, "iat": now(), "scope": "inventory openid",
        })
    }

    fn verifier(&self, scopes: &[&str]) -> Verifier {
        let resource =
            OAuthResource::new(&self.url, AUDIENCE).with_required_scopes(scopes.iter().copied());
        Verifier::new(resource).unwrap()
    }
}

fn with(mut claims: Value, key: &str, value: Value) -> Value {
    claims[key] = value;
    claims
}

#[tokio::test]
async fn a_valid_token_names_the_issuer_and_subject() {
    let issuer = Issuer::new().await;
    let token = issuer.key.sign(issuer.claims());
    let principal = issuer.verifier(&["inventory"]).principal(&token).await;
    assert_eq!(principal, Ok(Principal(format!("{}#user-7", issuer.url))));
}

#[tokio::test]
async fn expired_premature_foreign_and_misaddressed_tokens_are_invalid() {
    let issuer = Issuer::new().await;
    let verifier = issuer.verifier(&[]);
    let cases = [
        (
            with(issuer.claims(), "exp", json!(now() - 600)),
            "has expired",
        ),
        (
            with(issuer.claims(), "nbf", json!(now() + 600)),
            "not valid yet",
        ),
        (
            with(issuer.claims(), "iss", json!("https://evil.example")),
            "not issued by",
        ),
        (
            with(issuer.claims(), "aud", json!("https://other.example/mcp")),
            "not for this resource",
        ),
    ];
    for (claims, why) in cases {
        let refused = verifier.principal(&issuer.key.sign(claims)).await;
        match refused {
            Err(AuthRefusal::InvalidToken(message)) => assert!(message.contains(why), "{message}"),
            other => panic!("expected {why}, got {other:?}"),
        }
    }
    let mut no_sub = issuer.claims();
    no_sub.as_object_mut().unwrap().remove("sub");
    let refused = verifier.principal(&issuer.key.sign(no_sub)).await;
    assert_eq!(
        refused,
        Err(AuthRefusal::InvalidToken(
            "the access token has no `sub` claim".into()
        ))
    );
}

#[tokio::test]
async fn a_token_signed_by_another_key_is_refused() {
    let issuer = Issuer::new().await;
    let forger = Key::generate("k1"); // the same key id, another key
    let refused = issuer
        .verifier(&[])
        .principal(&forger.sign(issuer.claims()))
        .await;
    assert!(
        matches!(&refused, Err(AuthRefusal::InvalidToken(m)) if m.contains("signature")),
        "{refused:?}"
    );
    let unknown = Key::generate("k9");
    let refused = issuer
        .verifier(&[])
        .principal(&unknown.sign(issuer.claims()))
        .await;
    assert!(
        matches!(&refused, Err(AuthRefusal::InvalidToken(m)) if m.contains("`k9` is not one of the issuer's")),
        "{refused:?}"
    );
}

#[tokio::test]
async fn a_missing_scope_is_insufficient_scope() {
    let issuer = Issuer::new().await;
    let token = issuer
        .key
        .sign(with(issuer.claims(), "scope", json!("openid")));
    let refused = issuer
        .verifier(&["inventory", "openid"])
        .principal(&token)
        .await;
    assert_eq!(
        refused,
        Err(AuthRefusal::InsufficientScope("inventory".into()))
    );
    let mut listed = with(issuer.claims(), "scp", json!(["inventory"]));
    listed.as_object_mut().unwrap().remove("scope");
    let token = issuer.key.sign(listed);
    assert!(
        issuer
            .verifier(&["inventory"])
            .principal(&token)
            .await
            .is_ok()
    );
}

#[tokio::test]
async fn a_valid_token_grants_the_scopes_of_its_scope_and_scp_claims() {
    let issuer = Issuer::new().await;
    let claims = with(issuer.claims(), "scp", json!(["inventory:write"]));
    let token = issuer.key.sign(claims);
    let (_, granted) = issuer.verifier(&[]).verify(&token).await.unwrap();
    assert_eq!(
        granted.iter().collect::<Vec<_>>(),
        ["inventory", "openid", "inventory:write"]
    );
    assert!(granted.missing(&["inventory:read"]) == ["inventory:read"]);
}

#[tokio::test]
async fn the_layer_keeps_an_oauth_tokens_scopes_beside_its_principal() {
    use std::task::{Context, Poll};

    use axum::http::Request;
    use tower_layer::Layer;
    use tower_service::Service;

    use crate::auth::GrantedScopes;

    /// Answers the scopes it was handed.
    #[derive(Clone)]
    struct Echo;

    impl Service<Request<()>> for Echo {
        type Response = String;
        type Error = std::convert::Infallible;
        type Future = std::future::Ready<Result<String, Self::Error>>;

        fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
            Poll::Ready(Ok(()))
        }

        fn call(&mut self, request: Request<()>) -> Self::Future {
            let scopes = request.extensions().get::<GrantedScopes>().cloned();
            std::future::ready(Ok(format!("{scopes:?}")))
        }
    }

    let issuer = Issuer::new().await;
    let resource = OAuthResource::new(&issuer.url, AUDIENCE);
    let auth = Auth::new().with_oauth(resource).unwrap();
    let token = issuer.key.sign(issuer.claims());
    let request = Request::builder()
        .header(header::AUTHORIZATION, format!("Bearer {token}"))
        .body(())
        .unwrap();
    let response = auth.layer().layer(Echo).call(request).await.unwrap();
    let body = axum::body::to_bytes(response.into_body(), 1 << 16)
        .await
        .unwrap();
    let expected = format!("{:?}", Some(GrantedScopes::new(["inventory", "openid"])));
    assert_eq!(String::from_utf8(body.to_vec()).unwrap(), expected);
}

#[tokio::test]
async fn symmetric_and_unsigned_tokens_are_refused() {
    let issuer = Issuer::new().await;
    let hs256 = jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &issuer.claims(),
        &EncodingKey::from_secret(b"anyone can sign this").unwrap(),
    )
    .unwrap();
    let refused = issuer.verifier(&[]).principal(&hs256).await;
    assert!(
        matches!(&refused, Err(AuthRefusal::InvalidToken(m)) if m.contains("asymmetric")),
        "{refused:?}"
    );
}

#[tokio::test]
async fn the_metadata_names_the_resource_and_its_issuer_at_the_path_of_rfc_9728() {
    let issuer = Issuer::new().await;
    let verifier = issuer.verifier(&["inventory"]);
    assert_eq!(
        verifier.metadata_url(),
        "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp"
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let router = verifier.metadata_router();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    let http = http_client().unwrap();
    for path in [METADATA_PATH, "/.well-known/oauth-protected-resource/mcp"] {
        let metadata: Value = http
            .get(format!("http://{addr}{path}"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(
            metadata,
            json!({
                "resource": AUDIENCE,
                "authorization_servers": [issuer.url],
                "bearer_methods_supported": ["header"],
                "scopes_supported": ["inventory"],
            })
        );
    }
}

#[tokio::test]
async fn a_refusal_points_to_the_metadata() {
    let issuer = Issuer::new().await;
    let auth = Auth::new()
        .with_oauth(OAuthResource::new(&issuer.url, AUDIENCE))
        .unwrap();
    let refused = auth.authenticate(&HeaderMap::new()).await.unwrap_err();
    let response = auth.refuse(refused);
    assert_eq!(response.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        response.headers()[header::WWW_AUTHENTICATE],
        "Bearer resource_metadata=\"http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp\""
    );
}

#[test]
fn only_https_or_loopback_http_urls_are_accepted() {
    for url in [
        "http://auth.example.com",
        "auth.example.com",
        "ftp://127.0.0.1",
    ] {
        let error = Verifier::new(OAuthResource::new(url, AUDIENCE)).unwrap_err();
        assert!(
            matches!(error, AuthError::BadUrl { what: "issuer", .. }),
            "{url}"
        );
    }
    Verifier::new(OAuthResource::new("https://auth.example.com", AUDIENCE)).unwrap();
}

/// Nothing in this crate's unit tests installs a rustls provider: the
/// verifier's client is handed ring's and the process keeps none.
#[test]
fn building_the_verifier_installs_no_crypto_provider_for_the_process() {
    let verifier = Verifier::new(OAuthResource::new("https://auth.example.com", AUDIENCE));
    assert!(verifier.is_ok(), "{verifier:?}");
    assert!(
        rustls::crypto::CryptoProvider::get_default().is_none(),
        "a crypto provider was installed for the whole process"
    );
}

#[tokio::test]
async fn an_issuer_without_keys_says_where_it_looked() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let other = json!({"issuer": "http://127.0.0.1:1"}).to_string();
    let router = axum::Router::new().route(
        "/.well-known/oauth-authorization-server",
        axum::routing::get(move || async move { other }),
    );
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    let verifier = Verifier::new(OAuthResource::new(&url, AUDIENCE)).unwrap();
    let error = verifier.discover_jwks_url().await.unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "the issuer's metadata gives no keys ({url}/.well-known/oauth-authorization-server \
             names another issuer; {url}/.well-known/openid-configuration answered 404 Not Found); \
             set the JWKS URL explicitly"
        )
    );
}
