"""Telemetry: the request metrics scraped by a real Prometheus (`--metrics`),
one JSON line per request on stderr carrying the caller's trace id
(`--log-format json`), traces and metrics sent over OTLP/HTTP
(`--otlp-endpoint`) to a collector stand-in that records what it is sent.

Prometheus is Debian's `prometheus`, started by the test on a free port
with a scrape config of its own. Under CI (`CI=true`) a missing one fails
the test; elsewhere it is skipped, loudly.
"""

from __future__ import annotations

import json
import re
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from inventory_client import HttpServer, Inventory, log, new_devices
from redis_server import free_port, require_program

pytestmark = pytest.mark.anyio

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
TRACEPARENT = f"00-{TRACE_ID}-00f067aa0ba902b7-01"


def get(url: str) -> tuple[int, str, str]:
    """Status, content type and body of a GET."""
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.headers["Content-Type"], response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.headers["Content-Type"], error.read().decode()


def metrics_url(server: HttpServer) -> str:
    """The `/metrics` URL the server printed (it binds port 0)."""
    for line in server.stderr:
        found = re.search(r"Prometheus metrics at (http://127\.0\.0\.1:\d+/metrics)", line)
        if found:
            return found.group(1)
    raise AssertionError("no metrics address on stderr:\n" + "".join(server.stderr))


async def calls(inventory: Inventory) -> None:
    """A bulk create, a device create and a read, through the flat tools."""
    await inventory.create_site()
    written = await inventory.ok("device_bulk_create", {"devices": new_devices(40)})
    assert written["accepted"] == 40
    one = new_devices(1, prefix="single")[0]
    created = await inventory.ok("device_create", {"device": one})
    read = await inventory.ok("device_retrieve", {"id": created["id"]})
    assert read["name"] == one["name"]


# --- Prometheus ----------------------------------------------------------


class Prometheus:
    """A `prometheus` of the test's own on 127.0.0.1 at a free port,
    scraping `target` (HOST:PORT, path /metrics) every second, its data
    in a temporary directory."""

    def __init__(self, target: str):
        binary = require_program("prometheus", "the Prometheus scrape test")
        self.dir = tempfile.TemporaryDirectory(prefix="prometheus-test-")
        config = Path(self.dir.name) / "prometheus.yml"
        config.write_text(
            "global:\n"
            "  scrape_interval: 1s\n"
            "  evaluation_interval: 1s\n"
            "scrape_configs:\n"
            "  - job_name: inventory\n"
            "    scrape_interval: 1s\n"
            "    scrape_timeout: 1s\n"
            "    static_configs:\n"
            f"      - targets: ['{target}']\n"
        )
        self.port = free_port()
        self.log = open(Path(self.dir.name) / "prometheus.log", "w+")
        self.process = subprocess.Popen(
            [binary, f"--config.file={config}",
             f"--storage.tsdb.path={Path(self.dir.name) / 'data'}",
             f"--web.listen-address=127.0.0.1:{self.port}"],
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=subprocess.STDOUT,
        )  # fmt: skip

    def query(self, promql: str) -> list[dict[str, Any]]:
        """The instant vector `promql` evaluates to now."""
        url = f"http://127.0.0.1:{self.port}/api/v1/query?" + urllib.parse.urlencode(
            {"query": promql}
        )
        with urllib.request.urlopen(url, timeout=5) as response:
            answer = json.load(response)
        assert answer["status"] == "success", answer
        return answer["data"]["result"]

    def value(self, promql: str, timeout: float = 30.0) -> float:
        """The one sample `promql` evaluates to, once it has one."""
        deadline = time.monotonic() + timeout
        while True:
            if self.process.poll() is not None:
                raise AssertionError(f"prometheus exited {self.process.returncode}:\n{self.output()}")
            try:
                result = self.query(promql)
            except (OSError, urllib.error.URLError):  # not listening yet
                result = []
            if result:
                assert len(result) == 1, result
                return float(result[0]["value"][1])
            if time.monotonic() > deadline:
                raise AssertionError(f"no sample for {promql} in {timeout:.0f} s:\n{self.output()}")
            time.sleep(0.25)

    def output(self) -> str:
        self.log.seek(0)
        return self.log.read()[-4000:]

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.log.close()
        self.dir.cleanup()


async def test_prometheus_scrapes_the_request_durations_and_answer_and_full_bytes_per_tool():
    server = HttpServer("--metrics", "127.0.0.1:0")
    prometheus = None
    try:
        async with server.session() as inventory:
            await calls(inventory)
        url = metrics_url(server)
        status, content_type, text = get(url)
        assert status == 200 and content_type.startswith("text/plain"), (status, content_type)
        # The units the runtime describes become Prometheus' suffixes.
        assert "# TYPE mcp_server_operation_duration_seconds histogram" in text, text
        assert "# TYPE mcp_light_answer_bytes_total counter" in text, text
        assert "# TYPE mcp_light_calls_total counter" in text, text

        prometheus = Prometheus(urllib.parse.urlsplit(url).netloc)
        assert prometheus.value('up{job="inventory"}') == 1
        durations = prometheus.value(
            'mcp_server_operation_duration_seconds_count{job="inventory",'
            'mcp_method_name="tools/call",gen_ai_tool_name="device_bulk_create"}'
        )
        assert durations >= 1
        answer = prometheus.value(
            'sum(mcp_light_answer_bytes_total{gen_ai_tool_name="device_bulk_create"})'
        )
        full = prometheus.value(
            'sum(mcp_light_full_bytes_total{gen_ai_tool_name="device_bulk_create"})'
        )
        assert 0 < answer < full, (answer, full)
        created = prometheus.value('sum(mcp_light_calls_total{gen_ai_tool_name="device_create"})')
        assert created >= 1
        log(f"prometheus: bulk create answered {answer:.0f} bytes for {full:.0f} full")
    finally:
        if prometheus:
            prometheus.stop()
        server.stop()


# --- JSON logs -----------------------------------------------------------


def request_lines(server: HttpServer) -> list[dict[str, Any]]:
    """The JSON lines the server wrote for requests that ended."""
    lines = []
    for line in list(server.stderr):
        if not line.startswith("{"):
            continue  # the inventory's own sentences ("serving … at …")
        record = json.loads(line)
        if record.get("span", {}).get("name") == "mcp.request" and (
            record["fields"].get("message") == "close"
        ):
            lines.append(record)
    return lines


async def create_in_callers_trace(inventory: Inventory, prefix: str) -> None:
    """A site, then one device created with the caller's `traceparent` in
    the request's `_meta`."""
    await inventory.create_site()
    result = await inventory.session.call_tool(
        "device_create",
        {"device": new_devices(1, prefix=prefix)[0]},
        meta={"traceparent": TRACEPARENT},
    )
    assert not result.is_error, result


async def test_json_logs_write_a_line_per_request_with_the_callers_trace_id():
    server = HttpServer("--log-format", "json")
    try:
        async with server.session() as inventory:
            await create_in_callers_trace(inventory, "traced")
            deadline = time.monotonic() + 10
            while True:
                ours = [
                    record["span"]
                    for record in request_lines(server)
                    if record["span"].get("gen_ai.tool.name") == "device_create"
                ]
                if ours or time.monotonic() > deadline:
                    break
                time.sleep(0.05)
    finally:
        server.stop()
    stderr = "".join(server.stderr)
    assert len(ours) == 1, stderr
    span = ours[0]
    assert span["mcp.method.name"] == "tools/call", span
    assert span["otel.name"] == "tools/call device_create", span
    assert span["trace_id"] == TRACE_ID, span
    assert span["mcp_light.outcome"], span
    # Every line on stderr is JSON or one of the inventory's own sentences.
    for line in server.stderr:
        assert line.startswith("{") or line.startswith("inventory: "), line
    log(f"json log line of device_create: {json.dumps(span)}")


# --- OTLP ----------------------------------------------------------------


class Collector:
    """An OTLP/HTTP receiver stand-in on a free port: records the body of
    every POST by path and answers 200 with an empty protobuf message."""

    def __init__(self):
        self.posts: list[tuple[str, str, bytes]] = []
        posts = self.posts

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                posts.append((self.path, self.headers.get("Content-Type", ""), body))
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def bodies(self, path: str) -> list[bytes]:
        return [body for p, _, body in self.posts if p == path]

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


async def test_otlp_sends_the_request_span_in_the_callers_trace_and_the_metrics_at_shutdown():
    collector = Collector()
    # Both exporters at once: the metrics reach Prometheus' and OTLP's.
    server = HttpServer("--otlp-endpoint", collector.url, "--metrics", "127.0.0.1:0")
    try:
        async with server.session() as inventory:
            await create_in_callers_trace(inventory, "otlp")
        _, _, text = get(metrics_url(server))
        assert 'mcp_light_calls_total{gen_ai_tool_name="device_create"' in text, text
        # Gracefully: the server drains, then the providers send what they hold.
        code = server.stop(timeout=30)
    finally:
        server.stop()
        collector.stop()
    stderr = "".join(server.stderr)
    assert code == 0, f"exit status {code}:\n{stderr}"
    assert {content_type for _, content_type, _ in collector.posts} == {"application/x-protobuf"}
    traces = collector.bodies("/v1/traces")
    ours = [body for body in traces if b"tools/call device_create" in body]
    assert ours, f"no span named `tools/call device_create` in {len(traces)} trace posts:\n{stderr}"
    assert any(bytes.fromhex(TRACE_ID) in body for body in ours), "the span left the caller's trace"
    # The resource's KeyValue, as protobuf encodes it.
    service = b"\n\x0cservice.name\x12\x0b\n\x09inventory"
    assert any(service in body for body in ours), "service.name is not `inventory`"
    metrics = collector.bodies("/v1/metrics")
    assert any(b"mcp.server.operation.duration" in body for body in metrics), (
        f"{len(metrics)} metrics posts, none with mcp.server.operation.duration"
    )
    log(f"otlp: {len(traces)} trace posts, {len(metrics)} metrics posts")
