"""The README's quick start, served over stdio, as the official MCP client sees it.

Usage: quickstart_client.py BINARY NAME

Starts BINARY, checks that it introduces itself as NAME 0.1.0, prints its
`tools/list` answer (camelCase, as on the wire), and writes and reads a note
back through the envelope the README shows.
"""

from __future__ import annotations

import asyncio
import json
import sys

from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client


def structured(result) -> dict:
    """A successful call's `structuredContent`, checked against its text."""
    text = result.content[0].text
    assert not result.is_error, f"the call failed: {text}"
    assert json.loads(text) == result.structured_content, "text and structuredContent differ"
    return result.structured_content


async def main(binary: str, name: str) -> None:
    async with stdio_client(StdioServerParameters(command=binary)) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            server = init.server_info
            assert (server.name, server.version) == (name, "0.1.0"), (
                f"the server calls itself {server.name} {server.version}, not {name} 0.1.0"
            )
            print(f"serverInfo: {server.name} {server.version}")

            listed = await session.list_tools()
            print("tools/list:")
            print(listed.model_dump_json(by_alias=True, exclude_unset=True, indent=2))
            tools = {tool.name: tool for tool in listed.tools}
            assert sorted(tools) == ["note_create", "note_get"], sorted(tools)
            assert "verify" in tools["note_create"].input_schema["properties"]

            created = structured(
                await session.call_tool("note_create", {"title": "groceries", "body": "milk"})
            )
            # The envelope the README shows.
            assert created == {"id": 1, "title": "groceries", "status_code": 201, "data_size": 42}, created
            note = structured(await session.call_tool("note_get", {"id": 1}))
            assert note == {"id": 1, "title": "groceries", "body": "milk"}, note
            print(f"note_create: {json.dumps(created)}")


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:]))
