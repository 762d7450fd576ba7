//! A `redis-server` of a benchmark's own: no persistence, on a free port of
//! 127.0.0.1, stopped when dropped. Shared by the examples that measure
//! against Redis (`#[path = "common/own_redis.rs"] mod own_redis;`).

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// The server, killed and reaped when dropped.
pub struct OwnRedis(Child);

impl Drop for OwnRedis {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts one in `dir` (where it would write, were persistence on) and
/// waits until it accepts; its URL and the server.
pub fn start_redis(dir: &Path) -> (String, OwnRedis) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
        .to_string();
    // Owned at once, so it is stopped on every path, the panic below too.
    let own = OwnRedis(
        Command::new("redis-server")
            .args(["--port", &port, "--bind", "127.0.0.1", "--save", ""])
            .args(["--appendonly", "no"])
            .current_dir(dir)
            .stdout(Stdio::null())
            .spawn()
            .expect("redis-server on the PATH (apt-get install redis-server), or set REDIS_URL"),
    );
    let addr = format!("127.0.0.1:{port}");
    for _ in 0..100 {
        if std::net::TcpStream::connect(&addr).is_ok() {
            return (format!("redis://{addr}"), own);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("redis-server did not start on {addr}");
}
