"""Server CPU per 2026-07-28 `tools/call` over Streamable HTTP.

Starts an inventory binary (in-memory database: ten tools and the
`inventory` dispatcher published), makes CALLS sequential `tools/call`
requests of `site_list` on one keep-alive connection, and prints the
server's CPU time per call, read from /proc before and after. The client's
own time is not in the figure; the server's fixed costs are left out by a
warm-up of WARMUP calls first.

    python3 examples/inventory/benches/http_call_cpu.py BINARY [CALLS]

BENCHMARKS.md runs it on two builds side by side.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import sys
import time

WARMUP = 500
TOOL = "site_list"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid: int) -> float:
    """utime + stime of `pid` (and its threads), in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12])
    return ticks / os.sysconf("SC_CLK_TCK")


def body(call_id: int) -> bytes:
    return json.dumps(
        {
            "jsonrpc": "2.0",
            "id": call_id,
            "method": "tools/call",
            "params": {
                "name": TOOL,
                "arguments": {},
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "1"},
                    "io.modelcontextprotocol/clientCapabilities": {},
                },
            },
        }
    ).encode()


def main() -> None:
    binary = sys.argv[1]
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
    port = free_port()
    server = subprocess.Popen(
        [binary, "--http", f"127.0.0.1:{port}"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                conn.connect()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("the server did not listen within 30 s")
                time.sleep(0.05)
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2026-07-28",
            "Mcp-Method": "tools/call",
            "Mcp-Name": TOOL,
        }

        def one(call_id: int) -> None:
            conn.request("POST", "/mcp", body(call_id), headers)
            response = conn.getresponse()
            payload = response.read()
            if response.status != 200 or b'"isError":true' in payload:
                raise SystemExit(f"call {call_id}: {response.status} {payload[:300]!r}")

        for i in range(WARMUP):
            one(i)
        before = cpu_seconds(server.pid)
        started = time.monotonic()
        for i in range(calls):
            one(WARMUP + i)
        wall = time.monotonic() - started
        used = cpu_seconds(server.pid) - before
        print(
            f"{binary}: {calls} calls, server CPU {used * 1e6 / calls:.1f} µs/call, "
            f"{calls / wall:.0f} calls/s on one connection"
        )
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
