"""A real `redis-server` for the tests: started on 127.0.0.1 at a free port,
killed and started again on the same port, stopped at the end; or three of
them joined into a Redis Cluster.

Under CI (`CI=true`) a missing `redis-server` fails the tests that need
it; elsewhere they are skipped, loudly.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def require_program(program: str, tests: str) -> str:
    """The path of `program` (a Debian package of the same name), or a
    failure under CI and a loud skip elsewhere: `tests` cannot run."""
    path = shutil.which(program)
    if path:
        return path
    message = (
        f"{program} is not installed: {tests} cannot run "
        f"(apt-get install {program}; .ci/run installs it)"
    )
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    print(f"\n*** SKIPPED: {message} ***", file=sys.stderr)
    pytest.skip(message)


def require_redis_server() -> str:
    """The path of `redis-server`, or a failure (CI) or skip (elsewhere)."""
    return require_program("redis-server", "the Redis tests")


class RedisServer:
    """One redis-server process on 127.0.0.1:`port`: without persistence,
    or, when `persistent`, with an append-only file synced at every write
    (in a directory of its own), so what it held survives a kill and a
    `start` on the same port."""

    def __init__(self, persistent: bool = False, extra: tuple[str, ...] = ()):
        self.binary = require_redis_server()
        self.port = free_port()
        self.process: subprocess.Popen | None = None
        self.dir = tempfile.TemporaryDirectory(prefix="redis-test-")
        self.options = ["--dir", self.dir.name, "--save", ""]
        if persistent:
            self.options += ["--appendonly", "yes", "--appendfsync", "always"]
        else:
            self.options += ["--appendonly", "no"]
        self.options += list(extra)
        self.start()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"

    def start(self) -> None:
        """Starts it on its port (again, after `kill`) and waits until it
        answers."""
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1",
             "--protected-mode", "no", *self.options],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                if self.command("PING") == "PONG":
                    return
            except (OSError, RuntimeError):  # not listening yet; -LOADING
                time.sleep(0.01)
        raise RuntimeError(f"redis-server did not answer on port {self.port}")

    def kill(self) -> None:
        """SIGKILL, as a crash would."""
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def stop(self) -> None:
        self.kill()
        self.dir.cleanup()

    def command(self, *args: str):
        """One command over RESP; the reply as Python values."""
        return command(self.port, *args)


class RedisCluster:
    """Three redis-server masters on 127.0.0.1 joined into one Redis Cluster
    (`redis-cli --cluster create`), no persistence; `store` is the
    inventory's `--store` value for it."""

    def __init__(self, masters: int = 3):
        self.nodes = [
            RedisServer(extra=("--cluster-enabled", "yes",
                               "--cluster-port", str(free_port())))
            for _ in range(masters)
        ]  # fmt: skip
        cli = shutil.which("redis-cli")
        assert cli, "redis-cli is missing beside redis-server (the redis-server package ships it)"
        subprocess.run(
            [cli, "--cluster", "create", *(f"127.0.0.1:{n.port}" for n in self.nodes),
             "--cluster-replicas", "0", "--cluster-yes"],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30,
        )  # fmt: skip
        deadline = time.monotonic() + 20
        while not all("cluster_state:ok" in n.command("CLUSTER", "INFO") for n in self.nodes):
            if time.monotonic() > deadline:
                raise RuntimeError("the Redis Cluster did not reach cluster_state:ok in 20 s")
            time.sleep(0.05)

    @property
    def store(self) -> str:
        return "redis-cluster://" + ",".join(f"127.0.0.1:{n.port}" for n in self.nodes)

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()


def command(port: int, *args: str):
    """One command to the Redis on `port`, over RESP; the reply as Python
    values."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        wire = f"*{len(args)}\r\n" + "".join(f"${len(a.encode())}\r\n{a}\r\n" for a in args)
        s.sendall(wire.encode())
        return _read_reply(s.makefile("rb"))


def _read_reply(f):
    line = f.readline().rstrip(b"\r\n")
    kind, rest = line[:1], line[1:].decode()
    if kind == b"+":
        return rest
    if kind == b"-":
        raise RuntimeError(rest)
    if kind == b":":
        return int(rest)
    if kind == b"$":
        n = int(rest)
        if n < 0:
            return None
        data = f.read(n + 2)[:-2]
        return data.decode(errors="replace")
    if kind == b"*":
        return [_read_reply(f) for _ in range(int(rest))]
    raise RuntimeError(f"unexpected reply {line!r}")
