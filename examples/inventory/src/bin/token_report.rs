//! What a bulk write costs an agent's context, in real model tokens.
//!
//! ```sh
//! cargo run --release -p inventory --features usage --bin token_report            # a Markdown table
//! cargo run --release -p inventory --features usage --bin token_report -- --json  # one JSON row per answer
//! ```
//!
//! Every text counted here is the text content a real call answered, made
//! through [`Server::call`]: the flat tool (a single create's schema has no
//! slot for a continuation token, so it answers the envelope with its `id`:
//! outcome 2; a bulk create's has one, and answers the token, with `ids`
//! while they are few), the same tool through a dispatcher (the envelope
//! with a `continuation_token`, outcome 1), and the flat tool with
//! `verify: true` (the full result, as an ordinary MCP tool would echo it,
//! to a client that keeps every byte of it). Nothing is
//! formatted here. The counts are tiktoken's `cl100k_base` and `o200k_base`
//! encodings; bytes ÷ 4 is shown only to show how far off it is.
//!
//! The devices are the inventory's (`inventory::model` and its
//! deterministic generator `inventory::fixture`); the tools are written here
//! over an in-memory list, so the report needs no SQLite database and
//! measures the envelope, not the storage. Ids are v4 UUIDs drawn from a
//! seeded stream, so every run counts the same texts.
//!
//! The report's server keeps a usage report (`ServerBuilder::with_usage_report`),
//! and every answer's `_meta` is checked against the report's own counts:
//! the answer's tokens, and the echo's as the full result it stands for.
//!
//! The Markdown report goes on with what the inventory's `tools/list` costs
//! every caller, per tool and per surface (every tool, only the dispatcher,
//! both; with and without output schemas), what an agent given only the
//! dispatcher pays to learn one action's parameters, what a heavy read of
//! a few devices costs whole beside its probe and the page read after it
//! (the measurement behind the default inline budget), and what the
//! summary of 500 devices costs beside the list it summarizes. The library's tools
//! are linked in beside the report's, and each registry is built from its
//! own subset of the registered tools. Built with `--features apps` too, it
//! adds what `tools/list` costs a client that declares MCP Apps.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

use clap::Parser;
use inventory::fixture;
use inventory::model::{Device, NewDevice};
use mcp_light::catalog::Surface;
use mcp_light::clients::ClientTable;
use mcp_light::heavy::HeavyConfig;
use mcp_light::telemetry::USAGE_META_KEY;
use mcp_light::{CallToolResult, ServerBuilder, prelude::*};
use serde_json::{Value, json};
use tiktoken_rs::CoreBPE;
use uuid::Uuid;

/// Counts what the inventory's answers and its `tools/list` cost in cl100k
/// and o200k tokens, and prints a Markdown report.
#[derive(Parser)]
#[command(name = "token_report")]
struct Args {
    /// Print one JSON row per write answer (with its text) instead of the
    /// Markdown report
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

/// List every device.
#[mcp_heavy(resource = "device", action = "list")]
fn device_list(ctx: &Context) -> Result<Vec<Device>, ToolError> {
    Ok(ctx.state::<Inventory>()?.devices.lock().unwrap().clone())
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
    /// `(cl100k, o200k)` of `text`.
    fn count(&self, text: &str) -> (usize, usize) {
        (
            self.cl100k.encode_ordinary(text).len(),
            self.o200k.encode_ordinary(text).len(),
        )
    }

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

/// What a client that reads `structuredContent` (Codex, Claude Code) hands
/// its model of a successful answer: the compact JSON of its
/// `structuredContent`, else its text.
fn read_of(tool: &str, result: &CallToolResult) -> String {
    assert_eq!(result.is_error, Some(false), "{tool} failed: {result:?}");
    match &result.structured_content {
        Some(value) => serde_json::to_string(value).expect("JSON serializes"),
        None => text_of(tool, result),
    }
}

/// The usage report in an answer's `_meta`: `((cl100k, o200k) of the
/// answer, (cl100k, o200k) of the full result)`.
fn usage_of(result: &CallToolResult) -> ((usize, usize), (usize, usize)) {
    let report = &result.meta.as_ref().expect("the server reports usage").0[USAGE_META_KEY];
    let count = |encoding: &str, which: &str| report[encoding][which].as_u64().unwrap() as usize;
    (
        (
            count("cl100k_base", "answer"),
            count("o200k_base", "answer"),
        ),
        (count("cl100k_base", "full"), count("o200k_base", "full")),
    )
}

/// Calls the write `action` with `params` three ways and returns the texts
/// of the envelope with ids, the envelope with a token, and the echo,
/// checking each answer's usage report against the report's own counts.
async fn three_ways(
    server: &Server,
    inventory: &Inventory,
    tokenizers: &Tokenizers,
    (tool, action): (&str, &str),
    params: Value,
) -> [String; 3] {
    // Each text, and the usage report beside what the model reads of it.
    let call = async |tool: &str, args: Value| {
        inventory.restart_ids();
        let result = server.call(tool, args, Caller::Process).await;
        let read = tokenizers.count(&read_of(tool, &result));
        (text_of(tool, &result), read, usage_of(&result))
    };
    let mut verified = params.clone();
    verified["verify"] = json!(true);
    let routed = json!({"resource": "device", "action": action, "params": params});
    let (ids, ids_read, ids_usage) = call(tool, params).await;
    let (token, token_read, token_usage) = call(DISPATCHER, routed).await;
    let (echo, echo_read, echo_usage) = call(tool, verified).await;
    // The same devices, ids restarted: the echo is the full result of all
    // three, and `_meta` must say so. An answer that is the result is its
    // own full result, counted as the model reads it (a list, inside
    // `{"result":…}`).
    let echo_tokens = tokenizers.count(&echo);
    assert_eq!(ids_usage, (ids_read, echo_tokens), "{tool} ids");
    assert_eq!(token_usage, (token_read, echo_tokens), "{tool} token");
    assert_eq!(echo_usage, (echo_read, echo_read), "{tool} echo");
    [ids, token, echo]
}

async fn measure(tokenizers: &Tokenizers) -> Vec<Row> {
    let inventory = Arc::new(Inventory::new());
    let server = report_server(Arc::clone(&inventory), true);
    let mut rows = Vec::new();
    for batch in BATCHES {
        let devices = serde_json::to_value(fixture::new_devices(batch, SEED)).unwrap();
        let [ids, token, echo] = three_ways(
            &server,
            &inventory,
            tokenizers,
            ("device_bulk_create", "bulk_create"),
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
        tokenizers,
        ("device_create", "create"),
        json!({ "device": device }),
    )
    .await;
    rows.push(tokenizers.row(1, "single_echo", echo));
    rows.push(tokenizers.row(1, "single_token", token));
    rows.push(tokenizers.row(1, "single_ids", ids));
    rows
}

/// A server over the report's own tools and `inventory`'s devices, with
/// or without the usage report.
fn report_server(inventory: Arc<Inventory>, usage_report: bool) -> Server {
    report_server_with(inventory, usage_report, HeavyConfig::new())
}

/// [`report_server`] with `heavy` for its heavy reads.
///
/// Its [`Server::call`]s come from a client that keeps every byte of an
/// answer (what the report measured before answers were sized to the
/// client), so the echo is the whole result and the inline budget alone
/// decides a heavy read's answer; [`per_client`] measures the clients
/// mcp-light knows.
fn report_server_with(inventory: Arc<Inventory>, usage_report: bool, heavy: HeavyConfig) -> Server {
    let keeps_all = ClientTable::new()
        .with_unknown_client(KEEPS_ALL)
        .expect("more than MIN_KEEPS");
    report_builder(inventory)
        .with_usage_report(usage_report)
        .with_heavy_config(heavy)
        .with_clients(keeps_all)
        .build()
        .expect("the report's tools register")
}

/// What a client that keeps every byte of an answer is said to keep.
const KEEPS_ALL: usize = 1 << 30;

/// The report's tools over `inventory`'s devices, with its dispatcher.
fn report_builder(inventory: Arc<Inventory>) -> ServerBuilder {
    let report_tools = tools![device_get, device_create, device_bulk_create, device_list];
    Server::from_tools(report_tools)
        .with_shared_state(inventory)
        .with_dispatcher(DISPATCHER)
}

/// The inventory example's server as its binary serves it, with no
/// database: only `tools/list` and answers that run no tool are asked of it.
fn inventory_server(surface: Surface, output_schemas: bool) -> Server {
    Server::from_tools(inventory::tools::all())
        .with_dispatcher(inventory::DISPATCHER)
        .with_surface(surface)
        .with_output_schemas(output_schemas)
        .build()
        .expect("the inventory's tools register")
}

/// What the inventory's `tools/list` costs, one row per tool: each tool as
/// it goes on the wire (name, description, input schema, annotations),
/// counted alone, and what its output schema adds.
fn tools_list(tokenizers: &Tokenizers) -> String {
    let server = inventory_server(Surface::default(), false);
    let with_schemas = inventory_server(Surface::default(), true);
    let mut out = String::from(
        "\n`tools/list` of the inventory example, per tool (the Python original: \
         253 cl100k per tool flat, 373 for its dispatcher), and what `--output-schema` adds:\n\n\
         | tool | bytes | cl100k | o200k | outputSchema adds cl100k | o200k |\n\
         |---|---:|---:|---:|---:|---:|\n",
    );
    let (mut flat_tools, mut flat_cl100k) = (0, 0);
    for (tool, schematic) in server.tools().iter().zip(with_schemas.tools()) {
        let text = serde_json::to_string(&tool).expect("a tool serializes");
        let (cl100k, o200k) = tokenizers.count(&text);
        let (schema_cl100k, schema_o200k) =
            tokenizers.count(&serde_json::to_string(&schematic).expect("a tool serializes"));
        writeln!(
            out,
            "| `{}` | {} | {cl100k} | {o200k} | {} | {} |",
            tool.name,
            text.len(),
            schema_cl100k - cl100k,
            schema_o200k - o200k,
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

/// The whole `tools/list` (its `tools` array, as the wire carries it) per
/// surface, without and with output schemas.
fn surfaces(tokenizers: &Tokenizers) -> String {
    let mut out = String::from(
        "\n`tools/list` per surface (`--surface`), the whole `tools` array:\n\n\
         | surface | tools | bytes | cl100k | o200k | with outputSchema: bytes | cl100k | o200k |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    for surface in Surface::ALL {
        let server = inventory_server(surface, false);
        let plain = serde_json::to_string(server.tools()).unwrap();
        let schematic = serde_json::to_string(inventory_server(surface, true).tools()).unwrap();
        let (cl100k, o200k) = tokenizers.count(&plain);
        let (schema_cl100k, schema_o200k) = tokenizers.count(&schematic);
        writeln!(
            out,
            "| {surface} | {} | {} | {cl100k} | {o200k} | {} | {schema_cl100k} | {schema_o200k} |",
            server.tools().len(),
            plain.len(),
            schematic.len(),
        )
        .unwrap();
    }
    out
}

/// The whole `tools/list` per surface as a client that declares MCP Apps
/// gets it (the `apps` feature: the viewer named on heavy reads, writes and
/// dispatchers, and its four app-only tools), beside every other client's.
#[cfg(feature = "apps")]
fn views(tokenizers: &Tokenizers) -> String {
    let mut out = String::from(
        "
`tools/list` per surface for a client that declares MCP Apps (`--features apps`), \
         beside every other client's:\n\n\
         | surface | other clients: tools | cl100k | o200k | declaring client: tools | cl100k | o200k |\n\
         |---|---:|---:|---:|---:|---:|---:|\n",
    );
    for surface in Surface::ALL {
        let server = inventory_server(surface, false);
        let (cl100k, o200k) = tokenizers.count(&serde_json::to_string(server.tools()).unwrap());
        let viewed = server.tools_for(true);
        let (viewed_cl100k, viewed_o200k) =
            tokenizers.count(&serde_json::to_string(viewed).unwrap());
        writeln!(
            out,
            "| {surface} | {} | {cl100k} | {o200k} | {} | {viewed_cl100k} | {viewed_o200k} |",
            server.tools().len(),
            viewed.len(),
        )
        .unwrap();
    }
    out
}

/// What an agent given only the dispatcher pays to learn `device_create`'s
/// parameters: a `describe` round trip, or one failed call whose error
/// carries the schema. Each counts the call's arguments (what the agent
/// writes) and the answer's text (what it reads).
async fn discovery(tokenizers: &Tokenizers) -> String {
    let server = inventory_server(Surface::Dispatcher, false);
    let described = json!({"resource": "device", "action": "create", "describe": true});
    let wrong = json!({"resource": "device", "action": "create", "params": {"name": "edge-01"}});
    let mut out = String::from(
        "\nLearning one action through the dispatcher alone (`device` `create`), \
         each round trip's arguments and answer:\n\n\
         | round trip | arguments cl100k | answer bytes | answer cl100k | answer o200k | total cl100k | total o200k |\n\
         |---|---:|---:|---:|---:|---:|---:|\n",
    );
    for (name, args, must_fail) in [
        ("`describe: true`", described, false),
        ("a call with wrong `params`", wrong, true),
    ] {
        let sent = args.to_string();
        let result = server.call(DISPATCHER, args, Caller::Process).await;
        assert_eq!(result.is_error, Some(must_fail), "{name}: {result:?}");
        let text = &result.content[0].as_text().expect("text content").text;
        let (sent_cl100k, sent_o200k) = tokenizers.count(&sent);
        let (cl100k, o200k) = tokenizers.count(text);
        writeln!(
            out,
            "| {name} | {sent_cl100k} | {} | {cl100k} | {o200k} | {} | {} |",
            text.len(),
            sent_cl100k + cl100k,
            sent_o200k + o200k,
        )
        .unwrap();
    }
    let flat = inventory_server(Surface::default(), false)
        .tool("device_create")
        .cloned()
        .expect("device_create is listed");
    let (cl100k, o200k) = tokenizers.count(&serde_json::to_string(&flat).unwrap());
    writeln!(
        out,
        "\nFor scale: `device_create`'s own entry in a flat `tools/list`, paid in every conversation: \
         {cl100k} cl100k, {o200k} o200k."
    )
    .unwrap();
    out
}

/// The largest whole answer Codex is given: the 10,000 bytes it keeps,
/// less the `{"result":…}` a list is wrapped in.
const CODEX_WHOLE: usize = 10_000 - 16;

/// The list sizes the inline budget's table measures.
const INLINE_SIZES: [usize; 13] = [1, 2, 3, 5, 10, 15, 19, 20, 21, 22, 25, 40, 84];

/// What `device_list` over a few devices costs answered whole, beside the
/// probe it answers otherwise and that probe plus the page an agent reads
/// next (its second call: the token sent back, a page of 20):
/// the measurement the default inline budget is chosen from. The probe and
/// the page come from a server whose budget is 0 (every list a probe), the
/// whole list from `mode: full` of the same token, which is the text an
/// inline answer carries; the last column is what the default budget
/// answers, checked against the server built with it.
async fn inline_budget(tokenizers: &Tokenizers) -> String {
    let budget = HeavyConfig::new().inline_budget;
    let mut out = format!(
        "\nA heavy read of n devices (`device_list`), answered whole or with a probe \
         (the default inline budget: {budget} bytes):\n\n\
         | n | whole: bytes | whole: cl100k | probe: cl100k | probe + page: cl100k | \
         whole − (probe + page) | the default answers | to Codex |\n\
         |---:|---:|---:|---:|---:|---:|---|---|\n"
    );
    for n in INLINE_SIZES {
        let inventory = Arc::new(Inventory::new());
        for device in fixture::new_devices(n, SEED) {
            inventory.add(device);
        }
        let probing = report_server_with(
            Arc::clone(&inventory),
            false,
            HeavyConfig::new().with_inline_budget(0),
        );
        let call = async |server: &Server, args: Value| {
            let result = server.call("device_list", args, Caller::Process).await;
            text_of("device_list", &result)
        };
        let probe = call(&probing, json!({})).await;
        let token = serde_json::from_str::<Value>(&probe).unwrap()["continuation_token"].clone();
        assert!(
            token.is_string(),
            "a budget of 0 probes {n} devices: {probe}"
        );
        let page = call(
            &probing,
            json!({"continuation_token": token, "page_size": 20}),
        )
        .await;
        let whole = call(
            &probing,
            json!({"continuation_token": token, "mode": "full"}),
        )
        .await;

        let default = report_server(Arc::clone(&inventory), false);
        let first = call(&default, json!({})).await;
        let answers_whole = first == whole;
        assert_eq!(
            answers_whole,
            whole.len() <= budget,
            "{n} devices, {} bytes, against a budget of {budget}: {first:.200}",
            whole.len()
        );

        // Codex keeps 10,000 bytes of an answer: less than the budget.
        let codex = default
            .call_from(
                "codex-mcp-client",
                "device_list",
                json!({}),
                Caller::Process,
            )
            .await;
        let codex_whole = text_of("device_list", &codex) == whole;
        assert_eq!(codex_whole, whole.len() <= budget.min(CODEX_WHOLE));

        let (whole_tokens, _) = tokenizers.count(&whole);
        let (probe_tokens, _) = tokenizers.count(&probe);
        let (page_tokens, _) = tokenizers.count(&page);
        let probed = probe_tokens + page_tokens;
        writeln!(
            out,
            "| {n} | {} | {whole_tokens} | {probe_tokens} | {probed} | {:+} | {} | {} |",
            whole.len(),
            whole_tokens as i64 - probed as i64,
            if answers_whole { "whole" } else { "probe" },
            if codex_whole { "whole" } else { "probe" },
        )
        .unwrap();
    }
    out
}

/// Panics unless `summary` counts the items per value of `field` as
/// `values` (one per item) do.
fn check_counts<'a>(summary: &Value, field: &str, values: impl Iterator<Item = &'a str>) {
    let mut expected = BTreeMap::<&str, u64>::new();
    for value in values {
        *expected.entry(value).or_default() += 1;
    }
    let counted: BTreeMap<&str, u64> = summary["fields"][field]["values"]
        .as_object()
        .unwrap_or_else(|| panic!("the summary counts no values of {field}"))
        .iter()
        .map(|(value, n)| (value.as_str(), n.as_u64().unwrap()))
        .collect();
    assert_eq!(counted, expected, "the summary's counts of {field}");
}

/// What the summary of 500 devices costs beside the probe, one page and the
/// list it stands for, and a check that it counts devices per site and per
/// status as the list does.
async fn summary(tokenizers: &Tokenizers) -> String {
    const DEVICES: usize = 500;
    let inventory = Arc::new(Inventory::new());
    let server = report_server(Arc::clone(&inventory), false);
    let new = fixture::new_devices(DEVICES, SEED);
    for device in new.iter().cloned() {
        inventory.add(device);
    }
    let call = async |args: Value| {
        let result = server.call("device_list", args, Caller::Process).await;
        text_of("device_list", &result)
    };
    let probe = call(json!({})).await;
    let token: Value = serde_json::from_str::<Value>(&probe).unwrap()["continuation_token"].clone();
    let summary = call(json!({"continuation_token": token, "mode": "summary"})).await;
    // The default page as Codex reads it: as many devices as fit 10,000 bytes.
    let page = server
        .call_from(
            "codex-mcp-client",
            "device_list",
            json!({"continuation_token": token}),
            Caller::Process,
        )
        .await;
    let page = text_of("device_list", &page);
    let page_items = serde_json::from_str::<Value>(&page).unwrap()["items"]
        .as_array()
        .map_or(0, Vec::len);
    let page_label =
        format!("`paginated`: one default page, as Codex reads it ({page_items} devices)");
    let full = call(json!({"continuation_token": token, "mode": "full"})).await;

    let counted: Value = serde_json::from_str(&summary).unwrap();
    check_counts(
        &counted,
        "site_slug",
        new.iter().map(|d| d.site_slug.as_str()),
    );
    check_counts(&counted, "status", new.iter().map(|d| d.status.as_str()));

    let mut out = format!(
        "\nThe {DEVICES}-device list (`device_list`, a heavy read) and what summarizes it:\n\n\
         | answer | bytes | cl100k | o200k |\n|---|---:|---:|---:|\n"
    );
    for (name, text) in [
        ("probe (first call)", &probe),
        (
            "`summary`: count, per-field types, nulls, ranges and value counts",
            &summary,
        ),
        (page_label.as_str(), &page),
        ("`full`: the whole list", &full),
    ] {
        let (cl100k, o200k) = tokenizers.count(text);
        writeln!(out, "| {name} | {} | {cl100k} | {o200k} |", text.len()).unwrap();
    }
    writeln!(
        out,
        "\nThe summary's devices per site: {}; per status: {} (checked against the list).",
        counted["fields"]["site_slug"]["values"], counted["fields"]["status"]["values"]
    )
    .unwrap();
    out
}

/// What the session's agent may spend, in cl100k tokens.
const SESSION_BUDGET: usize = 2_500;

/// One step of the provisioning session, counted.
struct Step {
    what: &'static str,
    calls: usize,
    bytes: usize,
    cl100k: usize,
    o200k: usize,
    /// The largest single answer's bytes.
    largest: usize,
}

/// A lean agent's provisioning session on the inventory as its binary
/// serves it (SQLite, in memory here), given only the dispatcher: its
/// `tools/list`, one `describe` per action it uses, two 60-device bulk
/// creates each with the page of their ids (`filtered` to `id`), the list
/// of one site and one page of it narrowed to a few keys, five partial
/// updates, two deletes and one retrieve. Each line counts the answers the
/// agent reads, as the wire carries them; what it writes is its own.
///
/// With a `profile`, every call is made as the client naming itself so
/// ([`Server::call_from`]), and each answer counted is what that client
/// hands its model ([`read_of`]); without, through [`Server::call`], each
/// answer's text.
async fn session(tokenizers: &Tokenizers, profile: Option<&str>) -> (String, Vec<Step>) {
    let db = inventory::db::Db::open(None).expect("an in-memory SQLite database");
    let server = inventory::server(db)
        .with_surface(Surface::Dispatcher)
        .build()
        .expect("the inventory builds");
    // The sites exist before the session: it provisions devices.
    for site in fixture::new_sites() {
        let site = serde_json::to_value(site).unwrap();
        let args = json!({"resource": "site", "action": "create", "params": {"site": site}});
        let created = server.call(DISPATCHER, args, Caller::Process).await;
        text_of("site create", &created);
    }
    let mut steps: Vec<Step> = Vec::new();
    let mut step = |what: &'static str, texts: &[String]| {
        let mut counted = Step {
            what,
            calls: texts.len(),
            bytes: 0,
            cl100k: 0,
            o200k: 0,
            largest: 0,
        };
        for text in texts {
            let (cl100k, o200k) = tokenizers.count(text);
            counted.bytes += text.len();
            counted.largest = counted.largest.max(text.len());
            counted.cl100k += cl100k;
            counted.o200k += o200k;
        }
        steps.push(counted);
    };
    let ask = async |args: Value| match profile {
        Some(client) => {
            server
                .call_from(client, DISPATCHER, args, Caller::Process)
                .await
        }
        None => server.call(DISPATCHER, args, Caller::Process).await,
    };
    let seen = |what: &str, result: &CallToolResult| match profile {
        Some(_) => read_of(what, result),
        None => text_of(what, result),
    };
    let call = async |resource: &str, action: &str, params: Value| {
        let args = json!({"resource": resource, "action": action, "params": params});
        seen(action, &ask(args).await)
    };
    let redeem = async |token: &Value, negotiation: Value| {
        let mut args = json!({"continuation_token": token});
        args.as_object_mut()
            .unwrap()
            .extend(negotiation.as_object().unwrap().clone());
        seen("a redemption", &ask(args).await)
    };
    let field = |text: &str, key: &str| serde_json::from_str::<Value>(text).unwrap()[key].clone();

    step(
        "`tools/list`, the dispatcher alone",
        &[serde_json::to_string(server.tools()).unwrap()],
    );
    let mut described = Vec::new();
    for action in [
        "bulk_create",
        "list",
        "partial_update",
        "destroy",
        "retrieve",
    ] {
        let args = json!({"resource": "device", "action": action, "describe": true});
        described.push(seen(action, &ask(args).await));
    }
    step("one `describe` per action used (5)", &described);

    let mut created = Vec::new();
    let mut ids: Vec<Value> = Vec::new();
    let devices = fixture::new_devices(120, SEED);
    for devices in devices.chunks(60) {
        let envelope = call("device", "bulk_create", json!({"devices": devices})).await;
        let token = field(&envelope, "continuation_token");
        assert!(
            token.is_string(),
            "a bulk create through the dispatcher keeps a token: {envelope}"
        );
        let page = redeem(
            &token,
            json!({"mode": "filtered", "filter_keys": ["id"], "page_size": 4}),
        )
        .await;
        ids.extend(
            field(&page, "items")
                .as_array()
                .expect("a page of ids")
                .iter()
                .map(|item| item["id"].clone()),
        );
        created.push(envelope);
        created.push(page);
    }
    assert_eq!(ids.len(), 8, "the ids the session goes on with were read");
    if std::env::var_os("SESSION_TEXTS").is_some() {
        for text in described.iter().chain(&created) {
            eprintln!("{text}\n");
        }
    }
    step(
        "two 60-device bulk creates, each with a page of 4 of their ids",
        &created,
    );

    let site = fixture::new_sites()[0].slug.clone();
    let listed = call("device", "list", json!({"site_slug": site})).await;
    let mut read = vec![listed.clone()];
    // What one page costs with the ids too: the agent already holds the
    // ids it works on, from the bulk creates.
    let mut with_ids = None;
    if let Some(token) = field(&listed, "continuation_token").as_str() {
        // A page of 20, as an agent looking over a site asks: the default
        // page holds as many as fit the client.
        let keys = json!({"mode": "filtered", "filter_keys": ["name", "status"], "page_size": 20});
        read.push(redeem(&json!(token), keys).await);
        let keys =
            json!({"mode": "filtered", "filter_keys": ["id", "name", "status"], "page_size": 20});
        with_ids = Some(tokenizers.count(&redeem(&json!(token), keys).await).0);
    }
    step(
        "the list of one site, and one page of 20 of it filtered to `name` and `status`",
        &read,
    );

    let mut updated = Vec::new();
    for id in &ids[..5] {
        let params = json!({"id": id, "changes": {"status": "active"}});
        updated.push(call("device", "partial_update", params).await);
    }
    if std::env::var_os("SESSION_TEXTS").is_some() {
        for text in read.iter().chain(&updated) {
            eprintln!("{text}\n");
        }
    }
    step("five partial updates", &updated);
    let mut deleted = Vec::new();
    for id in &ids[5..7] {
        deleted.push(call("device", "destroy", json!({"id": id})).await);
    }
    step("two deletes", &deleted);
    step(
        "one retrieve",
        &[call("device", "retrieve", json!({"id": ids[7]})).await],
    );

    let total: usize = steps.iter().map(|step| step.cl100k).sum();
    if profile.is_some() {
        return (String::new(), steps);
    }
    let mut out = String::from(
        "\nA provisioning session through the dispatcher alone (the lean agent's moves), \
         every answer it reads, on the inventory's own server and SQLite:\n\n\
         | step | calls | bytes | cl100k | o200k |\n|---|---:|---:|---:|---:|\n",
    );
    for step in &steps {
        writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            step.what, step.calls, step.bytes, step.cl100k, step.o200k
        )
        .unwrap();
    }
    writeln!(
        out,
        "| **the session** | {} | {} | **{total}** | {} |",
        steps.iter().map(|step| step.calls).sum::<usize>(),
        steps.iter().map(|step| step.bytes).sum::<usize>(),
        steps.iter().map(|step| step.o200k).sum::<usize>(),
    )
    .unwrap();
    if let Some(with_ids) = with_ids {
        let page = steps[3].cl100k - tokenizers.count(&read[0]).0;
        writeln!(
            out,
            "\nThe filtered page with `id` beside `name` and `status` costs {with_ids} cl100k \
             instead of {page}: the inventory's ids are UUIDs, about 20 tokens each."
        )
        .unwrap();
    }
    writeln!(
        out,
        "\nThe session: {total} cl100k tokens (target ≤ {SESSION_BUDGET}): {}",
        if total <= SESSION_BUDGET {
            "met"
        } else {
            "MISSED"
        }
    )
    .unwrap();
    (out, steps)
}

/// The client profiles measured: what the report calls each, and the
/// name it gives itself in `clientInfo`.
const PROFILES: [(&str, &str); 3] = [
    ("Codex", "codex-mcp-client"),
    ("Claude Code", "claude-code"),
    ("an unknown client", "some-agent"),
];

/// The bulk create each profile reads the ids of.
const BULK_DEVICES: usize = 1_000;

/// The batch sizes of the envelope table.
const ENVELOPE_BATCHES: [usize; 5] = [1, 60, 300, 1_000, 10_000];

/// Answers counted together: how many, their bytes and tokens, the largest.
#[derive(Default)]
struct Tally {
    calls: usize,
    bytes: usize,
    cl100k: usize,
    o200k: usize,
    largest: usize,
}

impl Tally {
    fn add(&mut self, tokenizers: &Tokenizers, text: &str) {
        let (cl100k, o200k) = tokenizers.count(text);
        self.calls += 1;
        self.bytes += text.len();
        self.cl100k += cl100k;
        self.o200k += o200k;
        self.largest = self.largest.max(text.len());
    }
}

/// A bulk create of `n` fixture devices on a fresh report server sized by
/// mcp-light's own client table, called by `client`: the server, the ids
/// it wrote in order, and the envelope as the client reads it.
async fn bulk_as(client: &str, n: usize) -> (Server, Vec<Value>, String) {
    let inventory = Arc::new(Inventory::new());
    let server = report_builder(Arc::clone(&inventory))
        .build()
        .expect("the report's tools register");
    let devices = serde_json::to_value(fixture::new_devices(n, SEED)).unwrap();
    let result = server
        .call_from(
            client,
            "device_bulk_create",
            json!({ "devices": devices }),
            Caller::Process,
        )
        .await;
    let envelope = read_of("device_bulk_create", &result);
    let written = inventory
        .devices
        .lock()
        .unwrap()
        .iter()
        .map(|device| json!(device.id))
        .collect();
    (server, written, envelope)
}

/// Reads the ids of a bulk create back as `client`: the envelope's token
/// redeemed `filtered` to `id`, then page 2, 3, … at the `page_size` each
/// answer reports until `has_more` is false. The ids read, the answers
/// counted, and the first page's size.
async fn ids_as(
    tokenizers: &Tokenizers,
    server: &Server,
    client: &str,
    envelope: &str,
) -> (Vec<Value>, Tally, u64) {
    let token = serde_json::from_str::<Value>(envelope).unwrap()["continuation_token"].clone();
    assert!(
        token.is_string(),
        "{client}: the envelope keeps a token: {envelope}"
    );
    let mut args = json!({"continuation_token": token, "mode": "filtered", "filter_keys": ["id"]});
    let (mut ids, mut tally, mut first_size) = (Vec::new(), Tally::default(), None);
    loop {
        let result = server
            .call_from(client, "device_bulk_create", args, Caller::Process)
            .await;
        let text = read_of("a redemption", &result);
        tally.add(tokenizers, &text);
        let page: Value = serde_json::from_str(&text).unwrap();
        let items = page["items"].as_array();
        let items = items.unwrap_or_else(|| panic!("{client}: a page of ids: {text:.300}"));
        ids.extend(items.iter().map(|item| item["id"].clone()));
        first_size = first_size.or(page["page_size"].as_u64());
        match page["has_more"].as_bool() {
            Some(false) => break,
            Some(true) => {}
            None => panic!("{client}: a page says whether more follow: {text:.300}"),
        }
        let next = page["page"].as_u64().expect("a page's number") + 1;
        args = json!({
            "continuation_token": token,
            "mode": "filtered",
            "filter_keys": ["id"],
            "page": next,
            "page_size": page["page_size"],
        });
    }
    (ids, tally, first_size.expect("a page reports its size"))
}

/// What each client profile reads, its answers sized to what it keeps
/// ([`Server::call_from`]), each counted as the compact JSON of its
/// `structuredContent`: the provisioning session, a 1,000-device bulk
/// create's envelope and its ids read back page by page, and the bulk
/// envelope from 1 to 10,000 devices.
async fn per_client(tokenizers: &Tokenizers) -> String {
    let clients = ClientTable::new();
    let mut out = String::from(
        "\nPer client profile: every call made as the client naming itself so \
         (`Server::call_from`), its answers sized to what that client keeps, each answer \
         counted as the compact JSON of its `structuredContent` (what these clients hand \
         their model). The provisioning session above, as each client makes it:\n\n\
         | client | `clientInfo.name` | keeps (bytes) | calls | bytes | cl100k | o200k | \
         largest answer (bytes) |\n\
         |---|---|---:|---:|---:|---:|---:|---:|\n",
    );
    for (profile, client) in PROFILES {
        let keeps = clients.keeps(Some(client));
        let (_, steps) = session(tokenizers, Some(client)).await;
        // `tools/list` is no call: every client reads the same.
        let largest = steps
            .iter()
            .skip(1)
            .map(|step| step.largest)
            .max()
            .unwrap_or(0);
        assert!(
            largest <= keeps,
            "{client}: a {largest}-byte answer, keeping {keeps}"
        );
        writeln!(
            out,
            "| {profile} | `{client}` | {keeps} | {} | {} | {} | {} | {largest} |",
            steps.iter().map(|step| step.calls).sum::<usize>(),
            steps.iter().map(|step| step.bytes).sum::<usize>(),
            steps.iter().map(|step| step.cl100k).sum::<usize>(),
            steps.iter().map(|step| step.o200k).sum::<usize>(),
        )
        .unwrap();
    }

    write!(
        out,
        "\nA {BULK_DEVICES}-device `device_bulk_create`, and its ids read back: the token \
         redeemed `filtered` to `id`, then page 2, 3, … at the `page_size` each answer \
         reports (at most the default `max_page_size`, {}) until `has_more` is false:\n\n\
         | client | keeps (bytes) | envelope: bytes | cl100k | o200k | ids read: calls | \
         page size | bytes | cl100k | o200k | largest answer (bytes) |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
        HeavyConfig::new().max_page_size,
    )
    .unwrap();
    for (profile, client) in PROFILES {
        let keeps = clients.keeps(Some(client));
        let (server, written, envelope) = bulk_as(client, BULK_DEVICES).await;
        let (cl100k, o200k) = tokenizers.count(&envelope);
        let (ids, read, page_size) = ids_as(tokenizers, &server, client, &envelope).await;
        assert_eq!(ids, written, "{client}: every id read back, in order");
        assert!(
            read.largest <= keeps && envelope.len() <= keeps,
            "{client}: a {}-byte answer, keeping {keeps}",
            read.largest
        );
        writeln!(
            out,
            "| {profile} | {keeps} | {} | {cl100k} | {o200k} | {} | {page_size} | {} | {} | {} | {} |",
            envelope.len(),
            read.calls,
            read.bytes,
            read.cl100k,
            read.o200k,
            read.largest,
        )
        .unwrap();
    }

    let (profile, client) = PROFILES[0];
    write!(
        out,
        "\nThe bulk envelope by batch size, as {profile} (`{client}`) reads it (the ids \
         listed beside the token only while it stays within {} bytes):\n\n\
         | devices | bytes | cl100k | o200k | ids listed |\n|---:|---:|---:|---:|---|\n",
        mcp_light::defaults::ENVELOPE_BYTES
    )
    .unwrap();
    for n in ENVELOPE_BATCHES {
        let (_, _, envelope) = bulk_as(client, n).await;
        let (cl100k, o200k) = tokenizers.count(&envelope);
        let parsed: Value = serde_json::from_str(&envelope).unwrap();
        assert!(
            parsed["continuation_token"].is_string(),
            "{n}: {envelope:.300}"
        );
        writeln!(
            out,
            "| {n} | {} | {cl100k} | {o200k} | {} |",
            envelope.len(),
            if parsed.get("ids").is_some() {
                "yes"
            } else {
                "no"
            },
        )
        .unwrap();
    }
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
        print!("{}", surfaces(&tokenizers));
        #[cfg(feature = "apps")]
        print!("{}", views(&tokenizers));
        print!("{}", runtime.block_on(discovery(&tokenizers)));
        print!("{}", runtime.block_on(inline_budget(&tokenizers)));
        print!("{}", runtime.block_on(summary(&tokenizers)));
        print!("{}", runtime.block_on(session(&tokenizers, None)).0);
        print!("{}", runtime.block_on(per_client(&tokenizers)));
    }
}
