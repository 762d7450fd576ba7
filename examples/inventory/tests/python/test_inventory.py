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
    KEEPS,
    READ_TIMEOUT,
    HttpServer,
    Inventory,
    assert_fits,
    log,
    new_devices,
    read_pages,
    stdio_inventory,
    written_ids,
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
# The negotiation fields a token is redeemed with: on the heavy read, the
# dispatcher, and every bulk write (the slot its token comes back through).
NEGOTIATION = {"continuation_token", "mode", "page", "page_size", "filter_keys"}
DISCLOSE = {"device_list", "inventory", "device_bulk_create"}
# A client that keeps every byte of a multi-megabyte answer.
KEEPS_ALL = 16 * 1024 * 1024
DEVICE_FIELDS = [
    "id", "url", "name", "site_slug", "role", "device_type", "platform", "serial",
    "asset_tag", "status", "rack", "position", "face", "airflow", "comments", "tags",
    "custom_fields", "created", "last_updated",
]  # fmt: skip


def compact(value) -> int:
    """Bytes of compact JSON, as `data_size` counts them."""
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


async def test_tools_list_shows_verify_on_writes_and_tokens_on_device_list_inventory_and_bulk():
    async with stdio_inventory() as inventory:
        tools = {t.name: t for t in (await inventory.session.list_tools()).tools}
        assert set(tools) == WRITES | READS | {"inventory"}
        for name, tool in tools.items():
            properties = tool.input_schema["properties"]
            assert ("verify" in properties) == (name in WRITES | {"inventory"}), name
            discloses = "continuation_token" in properties
            assert discloses == (name in DISCLOSE), name
            if discloses:
                assert NEGOTIATION <= set(properties), (name, list(properties))
        log("tools/list bytes: " + ", ".join(
            f"{name} {compact(tool.model_dump(by_alias=True, exclude_none=True))}"
            for name, tool in sorted(tools.items())
        ))  # fmt: skip


async def test_flat_bulk_create_of_60_answers_a_token_that_pages_every_id(inventory: Inventory):
    sent = new_devices(60)
    envelope = await inventory.ok("device_bulk_create", {"devices": sent})
    # 60 ids would take the envelope past 1,024 bytes: the count and the token.
    assert list(envelope) == ["accepted", "status_code", "data_size", "continuation_token"]
    assert envelope["accepted"] == 60
    assert envelope["status_code"] == 201
    assert compact(envelope) <= 1024
    # Every id, in the order written, through the token filtered to `id`.
    ids = await written_ids(inventory, "device_bulk_create", envelope)
    assert len(ids) == len(set(ids)) == 60
    # The ids reach what was written, in order, through the retrieve tool.
    first = await inventory.ok("device_retrieve", {"id": ids[0]})
    last = await inventory.ok("device_retrieve", {"id": ids[-1]})
    assert (first["name"], last["name"]) == (sent[0]["name"], sent[-1]["name"])
    # Redeemed, the token pages the written devices themselves; nothing ran again.
    devices = await read_pages(inventory, "device_bulk_create", envelope["continuation_token"])
    assert [d["id"] for d in devices] == ids
    assert [d["name"] for d in devices] == [d["name"] for d in sent]
    assert await inventory.device_count() == 60, "redeeming ran the write again"

    # A few ids fit beside the token.
    few = await inventory.ok("device_bulk_create", {"devices": new_devices(5, prefix="few")})
    assert list(few) == ["accepted", "status_code", "data_size", "continuation_token", "ids"]
    assert compact(few) <= 1024
    assert few["ids"] == await written_ids(inventory, "device_bulk_create", few)
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
        assert_fits(result.structured_content, keeps=1024)
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
    token = envelope["continuation_token"]

    # The whole echo (42 KB) is more than this client keeps: `full`
    # answers its first page and a note naming the call that reads on.
    first = await inventory.ok("inventory", {"continuation_token": token, "mode": "full"})
    assert isinstance(first, dict) and first["page"] == 1 and first["has_more"], first
    assert f"ask page 2 with page_size {first['page_size']}" in first["note"], first["note"]
    # Page by page, every device written, in order, as it was stored.
    written = await read_pages(inventory, "inventory", token)
    assert written[: len(first["items"])] == first["items"]
    assert [d["name"] for d in written] == [d["name"] for d in sent]
    assert all(list(d) == DEVICE_FIELDS for d in written)
    assert compact(written) == envelope["data_size"]
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

    # An echo larger than this client keeps answers its first page, the
    # token that pages the rest, and a note saying so.
    sent = new_devices(30, prefix="big")
    echo = await inventory.ok("device_bulk_create", {"devices": sent, "verify": True})
    assert {"items", "page", "page_size", "continuation_token", "note"} <= set(echo), list(echo)
    assert echo["page"] == 1 and echo["total"] == 30 and echo["has_more"]
    assert len(echo["items"]) == echo["page_size"] < 30
    assert f"page 2 and page_size {echo['page_size']}" in echo["note"], echo["note"]
    rest = await read_pages(
        inventory, "device_bulk_create", echo["continuation_token"], page_size=echo["page_size"]
    )
    assert rest[: echo["page_size"]] == echo["items"]
    assert [d["name"] for d in rest] == [d["name"] for d in sent]
    assert all(list(d) == DEVICE_FIELDS for d in rest)


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

        # A page asked without a size holds as many devices as fit this client.
        first = await inventory.ok("device_list", {"continuation_token": token})
        assert (first["page"], first["total"]) == (1, 500)
        size = first["page_size"]
        assert 1 <= size < 200 and first["has_more"] and len(first["items"]) == size
        # Twice as many would not have fit.
        assert compact(first["items"] * 2) > KEEPS
        # Page 3 of 200 is more than this client keeps: the longest first
        # part of it that fits and lines up, and the next call in a note.
        third = await inventory.ok(
            "device_list", {"continuation_token": token, "page": 3, "page_size": 200}
        )
        assert (third["page"] - 1) * third["page_size"] == 400, third["note"]
        assert len(third["items"]) == third["page_size"] < 200 and third["has_more"]
        assert third["note"].startswith("page_size 200 would answer more than this client keeps")
        assert f"ask page {third['page'] + 1} with page_size {third['page_size']}" in third["note"]
        # Read on as the answers say, every device comes once.
        devices = await read_pages(inventory, "device_list", token, page_size=200)
        assert len({d["id"] for d in devices}) == 500
        assert devices[: len(first["items"])] == first["items"]
        assert devices[400 : 400 + len(third["items"])] == third["items"]

        # 13 active leafs at ams1 are within the inline budget and what this
        # client keeps: the list itself.
        active = {"role": "leaf", "site_slug": "ams1", "status": "active"}
        leafs = await inventory.ok("device_list", active)
        assert isinstance(leafs, list) and len(leafs) == 13, leafs
        assert all((d["role"], d["site_slug"], d["status"]) == ("leaf", "ams1", "active") for d in leafs)
        # All 19 leafs there (13 KB) are within the inline budget (14 KiB)
        # but not what this client keeps: a probe.
        every_leaf = await inventory.ok("device_list", {"role": "leaf", "site_slug": "ams1"})
        assert every_leaf["total_items"] == 19, every_leaf
        # 31 out-of-band devices at nyc3 are over both: a probe, and its pages.
        oob = await inventory.ok("device_list", {"role": "oob", "site_slug": "nyc3"})
        pages = await read_pages(inventory, "device_list", oob["continuation_token"], page_size=200)
        assert len(pages) == 31
        assert {(d["role"], d["site_slug"]) for d in pages} == {("oob", "nyc3")}
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
        assert len(await written_ids(alice, "inventory", envelope)) == 60


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
    """3,000 devices written through the dispatcher, redeemed whole, by a
    client the server is told keeps every byte of it
    (`--unknown-client-bytes`)."""
    inventory.keeps = KEEPS_ALL
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
    async with serve("stdio", "--unknown-client-bytes", str(KEEPS_ALL)) as inventory:
        await multi_megabyte_redemption(inventory)


async def test_multi_megabyte_full_redemption_reaches_the_client_whole_over_http():
    # The protocol version without sessions, where rmcp can answer plain
    # JSON when the server allows it (in session mode it always streams SSE).
    http_server = HttpServer("--unknown-client-bytes", str(KEEPS_ALL))
    try:
        async with streamable_http_client(http_server.url) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=READ_TIMEOUT) as session:
                await session.discover()
                await multi_megabyte_redemption(Inventory(session))
    finally:
        http_server.stop()


@pytest.mark.parametrize("transport", ["stdio", "http"])
async def test_a_list_over_the_store_cap_answers_a_summary_without_token_not_the_list(transport):
    # 1 MB of store, so one result may take 256 KB; 3,000 devices are 2 MB;
    # no disk tier to spill to.
    async with serve(transport, "--store-max-mb", "1", "--spill-max-mb", "0") as inventory:
        await inventory.create_site()
        # The store refuses the bulk's 2 MB result as well: with nothing
        # kept, the envelope lists every id, since nothing else would reach
        # them (docs/contract.md, "Answers that fit the client"). That is
        # the one answer not sized to the client (3,000 ids are 117 KB),
        # so it is read raw, without `ok`'s check.
        bulk = await inventory.call("device_bulk_create", {"devices": new_devices(3000)})
        assert not bulk.is_error, bulk.content[0].text[:300]
        written = bulk.structured_content
        assert written["accepted"] == 3000 and "continuation_token" not in written
        assert len(set(written["ids"])) == 3000
        result = await inventory.call("device_list")
        text = result.content[0].text
        assert not result.is_error, text
        probe = json.loads(text)
        assert result.structured_content == probe, "text and structuredContent differ"
        assert list(probe) == ["preview", "total_size", "summary", "why_no_token", "usage"]
        assert probe["total_size"] > 2_000_000
        assert probe["summary"]["count"] == 3000
        assert "limit" in probe["why_no_token"], probe["why_no_token"]
        assert_fits(result.structured_content, what="the summary probe")
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
        assert "continuation_token" in written and "ids" not in written
        # The bulk's 2 MB result spilled too: its ids, paged from disk.
        ids_written = await written_ids(inventory, "device_bulk_create", written)
        assert len(set(ids_written)) == 3000
        probe = await inventory.ok("device_list")
        token = probe["continuation_token"]
        assert probe["total_size"] > 2_000_000
        devices = await read_pages(inventory, "device_list", token, page_size=200)
        ids = [device["id"] for device in devices]
        assert ids == ids_written, "the pages concatenate to the written list, in order"
        summary = await inventory.ok("device_list", {"continuation_token": token, "mode": "summary"})
        assert summary["count"] == 3000
        assert sum(summary["fields"]["site_slug"]["values"].values()) == 3000
        # `full` of 2 MB answers what this client keeps: its first page,
        # read from disk, and the call that reads on.
        full = await inventory.ok("device_list", {"continuation_token": token, "mode": "full"})
        assert full["page"] == 1 and full["total"] == 3000 and full["has_more"]
        assert full["items"] == devices[: full["page_size"]]
        assert f"ask page 2 with page_size {full['page_size']}" in full["note"], full["note"]
        log(f"3,000 devices over a 1 MB memory budget: pages of {full['page_size']} from disk")


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
