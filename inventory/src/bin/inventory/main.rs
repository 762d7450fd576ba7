//! A network-inventory MCP server on SQLite: the flagship example of
//! mcp-light.
//!
//! ```text
//! cargo run -p inventory                                 # stdio, in-memory database
//! cargo run -p inventory -- --db inventory.db            # stdio, a file
//! cargo run -p inventory -- --http 127.0.0.1:8080        # Streamable HTTP at /mcp
//! cargo run -p inventory -- --seed 500                   # 4 sites and 500 devices first
//! ```
//!
//! stdout is the MCP channel on stdio, so everything this program says goes
//! to stderr. The tools, the database and the fixture are the `inventory`
//! library's; this binary reads the command line and serves.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use inventory::db::{self, Db};
use inventory::fixture;

const USAGE: &str = "\
Usage: inventory [--db PATH] [--http ADDR] [--seed N]

A network-inventory MCP server (devices and sites) on SQLite.

Options:
  --db PATH     keep the inventory in the SQLite file PATH (default: in memory)
  --http ADDR   serve Streamable HTTP at http://ADDR/mcp instead of stdio;
                port 0 picks a free port, printed on stderr
  --seed N      create the 4 fixture sites and N fixture devices first
  -h, --help    print this help";

/// What the command line asked for.
#[derive(Debug, Default, PartialEq)]
struct Options {
    db: Option<PathBuf>,
    http: Option<SocketAddr>,
    seed: Option<usize>,
}

fn main() -> ExitCode {
    let options = match parse_args(std::env::args().skip(1)) {
        Ok(Some(options)) => options,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("inventory: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("inventory: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(options)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("inventory: {message}");
            ExitCode::FAILURE
        }
    }
}

async fn run(options: Options) -> Result<(), String> {
    let db = Db::open(options.db.as_deref()).map_err(|e| match &options.db {
        Some(path) => format!("cannot open the database {}: {e}", path.display()),
        None => format!("cannot open an in-memory database: {e}"),
    })?;
    if let Some(count) = options.seed {
        db.run_now(|conn| {
            db::ensure_sites(conn, fixture::new_sites())?;
            db::create_devices(conn, fixture::new_devices(count, 1))
        })
        .map_err(|e| format!("cannot seed the database: {e}"))?;
        eprintln!("inventory: seeded the 4 fixture sites and {count} devices");
    }
    let devices = db
        .run_now(db::count_devices)
        .map_err(|e| format!("cannot read the database: {e}"))?;
    eprintln!("inventory: the database holds {devices} devices");
    let server = inventory::server(db).map_err(|e| e.to_string())?;

    match options.http {
        None => {
            eprintln!("inventory: serving MCP on stdio");
            server.serve_stdio().await.map_err(|e| e.to_string())
        }
        Some(addr) => {
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .map_err(|e| format!("cannot listen on {addr}: {e}"))?;
            let bound = listener.local_addr().map_err(|e| e.to_string())?;
            eprintln!("inventory: serving MCP over Streamable HTTP at http://{bound}/mcp");
            let shutdown = async {
                // If the signal cannot be installed, serve until killed.
                if tokio::signal::ctrl_c().await.is_err() {
                    std::future::pending::<()>().await;
                }
                eprintln!("inventory: ctrl-c, shutting down");
            };
            server
                .serve_http(listener, shutdown)
                .await
                .map_err(|e| e.to_string())
        }
    }
}

/// Reads the arguments after the program name; `Ok(None)` asks for help.
fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Option<Options>, String> {
    let mut options = Options::default();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        // Both `--db PATH` and `--db=PATH`.
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag.to_owned(), Some(value.into())),
            _ => (arg, None),
        };
        let mut value = |what: &str| {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{flag} needs {what}"))
        };
        match flag.as_str() {
            "-h" | "--help" => return Ok(None),
            "--db" => options.db = Some(PathBuf::from(value("a file path")?)),
            "--http" => {
                let addr = value("an address such as 127.0.0.1:8080")?;
                let addr = addr.parse().map_err(|_| {
                    format!("--http needs an address such as 127.0.0.1:8080, not {addr:?}")
                })?;
                options.http = Some(addr);
            }
            "--seed" => {
                let count = value("a number of devices")?;
                let count = count
                    .parse()
                    .map_err(|_| format!("--seed needs a number of devices, not {count:?}"))?;
                options.seed = Some(count);
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(Some(options))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Option<Options>, String> {
        parse_args(args.iter().map(|a| a.to_string()))
    }

    #[test]
    fn reads_every_flag_in_both_forms() {
        let options = parse(&["--db", "x.db", "--http=127.0.0.1:0", "--seed", "5"])
            .unwrap()
            .unwrap();
        assert_eq!(
            options,
            Options {
                db: Some("x.db".into()),
                http: Some("127.0.0.1:0".parse().unwrap()),
                seed: Some(5),
            }
        );
        assert_eq!(parse(&[]).unwrap(), Some(Options::default()));
        assert_eq!(parse(&["--help"]).unwrap(), None);
    }

    #[test]
    fn says_what_is_wrong() {
        assert_eq!(parse(&["--db"]).unwrap_err(), "--db needs a file path");
        assert_eq!(
            parse(&["--http", "localhost"]).unwrap_err(),
            "--http needs an address such as 127.0.0.1:8080, not \"localhost\""
        );
        assert_eq!(
            parse(&["--seed=many"]).unwrap_err(),
            "--seed needs a number of devices, not \"many\""
        );
        assert_eq!(
            parse(&["--verbose"]).unwrap_err(),
            "unknown argument \"--verbose\""
        );
    }
}
