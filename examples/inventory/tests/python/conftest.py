"""Fixtures: the inventory example over stdio or Streamable HTTP."""

from __future__ import annotations

import contextlib

import pytest

from inventory_client import HttpServer, stdio_inventory
from redis_server import RedisServer


@pytest.fixture
def anyio_backend():
    return "asyncio"


@contextlib.asynccontextmanager
async def serve(transport: str, *args: str):
    """One server process and one initialized session on `transport`."""
    if transport == "stdio":
        async with stdio_inventory(*args) as inventory:
            yield inventory
        return
    server = HttpServer(*args)
    try:
        async with server.session() as inventory:
            yield inventory
    finally:
        server.stop()


@pytest.fixture(params=["stdio", "http"])
async def inventory(request):
    """A fresh in-memory inventory with the `py-lab` site, on each transport."""
    async with serve(request.param) as inventory:
        await inventory.create_site()
        yield inventory


@pytest.fixture
async def http_server():
    server = HttpServer()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def redis():
    """A `redis-server` of the test's own, on a free port."""
    server = RedisServer()
    try:
        yield server
    finally:
        server.stop()
