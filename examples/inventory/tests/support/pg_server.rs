//! A PostgreSQL server of a test's own: `initdb` and `pg_ctl` from
//! Debian's `postgresql` package (`/usr/lib/postgresql/*/bin`), a cluster in
//! a temporary directory, listening on 127.0.0.1 at a free port, run as the
//! `postgres` user when the tests run as root (PostgreSQL refuses root).
//! Stopped, and its directory removed, when dropped.
//!
//! Under `CI=true` a missing server fails the test; elsewhere the test
//! skips, loudly.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A running PostgreSQL cluster; `url` names its `postgres` database.
pub struct PgServer {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    as_root: bool,
}

impl PgServer {
    /// Starts a cluster for the test `name`; `None` (after a loud message)
    /// where PostgreSQL is not installed, outside CI.
    pub fn start(name: &str) -> Option<PgServer> {
        let Some(bin) = postgres_bin() else {
            let message = "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): \
                           the PostgreSQL tests cannot run (apt-get install postgresql; \
                           .ci/run installs it)";
            if std::env::var("CI").as_deref() == Ok("true") {
                panic!("{message}");
            }
            eprintln!("\n*** SKIPPED: {message} ***");
            return None;
        };
        let dir = std::env::temp_dir().join(format!("inventory-pg-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        // SAFETY: geteuid has no preconditions.
        let as_root = unsafe { geteuid() } == 0;
        let server = PgServer {
            bin,
            port: free_port(),
            dir,
            as_root,
        };
        if as_root {
            run(Command::new("chown")
                .args(["-R", "postgres:postgres"])
                .arg(&server.dir));
        }
        run(server
            .command("initdb")
            .args([
                "--auth=trust",
                "--username=postgres",
                "--encoding=UTF8",
                "--no-sync",
                "-D",
            ])
            .arg(server.dir.join("data")));
        let options = format!(
            "-c listen_addresses=127.0.0.1 -c port={} -c unix_socket_directories={} \
             -c fsync=off -c max_connections=100",
            server.port,
            server.dir.display()
        );
        run(server
            .command("pg_ctl")
            .args(["-w", "-t", "60", "-o", &options, "-l"])
            .arg(server.dir.join("log"))
            .arg("-D")
            .arg(server.dir.join("data"))
            .arg("start"));
        Some(server)
    }

    /// The URL of the cluster's `postgres` database.
    pub fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    fn command(&self, program: &str) -> Command {
        let program = self.bin.join(program);
        if self.as_root {
            let mut command = Command::new("runuser");
            command.args(["-u", "postgres", "--"]).arg(program);
            command
        } else {
            Command::new(program)
        }
    }
}

impl Drop for PgServer {
    fn drop(&mut self) {
        let _ = self
            .command("pg_ctl")
            .args(["-m", "immediate", "-w", "-D"])
            .arg(self.dir.join("data"))
            .arg("stop")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The newest `/usr/lib/postgresql/N/bin` that has `initdb`.
fn postgres_bin() -> Option<PathBuf> {
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .ok()?
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let version = entry.file_name().to_str()?.parse().ok()?;
            let bin = entry.path().join("bin");
            Path::new(&bin.join("initdb"))
                .exists()
                .then_some((version, bin))
        })
        .collect();
    versions.sort();
    versions.pop().map(|(_, bin)| bin)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn run(command: &mut Command) {
    let output = command.output().unwrap();
    assert!(
        output.status.success(),
        "{command:?} failed: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

unsafe extern "C" {
    fn geteuid() -> u32;
}
