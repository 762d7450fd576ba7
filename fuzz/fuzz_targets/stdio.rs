//! Arbitrary lines into the inventory server on stdio (`serve_lines` over
//! an in-memory pipe), after the handshake or without it.
//!
//! Holds: every line the server writes is one well-formed JSON-RPC
//! message, and an error in it names what is wrong; the server stops when
//! its input ends, within the bound, whatever it was sent; unless a
//! `tools/call` of a tool that writes succeeded, the database is as it
//! was.

#![no_main]

use std::sync::Mutex;
use std::time::Duration;

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use mcp_light::transport::StdioOptions;
use mcp_light_fuzz::inventory_env::{Inventory, READS};
use mcp_light_fuzz::rpc::{self, Message};
use mcp_light_fuzz::{Form, answer, form, run_bounded};
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

#[derive(Arbitrary, Debug)]
struct Input {
    /// Start with `initialize` and `notifications/initialized`.
    handshake: bool,
    /// A line limit below the default, to reach the skipping of long lines.
    max_line_bytes: Option<u16>,
    /// Lines end in `\r\n` rather than `\n`.
    crlf: bool,
    messages: Vec<Message>,
}

static INVENTORY: Mutex<Option<Inventory>> = Mutex::new(None);

fuzz_target!(|data: &[u8]| {
    let (sent, writes, options) = match form::<Input>(data) {
        None => return,
        Some(Form::Raw(raw)) => {
            let writes = raw
                .split(|b| *b == b'\n')
                .flat_map(|line| rpc::write_call_ids(line, &READS))
                .collect();
            (
                raw.to_vec(),
                writes,
                StdioOptions::new().with_drain_timeout(Duration::from_secs(5)),
            )
        }
        Some(Form::Built(input)) => built(&input),
    };
    // What a built input sends, for a test made of it.
    if let Some(path) = std::env::var_os("FUZZ_SENT_TO") {
        std::fs::write(path, &sent).expect("the input is written");
    }
    serve(sent, &writes, options);
});

/// The bytes a built input sends, the ids of its calls that may write,
/// and how the server reads.
fn built(input: &Input) -> (Vec<u8>, Vec<Value>, StdioOptions) {
    let newline: &[u8] = if input.crlf { b"\r\n" } else { b"\n" };
    let mut sent = Vec::new();
    let mut writes = Vec::new();
    if input.handshake {
        sent.extend_from_slice(rpc::initialize(0, "2025-06-18").as_bytes());
        sent.extend_from_slice(newline);
        sent.extend_from_slice(rpc::INITIALIZED.as_bytes());
        sent.extend_from_slice(newline);
    }
    for message in &input.messages {
        let bytes = message.to_bytes();
        writes.extend(rpc::write_call_ids(&bytes, &READS));
        sent.extend_from_slice(&bytes);
        sent.extend_from_slice(newline);
    }
    let mut options = StdioOptions::new().with_drain_timeout(Duration::from_secs(5));
    if let Some(max) = input.max_line_bytes {
        options = options
            .with_max_line_bytes(usize::from(max).max(1))
            .expect("a limit above 0");
    }
    (sent, writes, options)
}

fn serve(sent: Vec<u8>, writes: &[Value], options: StdioOptions) {
    let mut slot = INVENTORY.lock().unwrap_or_else(|e| e.into_inner());
    if slot
        .as_ref()
        .is_none_or(|inventory| inventory.devices() > 300)
    {
        *slot = Some(Inventory::seeded(8));
    }
    let inventory = slot.as_ref().expect("seeded above");
    let before = inventory.snapshot();

    let server = inventory.server.clone();
    let written = run_bounded("a stdio session", async move {
        let (client, server_side) = tokio::io::duplex(1 << 16);
        let (reader, writer) = tokio::io::split(server_side);
        let serving = tokio::spawn(server.serve_lines(reader, writer, options));
        let (mut from_server, mut to_server) = tokio::io::split(client);
        let send = async move {
            // The server may stop reading (a broken handshake): what it
            // does not read is not its answer to give.
            let _ = to_server.write_all(&sent).await;
            let _ = to_server.shutdown().await;
        };
        let mut written = Vec::new();
        let receive = from_server.read_to_end(&mut written);
        let (_, read) = tokio::join!(send, receive);
        read.expect("the pipe reads");
        let _ = serving.await.expect("serving does not panic");
        written
    });

    let mut write_succeeded = false;
    for line in written.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        let message: Value = serde_json::from_slice(line).unwrap_or_else(|e| {
            panic!(
                "the server wrote a line that is no JSON ({e}): {}",
                String::from_utf8_lossy(line)
            )
        });
        answer::jsonrpc_message(&message, "a stdio answer");
        if let Some(id) = message.get("id")
            && writes.contains(id)
            && message.get("result").is_some()
            && message["result"]["isError"] != true
        {
            write_succeeded = true;
        }
    }
    if !write_succeeded {
        assert_eq!(
            inventory.snapshot(),
            before,
            "the database changed without a successful write"
        );
    }
}
