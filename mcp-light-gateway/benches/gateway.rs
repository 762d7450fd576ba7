//! What the gateway costs and saves in front of the reference filesystem
//! server, each figure side by side with the same client calling the
//! server directly, in one run:
//!
//! - the tokens (cl100k, tiktoken's encoding) an agent's model reads in a
//!   realistic session: the tree of a generated source tree, a search, two
//!   reads (a small file and a large one) and, through the gateway, one
//!   page of the tree behind its token;
//! - the time of a small call over stdio, many in turn, direct and through
//!   the gateway, and their ratio;
//! - the gateway's memory (its peak resident set) reading a large file.
//!
//! ```text
//! bash mcp-light-gateway/tests/python/run.sh -k nothing   # installs Node 22 and the servers
//! cargo bench -p mcp-light-gateway --bench gateway -- \
//!     --node target/gateway-npm/node_modules/node/bin/node \
//!     --server target/gateway-npm/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js
//! ```
//!
//! `--files`, `--big-mb`, `--huge-mb` and `--calls` set the sizes (5,000
//! files, 2 MB, 50 MB, 500 calls); CI runs it smaller. Prints a Markdown
//! table.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rmcp::ServiceExt;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use tiktoken_rs::CoreBPE;

type Client = RunningService<RoleClient, ()>;

struct Sizes {
    files: usize,
    big_mb: usize,
    huge_mb: usize,
    calls: usize,
    node: PathBuf,
    server: PathBuf,
}

fn sizes() -> Result<Sizes, String> {
    let mut sizes = Sizes {
        files: 5_000,
        big_mb: 2,
        huge_mb: 50,
        calls: 500,
        node: PathBuf::from("node"),
        server: PathBuf::new(),
    };
    // `cargo bench` adds `--bench`.
    let mut args = std::env::args().skip(1).filter(|arg| arg != "--bench");
    while let Some(flag) = args.next() {
        let value = args.next().ok_or(format!("{flag} needs a value"))?;
        let number = || {
            value
                .parse::<usize>()
                .map_err(|_| format!("{flag}: not a number"))
        };
        match flag.as_str() {
            "--files" => sizes.files = number()?,
            "--big-mb" => sizes.big_mb = number()?,
            "--huge-mb" => sizes.huge_mb = number()?,
            "--calls" => sizes.calls = number()?,
            "--node" => sizes.node = PathBuf::from(&value),
            "--server" => sizes.server = PathBuf::from(&value),
            other => return Err(format!("unknown flag {other}")),
        }
    }
    if sizes.server.as_os_str().is_empty() {
        return Err("--server names the filesystem server's dist/index.js".to_owned());
    }
    Ok(sizes)
}

/// A source tree of `files` files in folders of 100, a file of `big_mb`
/// MB and one of `huge_mb` MB, under `root`.
fn generate(root: &Path, sizes: &Sizes) -> std::io::Result<()> {
    for n in 0..sizes.files {
        let folder = root.join(format!("src/module{:03}", n / 100));
        std::fs::create_dir_all(&folder)?;
        let text = format!("//! Module file {n}.\n\npub fn f{n}() -> usize {{\n    {n}\n}}\n");
        std::fs::write(folder.join(format!("file{n:05}.rs")), text)?;
    }
    for (name, mb) in [("big.log", sizes.big_mb), ("huge.log", sizes.huge_mb)] {
        let mut text = String::with_capacity(mb << 20);
        let mut line = 0;
        while text.len() < mb << 20 {
            line += 1;
            text.push_str(&format!(
                "2026-12-04T10:{:02}:{:02}Z INFO request {line} served in {} ms\n",
                line / 60 % 60,
                line % 60,
                line % 97
            ));
        }
        std::fs::write(root.join(name), text)?;
    }
    Ok(())
}

/// A client of the filesystem server, through the gateway when `gateway`
/// names its binary; the process it started, for its memory.
async fn connect(
    sizes: &Sizes,
    root: &Path,
    gateway: Option<&Path>,
) -> Result<(Client, Option<u32>), String> {
    let mut command = match gateway {
        Some(gateway) => {
            let mut command = tokio::process::Command::new(gateway);
            command.arg("--").arg(&sizes.node);
            command
        }
        None => tokio::process::Command::new(&sizes.node),
    };
    command.arg(&sizes.server).arg(root);
    command.stderr(std::process::Stdio::null());
    let transport = TokioChildProcess::new(command).map_err(|e| e.to_string())?;
    let pid = transport.id();
    let client = ().serve(transport).await.map_err(|e| e.to_string())?;
    Ok((client, pid))
}

async fn call(client: &Client, tool: &str, arguments: Value) -> CallToolResult {
    let arguments = arguments.as_object().cloned().unwrap_or_default();
    let request = CallToolRequestParams::new(tool.to_owned()).with_arguments(arguments);
    client.call_tool(request).await.expect("the call answers")
}

/// What the model reads of a result: its text blocks.
fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|block| block.as_text().map(|text| text.text.as_str()))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The session's calls and the tokens of each answer; through the gateway,
/// a page of the tree behind its token too.
async fn session(
    client: &Client,
    root: &Path,
    cl100k: &CoreBPE,
    gateway: bool,
) -> Vec<(String, usize)> {
    let path = |name: &str| root.join(name).display().to_string();
    let mut read = Vec::new();
    let tree = call(client, "directory_tree", json!({"path": path("src")})).await;
    read.push(("directory_tree".to_owned(), tree.clone()));
    let search = json!({"path": path("src"), "pattern": "**/file0001*"});
    read.push((
        "search_files".to_owned(),
        call(client, "search_files", search).await,
    ));
    let small = path("src/module000/file00000.rs");
    read.push((
        "read_text_file (small)".to_owned(),
        call(client, "read_text_file", json!({"path": small})).await,
    ));
    let big = json!({"path": path("big.log")});
    read.push((
        "read_text_file (big)".to_owned(),
        call(client, "read_text_file", big).await,
    ));
    if gateway {
        let probe = tree.structured_content.expect("a probe");
        let token = probe["continuation_token"]
            .as_str()
            .expect("a token")
            .to_owned();
        let page = call(
            client,
            "directory_tree",
            json!({"continuation_token": token, "page": 1}),
        )
        .await;
        read.push(("a page of the tree".to_owned(), page));
    }
    read.into_iter()
        .map(|(name, result)| (name, cl100k.encode_ordinary(&text(&result)).len()))
        .collect()
}

/// The mean of `calls` small calls of `tool` with `args`, alternating
/// direct and through the gateway so that both see the same machine.
async fn small_calls(
    (direct, through): (&Client, &Client),
    tool: &'static str,
    args: &Value,
    calls: usize,
) -> (Duration, Duration) {
    let (mut mine, mut theirs) = (Duration::ZERO, Duration::ZERO);
    for n in 0..calls + 20 {
        let started = Instant::now();
        call(direct, tool, args.clone()).await;
        let direct_took = started.elapsed();
        let started = Instant::now();
        call(through, tool, args.clone()).await;
        let through_took = started.elapsed();
        // The first twenty warm both up.
        if n >= 20 {
            theirs += direct_took;
            mine += through_took;
        }
    }
    (theirs / calls as u32, mine / calls as u32)
}

/// The peak resident set of process `pid`, in MiB.
fn peak_mib(pid: u32) -> f64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|kb| kb.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

#[tokio::main]
async fn main() -> Result<(), String> {
    let sizes = sizes()?;
    let gateway = PathBuf::from(env!("CARGO_BIN_EXE_mcp-light-gateway"));
    let scratch =
        std::env::temp_dir().join(format!("mcp-light-gateway-bench-{}", std::process::id()));
    generate(&scratch, &sizes).map_err(|e| format!("cannot write the tree: {e}"))?;
    let cl100k = tiktoken_rs::cl100k_base().map_err(|e| e.to_string())?;

    let (direct, _) = connect(&sizes, &scratch, None).await?;
    let (through, pid) = connect(&sizes, &scratch, Some(&gateway)).await?;
    let theirs = session(&direct, &scratch, &cl100k, false).await;
    let mine = session(&through, &scratch, &cl100k, true).await;
    // A call the server answers without work, and a read of a small file.
    let small_file = json!({"path": scratch.join("src/module000/file00000.rs")});
    let mut timed = Vec::new();
    for (tool, args) in [
        ("list_allowed_directories", json!({})),
        ("read_text_file", small_file),
    ] {
        let (direct_time, gateway_time) =
            small_calls((&direct, &through), tool, &args, sizes.calls).await;
        timed.push((tool, direct_time, gateway_time));
    }

    let pid = pid.ok_or("the gateway's process id")?;
    let before = peak_mib(pid);
    let started = Instant::now();
    let huge = call(
        &through,
        "read_text_file",
        json!({"path": scratch.join("huge.log")}),
    )
    .await;
    assert!(
        huge.structured_content
            .is_some_and(|probe| probe["continuation_token"].is_string())
    );
    let huge_took = started.elapsed();
    let after = peak_mib(pid);

    println!(
        "The filesystem server, {} files, a {} MB and a {} MB file; the client keeps 10,000 bytes (unknown client)\n",
        sizes.files, sizes.big_mb, sizes.huge_mb
    );
    println!("| call | direct, cl100k tokens | through the gateway |");
    println!("|---|---:|---:|");
    for (name, tokens) in &mine {
        let direct = theirs
            .iter()
            .find(|(theirs, _)| theirs == name)
            .map_or("—".to_owned(), |(_, n)| n.to_string());
        println!("| {name} | {direct} | {tokens} |");
    }
    let total = |session: &[(String, usize)]| session.iter().map(|(_, n)| n).sum::<usize>();
    println!(
        "| **session** | **{}** | **{}** ({:.1}×fewer) |",
        total(&theirs),
        total(&mine),
        total(&theirs) as f64 / total(&mine) as f64
    );
    println!();
    println!(
        "| small call over stdio (mean of {}) | direct | through the gateway | ratio |",
        sizes.calls
    );
    println!("|---|---:|---:|---:|");
    for (tool, direct_time, gateway_time) in timed {
        println!(
            "| `{tool}` | {:.0} µs | {:.0} µs | {:.2}× |",
            direct_time.as_secs_f64() * 1e6,
            gateway_time.as_secs_f64() * 1e6,
            gateway_time.as_secs_f64() / direct_time.as_secs_f64()
        );
    }
    println!();
    println!("| the gateway's peak resident set | MiB |");
    println!("|---|---:|");
    println!("| after the session | {before:.0} |");
    println!(
        "| after reading the {} MB file (its probe in {:.1} s) | {after:.0} |",
        sizes.huge_mb,
        huge_took.as_secs_f64()
    );

    direct.cancel().await.map_err(|e| e.to_string())?;
    through.cancel().await.map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&scratch);
    Ok(())
}
