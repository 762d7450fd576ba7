//! A configuration audit: what works but is risky, before serving.
//!
//! [`ServerBuilder::build`](crate::ServerBuilder::build) refuses a
//! configuration that cannot work, and [`Auth`] refuses a
//! weak bearer secret. What is left can serve, and still lose tokens at a
//! restart, mint tokens another replica cannot redeem, or let anyone on the
//! network call every tool. [`Server::audit`] looks at the built server and
//! where it will serve, reaches the services it depends on, and answers an
//! [`Audit`]: one [`Finding`] per check, `✓` passed, `⚠` a warning, `✗` an
//! error.
//!
//! | check | `✗` error | `⚠` warning |
//! |---|---|---|
//! | [`transport`](TRANSPORT) | HTTP on an address other machines reach, without authentication; an [`Auth`] that accepts no credential | |
//! | [`oauth issuer`](OAUTH_ISSUER), [`oauth keys`](OAUTH_KEYS) | the issuer's metadata or its JWKS does not answer, or names no signing key | |
//! | [`store`](STORE) | the store does not answer (Redis: `PING`) | the in-memory store while HTTP listens beyond loopback: another replica cannot redeem its tokens |
//! | [`store persistence`](STORE_PERSISTENCE) | | Redis without persistence (`appendonly no`, no `save` point), or with it unknown (`CONFIG` refused) |
//! | [`store eviction`](STORE_EVICTION) | | Redis with a `maxmemory` and any `maxmemory-policy` but `noeviction` |
//! | [`output schemas`](OUTPUT_SCHEMAS) | | output schemas on: their bytes (and tokens, with the `usage` feature) in every `tools/list` |
//!
//! The application adds its own checks (its database, the disk it is on)
//! with [`Finding::pass`], [`Finding::warning`] and [`Finding::error`], and
//! prints the whole report, one line a check: the inventory example's
//! `--check` does, and exits 1 on an error.
//!
//! ```standalone_crate
//! use mcp_light::prelude::*;
//! use mcp_light::audit::Severity;
//!
//! /// Says hello.
//! #[mcp_tool]
//! fn greet(name: String) -> String {
//!     format!("hello, {name}")
//! }
//!
//! # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
//! let server = Server::from_registry().build()?;
//! // Served on stdio (no `.http(…)`), results in memory, no output schema.
//! let audit = server.audit().await;
//! assert_eq!(audit.findings().count(), 0);
//! assert_eq!(audit.worst(), Severity::Pass);
//!
//! // The same server on every interface, without authentication.
//! let addr = "0.0.0.0:8080".parse()?;
//! let audit = server.audit().http(addr, &mcp_light::transport::HttpOptions::new()).await;
//! assert!(audit.has_errors());
//! print!("{audit}");
//! // ✗ transport: HTTP on 0.0.0.0:8080 (every network interface) without authentication: …
//! // ⚠ store: continuation results are kept in this process's memory (MemoryStore) while …
//! // ✓ output schemas: tools/list publishes no outputSchema
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```

use std::future::IntoFuture;
#[cfg(feature = "http")]
use std::net::{IpAddr, SocketAddr};

pub use crate::finding::{
    Audit, Finding, OAUTH_ISSUER, OAUTH_KEYS, OUTPUT_SCHEMAS, STORE, STORE_EVICTION,
    STORE_PERSISTENCE, Severity, TRANSPORT,
};

#[cfg(feature = "http")]
use crate::auth::Auth;
use crate::server::Server;
use crate::store::BoxFuture;
#[cfg(feature = "http")]
use crate::transport::HttpOptions;

/// The name [`MemoryStore`](crate::store::MemoryStore) gives itself
/// ([`ContinuationStore::name`](crate::store::ContinuationStore::name)): a
/// store that keeps results in this process.
const IN_PROCESS_STORE: &str = "memory";

impl Server {
    /// Audits this server's configuration, where it will serve: answers an
    /// [`Audit`] when awaited (see the [module docs](crate::audit) for the
    /// checks).
    ///
    /// As it is, the server is audited as served on stdio, or in process.
    /// [`Auditor::http`] names the address HTTP will listen on and the
    /// [`HttpOptions`](crate::transport::HttpOptions) it will serve with,
    /// whose authentication is checked against that address. The audit
    /// reaches what the server depends on (the store, the OAuth issuer),
    /// each within its own timeout, and serves nothing.
    ///
    /// ```no_run
    /// use mcp_light::transport::HttpOptions;
    ///
    /// # async fn run(server: mcp_light::Server, options: HttpOptions) -> Result<(), Box<dyn std::error::Error>> {
    /// let addr = "0.0.0.0:8080".parse()?;
    /// let audit = server.audit().http(addr, &options).await;
    /// print!("{audit}");
    /// if audit.has_errors() {
    ///     std::process::exit(1);
    /// }
    /// # Ok(()) }
    /// ```
    pub fn audit(&self) -> Auditor {
        Auditor {
            server: self.clone(),
            #[cfg(feature = "http")]
            http: None,
        }
    }
}

/// An audit of a server, to be awaited ([`Server::audit`]): the server, and
/// where it will serve.
#[derive(Debug, Clone)]
#[must_use = "an audit runs when it is awaited"]
pub struct Auditor {
    server: Server,
    #[cfg(feature = "http")]
    http: Option<Http>,
}

/// Where HTTP will listen, and who it lets in.
#[cfg(feature = "http")]
#[derive(Debug, Clone)]
struct Http {
    addr: SocketAddr,
    auth: Option<Auth>,
}

impl Auditor {
    /// Audits the server as served over HTTP on `addr` with `options`
    /// ([`Server::serve_http_with`](crate::Server::serve_http_with)): its
    /// authentication, and the OAuth issuer it names, are checked, and the
    /// store is judged for a server other machines reach when `addr` is
    /// not a loopback address.
    #[cfg(feature = "http")]
    pub fn http(mut self, addr: SocketAddr, options: &HttpOptions) -> Auditor {
        self.http = Some(Http {
            addr,
            auth: options.auth().cloned(),
        });
        self
    }

    /// Runs every check, in order: the transport and its authentication,
    /// the OAuth issuer, the store, the output schemas. Awaiting the
    /// auditor does the same.
    pub async fn run(self) -> Audit {
        let mut audit = Audit::new();
        self.transport(&mut audit).await;
        self.store(&mut audit).await;
        audit.push(self.output_schemas());
        audit
    }

    /// The address other machines reach this server at, when it listens
    /// beyond loopback; `None` on stdio and on a loopback address.
    fn exposed(&self) -> Option<String> {
        #[cfg(feature = "http")]
        if let Some(http) = &self.http
            && !is_loopback(http.addr.ip())
        {
            return Some(shown(http.addr));
        }
        None
    }

    async fn transport(&self, audit: &mut Audit) {
        #[cfg(feature = "http")]
        if let Some(http) = &self.http {
            return http_transport(http, audit).await;
        }
        audit.push(Finding::pass(
            TRANSPORT,
            "no HTTP address to audit: served on stdio (or in process), only the program \
             that started this server calls it",
        ));
    }

    async fn store(&self, audit: &mut Audit) {
        let Some(store) = self.server.continuations().store() else {
            audit.push(Finding::pass(
                STORE,
                "no continuation store: no token is minted, writes answer without one and \
                 heavy reads answer whole",
            ));
            return;
        };
        if store.name() != IN_PROCESS_STORE {
            audit.extend(store.audit().await);
            return;
        }
        audit.push(match self.exposed() {
            None => Finding::pass(
                STORE,
                "continuation results are kept in this process's memory (MemoryStore), \
                 for this process's callers",
            ),
            Some(at) => Finding::warning(
                STORE,
                format!(
                    "continuation results are kept in this process's memory (MemoryStore) \
                     while HTTP listens on {at}: behind a load balancer, a token minted \
                     by this replica fails to redeem on any other; keep them in a store \
                     every replica shares (RedisStore, the `redis` feature), or send each \
                     client to one replica"
                ),
            ),
        });
    }

    fn output_schemas(&self) -> Finding {
        let tools = self.server.tools();
        let with = tools
            .iter()
            .filter(|tool| tool.output_schema.is_some())
            .count();
        if with == 0 {
            return Finding::pass(OUTPUT_SCHEMAS, "tools/list publishes no outputSchema");
        }
        let without: Vec<_> = tools
            .iter()
            .map(|tool| {
                let mut tool = tool.clone();
                tool.output_schema = None;
                tool
            })
            .collect();
        let extra = json_len(tools).saturating_sub(json_len(&without));
        Finding::warning(
            OUTPUT_SCHEMAS,
            format!(
                "tools/list publishes an outputSchema for {with} of its {} tools: every \
                 tools/list grows by {extra} bytes of JSON{}, which a client puts in its \
                 model's context; leave them off (ServerBuilder::with_output_schemas(false)) \
                 unless your clients validate structuredContent against them",
                tools.len(),
                tokens(tools, &without),
            ),
        )
    }
}

impl IntoFuture for Auditor {
    type Output = Audit;
    type IntoFuture = BoxFuture<'static, Audit>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(self.run())
    }
}

/// The transport check of a server served over HTTP, and its OAuth
/// issuer's.
#[cfg(feature = "http")]
async fn http_transport(http: &Http, audit: &mut Audit) {
    let at = shown(http.addr);
    let exposed = !is_loopback(http.addr.ip());
    let Some(auth) = &http.auth else {
        audit.push(match exposed {
            false => Finding::pass(
                TRANSPORT,
                format!(
                    "HTTP on {at}, a loopback address: only this machine reaches it, \
                     without authentication"
                ),
            ),
            true => Finding::error(
                TRANSPORT,
                format!(
                    "HTTP on {at} without authentication: any host that reaches the port \
                     calls every tool, writes included; authenticate callers \
                     (HttpOptions::with_auth: bearer tokens or OAuth), or listen on a \
                     loopback address such as 127.0.0.1:{}",
                    http.addr.port()
                ),
            ),
        });
        return;
    };
    if !auth.is_configured() {
        audit.push(Finding::error(
            TRANSPORT,
            format!(
                "HTTP on {at} authenticates every request with an Auth that accepts no \
                 credential, so every request is refused 401; give it bearer tokens \
                 (Auth::with_bearer_token) or OAuth (Auth::with_oauth)"
            ),
        ));
        return;
    }
    audit.push(Finding::pass(
        TRANSPORT,
        format!(
            "HTTP on {at}, every request authenticated: {}",
            auth.accepted()
        ),
    ));
    audit.extend(auth.audit().await);
}

/// Whether `ip` is a loopback address, an IPv4-mapped one included.
#[cfg(feature = "http")]
fn is_loopback(ip: IpAddr) -> bool {
    ip.to_canonical().is_loopback()
}

/// `addr` as a report names it: an unspecified address says it is every
/// interface.
#[cfg(feature = "http")]
fn shown(addr: SocketAddr) -> String {
    match addr.ip().is_unspecified() {
        true => format!("{addr} (every network interface)"),
        false => addr.to_string(),
    }
}

/// What the output schemas add to `tools/list` in model tokens, as `", …
/// tokens"`, or how to count them.
#[cfg(feature = "usage")]
fn tokens(with: &[rmcp::model::Tool], without: &[rmcp::model::Tool]) -> String {
    let report = crate::usage::UsageReport::new();
    let (with, without) = (report.count_value(with), report.count_value(without));
    format!(
        ", {} cl100k_base and {} o200k_base tokens",
        with.cl100k.saturating_sub(without.cl100k),
        with.o200k.saturating_sub(without.o200k)
    )
}

#[cfg(not(feature = "usage"))]
fn tokens(_: &[rmcp::model::Tool], _: &[rmcp::model::Tool]) -> String {
    " (the `usage` feature counts them in tokens)".to_owned()
}

/// A value's compact JSON length.
fn json_len<T: serde::Serialize + ?Sized>(value: &T) -> usize {
    serde_json::to_vec(value).map_or(0, |json| json.len())
}
