//! `mcp-light-gateway [OPTIONS] -- COMMAND [ARGS...]` or
//! `mcp-light-gateway --upstream-url URL`: the server behind mcp-light's
//! answer discipline, served on this process's stdin and stdout, or over
//! Streamable HTTP with `--http ADDR`.
//!
//! stdout is the MCP channel on stdio, so everything this program says goes
//! to stderr; `--check` prints its audit on stdout and serves nothing.

mod cli;

use std::process::{ExitCode, Stdio};
use std::sync::Arc;
use std::time::Duration;

use mcp_light::audit::{Audit, Finding};
use mcp_light::store::{MemoryStore, MemoryStoreConfig};
use mcp_light::transport::{HttpOptions, ServeError, StdioOptions, shutdown_signal};
use mcp_light::{Server, ServerBuilder};
use mcp_light_gateway::config::Config;
use mcp_light_gateway::{Upstream, gateway};
use rmcp::transport::StreamableHttpClientTransport;
use rustls_platform_verifier::BuilderVerifierExt;
use tokio::process::Child;

use crate::cli::{Cli, Store};

/// The audit's check that the upstream answered.
const UPSTREAM: &str = "upstream";
/// The audit's check of the configuration file.
const CONFIG: &str = "config";

fn main() -> ExitCode {
    let cli = Cli::parse_checked();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("mcp-light-gateway: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let done = runtime.block_on(async {
        if cli.check {
            return check(&cli).await;
        }
        serve(&cli).await.map(|()| ExitCode::SUCCESS)
    });
    // An upstream call cut at shutdown is not waited for.
    runtime.shutdown_timeout(Duration::from_secs(1));
    done.unwrap_or_else(|message| {
        eprintln!("mcp-light-gateway: {message}");
        ExitCode::FAILURE
    })
}

/// Connects to the upstream, then serves until the client leaves (stdio)
/// or until SIGTERM or ctrl-c (HTTP).
async fn serve(cli: &Cli) -> Result<(), String> {
    let config = config(cli)?;
    let (upstream, _child) = connect(cli).await?;
    eprintln!(
        "mcp-light-gateway: `{}` lists {} tools",
        cli.upstream_name(),
        upstream.tools().len()
    );
    for name in config.unknown_tools(&upstream) {
        eprintln!(
            "mcp-light-gateway: warning: {} names the tool `{name}`, which the upstream does not list",
            cli.config
                .as_deref()
                .unwrap_or(std::path::Path::new("--config"))
                .display()
        );
    }
    let builder = config.apply(&upstream, gateway(upstream.clone()));
    let server = build(builder, cli).await?;
    match cli.http {
        None => serve_stdio(server).await.map_err(|e| e.to_string()),
        Some(addr) => {
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
            let bound = listener.local_addr().map_err(|e| e.to_string())?;
            eprintln!("mcp-light-gateway: serving MCP over Streamable HTTP at http://{bound}/mcp");
            server
                .serve_http_with(listener, HttpOptions::new(), shutdown_signal())
                .await
                .map_err(|e| e.to_string())
        }
    }
}

/// Serves stdin and stdout, read and written by the runtime's own I/O
/// driver where they are pipes (as a host starts the gateway), rather than
/// by its blocking threads: a call crosses the gateway twice each way, and
/// each crossing through a blocking thread costs a thread's wake-up.
#[cfg(unix)]
async fn serve_stdio(server: Server) -> Result<(), ServeError> {
    use std::os::fd::AsFd;
    use tokio::net::unix::pipe;

    let pipes = || -> Option<(pipe::Receiver, pipe::Sender)> {
        let stdin = std::io::stdin().as_fd().try_clone_to_owned().ok()?;
        let stdout = std::io::stdout().as_fd().try_clone_to_owned().ok()?;
        let read = pipe::Receiver::from_owned_fd(stdin).ok()?;
        let write = pipe::Sender::from_owned_fd(stdout).ok()?;
        Some((read, write))
    };
    match pipes() {
        Some((read, write)) => server.serve_lines(read, write, StdioOptions::new()).await,
        // A file or a terminal.
        None => server.serve_stdio().await,
    }
}

#[cfg(not(unix))]
async fn serve_stdio(server: Server) -> Result<(), ServeError> {
    server.serve_stdio().await
}

/// Prints the audit of what serving would serve, the upstream reached
/// first: a failure exits 1.
async fn check(cli: &Cli) -> Result<ExitCode, String> {
    let mut audit = Audit::new();
    let config = match config(cli) {
        Ok(config) => config,
        Err(message) => {
            audit.push(Finding::error(CONFIG, message));
            Config::default()
        }
    };
    // The upstream's child, if any, lives until the audit is printed.
    let (builder, reached, _child) = match connect(cli).await {
        Ok((upstream, child)) => {
            let reached = Finding::pass(
                UPSTREAM,
                format!(
                    "`{}` answered the handshake and lists {} tools",
                    cli.upstream_name(),
                    upstream.tools().len()
                ),
            );
            if cli.config.is_some() && !audit.has_errors() {
                let unknown = config.unknown_tools(&upstream);
                audit.push(match unknown.as_slice() {
                    [] => Finding::pass(
                        CONFIG,
                        format!(
                            "{} tools configured, each listed by the upstream",
                            config.tools().count()
                        ),
                    ),
                    _ => Finding::warning(
                        CONFIG,
                        format!(
                            "the upstream lists no tool named {}: a typo, or another version of \
                             the server",
                            unknown.join(", ")
                        ),
                    ),
                });
            }
            let builder = config.apply(&upstream, gateway(upstream.clone()));
            (builder, reached, child)
        }
        // The rest is audited without it.
        Err(message) => (
            Server::from_tools([]),
            Finding::error(
                UPSTREAM,
                format!("{message}, so the gateway would not start"),
            ),
            None,
        ),
    };
    let server = build(builder, cli).await?;
    let auditor = server.audit();
    let auditor = match cli.http {
        Some(addr) => auditor.http(addr, &HttpOptions::new()),
        None => auditor,
    };
    audit.push(reached);
    audit.extend(auditor.await);
    print!("{audit}");
    Ok(match audit.has_errors() {
        true => ExitCode::FAILURE,
        false => ExitCode::SUCCESS,
    })
}

/// The configuration file `--config` names, checked; none without it.
fn config(cli: &Cli) -> Result<Config, String> {
    match &cli.config {
        Some(path) => Config::load(path).map_err(|e| format!("--config {e}")),
        None => Ok(Config::default()),
    }
}

/// The upstream the command line names: a command started as a child
/// process, or a Streamable HTTP endpoint. The child, if any, is killed
/// when dropped: hold it as long as the upstream serves.
async fn connect(cli: &Cli) -> Result<(Upstream, Option<Child>), String> {
    let name = cli.upstream_name();
    let connected = match cli.upstream_http()? {
        Some(mut config) => {
            config.max_sse_event_size = cli.max_answer_bytes();
            config.max_json_response_size = cli.max_answer_bytes();
            let transport = StreamableHttpClientTransport::with_client(http_client()?, config);
            Upstream::connect_http(transport)
                .await
                .map(|upstream| (upstream, None))
        }
        None => {
            let (program, rest) = cli
                .command
                .split_first()
                .ok_or("name the upstream server's command after --, or --upstream-url")?;
            // The child's pipes are read to the limit --max-answer-mib
            // sets (rmcp's child-process transport reads 16 MiB at most).
            let mut child = tokio::process::Command::new(program)
                .args(rest)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .kill_on_drop(true)
                .spawn()
                .map_err(|error| format!("cannot start `{program}`: {error}"))?;
            let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
                return Err(format!("`{program}` started without its pipes"));
            };
            Upstream::connect_lines(stdout, stdin, cli.max_answer_bytes())
                .await
                .map(|upstream| (upstream, Some(child)))
        }
    };
    connected.map_err(|error| format!("`{name}`: {error}"))
}

/// The client the upstream's Streamable HTTP is reached with: rustls on
/// ring, the platform's certificate verifier, HTTP/1.1.
fn http_client() -> Result<reqwest::Client, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut tls = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .and_then(BuilderVerifierExt::with_platform_verifier)
        .map_err(|error| format!("cannot set up TLS for --upstream-url: {error}"))?
        .with_no_client_auth();
    tls.alpn_protocols = vec![b"http/1.1".to_vec()];
    reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .build()
        .map_err(|error| format!("cannot build the HTTP client for --upstream-url: {error}"))
}

/// `builder` with the store, the token TTL and the clients' table the
/// command line gives, built.
async fn build(builder: ServerBuilder, cli: &Cli) -> Result<Server, String> {
    let ttl = Duration::from_secs(cli.token_ttl.unwrap_or(300));
    let builder = match cli.store.as_ref().unwrap_or(&Store::Memory) {
        Store::Memory => {
            builder.with_store(MemoryStore::new(MemoryStoreConfig::new().with_ttl(ttl)))
        }
        Store::Redis(url) => redis_store(builder, url, ttl).await?,
    };
    builder
        .with_clients(cli.clients()?)
        .build()
        .map_err(|e| e.to_string())
}

#[cfg(feature = "redis")]
async fn redis_store(
    builder: ServerBuilder,
    url: &str,
    ttl: Duration,
) -> Result<ServerBuilder, String> {
    use mcp_light::store::{RedisStore, RedisStoreConfig};
    let store = RedisStore::open(url, RedisStoreConfig::new().with_ttl(ttl))
        .map_err(|e| format!("--store: {e}"))?;
    Ok(builder.with_store(store))
}

#[cfg(not(feature = "redis"))]
async fn redis_store(_: ServerBuilder, _: &str, _: Duration) -> Result<ServerBuilder, String> {
    Err(
        "--store redis://…: this build has no Redis store; install it with \
         `cargo install mcp-light-gateway --features redis`"
            .to_owned(),
    )
}
