"""Start the inventory example and talk to it with the official MCP client.

The tests drive the real binary over stdio and over Streamable HTTP, exactly
as an MCP host would: `$INVENTORY_BIN`, which `run.sh` sets to the binary it
just built, or else `target/debug/inventory` under the repository root.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import urllib.parse
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

REPO = Path(__file__).resolve().parents[4]
BINARY = Path(
    os.environ.get("INVENTORY_BIN", REPO / "target" / "debug" / "inventory")
)
# A single large answer (3,000 devices, ~2 MB) must arrive well within this.
READ_TIMEOUT = 60.0

SITE = {"name": "Python Lab", "slug": "py-lab"}

# What the server answers a client it does not know, such as this one (the
# Python SDK names itself `mcp` in `clientInfo`): at most 10,000 bytes of
# compact `structuredContent`, the smallest cut of a known MCP client.
KEEPS = 10_000


def compact_bytes(value: Any) -> int:
    """Bytes of `value`'s compact JSON, as a client hands it to its model
    (and as the server measures an answer and `data_size`)."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def assert_fits(structured: Any, keeps: int = KEEPS, what: str = "the answer") -> int:
    """`structured` (an answer's `structuredContent`) is within what the
    client keeps; its size."""
    size = compact_bytes(structured)
    assert size <= keeps, f"{what} is {size} bytes of structuredContent, over the {keeps} the client keeps"
    return size


class Inventory:
    """A client session with JSON-in, JSON-out helpers.

    `keeps` is what the server is told (or defaults to) this client keeps
    of an answer: every successful answer `ok` reads is checked to fit it.
    A test that starts the server with `--unknown-client-bytes` sets it to
    match."""

    def __init__(self, session: ClientSession, keeps: int = KEEPS):
        self.session = session
        self.keeps = keeps

    async def call(self, tool: str, arguments: dict[str, Any] | None = None):
        """The raw `CallToolResult`."""
        return await self.session.call_tool(tool, arguments or {})

    async def ok(self, tool: str, arguments: dict[str, Any] | None = None) -> Any:
        """The JSON a successful call answers (text content), checked against
        `structuredContent` (an object; a non-object is wrapped as
        `{"result": ...}`)."""
        result = await self.call(tool, arguments)
        text = _text(result)
        assert not result.is_error, f"{tool} failed: {text}"
        value = json.loads(text)
        expected = value if isinstance(value, dict) else {"result": value}
        assert result.structured_content == expected, "text and structuredContent differ"
        assert_fits(result.structured_content, self.keeps, f"{tool}'s answer")
        return value

    async def error(self, tool: str, arguments: dict[str, Any] | None = None) -> str:
        """The message of a call that must fail."""
        result = await self.call(tool, arguments)
        text = _text(result)
        assert result.is_error, f"{tool} should have failed, answered: {text[:300]}"
        return text

    async def create_site(self) -> dict[str, Any]:
        return await self.ok("site_create", {"site": SITE})

    async def device_count(self) -> int:
        """How many devices exist, read honestly through `device_list`: its
        probe's token, redeemed for one item, tells the `total`; a list
        within the inline budget answers itself and is counted as it is."""
        probe = await self.ok("device_list")
        if isinstance(probe, list):
            return len(probe)
        page = await self.ok(
            "device_list",
            {"continuation_token": probe["continuation_token"], "page_size": 1},
        )
        return page["total"]


def _text(result) -> str:
    assert result.content and result.content[0].type == "text", result
    return result.content[0].text


def new_devices(n: int, site: str = SITE["slug"], prefix: str = "py") -> list[dict[str, Any]]:
    """`n` realistic new devices at `site`, named `{prefix}-leaf-0001`..."""
    roles = [
        ("leaf", "Arista DCS-7050CX3-32S", "arista-eos", "JPE"),
        ("spine", "Arista DCS-7280CR3-32P4", "arista-eos", "JAS"),
        ("firewall", "Palo Alto PA-5220", "panos", "0130"),
    ]
    devices = []
    for i in range(n):
        role, device_type, platform, serial = roles[i % len(roles)]
        devices.append(
            {
                "name": f"{prefix}-{role}-{i + 1:04}",
                "site_slug": site,
                "role": role,
                "device_type": device_type,
                "platform": platform,
                "serial": f"{serial}{i * 7919 % 10**8:08}",
                "asset_tag": f"AT-{prefix}-{i + 1:05}",
                "status": "active",
                "rack": f"C{i % 24 + 1:02}",
                "position": i % 40 + 1,
                "face": "front",
                "airflow": "front-to-rear",
                "comments": f"Racked and cabled per CHG{40000 + i:07}; uplinks on ports 49-52, mgmt on OOB port 1.",
                "tags": ["prod", role, "row-c"],
                "custom_fields": {
                    "owner": "netops",
                    "mgmt_vlan": 110,
                    "contract_id": f"SVC-2025-{i:05}",
                    "commissioned": "2025-03-14",
                    "support_tier": "gold",
                },
            }
        )
    return devices


@contextlib.asynccontextmanager
async def stdio_inventory(*args: str, logging_callback=None) -> AsyncIterator[Inventory]:
    """The example on stdio, in-memory database, one initialized session;
    `logging_callback` receives the server's log messages."""
    params = StdioServerParameters(command=str(BINARY), args=list(args))
    with tempfile.TemporaryFile("w+") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(
                read, write, read_timeout_seconds=READ_TIMEOUT, logging_callback=logging_callback
            ) as session:
                await session.initialize()
                yield Inventory(session)


class HttpServer:
    """The example serving Streamable HTTP on a free port."""

    def __init__(self, *args: str, port: int = 0):
        self.process = subprocess.Popen(
            [str(BINARY), "--http", f"127.0.0.1:{port}", *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.stderr: list[str] = []
        self.url = self._read_url()
        # Keep draining stderr so the server never blocks on a full pipe.
        threading.Thread(target=self._drain, daemon=True).start()

    def _read_url(self) -> str:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr.append(line)
            found = re.search(r"at (http://127\.0\.0\.1:(\d+)/mcp)", line)
            if found:
                assert found.group(2) != "0", "port 0 must be replaced by the bound port"
                return found.group(1)
        self.process.kill()
        raise RuntimeError("the server exited before printing its address:\n" + "".join(self.stderr))

    def _drain(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr.append(line)

    @contextlib.asynccontextmanager
    async def session(self, token: str | None = None) -> AsyncIterator[Inventory]:
        """A new MCP session (its own `mcp-session-id`), sending
        `Authorization: Bearer <token>` when `token` is given."""
        async with connect(self.url, token, stateless=False) as inventory:
            yield inventory

    @contextlib.asynccontextmanager
    async def stateless(self, token: str | None = None) -> AsyncIterator[Inventory]:
        """A client on protocol 2026-07-28: no session, every request
        self-contained."""
        async with connect(self.url, token, stateless=True) as inventory:
            yield inventory

    def stop(self, timeout: float = 10.0) -> int:
        """ctrl-c, as a person would; the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                return self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
                raise
        return self.process.returncode


@contextlib.asynccontextmanager
async def connect(url: str, token: str | None, *, stateless: bool) -> AsyncIterator[Inventory]:
    """The official client at `url`: a 2025-era session (initialize) or a
    2026-07-28 stateless client (discover), with a bearer token if given."""
    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with create_mcp_http_client(headers=headers) as http:
        async with streamable_http_client(url, http_client=http) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=READ_TIMEOUT) as session:
                if stateless:
                    await session.discover()
                else:
                    await session.initialize()
                yield Inventory(session)


def log(message: str) -> None:
    """Measurements worth seeing with `pytest -s`."""
    print(message, file=sys.stderr)


class KeptAlive:
    """A plain HTTP/1.1 client on one kept-alive connection speaking
    protocol 2025-06-18 with a session, as MCP hosts do: the client that
    showed the stall. (The official Python client, on httpx, happens not
    to wait for the delayed ACK, so it would not catch a regression.)"""

    def __init__(self, url: str):
        parsed = urllib.parse.urlsplit(url)
        self.connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=30)
        self.path = parsed.path
        self.session: str | None = None
        self.id = 0

    def post(self, method: str, params: dict | None = None, notification: bool = False):
        message = {"jsonrpc": "2.0", "method": method, "params": params or {}}
        if not notification:
            self.id += 1
            message["id"] = self.id
        headers = {"Content-Type": "application/json",
                   "Accept": "application/json, text/event-stream",
                   "MCP-Protocol-Version": "2025-06-18"}  # fmt: skip
        if self.session:
            headers["Mcp-Session-Id"] = self.session
        self.connection.request("POST", self.path, body=json.dumps(message), headers=headers)
        response = self.connection.getresponse()
        data = response.read()
        self.session = response.getheader("Mcp-Session-Id") or self.session
        assert response.status in (200, 202), (response.status, data[:200])
        events = [line[5:] for line in data.decode().splitlines() if line.startswith("data:")]
        replies = [json.loads(event) for event in events if event.strip()]
        return replies[-1] if replies else (json.loads(data) if data.strip() else None)

    def call(self, tool: str, arguments: dict) -> dict:
        """The result of a successful call, its `structuredContent` checked
        to fit what a client the server does not know keeps."""
        reply = self.post("tools/call", {"name": tool, "arguments": arguments})
        assert not reply["result"].get("isError"), reply
        assert_fits(reply["result"].get("structuredContent"), what=f"{tool}'s answer")
        return reply["result"]


async def read_pages(
    inventory: Inventory, tool: str, token: str, page_size: int | None = None, **negotiation: Any
) -> list[Any]:
    """Every item behind `token`, redeemed through `tool` page by page.

    Each page asked is the one after the last answered, at the `page_size`
    that answer reports: a `page_size` (or a default) that would not fit
    the client is answered with fewer items, the answer's `page` and
    `page_size` saying which, and a `note` naming the next call, which is
    the one made. `negotiation` adds `mode`, `filter_keys`...; `page_size`
    is the first page's (none: the server's default, as many as fit).
    Every answer is checked to fit the client (by `Inventory.ok`) and to
    begin where the items read so far end."""
    items: list[Any] = []
    page, size = 1, page_size
    while True:
        arguments = {"continuation_token": token, **negotiation, "page": page}
        if size is not None:
            arguments["page_size"] = size
        answer = await inventory.ok(tool, arguments)
        assert isinstance(answer, dict) and "items" in answer, answer
        got_page, got_size = answer["page"], answer["page_size"]
        assert got_size >= 1 and len(answer["items"]) <= got_size, answer
        assert (got_page - 1) * got_size == len(items), (
            f"asked page {page} of page_size {size}, answered page {got_page} of page_size "
            f"{got_size}, which does not begin after the {len(items)} items read"
        )
        if size is not None and got_size != size and answer["has_more"]:
            next_call = f"page {got_page + 1} with page_size {got_size}"
            assert next_call in answer.get("note", ""), (next_call, answer.get("note"))
        items.extend(answer["items"])
        if not answer["has_more"]:
            assert len(items) == answer["total"], (len(items), answer["total"])
            return items
        page, size = got_page + 1, got_size


async def written_ids(inventory: Inventory, tool: str, envelope: dict[str, Any]) -> list[Any]:
    """The ids of every object a bulk write's `envelope` stands for, in the
    order written: read through its token, paged and filtered to `id`
    (`tool` is the one that wrote: the flat tool, or the dispatcher); an
    envelope without a token (no store to keep the objects) lists them
    all. The `ids` an envelope lists beside its token are checked against
    the token's."""
    if "continuation_token" not in envelope:
        return envelope["ids"]
    items = await read_pages(
        inventory, tool, envelope["continuation_token"], mode="filtered", filter_keys=["id"]
    )
    assert all(list(item) == ["id"] for item in items), items[:3]
    ids = [item["id"] for item in items]
    assert len(ids) == envelope["accepted"], (len(ids), envelope)
    if "ids" in envelope:
        assert envelope["ids"] == ids
    return ids


async def every_device_name(inventory: Inventory) -> list[str]:
    """The names of every device, read page by page (or whole, when so few
    that the list answers itself): pages of 200 asked, each next page at
    the `page_size` the last one reports."""
    probe = await inventory.ok("device_list")
    if isinstance(probe, list):
        return [device["name"] for device in probe]
    devices = await read_pages(inventory, "device_list", probe["continuation_token"], page_size=200)
    return [device["name"] for device in devices]
