"""Load: several HTTP clients at once, each making a mix of reads, single and
bulk writes, probes and redemptions. No call may fail, and afterwards every
device written is in the inventory exactly once.

The size is `LOAD_CLIENTS` clients x `LOAD_CALLS` calls each (8 x 150 by
default, what CI runs). The full run is

    LOAD_CLIENTS=8 LOAD_CALLS=1000 INVENTORY_BIN=target/release/inventory \\
        examples/inventory/tests/python/run.sh -s -k load

and `-s` prints calls per second and the latency percentiles.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import Counter
from typing import Any

import pytest
from inventory_client import SITE, HttpServer, Inventory, every_device_name, log, new_devices

pytestmark = pytest.mark.anyio

CLIENTS = int(os.environ.get("LOAD_CLIENTS", "8"))
CALLS = int(os.environ.get("LOAD_CALLS", "150"))
# What one bulk write creates.
BULK = 5


class Client:
    """One client's calls, timed, and the names of what it wrote."""

    def __init__(self, number: int, inventory: Inventory):
        self.number = number
        self.inventory = inventory
        self.latencies: list[float] = []
        self.errors: list[str] = []
        self.written: list[str] = []
        self.known_id: str | None = None

    async def timed(self, tool: str, arguments: dict[str, Any]) -> Any:
        started = time.perf_counter()
        try:
            return await self.inventory.ok(tool, arguments)
        except Exception as error:  # noqa: BLE001 - every failure is counted
            self.errors.append(f"{tool}: {error!r}"[:300])
            return None
        finally:
            self.latencies.append(time.perf_counter() - started)

    def devices(self, n: int, call: int) -> list[dict[str, Any]]:
        """`n` new devices named uniquely for this client and call."""
        return new_devices(n, prefix=f"c{self.number}-k{call}")

    async def run(self, calls: int) -> None:
        for call in range(calls):
            kind = call % 6
            if kind == 0:
                device = self.devices(1, call)[0]
                envelope = await self.timed("device_create", {"device": device})
                if envelope is not None:
                    self.written.append(device["name"])
                    self.known_id = envelope["id"]
            elif kind == 1:
                devices = self.devices(BULK, call)
                envelope = await self.timed("device_bulk_create", {"devices": devices})
                if envelope is not None:
                    # A bulk's envelope has a token; five ids fit beside it.
                    assert "continuation_token" in envelope, envelope
                    assert len(envelope["ids"]) == BULK, envelope
                    self.written.extend(d["name"] for d in devices)
            elif kind == 2:
                # Through the dispatcher a bulk write answers a token; its
                # redemption is the next call.
                devices = self.devices(BULK, call)
                route = {"resource": "device", "action": "bulk_create",
                         "params": {"devices": devices}}  # fmt: skip
                envelope = await self.timed("inventory", route)
                if envelope is not None:
                    self.written.extend(d["name"] for d in devices)
                    redeem = {"continuation_token": envelope["continuation_token"],
                              "mode": "full"}  # fmt: skip
                    full = await self.timed("inventory", redeem)
                    if full is not None:
                        assert [d["name"] for d in full] == [d["name"] for d in devices]
            elif kind == 3:
                probe = await self.timed("device_list", {"role": "spine"})
                if probe is not None and "continuation_token" in probe:
                    await self.timed(
                        "device_list",
                        {"continuation_token": probe["continuation_token"], "page_size": 5},
                    )
            elif kind == 4 and self.known_id is not None:
                await self.timed("device_retrieve", {"id": self.known_id})
            else:
                await self.timed("site_list", {})


def percentile(sorted_values: list[float], fraction: float) -> float:
    index = min(len(sorted_values) - 1, round(fraction * (len(sorted_values) - 1)))
    return sorted_values[index]


async def test_concurrent_clients_lose_nothing_and_fail_nothing(http_server: HttpServer):
    async with http_server.session() as setup:
        await setup.ok("site_create", {"site": SITE})

    async def one_client(number: int) -> Client:
        # Half the clients hold a 2025-era session, half are stateless.
        connect = http_server.session if number % 2 else http_server.stateless
        async with connect() as inventory:
            client = Client(number, inventory)
            await client.run(CALLS)
            return client

    started = time.perf_counter()
    clients = await asyncio.gather(*(one_client(n) for n in range(CLIENTS)))
    elapsed = time.perf_counter() - started

    errors = [error for client in clients for error in client.errors]
    latencies = sorted(t for client in clients for t in client.latencies)
    log(
        f"load: {CLIENTS} clients x {CALLS} calls: {len(latencies)} tool calls in {elapsed:.1f} s "
        f"= {len(latencies) / elapsed:.0f} calls/s; errors {len(errors)}; "
        f"p50 {percentile(latencies, 0.5) * 1000:.1f} ms, "
        f"p99 {percentile(latencies, 0.99) * 1000:.1f} ms"
    )
    assert errors == [], errors[:5]

    written = [name for client in clients for name in client.written]
    assert len(written) == len(set(written)), "a name was written twice by the test itself"
    async with http_server.stateless() as reader:
        stored = Counter(await every_device_name(reader))
    assert sum(stored.values()) == len(written), (sum(stored.values()), len(written))
    duplicated = [name for name, count in stored.items() if count != 1]
    assert duplicated == [], duplicated[:5]
    assert set(stored) == set(written)
    assert http_server.process.poll() is None, "the server died"
