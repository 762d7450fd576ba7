//! Every inventory tool reaches callers. Tools register through a `linkme`
//! slice, and a linker may leave out the parts of a library nothing refers
//! to; these tests link the library as the binaries do, and run the built
//! `inventory` binary itself.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use inventory::db::Db;
use mcp_light::AnswerExt;
use serde_json::{Value, json};

/// The flat tools, sorted by name as `tools/list` shows them.
const TOOLS: [&str; 10] = [
    "device_bulk_create",
    "device_create",
    "device_destroy",
    "device_list",
    "device_partial_update",
    "device_retrieve",
    "device_update",
    "site_create",
    "site_list",
    "site_retrieve",
];

/// The flat tools, then the dispatcher.
fn listed() -> Vec<&'static str> {
    TOOLS
        .iter()
        .copied()
        .chain([inventory::DISPATCHER])
        .collect()
}

#[test]
fn the_library_registers_every_inventory_tool() {
    let registry = inventory::tools::registry().unwrap();
    let names: Vec<&str> = registry.iter().map(|tool| tool.name()).collect();
    assert_eq!(names, TOOLS);
}

#[test]
fn the_server_lists_every_tool_and_the_dispatcher() {
    let server = inventory::server(Db::open(None).unwrap()).build().unwrap();
    let names: Vec<String> = server
        .tools()
        .iter()
        .map(|tool| tool.name.to_string())
        .collect();
    assert_eq!(names, listed());
}

/// The `inventory` binary on stdio, with an in-memory database.
struct StdioServer {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl StdioServer {
    fn start() -> StdioServer {
        let mut child = Command::new(env!("CARGO_BIN_EXE_inventory"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the inventory binary starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        // Read on a thread, so a server that never answers fails the test
        // instead of hanging it.
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        StdioServer {
            child,
            stdin,
            lines,
        }
    }

    fn send(&mut self, message: Value) {
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// The result of request `id`.
    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(30))
            .unwrap_or_else(|_| panic!("no answer to {method}"));
        let mut answer: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(answer["id"], id, "{line}");
        answer["result"].take()
    }

    /// Closes stdin, which ends the session, and waits for the exit.
    fn stop(self) {
        let StdioServer {
            mut child, stdin, ..
        } = self;
        drop(stdin);
        assert!(child.wait().unwrap().success());
    }
}

#[test]
fn the_binary_serves_the_library_tools_on_stdio() {
    let mut server = StdioServer::start();
    let init = server.request(
        1,
        "initialize",
        json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "inventory-tests", "version": "0"},
        }),
    );
    assert!(init["capabilities"]["tools"].is_object(), "{init}");
    // The server introduces itself as the inventory, not as mcp-light.
    assert_eq!(
        init["serverInfo"],
        json!({"name": "inventory", "version": env!("CARGO_PKG_VERSION")})
    );
    server.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    let listed_by_binary = server.request(2, "tools/list", json!({}))["tools"].take();
    server.stop();

    let names: Vec<&str> = listed_by_binary
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, listed());
    // Schemas, descriptions and annotations too: what the library builds.
    let library = inventory::server(Db::open(None).unwrap()).build().unwrap();
    assert_eq!(
        listed_by_binary,
        serde_json::to_value(library.tools()).unwrap()
    );
}

#[test]
fn the_binary_prints_help_on_stdout_and_refuses_unknown_flags() {
    let inventory = env!("CARGO_BIN_EXE_inventory");
    let help = Command::new(inventory).arg("--help").output().unwrap();
    assert!(help.status.success());
    let text = String::from_utf8(help.stdout).unwrap();
    assert!(text.starts_with("A network-inventory MCP server"), "{text}");
    assert!(text.contains("--http <ADDR>"), "{text}");

    let wrong = Command::new(inventory).arg("--verbose").output().unwrap();
    assert_eq!(wrong.status.code(), Some(2));
    assert!(wrong.stdout.is_empty());
    let message = String::from_utf8(wrong.stderr).unwrap();
    assert!(message.contains("'--verbose'"), "{message}");
}

// ----- what callers see when something is wrong ------------------------------

/// A server over a fresh in-memory database with the `lab` site, and the
/// database.
async fn lab() -> (mcp_light::Server, Db) {
    let db = Db::open(None).unwrap();
    let server = inventory::server(db.clone()).build().unwrap();
    let site = json!({"site": {"name": "Lab", "slug": "lab"}});
    let created = server
        .call("site_create", site, mcp_light::Caller::Process)
        .await;
    assert_eq!(created.is_error, Some(false), "{created:?}");
    (server, db)
}

fn device(name: &str, site: &str) -> Value {
    json!({"name": name, "site_slug": site, "role": "leaf", "device_type": "qfx"})
}

#[tokio::test]
async fn a_failing_device_of_a_batch_is_counted_from_one() {
    let (server, _db) = lab().await;
    let batch =
        json!({"devices": [device("a", "lab"), device("b", "atlantis"), device("c", "lab")]});
    let result = server
        .call("device_bulk_create", batch, mcp_light::Caller::Process)
        .await;
    let text = result.error_text().unwrap();
    assert!(
        text.contains("device 2 of 3 in the batch (`b`): unknown site `atlantis`"),
        "{text}"
    );
}

#[tokio::test]
async fn a_damaged_record_answers_a_server_fault_without_database_internals() {
    let (server, db) = lab().await;
    let created = server
        .call(
            "device_create",
            json!({"device": device("edge-01", "lab")}),
            mcp_light::Caller::Process,
        )
        .await;
    let id = created.json().unwrap()["id"].clone();
    db.run_now(|conn| {
        conn.execute("UPDATE devices SET position = 'upper'", [])?;
        Ok(())
    })
    .unwrap();
    let answer = server
        .call(
            "device_retrieve",
            json!({"id": id}),
            mcp_light::Caller::Process,
        )
        .await;
    let text = answer.error_text().unwrap();
    for internal in ["Invalid column type", "index", "Text"] {
        assert!(!text.contains(internal), "{text}");
    }
    assert!(text.contains("a stored record could not be read"), "{text}");
}

#[tokio::test]
async fn a_name_longer_than_its_published_max_length_is_refused() {
    let (server, _db) = lab().await;
    let tools = server.tools();
    let create = tools.iter().find(|t| t.name == "device_create").unwrap();
    let name_schema = &create.input_schema["properties"]["device"]["properties"]["name"];
    assert_eq!(name_schema["maxLength"], 64, "{name_schema}");
    let long = "n".repeat(65);
    let answer = server
        .call(
            "device_create",
            json!({"device": device(&long, "lab")}),
            mcp_light::Caller::Process,
        )
        .await;
    let text = answer.error_text().unwrap();
    assert!(
        text.contains("`name` is 65 characters long; at most 64 are allowed"),
        "{text}"
    );
}

#[test]
fn the_binary_answers_a_malformed_request_on_stdio_with_its_id() {
    let mut server = StdioServer::start();
    let params = json!({"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "inventory-tests", "version": "0"}});
    server.request(1, "initialize", params);
    server.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    writeln!(
        server.stdin,
        r#"{{"jsonrpc":"2.0","id":41,"method":"tools/call","params":[1]}}"#
    )
    .unwrap();
    server.stdin.flush().unwrap();
    let line = server
        .lines
        .recv_timeout(Duration::from_secs(30))
        .expect("an answer to the malformed request");
    let answer: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(answer["id"], 41, "{line}");
    assert_eq!(answer["error"]["code"], -32602, "{line}");
    server.stop();
}

// ----- a file database, as deployed ------------------------------------------

/// A directory of its own under the system's temporary directory, removed
/// with everything in it when dropped.
struct TempDir(std::path::PathBuf);

impl TempDir {
    fn new(test: &str) -> TempDir {
        let dir =
            std::env::temp_dir().join(format!("inventory-tools-{test}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    fn db(&self) -> std::path::PathBuf {
        self.0.join("inventory.db")
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The JSON of a call that succeeded.
fn ok_of(result: mcp_light::CallToolResult) -> Value {
    result
        .json()
        .unwrap_or_else(|error| panic!("{error}: {result:?}"))
}

#[tokio::test]
async fn every_tool_reads_back_its_writes_on_a_file_database() {
    let dir = TempDir::new("every-tool");
    let server = inventory::server(Db::open(Some(&dir.db())).unwrap())
        .build()
        .unwrap();
    let call = |tool: &'static str, arguments: Value| {
        server.call(tool, arguments, mcp_light::Caller::Process)
    };

    let site = ok_of(
        call(
            "site_create",
            json!({"site": {"name": "Lab", "slug": "lab"}}),
        )
        .await,
    );
    let site_id = site["id"].clone();
    let read = ok_of(call("site_retrieve", json!({"id": site_id})).await);
    assert_eq!(
        (&read["slug"], &read["device_count"]),
        (&json!("lab"), &json!(0))
    );

    let created = ok_of(call("device_create", json!({"device": device("edge-01", "lab")})).await);
    let id = created["id"].clone();
    let read = ok_of(call("device_retrieve", json!({"id": id})).await);
    assert_eq!(read["name"], "edge-01");
    let bulk = json!({"devices": [device("edge-02", "lab"), device("edge-03", "lab")]});
    assert_eq!(ok_of(call("device_bulk_create", bulk).await)["accepted"], 2);
    let sites = ok_of(call("site_list", json!({})).await);
    assert_eq!(sites["result"][0]["device_count"], 3, "{sites}");

    let changes = json!({"id": id, "changes": {"comments": "racked"}});
    ok_of(call("device_partial_update", changes).await);
    let read = ok_of(call("device_retrieve", json!({"id": id})).await);
    assert_eq!(read["comments"], "racked");
    let replaced = json!({"id": id, "device": device("edge-01b", "lab")});
    ok_of(call("device_update", replaced).await);
    let read = ok_of(call("device_retrieve", json!({"id": id})).await);
    assert_eq!(
        (&read["name"], &read["comments"]),
        (&json!("edge-01b"), &json!(""))
    );

    let probe = ok_of(call("device_list", json!({"site_slug": "lab"})).await);
    let redeem = json!({"continuation_token": probe["continuation_token"], "mode": "summary"});
    let summary = ok_of(call("device_list", redeem).await);
    assert_eq!(summary["count"], 3, "{summary}");

    ok_of(call("device_destroy", json!({"id": id})).await);
    let gone = call("device_retrieve", json!({"id": id}))
        .await
        .error_text()
        .unwrap()
        .to_owned();
    assert!(gone.contains("no device with id"), "{gone}");
    let read = ok_of(call("site_retrieve", json!({"id": site_id})).await);
    assert_eq!(read["device_count"], 2);
}

#[test]
fn the_binary_keeps_its_database_file_in_wal_mode_and_refuses_an_unknown_sync() {
    let dir = TempDir::new("binary-wal");
    let inventory = env!("CARGO_BIN_EXE_inventory");
    // With stdin closed, the server seeds, finds no client and exits.
    let seeded = Command::new(inventory)
        .args(["--seed", "3", "--db-sync", "full", "--db"])
        .arg(dir.db())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&seeded.stderr);
    assert!(log.contains("the database holds 3 devices"), "{log}");
    let file = rusqlite::Connection::open(dir.db()).unwrap();
    let mode: String = file
        .pragma_query_value(None, "journal_mode", |row| row.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    let devices: i64 = file
        .query_row("SELECT count(*) FROM devices", [], |row| row.get(0))
        .unwrap();
    assert_eq!(devices, 3);

    let wrong = Command::new(inventory)
        .args(["--db-sync", "off", "--db"])
        .arg(dir.db())
        .output()
        .unwrap();
    assert_eq!(wrong.status.code(), Some(2));
    let message = String::from_utf8(wrong.stderr).unwrap();
    assert!(message.contains("'off'"), "{message}");
    assert!(
        message.contains("[possible values: normal, full]"),
        "{message}"
    );
}
