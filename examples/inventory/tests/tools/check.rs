//! `inventory --check`: the built binary run on configurations made for
//! each finding, its lines and exit status read. Redis, PostgreSQL and an
//! OAuth issuer are the tests' own (a `redis-server` or a cluster on a free
//! port, or a port nothing listens on); without `redis-server` or
//! PostgreSQL a test fails under CI (`CI=true`) and is skipped, loudly,
//! elsewhere.

use std::path::PathBuf;
use std::process::{Command, Stdio};

/// What one run of `inventory --check ARGS` said.
struct Checked {
    /// The report: one line per check.
    lines: Vec<String>,
    /// Whether it exited 0.
    success: bool,
    /// Its exit status, for messages.
    code: Option<i32>,
    stderr: String,
}

impl Checked {
    /// The line of `check`, which the report must have.
    fn line(&self, check: &str) -> &str {
        self.lines
            .iter()
            .find(|line| {
                line.split_once(' ')
                    .and_then(|(_, rest)| rest.strip_prefix(check))
                    .is_some_and(|rest| rest.starts_with(": "))
            })
            .unwrap_or_else(|| panic!("no `{check}` line in:\n{self}"))
    }

    /// Asserts `check` came out `mark` (✓, ⚠, ✗), its line holding every
    /// one of `words`.
    fn assert(&self, check: &str, mark: char, words: &[&str]) {
        let line = self.line(check);
        assert!(line.starts_with(mark), "`{check}` is not {mark}:\n{self}");
        for word in words {
            assert!(
                line.contains(word),
                "`{word}` missing from `{check}`:\n{self}"
            );
        }
    }

    /// The marks of the report's lines, in order.
    fn marks(&self) -> String {
        self.lines
            .iter()
            .filter_map(|line| line.chars().next())
            .collect()
    }
}

impl std::fmt::Display for Checked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "exit {:?}", self.code)?;
        for line in &self.lines {
            writeln!(f, "{line}")?;
        }
        write!(f, "stderr: {}", self.stderr)
    }
}

fn check(args: &[&str]) -> Checked {
    let output = Command::new(env!("CARGO_BIN_EXE_inventory"))
        .arg("--check")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    Checked {
        lines: String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(str::to_owned)
            .collect(),
        success: output.status.success(),
        code: output.status.code(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// A port of 127.0.0.1 nothing listens on.
#[cfg(any(feature = "redis", feature = "oauth", feature = "postgres"))]
fn closed_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A path of the test's own in the temporary directory, removed first.
fn scratch(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("inventory-check-{name}-{}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let _ = std::fs::remove_dir_all(&path);
    path
}

#[test]
fn the_default_configuration_has_no_finding_and_exits_0() {
    let checked = check(&[]);
    assert!(checked.success, "{checked}");
    assert_eq!(checked.marks(), "✓✓✓✓", "{checked}");
    checked.assert("transport", '✓', &["stdio"]);
    checked.assert("store", '✓', &["this process's memory"]);
    checked.assert("output schemas", '✓', &[]);
    checked.assert("database", '✓', &["kept in this process's memory"]);
    // Nothing but the report: no serving, no log.
    assert_eq!(checked.stderr, "", "{checked}");
}

#[test]
fn http_on_loopback_without_authentication_has_no_finding() {
    let checked = check(&["--http", "127.0.0.1:0"]);
    assert!(checked.success, "{checked}");
    assert!(!checked.marks().contains(['⚠', '✗']), "{checked}");
    checked.assert("transport", '✓', &["127.0.0.1:0, a loopback address"]);
}

#[test]
fn http_on_every_interface_without_authentication_exits_1() {
    let checked = check(&["--http", "0.0.0.0:8080"]);
    assert!(!checked.success, "{checked}");
    assert_eq!(checked.code, Some(1), "{checked}");
    checked.assert(
        "transport",
        '✗',
        &[
            "HTTP on 0.0.0.0:8080 (every network interface) without authentication",
            "[inventory: --auth-token NAME=SECRET or --oauth-issuer URL, or --http 127.0.0.1:8080]",
        ],
    );
    // The memory store there is a warning of its own.
    checked.assert("store", '⚠', &["--store redis://HOST:PORT"]);
}

#[test]
fn the_memory_store_beyond_loopback_is_a_warning_that_exits_0() {
    let checked = check(&[
        "--http",
        "0.0.0.0:8080",
        "--auth-token",
        "ci=a-long-random-secret-of-ci",
    ]);
    assert!(checked.success, "{checked}");
    checked.assert(
        "transport",
        '✓',
        &["every request authenticated: static bearer tokens"],
    );
    checked.assert(
        "store",
        '⚠',
        &[
            "kept in this process's memory",
            "fails to redeem on any other",
            "[inventory: --store redis://HOST:PORT",
        ],
    );
    assert_eq!(checked.marks(), "✓⚠✓✓", "{checked}");
}

#[test]
fn output_schemas_are_a_warning_naming_their_bytes() {
    let checked = check(&["--output-schema"]);
    assert!(checked.success, "{checked}");
    checked.assert(
        "output schemas",
        '⚠',
        &[
            "an outputSchema for 11 of its 11 tools",
            "bytes of JSON",
            "[inventory: leave out --output-schema]",
        ],
    );
    if cfg!(feature = "usage") {
        checked.assert("output schemas", '⚠', &["cl100k_base"]);
    }
}

#[test]
fn a_sqlite_file_on_a_local_disk_passes_and_is_not_seeded() {
    let path = scratch("local.db");
    let db = path.to_str().unwrap();
    let checked = check(&["--db", db, "--seed", "5"]);
    assert!(checked.success, "{checked}");
    assert!(!checked.marks().contains(['⚠', '✗']), "{checked}");
    checked.assert(
        "database",
        '✓',
        &[&format!(
            "the SQLite file {db} opens and answers: 0 devices"
        )],
    );
    if cfg!(target_os = "linux") {
        checked.assert(
            "database disk",
            '✓',
            &[&format!("the SQLite file {db} is on a local filesystem")],
        );
    }
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{db}{suffix}"));
    }
}

#[test]
fn a_database_that_does_not_open_exits_1_and_the_rest_is_still_checked() {
    let path = scratch("no-such-dir").join("inventory.db");
    let checked = check(&["--db", path.to_str().unwrap()]);
    assert_eq!(checked.code, Some(1), "{checked}");
    checked.assert(
        "database",
        '✗',
        &["cannot open the database", "the server would not start"],
    );
    // The checks of the rest ran; a file that is not there is on no disk.
    checked.assert("store", '✓', &[]);
    assert!(
        !checked.lines.iter().any(|l| l.contains("database disk")),
        "{checked}"
    );
}

#[test]
fn a_flag_the_server_refuses_is_refused_as_when_serving() {
    let checked = check(&["--store", "redis://127.0.0.1:6379", "--store-max-mb", "8"]);
    assert_eq!(checked.code, Some(1), "{checked}");
    assert!(checked.lines.is_empty(), "{checked}");
    let refused = if cfg!(feature = "redis") {
        "maxmemory"
    } else {
        "`redis` feature"
    };
    assert!(checked.stderr.contains(refused), "{checked}");
}

#[cfg(feature = "redis")]
mod redis {
    use std::process::Child;
    use std::time::Duration;

    use super::*;

    /// A `redis-server` of the test's own on a free port, started with
    /// `settings`; stopped when dropped.
    struct Redis {
        port: u16,
        child: Child,
        dir: PathBuf,
    }

    impl Redis {
        /// `None` (skip) when `redis-server` is not installed, outside CI.
        fn start(name: &str, settings: &[&str]) -> Option<Redis> {
            let installed = Command::new("redis-server")
                .arg("--version")
                .stdout(Stdio::null())
                .status()
                .is_ok();
            if !installed {
                let message = "redis-server is not installed: the --check Redis tests cannot \
                               run (apt-get install redis-server; .ci/run installs it)";
                assert!(std::env::var("CI").as_deref() != Ok("true"), "{message}");
                eprintln!("\n*** SKIPPED: {message} ***");
                return None;
            }
            let port = closed_port();
            let dir = scratch(name);
            std::fs::create_dir_all(&dir).unwrap();
            let child = Command::new("redis-server")
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
                .arg("--dir")
                .arg(&dir)
                .args(settings)
                .stdout(Stdio::null())
                .spawn()
                .unwrap();
            // Stopped by its drop, should it never accept.
            let redis = Redis { port, child, dir };
            for _ in 0..200 {
                if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                    return Some(redis);
                }
                std::thread::sleep(Duration::from_millis(25));
            }
            panic!("redis-server did not start on port {port}");
        }

        fn url(&self) -> String {
            format!("redis://127.0.0.1:{}", self.port)
        }
    }

    impl Drop for Redis {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
            let _ = std::fs::remove_dir_all(&self.dir);
        }
    }

    #[test]
    fn a_redis_that_does_not_answer_exits_1_naming_the_store() {
        let port = closed_port();
        let url = format!("redis://127.0.0.1:{port}");
        let checked = check(&["--store", &url]);
        assert_eq!(checked.code, Some(1), "{checked}");
        checked.assert(
            "store",
            '✗',
            &[
                "Redis does not answer a PING",
                &format!("[inventory: --store {url}]"),
            ],
        );
        // A password stays out of the report.
        let checked = check(&["--store", &format!("redis://:s3cret@127.0.0.1:{port}/0")]);
        assert_eq!(checked.code, Some(1), "{checked}");
        checked.assert(
            "store",
            '✗',
            &[&format!(
                "[inventory: --store redis://…@127.0.0.1:{port}/0]"
            )],
        );
        assert!(!checked.to_string().contains("s3cret"), "{checked}");
    }

    #[test]
    fn a_redis_without_persistence_is_a_warning_that_exits_0() {
        let settings = ["--save", "", "--appendonly", "no"];
        let Some(redis) = Redis::start("no-persistence", &settings) else {
            return;
        };
        let checked = check(&["--store", &redis.url()]);
        assert!(checked.success, "{checked}");
        checked.assert("store", '✓', &["kept in Redis"]);
        checked.assert(
            "store persistence",
            '⚠',
            &[
                "appendonly no, save \"\"",
                "a restart of Redis drops every token",
                &format!("[inventory: the Redis of --store {}]", redis.url()),
            ],
        );
        checked.assert("store eviction", '✓', &["noeviction"]);
    }

    #[test]
    fn a_redis_that_may_evict_before_the_ttl_is_a_warning_that_exits_0() {
        let settings = [
            "--appendonly",
            "yes",
            "--maxmemory",
            "64mb",
            "--maxmemory-policy",
            "allkeys-lru",
        ];
        let Some(redis) = Redis::start("evicting", &settings) else {
            return;
        };
        let checked = check(&["--store", &redis.url()]);
        assert!(checked.success, "{checked}");
        checked.assert("store persistence", '✓', &["appendonly yes"]);
        checked.assert(
            "store eviction",
            '⚠',
            &[
                "maxmemory-policy allkeys-lru, maxmemory 64.00M",
                "set maxmemory-policy noeviction",
            ],
        );
    }

    #[test]
    fn replicas_on_a_persistent_redis_with_authentication_have_no_finding() {
        let settings = [
            "--appendonly",
            "yes",
            "--maxmemory",
            "64mb",
            "--maxmemory-policy",
            "noeviction",
        ];
        let Some(redis) = Redis::start("production", &settings) else {
            return;
        };
        let db = scratch("replica.db");
        let checked = check(&[
            "--http",
            "0.0.0.0:8080",
            "--store",
            &redis.url(),
            "--auth-token",
            "ci=a-long-random-secret-of-ci",
            "--db",
            db.to_str().unwrap(),
        ]);
        assert!(checked.success, "{checked}");
        assert!(!checked.marks().contains(['⚠', '✗']), "{checked}");
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
        }
    }
}

#[cfg(feature = "oauth")]
#[test]
fn an_oauth_issuer_that_does_not_answer_exits_1() {
    let issuer = format!("http://127.0.0.1:{}", closed_port());
    let checked = check(&[
        "--http",
        "127.0.0.1:0",
        "--oauth-issuer",
        &issuer,
        "--oauth-audience",
        "http://127.0.0.1:8080/mcp",
    ]);
    assert_eq!(checked.code, Some(1), "{checked}");
    checked.assert(
        "transport",
        '✓',
        &[&format!("OAuth access tokens of {issuer}")],
    );
    checked.assert(
        "oauth issuer",
        '✗',
        &[
            &format!("the OAuth issuer {issuer} gives no keys"),
            "Connection refused",
            "[inventory: --oauth-issuer, or --oauth-jwks-url]",
        ],
    );
}

#[cfg(feature = "postgres")]
mod postgresql {
    use super::*;
    use crate::pg_server::PgServer;

    #[test]
    fn a_postgresql_that_does_not_answer_exits_1_without_its_password() {
        let url = format!(
            "postgres://app:s3cret@127.0.0.1:{}/inventory",
            closed_port()
        );
        let checked = check(&["--db", &url]);
        assert_eq!(checked.code, Some(1), "{checked}");
        checked.assert(
            "database",
            '✗',
            &["cannot open the PostgreSQL database", "Connection refused"],
        );
        assert!(!checked.to_string().contains("s3cret"), "{checked}");
    }

    #[test]
    fn a_postgresql_that_answers_passes() {
        let Some(pg) = PgServer::start("check") else {
            return;
        };
        let checked = check(&["--db", &pg.url()]);
        assert!(checked.success, "{checked}");
        checked.assert(
            "database",
            '✓',
            &["PostgreSQL at 127.0.0.1:", "answers: 0 devices"],
        );
        assert!(
            !checked.lines.iter().any(|l| l.contains("database disk")),
            "{checked}"
        );
    }
}
