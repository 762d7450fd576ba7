"""Operations: a graceful shutdown lets the calls in flight answer, over
Streamable HTTP (SIGTERM, as Kubernetes sends it) and over stdio (the end
of the input), and the process exits 0; the health probes answer beside
`/mcp`."""

from __future__ import annotations

import json
import signal
import subprocess
import urllib.error
import urllib.request

import anyio
import pytest

from inventory_client import BINARY, SITE, HttpServer, assert_fits, log

pytestmark = pytest.mark.anyio

# 20,000 devices in one call: with the fields a device needs and no more
# (about 100 bytes each) they fit the HTTP body limit of 4 MiB, which the
# full records of `new_devices` (about 700 bytes) would not past ~5,900.
DEVICES = 20_000


def lean_devices(n: int, prefix: str) -> list[dict]:
    return [
        {"name": f"{prefix}-{i:05}", "site_slug": SITE["slug"], "role": "leaf",
         "device_type": "Arista DCS-7050CX3-32S"}
        for i in range(n)
    ]  # fmt: skip


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


async def test_sigterm_during_a_bulk_create_of_20000_devices_lets_it_answer_and_exits_0():
    server = HttpServer()
    try:
        async with server.session() as inventory:
            await inventory.create_site()
            signalled: list[tuple[float, float | None]] = []

            async def on_progress(done: float, total: float | None, message: str | None):
                # The first progress report: the devices are being inserted.
                if not signalled:
                    server.process.send_signal(signal.SIGTERM)
                    signalled.append((done, total))

            # Through the dispatcher: its answer is the token envelope (as
            # the flat tool's is now too; it once listed 20,000 ids).
            result = await inventory.session.call_tool(
                "inventory",
                {"resource": "device", "action": "bulk_create",
                 "params": {"devices": lean_devices(DEVICES, "drain")}},
                progress_callback=on_progress,
            )  # fmt: skip
            text = result.content[0].text
            assert not result.is_error, text[:500]
            assert signalled, "no progress was reported, so SIGTERM was never sent"
            done, total = signalled[0]
            assert done < total == DEVICES, f"SIGTERM was sent after the work: {signalled}"
            answer = json.loads(text)
            assert answer["accepted"] == DEVICES, answer
            assert answer["status_code"] == 201
            assert answer["continuation_token"], answer
            assert_fits(result.structured_content)
        code = server.process.wait(60)
    finally:
        server.stop()
    stderr = "".join(server.stderr)
    assert code == 0, f"exit status {code}:\n{stderr}"
    assert "shutting down" in stderr and "inventory: stopped" in stderr, stderr
    log(f"SIGTERM sent at {done:.0f}/{total:.0f} devices; the call answered {DEVICES}, exit 0")


async def test_stdio_answers_a_bulk_create_read_before_its_input_ended_then_exits_0():
    n = 5_000
    process = subprocess.Popen(
        [str(BINARY), "--drain-timeout", "60"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": {"name": "drain-test", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "site_create", "arguments": {"site": SITE}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
         "params": {"name": "device_bulk_create",
                    "arguments": {"devices": lean_devices(n, "stdio")}}},
    ]  # fmt: skip
    # Everything at once, then the end of the input: the bulk create is
    # still running (or not even started) when stdin closes.
    out, _ = await anyio.to_thread.run_sync(
        lambda: process.communicate(
            "".join(json.dumps(m) + "\n" for m in messages).encode(), timeout=120
        )
    )
    replies = {r["id"]: r for r in map(json.loads, out.decode().splitlines()) if "id" in r}
    assert set(replies) == {1, 2, 3}, replies.keys()
    result = replies[3]["result"]
    assert not result.get("isError"), result
    answer = json.loads(result["content"][0]["text"])
    # The whole answer: the count and the token that pages the 5,000 ids
    # (too many to list beside it), within 1,024 bytes. (The input has
    # ended, so the token is not redeemed here.)
    assert result["structuredContent"] == answer
    assert list(answer) == ["accepted", "status_code", "data_size", "continuation_token"], answer
    assert answer["accepted"] == n and answer["status_code"] == 201
    assert_fits(answer, keeps=1024)
    assert process.returncode == 0


async def test_healthz_and_readyz_answer_200_without_credentials_or_an_allowed_host():
    server = HttpServer("--auth-token", "ci=ci-secret-0123456789abcdef")
    try:
        base = server.url.removesuffix("/mcp")
        assert get(f"{base}/healthz") == (200, "ok\n")
        assert get(f"{base}/readyz") == (200, "ready\n")
        # /mcp itself still wants the token.
        request = urllib.request.Request(server.url, data=b"{}", method="POST",
                                         headers={"Content-Type": "application/json"})  # fmt: skip
        try:
            urllib.request.urlopen(request, timeout=10)
            status = 200
        except urllib.error.HTTPError as error:
            status = error.code
        assert status == 401
    finally:
        assert server.stop() == 0
