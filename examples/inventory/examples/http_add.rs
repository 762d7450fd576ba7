//! One trivial tool, `add(a, b)`, served over Streamable HTTP by mcp-light
//! or by a plain rmcp server, so that the cost of a `tools/call` over HTTP
//! can be compared side by side under the same load client.
//!
//! ```text
//! cargo run --release -p inventory --features bench-tools --example http_add -- --light [--port 8080]
//! cargo run --release -p inventory --features bench-tools --example http_add -- --rmcp  [--port 8080]
//! bash examples/inventory/benches/http_vs_rmcp.sh     # ROUNDS=6 DURATION=5
//! ```
//!
//! Both modes serve `POST /mcp` on `127.0.0.1` (port 0, the default, lets
//! the system pick one), on a tokio multi-thread runtime with 2 workers,
//! with `TCP_NODELAY` on every accepted socket; each prints
//! `listening on 127.0.0.1:PORT` once it accepts connections and stops on
//! SIGTERM or ctrl-c.
//!
//! * `--light`: `add` is an mcp-light `#[mcp_tool]`, an `async fn` that
//!   takes no `&Context` (run on the worker that polls the call), served by
//!   `Server::serve_http_with` with the default `HttpOptions`: what an
//!   mcp-light application runs. mcp-light keeps 2025-era sessions on, and
//!   serves a request of protocol 2026-07-28 statelessly, answering it in
//!   plain JSON.
//! * `--rmcp`: the same tool with rmcp's `#[tool]` router, served by rmcp's
//!   `StreamableHttpService` in an axum `Router`, with
//!   `legacy_session_mode: false` (no sessions at all) and
//!   `json_response: true`.
//!
//! The script `examples/inventory/benches/http_vs_rmcp.sh` starts each in
//! turn, drives it with `wrk` sending the same self-contained 2026-07-28
//! `tools/call` (its `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name`
//! headers and its `_meta` protocol version and client capabilities; no
//! `initialize`), and prints requests per second, their ratio, and each
//! server's peak resident memory. Both servers take that request down the
//! same stateless path of rmcp; what differs is the handler behind it and
//! what mcp-light puts in front of it (its JSON-RPC checks, the drain
//! counter, its listener).

use std::net::{Ipv4Addr, SocketAddr};

use mcp_light::prelude::*;
use mcp_light::transport::HttpOptions;
use tokio::net::TcpListener;

/// Add two numbers, in an `async fn` that takes no `&Context`.
#[mcp_tool]
async fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// The same tool, written with rmcp's own macros.
mod plain_rmcp {
    use rmcp::handler::server::router::tool::ToolRouter;
    use rmcp::handler::server::wrapper::{Json, Parameters};
    use rmcp::model::{ServerCapabilities, ServerConfig};
    use rmcp::{ServerHandler, tool, tool_handler, tool_router};
    use schemars::JsonSchema;
    use serde::Deserialize;

    #[derive(Deserialize, JsonSchema)]
    pub struct Add {
        a: i64,
        b: i64,
    }

    #[derive(Clone)]
    pub struct Adder {
        tool_router: ToolRouter<Adder>,
    }

    #[tool_router]
    impl Adder {
        pub fn new() -> Adder {
            Adder {
                tool_router: Self::tool_router(),
            }
        }

        /// Add two numbers.
        #[tool]
        async fn add(&self, Parameters(Add { a, b }): Parameters<Add>) -> Json<i64> {
            Json(a + b)
        }
    }

    /// The router built once and kept in a field.
    #[tool_handler(router = self.tool_router)]
    impl ServerHandler for Adder {
        fn get_info(&self) -> ServerConfig {
            ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
        }
    }
}

#[derive(Clone, Copy)]
enum Mode {
    Light,
    Rmcp,
}

const USAGE: &str = "usage: http_add (--light | --rmcp) [--port PORT]";

fn parse_args() -> Result<(Mode, u16), String> {
    let mut mode = None;
    let mut port = 0;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--light" => mode = Some(Mode::Light),
            "--rmcp" => mode = Some(Mode::Rmcp),
            "--port" => {
                let value = args.next().ok_or("--port needs a value")?;
                port = value
                    .parse()
                    .map_err(|_| format!("--port {value}: not a port"))?;
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok((mode.ok_or("--light or --rmcp is required")?, port))
}

fn main() {
    let (mode, port) = parse_args().unwrap_or_else(|e| {
        eprintln!("http_add: {e}\n{USAGE}");
        std::process::exit(2);
    });
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");
    if let Err(e) = runtime.block_on(serve(mode, port)) {
        eprintln!("http_add: {e}");
        std::process::exit(1);
    }
}

async fn serve(mode: Mode, port: u16) -> Result<(), Box<dyn std::error::Error>> {
    let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, port))).await?;
    println!("listening on {}", listener.local_addr()?);
    match mode {
        Mode::Light => serve_light(listener).await,
        Mode::Rmcp => serve_rmcp(listener).await,
    }
}

/// mcp-light as an application serves it: `TCP_NODELAY` is its listener's.
async fn serve_light(listener: TcpListener) -> Result<(), Box<dyn std::error::Error>> {
    let server = Server::from_tools(tools![add]).build()?;
    let shutdown = mcp_light::transport::shutdown_signal();
    server
        .serve_http_with(listener, HttpOptions::new(), shutdown)
        .await?;
    Ok(())
}

/// rmcp's service, stateless and answering JSON, in an axum router.
async fn serve_rmcp(listener: TcpListener) -> Result<(), Box<dyn std::error::Error>> {
    use axum::serve::ListenerExt;
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService,
    };

    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(false)
        .with_json_response(true);
    let cancel = config.cancellation_token.clone();
    let service = StreamableHttpService::new(
        || Ok(plain_rmcp::Adder::new()),
        LocalSessionManager::default().into(),
        config,
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            signal().await;
            cancel.cancel();
        })
        .await?;
    Ok(())
}

/// SIGTERM or ctrl-c.
async fn signal() {
    use tokio::signal::unix::{SignalKind, signal};
    let mut term = signal(SignalKind::terminate()).expect("a SIGTERM handler");
    tokio::select! {
        _ = term.recv() => {}
        _ = tokio::signal::ctrl_c() => {}
    }
}
