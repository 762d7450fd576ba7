"""The gateway in front of real MCP servers from npm, driven by the official
Python MCP client: the reference filesystem server over a generated tree of
5,000 files and a 2 MB file, and the reference memory server with 1,000
entities. Each answer through the gateway fits what this client keeps (it
names itself `mcp`, a client mcp-light does not know: 10,000 bytes), and the
pages a token redeems join into exactly what the server answers directly.

Run by `run.sh` (and `.ci/gateway`), which installs Node 22 and the servers,
pinned, and names them in GATEWAY_BIN, GATEWAY_NODE, SERVER_FILESYSTEM and
SERVER_MEMORY.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

pytestmark = pytest.mark.anyio

# What a client mcp-light does not know keeps of an answer, in bytes.
KEEPS = 10_000
GATEWAY = os.environ["GATEWAY_BIN"]
NODE = os.environ["GATEWAY_NODE"]
FILESYSTEM = os.environ["SERVER_FILESYSTEM"]
MEMORY = os.environ["SERVER_MEMORY"]


@pytest.fixture
def anyio_backend():
    return "asyncio"


@contextlib.asynccontextmanager
async def session(command: list[str], env: dict[str, str] | None = None):
    """A client session with the server `command` starts, on stdio."""
    params = StdioServerParameters(command=command[0], args=command[1:], env={**os.environ, **(env or {})})
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as client:
            await client.initialize()
            yield client


def gateway(command: list[str], config: Path | None = None) -> list[str]:
    configured = ["--config", str(config)] if config else []
    return [GATEWAY, *configured, "--", *command]


def compact(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


async def answer(client: ClientSession, tool: str, arguments: dict[str, Any]) -> Any:
    """The structured content of a successful call, checked to fit."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    structured = result.structured_content
    assert structured is not None, result.content
    assert compact(structured) <= KEEPS, f"{tool} answered {compact(structured)} bytes"
    return structured


async def probe(client: ClientSession, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """A call whose answer is too large for this client: its probe."""
    found = await answer(client, tool, arguments)
    assert "continuation_token" in found, found
    return found


async def pages(client: ClientSession, tool: str, token: str) -> list[Any]:
    """Every item behind `token`, page after page: each page after the
    first asked at the size the last was answered with, and checked to
    begin where the items read so far end."""
    items: list[Any] = []
    arguments: dict[str, Any] = {"continuation_token": token, "page": 1}
    while True:
        found = await answer(client, tool, arguments)
        assert (found["page"] - 1) * found["page_size"] == len(items), found
        items.extend(found["items"])
        if not found["has_more"]:
            return items
        arguments = {"continuation_token": token, "page": found["page"] + 1, "page_size": found["page_size"]}


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    """50 directories of 100 files, and a 2 MB text file."""
    root = tmp_path_factory.mktemp("tree")
    for d in range(50):
        folder = root / f"dir{d:02}"
        folder.mkdir()
        for f in range(100):
            (folder / f"file{f:03}.txt").write_text(f"file {d} {f}\n")
    lines = []
    n = 0
    while sum(map(len, lines)) < 2_000_000:
        n += 1
        # Now and then a line longer than a piece (1,000 bytes).
        lines.append(f"{n:06} " + ("lorem ipsum " * (120 if n % 97 == 0 else 6)) + "\n")
    (root / "big.txt").write_text("".join(lines))
    return root


def filesystem(root: Path) -> list[str]:
    return [NODE, FILESYSTEM, str(root)]


async def test_a_small_answer_passes_through_untouched(tree):
    async with session(filesystem(tree)) as direct, session(gateway(filesystem(tree))) as through:
        for tool, arguments in [
            ("list_allowed_directories", {}),
            ("get_file_info", {"path": str(tree / "dir00" / "file000.txt")}),
            ("list_directory", {"path": str(tree / "dir07")}),
        ]:
            theirs = await direct.call_tool(tool, arguments)
            ours = await through.call_tool(tool, arguments)
            assert ours.content == theirs.content
            assert ours.structured_content == theirs.structured_content


async def test_the_tree_of_5000_files_pages_back_into_the_servers_tree(tree):
    async with session(filesystem(tree)) as direct, session(gateway(filesystem(tree))) as through:
        whole = await direct.call_tool("directory_tree", {"path": str(tree)})
        expected = json.loads(whole.content[0].text)
        assert len(whole.content[0].text) > 300_000
        found = await probe(through, "directory_tree", {"path": str(tree)})
        assert found["total_items"] == len(expected) == 51
        assert await pages(through, "directory_tree", found["continuation_token"]) == expected


async def test_a_2mb_file_is_summarized_in_lines_and_pages_back_into_the_file(tree):
    text = (tree / "big.txt").read_text()
    async with session(filesystem(tree)) as direct, session(gateway(filesystem(tree))) as through:
        whole = await direct.call_tool("read_text_file", {"path": str(tree / "big.txt")})
        assert whole.content[0].text == text
        found = await probe(through, "read_text_file", {"path": str(tree / "big.txt")})
        token = found["continuation_token"]
        summary = await answer(through, "read_text_file", {"continuation_token": token, "mode": "summary"})
        lines = summary["text"]
        assert lines["lines"] == text.count("\n")
        assert lines["bytes"] == len(text.encode())
        assert lines["longest_line"] == max(map(len, text.splitlines()))
        assert lines["head"][0] == text.splitlines()[0][:120] + ("…" if len(text.splitlines()[0]) > 120 else "")
        # Every line begins with its number: six digits.
        assert lines["starts"]["values"] == {"######": lines["lines"]}, lines["starts"]
        assert "".join(await pages(through, "read_text_file", token)) == text


async def test_a_search_pages_back_into_the_servers_list(tree):
    arguments = {"path": str(tree), "pattern": "**/file0*"}
    async with session(filesystem(tree)) as direct, session(gateway(filesystem(tree))) as through:
        whole = await direct.call_tool("search_files", arguments)
        found = await probe(through, "search_files", arguments)
        assert "".join(await pages(through, "search_files", found["continuation_token"])) == whole.content[0].text


async def test_a_graph_of_1000_entities_created_in_bulk_reads_back_through_its_token(tmp_path):
    env = {"MEMORY_FILE_PATH": str(tmp_path / "memory.jsonl")}
    entities = [
        {"name": f"device-{n:04}", "entityType": "device", "observations": [f"rack {n % 40}", "in service"]}
        for n in range(1_000)
    ]
    memory = [NODE, MEMORY]
    async with session(gateway(memory), env) as through:
        created = await probe(through, "create_entities", {"entities": entities})
        echoed = await pages(through, "create_entities", created["continuation_token"])
        assert echoed == entities
        graph = await probe(through, "read_graph", {})
        # Of the graph's two lists, the entities page.
        assert graph["paged"] == "entities", graph
        token = graph["continuation_token"]
        read = await pages(through, "read_graph", token)
    async with session(memory, env) as direct:
        whole = await direct.call_tool("read_graph", {})
        expected = whole.structured_content or json.loads(whole.content[0].text)
    assert len(expected["entities"]) == 1_000
    assert read == expected["entities"]


async def test_a_bulk_write_configured_as_one_answers_its_envelope_and_reads_back_through_its_token(tmp_path):
    env = {"MEMORY_FILE_PATH": str(tmp_path / "memory.jsonl")}
    config = tmp_path / "gateway.toml"
    config.write_text(
        '[tools.create_entities]\nwrite = { kind = "bulk_create", id = "name", items = "/entities" }\n'
    )
    entities = [
        {"name": f"rack-{n:04}", "entityType": "rack", "observations": [f"row {n % 12}", "powered"]}
        for n in range(1_000)
    ]
    async with session(gateway([NODE, MEMORY], config), env) as through:
        listed = await through.list_tools()
        create = next(tool for tool in listed.tools if tool.name == "create_entities")
        assert {"verify", "continuation_token"} <= set(create.input_schema["properties"])
        envelope = await answer(through, "create_entities", {"entities": entities})
        assert envelope["accepted"] == 1_000, envelope
        assert envelope["status_code"] == 201
        assert envelope["data_size"] == compact(entities)
        # Every id, in order, or none (the envelope keeps its bound).
        assert envelope.get("ids", [e["name"] for e in entities]) == [e["name"] for e in entities]
        written = await pages(through, "create_entities", envelope["continuation_token"])
        assert written == entities
        # `verify: true` on a write that fits: the server's own answer.
        one = [{"name": "rack-extra", "entityType": "rack", "observations": []}]
        verified = await through.call_tool("create_entities", {"entities": one, "verify": True})
        assert verified.structured_content == one or json.loads(verified.content[0].text) == one
