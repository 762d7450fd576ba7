"""A real PostgreSQL server for the tests: `initdb` and `pg_ctl` from
Debian's `postgresql` package (`/usr/lib/postgresql/*/bin`), a cluster in
a temporary directory, on 127.0.0.1 at a free port, run as the `postgres`
user when the tests run as root (PostgreSQL refuses to run as root).

Under CI (`CI=true`) a missing PostgreSQL fails the tests that need it;
elsewhere they are skipped, loudly.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

from redis_server import free_port


def require_postgres_bin() -> str:
    """The newest `/usr/lib/postgresql/N/bin` with `initdb`, or a failure
    (CI) or a loud skip (elsewhere)."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda path: int(path.split("/")[4]) if path.split("/")[4].isdigit() else 0,
    )
    if found:
        return os.path.dirname(found[-1])
    message = (
        "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): the PostgreSQL "
        "tests cannot run (apt-get install postgresql; .ci/run installs it)"
    )
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    print(f"\n*** SKIPPED: {message} ***", file=sys.stderr)
    pytest.skip(message)


class PostgresServer:
    """One PostgreSQL cluster of the test's own; `url` names its `postgres`
    database."""

    def __init__(self):
        self.bin = require_postgres_bin()
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix="inventory-pg-")
        self.as_root = os.geteuid() == 0
        if self.as_root:
            shutil.chown(self.dir, "postgres", "postgres")
        data = os.path.join(self.dir, "data")
        self._run("initdb", "--auth=trust", "--username=postgres", "--encoding=UTF8",
                  "--no-sync", "-D", data)  # fmt: skip
        options = (
            f"-c listen_addresses=127.0.0.1 -c port={self.port} "
            f"-c unix_socket_directories={self.dir} -c fsync=off"
        )
        self._run("pg_ctl", "-w", "-t", "60", "-o", options,
                  "-l", os.path.join(self.dir, "log"), "-D", data, "start")  # fmt: skip

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/postgres"

    def _command(self, program: str, *args: str) -> list[str]:
        command = [os.path.join(self.bin, program), *args]
        return ["runuser", "-u", "postgres", "--", *command] if self.as_root else command

    def _run(self, program: str, *args: str) -> None:
        subprocess.run(self._command(program, *args), check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=120)  # fmt: skip

    def stop(self) -> None:
        subprocess.run(
            self._command("pg_ctl", "-m", "immediate", "-w", "-D",
                          os.path.join(self.dir, "data"), "stop"),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60,
        )  # fmt: skip
        shutil.rmtree(self.dir, ignore_errors=True)
