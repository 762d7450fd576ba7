//! JWT-shaped bearer tokens into the OAuth resource server's validation
//! (`Auth::layer` over a route), against an issuer on 127.0.0.1 that
//! publishes a real Ed25519 key: tokens that key signed with fuzzed
//! headers and claims, the same with a byte changed, three fuzzed parts,
//! and any text.
//!
//! Holds: a request is let through exactly when the token is one the key
//! signed, for this issuer and audience, not expired, not early, with a
//! subject and the required scope; a token whose scope is short is 403,
//! any other refusal 401 (or 400 for a malformed header); every refusal
//! has a body saying why and, for 401 and 403, a `WWW-Authenticate`
//! challenge; every check ends within the bound.

#![no_main]

use std::sync::OnceLock;
use std::time::{SystemTime, UNIX_EPOCH};

use arbitrary::Arbitrary;
use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use http_body_util::BodyExt;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, EncodingKey};
use libfuzzer_sys::fuzz_target;
use mcp_light::auth::{Auth, OAuthResource};
use mcp_light_fuzz::json::{Json, Text};
use mcp_light_fuzz::{Form, answer, form, run_bounded, runtime};
use serde_json::{Value, json};
use tower_service::Service;

const AUDIENCE: &str = "http://127.0.0.1:8080/mcp";
const KID: &str = "k1";
const SCOPE: &str = "inventory:read";

struct Issuer {
    url: String,
    key: EncodingKey,
    router: axum::Router,
}

/// The issuer, started once: its key is made from a fixed seed, so a
/// saved input signs the same way in every run.
fn issuer() -> &'static Issuer {
    static ISSUER: OnceLock<Issuer> = OnceLock::new();
    ISSUER.get_or_init(|| {
        // PKCS#8 v1 of an Ed25519 private key: a fixed prefix, then the seed.
        let mut der = vec![
            0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22,
            0x04, 0x20,
        ];
        der.extend_from_slice(&[7; 32]);
        let key = EncodingKey::from_ed_der(&der);
        let mut jwk = Jwk::from_encoding_key(&key, Algorithm::EdDSA).expect("a JWK");
        jwk.common.key_id = Some(KID.to_owned());
        let jwks = json!({"keys": [jwk]}).to_string();
        runtime().block_on(async {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("a port");
            let url = format!("http://{}", listener.local_addr().expect("an address"));
            let metadata = json!({"issuer": url, "jwks_uri": format!("{url}/jwks")}).to_string();
            let issuer = axum::Router::new()
                .route(
                    "/.well-known/oauth-authorization-server",
                    axum::routing::get(move || async move { metadata }),
                )
                .route("/jwks", axum::routing::get(move || async move { jwks }));
            tokio::spawn(async move { axum::serve(listener, issuer).await });
            let resource = OAuthResource::new(&url, AUDIENCE).with_required_scopes([SCOPE]);
            let auth = Auth::new()
                .with_oauth(resource)
                .expect("the resource is valid");
            let router = axum::Router::new()
                .route("/mcp", axum::routing::post(|| async { "through" }))
                .layer(auth.layer());
            Issuer { url, key, router }
        })
    })
}

fn now() -> i64 {
    let seconds = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_secs();
    i64::try_from(seconds).expect("a timestamp")
}

/// A claim that is right, absent, or something else.
#[derive(Arbitrary, Debug)]
enum Claim {
    Right,
    Absent,
    Other(Json),
}

/// A time claim: well in the past, well in the future, absent, or any
/// JSON.
#[derive(Arbitrary, Debug)]
enum Time {
    Past,
    Future,
    Absent,
    Other(Json),
}

#[derive(Arbitrary, Debug)]
struct Claims {
    iss: Claim,
    aud: Claim,
    /// `aud` as a list holding the audience, when `aud` is right.
    aud_list: bool,
    sub: Claim,
    exp: Time,
    nbf: Time,
    scope: Claim,
    extra: Vec<(Text, Json)>,
}

#[derive(Arbitrary, Debug)]
enum Alg {
    EdDsa,
    Named(Text),
    Absent,
}

#[derive(Arbitrary, Debug)]
struct Header {
    alg: Alg,
    kid: Claim,
    extra: Vec<(Text, Json)>,
}

#[derive(Arbitrary, Debug)]
enum Token {
    /// Signed with the issuer's key.
    Signed {
        header: Box<Header>,
        claims: Box<Claims>,
        change: Option<(u16, u8)>,
    },
    /// Three parts of fuzzed JSON and signature bytes.
    Parts {
        header: Json,
        claims: Json,
        signature: Vec<u8>,
    },
    Text(Text),
    Bytes(Vec<u8>),
}

#[derive(Arbitrary, Debug)]
struct Input {
    token: Token,
    /// The scheme as written (`Bearer`, `bearer`, ...), or none.
    scheme: Option<Text>,
}

fn b64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(char::from(ALPHABET[(n >> (18 - 6 * i) & 63) as usize]));
        }
    }
    out
}

/// A JSON object written field by field, so a fuzzed extra field may
/// repeat a key the token already has.
fn object(fields: Vec<(String, String)>) -> String {
    let body: Vec<String> = fields
        .into_iter()
        .map(|(key, value)| format!("{}:{value}", Value::String(key)))
        .collect();
    format!("{{{}}}", body.join(","))
}

fn extra(fields: &[(Text, Json)]) -> Vec<(String, String)> {
    fields
        .iter()
        .map(|(key, value)| (key.to_text(), value.to_text()))
        .collect()
}

/// What the resource server must do with a token.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Expect {
    /// Let it through.
    Through,
    /// Refuse it for its scope alone (403).
    Scope,
    /// Refuse it (400, 401).
    Refused,
    /// A fuzzed claim may or may not be right: only the shape of the
    /// answer is checked.
    Unknown,
}

/// A token the issuer's key signs: its header and claims as fuzzed.
fn signed(
    header: &Header,
    claims: &Claims,
    change: Option<(u16, u8)>,
    issuer: &Issuer,
) -> (String, Expect) {
    let now = now();
    let mut valid = true;
    let mut known = claims.extra.is_empty() && header.extra.is_empty();
    let mut fields = Vec::new();
    let mut set =
        |fields: &mut Vec<(String, String)>, name: &str, claim: &Claim, right: Value| match claim {
            Claim::Right => fields.push((name.to_owned(), right.to_string())),
            Claim::Absent => valid = false,
            Claim::Other(json) => {
                known = false;
                fields.push((name.to_owned(), json.to_text()));
            }
        };
    set(&mut fields, "iss", &claims.iss, json!(issuer.url));
    let audience = if claims.aud_list {
        json!(["other", AUDIENCE])
    } else {
        json!(AUDIENCE)
    };
    set(&mut fields, "aud", &claims.aud, audience);
    set(&mut fields, "sub", &claims.sub, json!("user-7"));
    let scoped = match &claims.scope {
        Claim::Right => {
            fields.push(("scope".into(), json!(format!("openid {SCOPE}")).to_string()));
            true
        }
        Claim::Absent => false,
        Claim::Other(json) => {
            known = false;
            fields.push(("scope".into(), json.to_text()));
            false
        }
    };
    for (name, time) in [("exp", &claims.exp), ("nbf", &claims.nbf)] {
        match time {
            Time::Past => {
                valid &= name == "nbf";
                fields.push((name.into(), (now - 3600).to_string()));
            }
            Time::Future => {
                valid &= name == "exp";
                fields.push((name.into(), (now + 3600).to_string()));
            }
            Time::Absent => valid &= name == "nbf",
            Time::Other(json) => {
                known = false;
                fields.push((name.into(), json.to_text()));
            }
        }
    }
    fields.extend(extra(&claims.extra));

    let mut head = Vec::new();
    match &header.alg {
        Alg::EdDsa => head.push(("alg".to_owned(), json!("EdDSA").to_string())),
        Alg::Named(text) => {
            let alg = text.to_text();
            valid &= alg == "EdDSA";
            head.push(("alg".to_owned(), Value::String(alg).to_string()));
        }
        Alg::Absent => valid = false,
    }
    match &header.kid {
        Claim::Right => head.push(("kid".to_owned(), json!(KID).to_string())),
        // The issuer has one key: a token naming none is checked against it.
        Claim::Absent => {}
        Claim::Other(json) => {
            // `null` names no key, as an absent `kid` does.
            valid &=
                matches!(json.to_value(), Some(Value::Null)) || json.to_value() == Some(json!(KID));
            head.push(("kid".to_owned(), json.to_text()));
        }
    }
    head.extend(extra(&header.extra));

    let message = format!(
        "{}.{}",
        b64(object(head).as_bytes()),
        b64(object(fields).as_bytes())
    );
    let signature = jsonwebtoken::crypto::sign(message.as_bytes(), &issuer.key, Algorithm::EdDSA)
        .expect("the key signs");
    let mut token = format!("{message}.{signature}").into_bytes();
    if let Some((at, byte)) = change {
        let at = usize::from(at) % token.len();
        // Any byte changed breaks the signature: a changed token is
        // refused whatever its claims said.
        if token[at] != byte {
            token[at] = byte;
            return (
                String::from_utf8_lossy(&token).into_owned(),
                Expect::Refused,
            );
        }
    }
    let token = String::from_utf8_lossy(&token).into_owned();
    let expect = match (valid, known) {
        (false, _) => Expect::Refused,
        (true, false) => Expect::Unknown,
        (true, true) if scoped => Expect::Through,
        (true, true) => Expect::Scope,
    };
    (token, expect)
}

fn token(input: &Token, issuer: &Issuer) -> (String, Expect) {
    match input {
        Token::Signed {
            header,
            claims,
            change,
        } => signed(header, claims, *change, issuer),
        // Nothing but the key signs: a token made of fuzzed parts is forged.
        Token::Parts {
            header,
            claims,
            signature,
        } => (
            format!(
                "{}.{}.{}",
                b64(header.to_text().as_bytes()),
                b64(claims.to_text().as_bytes()),
                b64(signature)
            ),
            Expect::Refused,
        ),
        Token::Text(text) => (text.to_text(), Expect::Refused),
        Token::Bytes(bytes) => (String::from_utf8_lossy(bytes).into_owned(), Expect::Refused),
    }
}

fuzz_target!(|data: &[u8]| {
    let issuer = issuer();
    let (scheme, token, expected) = match form::<Input>(data) {
        None => return,
        // The header's value as written: whatever it is, no key signed it.
        Some(Form::Raw(raw)) => {
            let text = String::from_utf8_lossy(raw);
            let (scheme, token) = text.split_once(' ').unwrap_or(("Bearer", &text));
            (scheme.to_owned(), token.to_owned(), Expect::Refused)
        }
        Some(Form::Built(input)) => {
            let (token, expected) = token(&input.token, issuer);
            let scheme = input
                .scheme
                .as_ref()
                .map_or_else(|| "Bearer".to_owned(), Text::to_text);
            (scheme, token, expected)
        }
    };
    check(issuer, &scheme, &token, expected);
});

fn check(issuer: &Issuer, scheme: &str, token: &str, expected: Expect) {
    let Ok(authorization) = header::HeaderValue::from_str(&format!("{scheme} {token}")) else {
        return;
    };
    // Only the scheme as the specification writes it is sure to be read.
    let expected = match expected {
        Expect::Through | Expect::Scope if scheme != "Bearer" => Expect::Unknown,
        other => other,
    };
    let request = Request::post("/mcp")
        .header(header::AUTHORIZATION, authorization)
        .body(Body::empty())
        .expect("a request");
    let mut router = issuer.router.clone();
    let (status, challenge, body) = run_bounded("a bearer check", async {
        let response = router
            .call(request)
            .await
            .expect("the router is infallible");
        let status = response.status();
        let challenge = response.headers().get(header::WWW_AUTHENTICATE).cloned();
        let body = response
            .into_body()
            .collect()
            .await
            .expect("a body")
            .to_bytes();
        (status, challenge, body)
    });
    let body = String::from_utf8_lossy(&body);
    let refusals = [
        StatusCode::BAD_REQUEST,
        StatusCode::UNAUTHORIZED,
        StatusCode::FORBIDDEN,
    ];
    match expected {
        Expect::Through => assert_eq!(
            status,
            StatusCode::OK,
            "a valid token {token} was refused: {body}"
        ),
        Expect::Scope => assert_eq!(
            status,
            StatusCode::FORBIDDEN,
            "a token without the scope, {token}: {body}"
        ),
        Expect::Refused => assert!(
            status == StatusCode::BAD_REQUEST || status == StatusCode::UNAUTHORIZED,
            "{scheme} {token} was answered {status}: {body}"
        ),
        Expect::Unknown => assert!(
            status == StatusCode::OK || refusals.contains(&status),
            "{scheme} {token} was answered {status}: {body}"
        ),
    }
    if status != StatusCode::OK {
        answer::refusal_names_something(&body, "a bearer refusal");
        if status != StatusCode::BAD_REQUEST {
            assert!(
                challenge.is_some(),
                "a {status} without a WWW-Authenticate challenge, for {token}: {body}"
            );
        }
    }
}
