//! A network-inventory MCP server on SQLite: the flagship example of
//! mcp-light.
//!
//! ```text
//! cargo run -p inventory                                 # stdio, in-memory database
//! cargo run -p inventory -- --db inventory.db            # stdio, a file
//! cargo run -p inventory -- --db x.db --db-sync full     # every commit synced
//! cargo run -p inventory --features postgres -- --db postgres://app@db/inventory
//! cargo run -p inventory -- --http 127.0.0.1:8080        # Streamable HTTP at /mcp, /healthz, /readyz
//! cargo run -p inventory -- --seed 500                   # 4 sites and 500 devices first
//! cargo run -p inventory -- --surface dispatcher         # publish only the dispatcher
//! cargo run -p inventory -- --output-schema              # an outputSchema for every tool
//! cargo run -p inventory -- --client acme-agent=6000      # answers sized to a client of your own
//! cargo run -p inventory --features usage -- --usage     # token report in _meta
//! cargo run -p inventory --features metrics -- --http 127.0.0.1:8080 --metrics 127.0.0.1:9464
//! cargo run -p inventory --features otlp -- --otlp-endpoint http://127.0.0.1:4318
//! cargo run -p inventory --features json-logs -- --log-format json
//! cargo run -p inventory -- --check --http 0.0.0.0:8080  # audit that configuration, serve nothing
//! ```
//!
//! The deployment parts are cargo features, off by default: `postgres`
//! (`--db postgres://…`), `redis`
//! (`--store redis://…` and `redis-cluster://…`), `oauth`
//! (`--oauth-issuer`), `usage` (`--usage`), `metrics` (`--metrics`), `otlp`
//! (`--otlp-endpoint`) and `json-logs` (`--log-format json`). A flag whose feature a
//! build left out is refused with the command that builds it in.
//!
//! stdout is the MCP channel on stdio, so everything this program says goes
//! to stderr. The tools, the database and the fixture are the `inventory`
//! library's; this binary reads the command line ([`cli`]), installs where
//! logs, metrics and traces go ([`telemetry`]) and serves, or with
//! `--check` audits what it would serve ([`check`]).

mod check;
mod cli;
mod telemetry;

use std::process::ExitCode;

use std::time::{Duration, Instant};

use clap::Parser;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use inventory::database::Database;
use inventory::db::{self, Db};
use inventory::fixture;
use mcp_light::auth::Auth;
#[cfg(feature = "oauth")]
use mcp_light::auth::OAuthResource;
use mcp_light::clients::ClientTable;
use mcp_light::store::{MemoryStore, MemoryStoreConfig};
#[cfg(feature = "redis")]
use mcp_light::store::{RedisStore, RedisStoreConfig};
use mcp_light::transport::{HttpOptions, StdioOptions, shutdown_signal};
use mcp_light::{Server, ServerBuilder};

use crate::cli::{Cli, DbTarget, Store};
use crate::telemetry::Telemetry;

fn main() -> ExitCode {
    // Help and version go to stdout with status 0, mistakes to stderr with 2.
    let cli = Cli::parse();
    if cli.check {
        return check::main(&cli);
    }
    // Before the runtime: the OTLP exporter's blocking client is made (and
    // dropped, at shutdown) outside it.
    let telemetry = match cli.check_features().and_then(|()| Telemetry::install(&cli)) {
        Ok(telemetry) => telemetry,
        Err(message) => {
            eprintln!("inventory: {message}");
            return ExitCode::FAILURE;
        }
    };
    let Some(runtime) = runtime() else {
        return ExitCode::FAILURE;
    };
    let served = runtime.block_on(run(cli, &telemetry));
    // A call cut at the drain deadline may still hold a thread of the
    // blocking pool (a write to SQLite): the process does not wait for it.
    runtime.shutdown_timeout(Duration::from_secs(1));
    // The requests have ended: their spans are closed and can all be sent.
    telemetry.shutdown();
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("inventory: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Opens (and seeds) the database, then serves until the client leaves or,
/// over HTTP, until SIGTERM or ctrl-c; either way the calls in flight
/// answer first (within `--drain-timeout`).
async fn run(cli: Cli, telemetry: &Telemetry) -> Result<(), String> {
    // Before a seed that may take a while.
    cli.check_store_options()?;
    let db = open(&cli).await?;
    if let Some(count) = cli.seed {
        seed(&db, count).await?;
    }
    let devices = db
        .count_devices()
        .await
        .map_err(|e| format!("cannot read the database: {e}"))?;
    eprintln!("inventory: the database holds {devices} devices");
    let server = build(db, &cli, true).await?;
    let auth = auth(&cli)?;
    if let Some(addr) = cli.metrics {
        telemetry.serve_metrics(addr).await?;
    }

    let drain = cli
        .drain_timeout
        .map_or(mcp_light::defaults::DRAIN_TIMEOUT, Duration::from_secs);
    match cli.http {
        None => {
            eprintln!("inventory: serving MCP on stdio");
            let options = StdioOptions::new().with_drain_timeout(drain);
            server
                .serve_stdio_with(options)
                .await
                .map_err(|e| e.to_string())
        }
        Some(addr) => {
            let options = http_options(&cli, auth, drain)?;
            if options.auth().is_some() {
                eprintln!("inventory: every request must authenticate (Authorization: Bearer)");
            }
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
            let bound = listener.local_addr().map_err(|e| e.to_string())?;
            eprintln!("inventory: serving MCP over Streamable HTTP at http://{bound}/mcp");
            let shutdown = async move {
                shutdown_signal().await;
                eprintln!(
                    "inventory: shutting down; the calls in flight have {} s to answer",
                    drain.as_secs_f64()
                );
            };
            server
                .serve_http_with(listener, options, shutdown)
                .await
                .map_err(|e| e.to_string())?;
            eprintln!("inventory: stopped");
            Ok(())
        }
    }
}

/// The server the command line describes, over `db`: its store (Redis
/// pinged, and what it answered said on stderr, when `announce`), surface,
/// output schemas, what each client keeps of an answer, the bulk envelope's
/// bound and tasks.
async fn build(db: Database, cli: &Cli, announce: bool) -> Result<Server, String> {
    let server = with_store(inventory::server(db), cli, announce).await?;
    #[cfg(feature = "usage")]
    let server = server.with_usage_report(cli.usage);
    server
        .with_surface(cli.surface)
        .with_output_schemas(cli.output_schema)
        .with_clients(clients(cli)?)
        .with_envelope_bytes(
            cli.envelope_bytes
                .unwrap_or(mcp_light::defaults::ENVELOPE_BYTES),
        )
        .with_task_after(Duration::from_millis(cli.task_after.unwrap_or(1000)))
        .build()
        .map_err(|e| e.to_string())
}

/// What each client keeps of an answer: the clients mcp-light knows,
/// `--client`'s entries over them, and `--unknown-client-bytes` for the
/// rest.
fn clients(cli: &Cli) -> Result<ClientTable, String> {
    let mut clients = ClientTable::new();
    for (name, bytes) in &cli.client {
        clients = clients
            .with_client(name, *bytes)
            .map_err(|e| format!("--client {name}={bytes}: {e}"))?;
    }
    if let Some(bytes) = cli.unknown_client_bytes {
        clients = clients
            .with_unknown_client(bytes)
            .map_err(|e| format!("--unknown-client-bytes {bytes}: {e}"))?;
    }
    Ok(clients)
}

/// How the HTTP server serves: authentication, the drain at shutdown, the
/// session bounds.
fn http_options(cli: &Cli, auth: Option<Auth>, drain: Duration) -> Result<HttpOptions, String> {
    let mut options = HttpOptions::new().with_drain_timeout(drain);
    if let Some(auth) = auth {
        options = options.with_auth(auth);
    }
    // At most 1 << 20 (the parser's bound): fits a usize.
    if let Some(max) = cli.max_sessions {
        options = options
            .with_max_sessions(max as usize)
            .map_err(|e| format!("--max-sessions: {e}"))?;
    }
    if let Some(max) = cli.max_sessions_per_caller {
        options = options
            .with_max_sessions_per_principal(max as usize)
            .map_err(|e| format!("--max-sessions-per-caller: {e}"))?;
    }
    Ok(options)
}

/// The database `--db` names: a SQLite file, PostgreSQL, or memory.
async fn open(cli: &Cli) -> Result<Database, String> {
    let path = match &cli.db {
        None => None,
        Some(DbTarget::File(path)) => Some(path.as_path()),
        #[cfg(feature = "postgres")]
        Some(DbTarget::Postgres(url)) => {
            return inventory::postgres::PgDb::connect(url)
                .await
                .map(Database::from)
                .map_err(|e| format!("cannot open the PostgreSQL database: {e}"));
        }
        #[cfg(not(feature = "postgres"))]
        Some(DbTarget::Postgres(_)) => unreachable!("refused by Cli::check_features"),
    };
    Db::open_with(path, cli.db_sync)
        .map(Database::from)
        .map_err(|e| match path {
            Some(path) => format!("cannot open the database {}: {e}", path.display()),
            None => format!("cannot open an in-memory database: {e}"),
        })
}

/// Creates the fixture sites and `count` fixture devices, generated as they
/// are inserted ([`db::SEED_BATCH`] a transaction), so a million of them
/// take no more memory than a few; a progress bar on stderr shows how far
/// it is when stderr is a terminal.
async fn seed(db: &Database, count: usize) -> Result<(), String> {
    let started = Instant::now();
    // ProgressDrawTarget::stderr() draws nothing unless stderr is a
    // terminal, so a log or a pipe gets only the line below.
    let bar = ProgressBar::with_draw_target(Some(count as u64), ProgressDrawTarget::stderr())
        .with_style(
        ProgressStyle::with_template(
            "inventory: seeding {bar:30} {human_pos}/{human_len} devices, {elapsed}, {eta} left",
        )
        .expect("a valid template"),
    );
    let progress = |done: usize| bar.set_position(done as u64);
    let seeded = match db {
        Database::Sqlite(db) => db.run_now(|conn| {
            db::ensure_sites(conn, fixture::new_sites())?;
            db::seed_devices(conn, fixture::devices(count, 1), count, progress)
        }),
        #[cfg(feature = "postgres")]
        Database::Postgres(db) => match db.ensure_sites(fixture::new_sites()).await {
            Ok(()) => {
                db.seed_devices(fixture::devices(count, 1), count, progress)
                    .await
            }
            Err(error) => Err(error),
        },
    };
    bar.finish_and_clear();
    seeded.map_err(|e| match bar.position() {
        0 => format!("cannot seed the database: {e}"),
        // Batches commit one by one: the ones before the failure stay.
        done => format!(
            "cannot seed the database: {e} (in this batch; the {done} devices of the \
             batches before it are written)"
        ),
    })?;
    eprintln!(
        "inventory: seeded the 4 fixture sites and {count} devices in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// `server` keeping continuation results where `--store` says, for
/// `--token-ttl`, at most `--store-max-mb` of them in memory; a Redis store
/// is pinged, and what it answered said, when `announce`.
async fn with_store(
    server: ServerBuilder,
    cli: &Cli,
    announce: bool,
) -> Result<ServerBuilder, String> {
    let ttl = Duration::from_secs(cli.token_ttl.unwrap_or(300));
    match &cli.store {
        Store::Memory => {
            let mut config = MemoryStoreConfig::new().with_ttl(ttl);
            if let Some(dir) = &cli.spill_dir {
                config = config.with_disk_dir(dir.clone());
            }
            if let Some(mb) = cli.spill_max_mb {
                // At most 1 << 30 MB (the parser's bound): no overflow.
                config = config.with_max_disk_bytes(mb << 20);
            }
            if let Some(mb) = cli.store_max_mb {
                // At most 1 << 20 MB (the parser's bound): no overflow.
                let bytes = usize::try_from(mb << 20).map_err(|_| {
                    format!("--store-max-mb {mb} is more memory than this machine can address")
                })?;
                config = config
                    .with_max_bytes(bytes)
                    .and_then(|config| config.with_max_entry_bytes((bytes / 4).max(1)))
                    .map_err(|e| format!("--store-max-mb {mb}: {e}"))?;
            }
            Ok(server.with_store(MemoryStore::new(config)))
        }
        Store::Redis(url) => redis_store(server, url, ttl, announce).await,
        Store::RedisCluster(nodes) => redis_cluster_store(server, nodes, ttl, announce).await,
    }
}

/// `server` keeping continuation results in the Redis at `url`.
#[cfg(feature = "redis")]
async fn redis_store(
    server: ServerBuilder,
    url: &str,
    ttl: Duration,
    announce: bool,
) -> Result<ServerBuilder, String> {
    let store = RedisStore::open(url, RedisStoreConfig::new().with_ttl(ttl))
        .map_err(|e| format!("--store: {e}"))?;
    if !announce {
        return Ok(server.with_store(store));
    }
    let shown = cli::shown_store(&cli::Store::Redis(url.to_owned()));
    match store.ping().await {
        Ok(()) => eprintln!("inventory: continuation results kept in Redis at {shown}"),
        Err(e) => eprintln!(
            "inventory: Redis at {shown} does not answer ({e}); answering without \
             continuation tokens until it does"
        ),
    }
    Ok(server.with_store(store))
}

#[cfg(not(feature = "redis"))]
async fn redis_store(
    _: ServerBuilder,
    _: &str,
    _: Duration,
    _: bool,
) -> Result<ServerBuilder, String> {
    Err(cli::missing_feature("--store redis://…", "redis"))
}

/// `server` keeping continuation results in the Redis Cluster `nodes`
/// belong to.
#[cfg(feature = "redis")]
async fn redis_cluster_store(
    server: ServerBuilder,
    nodes: &[String],
    ttl: Duration,
    announce: bool,
) -> Result<ServerBuilder, String> {
    let urls: Vec<&str> = nodes.iter().map(String::as_str).collect();
    let store = RedisStore::open_cluster(&urls, RedisStoreConfig::new().with_ttl(ttl))
        .map_err(|e| format!("--store: {e}"))?;
    if !announce {
        return Ok(server.with_store(store));
    }
    let shown = cli::shown_store(&cli::Store::RedisCluster(nodes.to_vec()));
    match store.ping().await {
        Ok(()) => eprintln!("inventory: continuation results kept in the Redis Cluster at {shown}"),
        Err(e) => eprintln!(
            "inventory: the Redis Cluster at {shown} does not answer ({e}); answering \
             without continuation tokens until it does"
        ),
    }
    Ok(server.with_store(store))
}

#[cfg(not(feature = "redis"))]
async fn redis_cluster_store(
    _: ServerBuilder,
    _: &[String],
    _: Duration,
    _: bool,
) -> Result<ServerBuilder, String> {
    Err(cli::missing_feature("--store redis-cluster://…", "redis"))
}

/// The authentication `--auth-token` and `--oauth-*` ask for, if any.
fn auth(cli: &Cli) -> Result<Option<Auth>, String> {
    let mut auth = Auth::new();
    for (name, secret) in &cli.auth_token {
        auth = auth
            .with_bearer_token(name, secret)
            .map_err(|e| format!("--auth-token: {e}"))?;
    }
    if let (Some(issuer), Some(audience)) = (&cli.oauth_issuer, &cli.oauth_audience) {
        auth = with_oauth(auth, cli, issuer, audience)?;
    }
    Ok(auth.is_configured().then_some(auth))
}

/// `auth` accepting the access tokens of `--oauth-issuer`.
#[cfg(feature = "oauth")]
fn with_oauth(auth: Auth, cli: &Cli, issuer: &str, audience: &str) -> Result<Auth, String> {
    let mut oauth =
        OAuthResource::new(issuer, audience).with_required_scopes(cli.oauth_scope.iter());
    if let Some(jwks) = &cli.oauth_jwks_url {
        oauth = oauth.with_jwks_url(jwks);
    }
    auth.with_oauth(oauth)
        .map_err(|e| format!("--oauth-*: {e}"))
}

#[cfg(not(feature = "oauth"))]
fn with_oauth(_: Auth, _: &Cli, _: &str, _: &str) -> Result<Auth, String> {
    Err(cli::missing_feature("--oauth-issuer", "oauth"))
}

/// The async runtime the server (or `--check`) runs on; `None`, said on
/// stderr, when it cannot start.
fn runtime() -> Option<tokio::runtime::Runtime> {
    tokio::runtime::Runtime::new()
        .inspect_err(|error| eprintln!("inventory: cannot start the async runtime: {error}"))
        .ok()
}
