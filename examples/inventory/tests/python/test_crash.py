"""A crash loses no acknowledged write and leaves none in part: clients
write bulk creates over HTTP into a SQLite file, the inventory is killed
(SIGKILL) while they do, and the inventory started again on the file holds
every batch that was answered as done, whole, and of every other batch all
of it or nothing."""

from __future__ import annotations

import asyncio
import http.client
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import pytest
from inventory_client import HttpServer, KeptAlive, every_device_name, log, new_devices

pytestmark = pytest.mark.anyio

WRITERS = 4
# Devices a batch: large enough that a kill often lands inside one.
BATCH = 40


class Writer(threading.Thread):
    """One client writing batches named `w<number>b<k>` until the server
    stops answering; `acknowledged` lists the batches answered as done."""

    def __init__(self, url: str, number: int):
        super().__init__(daemon=True)
        self.number = number
        self.client = KeptAlive(url)
        self.client.post("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                        "clientInfo": {"name": f"writer-{number}", "version": "1"}})  # fmt: skip
        self.client.post("notifications/initialized", notification=True)
        self.sent: list[str] = []
        self.acknowledged: list[str] = []
        self.stopped_by: BaseException | None = None

    def run(self) -> None:
        while True:
            prefix = f"w{self.number}b{len(self.sent)}"
            self.sent.append(prefix)
            try:
                devices = new_devices(BATCH, prefix=prefix)
                self.client.call("device_bulk_create", {"devices": devices})
            except (OSError, http.client.HTTPException) as error:
                self.stopped_by = error  # the server is gone
                return
            self.acknowledged.append(prefix)


@pytest.mark.parametrize("sync", ["normal", "full"])
async def test_after_a_sigkill_every_acknowledged_batch_is_there_whole_and_no_batch_in_part(sync):
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "inventory.db")
        server = HttpServer("--db", db, "--db-sync", sync)
        try:
            async with server.stateless() as setup:
                await setup.create_site()
            writers = [Writer(server.url, n) for n in range(WRITERS)]
            for writer in writers:
                writer.start()
            # A short while of writing, then the crash, mid-batch for some.
            deadline = time.monotonic() + 30
            while sum(len(w.acknowledged) for w in writers) < 6 * WRITERS:
                assert time.monotonic() < deadline, "the writers made no progress"
                assert all(w.is_alive() for w in writers), [w.stopped_by for w in writers]
                await asyncio.sleep(0.01)
            server.process.kill()
            server.process.wait()
            for writer in writers:
                writer.join(30)
                assert not writer.is_alive(), f"writer {writer.number} still writes"
        finally:
            server.stop()

        acknowledged = [prefix for w in writers for prefix in w.acknowledged]
        sent = [prefix for w in writers for prefix in w.sent]
        restarted = HttpServer("--db", db, "--db-sync", sync)
        try:
            async with restarted.stateless() as reader:
                names = await every_device_name(reader)
        finally:
            restarted.stop()

    by_prefix = Counter(name.split("-", 1)[0] for name in names)
    assert set(by_prefix) <= set(sent), set(by_prefix) - set(sent)
    missing = {p: by_prefix[p] for p in acknowledged if by_prefix[p] != BATCH}
    assert missing == {}, f"acknowledged batches not there whole: {missing}"
    in_part = {p: n for p, n in by_prefix.items() if n not in (0, BATCH)}
    assert in_part == {}, f"batches there in part: {in_part}"
    assert len(names) == len(set(names)), "a device is there twice"
    unanswered = set(sent) - set(acknowledged)
    log(
        f"crash (--db-sync {sync}): {len(acknowledged)} batches of {BATCH} acknowledged, all "
        f"there; {len(unanswered)} in flight at the kill, of which "
        f"{sum(1 for p in unanswered if by_prefix[p] == BATCH)} committed whole, the rest absent"
    )
