//! What a bulk write costs an agent's context, in real model tokens.
//!
//! ```sh
//! cargo run --release -p inventory --bin token_report            # a Markdown table
//! cargo run --release -p inventory --bin token_report -- --json  # one JSON row per answer
//! ```
//!
//! Every text counted here is the text content a real call answered, made
//! through [`Server::call`]: the flat tool (its schema has no slot for a
//! continuation token, so it answers the envelope with `ids`: outcome 2), the
//! same tool through a dispatcher (whose schema has one: the envelope with a
//! `continuation_token`, outcome 1), and the flat tool with `verify: true`
//! (the full result, as an ordinary MCP tool would echo it). Nothing is
//! formatted here. The counts are tiktoken's `cl100k_base` and `o200k_base`
//! encodings; bytes ÷ 4 is shown only to show how far off it is.
//!
//! The devices are the inventory's (`inventory::model` and its
//! deterministic generator `inventory::fixture`); the tools are written here
//! over an in-memory list, so the report needs no SQLite database and
//! measures the envelope, not the storage. Ids are v4 UUIDs drawn from a
//! seeded stream, so every run counts the same texts.
//!
//! The Markdown report ends with what the inventory's `tools/list` costs
//! every caller, per tool: the library's tools are linked in beside
//! the report's, and each registry is built from its own subset of the
//! registered tools.

use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

use clap::Parser;
use inventory::fixture;
use inventory::model::{Device, NewDevice};
use inventory::tools::is_inventory_tool;
use mcp_light::{CallToolResult, Registry, TOOLS, prelude::*};
use serde_json::{Value, json};
use tiktoken_rs::CoreBPE;
use uuid::Uuid;

/// Counts what the inventory's answers and its `tools/list` cost in cl100k
/// and o200k tokens, and prints a Markdown report.
#[derive(Parser)]
#[command(name = "token_report")]
struct Args {
    /// Print one JSON row per answer (with its text) instead of Markdown
    #[arg(long)]
    json: bool,
}

/// The creation time every measured device carries, so every run serializes
/// the same bytes.
const CREATED: &str = "2026-06-02T09:41:07.512734Z";

/// The batch sizes reported.
const BATCHES: [usize; 5] = [1, 10, 60, 200, 1_000];
/// Texts are printed in full for batches up to this size.
const MAX_TEXT_BATCH: usize = 60;
/// The fixture's seed.
const SEED: u64 = 1;
/// The dispatcher's name.
const DISPATCHER: &str = "inventory";

/// The devices written so far, and the stream their ids come from.
struct Inventory {
    devices: Mutex<Vec<Device>>,
    ids: Mutex<u64>,
}

impl Inventory {
    fn new() -> Inventory {
        Inventory {
            devices: Mutex::new(Vec::new()),
            ids: Mutex::new(0),
        }
    }

    /// Restarts the id stream, so the three answers to one batch describe
    /// the same devices.
    fn restart_ids(&self) {
        *self.ids.lock().unwrap() = 0;
    }

    fn next_id(&self) -> Uuid {
        let mut n = self.ids.lock().unwrap();
        *n += 1;
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(&splitmix(*n).to_le_bytes());
        bytes[8..].copy_from_slice(&splitmix(!*n).to_le_bytes());
        uuid::Builder::from_random_bytes(bytes).into_uuid()
    }

    fn add(&self, new: NewDevice) -> Device {
        let id = self.next_id();
        let device = new.into_device(id, CREATED.to_owned(), CREATED.to_owned());
        self.devices.lock().unwrap().push(device.clone());
        device
    }
}

/// SplitMix64's output function: a well-mixed 64-bit value from `n`.
fn splitmix(n: u64) -> u64 {
    let mut z = n.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Fetch one device by id.
#[mcp_tool(resource = "device", action = "retrieve")]
fn device_get(ctx: &Context, id: Uuid) -> Result<Device, ToolError> {
    let inventory = ctx.state::<Inventory>()?;
    let devices = inventory.devices.lock().unwrap();
    devices
        .iter()
        .find(|d| d.id == id)
        .cloned()
        .ok_or_else(|| ToolError::new(format!("no device with id {id}")))
}

/// Create one device.
#[mcp_light(create, resource = "device", retrieve = device_get)]
fn device_create(ctx: &Context, device: NewDevice) -> Result<Device, ToolError> {
    Ok(ctx.state::<Inventory>()?.add(device))
}

/// Create many devices.
#[mcp_light(bulk_create, resource = "device", retrieve = device_get)]
fn device_bulk_create(ctx: &Context, devices: Vec<NewDevice>) -> Result<Vec<Device>, ToolError> {
    let inventory = ctx.state::<Inventory>()?;
    Ok(devices.into_iter().map(|d| inventory.add(d)).collect())
}

/// One answer, counted.
struct Row {
    batch: usize,
    variant: &'static str,
    text: String,
    cl100k: usize,
    o200k: usize,
}

impl Row {
    fn to_json(&self) -> Value {
        json!({
            "batch": self.batch,
            "variant": self.variant,
            "bytes": self.text.len(),
            "cl100k": self.cl100k,
            "o200k": self.o200k,
            "text": (self.batch <= MAX_TEXT_BATCH).then_some(&self.text),
        })
    }
}

/// The two encodings.
struct Tokenizers {
    cl100k: CoreBPE,
    o200k: CoreBPE,
}

impl Tokenizers {
    fn row(&self, batch: usize, variant: &'static str, text: String) -> Row {
        Row {
            batch,
            variant,
            cl100k: self.cl100k.encode_ordinary(&text).len(),
            o200k: self.o200k.encode_ordinary(&text).len(),
            text,
        }
    }
}

/// The text content of a successful answer: what the wire carries.
fn text_of(tool: &str, result: &CallToolResult) -> String {
    assert_eq!(result.is_error, Some(false), "{tool} failed: {result:?}");
    result.content[0]
        .as_text()
        .expect("a tool answers text content")
        .text
        .clone()
}

/// Calls the write `action` with `params` three ways and returns the texts
/// of the envelope with ids, the envelope with a token, and the echo.
async fn three_ways(
    server: &Server,
    inventory: &Inventory,
    tool: &str,
    action: &str,
    params: Value,
) -> [String; 3] {
    let call = async |tool: &str, args: Value| {
        inventory.restart_ids();
        text_of(tool, &server.call(tool, args, Caller::Process).await)
    };
    let mut verified = params.clone();
    verified["verify"] = json!(true);
    let routed = json!({"resource": "device", "action": action, "params": params});
    let ids = call(tool, params).await;
    let token = call(DISPATCHER, routed).await;
    let echo = call(tool, verified).await;
    [ids, token, echo]
}

async fn measure(tokenizers: &Tokenizers) -> Vec<Row> {
    let inventory = Arc::new(Inventory::new());
    let report_tools = TOOLS.iter().filter(|def| !is_inventory_tool(def));
    let server =
        Server::new(Registry::from_tools(report_tools).expect("the report's tools register"))
            .with_shared_state(Arc::clone(&inventory))
            .with_dispatcher(DISPATCHER)
            .expect("one dispatcher");
    let mut rows = Vec::new();
    for batch in BATCHES {
        let devices = serde_json::to_value(fixture::new_devices(batch, SEED)).unwrap();
        let [ids, token, echo] = three_ways(
            &server,
            &inventory,
            "device_bulk_create",
            "bulk_create",
            json!({ "devices": devices }),
        )
        .await;
        rows.push(tokenizers.row(batch, "echo", echo));
        rows.push(tokenizers.row(batch, "token", token));
        rows.push(tokenizers.row(batch, "ids", ids));
    }
    let device = serde_json::to_value(&fixture::new_devices(1, SEED)[0]).unwrap();
    let [ids, token, echo] = three_ways(
        &server,
        &inventory,
        "device_create",
        "create",
        json!({ "device": device }),
    )
    .await;
    rows.push(tokenizers.row(1, "single_echo", echo));
    rows.push(tokenizers.row(1, "single_token", token));
    rows.push(tokenizers.row(1, "single_ids", ids));
    rows
}

/// What the inventory's `tools/list` costs, one row per tool: each tool as
/// it goes on the wire (name, description, input schema, annotations),
/// counted alone.
fn tools_list(tokenizers: &Tokenizers) -> String {
    let registry = inventory::tools::registry().expect("the inventory's tools register");
    let server = Server::new(registry)
        .with_dispatcher(inventory::DISPATCHER)
        .expect("one dispatcher");
    let mut out = String::from(
        "\n`tools/list` of the inventory example, per tool (the Python original: \
         253 cl100k per tool flat, 373 for its dispatcher):\n\n\
         | tool | bytes | cl100k | o200k |\n|---|---:|---:|---:|\n",
    );
    let (mut flat_tools, mut flat_cl100k) = (0, 0);
    for tool in server.list_tools() {
        let text = serde_json::to_string(&tool).expect("a tool serializes");
        let cl100k = tokenizers.cl100k.encode_ordinary(&text).len();
        let o200k = tokenizers.o200k.encode_ordinary(&text).len();
        writeln!(
            out,
            "| `{}` | {} | {cl100k} | {o200k} |",
            tool.name,
            text.len()
        )
        .unwrap();
        if server.dispatcher(&tool.name).is_none() {
            flat_tools += 1;
            flat_cl100k += cl100k;
        }
    }
    writeln!(
        out,
        "\nFlat tools: {flat_tools}, {:.0} cl100k tokens each on average.",
        flat_cl100k as f64 / flat_tools as f64
    )
    .unwrap();
    out
}

/// The Markdown report: the table, then the targets.
fn markdown(rows: &[Row], tokenizers: &Tokenizers) -> String {
    let mut out = String::new();
    let echo_of = |batch: usize, variant: &str| {
        let echo = if variant.starts_with("single_") {
            "single_echo"
        } else {
            "echo"
        };
        rows.iter()
            .find(|r| r.batch == batch && r.variant == echo)
            .expect("every batch has an echo")
    };
    out.push_str(
        "| batch | variant | bytes | bytes ÷ 4 | cl100k | o200k | cl100k vs echo | bytes ÷ 4 off by |\n\
         |---:|---|---:|---:|---:|---:|---:|---:|\n",
    );
    for row in rows {
        let bytes = row.text.len();
        let echo = echo_of(row.batch, row.variant);
        let guess = bytes / 4;
        writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {:.1} % | {:+.0} % |",
            row.batch,
            row.variant,
            bytes,
            guess,
            row.cl100k,
            row.o200k,
            100.0 * row.cl100k as f64 / echo.cl100k as f64,
            100.0 * (guess as f64 - row.cl100k as f64) / row.cl100k as f64,
        )
        .unwrap();
    }

    let find = |batch: usize, variant: &str| {
        rows.iter()
            .find(|r| r.batch == batch && r.variant == variant)
            .unwrap()
    };
    let (echo, token, ids) = (find(60, "echo"), find(60, "token"), find(60, "ids"));
    let envelope: Value = serde_json::from_str(&token.text).unwrap();
    let token_string = envelope["continuation_token"].as_str().unwrap();
    let token_cl100k = tokenizers.cl100k.encode_ordinary(token_string).len();
    let token_o200k = tokenizers.o200k.encode_ordinary(token_string).len();
    let devices: Vec<Value> = serde_json::from_str(&echo.text).unwrap();
    let per_device = echo.text.len() as f64 / devices.len() as f64;
    let ids_share = 100.0 * ids.cl100k as f64 / echo.cl100k as f64;
    let verdict = |met: bool| if met { "met" } else { "MISSED" };
    out.push_str("\nTargets, 60-device bulk create (cl100k):\n\n");
    writeln!(
        out,
        "- `token` envelope: {} tokens (target ≤ 33): {}",
        token.cl100k,
        verdict(token.cl100k <= 33)
    )
    .unwrap();
    let pieces = tokenizers
        .cl100k
        .split_by_token_ordinary(&token.text)
        .unwrap()
        .iter()
        .map(|piece| format!("`{piece}`"))
        .collect::<Vec<_>>()
        .join(" ");
    writeln!(out, "  - its cl100k pieces: {pieces}").unwrap();
    writeln!(
        out,
        "- the continuation token string: {token_cl100k} tokens, o200k {token_o200k} (target ≤ 13): {}",
        verdict(token_cl100k <= 13)
    )
    .unwrap();
    writeln!(
        out,
        "- `ids` envelope: {} tokens = {ids_share:.1} % of the echo's {} (target ≤ 10 %): {}",
        ids.cl100k,
        echo.cl100k,
        verdict(ids_share <= 10.0)
    )
    .unwrap();
    writeln!(
        out,
        "- the echo: {} bytes, {per_device:.0} bytes and {:.0} cl100k tokens per device",
        echo.text.len(),
        echo.cl100k as f64 / devices.len() as f64
    )
    .unwrap();
    out
}

fn main() {
    let args = Args::parse();
    let tokenizers = Tokenizers {
        cl100k: tiktoken_rs::cl100k_base().expect("cl100k_base ships with tiktoken-rs"),
        o200k: tiktoken_rs::o200k_base().expect("o200k_base ships with tiktoken-rs"),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a tokio runtime");
    let rows = runtime.block_on(measure(&tokenizers));
    if args.json {
        let rows: Vec<Value> = rows.iter().map(Row::to_json).collect();
        println!("{}", serde_json::to_string_pretty(&rows).unwrap());
    } else {
        print!("{}", markdown(&rows, &tokenizers));
        print!("{}", tools_list(&tokenizers));
    }
}
