"""Deployment: kept-alive latency, replicas sharing Redis (and PostgreSQL),
authenticated callers. The inventory binary is driven by the official MCP
client; Redis is a real `redis-server` each test starts on a free port (see
`redis_server.py`), PostgreSQL a cluster of its own (`postgres_server.py`)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import statistics
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from inventory_client import HttpServer, Inventory, KeptAlive, log, new_devices, read_pages
from postgres_server import PostgresServer
from redis_server import RedisCluster, RedisServer

pytestmark = pytest.mark.anyio

ALICE = "alice-secret-0123456789abcdef"
BOB = "bob-secret-0123456789abcdef"
TOKENS = ["--auth-token", f"alice={ALICE}", "--auth-token", f"bob={BOB}"]


@pytest.fixture
def replicas(redis):
    """Two inventory processes on one Redis and one SQLite file, with the
    static tokens of alice and bob."""
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "inventory.db")
        first = HttpServer("--db", db, "--store", redis.url, *TOKENS)
        second = HttpServer("--db", db, "--store", redis.url, *TOKENS)
        try:
            yield first, second
        finally:
            first.stop()
            second.stop()


@pytest.fixture
def postgres():
    """A PostgreSQL cluster of the test's own, on a free port."""
    server = PostgresServer()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def replicas_on_postgres(redis, postgres):
    """Two inventory processes, as on two hosts: one PostgreSQL database
    and one Redis, nothing else shared."""
    first = HttpServer("--db", postgres.url, "--store", redis.url, *TOKENS)
    second = HttpServer("--db", postgres.url, "--store", redis.url, *TOKENS)
    try:
        yield first, second
    finally:
        first.stop()
        second.stop()


def connect(server: HttpServer, token: str, protocol: str):
    return server.stateless(token) if protocol == "stateless" else server.session(token)


async def bulk_write(inventory: Inventory, n: int, prefix: str) -> dict:
    return await inventory.ok(
        "inventory",
        {"resource": "device", "action": "bulk_create",
         "params": {"devices": new_devices(n, prefix=prefix)}},
    )  # fmt: skip


async def test_fifty_calls_on_one_kept_alive_session_connection_have_a_median_under_20_ms(
    http_server,
):
    # A session's answers go out as SSE in several writes; with Nagle's
    # algorithm on, each waits ~40 ms for the client's delayed ACK.
    client = KeptAlive(http_server.url)
    client.post("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                               "clientInfo": {"name": "kept-alive", "version": "1"}})  # fmt: skip
    client.post("notifications/initialized", notification=True)
    client.call("site_create", {"site": {"name": "Python Lab", "slug": "py-lab"}})
    times = []
    for i in range(50):
        started = time.perf_counter()
        client.call("device_create", {"device": new_devices(1, prefix=f"k{i}")[0]})
        times.append((time.perf_counter() - started) * 1000)
    median = statistics.median(times)
    log(f"kept-alive session: median {median:.2f} ms, max {max(times):.2f} ms over 50 creates")
    assert median < 20, f"median {median:.1f} ms: answers stall (TCP_NODELAY?)"


@pytest.mark.parametrize("protocol", ["stateless", "session"])
async def test_a_token_minted_on_one_replica_redeems_on_the_other_for_the_same_principal(
    replicas, protocol
):
    first, second = replicas
    async with connect(first, ALICE, protocol) as alice:
        await alice.create_site()
        write = await bulk_write(alice, 30, prefix=f"r-{protocol}")
        probe = await alice.ok("device_list", {"site_slug": "py-lab"})
    assert "continuation_token" in write and "continuation_token" in probe

    async with connect(second, ALICE, protocol) as alice_there:
        # 30 devices (21 KB) are more than this client keeps: read page by page.
        full = await read_pages(alice_there, "inventory", write["continuation_token"])
        assert len(full) == 30 and full[0]["name"] == f"r-{protocol}-leaf-0001"
        page = await alice_there.ok(
            "device_list", {"continuation_token": probe["continuation_token"], "page_size": 5}
        )
        assert (page["total"], len(page["items"])) == (30, 5)

    async with connect(second, BOB, protocol) as bob:
        for tool, token in [("inventory", write), ("device_list", probe)]:
            refused = await bob.error(tool, {"continuation_token": token["continuation_token"]})
            assert "issued to another caller" in refused, refused


@pytest.mark.parametrize("protocol", ["stateless", "session"])
async def test_replicas_on_one_postgresql_and_one_redis_share_every_write_and_every_token(
    replicas_on_postgres, protocol
):
    first, second = replicas_on_postgres
    async with connect(first, ALICE, protocol) as on_a, connect(second, ALICE, protocol) as on_b:
        await on_a.create_site()
        created = await on_a.ok("device_create", {"device": new_devices(1, prefix=protocol)[0]})
        device_id = created["id"]

        # Read, changed and listed through B.
        read = await on_b.ok("device_retrieve", {"id": device_id})
        assert read["name"] == created["name"] and read["site_slug"] == "py-lab"
        await on_b.ok("device_partial_update", {"id": device_id, "changes": {"comments": "via B"}})
        assert (await on_a.ok("device_retrieve", {"id": device_id}))["comments"] == "via B"
        write = await bulk_write(on_a, 30, prefix=f"pg-{protocol}")
        listed = await on_b.ok("device_list", {"site_slug": "py-lab"})
        total = await on_b.ok(
            "device_list", {"continuation_token": listed["continuation_token"], "mode": "summary"}
        )
        assert total["count"] == 31, total

        # Tokens minted on A redeem on B: the bulk write's (read page by
        # page: 30 devices are more than this client keeps) and a listing's.
        full = await read_pages(on_b, "inventory", write["continuation_token"])
        assert len(full) == 30 and full[1]["name"] == f"pg-{protocol}-spine-0002"
        probe = await on_a.ok("device_list", {"site_slug": "py-lab"})
        page = await on_b.ok(
            "device_list", {"continuation_token": probe["continuation_token"], "page_size": 5}
        )
        assert (page["total"], len(page["items"])) == (31, 5), page
        # Ten spines are within the inline budget: the list itself, read on B.
        spines = await on_b.ok("device_list", {"site_slug": "py-lab", "role": "spine"})
        assert len(spines) == 10 and all(item["role"] == "spine" for item in spines), spines

        # Deleted through B, gone through A.
        await on_b.ok("device_destroy", {"id": device_id})
        gone = await on_a.error("device_retrieve", {"id": device_id})
        assert "no device with id" in gone, gone
    for replica in (first, second):
        assert any("the database holds" in line for line in replica.stderr)


async def test_a_request_without_a_bearer_token_is_refused_401_before_any_tool_runs(replicas):
    first, _ = replicas
    body = b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"site_create","arguments":{"site":{"name":"X","slug":"x"}}}}'
    for headers in [{}, {"Authorization": "Bearer not-a-token-of-this-server"}]:
        request = urllib.request.Request(
            first.url, data=body, method="POST",
            headers={"Content-Type": "application/json",
                     "Accept": "application/json, text/event-stream",
                     "MCP-Protocol-Version": "2026-07-28", **headers},
        )  # fmt: skip
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 401
        assert refused.value.headers["WWW-Authenticate"].startswith("Bearer")
    async with first.stateless(ALICE) as alice:
        assert all(site["slug"] != "x" for site in await alice.ok("site_list")), "a tool ran"


async def test_an_entry_expires_in_redis(redis):
    server = HttpServer("--store", redis.url, "--token-ttl", "1")
    try:
        async with server.stateless() as inventory:
            await inventory.create_site()
            write = await bulk_write(inventory, 3, prefix="ttl")
            keys = redis.command("KEYS", "mcp-light:*")
            assert len(keys) == 3, keys  # owner and origin, item offsets, body
            assert all(0 < redis.command("PTTL", key) <= 1000 for key in keys)
            time.sleep(1.3)
            assert redis.command("KEYS", "mcp-light:*") == []
            refused = await inventory.error(
                "inventory", {"continuation_token": write["continuation_token"]}
            )
            assert "unknown, has expired" in refused
    finally:
        server.stop()


async def test_with_redis_killed_writes_and_reads_go_on_and_tokens_come_back_with_it(redis):
    server = HttpServer("--store", redis.url)
    try:
        async with server.stateless() as inventory:
            await inventory.create_site()
            before = await bulk_write(inventory, 5, prefix="before")
            assert "continuation_token" in before

            redis.kill()
            during = await bulk_write(inventory, 5, prefix="during")
            # Outcome 2: the envelope reaches what was written by its ids;
            # no token that was not stored.
            assert "continuation_token" not in during
            assert during["accepted"] == 5 and len(during["ids"]) == 5
            single = await inventory.ok(
                "inventory", {"resource": "device", "action": "create",
                              "params": {"device": new_devices(1, prefix="single")[0]}},
            )  # fmt: skip
            assert "continuation_token" not in single and single["status_code"] == 201
            # A heavy read answers whole.
            listed = await inventory.ok("device_list")
            assert isinstance(listed, list) and len(listed) == 11
            refused = await inventory.error(
                "inventory", {"continuation_token": before["continuation_token"]}
            )
            assert "unavailable" in refused and "try again" in refused

            redis.start()  # the same address, empty
            deadline = time.monotonic() + 10
            while True:
                after = await bulk_write(inventory, 1, prefix=f"after{int(time.monotonic() * 1000)}")
                if "continuation_token" in after or time.monotonic() > deadline:
                    break
                time.sleep(0.2)
            assert "continuation_token" in after, "no token after Redis came back"
            full = await inventory.ok(
                "inventory", {"continuation_token": after["continuation_token"], "mode": "full"}
            )
            assert len(full) == 1
        assert server.process.poll() is None, "the server died"
    finally:
        server.stop()


async def test_a_stateless_request_cannot_claim_a_session_by_naming_it(http_server):
    # Alice's 2025-era session mints a token bound to her session.
    alice = KeptAlive(http_server.url)
    alice.post("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                              "clientInfo": {"name": "alice", "version": "1"}})  # fmt: skip
    alice.post("notifications/initialized", notification=True)
    alice.call("site_create", {"site": {"name": "Python Lab", "slug": "py-lab"}})
    written = alice.call("inventory", {"resource": "device", "action": "bulk_create",
                                       "params": {"devices": new_devices(2)}})  # fmt: skip
    token = json.loads(written["content"][0]["text"])["continuation_token"]

    # A 2026-07-28 client sends her session id as a bare header: it is
    # served statelessly, so the header names nobody and the token is not
    # its to redeem.
    headers = {"Mcp-Session-Id": alice.session}
    async with create_mcp_http_client(headers=headers) as http:
        async with streamable_http_client(http_server.url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.discover()
                refused = await Inventory(session).error(
                    "inventory", {"continuation_token": token}
                )
    assert "issued to another caller" in refused
    # Alice herself, in her session, still redeems it.
    full = alice.call("inventory", {"continuation_token": token, "mode": "full"})
    assert len(json.loads(full["content"][0]["text"])) == 2


async def test_a_token_minted_on_one_replica_redeems_on_the_other_over_a_redis_cluster():
    cluster = RedisCluster()
    try:
        with tempfile.TemporaryDirectory() as tmp:
            db = str(Path(tmp) / "inventory.db")
            first = HttpServer("--db", db, "--store", cluster.store)
            second = HttpServer("--db", db, "--store", cluster.store)
            try:
                assert any("Redis Cluster" in line for line in first.stderr), first.stderr
                async with first.stateless() as there:
                    await there.create_site()
                    writes = [await bulk_write(there, 3, prefix=f"cl{i}") for i in range(12)]
                    probe = await there.ok("device_list", {"site_slug": "py-lab"})
                async with second.stateless() as here:
                    for i, write in enumerate(writes):
                        full = await here.ok(
                            "inventory",
                            {"continuation_token": write["continuation_token"], "mode": "full"},
                        )
                        assert [d["name"] for d in full] == [
                            f"cl{i}-leaf-0001", f"cl{i}-spine-0002", f"cl{i}-firewall-0003"
                        ]  # fmt: skip
                    page = await here.ok(
                        "device_list",
                        {"continuation_token": probe["continuation_token"], "page_size": 5},
                    )
                    assert (page["total"], len(page["items"])) == (36, 5)
                # The entries spread over the masters, each whole on one.
                held = [node.command("KEYS", "mcp-light:*") for node in cluster.nodes]
                assert sum(len(keys) for keys in held) >= 3 * len(writes), held
                assert sum(1 for keys in held if keys) >= 2, held
            finally:
                first.stop()
                second.stop()
    finally:
        cluster.stop()


async def test_after_redis_restarts_each_idle_replicas_first_redemption_and_first_write_succeed():
    # An append-only file synced at every write: the entries minted before
    # the restart are there after it, as on a Redis with persistence.
    redis = RedisServer(persistent=True)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            db = str(Path(tmp) / "inventory.db")
            replicas = [HttpServer("--db", db, "--store", redis.url) for _ in range(2)]
            try:
                await failover(redis, replicas)
            finally:
                for replica in replicas:
                    replica.stop()
    finally:
        redis.stop()


async def failover(redis: RedisServer, replicas: list[HttpServer]) -> None:
    async with contextlib.AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(r.stateless()) for r in replicas]
        await clients[0].create_site()
        # A token minted on each replica, both connections to Redis then idle.
        minted = [await bulk_write(c, 2, prefix=f"before{i}") for i, c in enumerate(clients)]
        assert all("continuation_token" in m for m in minted)
        # The same two calls with Redis up all along, for comparison.
        for i, client in enumerate(clients):
            started = time.perf_counter()
            await client.ok("inventory", {"continuation_token": minted[1 - i]["continuation_token"]})
            redeemed = time.perf_counter() - started
            await bulk_write(client, 2, prefix=f"steady{i}")
            log(
                f"steady: replica {i}: a redemption {redeemed * 1000:.1f} ms, then a write "
                f"{(time.perf_counter() - started) * 1000:.1f} ms"
            )

        redis.kill()
        redis.start()  # the same port; returns once it answers PING
        accepting = time.perf_counter()

        async def first_calls(i: int) -> tuple[float, float]:
            client = clients[i]
            # The token the other replica minted before the restart.
            other = minted[1 - i]["continuation_token"]
            full = await client.ok("inventory", {"continuation_token": other, "mode": "full"})
            assert [d["name"] for d in full] == [
                f"before{1 - i}-leaf-0001", f"before{1 - i}-spine-0002"
            ], f"replica {i}: the first redemption after the restart"  # fmt: skip
            redeemed = time.perf_counter() - accepting
            written = await bulk_write(client, 2, prefix=f"after{i}")
            assert "continuation_token" in written, (
                f"replica {i}: the first write after the restart answered without a "
                f"token (the store failed): {written}"
            )
            return redeemed, time.perf_counter() - accepting

        figures = await asyncio.gather(first_calls(0), first_calls(1))
        for i, (redeemed, wrote) in enumerate(figures):
            log(
                f"failover: replica {i}: first redemption {redeemed * 1000:.1f} ms and first "
                f"write with a token {wrote * 1000:.1f} ms after Redis answered again"
            )
    for replica in replicas:
        assert replica.process.poll() is None, "a replica died"
