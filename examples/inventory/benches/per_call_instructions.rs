//! Instructions per `tools/call`, mcp-light against a hand-written rmcp
//! `#[tool]`, counted by valgrind's callgrind rather than timed, so the ratio
//! does not move with whatever else the machine is doing.
//!
//! ```sh
//! cargo bench -p inventory --bench per_call_instructions
//! ```
//!
//! Run by `cargo bench`, the binary runs itself under callgrind four times:
//! each handler for 0 and for `CALLS` calls of the same trivial tool, and
//! divides the difference by `CALLS`, so set-up costs cancel out. Run with
//! `light N` or `rmcp N` it just makes the calls. Without valgrind on the
//! PATH it says so and exits.

use std::hint::black_box;
use std::process::Command;

use mcp_light::prelude::*;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{CallToolRequestParams, NumberOrString};
use rmcp::service::{Peer, RequestContext, RoleServer};

const CALLS: u64 = 20_000;

/// The sum of two numbers.
#[derive(Serialize, JsonSchema)]
struct Sum {
    sum: i64,
}

/// Add two numbers.
#[mcp_tool]
fn add(a: i64, b: i64) -> Sum {
    Sum { sum: a + b }
}

mod by_hand {
    use rmcp::handler::server::router::tool::ToolRouter;
    use rmcp::handler::server::wrapper::{Json, Parameters};
    use rmcp::model::{ServerCapabilities, ServerConfig};
    use rmcp::{ServerHandler, tool, tool_handler, tool_router};
    use schemars::JsonSchema;
    use serde::Deserialize;

    use super::Sum;

    #[derive(Deserialize, JsonSchema)]
    pub struct Add {
        a: i64,
        b: i64,
    }

    /// The same tool with rmcp's macros, its router kept in a field.
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
        fn add(&self, Parameters(Add { a, b }): Parameters<Add>) -> Json<Sum> {
            Json(Sum { sum: a + b })
        }
    }

    #[tool_handler(router = self.tool_router)]
    impl ServerHandler for Adder {
        fn get_info(&self) -> ServerConfig {
            ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [handler, calls] if handler == "light" || handler == "rmcp" => {
            run(handler, calls.parse().expect("a number of calls"));
        }
        _ => report(),
    }
}

/// Makes `calls` calls of `add` on one handler.
fn run(handler: &str, calls: u64) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a runtime");
    let peer = rt.block_on(peer());
    let light = Server::new(
        mcp_light::Registry::from_tools(mcp_light::TOOLS.iter().filter(|t| t.name() == "add"))
            .expect("one tool"),
    )
    .into_handler(Caller::Process);
    let rmcp = by_hand::Adder::new();
    let params = CallToolRequestParams::new("add").with_arguments(
        serde_json::json!({"a": 2, "b": 40})
            .as_object()
            .expect("an object")
            .clone(),
    );
    rt.block_on(async {
        for _ in 0..calls {
            let context = RequestContext::new(NumberOrString::Number(1), peer.clone());
            let answer = if handler == "light" {
                light.call_tool(params.clone(), context).await
            } else {
                rmcp.call_tool(params.clone(), context).await
            };
            black_box(answer.expect("an answer"));
        }
    });
}

/// A server-side peer, as a request context needs one.
async fn peer() -> Peer<RoleServer> {
    use rmcp::ServiceExt;

    let (client_io, server_io) = tokio::io::duplex(64 * 1024);
    let (running, client) =
        tokio::join!(by_hand::Adder::new().serve(server_io), ().serve(client_io));
    let running = running.expect("the server side starts");
    let peer = running.peer().clone();
    // Both ends stay alive until the process exits.
    std::mem::forget(client.expect("the handshake succeeds"));
    std::mem::forget(running);
    peer
}

fn report() {
    if Command::new("valgrind").arg("--version").output().is_err() {
        println!("per_call_instructions: valgrind is not installed; nothing counted");
        return;
    }
    let me = std::env::current_exe().expect("this binary's path");
    let count = |handler: &str, calls: u64| -> u64 {
        let out = Command::new("valgrind")
            .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
            .arg(&me)
            .args([handler, &calls.to_string()])
            .output()
            .expect("valgrind runs");
        let log = String::from_utf8_lossy(&out.stderr);
        log.lines()
            .find_map(|line| line.split("Collected : ").nth(1))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or_else(|| panic!("no instruction count in valgrind's output:\n{log}"))
    };
    let per_call = |handler: &str| (count(handler, CALLS) - count(handler, 0)) / CALLS;
    let (light, rmcp) = (per_call("light"), per_call("rmcp"));
    println!("\n## Instructions per tools/call (callgrind, {CALLS} calls of `add`)\n");
    println!("| handler | instructions | ratio |");
    println!("|---|---:|---:|");
    println!("| rmcp `#[tool]`, router in a field | {rmcp} | 1.00× |");
    println!(
        "| mcp-light `#[mcp_tool]` | {light} | {:.2}× |",
        light as f64 / rmcp as f64
    );
}
