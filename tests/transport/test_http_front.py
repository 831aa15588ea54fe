"""What a request meets before any tool runs over HTTP: Host/Origin first, CORS, a helpful 401, one JSON-RPC
message per POST, the protocol versions, expiring sessions, and who starts with the demo kitchen.

Each test serves the real ASGI app (`server/http.py`) with uvicorn inside the test's event loop.
"""

from __future__ import annotations

import gc
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from asgi_server import serving
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.streamable_http import StreamableHTTPServerTransport
from mcp.types import INVALID_REQUEST, UNSUPPORTED_PROTOCOL_VERSION

from alfred_mcp.app import AlfredApp
from alfred_mcp.config import HttpSettings, Settings
from alfred_mcp.server.http import http_app

pytestmark = pytest.mark.anyio
TOKEN = "front-door-token-0123456789"
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
JSON = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@asynccontextmanager
async def front_door(tmp_path: Path, *, demo: bool = False, **http: Any) -> AsyncIterator[str]:
    """The HTTP app for one token user (alice) on a fresh SQLite file; yields the /mcp URL."""
    settings = Settings(db=str(tmp_path / "k.db"), demo=demo, http=HttpSettings(**http))
    async with serving(lambda port: http_app(AlfredApp.from_settings(settings), "127.0.0.1", port, {TOKEN: "alice"})) as base:
        yield f"{base}/mcp"


def live_sessions() -> int:
    """Handshake-era session transports still alive in this process (what an expired session must release)."""
    gc.collect()
    return sum(isinstance(item, StreamableHTTPServerTransport) for item in gc.get_objects())


async def open_session(raw: httpx2.AsyncClient, url: str) -> httpx2.Response:
    return await raw.post(url, json=INITIALIZE, headers={**JSON, **AUTH})


async def test_idle_legacy_sessions_expire_and_are_released_and_the_cap_holds(tmp_path: Path) -> None:
    """Past the cap a new session gets 503; idle sessions are closed, answer 404, and their transports are freed."""
    before = live_sessions()
    async with front_door(tmp_path, session_idle_timeout=0.5, max_sessions=3) as url, httpx2.AsyncClient(timeout=10) as raw:
        opened = [await open_session(raw, url) for _ in range(3)]
        assert [r.status_code for r in opened] == [200] * 3 and live_sessions() == before + 3
        assert (await open_session(raw, url)).status_code == 503
        with anyio.fail_after(10):
            while live_sessions() > before:
                await anyio.sleep(0.1)
        stale = await raw.post(url, json={**INITIALIZE, "id": 2, "method": "ping"},
                               headers={**JSON, **AUTH, "Mcp-Session-Id": opened[0].headers["mcp-session-id"]})
        assert stale.status_code == 404
        assert [(await open_session(raw, url)).status_code for _ in range(3)] == [200] * 3


REFUSALS = [
    pytest.param({"Host": "evil.example:8765"}, 421, id="foreign-host-no-token"),
    pytest.param({"Origin": "http://evil.example"}, 403, id="foreign-origin-no-token"),
    pytest.param({**AUTH, "Host": "evil.example:8765"}, 421, id="foreign-host-with-token"),
]


async def test_host_and_origin_are_checked_before_the_token(tmp_path: Path) -> None:
    """A DNS-rebinding page gets 421/403 whether or not it has a token: it never learns a token is needed."""
    async with front_door(tmp_path) as url, httpx2.AsyncClient(timeout=10) as raw:
        for case in REFUSALS:
            headers, status = case.values
            response = await raw.post(url, json=INITIALIZE, headers={**JSON, **headers})
            assert (response.status_code, "www-authenticate" in response.headers) == (status, False), case.id
        metadata = await raw.get(url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp"), headers={"Host": "evil.example"})
        assert metadata.status_code == 421


@pytest.mark.parametrize("host", ["kitchen.example", "kitchen.example:443", "localhost", "127.0.0.1:8765"])
async def test_a_served_name_passes_the_host_check_with_or_without_a_port(tmp_path: Path, host: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Behind a load balancer on 80 or 443 the Host is the public name alone: a listed name passes with or without a
    port (and its Origin too), so the request reaches the token check."""
    monkeypatch.setenv("ALFRED_ALLOWED_HOSTS", "kitchen.example")
    async with front_door(tmp_path) as url, httpx2.AsyncClient(timeout=10) as raw:
        response = await raw.post(url, json=INITIALIZE, headers={**JSON, "Host": host, "Origin": f"https://{host}"})
        foreign = await raw.post(url, json=INITIALIZE, headers={**JSON, "Host": f"evil.{host}"})
    assert (response.status_code, foreign.status_code) == (401, 421)


async def test_a_missing_or_wrong_token_gets_a_401_saying_how_to_send_one(tmp_path: Path) -> None:
    """With static tokens there is no OAuth metadata to point to: the 401 says which header to send."""
    async with front_door(tmp_path) as url, httpx2.AsyncClient(timeout=10) as raw:
        missing = await raw.post(url, json=INITIALIZE, headers=JSON)
        wrong = await raw.post(url, json=INITIALIZE, headers={**JSON, "Authorization": "Bearer not-a-known-token-at-all"})
        metadata = await raw.get(url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp"))
    assert (missing.status_code, missing.headers["www-authenticate"]) == (401, 'Bearer realm="alfred-mcp"')
    assert "Send the header 'Authorization: Bearer <token>'" in missing.json()["error_description"]
    assert wrong.status_code == 401 and 'error="invalid_token"' in wrong.headers["www-authenticate"]
    assert "resource_metadata" not in missing.headers["www-authenticate"] + wrong.headers["www-authenticate"]
    assert metadata.status_code == 404


async def test_a_cors_preflight_is_answered_without_a_token_for_allowed_origins_only(tmp_path: Path) -> None:
    preflight = {"Origin": "http://localhost:3000", "Access-Control-Request-Method": "POST",
                 "Access-Control-Request-Headers": "authorization, content-type, mcp-protocol-version, mcp-session-id"}
    async with front_door(tmp_path) as url, httpx2.AsyncClient(timeout=10) as raw:
        allowed = await raw.options(url, headers=preflight)
        foreign = await raw.options(url, headers={**preflight, "Origin": "http://evil.example"})
        call = await raw.post(url, json=INITIALIZE, headers={**JSON, **AUTH, "Origin": "http://localhost:3000"})
    assert allowed.status_code == 200 and allowed.headers["access-control-allow-origin"] in ("*", "http://localhost:3000")
    assert "authorization" in allowed.headers["access-control-allow-headers"].lower()
    assert foreign.status_code == 403
    assert call.status_code == 200 and "mcp-session-id" in call.headers["access-control-expose-headers"].lower()


BAD_BODIES = [
    pytest.param(b'[{"jsonrpc":"2.0","id":1,"method":"ping"}]', "batches are not supported", None, id="batch"),
    pytest.param(b'{"hello":"world"}', "not a JSON-RPC 2.0 message", None, id="not-jsonrpc"),
    pytest.param(b'{"jsonrpc":"1.0","id":5,"method":"ping"}', "not a JSON-RPC 2.0 message", 5, id="wrong-version"),
    pytest.param(b'"ping"', "not a JSON-RPC 2.0 message", None, id="a-string"),
]


async def test_a_body_that_is_not_one_json_rpc_message_is_a_short_invalid_request(tmp_path: Path) -> None:
    """A batch or another JSON shape is -32600 in a few words; too large is 413; not JSON at all is -32700."""
    async with front_door(tmp_path) as url, httpx2.AsyncClient(timeout=30) as raw:
        for case in BAD_BODIES:
            body, words, request_id = case.values
            response = await raw.post(url, content=body, headers={**JSON, **AUTH})
            error = response.json()
            assert (response.status_code, error["id"], error["error"]["code"]) == (400, request_id, INVALID_REQUEST), case.id
            assert words in error["error"]["message"] and len(response.content) < 300, case.id
        huge = await raw.post(url, content=b'{"pad":"' + b"x" * (4 * 1024 * 1024) + b'"}', headers={**JSON, **AUTH})
        broken = await raw.post(url, content=b'{"jsonrpc":"2.0","id":1,', headers={**JSON, **AUTH})
        deep = [await raw.post(url, content=_nested(depth), headers={**JSON, **AUTH}) for depth in (250, 5000)]
    assert huge.status_code == 413
    assert broken.status_code == 400 and broken.json()["error"]["code"] == -32700
    assert [(r.status_code, r.json()["error"]["code"]) for r in deep] == [(400, -32700)] * 2, "too deep: an error, never silence"


def _nested(depth: int) -> bytes:
    return b'{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":' + b"[" * depth + b"]" * depth + b"}}"


async def test_an_unsupported_protocol_version_gets_the_list_of_supported_ones(tmp_path: Path) -> None:
    async with front_door(tmp_path) as url, httpx2.AsyncClient(timeout=10) as raw:
        for version in ["2099-01-01", "1.0", ""]:
            response = await raw.post(url, json=INITIALIZE, headers={**JSON, **AUTH, "MCP-Protocol-Version": version})
            error = response.json()["error"]
            assert response.status_code == 400 and error["code"] == UNSUPPORTED_PROTOCOL_VERSION, version
            assert {"2025-11-25", "2026-07-28"} <= set(error["data"]["supported"]) and error["data"]["requested"] == version
            assert response.json()["id"] == 1
        meta = {"io.modelcontextprotocol/protocolVersion": "2099-01-01", "io.modelcontextprotocol/clientCapabilities": {}}
        modern = await raw.post(url, json={"jsonrpc": "2.0", "id": 2, "method": "server/discover", "params": {"_meta": meta}},
                                headers={**JSON, **AUTH, "MCP-Protocol-Version": "2099-01-01", "Mcp-Method": "server/discover"})
    assert modern.status_code == 400 and modern.json()["error"]["code"] == UNSUPPORTED_PROTOCOL_VERSION
    assert modern.json()["error"]["data"] == {"supported": ["2026-07-28"], "requested": "2099-01-01"}, "as server/discover lists them"


@pytest.mark.parametrize(("demo", "recipes"), [(False, 0), (True, 8)], ids=["default-empty", "with---demo"])
async def test_a_new_http_user_starts_empty_unless_demo(tmp_path: Path, demo: bool, recipes: int) -> None:
    """The demo kitchen (with its peanut allergy) is not pushed on HTTP users; --demo gives it to everyone."""
    async with front_door(tmp_path, demo=demo) as url:
        client = Client(streamable_http_client(url, http_client=httpx2.AsyncClient(headers=AUTH, timeout=30)))
        async with client:
            found = (await client.call_tool("db_read", {"table": "recipes"})).structured_content
            preferences = (await client.call_tool("db_read", {"table": "preferences"})).structured_content
    assert found["count"] >= recipes if demo else found["count"] == 0
    assert ("peanut" in json.dumps(preferences)) is demo
