"""Long calls as tasks: two inventory replicas on one Redis, each making a
task of every bulk create and device list still pending at its first poll
(`--task-after 0`; one done at its first poll answers inline),
driven by the official MCP client on protocol 2026-07-28.

The SDK declares extensions and claims their result shapes
(`ClientSession(extensions=..., result_claims=...)`) but ships no tasks
client of its own: `TasksClient` below is one, the task answer claimed as
`resultType: "task"` and followed with `tasks/get` through the SDK's own
request path (`ClientSession.send_request`)."""

from __future__ import annotations

import contextlib
import json
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, ClassVar, Literal

import anyio
import pytest
from mcp import ClientSession
from mcp.client.extension import ClaimContext, ResultClaim
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp_types import RequestParams, Result
from mcp_types._types import Request
from pydantic import ConfigDict

from inventory_client import READ_TIMEOUT, HttpServer, Inventory, connect, new_devices, read_pages

pytestmark = pytest.mark.anyio

TASKS = "io.modelcontextprotocol/tasks"
ALICE = "alice-secret-0123456789abcdef"
BOB = "bob-secret-0123456789abcdef"
TOKENS = ["--auth-token", f"alice={ALICE}", "--auth-token", f"bob={BOB}"]


class CreatedTask(Result):
    """A call answered as a task (`resultType: "task"`)."""

    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"]
    task_id: str
    status: str
    ttl_ms: int | None
    poll_interval_ms: int | None = None


class TaskIdParams(RequestParams):
    task_id: str


class GetTask(Request[TaskIdParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: TaskIdParams
    name_param: ClassVar[str | None] = "taskId"


class CancelTask(Request[TaskIdParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    params: TaskIdParams
    name_param: ClassVar[str | None] = "taskId"


class TaskState(Result):
    """`tasks/get`: the task, its result or error inlined once it ended."""

    model_config = ConfigDict(extra="allow")
    task_id: str
    status: str
    status_message: str | None = None
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class Ack(Result):
    model_config = ConfigDict(extra="allow")


async def _keep(task: CreatedTask, _ctx: ClaimContext):
    """The claim's resolver: the test follows the task itself."""
    return task


class TasksClient:
    """One 2026-07-28 client of a replica, declaring the tasks extension."""

    def __init__(self, session: ClientSession):
        self.session = session
        self.inventory = Inventory(session)

    async def start(self, tool: str, arguments: dict[str, Any]) -> CreatedTask:
        answer = await self.session.call_tool(tool, arguments, allow_claimed=True)
        assert isinstance(answer, CreatedTask), f"{tool} answered inline: {answer}"
        return answer

    async def get(self, task_id: str) -> TaskState:
        return await self.session.send_request(GetTask(params=TaskIdParams(task_id=task_id)), TaskState)

    async def cancel(self, task_id: str) -> None:
        await self.session.send_request(CancelTask(params=TaskIdParams(task_id=task_id)), Ack)

    async def settled(self, task_id: str, timeout: float = 30.0) -> TaskState:
        deadline = time.monotonic() + timeout
        while True:
            state = await self.get(task_id)
            if state.status in ("completed", "failed", "cancelled"):
                return state
            assert time.monotonic() < deadline, f"task {task_id} stayed {state.status}"
            await anyio.sleep(0.05)


@contextlib.asynccontextmanager
async def tasks_client(server: HttpServer, token: str) -> AsyncIterator[TasksClient]:
    headers = {"Authorization": f"Bearer {token}"}
    claim = ResultClaim(result_type="task", model=CreatedTask, resolve=_keep)
    async with create_mcp_http_client(headers=headers) as http:
        async with streamable_http_client(server.url, http_client=http) as (read, write):
            async with ClientSession(
                read,
                write,
                read_timeout_seconds=READ_TIMEOUT,
                extensions={TASKS: {}},
                result_claims={TASKS: [claim]},
            ) as session:
                await session.discover()
                yield TasksClient(session)


@pytest.fixture
def replicas(redis):
    """Two inventory processes on one Redis and one SQLite file, making a
    task of every task-capable call still pending at its first poll."""
    with tempfile.TemporaryDirectory() as tmp:
        db = str(Path(tmp) / "inventory.db")
        args = ["--db", db, "--store", redis.url, "--task-after", "0", *TOKENS]
        first = HttpServer(*args)
        second = HttpServer(*args)
        try:
            yield first, second
        finally:
            first.stop()
            second.stop()


def answer_of(state: TaskState) -> Any:
    assert state.status == "completed", state
    result = state.result
    assert result is not None and not result.get("isError"), result
    return json.loads(result["content"][0]["text"])


async def test_a_bulk_create_task_started_on_one_replica_completes_on_the_other_with_a_lean_envelope(
    replicas,
):
    first, second = replicas
    async with tasks_client(first, ALICE) as on_first:
        await on_first.inventory.create_site()
        task = await on_first.start(
            "inventory",
            {"resource": "device", "action": "bulk_create",
             "params": {"devices": new_devices(400, prefix="task")}},
        )  # fmt: skip
        assert task.status == "working" and task.ttl_ms and task.ttl_ms > 0
    async with tasks_client(second, ALICE) as on_second:
        envelope = answer_of(await on_second.settled(task.task_id))
        # The write's lean envelope, not the echo of 400 devices.
        assert envelope["accepted"] == 400 and "continuation_token" in envelope, envelope
        assert len(json.dumps(envelope)) < 300, envelope
        # 400 devices are more than this client keeps: read page by page.
        full = await read_pages(on_second.inventory, "inventory", envelope["continuation_token"])
        assert len(full) == 400 and full[0]["name"] == "task-leaf-0001"
    async with tasks_client(second, BOB) as bob:
        with pytest.raises(Exception, match="no task"):
            await bob.get(task.task_id)


async def test_a_task_cancelled_on_one_replica_stops_on_the_other(replicas):
    first, second = replicas
    async with tasks_client(first, ALICE) as on_first, tasks_client(second, ALICE) as on_second:
        await on_first.inventory.create_site()
        # Large enough to be still running when the cancel arrives; the
        # transaction rolls back at its next chunk once the task stopped
        # waiting for it.
        task = await on_first.start(
            "inventory",
            {"resource": "device", "action": "bulk_create",
             "params": {"devices": new_devices(5000, prefix="cancel")}},
        )  # fmt: skip
        await on_second.cancel(task.task_id)
        state = await on_second.settled(task.task_id)
        # The cancel stopped it, or the write had committed first.
        assert state.status in ("cancelled", "completed"), state
    # Counted by a client without the extension, which the list answers
    # inline.
    async with connect(second.url, ALICE, stateless=True) as plain:
        count = await plain.device_count()
    # What the task says is what the database holds.
    expected = 0 if state.status == "cancelled" else 5000
    assert count == expected, f"the task is {state.status} and {count} devices exist"


async def test_a_client_without_the_extension_gets_the_envelope_inline(replicas):
    first, _ = replicas
    async with connect(first.url, ALICE, stateless=True) as alice:
        await alice.create_site()
        envelope = await alice.ok(
            "inventory",
            {"resource": "device", "action": "bulk_create",
             "params": {"devices": new_devices(50, prefix="plain")}},
        )  # fmt: skip
        assert envelope["accepted"] == 50 and "continuation_token" in envelope
