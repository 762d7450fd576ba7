"""The inventory example driven by the official Python MCP client.

Each test starts the real binary (over stdio, or over Streamable HTTP on a
free port) with an in-memory database, so tests share nothing.
"""

from __future__ import annotations

import json

import anyio

import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from conftest import serve
from inventory_client import (
    READ_TIMEOUT,
    Inventory,
    log,
    new_devices,
    stdio_inventory,
)

pytestmark = pytest.mark.anyio

WRITES = {
    "device_create",
    "device_bulk_create",
    "device_update",
    "device_partial_update",
    "device_destroy",
    "site_create",
}
READS = {"device_retrieve", "device_list", "site_retrieve", "site_list"}
DEVICE_FIELDS = [
    "id", "url", "name", "site_slug", "role", "device_type", "platform", "serial",
    "asset_tag", "status", "rack", "position", "face", "airflow", "comments", "tags",
    "custom_fields", "created", "last_updated",
]  # fmt: skip


def compact(value) -> int:
    """Bytes of compact JSON, as `data_size` counts them."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


async def test_tools_list_shows_verify_on_writes_and_tokens_on_device_list_and_inventory():
    async with stdio_inventory() as inventory:
        tools = {t.name: t for t in (await inventory.session.list_tools()).tools}
        assert set(tools) == WRITES | READS | {"inventory"}
        for name, tool in tools.items():
            properties = tool.input_schema["properties"]
            assert ("verify" in properties) == (name in WRITES | {"inventory"}), name
            discloses = "continuation_token" in properties
            assert discloses == (name in {"device_list", "inventory"}), name
        log("tools/list bytes: " + ", ".join(
            f"{name} {compact(tool.model_dump(by_alias=True, exclude_none=True))}"
            for name, tool in sorted(tools.items())
        ))  # fmt: skip


async def test_flat_bulk_create_of_60_answers_ids_and_no_token(inventory: Inventory):
    sent = new_devices(60)
    envelope = await inventory.ok("device_bulk_create", {"devices": sent})
    assert list(envelope) == ["accepted", "status_code", "data_size", "ids"]
    assert envelope["accepted"] == 60
    assert envelope["status_code"] == 201
    assert len(envelope["ids"]) == len(set(envelope["ids"])) == 60
    # The ids reach what was written, in order, through the retrieve tool.
    last = await inventory.ok("device_retrieve", {"id": envelope["ids"][-1]})
    assert last["name"] == sent[-1]["name"]
    log(f"flat 60-device envelope: {compact(envelope)} bytes; data_size {envelope['data_size']}")


async def test_a_bulk_create_reports_progress_per_chunk_and_logs_one_line_per_write():
    logs = []

    async def on_log(params):
        logs.append((params.level, params.logger, params.data))

    progress = []

    async def on_progress(done, total, message):
        progress.append((done, total, message))

    async with stdio_inventory(logging_callback=on_log) as inventory:
        await inventory.create_site()
        result = await inventory.session.call_tool(
            "device_bulk_create",
            {"devices": new_devices(120)},
            progress_callback=on_progress,
        )
        assert not result.is_error, result
        assert result.structured_content["accepted"] == 120
        # The client runs each progress callback as a task of its own, which
        # may not have run when the answer arrives: give them the time to,
        # before the session closes and cancels what is left.
        with anyio.move_on_after(10):
            while len(progress) < 3 or len(logs) < 2:
                await anyio.sleep(0.01)
    # One report per 50 devices inserted, and one for the last.
    assert progress == [(50, 120, "inserted"), (100, 120, "inserted"), (120, 120, "inserted")]
    assert logs == [
        ("info", "inventory", {"write": "created", "resource": "site", "key": 1}),
        ("info", "inventory", {"write": "created", "resource": "devices", "key": 120}),
    ]


async def test_dispatcher_bulk_create_answers_a_token_that_redeems_without_writing_again(
    inventory: Inventory,
):
    sent = new_devices(60)
    envelope = await inventory.ok(
        "inventory",
        {"resource": "device", "action": "bulk_create", "params": {"devices": sent}},
    )
    assert list(envelope) == ["accepted", "status_code", "data_size", "continuation_token"]
    assert envelope["accepted"] == 60
    assert await inventory.device_count() == 60

    full = await inventory.ok(
        "inventory", {"continuation_token": envelope["continuation_token"], "mode": "full"}
    )
    assert [d["name"] for d in full] == [d["name"] for d in sent]
    assert all(list(d) == DEVICE_FIELDS for d in full)
    assert compact(full) == envelope["data_size"]
    assert await inventory.device_count() == 60, "redeeming ran the write again"
    log(f"dispatcher 60-device envelope: {compact(envelope)} bytes; "
        f"full echo {envelope['data_size']} bytes, {envelope['data_size'] // 60} per device")  # fmt: skip


async def test_verify_true_answers_the_full_objects(inventory: Inventory):
    sent = new_devices(3)
    devices = await inventory.ok("device_bulk_create", {"devices": sent, "verify": True})
    assert [d["name"] for d in devices] == [d["name"] for d in sent]
    assert all(list(d) == DEVICE_FIELDS for d in devices)
    assert devices[0]["url"] == f"/api/dcim/devices/{devices[0]['id']}/"

    one = await inventory.ok(
        "inventory",
        {
            "resource": "device",
            "action": "create",
            "params": {"device": new_devices(1, prefix="v")[0]},
            "verify": True,
        },
    )
    assert list(one) == DEVICE_FIELDS
    assert "continuation_token" not in one


async def test_single_writes_answer_lean_envelopes_with_the_light_keys(inventory: Inventory):
    device = new_devices(1)[0]
    created = await inventory.ok("device_create", {"device": device})
    assert list(created) == ["id", "url", "name", "site_slug", "role", "status_code", "data_size"]
    assert created["status_code"] == 201
    device_id = created["id"]

    patched = await inventory.ok(
        "device_partial_update", {"id": device_id, "changes": {"status": "offline"}}
    )
    assert (patched["id"], patched["status_code"]) == (device_id, 200)
    moved = {**device, "role": "spine"}
    replaced = await inventory.ok("device_update", {"id": device_id, "device": moved})
    assert replaced["role"] == "spine"
    stored = await inventory.ok("device_retrieve", {"id": device_id})
    assert (stored["status"], stored["role"]) == ("active", "spine")  # PUT replaced the patch

    deleted = await inventory.ok("device_destroy", {"id": device_id})
    assert deleted == {"id": device_id, "deleted": True, "status_code": 204}
    gone = await inventory.error("device_retrieve", {"id": device_id})
    assert f"no device with id `{device_id}`" in gone


async def test_device_list_over_500_devices_answers_a_probe_and_pages():
    async with stdio_inventory("--seed", "500") as inventory:
        probe = await inventory.ok("device_list")
        assert list(probe) == [
            "preview", "total_size", "total_items", "available_modes", "continuation_token", "usage",
        ]  # fmt: skip
        assert probe["total_items"] == 500
        assert probe["total_size"] > 500 * 600
        assert len(json.dumps(probe["preview"], separators=(",", ":"), ensure_ascii=False)) <= 200
        token = probe["continuation_token"]

        first = await inventory.ok("device_list", {"continuation_token": token})
        assert (first["page"], first["page_size"], first["total"]) == (1, 20, 500)
        assert first["has_more"] and len(first["items"]) == 20
        last = await inventory.ok(
            "device_list", {"continuation_token": token, "page": 3, "page_size": 200}
        )
        assert len(last["items"]) == 100 and not last["has_more"]

        # 19 leafs at ams1 are within the inline budget: the list itself.
        leafs = await inventory.ok("device_list", {"role": "leaf", "site_slug": "ams1"})
        assert len(leafs) == 19, leafs
        assert all((d["role"], d["site_slug"]) == ("leaf", "ams1") for d in leafs)
        # 31 out-of-band devices at nyc3 are over it: a probe, and its page.
        oob = await inventory.ok("device_list", {"role": "oob", "site_slug": "nyc3"})
        page = await inventory.ok(
            "device_list", {"continuation_token": oob["continuation_token"], "page_size": 200}
        )
        assert page["total"] == 31
        assert {(d["role"], d["site_slug"]) for d in page["items"]} == {("oob", "nyc3")}
        log(f"device_list probe over 500 devices: {compact(probe)} bytes "
            f"for {probe['total_size']} bytes stored")  # fmt: skip


async def test_token_from_one_http_session_is_refused_in_another(http_server):
    async with http_server.session() as alice, http_server.session() as bob:
        await alice.create_site()
        envelope = await alice.ok(
            "inventory",
            {"resource": "device", "action": "bulk_create",
             "params": {"devices": new_devices(60)}},
        )  # fmt: skip
        redeem = {"continuation_token": envelope["continuation_token"], "mode": "full"}
        refused = await bob.error("inventory", redeem)
        assert "issued to another caller" in refused
        assert len(await alice.ok("inventory", redeem)) == 60


async def test_failed_bulk_write_leaves_the_database_as_it_was(inventory: Inventory):
    await inventory.ok("device_bulk_create", {"devices": new_devices(10)})
    batch = new_devices(40, prefix="new")
    batch[30]["site_slug"] = "atlantis"
    message = await inventory.error("device_bulk_create", {"devices": batch})
    assert "device 31 of 40 in the batch (`new-leaf-0031`)" in message
    assert "unknown site `atlantis`" in message and "Nothing was written" in message
    assert await inventory.device_count() == 10

    clash = new_devices(40, prefix="new")
    clash[39]["name"] = "py-leaf-0001"  # taken at py-lab by the first batch
    message = await inventory.error("device_bulk_create", {"devices": clash})
    assert "already has a device named `py-leaf-0001`" in message
    assert await inventory.device_count() == 10


async def test_wrong_argument_type_is_a_clear_error_and_the_server_answers_the_next_call(
    inventory: Inventory,
):
    message = await inventory.error("device_bulk_create", {"devices": "sixty"})
    assert "`device_bulk_create` at `devices`" in message and "expected an array" in message
    message = await inventory.error("device_retrieve", {"id": 42})
    assert "at `id`" in message and "UUID" in message
    assert (await inventory.ok("site_list"))[0]["slug"] == "py-lab"


async def test_unknown_tool_is_a_clear_error_and_the_server_answers_the_next_call(
    inventory: Inventory,
):
    message = await inventory.error("device_explode", {})
    assert "unknown tool `device_explode`" in message and "device_bulk_create" in message
    assert (await inventory.ok("site_list"))[0]["slug"] == "py-lab"


async def test_unknown_dispatcher_action_is_a_clear_error_and_the_server_answers_the_next_call(
    inventory: Inventory,
):
    message = await inventory.error(
        "inventory", {"resource": "device", "action": "explode", "params": {}}
    )
    assert "unknown action `explode` for resource `device`" in message
    assert "bulk_create" in message
    sites = await inventory.ok("inventory", {"resource": "site", "action": "list"})
    assert sites[0]["slug"] == "py-lab"


async def multi_megabyte_redemption(inventory: Inventory) -> None:
    """3,000 devices written through the dispatcher, redeemed whole."""
    await inventory.create_site()
    sent = new_devices(3000)
    envelope = await inventory.ok(
        "inventory",
        {"resource": "device", "action": "bulk_create", "params": {"devices": sent}},
    )
    assert envelope["accepted"] == 3000
    assert envelope["data_size"] > 2_000_000
    full = await inventory.ok(
        "inventory", {"continuation_token": envelope["continuation_token"], "mode": "full"}
    )
    assert len(full) == 3000
    assert full[-1]["name"] == sent[-1]["name"]
    assert compact(full) == envelope["data_size"]
    log(f"3,000-device full redemption: {envelope['data_size']} bytes")


async def test_multi_megabyte_full_redemption_reaches_the_client_whole_over_stdio():
    async with serve("stdio") as inventory:
        await multi_megabyte_redemption(inventory)


async def test_multi_megabyte_full_redemption_reaches_the_client_whole_over_http(http_server):
    # The protocol version without sessions, where rmcp can answer plain
    # JSON when the server allows it (in session mode it always streams SSE).
    async with streamable_http_client(http_server.url) as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=READ_TIMEOUT) as session:
            await session.discover()
            await multi_megabyte_redemption(Inventory(session))


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_list_over_the_store_cap_answers_a_summary_without_token_not_the_list(transport):
    # 1 MB of store, so one result may take 256 KB; 3,000 devices are 2 MB;
    # no disk tier to spill to.
    async with serve(transport, "--store-max-mb", "1", "--spill-max-mb", "0") as inventory:
        await inventory.create_site()
        written = await inventory.ok("device_bulk_create", {"devices": new_devices(3000)})
        assert written["accepted"] == 3000 and "ids" in written
        result = await inventory.call("device_list")
        text = result.content[0].text
        assert not result.is_error, text
        probe = json.loads(text)
        assert result.structured_content == probe, "text and structuredContent differ"
        assert list(probe) == ["preview", "total_size", "summary", "why_no_token", "usage"]
        assert probe["total_size"] > 2_000_000
        assert probe["summary"]["count"] == 3000
        assert "limit" in probe["why_no_token"], probe["why_no_token"]
        answered = compact(result.model_dump(by_alias=True, exclude_none=True))
        assert answered < 20_000, f"{answered} bytes answered"
        log(f"3,000 devices over a 1 MB store: {answered} bytes answered, "
            f"{probe['total_size']} bytes not kept")  # fmt: skip


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_list_larger_than_the_memory_budget_spills_to_disk_and_pages_whole(transport):
    # 1 MB of memory for the store; 3,000 devices are 2 MB: kept on disk.
    async with serve(transport, "--store-max-mb", "1") as inventory:
        await inventory.create_site()
        written = await inventory.ok("device_bulk_create", {"devices": new_devices(3000)})
        probe = await inventory.ok("device_list")
        token = probe["continuation_token"]
        assert probe["total_size"] > 2_000_000
        ids = []
        page = 1
        while True:
            answer = await inventory.ok(
                "device_list", {"continuation_token": token, "page": page, "page_size": 200}
            )
            assert answer["total"] == 3000
            ids += [device["id"] for device in answer["items"]]
            if not answer["has_more"]:
                break
            page += 1
        assert ids == written["ids"], "the pages concatenate to the written list, in order"
        summary = await inventory.ok("device_list", {"continuation_token": token, "mode": "summary"})
        assert summary["count"] == 3000
        assert sum(summary["fields"]["site_slug"]["values"].values()) == 3000
        if transport == "stdio":
            # Over an HTTP session rmcp answers SSE, which this client caps
            # at 1 MiB an event (the multi-megabyte tests above use
            # stateless requests, answered as JSON).
            full = await inventory.call("device_list", {"continuation_token": token, "mode": "full"})
            assert not full.is_error, full.content[0].text
            assert len(json.loads(full.content[0].text)) == 3000
        log(f"3,000 devices over a 1 MB memory budget: {page} pages of 200 from disk")


async def test_http_binds_port_0_to_a_real_port_and_stops_on_ctrl_c(http_server):
    assert not http_server.url.endswith(":0/mcp")
    async with http_server.session() as inventory:
        assert await inventory.ok("site_list") == []
    assert http_server.stop() == 0
    assert any("shutting down" in line for line in http_server.stderr)


async def test_an_oversized_request_is_refused_and_the_server_answers_the_next_call(http_server):
    # rmcp bounds a request body at 4 MiB (413); 10,000 devices are about 5 MB.
    huge = {"devices": new_devices(10_000)}
    assert compact(huge) > 4 * 1024 * 1024
    async with http_server.session() as alice:
        await alice.create_site()
    with pytest.raises(Exception) as refused:
        async with http_server.session() as alice:
            await alice.call("device_bulk_create", huge)
    assert "MCPError" in repr(refused.value), repr(refused.value)
    async with http_server.session() as bob:
        assert await bob.device_count() == 0, "nothing of the oversized batch was written"
        assert len(await bob.ok("site_list")) == 1
