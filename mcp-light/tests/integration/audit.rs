//! The configuration audit (`Server::audit`): one finding per check, on
//! configurations made for each. The Redis checks start a `redis-server`
//! of their own (as the store's tests do), the OAuth checks an issuer on
//! 127.0.0.1 or a port nothing listens on.

use std::sync::Arc;
use std::time::Duration;

use mcp_light::audit::{Audit, Finding, OUTPUT_SCHEMAS, STORE, Severity, TRANSPORT};
use mcp_light::auth::Auth;
use mcp_light::prelude::*;
use mcp_light::store::{BoxFuture, ContinuationStore, Entry, StoreError};
use mcp_light::token::Token;
use mcp_light::transport::HttpOptions;
use mcp_light::{ServerBuilder, tools};

/// Fetch one gadget.
#[mcp_tool(resource = "gadget", action = "retrieve")]
fn audit_gadget_get(id: u32) -> u32 {
    id
}

/// List the gadgets.
#[mcp_heavy(resource = "gadget", action = "list")]
fn audit_gadget_list() -> Vec<u32> {
    (0..10).collect()
}

fn builder() -> ServerBuilder {
    Server::from_tools(tools![audit_gadget_get, audit_gadget_list]).with_dispatcher("gadgets")
}

fn server() -> Server {
    builder().build().unwrap()
}

fn addr(text: &str) -> std::net::SocketAddr {
    text.parse().unwrap()
}

fn bearer() -> HttpOptions {
    let auth = Auth::new()
        .with_bearer_token("ci", "a-long-random-secret-of-ci")
        .unwrap();
    HttpOptions::new().with_auth(auth)
}

/// The finding of `check`, which the audit must hold.
fn finding<'a>(audit: &'a Audit, check: &str) -> &'a Finding {
    audit
        .get(check)
        .unwrap_or_else(|| panic!("no `{check}` in:\n{audit}"))
}

/// `check` came out `severity`, its message holding every one of `words`.
fn assert_finding(audit: &Audit, check: &str, severity: Severity, words: &[&str]) {
    let found = finding(audit, check);
    assert_eq!(found.severity, severity, "{audit}");
    for word in words {
        assert!(
            found.message.contains(word),
            "`{word}` missing from:\n{audit}"
        );
    }
}

#[tokio::test]
async fn a_server_on_stdio_with_results_in_memory_has_no_finding() {
    let audit = server().audit().await;
    assert_eq!(audit.findings().count(), 0, "{audit}");
    assert_eq!(audit.worst(), Severity::Pass);
    let checks: Vec<&str> = audit.checks().iter().map(|f| &*f.check).collect();
    assert_eq!(checks, [TRANSPORT, STORE, OUTPUT_SCHEMAS]);
    assert_finding(&audit, TRANSPORT, Severity::Pass, &["stdio"]);
    assert_finding(&audit, STORE, Severity::Pass, &["this process's memory"]);
    let printed = audit.to_string();
    assert_eq!(printed.lines().count(), 3, "{printed}");
    assert!(
        printed.lines().all(|line| line.starts_with("✓ ")),
        "{printed}"
    );
}

#[tokio::test]
async fn http_on_a_loopback_address_needs_no_authentication() {
    for at in ["127.0.0.1:8080", "[::1]:8080", "[::ffff:127.0.0.1]:8080"] {
        let audit = server().audit().http(addr(at), &HttpOptions::new()).await;
        assert_eq!(audit.findings().count(), 0, "{at}: {audit}");
        assert_finding(&audit, TRANSPORT, Severity::Pass, &["a loopback address"]);
    }
}

#[tokio::test]
async fn http_beyond_loopback_without_authentication_is_an_error() {
    for (at, shown) in [
        ("0.0.0.0:8080", "0.0.0.0:8080 (every network interface)"),
        ("[::]:8080", "[::]:8080 (every network interface)"),
        ("10.1.2.3:9000", "10.1.2.3:9000"),
    ] {
        let audit = server().audit().http(addr(at), &HttpOptions::new()).await;
        assert!(audit.has_errors(), "{audit}");
        assert_finding(
            &audit,
            TRANSPORT,
            Severity::Error,
            &[shown, "without authentication", "HttpOptions::with_auth"],
        );
        let line = audit.to_string();
        assert!(line.starts_with("✗ transport: HTTP on "), "{line}");
    }
}

#[tokio::test]
async fn http_beyond_loopback_with_bearer_tokens_passes() {
    let audit = server().audit().http(addr("0.0.0.0:8080"), &bearer()).await;
    assert!(!audit.has_errors(), "{audit}");
    assert_finding(
        &audit,
        TRANSPORT,
        Severity::Pass,
        &["every request authenticated: static bearer tokens"],
    );
}

#[tokio::test]
async fn an_auth_that_accepts_no_credential_is_an_error_anywhere() {
    let options = HttpOptions::new().with_auth(Auth::new());
    for at in ["127.0.0.1:8080", "0.0.0.0:8080"] {
        let audit = server().audit().http(addr(at), &options).await;
        assert_finding(
            &audit,
            TRANSPORT,
            Severity::Error,
            &["accepts no credential", "refused 401"],
        );
    }
}

#[tokio::test]
async fn the_memory_store_beyond_loopback_is_a_warning_for_replicas() {
    let audit = server().audit().http(addr("0.0.0.0:8080"), &bearer()).await;
    assert_eq!(audit.worst(), Severity::Warning, "{audit}");
    assert_finding(
        &audit,
        STORE,
        Severity::Warning,
        &["this process's memory", "any other", "RedisStore"],
    );
    // On loopback no other replica can be asked.
    let audit = server()
        .audit()
        .http(addr("127.0.0.1:8080"), &bearer())
        .await;
    assert_finding(&audit, STORE, Severity::Pass, &["this process's memory"]);
}

#[tokio::test]
async fn a_server_without_a_store_passes_and_says_no_token_is_minted() {
    let server = builder().with_shared_store(None).build().unwrap();
    let audit = server.audit().http(addr("0.0.0.0:8080"), &bearer()).await;
    assert_eq!(audit.findings().count(), 0, "{audit}");
    assert_finding(&audit, STORE, Severity::Pass, &["no token is minted"]);
}

#[tokio::test]
async fn output_schemas_are_a_warning_that_says_what_they_cost() {
    let server = builder().with_output_schemas(true).build().unwrap();
    let audit = server.audit().await;
    assert_eq!(audit.worst(), Severity::Warning, "{audit}");
    let found = finding(&audit, OUTPUT_SCHEMAS);
    assert_eq!(found.severity, Severity::Warning);
    // Both tools and the dispatcher.
    assert!(
        found
            .message
            .contains("an outputSchema for 3 of its 3 tools"),
        "{audit}"
    );
    let bytes: usize = found
        .message
        .split("grows by ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no byte count in {audit}"));
    let schemas: usize = server
        .tools()
        .iter()
        .map(|tool| {
            serde_json::to_string(tool.output_schema.as_ref().unwrap())
                .unwrap()
                .len()
        })
        .sum();
    // The schemas, and `"outputSchema":` and a comma for each tool.
    assert_eq!(bytes, schemas + 3 * r#","outputSchema":"#.len(), "{audit}");
    assert!(
        found
            .message
            .contains("ServerBuilder::with_output_schemas(false)"),
        "{audit}"
    );
    if cfg!(feature = "usage") {
        assert!(found.message.contains("cl100k_base"), "{audit}");
    } else {
        assert!(found.message.contains("the `usage` feature"), "{audit}");
    }
}

#[tokio::test]
async fn an_application_adds_its_own_checks_to_the_report() {
    let mut audit = server().audit().await;
    audit.push(Finding::error("database", "the database does not answer"));
    audit.extend([Finding::warning("disk", "the database is on nfs4")]);
    assert!(audit.has_errors());
    assert_eq!(audit.findings().count(), 2);
    let printed = audit.to_string();
    assert!(
        printed.ends_with(
            "✗ database: the database does not answer\n⚠ disk: the database is on nfs4\n"
        ),
        "{printed}"
    );
    // Rewritten by value, as a program adds the flag that fixes a finding.
    let amended: Audit = audit
        .into_iter()
        .map(|mut finding| {
            if finding.check == "disk" {
                finding.message.push_str(" (--db)");
            }
            finding
        })
        .collect();
    assert!(amended.to_string().contains("nfs4 (--db)"));
}

/// A store of its own whose probe answers as told.
struct Probed(Result<(), &'static str>);

impl ContinuationStore for Probed {
    fn put<'a>(&'a self, _: &'a Token, _: Entry) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async { Ok(()) })
    }

    fn get<'a>(&'a self, _: &'a Token) -> BoxFuture<'a, Result<Option<Entry>, StoreError>> {
        Box::pin(async { Ok(None) })
    }

    fn ttl(&self) -> Duration {
        Duration::from_secs(60)
    }

    fn ready(&self) -> BoxFuture<'_, Result<(), StoreError>> {
        let answer = self
            .0
            .map_err(|why| StoreError::Unavailable(why.to_owned()));
        Box::pin(async move { answer })
    }

    fn name(&self) -> &'static str {
        "probed"
    }
}

#[tokio::test]
async fn a_store_of_ones_own_is_audited_by_its_readiness_probe() {
    let ready = builder().with_store(Probed(Ok(()))).build().unwrap();
    let audit = ready.audit().await;
    assert_finding(
        &audit,
        STORE,
        Severity::Pass,
        &["`probed` answers its readiness probe"],
    );
    let down = builder()
        .with_shared_store(Some(Arc::new(Probed(Err("the disk is gone")))))
        .build()
        .unwrap();
    let audit = down.audit().await;
    assert!(audit.has_errors(), "{audit}");
    assert_finding(
        &audit,
        STORE,
        Severity::Error,
        &["`probed` does not answer", "the disk is gone"],
    );
}

/// A port of 127.0.0.1 nothing listens on.
#[cfg(any(feature = "redis", feature = "oauth"))]
fn closed_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

#[cfg(feature = "redis")]
mod redis {
    use mcp_light::audit::{STORE_EVICTION, STORE_PERSISTENCE};
    use mcp_light::store::{RedisStore, RedisStoreConfig};

    use super::super::redis_cluster::Cluster;
    use super::super::redis_store::Redis;
    use super::*;

    /// The audit of a server whose results are kept in the Redis at `url`.
    async fn audit_of(url: &str) -> Audit {
        let config = RedisStoreConfig::new().with_timeout(Duration::from_millis(500));
        let store = RedisStore::open(url, config).unwrap();
        builder().with_store(store).build().unwrap().audit().await
    }

    /// A directory of the test's own for Redis's files.
    fn data_dir(name: &str) -> String {
        let dir = std::env::temp_dir().join(format!(
            "mcp-light-test-audit-{name}-{}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        dir.to_string_lossy().into_owned()
    }

    #[tokio::test]
    async fn a_redis_that_does_not_answer_is_an_error() {
        let audit = audit_of(&format!("redis://127.0.0.1:{}", closed_port())).await;
        assert!(audit.has_errors(), "{audit}");
        assert_finding(
            &audit,
            STORE,
            Severity::Error,
            &[
                "Redis does not answer a PING",
                "no continuation token is minted",
            ],
        );
        // Nothing more can be asked of it.
        assert!(audit.get(STORE_PERSISTENCE).is_none(), "{audit}");
    }

    #[tokio::test]
    async fn a_redis_without_persistence_is_a_warning() {
        let Some(redis) = Redis::start() else { return };
        let audit = audit_of(&redis.url()).await;
        assert!(!audit.has_errors(), "{audit}");
        assert_finding(&audit, STORE, Severity::Pass, &["kept in Redis"]);
        assert_finding(
            &audit,
            STORE_PERSISTENCE,
            Severity::Warning,
            &[
                "appendonly no, save \"\"",
                "a restart of Redis drops every token",
            ],
        );
        // Redis's default policy.
        assert_finding(
            &audit,
            STORE_EVICTION,
            Severity::Pass,
            &["maxmemory-policy noeviction"],
        );
    }

    #[tokio::test]
    async fn a_redis_with_an_append_only_file_or_snapshots_passes() {
        let dir = data_dir("aof");
        let Some(redis) = Redis::start_with(&["--appendonly", "yes", "--dir", &dir]) else {
            return;
        };
        let audit = audit_of(&redis.url()).await;
        assert_eq!(audit.findings().count(), 0, "{audit}");
        assert_finding(
            &audit,
            STORE_PERSISTENCE,
            Severity::Pass,
            &["appendonly yes"],
        );
        drop(redis);
        let _ = std::fs::remove_dir_all(&dir);

        let dir = data_dir("rdb");
        let Some(redis) = Redis::start_with(&["--save", "3600 1", "--dir", &dir]) else {
            return;
        };
        let audit = audit_of(&redis.url()).await;
        assert_finding(
            &audit,
            STORE_PERSISTENCE,
            Severity::Pass,
            &["snapshots to disk (save \"3600 1\""],
        );
        drop(redis);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[tokio::test]
    async fn a_redis_that_refuses_config_is_a_warning_that_says_so() {
        let Some(redis) = Redis::start_with(&["--rename-command", "CONFIG", ""]) else {
            return;
        };
        let audit = audit_of(&redis.url()).await;
        assert!(!audit.has_errors(), "{audit}");
        assert_finding(
            &audit,
            STORE_PERSISTENCE,
            Severity::Warning,
            &["could not be checked", "CONFIG GET save was refused"],
        );
        // INFO still tells the eviction policy.
        assert_finding(&audit, STORE_EVICTION, Severity::Pass, &[]);
    }

    #[tokio::test]
    async fn a_redis_that_may_evict_before_the_ttl_is_a_warning() {
        for policy in ["allkeys-lru", "volatile-ttl"] {
            let settings = ["--maxmemory", "64mb", "--maxmemory-policy", policy];
            let Some(redis) = Redis::start_with(&settings) else {
                return;
            };
            let audit = audit_of(&redis.url()).await;
            assert!(!audit.has_errors(), "{audit}");
            assert_finding(
                &audit,
                STORE_EVICTION,
                Severity::Warning,
                &[
                    &format!("maxmemory-policy {policy}, maxmemory 64.00M"),
                    "set maxmemory-policy noeviction",
                ],
            );
        }
        let settings = ["--maxmemory", "64mb", "--maxmemory-policy", "noeviction"];
        let Some(redis) = Redis::start_with(&settings) else {
            return;
        };
        let audit = audit_of(&redis.url()).await;
        assert_finding(
            &audit,
            STORE_EVICTION,
            Severity::Pass,
            &["maxmemory-policy noeviction"],
        );
        // Without a limit, no policy evicts anything.
        let Some(redis) = Redis::start_with(&["--maxmemory-policy", "allkeys-lru"]) else {
            return;
        };
        let audit = audit_of(&redis.url()).await;
        assert_finding(
            &audit,
            STORE_EVICTION,
            Severity::Pass,
            &["no memory limit (maxmemory 0), so its maxmemory-policy allkeys-lru"],
        );
    }

    #[tokio::test]
    async fn a_redis_cluster_is_audited_on_every_master() {
        let Some(cluster) = Cluster::start() else {
            return;
        };
        let store = cluster.store(RedisStoreConfig::new());
        let audit = builder().with_store(store).build().unwrap().audit().await;
        assert!(!audit.has_errors(), "{audit}");
        let persistence = finding(&audit, STORE_PERSISTENCE);
        assert_eq!(persistence.severity, Severity::Warning, "{audit}");
        // Each master is named: none has an append-only file.
        for url in cluster.urls() {
            let node = url.trim_start_matches("redis://");
            assert!(persistence.message.contains(node), "{node}: {audit}");
        }
    }
}

#[cfg(feature = "oauth")]
mod oauth {
    use mcp_light::audit::{OAUTH_ISSUER, OAUTH_KEYS};
    use mcp_light::auth::OAuthResource;
    use serde_json::{Value, json};

    use super::*;

    const AUDIENCE: &str = "http://127.0.0.1:8080/mcp";

    /// An Ed25519 public key (RFC 8037's example), for signatures.
    fn jwk() -> Value {
        json!({
            "kty": "OKP",
            "crv": "Ed25519",
            "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
            "kid": "k1",
            "use": "sig",
            "alg": "EdDSA"
        })
    }

    /// An issuer on 127.0.0.1 serving its RFC 8414 metadata, which names
    /// its JWKS, and the JWKS `keys`: its URL.
    async fn issuer(keys: Value) -> String {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let metadata = json!({"issuer": base, "jwks_uri": format!("{base}/jwks")});
        let json = |value: Value| {
            let body = value.to_string();
            axum::routing::get(move || async move {
                (
                    [(axum::http::header::CONTENT_TYPE, "application/json")],
                    body,
                )
            })
        };
        let router = axum::Router::new()
            .route("/.well-known/oauth-authorization-server", json(metadata))
            .route("/jwks", json(keys));
        tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
        base
    }

    async fn audit_of(resource: OAuthResource) -> Audit {
        let auth = Auth::new().with_oauth(resource).unwrap();
        let options = HttpOptions::new().with_auth(auth);
        server().audit().http(addr("0.0.0.0:8080"), &options).await
    }

    #[tokio::test]
    async fn an_issuer_that_answers_with_keys_passes() {
        let issuer = issuer(json!({"keys": [jwk()]})).await;
        let audit = audit_of(OAuthResource::new(&issuer, AUDIENCE)).await;
        assert!(!audit.has_errors(), "{audit}");
        assert_finding(
            &audit,
            TRANSPORT,
            Severity::Pass,
            &[&format!("OAuth access tokens of {issuer}")],
        );
        assert_finding(
            &audit,
            OAUTH_ISSUER,
            Severity::Pass,
            &[&format!("naming its keys at {issuer}/jwks")],
        );
        assert_finding(&audit, OAUTH_KEYS, Severity::Pass, &["1 for signatures"]);
    }

    #[tokio::test]
    async fn an_issuer_that_does_not_answer_is_an_error() {
        let issuer = format!("http://127.0.0.1:{}", closed_port());
        let audit = audit_of(OAuthResource::new(&issuer, AUDIENCE)).await;
        assert!(audit.has_errors(), "{audit}");
        assert_finding(
            &audit,
            OAUTH_ISSUER,
            Severity::Error,
            &[
                &format!("the OAuth issuer {issuer} gives no keys"),
                "Connection refused",
                "every access token is refused",
            ],
        );
        assert!(audit.get(OAUTH_KEYS).is_none(), "{audit}");
    }

    #[tokio::test]
    async fn a_jwks_url_that_does_not_answer_is_an_error() {
        let issuer = issuer(json!({"keys": [jwk()]})).await;
        let jwks = format!("http://127.0.0.1:{}/jwks", closed_port());
        let resource = OAuthResource::new(&issuer, AUDIENCE).with_jwks_url(&jwks);
        let audit = audit_of(resource).await;
        assert!(audit.has_errors(), "{audit}");
        // A JWKS URL given is fetched, the metadata is not looked at.
        assert!(audit.get(OAUTH_ISSUER).is_none(), "{audit}");
        assert_finding(
            &audit,
            OAUTH_KEYS,
            Severity::Error,
            &["cannot fetch the OAuth issuer's keys", &jwks],
        );
    }

    #[tokio::test]
    async fn a_jwks_without_a_signing_key_is_an_error() {
        let mut encryption = jwk();
        encryption["use"] = json!("enc");
        let issuer = issuer(json!({"keys": [encryption]})).await;
        let audit = audit_of(OAuthResource::new(&issuer, AUDIENCE)).await;
        assert_finding(
            &audit,
            OAUTH_KEYS,
            Severity::Error,
            &["no key for signatures"],
        );
    }
}
