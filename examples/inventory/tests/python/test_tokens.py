"""What answers cost, as the official Python client sees it: the usage
report in `_meta` (`--usage`), a tool surface of only the dispatcher
(`--surface dispatcher`), output schemas the client validates every answer
against (`--output-schema`), and a summary that counts devices per site.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from conftest import serve
from inventory_client import Inventory, assert_fits, log, new_devices, read_pages

pytestmark = pytest.mark.anyio

USAGE = "io.github.mcp-light/usage"
ENCODINGS = {"cl100k_base", "o200k_base"}
TRANSPORTS = pytest.mark.parametrize("transport", ["stdio", "http"])


def usage(result) -> dict[str, dict[str, int]]:
    """The usage report of a result: encoding -> {answer, full}."""
    assert result.meta is not None and USAGE in result.meta, f"no {USAGE} in _meta: {result.meta}"
    report = result.meta[USAGE]
    assert set(report) == ENCODINGS, report
    for counts in report.values():
        assert set(counts) == {"answer", "full"}, counts
        assert all(isinstance(n, int) and n > 0 for n in counts.values()), counts
    return report


# --- the usage report ---


@TRANSPORTS
async def test_usage_reports_an_envelope_against_the_full_result_it_stands_for(transport):
    async with serve(transport, "--usage") as inventory:
        await inventory.create_site()
        flat = await inventory.call("device_bulk_create", {"devices": new_devices(60)})
        for counts in usage(flat).values():
            assert counts["answer"] * 5 < counts["full"], usage(flat)

        # Ten devices (7 KB) are within what this client keeps: `full`
        # answers them whole, and the envelope's `full` is exactly what the
        # full result costs. What the model reads of that answer is the
        # list inside `{"result":…}` (its structuredContent), a token or
        # two more.
        routed = {"resource": "device", "action": "bulk_create", "params": {"devices": new_devices(10, prefix="r")}}
        envelope = await inventory.call("inventory", routed)
        token = json.loads(envelope.content[0].text)["continuation_token"]
        full = await inventory.call("inventory", {"continuation_token": token, "mode": "full"})
        assert len(json.loads(full.content[0].text)) == 10
        for encoding, counts in usage(full).items():
            assert counts["full"] == usage(envelope)[encoding]["full"], (usage(full), usage(envelope))
            assert counts["full"] < counts["answer"] <= counts["full"] + 5, usage(full)

        # Sixty (42 KB) are not: `full` answers the first page, whose report
        # counts it against the same full result the envelope stands for.
        routed = {"resource": "device", "action": "bulk_create", "params": {"devices": new_devices(60, prefix="s")}}
        envelope = await inventory.call("inventory", routed)
        token = json.loads(envelope.content[0].text)["continuation_token"]
        page = await inventory.call("inventory", {"continuation_token": token, "mode": "full"})
        assert not page.is_error
        assert_fits(page.structured_content)
        assert "note" in page.structured_content and page.structured_content["has_more"]
        for encoding, counts in usage(page).items():
            assert counts["full"] == usage(envelope)[encoding]["full"], (usage(page), usage(envelope))
            assert counts["answer"] < counts["full"]
        log(f"{transport} usage of a 60-device bulk create: flat {usage(flat)}, routed {usage(envelope)}")


@TRANSPORTS
async def test_usage_reports_a_probe_and_its_pages_against_the_stored_list(transport):
    async with serve(transport, "--usage", "--seed", "100") as inventory:
        probe = await inventory.call("device_list")
        token = json.loads(probe.content[0].text)["continuation_token"]
        page = await inventory.call("device_list", {"continuation_token": token, "page_size": 5})
        # 100 devices are more than this client keeps: `full` answers the
        # first page, counted against the stored list as every page is.
        full = await inventory.call("device_list", {"continuation_token": token, "mode": "full"})
        assert not full.is_error
        assert_fits(full.structured_content)
        assert full.structured_content["page"] == 1 and "note" in full.structured_content
        for encoding, stored in usage(probe).items():
            assert usage(page)[encoding]["full"] == stored["full"]
            assert usage(page)[encoding]["answer"] < stored["full"]
            assert usage(full)[encoding]["full"] == stored["full"]
            assert usage(page)[encoding]["answer"] < usage(full)[encoding]["answer"] < stored["full"]


@TRANSPORTS
async def test_usage_reports_plain_answers_and_errors_as_their_own_full_result(transport):
    async with serve(transport, "--usage") as inventory:
        await inventory.create_site()
        for result in [
            await inventory.call("site_list"),
            await inventory.call("device_retrieve", {"id": "nope"}),
        ]:
            for counts in usage(result).values():
                assert counts["answer"] == counts["full"]


async def test_without_usage_no_answer_carries_the_report():
    async with serve("stdio") as inventory:
        result = await inventory.call("site_list")
        assert not (result.meta or {}).get(USAGE)


# --- the dispatcher surface and describe ---


async def test_the_dispatcher_surface_publishes_one_tool_and_describe_teaches_each_action():
    async with serve("stdio") as both, serve("stdio", "--surface", "dispatcher") as lean:
        flat = {t.name: t for t in (await both.session.list_tools()).tools}
        tools = (await lean.session.list_tools()).tools
        assert [t.name for t in tools] == ["inventory"]
        assert "describe" in tools[0].input_schema["properties"]

        for name, tool in flat.items():
            if name == "inventory":
                continue
            resource, _, action = name.partition("_")
            described = await lean.ok(
                "inventory", {"resource": resource, "action": action, "describe": True}
            )
            expected = dict(tool.input_schema)
            expected["properties"] = {
                key: value
                for key, value in tool.input_schema["properties"].items()
                if key not in ("verify", "continuation_token", "mode", "page", "page_size", "filter_keys")
            }
            # Spelled for a reader: an optional argument is one left out of
            # `required`, without the null branch the published schema has.
            assert described["params_schema"] == for_reader(expected), name
            assert '"null"' not in json.dumps(described["params_schema"]), name
            assert described["description"] == tool.description, name


def for_reader(schema):
    """`schema` for a reader: no null branches (a one-branch union becomes its
    branch), no `additionalProperties: false`, no `type: object` beside
    `properties`."""
    if isinstance(schema, list):
        return [for_reader(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: for_reader(value) for key, value in schema.items()}
    for union in ("anyOf", "oneOf"):
        branches = out.get(union)
        if not isinstance(branches, list):
            continue
        kept = [branch for branch in branches if branch.get("type") != "null"]
        if len(kept) == len(branches):
            continue
        if "default" in out and out["default"] is None:
            del out["default"]
        out[union] = kept
        if len(kept) == 1:
            del out[union]
            for key, value in kept[0].items():
                out.setdefault(key, value)
    if out.get("additionalProperties") is False:
        del out["additionalProperties"]
    if out.get("type") == "object" and isinstance(out.get("properties"), dict):
        del out["type"]
    return out


async def test_one_wrong_call_through_the_dispatcher_teaches_the_shape_of_params():
    async with serve("stdio", "--surface", "dispatcher") as inventory:
        await inventory.ok(
            "inventory",
            {"resource": "site", "action": "create", "params": {"site": {"name": "Lab", "slug": "py-lab"}}},
        )
        wrong = {"resource": "device", "action": "create", "params": {"name": "py-leaf-0001"}}
        message = await inventory.error("inventory", wrong)
        assert "unknown field `name`" in message
        problem, _, schema = message.partition(" takes: ")
        assert "for resource `device` and action `create`" in problem
        schema = json.loads(schema)
        assert schema["required"] == ["device"]
        # What the error taught is enough to succeed.
        device = new_devices(1)[0]
        assert set(device) <= set(schema["properties"]["device"]["properties"])
        right = {"resource": "device", "action": "create", "params": {"device": device}}
        created = await inventory.ok("inventory", right)
        assert created["status_code"] == 201


async def test_a_tool_published_only_through_the_dispatcher_says_how_to_reach_it():
    async with serve("stdio", "--surface", "dispatcher") as inventory:
        message = await inventory.error("site_list")
        assert message.startswith("`site_list` is published only through `inventory` here")
        assert '"resource": "site", "action": "list"' in message


async def test_the_flat_surface_publishes_no_dispatcher():
    async with serve("stdio", "--surface", "flat") as inventory:
        names = {t.name for t in (await inventory.session.list_tools()).tools}
        assert "inventory" not in names and "device_create" in names
        assert "unknown tool `inventory`" in await inventory.error("inventory", {"resource": "site", "action": "list"})


# --- output schemas, validated by the client on every answer ---


async def every_shape(inventory: Inventory) -> dict[str, object]:
    """Calls that answer each shape a tool answers; the client validates
    each against the tool's output schema and raises if it does not match."""
    answers: dict[str, object] = {}
    site = await inventory.create_site()
    answers["single envelope"] = created = await inventory.ok("device_create", {"device": new_devices(1)[0]})
    answers["bulk envelope with ids"] = await inventory.ok(
        "device_bulk_create", {"devices": new_devices(3, prefix="b")}
    )
    answers["destroy envelope"] = await inventory.ok("device_destroy", {"id": created["id"]})
    answers["verify echo, an object"] = await inventory.ok(
        "device_create", {"device": new_devices(1, prefix="v")[0], "verify": True}
    )
    answers["verify echo, a list"] = await inventory.ok(
        "device_bulk_create", {"devices": new_devices(2, prefix="w"), "verify": True}
    )
    answers["plain read, an object"] = await inventory.ok("site_retrieve", {"id": site["id"]})
    answers["plain read, a list"] = await inventory.ok("site_list")

    # Six devices are within the inline budget: the list itself, as
    # `{"result": [...]}` in the structured content.
    answers["heavy read within its inline budget"] = whole = await inventory.ok("device_list")
    assert isinstance(whole, list) and len(whole) == 6, whole
    await inventory.ok("device_bulk_create", {"devices": new_devices(30, prefix="p")})
    probe = await inventory.ok("device_list")
    answers["probe"] = probe
    token = {"continuation_token": probe["continuation_token"]}
    answers["page"] = await inventory.ok("device_list", token)
    answers["summary"] = await inventory.ok("device_list", {**token, "mode": "summary"})
    answers["filtered"] = await inventory.ok(
        "device_list", {**token, "mode": "filtered", "filter_keys": ["id", "name"]}
    )
    answers["full"] = await inventory.ok("device_list", {**token, "mode": "full"})

    routed = {"resource": "device", "action": "bulk_create", "params": {"devices": new_devices(3, prefix="r")}}
    answers["dispatcher envelope with a token"] = envelope = await inventory.ok("inventory", routed)
    stored = {"continuation_token": envelope["continuation_token"]}
    answers["dispatcher page"] = await inventory.ok("inventory", stored)
    answers["dispatcher summary"] = await inventory.ok("inventory", {**stored, "mode": "summary"})
    answers["dispatcher full"] = await inventory.ok("inventory", {**stored, "mode": "full"})
    answers["dispatcher verify echo"] = await inventory.ok(
        "inventory",
        {"resource": "device", "action": "create", "params": {"device": new_devices(1, prefix="x")[0]}, "verify": True},
    )
    answers["dispatcher plain read"] = await inventory.ok("inventory", {"resource": "site", "action": "list"})
    answers["dispatcher probe"] = await inventory.ok("inventory", {"resource": "device", "action": "list"})
    answers["describe"] = await inventory.ok(
        "inventory", {"resource": "device", "action": "create", "describe": True}
    )
    return answers


@TRANSPORTS
async def test_the_client_validates_every_shape_against_the_output_schemas(transport):
    async with serve(transport, "--output-schema") as inventory:
        tools = (await inventory.session.list_tools()).tools
        assert all(t.output_schema and t.output_schema["type"] == "object" for t in tools)
        answers = await every_shape(inventory)
        # Each answer went through the client's validation; the shapes are
        # the ones named (not just any object).
        assert set(answers["probe"]) >= {"preview", "total_size", "continuation_token"}
        assert {"items", "has_more"} <= set(answers["dispatcher page"])
        assert answers["summary"]["type"] == "list"
        assert "params_schema" in answers["describe"]


async def test_the_client_really_validates_what_the_server_answers():
    # A schema the answer cannot match is refused by this client, so the
    # test above passing means every shape matched.
    async with serve("stdio", "--output-schema") as inventory:
        await inventory.session.list_tools()
        inventory.session._tool_output_schemas["site_list"] = {"type": "object", "required": ["nothing"]}
        inventory.session._tool_output_validators.pop("site_list", None)
        with pytest.raises(RuntimeError, match="Invalid structured content returned by tool site_list"):
            await inventory.call("site_list")


# --- the summary ---


async def test_the_summary_of_500_devices_counts_them_per_site_and_per_status_exactly():
    async with serve("stdio", "--seed", "500", "--output-schema") as inventory:
        probe = await inventory.ok("device_list")
        token = {"continuation_token": probe["continuation_token"]}
        summary = await inventory.ok("device_list", {**token, "mode": "summary"})
        # Every device, read page by page at the size the pages report.
        devices = await read_pages(inventory, "device_list", probe["continuation_token"], page_size=200)
        assert summary["count"] == len(devices) == 500
        for field in ("site_slug", "status", "role"):
            assert summary["fields"][field]["values"] == dict(Counter(d[field] for d in devices)), field
        text = json.dumps(summary, separators=(",", ":"))
        log(f"summary of 500 devices: {len(text)} bytes, against {probe['total_size']} stored")
