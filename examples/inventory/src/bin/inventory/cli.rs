//! The command line of the `inventory` server.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Parser;
use clap::builder::{PossibleValuesParser, TypedValueParser};
use inventory::db::Synchronous;
use mcp_light::catalog::Surface;
use mcp_light::clients::{ClientEntry, parse_keeps};

/// What the command line asked for.
///
/// Help texts keep their line breaks (`verbatim_doc_comment`), so `--help`
/// reads well at 80 columns; the first line of each is the `-h` summary.
#[derive(Debug, Default, PartialEq, Parser)]
#[command(
    name = "inventory",
    version,
    about = "A network-inventory MCP server (devices and sites) on SQLite or PostgreSQL.",
    long_about = "A network-inventory MCP server (devices and sites) on SQLite or PostgreSQL.\n\n\
                  Serves MCP on stdio unless --http is given. Everything the server\n\
                  says goes to stderr: on stdio, stdout is the MCP channel.",
    after_long_help = EXAMPLES,
    // A repeated option takes its last value, as `--db a --db b` always has.
    args_override_self = true
)]
pub struct Cli {
    /// Keep the inventory in the SQLite file PATH, or on PostgreSQL
    /// [default: in memory]
    ///
    /// A SQLite file and its tables are created if missing; a file serves
    /// the replicas of one host only. postgres://USER:PASSWORD@HOST:PORT/DB
    /// (the `postgres` feature) keeps it on a PostgreSQL server, which
    /// replicas on many hosts share; its tables are created at start.
    #[arg(long, value_name = "PATH|URL", value_parser = db_target, verbatim_doc_comment)]
    pub db: Option<DbTarget>,

    /// When a commit to the --db file waits for the disk: normal or full
    ///
    /// The file is kept in SQLite's WAL mode and is never corrupted by a
    /// crash. normal syncs the WAL at each checkpoint (about every 16 MiB of
    /// writes), not at each commit: a crash of the server loses nothing,
    /// but a power cut or an OS crash can roll back the writes committed
    /// since the last sync, though they were answered as done. full syncs
    /// at every commit, so an answered write survives a power cut too;
    /// each write then waits on the disk.
    #[arg(
        long,
        value_name = "SYNC",
        default_value = "normal",
        value_parser = db_sync(),
        requires = "db",
        verbatim_doc_comment
    )]
    pub db_sync: Synchronous,

    /// Serve Streamable HTTP at http://ADDR/mcp instead of stdio
    ///
    /// ADDR is an IP address and a port. Port 0 picks a free port; the
    /// address served is printed on stderr. GET /healthz and GET /readyz
    /// answer load balancers and Kubernetes probes. SIGTERM or ctrl-c
    /// shuts the server down gracefully (see --drain-timeout).
    #[arg(long, value_name = "ADDR", value_parser = socket_addr, verbatim_doc_comment)]
    pub http: Option<SocketAddr>,

    /// How long a shutdown waits for calls in flight, in seconds [default: 30]
    ///
    /// On SIGTERM or ctrl-c (HTTP), or when stdin ends (stdio), the
    /// server takes no new requests and lets the calls it is running
    /// answer for at most this long, then exits with status 0. Give
    /// Kubernetes' terminationGracePeriodSeconds a little more.
    #[arg(long, value_name = "SECONDS", verbatim_doc_comment)]
    pub drain_timeout: Option<u64>,

    /// The most 2025-era sessions open at once (HTTP) [default: 1024]
    ///
    /// A client on protocol 2025-11-25 or earlier opens a session with
    /// `initialize`; past this many, `initialize` is answered 503 until
    /// a session closes or sits idle for 5 minutes. Clients on
    /// 2026-07-28 open none and are not counted.
    #[arg(
        long,
        value_name = "N",
        value_parser = clap::value_parser!(u64).range(1..=1 << 20),
        requires = "http",
        verbatim_doc_comment
    )]
    pub max_sessions: Option<u64>,

    /// The most sessions one authenticated caller holds (HTTP) [default: 64]
    ///
    /// Counted per --auth-token NAME or OAuth subject; past it, that
    /// caller's `initialize` is answered 429.
    #[arg(
        long,
        value_name = "N",
        value_parser = clap::value_parser!(u64).range(1..=1 << 20),
        requires = "http",
        verbatim_doc_comment
    )]
    pub max_sessions_per_caller: Option<u64>,

    /// Create the 4 fixture sites and N fixture devices first
    ///
    /// The same N gives the same devices on every machine; sites that
    /// exist already are kept, devices whose names are taken are refused
    /// (so a file is seeded once). --seed 0 creates just the sites.
    #[arg(long, value_name = "N", verbatim_doc_comment)]
    pub seed: Option<usize>,

    /// Where continuation results wait: memory, redis://HOST:PORT or
    /// redis-cluster://HOST:PORT,HOST:PORT,…
    ///
    /// memory (the default) keeps them in this process. redis://HOST:PORT
    /// (redis://:PASSWORD@HOST:PORT/DB for more) keeps them in Redis or
    /// Valkey, so several inventory processes behind a load balancer
    /// redeem each other's tokens. redis-cluster:// does the same on a
    /// Redis Cluster, given one or more of its nodes (the rest are found
    /// from them). While Redis is down, answers go on without tokens; they
    /// come back when Redis does.
    #[arg(long, value_name = "STORE", default_value = "memory", value_parser = store, verbatim_doc_comment)]
    pub store: Store,

    /// The most MB the in-memory store keeps [default: 64]
    ///
    /// One result may take up to a quarter of it (16 at the default); a
    /// larger one is answered with a summary and no token. Bounds only
    /// --store memory: Redis keeps to its own maxmemory.
    #[arg(
        long,
        value_name = "N",
        value_parser = clap::value_parser!(u64).range(1..=1 << 20),
        verbatim_doc_comment
    )]
    pub store_max_mb: Option<u64>,

    /// Spill results too large for memory to files under PATH
    ///
    /// A result larger than a quarter of --store-max-mb (16 MB at the
    /// default) is written to a directory of its own under PATH, removed
    /// when the server stops, and its pages are read back from there.
    /// [default: the system's temporary directory]. Bounds only --store
    /// memory.
    #[arg(long, value_name = "PATH", verbatim_doc_comment)]
    pub spill_dir: Option<PathBuf>,

    /// The most MB of spilled results kept on disk [default: 2048]
    ///
    /// A result that does not fit is answered with a summary and no
    /// token. 0 turns spilling off. Bounds only --store memory.
    #[arg(
        long,
        value_name = "N",
        value_parser = clap::value_parser!(u64).range(0..=1 << 30),
        verbatim_doc_comment
    )]
    pub spill_max_mb: Option<u64>,

    /// Answer a long call as a task after MS milliseconds [default: 1000]
    ///
    /// The bulk create and the device list, called by a client that
    /// declares the tasks extension (protocol 2026-07-28), answer inline
    /// when they finish within MS and a task otherwise, which any replica
    /// sharing the --store follows. With 0, a call still pending at its
    /// first poll becomes a task; one done at its first poll (often a
    /// small bulk create or a short list) still answers inline.
    #[arg(long, value_name = "MS", verbatim_doc_comment)]
    pub task_after: Option<u64>,

    /// How long a continuation token lives, in seconds [default: 300]
    #[arg(long, value_name = "SECONDS", value_parser = clap::value_parser!(u64).range(1..))]
    pub token_ttl: Option<u64>,

    /// Accept `Authorization: Bearer SECRET` as the caller NAME (HTTP)
    ///
    /// Repeat for more callers. SECRET has at least 16 characters, such
    /// as the output of `openssl rand -hex 32`. With any authentication
    /// set, a request without valid credentials is answered 401, and a
    /// caller's continuation tokens redeem for that caller only, on every
    /// process sharing the --store.
    #[arg(
        long,
        value_name = "NAME=SECRET",
        value_parser = name_and_secret,
        action = clap::ArgAction::Append,
        requires = "http",
        verbatim_doc_comment
    )]
    pub auth_token: Vec<(String, String)>,

    /// Accept OAuth access tokens (JWTs) of the issuer at URL (HTTP)
    ///
    /// The issuer's keys are found through its metadata
    /// (/.well-known/oauth-authorization-server, then OpenID Connect's),
    /// or at --oauth-jwks-url. Needs --oauth-audience.
    /// A token's scopes decide what it may call: the reads (retrieve, list)
    /// need inventory:read, the writes (create, update, partial_update,
    /// destroy, bulk_create) inventory:write; a call without one is
    /// answered 403 insufficient_scope naming it. --auth-token secrets may
    /// call everything.
    #[arg(long, value_name = "URL", requires_all = ["http", "oauth_audience"], verbatim_doc_comment)]
    pub oauth_issuer: Option<String>,

    /// This server's resource URL, which tokens must name in `aud`
    ///
    /// The URL clients reach /mcp at, such as https://mcp.example.com/mcp;
    /// behind a load balancer, its public URL. Its protected resource
    /// metadata is served at /.well-known/oauth-protected-resource.
    #[arg(
        long,
        value_name = "URL",
        requires = "oauth_issuer",
        verbatim_doc_comment
    )]
    pub oauth_audience: Option<String>,

    /// Fetch the issuer's keys (JWKS) from URL instead of its metadata
    #[arg(long, value_name = "URL", requires = "oauth_issuer")]
    pub oauth_jwks_url: Option<String>,

    /// A scope every access token must carry (repeatable); 403 without it
    #[arg(
        long,
        value_name = "SCOPE",
        action = clap::ArgAction::Append,
        requires = "oauth_issuer"
    )]
    pub oauth_scope: Vec<String>,

    /// Report each answer's cost in model tokens, in its _meta
    ///
    /// Every tools/call answer carries "io.github.mcp-light/usage": its own
    /// tokens and those of the full result it stands for, in cl100k_base
    /// and o200k_base. Counting costs time on every call.
    #[arg(long, verbatim_doc_comment)]
    pub usage: bool,

    /// Publish every tool (flat), only the dispatcher, or both
    ///
    /// With "dispatcher", tools/list is the one `inventory` tool; an agent
    /// sends "describe": true beside resource and action to get that
    /// action's params schema.
    #[arg(
        long,
        value_name = "SURFACE",
        default_value_t = Surface::Both,
        value_parser = surface(),
        verbatim_doc_comment
    )]
    pub surface: Surface,

    /// Publish an outputSchema for every tool
    ///
    /// It admits every shape the tool answers (envelope, probe, page,
    /// summary, full result); clients validate answers against it.
    #[arg(long, verbatim_doc_comment)]
    pub output_schema: bool,

    /// What the MCP client calling itself NAME keeps of an answer, in
    /// bytes (repeatable)
    ///
    /// Answers are sized to what the calling client hands its model, by
    /// the name it gives in clientInfo: a heavy read answers whole only
    /// within it, a page holds as many items as fit, a `full` or `verify`
    /// that would not fit answers a page and the token for the rest. Adds
    /// a client of your own, or overrides a known one (codex-mcp-client
    /// keeps 10000, claude-code 40000). BYTES is at least 2048.
    #[arg(
        long,
        value_name = "NAME=BYTES",
        value_parser = client_bytes,
        action = clap::ArgAction::Append,
        verbatim_doc_comment
    )]
    pub client: Vec<(String, usize)>,

    /// What a client no --client and no known client names keeps, in
    /// bytes [default: 10000]
    ///
    /// Also a client that names nothing. At least 2048; the default is
    /// the smallest cut of a known client (OpenAI Codex's).
    #[arg(long, value_name = "BYTES", value_parser = unknown_client_bytes, verbatim_doc_comment)]
    pub unknown_client_bytes: Option<usize>,

    /// The most bytes a bulk create's envelope takes listing ids
    /// [default: 1024]
    ///
    /// A bulk create answers its count and a continuation token that
    /// pages what it wrote; the ids go beside them while the envelope
    /// stays within BYTES (and within what the client keeps). 0 never
    /// lists them beside a token.
    #[arg(long, value_name = "BYTES", verbatim_doc_comment)]
    pub envelope_bytes: Option<usize>,

    /// Serve Prometheus metrics at http://ADDR/metrics
    ///
    /// ADDR is an IP address and a port (0 picks one; the address served
    /// is printed on stderr), a listener of its own beside --http. The
    /// runtime's request durations, calls by outcome, answer and full
    /// result bytes, tokens and store counters, in Prometheus' text
    /// format with unit suffixes (mcp_server_operation_duration_seconds,
    /// mcp_light_calls_total, mcp_light_answer_bytes_total, …).
    #[arg(long, value_name = "ADDR", value_parser = socket_addr, verbatim_doc_comment)]
    pub metrics: Option<SocketAddr>,

    /// Send traces and metrics over OTLP/HTTP (protobuf) to URL
    ///
    /// URL is the collector's base, such as http://127.0.0.1:4318: spans
    /// go to URL/v1/traces, metrics to URL/v1/metrics (every 60 s, and
    /// once more at shutdown), as service.name "inventory". A request's
    /// span joins the trace of the W3C traceparent in its _meta.
    #[arg(long, value_name = "URL", value_parser = otlp_endpoint, verbatim_doc_comment)]
    pub otlp_endpoint: Option<String>,

    /// How stderr logs: text or json
    ///
    /// text logs warnings and errors. json logs them as JSON lines, and
    /// one more line per MCP request when it ends: its method, tool,
    /// outcome, sizes and trace_id under "span", its time under "fields".
    #[arg(
        long,
        value_name = "FORMAT",
        value_enum,
        default_value_t = LogFormat::Text,
        verbatim_doc_comment
    )]
    pub log_format: LogFormat,

    /// Check the configuration the other flags give, print a line per
    /// check, and exit: 1 on an error, 0 otherwise
    ///
    /// Opens the database as serving would (a SQLite file is created if
    /// missing, PostgreSQL's tables too), seeds nothing, serves nothing.
    /// ✗ (exit 1): HTTP beyond loopback without authentication; a
    /// database, Redis, OAuth issuer or JWKS URL that does not answer.
    /// ⚠: the in-memory store beyond loopback (another replica cannot
    /// redeem its tokens); Redis without persistence, or that may evict
    /// entries before their TTL; --output-schema's cost in every
    /// tools/list; a SQLite file on a network filesystem.
    #[arg(long, verbatim_doc_comment)]
    pub check: bool,
}

/// How stderr logs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Warnings and errors as text.
    #[default]
    Text,
    /// JSON lines: warnings, errors and one line per request.
    Json,
}

impl Cli {
    /// Refuses a flag whose part this build of the inventory left out (the
    /// cargo features `redis`, `oauth`, `usage`, `metrics`, `otlp`,
    /// `json-logs`), with the command that builds it in.
    pub fn check_features(&self) -> Result<(), String> {
        if !cfg!(feature = "redis") {
            match self.store {
                Store::Redis(_) => return Err(missing_feature("--store redis://…", "redis")),
                Store::RedisCluster(_) => {
                    return Err(missing_feature("--store redis-cluster://…", "redis"));
                }
                Store::Memory => {}
            }
        }
        if matches!(self.db, Some(DbTarget::Postgres(_))) && !cfg!(feature = "postgres") {
            return Err(missing_feature("--db postgres://…", "postgres"));
        }
        if matches!(self.db, Some(DbTarget::Postgres(_))) && self.db_sync != Synchronous::Normal {
            return Err(
                "--db-sync sets when a SQLite file's commits wait for the disk; a \
                        PostgreSQL server syncs as its own synchronous_commit says, so leave \
                        --db-sync out"
                    .to_owned(),
            );
        }
        if self.oauth_issuer.is_some() && !cfg!(feature = "oauth") {
            return Err(missing_feature("--oauth-issuer", "oauth"));
        }
        if self.usage && !cfg!(feature = "usage") {
            return Err(missing_feature("--usage", "usage"));
        }
        if self.metrics.is_some() && !cfg!(feature = "metrics") {
            return Err(missing_feature("--metrics", "metrics"));
        }
        if self.otlp_endpoint.is_some() && !cfg!(feature = "otlp") {
            return Err(missing_feature("--otlp-endpoint", "otlp"));
        }
        if self.log_format == LogFormat::Json && !cfg!(feature = "json-logs") {
            return Err(missing_feature("--log-format json", "json-logs"));
        }
        Ok(())
    }

    /// Refuses the in-memory store's options beside `--store redis://…`,
    /// with a sentence that says what to do instead.
    pub fn check_store_options(&self) -> Result<(), String> {
        if self.store == Store::Memory {
            return Ok(());
        }
        if self.store_max_mb.is_some() {
            return Err(
                "--store-max-mb bounds the in-memory store; with --store redis://… \
                        bound Redis with its own maxmemory setting instead"
                    .to_owned(),
            );
        }
        if self.spill_dir.is_some() || self.spill_max_mb.is_some() {
            return Err("--spill-dir and --spill-max-mb say where and how much the \
                        in-memory store spills to disk; with --store redis://… results are \
                        kept in Redis, so leave them out"
                .to_owned());
        }
        Ok(())
    }
}

/// The refusal of `flag` by a build without the cargo feature `feature`.
pub fn missing_feature(flag: &str, feature: &str) -> String {
    format!(
        "{flag} needs the inventory's `{feature}` feature, which this build leaves out; \
         build it in with `cargo run -p inventory --features {feature} -- …` \
         (or --all-features)"
    )
}

/// Where the inventory keeps its records.
#[derive(Debug, Clone, PartialEq)]
pub enum DbTarget {
    /// A SQLite file.
    File(PathBuf),
    /// A PostgreSQL server's database, by URL.
    Postgres(String),
}

/// `--db`'s value: a `postgres://` (or `postgresql://`) URL, else a path.
fn db_target(value: &str) -> Result<DbTarget, String> {
    if value.starts_with("postgres://") || value.starts_with("postgresql://") {
        return Ok(DbTarget::Postgres(value.to_owned()));
    }
    if value.is_empty() {
        return Err("expected a SQLite file's path or a postgres:// URL".to_owned());
    }
    Ok(DbTarget::File(PathBuf::from(value)))
}

/// Where continuation results wait.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Store {
    /// In this process.
    #[default]
    Memory,
    /// In the Redis at this URL.
    Redis(String),
    /// In the Redis Cluster these nodes belong to, each as a
    /// `redis://HOST:PORT` URL.
    RedisCluster(Vec<String>),
}

/// `store` as the log and `--check` name it: a Redis URL without its
/// password (which stays out of the log), a cluster's nodes as HOST:PORT.
pub fn shown_store(store: &Store) -> String {
    match store {
        Store::Memory => "memory".to_owned(),
        Store::Redis(url) => url
            .rsplit_once('@')
            .map_or(url.as_str(), |(_, host)| host)
            .to_owned(),
        Store::RedisCluster(nodes) => nodes
            .iter()
            .map(|node| node.trim_start_matches("redis://"))
            .collect::<Vec<_>>()
            .join(","),
    }
}

/// `--store`'s value.
fn store(value: &str) -> Result<Store, String> {
    if value == "memory" {
        return Ok(Store::Memory);
    }
    if value.starts_with("redis://") || value.starts_with("rediss://") {
        return Ok(Store::Redis(value.to_owned()));
    }
    if let Some(nodes) = value.strip_prefix("redis-cluster://") {
        return cluster_nodes(nodes).map(Store::RedisCluster);
    }
    Err(
        "expected memory, a Redis URL such as redis://127.0.0.1:6379, or a Redis Cluster's \
         nodes such as redis-cluster://10.0.0.1:7000,10.0.0.2:7000"
            .to_owned(),
    )
}

/// The nodes of `redis-cluster://HOST:PORT,HOST:PORT,…`, each as a Redis URL.
fn cluster_nodes(nodes: &str) -> Result<Vec<String>, String> {
    const EXAMPLE: &str = "redis-cluster://10.0.0.1:7000,10.0.0.2:7000,10.0.0.3:7000";
    if nodes.is_empty() {
        return Err(format!(
            "redis-cluster:// names no node; give one or more as HOST:PORT, \
             comma-separated: {EXAMPLE}"
        ));
    }
    nodes
        .split(',')
        .map(|node| {
            let port = node.rsplit_once(':').and_then(|(host, port)| {
                let port = port.parse::<u16>().ok().filter(|&port| port > 0)?;
                (!host.is_empty() && !host.contains(['/', '@', ' '])).then_some(port)
            });
            match port {
                Some(_) => Ok(format!("redis://{node}")),
                None => Err(format!(
                    "`{node}` in redis-cluster:// is not HOST:PORT (a port from 1 to 65535); \
                     give the nodes comma-separated: {EXAMPLE}"
                )),
            }
        })
        .collect()
}

/// `--auth-token`'s value: NAME=SECRET.
fn name_and_secret(value: &str) -> Result<(String, String), String> {
    match value.split_once('=') {
        Some((name, secret)) if !name.is_empty() && !secret.is_empty() => {
            Ok((name.to_owned(), secret.to_owned()))
        }
        _ => Err("expected NAME=SECRET, such as ci=$(openssl rand -hex 32)".to_owned()),
    }
}

/// `--client`'s value: NAME=BYTES.
fn client_bytes(value: &str) -> Result<(String, usize), String> {
    value
        .parse::<ClientEntry>()
        .map(|entry| (entry.name, entry.keeps))
        .map_err(|e| e.to_string())
}

/// `--unknown-client-bytes`' value: at least [`MIN_KEEPS`](mcp_light::clients::MIN_KEEPS).
fn unknown_client_bytes(value: &str) -> Result<usize, String> {
    parse_keeps(value).map_err(|e| e.to_string())
}

const EXAMPLES: &str = "\
Examples:
  inventory                          stdio, in-memory database
  inventory --db inventory.db        stdio, a SQLite file
  inventory --db inventory.db --db-sync full
                                     every commit synced to the disk
  inventory --http 127.0.0.1:8080    Streamable HTTP at http://127.0.0.1:8080/mcp
  inventory --seed 500               the 4 fixture sites and 500 devices first
  inventory --http 0.0.0.0:8080 --db /data/inventory.db --store redis://redis:6379 \\
            --auth-token ci=$(cat /run/secrets/ci-token)
                                     one of several replicas behind a load balancer
  inventory --surface dispatcher     tools/list is the one `inventory` tool
  inventory --client acme-agent=6000 --unknown-client-bytes 8000
                                     answers sized to 6,000 bytes for acme-agent,
                                     8,000 for clients the table does not know
  inventory --http 0.0.0.0:8080 --drain-timeout 20 --max-sessions 200
                                     behind Kubernetes: 20 s to drain, 200 sessions
  inventory --http 0.0.0.0:8080 --metrics 0.0.0.0:9464 --otlp-endpoint http://127.0.0.1:4318
                                     Prometheus at :9464/metrics, traces to a collector
  inventory --check --http 0.0.0.0:8080 --store redis://redis:6379 --auth-token ci=…
                                     check that configuration, serve nothing";

/// `--otlp-endpoint`'s value: an http:// URL, without a trailing slash.
fn otlp_endpoint(value: &str) -> Result<String, String> {
    let base = value.trim_end_matches('/');
    let host = base.strip_prefix("http://").unwrap_or_default();
    if host.is_empty() || host.contains(['?', '#', ' ']) {
        return Err("expected the collector's OTLP/HTTP base URL, such as \
                    http://127.0.0.1:4318 (the signals' paths /v1/traces and /v1/metrics \
                    are added; https:// is not built in: put a local collector in between)"
            .to_owned());
    }
    Ok(base.to_owned())
}

/// `--db-sync`'s values, named as [`Synchronous::as_str`] names them.
fn db_sync() -> impl TypedValueParser<Value = Synchronous> {
    const LEVELS: [Synchronous; 2] = [Synchronous::Normal, Synchronous::Full];
    PossibleValuesParser::new(LEVELS.map(Synchronous::as_str)).map(|name| {
        LEVELS
            .into_iter()
            .find(|level| level.as_str() == name)
            .expect("the parser admits only these names")
    })
}

/// `--surface`'s values, named as [`Surface`] names them.
fn surface() -> impl TypedValueParser<Value = Surface> {
    PossibleValuesParser::new(Surface::ALL.map(Surface::as_str))
        .try_map(|name| name.parse::<Surface>())
}

/// `--http`'s value; a host name is refused, since the server binds exactly
/// the address it is given.
fn socket_addr(value: &str) -> Result<SocketAddr, String> {
    value
        .parse()
        .map_err(|_| "expected an IP address and a port, such as 127.0.0.1:8080".to_owned())
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;
    use clap::error::ErrorKind;

    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from(std::iter::once("inventory").chain(args.iter().copied()))
    }

    #[test]
    fn the_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn no_arguments_serve_an_in_memory_inventory_on_stdio() {
        assert_eq!(parse(&[]).unwrap(), Cli::default());
    }

    #[test]
    fn reads_every_option_with_a_space_or_an_equals_sign() {
        let expected = Cli {
            db: Some(DbTarget::File("x.db".into())),
            http: Some("127.0.0.1:0".parse().unwrap()),
            seed: Some(5),
            usage: true,
            surface: Surface::Dispatcher,
            output_schema: true,
            ..Cli::default()
        };
        let spaced = [
            "--db",
            "x.db",
            "--http",
            "127.0.0.1:0",
            "--seed",
            "5",
            "--usage",
            "--surface",
            "dispatcher",
            "--output-schema",
        ];
        assert_eq!(parse(&spaced).unwrap(), expected);
        let joined = [
            "--db=x.db",
            "--http=127.0.0.1:0",
            "--seed=5",
            "--usage",
            "--surface=dispatcher",
            "--output-schema",
        ];
        assert_eq!(parse(&joined).unwrap(), expected);
    }

    #[test]
    fn db_sync_is_normal_or_full_needs_a_file_and_defaults_to_normal() {
        assert_eq!(parse(&[]).unwrap().db_sync, Synchronous::Normal);
        assert_eq!(
            parse(&["--db", "x.db"]).unwrap().db_sync,
            Synchronous::Normal
        );
        for (value, level) in [("normal", Synchronous::Normal), ("full", Synchronous::Full)] {
            let cli = parse(&["--db", "x.db", "--db-sync", value]).unwrap();
            assert_eq!(cli.db_sync, level, "{value}");
            let cli = parse(&["--db=x.db", &format!("--db-sync={value}")]).unwrap();
            assert_eq!(cli.db_sync, level, "{value}");
        }
        for bad in ["off", "FULL", "extra", "2", ""] {
            let error = parse(&["--db", "x.db", "--db-sync", bad]).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::InvalidValue, "{bad:?}");
            let message = error.to_string();
            assert!(message.contains("--db-sync <SYNC>"), "{message}");
            assert!(
                message.contains("[possible values: normal, full]"),
                "{message}"
            );
        }
        // An in-memory database has no disk to sync to.
        let error = parse(&["--db-sync", "full"]).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::MissingRequiredArgument);
        assert!(error.to_string().contains("--db <PATH|URL>"), "{error}");
        let help = parse(&["--help"]).unwrap_err().to_string();
        assert!(help.contains("--db-sync <SYNC>"), "{help}");
        assert!(help.contains("[default: normal]"), "{help}");
        assert!(help.contains("a power cut or an OS crash"), "{help}");
    }

    #[test]
    fn drain_timeout_and_session_bounds_are_numbers_and_sessions_need_http() {
        let cli = parse(&[]).unwrap();
        assert_eq!(
            (
                cli.drain_timeout,
                cli.max_sessions,
                cli.max_sessions_per_caller
            ),
            (None, None, None)
        );
        let cli = parse(&[
            "--http",
            "127.0.0.1:0",
            "--drain-timeout",
            "0",
            "--max-sessions=200",
            "--max-sessions-per-caller",
            "8",
        ])
        .unwrap();
        assert_eq!(cli.drain_timeout, Some(0));
        assert_eq!(cli.max_sessions, Some(200));
        assert_eq!(cli.max_sessions_per_caller, Some(8));
        // stdio drains too; it has no sessions to bound.
        assert_eq!(
            parse(&["--drain-timeout", "5"]).unwrap().drain_timeout,
            Some(5)
        );
        for option in ["--max-sessions", "--max-sessions-per-caller"] {
            let error = parse(&[option, "10"]).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::MissingRequiredArgument, "{option}");
            let error = parse(&["--http", "127.0.0.1:0", option, "0"]).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::ValueValidation, "{option}");
            assert!(error.to_string().contains(option), "{error}");
        }
        let error = parse(&["--drain-timeout", "soon"]).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::ValueValidation);
        let help = parse(&["--help"]).unwrap_err().to_string();
        for option in [
            "--drain-timeout <SECONDS>",
            "--max-sessions <N>",
            "--max-sessions-per-caller <N>",
            "GET /healthz",
            "SIGTERM",
        ] {
            assert!(help.contains(option), "{option} missing from:\n{help}");
        }
    }

    #[test]
    fn takes_ipv6_addresses() {
        let cli = parse(&["--http", "[::1]:8080"]).unwrap();
        assert_eq!(cli.http, Some("[::1]:8080".parse().unwrap()));
    }

    #[test]
    fn a_repeated_option_takes_its_last_value() {
        let cli = parse(&["--seed", "1", "--seed", "2"]).unwrap();
        assert_eq!(cli.seed, Some(2));
    }

    #[test]
    fn db_is_a_sqlite_path_or_a_postgres_url_which_needs_its_feature_and_no_db_sync() {
        for url in [
            "postgres://app@db:5432/inventory",
            "postgresql://db/inventory",
        ] {
            let cli = parse(&["--db", url]).unwrap();
            assert_eq!(cli.db, Some(DbTarget::Postgres(url.to_owned())));
            let checked = cli.check_features();
            if cfg!(feature = "postgres") {
                assert_eq!(checked, Ok(()));
            } else {
                let message = checked.unwrap_err();
                assert!(message.contains("`postgres` feature"), "{message}");
            }
        }
        let file = parse(&["--db", "data/postgres.db"]).unwrap();
        assert_eq!(file.db, Some(DbTarget::File("data/postgres.db".into())));
        assert_eq!(file.check_features(), Ok(()));
        let synced = parse(&["--db", "postgres://db/inventory", "--db-sync", "full"]).unwrap();
        if cfg!(feature = "postgres") {
            let message = synced.check_features().unwrap_err();
            assert!(message.contains("leave --db-sync out"), "{message}");
        }
        assert_eq!(
            parse(&["--db", ""]).unwrap_err().kind(),
            ErrorKind::ValueValidation
        );
    }

    #[test]
    fn help_and_version_are_answers_not_errors() {
        let help = parse(&["--help"]).unwrap_err();
        assert_eq!(help.kind(), ErrorKind::DisplayHelp);
        assert_eq!(help.exit_code(), 0);
        let text = help.to_string();
        for option in [
            "--db <PATH|URL>",
            "--http <ADDR>",
            "--seed <N>",
            "--usage",
            "--surface <SURFACE>",
            "[possible values: flat, dispatcher, both]",
            "[default: both]",
            "--output-schema",
            "Examples:",
        ] {
            assert!(text.contains(option), "{option} missing from:\n{text}");
        }
        assert_eq!(parse(&["-h"]).unwrap_err().kind(), ErrorKind::DisplayHelp);
        let version = parse(&["--version"]).unwrap_err();
        assert_eq!(version.kind(), ErrorKind::DisplayVersion);
        assert_eq!(version.exit_code(), 0);
    }

    #[test]
    fn an_option_without_its_value_is_refused() {
        for option in ["--db", "--db-sync", "--http", "--seed", "--surface"] {
            let error = parse(&[option]).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::InvalidValue, "{option}");
            assert_eq!(error.exit_code(), 2);
        }
    }

    #[test]
    fn a_host_name_is_not_an_address() {
        let error = parse(&["--http", "localhost:8080"]).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::ValueValidation);
        let message = error.to_string();
        assert!(message.contains("'localhost:8080'"), "{message}");
        assert!(message.contains("such as 127.0.0.1:8080"), "{message}");
        let no_port = parse(&["--http", "127.0.0.1"]).unwrap_err();
        assert_eq!(no_port.kind(), ErrorKind::ValueValidation);
    }

    #[test]
    fn seed_is_a_count_of_devices() {
        for bad in ["many", "-1", "1.5"] {
            let error = parse(&[&format!("--seed={bad}")]).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::ValueValidation, "{bad}");
        }
    }

    #[test]
    fn the_store_is_memory_unless_a_redis_url_is_given() {
        assert_eq!(parse(&[]).unwrap().store, Store::Memory);
        let cli = parse(&["--store", "redis://127.0.0.1:6379", "--token-ttl", "60"]).unwrap();
        assert_eq!(cli.store, Store::Redis("redis://127.0.0.1:6379".into()));
        assert_eq!(cli.token_ttl, Some(60));
        let error = parse(&["--store", "127.0.0.1:6379"]).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::ValueValidation);
        assert!(error.to_string().contains("redis://127.0.0.1:6379"));
        assert_eq!(
            parse(&["--token-ttl", "0"]).unwrap_err().kind(),
            ErrorKind::ValueValidation
        );
    }

    #[test]
    fn a_redis_cluster_is_its_nodes_as_host_and_port() {
        let cli = parse(&["--store", "redis-cluster://127.0.0.1:7000,redis-b:7001"]).unwrap();
        assert_eq!(
            cli.store,
            Store::RedisCluster(vec![
                "redis://127.0.0.1:7000".into(),
                "redis://redis-b:7001".into()
            ])
        );
        assert_eq!(cli.check_store_options(), Ok(()));
        for (bad, named) in [
            ("redis-cluster://", "names no node"),
            ("redis-cluster://127.0.0.1", "`127.0.0.1`"),
            ("redis-cluster://127.0.0.1:7000,", "``"),
            ("redis-cluster://127.0.0.1:7000,:7001", "`:7001`"),
            ("redis-cluster://127.0.0.1:70000", "`127.0.0.1:70000`"),
            ("redis-cluster://127.0.0.1:0", "`127.0.0.1:0`"),
            ("redis-cluster://redis://a:1", "`redis://a:1`"),
        ] {
            let error = parse(&["--store", bad]).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::ValueValidation, "{bad}");
            let error = error.to_string();
            assert!(error.contains(named), "{bad}: {error}");
            assert!(
                error.contains("redis-cluster://10.0.0.1:7000,"),
                "{bad}: {error}"
            );
        }
    }

    #[test]
    fn a_flag_whose_feature_was_left_out_names_the_feature_and_the_command() {
        let cases: [(&[&str], &str, bool); 7] = [
            (
                &["--store", "redis://127.0.0.1:6379"],
                "redis",
                cfg!(feature = "redis"),
            ),
            (
                &["--store", "redis-cluster://127.0.0.1:7000"],
                "redis",
                cfg!(feature = "redis"),
            ),
            (
                &[
                    "--http",
                    "127.0.0.1:0",
                    "--oauth-issuer",
                    "https://issuer.example",
                    "--oauth-audience",
                    "https://mcp.example/mcp",
                ],
                "oauth",
                cfg!(feature = "oauth"),
            ),
            (&["--usage"], "usage", cfg!(feature = "usage")),
            (
                &["--metrics", "127.0.0.1:9464"],
                "metrics",
                cfg!(feature = "metrics"),
            ),
            (
                &["--otlp-endpoint", "http://127.0.0.1:4318"],
                "otlp",
                cfg!(feature = "otlp"),
            ),
            (
                &["--log-format", "json"],
                "json-logs",
                cfg!(feature = "json-logs"),
            ),
        ];
        for (args, feature, built) in cases {
            let checked = parse(args).unwrap().check_features();
            if built {
                assert_eq!(checked, Ok(()), "{args:?}");
            } else {
                let error = checked.unwrap_err();
                assert!(error.contains(&format!("`{feature}` feature")), "{error}");
                assert!(
                    error.contains(&format!("cargo run -p inventory --features {feature} --")),
                    "{error}"
                );
            }
        }
        assert_eq!(parse(&[]).unwrap().check_features(), Ok(()));
    }

    #[test]
    fn telemetry_flags_are_an_address_a_url_and_a_format() {
        let cli = parse(&[]).unwrap();
        assert_eq!(
            (cli.metrics, cli.otlp_endpoint, cli.log_format),
            (None, None, LogFormat::Text)
        );
        let cli = parse(&[
            "--metrics",
            "127.0.0.1:9464",
            "--otlp-endpoint",
            "http://collector:4318/",
            "--log-format=json",
        ])
        .unwrap();
        assert_eq!(cli.metrics, Some("127.0.0.1:9464".parse().unwrap()));
        // The signals' paths are added to a base without its trailing slash.
        assert_eq!(cli.otlp_endpoint.as_deref(), Some("http://collector:4318"));
        assert_eq!(cli.log_format, LogFormat::Json);
        let error = parse(&["--metrics", "localhost:9464"]).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::ValueValidation);
        for bad in [
            "127.0.0.1:4318",
            "http://",
            "https://collector:4318",
            "grpc://c:4317",
        ] {
            let error = parse(&["--otlp-endpoint", bad]).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::ValueValidation, "{bad}");
            assert!(
                error.to_string().contains("http://127.0.0.1:4318"),
                "{error}"
            );
        }
        let error = parse(&["--log-format", "logfmt"]).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::InvalidValue);
        assert!(
            error.to_string().contains("[possible values: text, json]"),
            "{error}"
        );
        let help = parse(&["--help"]).unwrap_err().to_string();
        for option in [
            "--metrics <ADDR>",
            "--otlp-endpoint <URL>",
            "--log-format <FORMAT>",
            "mcp_server_operation_duration_seconds",
            "/v1/traces",
        ] {
            assert!(help.contains(option), "{option} missing from:\n{help}");
        }
    }

    #[test]
    fn the_store_cap_is_a_positive_number_of_mb() {
        assert_eq!(parse(&[]).unwrap().store_max_mb, None);
        assert_eq!(
            parse(&["--store-max-mb", "256"]).unwrap().store_max_mb,
            Some(256)
        );
        assert_eq!(parse(&["--store-max-mb=1"]).unwrap().store_max_mb, Some(1));
        for bad in ["0", "-1", "lots", "2000000"] {
            let error = parse(&[&format!("--store-max-mb={bad}")]).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::ValueValidation, "{bad}");
            assert!(error.to_string().contains("--store-max-mb"), "{error}");
        }
    }

    #[test]
    fn the_spill_directory_and_cap_are_a_path_and_a_number_of_mb() {
        let cli = parse(&[]).unwrap();
        assert_eq!((cli.spill_dir, cli.spill_max_mb), (None, None));
        let cli = parse(&[
            "--spill-dir",
            "/var/tmp/inventory",
            "--spill-max-mb",
            "4096",
        ])
        .unwrap();
        assert_eq!(cli.spill_dir, Some("/var/tmp/inventory".into()));
        assert_eq!(cli.spill_max_mb, Some(4096));
        // 0 turns spilling off.
        let cli = parse(&["--spill-dir=spill", "--spill-max-mb=0"]).unwrap();
        assert_eq!(cli.spill_dir, Some("spill".into()));
        assert_eq!(cli.spill_max_mb, Some(0));
        for bad in ["-1", "lots", "1.5", "2000000000"] {
            let error = parse(&[&format!("--spill-max-mb={bad}")]).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::ValueValidation, "{bad}");
            assert!(error.to_string().contains("--spill-max-mb"), "{error}");
        }
        for option in ["--spill-dir", "--spill-max-mb"] {
            let error = parse(&[option]).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::InvalidValue, "{option}");
        }
        let help = parse(&["--help"]).unwrap_err().to_string();
        assert!(help.contains("--spill-dir <PATH>"), "{help}");
        assert!(help.contains("--spill-max-mb <N>"), "{help}");
    }

    #[test]
    fn the_memory_store_options_are_refused_beside_redis() {
        let memory = parse(&[
            "--spill-dir",
            "spill",
            "--spill-max-mb",
            "0",
            "--store-max-mb",
            "8",
        ]);
        assert_eq!(memory.unwrap().check_store_options(), Ok(()));
        let redis = ["--store", "redis://127.0.0.1:6379"];
        assert_eq!(parse(&redis).unwrap().check_store_options(), Ok(()));
        for extra in [
            &["--spill-dir", "spill"][..],
            &["--spill-max-mb", "0"],
            &["--spill-dir", "spill", "--spill-max-mb", "100"],
        ] {
            let cli = parse(&[&redis[..], extra].concat()).unwrap();
            let error = cli.check_store_options().unwrap_err();
            assert!(error.contains("--spill-dir and --spill-max-mb"), "{error}");
            assert!(error.contains("kept in Redis"), "{error}");
        }
        let cli = parse(&[&redis[..], &["--store-max-mb", "8"]].concat()).unwrap();
        let error = cli.check_store_options().unwrap_err();
        assert!(error.contains("maxmemory"), "{error}");
    }

    #[test]
    fn auth_tokens_repeat_and_need_http() {
        let cli = parse(&[
            "--http",
            "127.0.0.1:0",
            "--auth-token",
            "alice=alice-secret-0123456789",
            "--auth-token=bob=b=c",
        ])
        .unwrap();
        assert_eq!(
            cli.auth_token,
            [
                ("alice".to_owned(), "alice-secret-0123456789".to_owned()),
                ("bob".to_owned(), "b=c".to_owned())
            ]
        );
        let error = parse(&["--auth-token", "alice=x"]).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::MissingRequiredArgument);
        let error = parse(&["--http", "127.0.0.1:0", "--auth-token", "alice"]).unwrap_err();
        assert!(error.to_string().contains("NAME=SECRET"), "{error}");
    }

    #[test]
    fn oauth_needs_an_issuer_and_an_audience() {
        let cli = parse(&[
            "--http",
            "127.0.0.1:0",
            "--oauth-issuer",
            "https://auth.example.com",
            "--oauth-audience",
            "https://mcp.example.com/mcp",
            "--oauth-scope",
            "inventory",
            "--oauth-scope",
            "openid",
        ])
        .unwrap();
        assert_eq!(cli.oauth_scope, ["inventory", "openid"]);
        for args in [
            &[
                "--http",
                "127.0.0.1:0",
                "--oauth-issuer",
                "https://a.example",
            ][..],
            &[
                "--http",
                "127.0.0.1:0",
                "--oauth-audience",
                "https://m.example/mcp",
            ],
            &["--http", "127.0.0.1:0", "--oauth-scope", "inventory"],
        ] {
            let error = parse(args).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::MissingRequiredArgument, "{args:?}");
        }
    }

    #[test]
    fn surface_is_flat_dispatcher_or_both_and_defaults_to_both() {
        assert_eq!(parse(&[]).unwrap().surface, Surface::Both);
        for surface in Surface::ALL {
            let cli = parse(&["--surface", surface.as_str()]).unwrap();
            assert_eq!(cli.surface, surface);
        }
        let error = parse(&["--surface", "all"]).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::InvalidValue);
        let message = error.to_string();
        assert!(message.contains("'all'"), "{message}");
        assert!(
            message.contains("[possible values: flat, dispatcher, both]"),
            "{message}"
        );
    }

    #[test]
    fn clients_are_name_and_bytes_repeated_and_sizes_are_bytes() {
        let cli = parse(&[]).unwrap();
        assert_eq!(
            (cli.client, cli.unknown_client_bytes, cli.envelope_bytes),
            (vec![], None, None)
        );
        let cli = parse(&[
            "--client",
            "acme-agent=6000",
            "--client=claude-code=30000",
            "--client",
            "Visual Studio Code=2048",
            "--unknown-client-bytes",
            "8000",
            "--envelope-bytes=0",
        ])
        .unwrap();
        assert_eq!(
            cli.client,
            [
                ("acme-agent".to_owned(), 6000),
                ("claude-code".to_owned(), 30_000),
                ("Visual Studio Code".to_owned(), 2048),
            ]
        );
        assert_eq!(cli.unknown_client_bytes, Some(8000));
        assert_eq!(cli.envelope_bytes, Some(0));
        let clients = crate::clients(&cli).unwrap();
        assert_eq!(clients.keeps(Some("acme-agent")), 6000);
        assert_eq!(clients.keeps(Some("claude-code")), 30_000);
        assert_eq!(clients.keeps(Some("codex-mcp-client")), 10_000);
        assert_eq!(clients.keeps(Some("some-agent")), 8000);
        assert_eq!(clients.keeps(None), 8000);
        // The defaults are mcp-light's.
        let clients = crate::clients(&parse(&[]).unwrap()).unwrap();
        assert_eq!(clients, mcp_light::clients::ClientTable::new());
    }

    #[test]
    fn a_bad_client_or_size_names_the_flag_and_what_to_send() {
        for (bad, said) in [
            ("acme-agent", "expected NAME=BYTES"),
            ("=6000", "expected NAME=BYTES"),
            ("acme-agent=", "`` is not a number of bytes"),
            ("acme-agent=lots", "`lots` is not a number of bytes"),
            ("acme-agent=-1", "`-1` is not a number of bytes"),
            ("acme-agent=6k", "`6k` is not a number of bytes"),
            ("acme-agent=100", "100 bytes holds no probe"),
            ("acme-agent=2047", "2047 bytes holds no probe"),
        ] {
            let error = parse(&["--client", bad]).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::ValueValidation, "{bad}");
            let message = error.to_string();
            assert!(
                message.contains("--client <NAME=BYTES>"),
                "{bad}: {message}"
            );
            assert!(message.contains(said), "{bad}: {message}");
            assert!(message.contains("acme-agent=6000"), "{bad}: {message}");
        }
        for bad in ["lots", "-1", "100", "2047", ""] {
            let error = parse(&[&format!("--unknown-client-bytes={bad}")]).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::ValueValidation, "{bad}");
            let message = error.to_string();
            assert!(
                message.contains("--unknown-client-bytes <BYTES>"),
                "{bad}: {message}"
            );
            assert!(message.contains("at least 2048"), "{bad}: {message}");
        }
        assert_eq!(
            parse(&["--unknown-client-bytes", "2048"])
                .unwrap()
                .unknown_client_bytes,
            Some(2048)
        );
        for bad in ["-1", "lots", "1.5"] {
            let error = parse(&[&format!("--envelope-bytes={bad}")]).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::ValueValidation, "{bad}");
            assert!(error.to_string().contains("--envelope-bytes"), "{error}");
        }
        for option in ["--client", "--unknown-client-bytes", "--envelope-bytes"] {
            let error = parse(&[option]).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::InvalidValue, "{option}");
        }
        let help = parse(&["--help"]).unwrap_err().to_string();
        for option in [
            "--client <NAME=BYTES>",
            "--unknown-client-bytes <BYTES>",
            "--envelope-bytes <BYTES>",
            "codex-mcp-client",
        ] {
            assert!(help.contains(option), "{option} missing from:\n{help}");
        }
    }

    #[test]
    fn unknown_flags_and_stray_words_are_refused() {
        let error = parse(&["--verbose"]).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::UnknownArgument);
        assert!(error.to_string().contains("'--verbose'"));
        let error = parse(&["inventory.db"]).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::UnknownArgument);
    }
}
