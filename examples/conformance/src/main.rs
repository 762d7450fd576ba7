//! The server the official MCP conformance suite
//! (`@modelcontextprotocol/conformance`) tests: every tool written with
//! mcp-light's macros, prompts, resources and completions with rmcp,
//! composed with `ServerBuilder::with_handler`.
//!
//! ```text
//! conformance --http 127.0.0.1:PORT     # Streamable HTTP at http://127.0.0.1:PORT/mcp
//! conformance --http 127.0.0.1:0        # a free port, named on stderr
//! conformance                           # stdio
//! ```

mod library;
mod tasks;
mod tools;

use std::process::ExitCode;
use std::time::Duration;

use mcp_light::Server;

fn usage() -> ExitCode {
    eprintln!("usage: conformance [--http ADDRESS]   (ADDRESS such as 127.0.0.1:3001)");
    ExitCode::from(2)
}

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let http = match args.as_slice() {
        [] => None,
        [flag, address] if flag == "--http" => Some(address.clone()),
        _ => return usage(),
    };
    let built = Server::from_registry()
        .with_implementation("mcp-light-conformance", env!("CARGO_PKG_VERSION"))
        .with_handler(library::Library::default())
        // Every task-capable call that waits becomes a task.
        .with_task_after(Duration::ZERO)
        .build();
    let server = match built {
        Ok(server) => server,
        Err(error) => {
            eprintln!("conformance: {error}");
            return ExitCode::FAILURE;
        }
    };
    let served = match http {
        Some(address) => {
            let listener = match tokio::net::TcpListener::bind(&address).await {
                Ok(listener) => listener,
                Err(error) => {
                    eprintln!("conformance: cannot listen on {address}: {error}");
                    return ExitCode::FAILURE;
                }
            };
            // With port 0 the system picks one: this line names it.
            match listener.local_addr() {
                Ok(bound) => eprintln!("conformance: serving http://{bound}/mcp"),
                Err(error) => eprintln!("conformance: bound {address}, address unknown: {error}"),
            }
            let shutdown = async {
                let _ = tokio::signal::ctrl_c().await;
            };
            server.serve_http(listener, shutdown).await
        }
        None => server.serve_stdio().await,
    };
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("conformance: {error}");
            ExitCode::FAILURE
        }
    }
}
