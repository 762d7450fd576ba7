//! Every inventory tool reaches callers. Tools register through a `linkme`
//! slice, and a linker may leave out the parts of a library nothing refers
//! to; these tests link the library as the binaries do, and run the built
//! `inventory` binary itself.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use inventory::db::Db;

#[cfg(feature = "postgres")]
#[path = "support/pg_server.rs"]
mod pg_server;

/// `inventory --check`.
#[path = "tools/check.rs"]
mod check;
use mcp_light::testing::AnswerExt;
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
    every_tool_reads_back_its_writes(&server).await;
}

/// Writes through every tool on `server`, a fresh database, and reads each
/// write back.
async fn every_tool_reads_back_its_writes(server: &mcp_light::Server) {
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

    // Three devices are within the inline budget: the list itself.
    let listed = ok_of(call("device_list", json!({"site_slug": "lab"})).await);
    let names: Vec<&str> = listed["result"]
        .as_array()
        .unwrap_or_else(|| panic!("the list, whole: {listed}"))
        .iter()
        .map(|device| device["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["edge-01b", "edge-02", "edge-03"], "{listed}");

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

/// A server over a fresh in-memory database holding the first `n` of the
/// fixture's devices (those of the token report and the Python suite).
fn fixture_devices(n: usize) -> mcp_light::Server {
    let db = Db::open(None).unwrap();
    db.run_now(move |conn| {
        inventory::db::ensure_sites(conn, inventory::fixture::new_sites())?;
        inventory::db::create_devices(conn, inventory::fixture::new_devices(n, 1))
    })
    .unwrap();
    inventory::server(db).build().unwrap()
}

#[tokio::test]
async fn device_list_answers_one_or_two_devices_whole_and_84_with_a_probe() {
    // `Server::call` is a client the table does not know: a whole answer
    // fits both the inline budget and what that client keeps.
    let keeps = mcp_light::defaults::UNKNOWN_CLIENT_KEEPS;
    let budget = mcp_light::heavy::HeavyConfig::new()
        .inline_budget
        .min(keeps);
    for n in [1, 2] {
        let server = fixture_devices(n);
        let result = server
            .call("device_list", json!({}), mcp_light::Caller::Process)
            .await;
        let listed = ok_of(result.clone());
        let devices = listed["result"]
            .as_array()
            .unwrap_or_else(|| panic!("{n} devices, whole: {listed}"));
        assert_eq!(devices.len(), n);
        let text = &result.content[0].as_text().unwrap().text;
        assert!(
            text.len() > 600 * n && text.len() <= budget,
            "{n} devices: {} bytes",
            text.len()
        );
    }

    let n = 84;
    let server = fixture_devices(n);
    let call = |args: Value| server.call("device_list", args, mcp_light::Caller::Process);
    let probe = ok_of(call(json!({})).await);
    assert_eq!(probe["total_items"], n, "{probe}");
    assert!(probe["total_size"].as_u64().unwrap() > budget as u64);
    let token = probe["continuation_token"].clone();
    assert!(token.is_string(), "{probe}");
    // A page the caller did not size holds as many devices as fit what
    // the client keeps, and says how many in its `page_size`.
    let result = call(json!({"continuation_token": token})).await;
    let text = result.content[0].as_text().unwrap().text.len();
    let page = ok_of(result);
    let items = page["items"].as_array().map_or(0, Vec::len);
    assert_eq!(&page["total"], &json!(n), "{page}");
    assert_eq!(page["page_size"], items, "{page}");
    assert_eq!(page["has_more"], true, "{page}");
    assert!(
        items > 1 && items < n && text <= keeps,
        "{items} devices in {text} bytes: {page}"
    );
    assert!(
        page.get("note").is_none(),
        "a page that fits says nothing: {page}"
    );
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

// ----- PostgreSQL ---------------------------------------------------------------

/// The inventory on a PostgreSQL server of the test's own: every tool, the
/// same answers as on SQLite.
#[cfg(feature = "postgres")]
mod postgresql {
    use super::*;
    use inventory::postgres::PgDb;
    use std::collections::HashMap;

    use crate::pg_server::PgServer;

    #[tokio::test]
    async fn every_tool_reads_back_its_writes_on_postgresql() {
        let Some(pg) = PgServer::start("every-tool") else {
            return;
        };
        let db = PgDb::connect(&pg.url()).await.unwrap();
        let server = inventory::server(db).build().unwrap();
        every_tool_reads_back_its_writes(&server).await;
    }

    #[tokio::test]
    async fn postgresql_answers_every_call_as_sqlite_does() {
        let Some(pg) = PgServer::start("same-answers") else {
            return;
        };
        let on_sqlite = inventory::server(Db::open(None).unwrap()).build().unwrap();
        let on_postgres = inventory::server(PgDb::connect(&pg.url()).await.unwrap())
            .build()
            .unwrap();
        let sqlite = script(&on_sqlite).await;
        let postgres = script(&on_postgres).await;
        assert_eq!(sqlite.len(), postgres.len());
        for ((call, a), (_, b)) in sqlite.iter().zip(&postgres) {
            assert_eq!(a, b, "{call}: SQLite answered {a:#}, PostgreSQL {b:#}");
        }
    }

    #[tokio::test]
    async fn a_second_server_on_the_same_database_migrates_nothing_and_sees_every_write() {
        let Some(pg) = PgServer::start("two-servers") else {
            return;
        };
        let url = pg.url();
        let (first, second) = tokio::join!(PgDb::connect(&url), PgDb::connect(&url));
        let first = inventory::server(first.unwrap()).build().unwrap();
        let second = inventory::server(second.unwrap()).build().unwrap();
        let site = json!({"site": {"name": "Lab", "slug": "lab"}});
        ok_of(
            first
                .call("site_create", site, mcp_light::Caller::Process)
                .await,
        );
        let created = ok_of(
            first
                .call(
                    "device_create",
                    json!({"device": device("edge-01", "lab")}),
                    mcp_light::Caller::Process,
                )
                .await,
        );
        let read = ok_of(
            second
                .call(
                    "device_retrieve",
                    json!({"id": created["id"]}),
                    mcp_light::Caller::Process,
                )
                .await,
        );
        assert_eq!(read["name"], "edge-01");
    }

    #[test]
    fn the_binary_refuses_an_unreachable_or_malformed_postgresql_url_saying_why() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        // Nothing listens on `port` once the listener above is dropped.
        let unreachable = format!("postgres://app:s3cret@127.0.0.1:{port}/inventory");
        for (url, says) in [
            (unreachable.as_str(), "Connection refused"),
            (
                "postgres://app:s3cret@db:notaport/inventory",
                "is not a PostgreSQL URL",
            ),
        ] {
            let output = Command::new(env!("CARGO_BIN_EXE_inventory"))
                .args(["--db", url])
                .stdin(Stdio::null())
                .output()
                .unwrap();
            assert!(!output.status.success(), "{url}");
            let log = String::from_utf8_lossy(&output.stderr);
            assert!(log.contains("cannot open the PostgreSQL database"), "{log}");
            assert!(log.contains(says), "{url}: {log}");
            assert!(!log.contains("s3cret"), "the password leaked: {log}");
        }
    }

    /// The same calls on `server`, each with its answer made comparable:
    /// ids, times and tokens replaced by what they stand for.
    async fn script(server: &mcp_light::Server) -> Vec<(String, Value)> {
        let mut answers = Vec::new();
        let mut names = Names::default();
        let mut ids: Vec<Value> = Vec::new();
        let missing = "0190a6f0-0000-7000-8000-000000000000";
        let mut steps: Vec<(&str, Value)> = vec![
            (
                "site_create",
                json!({"site": {"name": "Lab", "slug": "lab"}}),
            ),
            (
                "site_create",
                json!({"site": {"name": "Lab", "slug": "lab"}}),
            ),
            (
                "site_create",
                json!({"site": {"name": "Hall B", "slug": "hall_b", "region": "eu"}}),
            ),
            (
                "site_create",
                json!({"site": {"name": "Bad", "slug": "Bad Slug"}}),
            ),
            ("site_list", json!({})),
            ("site_retrieve", json!({"id": 2})),
            ("site_retrieve", json!({"id": 99})),
        ];
        let mut full = device("edge-01", "lab");
        full["asset_tag"] = json!("A-1");
        full["position"] = json!(12);
        full["face"] = json!("rear");
        full["tags"] = json!(["core", "b"]);
        full["custom_fields"] = json!({"z": {"b": 1, "a": [true, null]}, "a": "x"});
        steps.extend([
            ("device_create", json!({"device": full})),
            ("device_create", json!({"device": device("edge-01", "lab")})),
            ("device_create", json!({"device": {"name": "x", "site_slug": "lab", "role": "r", "device_type": "t", "asset_tag": "A-1"}})),
            ("device_create", json!({"device": device("edge-02", "atlantis")})),
            ("device_create", json!({"device": device(&"n".repeat(65), "lab")})),
            ("device_create", json!({"device": {"name": "p", "site_slug": "lab", "role": "r", "device_type": "t", "position": 0}})),
            ("device_bulk_create", json!({"devices": (2..=61).map(|i| device(&format!("edge-{i:02}"), if i % 2 == 0 { "lab" } else { "hall_b" })).collect::<Vec<_>>()})),
            ("device_bulk_create", json!({"devices": [device("new-1", "lab"), device("edge-02", "lab"), device("new-3", "lab")]})),
            ("device_bulk_create", json!({"devices": [device("dup", "lab"), device("ok", "lab"), device("dup", "lab")]})),
            ("device_bulk_create", json!({"devices": [device("fine", "lab"), device("far", "mars")]})),
            ("device_list", json!({"site_slug": "lab"})),
            ("device_list", json!({"site_slug": "hall_b", "role": "leaf", "status": "active"})),
            ("device_list", json!({"site_slug": "nowhere"})),
            ("device_retrieve", json!({"id": missing})),
            ("device_destroy", json!({"id": missing})),
            ("site_list", json!({})),
        ]);
        for (tool, arguments) in steps.drain(..) {
            let answer = answer_of(
                server
                    .call(tool, arguments.clone(), mcp_light::Caller::Process)
                    .await,
            );
            if tool == "device_create"
                && let Some(id) = answer.get("id")
            {
                ids.push(id.clone());
            }
            if tool == "device_list"
                && let Some(token) = answer.get("continuation_token")
            {
                for redeem in [
                    json!({"continuation_token": token, "page_size": 7}),
                    json!({"continuation_token": token, "mode": "summary"}),
                ] {
                    let mut page = answer_of(
                        server
                            .call(tool, redeem.clone(), mcp_light::Caller::Process)
                            .await,
                    );
                    // What a summary says of ids and times depends on
                    // the clock (which ids share a prefix), not on the
                    // database.
                    if let Some(fields) = page.get_mut("fields").and_then(Value::as_object_mut) {
                        for field in ["id", "url", "created", "last_updated"] {
                            assert!(fields.remove(field).is_some(), "{field}");
                        }
                    }
                    answers.push((format!("{tool} {redeem}"), names.normalize(page)));
                }
            }
            answers.push((format!("{tool} {arguments}"), names.normalize(answer)));
        }
        let id = ids[0].clone();
        for (tool, arguments) in [
            ("device_retrieve", json!({"id": id})),
            (
                "device_partial_update",
                json!({"id": id, "changes": {"comments": "racked", "custom_fields": {"a": null, "n": 1}}}),
            ),
            (
                "device_partial_update",
                json!({"id": id, "changes": {"name": "edge-02"}}),
            ),
            (
                "device_update",
                json!({"id": id, "device": device("edge-01b", "hall_b")}),
            ),
            (
                "device_update",
                json!({"id": id, "device": device("edge-01c", "atlantis")}),
            ),
            ("device_retrieve", json!({"id": id})),
            ("device_destroy", json!({"id": id})),
            ("device_retrieve", json!({"id": id})),
            ("site_list", json!({})),
        ] {
            let answer = answer_of(
                server
                    .call(tool, arguments.clone(), mcp_light::Caller::Process)
                    .await,
            );
            answers.push((format!("{tool} {arguments}"), names.normalize(answer)));
        }
        answers
    }

    /// A call's answer: its JSON, or `{"error": text}`.
    fn answer_of(result: mcp_light::CallToolResult) -> Value {
        match result.error_text() {
            Ok(text) => json!({"error": text}),
            Err(_) => ok_of(result),
        }
    }

    /// What ids and times stand for, by order of first appearance: the
    /// same script gives the same names on both databases.
    #[derive(Default)]
    struct Names(HashMap<String, String>);

    impl Names {
        fn normalize(&mut self, value: Value) -> Value {
            match value {
                Value::String(text) => Value::String(self.text(&text)),
                Value::Array(items) => {
                    Value::Array(items.into_iter().map(|v| self.normalize(v)).collect())
                }
                Value::Object(fields) => Value::Object(
                    fields
                        .into_iter()
                        .map(|(key, value)| match key.as_str() {
                            "continuation_token" => (key, json!("<token>")),
                            _ => (self.text(&key), self.normalize(value)),
                        })
                        .collect(),
                ),
                other => other,
            }
        }

        /// `text` with each UUID and each time in it replaced by its name.
        fn text(&mut self, text: &str) -> String {
            let mut out = String::new();
            let mut rest = text;
            while let Some((found, len, kind)) = find_uuid(rest).or_else(|| find_time(rest)) {
                out.push_str(&rest[..found]);
                let next = self.0.len();
                let name = self
                    .0
                    .entry(rest[found..found + len].to_owned())
                    .or_insert_with(|| format!("<{kind} {next}>"));
                out.push_str(name);
                rest = &rest[found + len..];
            }
            out.push_str(rest);
            out
        }
    }

    /// Where the first RFC 3339 time (`2026-01-02T03:04:05.678901Z`) in
    /// `text` starts, and its length.
    fn find_time(text: &str) -> Option<(usize, usize, &'static str)> {
        let bytes = text.as_bytes();
        (0..bytes.len().saturating_sub(26))
            .find(|&at| {
                let t = &bytes[at..at + 27];
                t[4] == b'-'
                    && t[10] == b'T'
                    && t[19] == b'.'
                    && t[26] == b'Z'
                    && t[..4].iter().all(u8::is_ascii_digit)
            })
            .map(|at| (at, 27, "time"))
    }

    /// Where the first UUID in `text` starts, and its length.
    fn find_uuid(text: &str) -> Option<(usize, usize, &'static str)> {
        (0..text.len().saturating_sub(35))
            .find(|&at| {
                text.is_char_boundary(at)
                    && text.is_char_boundary(at + 36)
                    && uuid::Uuid::try_parse(&text[at..at + 36]).is_ok()
            })
            .map(|at| (at, 36, "id"))
    }
}

// ----- the request docs/http-by-hand.md shows, sent as it stands ------------

/// The headers (`-H 'Name: value'`) and the body (`-d '…'`) of the first
/// `curl` block under `heading` in `page`, and the JSON the `text` block
/// after it shows as the answer's body.
fn documented_exchange(page: &str, heading: &str) -> (Vec<(String, String)>, String, Value) {
    let section = &page[page.find(heading).expect("the heading")..];
    let curl = section
        .split("```sh\n")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    let quoted = |line: &str| line.split('\'').nth(1).unwrap().to_owned();
    let mut headers = Vec::new();
    let mut body = None;
    for line in curl.lines().map(str::trim) {
        if line.starts_with("-H ") {
            let header = quoted(line);
            let (name, value) = header.split_once(": ").unwrap();
            headers.push((name.to_owned(), value.to_owned()));
        } else if line.starts_with("-d ") {
            body = Some(quoted(line));
        }
    }
    let shown = section
        .split("```text\n")
        .nth(1)
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    let answer = serde_json::from_str(shown.trim_end().lines().last().unwrap()).unwrap();
    (headers, body.expect("a -d body"), answer)
}

#[tokio::test]
async fn the_documented_2026_call_by_hand_is_answered_as_documented() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let page = include_str!("../../../docs/http-by-hand.md");
    let (headers, body, shown) = documented_exchange(page, "## A call on 2026-07-28");
    let names: Vec<&str> = headers.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        names,
        [
            "Content-Type",
            "Accept",
            "MCP-Protocol-Version",
            "Mcp-Method",
            "Mcp-Name"
        ]
    );

    let server = inventory::server(Db::open(None).unwrap()).build().unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let serving = tokio::spawn(server.serve_http(listener, async {
        let _ = stopped.await;
    }));

    let mut request = format!("POST /mcp HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (name, value) in &headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    request.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).await.unwrap();

    let (head, payload) = response.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200 OK"), "{response}");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: application/json"),
        "{head}"
    );
    let answer: Value = serde_json::from_str(payload).unwrap();
    assert_eq!(answer, shown);

    let _ = stop.send(());
    serving.await.unwrap().unwrap();
}
