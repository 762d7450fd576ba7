"""The inventory as an OAuth 2.1 resource server, against an issuer this
test runs itself: an Ed25519 key generated here, the issuer's metadata and
JWKS served on 127.0.0.1, access tokens signed with PyJWT (installed with
the MCP SDK)."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from inventory_client import HttpServer, new_devices
from redis_server import free_port

pytestmark = pytest.mark.anyio


class Issuer:
    """An authorization server: RFC 8414 metadata and a JWKS with one key."""

    def __init__(self):
        self.key = Ed25519PrivateKey.generate()
        jwk = json.loads(jwt.algorithms.OKPAlgorithm.to_jwk(self.key.public_key()))
        jwk.update({"kid": "test-key", "use": "sig", "alg": "EdDSA"})
        self.http = ThreadingHTTPServer(("127.0.0.1", 0), self._handler({"keys": [jwk]}))
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def _handler(self, jwks):
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                documents = {
                    "/.well-known/oauth-authorization-server": {
                        "issuer": issuer.url, "jwks_uri": f"{issuer.url}/jwks",
                    },
                    "/jwks": jwks,
                }  # fmt: skip
                document = documents.get(self.path)
                body = json.dumps(document).encode()
                self.send_response(200 if document else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        return Handler

    def token(
        self, audience: str, subject: str, scope: str = "inventory inventory:read inventory:write"
    ) -> str:
        now = int(time.time())
        claims = {"iss": self.url, "aud": audience, "sub": subject,
                  "iat": now, "exp": now + 600, "scope": scope}  # fmt: skip
        return jwt.encode(claims, self.key, algorithm="EdDSA", headers={"kid": "test-key"})

    def stop(self):
        self.http.shutdown()


@pytest.fixture
def oauth():
    """The issuer, and the inventory accepting its tokens for scope
    `inventory` at its own resource URL (its reads need `inventory:read`
    as well, its writes `inventory:write`)."""
    issuer = Issuer()
    port = free_port()
    resource = f"http://127.0.0.1:{port}/mcp"
    server = HttpServer(
        "--oauth-issuer", issuer.url, "--oauth-audience", resource, "--oauth-scope", "inventory",
        port=port,
    )  # fmt: skip
    try:
        yield issuer, server, resource
    finally:
        server.stop()
        issuer.stop()


INITIALIZE = json.dumps({
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "oauth-test", "version": "1"}},
}).encode()  # fmt: skip


def post(url: str, token: str | None):
    """An `initialize` request: 200 once past authentication."""
    body = INITIALIZE
    headers = {"Content-Type": "application/json",
               "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2025-06-18"}  # fmt: skip
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(url, data=body, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers)
    except urllib.error.HTTPError as refused:
        return refused.code, dict(refused.headers)


async def test_the_protected_resource_metadata_names_the_resource_and_its_issuer(oauth):
    issuer, server, resource = oauth
    base = resource.removesuffix("/mcp")
    for path in ["/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"]:
        with urllib.request.urlopen(base + path, timeout=10) as response:
            metadata = json.load(response)
        assert metadata["resource"] == resource
        assert metadata["authorization_servers"] == [issuer.url]
        assert metadata["scopes_supported"] == ["inventory"]


async def test_no_token_is_401_pointing_to_the_metadata_and_a_missing_scope_is_403(oauth):
    issuer, server, resource = oauth
    status, headers = post(resource, None)
    assert status == 401
    metadata = resource.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
    assert headers["www-authenticate"] == f'Bearer resource_metadata="{metadata}"'

    status, headers = post(resource, issuer.token(resource, "alice", scope="openid"))
    assert status == 403
    assert 'error="insufficient_scope"' in headers["www-authenticate"]
    assert 'scope="inventory"' in headers["www-authenticate"]

    other_audience = issuer.token("http://127.0.0.1:1/mcp", "alice")
    status, headers = post(resource, other_audience)
    assert status == 401 and 'error="invalid_token"' in headers["www-authenticate"]

    status, _ = post(resource, issuer.token(resource, "alice"))
    assert status == 200


async def test_a_subjects_tokens_redeem_for_that_subject_only(oauth):
    issuer, server, resource = oauth
    async with server.stateless(issuer.token(resource, "alice")) as alice:
        await alice.create_site()
        write = await alice.ok(
            "inventory",
            {"resource": "device", "action": "bulk_create",
             "params": {"devices": new_devices(3)}},
        )  # fmt: skip
        redeem = {"continuation_token": write["continuation_token"], "mode": "full"}
        assert len(await alice.ok("inventory", redeem)) == 3
    async with server.stateless(issuer.token(resource, "bob")) as bob:
        assert "issued to another caller" in await bob.error("inventory", redeem)


def call_tool(url: str, token: str, tool: str, arguments: dict) -> tuple[int, dict, bytes]:
    """A `tools/call` on protocol 2026-07-28, as a client without a session
    sends one (the same request a scoped token is answered in full):
    status, headers and body."""
    body = json.dumps({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": tool, "arguments": arguments, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
        }},
    }).encode()  # fmt: skip
    headers = {"Content-Type": "application/json",
               "Accept": "application/json, text/event-stream",
               "MCP-Protocol-Version": "2026-07-28",
               "Mcp-Method": "tools/call", "Mcp-Name": tool,
               "Authorization": f"Bearer {token}"}  # fmt: skip
    request = urllib.request.Request(url, data=body, method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as refused:
        return refused.code, dict(refused.headers), refused.read()


async def test_a_read_only_token_lists_devices_but_a_bulk_create_is_403_naming_inventory_write(
    oauth,
):
    issuer, server, resource = oauth
    writer = issuer.token(resource, "alice")
    reader = issuer.token(resource, "bob", scope="inventory inventory:read")
    async with server.stateless(writer) as alice:
        await alice.create_site()
    async with server.stateless(reader) as bob:
        assert await bob.device_count() == 0
        assert await bob.ok("inventory", {"resource": "device", "action": "list"}) == []

    metadata = resource.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
    challenge = (
        f'Bearer resource_metadata="{metadata}", error="insufficient_scope", '
        'scope="inventory:write"'
    )
    flat = ("device_bulk_create", {"devices": new_devices(3)})
    routed = ("inventory", {"resource": "device", "action": "bulk_create",
                            "params": {"devices": new_devices(3)}})  # fmt: skip
    for tool, arguments in [flat, routed]:
        status, headers, body = call_tool(resource, reader, tool, arguments)
        assert status == 403, (tool, status, body)
        assert headers["www-authenticate"] == challenge, tool
        assert b"inventory:write" in body, body

    async with server.stateless(writer) as alice:
        assert await alice.device_count() == 0, "a refused bulk create wrote nothing"


async def test_a_token_with_read_and_write_scopes_writes(oauth):
    issuer, server, resource = oauth
    token = issuer.token(resource, "alice", scope="inventory inventory:read inventory:write")
    async with server.stateless(token) as alice:
        await alice.create_site()
        written = await alice.ok(
            "inventory",
            {"resource": "device", "action": "bulk_create",
             "params": {"devices": new_devices(3)}},
        )  # fmt: skip
        assert "continuation_token" in written, written
        status, _, body = call_tool(resource, token, "device_bulk_create",
                                    {"devices": new_devices(2, prefix="flat")})  # fmt: skip
        assert status == 200, body
        assert await alice.device_count() == 5


async def test_a_callers_tools_list_is_cut_to_its_scopes_and_its_tokens_to_them(oauth):
    issuer, server, resource = oauth
    writer = issuer.token(resource, "alice")
    reader = issuer.token(resource, "alice", scope="inventory inventory:read")
    lost = issuer.token(resource, "alice", scope="inventory")

    async with server.stateless(writer) as alice:
        everything = (await alice.session.list_tools()).tools
        await alice.create_site()
        await alice.ok(
            "inventory",
            {"resource": "device", "action": "bulk_create",
             "params": {"devices": new_devices(60)}},
        )  # fmt: skip
        probe = await alice.ok("inventory", {"resource": "device", "action": "list"})
        token = probe["continuation_token"]
    async with server.stateless(reader) as bob:
        shown = (await bob.session.list_tools()).tools

    # The reader is shown the reads alone, flat and through the dispatcher.
    names = {tool.name for tool in shown}
    assert {tool.name for tool in everything} - names == {
        "device_bulk_create", "device_create", "device_update",
        "device_partial_update", "device_destroy", "site_create",
    }  # fmt: skip
    dispatcher = next(tool for tool in shown if tool.name == "inventory")
    assert dispatcher.input_schema["properties"]["action"]["enum"] == ["list", "retrieve"]

    # A dispatcher-routed list, minted with inventory:read, is redeemed only
    # while the token grants it, and refused as an unknown token is.
    redeem = {"continuation_token": token, "page": 2, "page_size": 10}
    async with server.stateless(lost) as same_subject:
        refused = await same_subject.error("inventory", redeem)
        assert "unknown, has expired" in refused, refused
        assert "inventory:read" not in refused, refused
    async with server.stateless(reader) as same_subject:
        page = await same_subject.ok("inventory", redeem)
        assert page["total"] == 60 and page["page"] == 2, page
