//! `mcp-light-gateway -- COMMAND [ARGS...]`: the server COMMAND starts,
//! behind mcp-light's answer discipline, served on this process's stdin
//! and stdout.

use std::process::ExitCode;

use clap::Parser;
use mcp_light_gateway::{Upstream, gateway};
use rmcp::transport::TokioChildProcess;

/// mcp-light's answer discipline in front of an MCP server: answers that
/// fit the client pass through, larger ones answer a probe and a
/// continuation token that pages, summarizes, filters or fetches them.
#[derive(Parser)]
#[command(version, about)]
struct Args {
    /// The upstream server's command and its arguments, after `--`, as a
    /// host's configuration would launch it.
    #[arg(required = true, last = true, value_name = "COMMAND")]
    command: Vec<String>,
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    let (program, rest) = args
        .command
        .split_first()
        .expect("clap requires the command");
    let mut command = tokio::process::Command::new(program);
    command.args(rest);
    let transport = match TokioChildProcess::new(command) {
        Ok(transport) => transport,
        Err(error) => {
            eprintln!("mcp-light-gateway: cannot start `{program}`: {error}");
            return ExitCode::FAILURE;
        }
    };
    let upstream = match Upstream::connect(transport).await {
        Ok(upstream) => upstream,
        Err(error) => {
            eprintln!("mcp-light-gateway: `{program}`: {error}");
            return ExitCode::FAILURE;
        }
    };
    let server = match gateway(upstream).build() {
        Ok(server) => server,
        Err(error) => {
            eprintln!("mcp-light-gateway: {error}");
            return ExitCode::FAILURE;
        }
    };
    match server.serve_stdio().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("mcp-light-gateway: {error}");
            ExitCode::FAILURE
        }
    }
}
