"""An external OAuth authorization server: its JWTs are accepted, checked against its JWKS, and only then is
protected-resource metadata advertised. The authorization server is a loopback one (`oauth_issuer.py`): its
RFC 8414 metadata and a JWKS with one RSA key, as a real one publishes them."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2
import pytest
from asgi_server import serving
from cryptography.hazmat.primitives.asymmetric import rsa
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from oauth_issuer import authorization_server, signed

from alfred_mcp.app import AlfredApp
from alfred_mcp.config import HttpSettings, OAuthSettings, Settings
from alfred_mcp.errors import ConfigError
from alfred_mcp.kitchen.query import Query
from alfred_mcp.kitchen.schema import SHOPPING_LIST
from alfred_mcp.server.http import http_app
from alfred_mcp.server.oauth import discover_jwks_url

pytestmark = pytest.mark.anyio
OTHER_KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
JSON = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


@dataclass
class Stack:
    issuer: str
    url: str
    """The alfred-mcp /mcp URL."""

    def token(self, **claims: Any) -> str:
        return signed(self.issuer, self.url, **claims)


@asynccontextmanager
async def oauth_stack(tmp_path: Path, scopes: tuple[str, ...] = (), tokens: dict[str, str] | None = None) -> AsyncIterator[Stack]:
    holder: dict[str, str] = {}
    async with serving(lambda port: authorization_server(holder)) as issuer:
        holder["issuer"] = issuer
        oauth = OAuthSettings(issuer=issuer, scopes=scopes)
        jwks_url = await discover_jwks_url(oauth)
        settings = Settings(db=str(tmp_path / "k.db"), http=HttpSettings(oauth=oauth))

        def build(port: int) -> Any:
            return http_app(AlfredApp.from_settings(settings), "127.0.0.1", port, tokens or {}, jwks_url=jwks_url)

        async with serving(build) as base:
            yield Stack(issuer=issuer, url=f"{base}/mcp")


async def test_the_issuer_s_jwts_reach_the_kitchen_as_their_subject(tmp_path: Path) -> None:
    """A token the issuer signed for this resource works with the real MCP client; its `sub` is the user."""
    async with oauth_stack(tmp_path) as stack:
        for user in ("carol", "dave"):
            headers = {"Authorization": f"Bearer {stack.token(sub=user)}"}
            async with Client(streamable_http_client(stack.url, http_client=httpx2.AsyncClient(headers=headers, timeout=30))) as client:
                if user == "carol":
                    await client.call_tool("db_create", {"table": "recipes", "data": {"name": "Carol's stew"}})
                seen = (await client.call_tool("db_read", {"table": "recipes"})).structured_content
                assert seen["count"] == (1 if user == "carol" else 0)


STATIC_ALICE = "static-alice-token-0123456789"


def _client(url: str, token: str) -> Client:
    headers = {"Authorization": f"Bearer {token}"}
    return Client(streamable_http_client(url, http_client=httpx2.AsyncClient(headers=headers, timeout=30)))


async def _shopping(url: str, token: str) -> list[str]:
    async with _client(url, token) as client:
        return [row["name"] for row in (await client.call_tool("db_read", {"table": "shopping_list"})).structured_content["rows"]]


async def test_no_jwt_reaches_the_kitchen_of_a_static_token_user_or_the_local_user(tmp_path: Path) -> None:
    """One database, real HTTP: the static token user alice and the local user each keep a shopping list; the
    issuer's subjects alice, local and token:alice, and another issuer's alice, see neither (nor does one see
    the other's), and a token with an empty subject is 401 naming it."""
    local = AlfredApp.from_settings(Settings(db=str(tmp_path / "k.db"), seed_demo=False))
    await local.open()
    try:
        await local.store.insert(SHOPPING_LIST, [{"name": "local's flour"}], user_id=local.user_id)
        async with oauth_stack(tmp_path, tokens={STATIC_ALICE: "alice"}) as stack:
            async with _client(stack.url, STATIC_ALICE) as alice:
                await alice.call_tool("db_create", {"table": "shopping_list", "data": {"name": "alice's oat milk"}})
            assert await _shopping(stack.url, STATIC_ALICE) == ["alice's oat milk"]
            for subject in ("alice", "local", "token:alice", "local:local"):
                assert await _shopping(stack.url, stack.token(sub=subject)) == [], subject
            async with httpx2.AsyncClient(timeout=10) as raw:
                empty = await raw.post(stack.url, json=INITIALIZE, headers={**JSON, "Authorization": f"Bearer {stack.token(sub='')}"})
            assert empty.status_code == 401 and "subject (sub) is missing or empty" in empty.headers["www-authenticate"]
        async with oauth_stack(tmp_path) as other_issuer:
            assert await _shopping(other_issuer.url, other_issuer.token(sub="alice")) == []
        assert [row["name"] for row in await local.store.select(SHOPPING_LIST, Query(), user_id=local.user_id)] == ["local's flour"]
    finally:
        await local.close()


async def test_protected_resource_metadata_names_the_real_issuer(tmp_path: Path) -> None:
    async with oauth_stack(tmp_path) as stack, httpx2.AsyncClient(timeout=10) as raw:
        refused = await raw.post(stack.url, json=INITIALIZE, headers=JSON)
        metadata_url = stack.url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp")
        metadata = (await raw.get(metadata_url)).json()
        issuer_metadata = (await raw.get(f"{metadata['authorization_servers'][0]}/.well-known/oauth-authorization-server")).json()
    assert refused.status_code == 401 and f'resource_metadata="{metadata_url}"' in refused.headers["www-authenticate"]
    assert metadata["resource"] == stack.url and metadata["authorization_servers"] == [stack.issuer]
    assert issuer_metadata["issuer"] == stack.issuer, "the advertised authorization server exists and answers"


BAD_TOKENS = [
    pytest.param({"aud": "http://elsewhere.example/mcp"}, id="another-audience"),
    pytest.param({"iss": "http://127.0.0.1:1/other-issuer"}, id="another-issuer"),
    pytest.param({"exp": int(time.time()) - 60}, id="expired"),
    pytest.param({"sub": None}, id="no-subject"),
    pytest.param({"key": OTHER_KEY}, id="signed-by-another-key"),
    pytest.param({"kid": "k9"}, id="unknown-key-id"),
    pytest.param({"key": "a-shared-secret-of-enough-length-0123456789", "algorithm": "HS256"}, id="hs256"),
]


async def test_a_token_the_issuer_did_not_sign_for_this_server_is_refused(tmp_path: Path) -> None:
    """Wrong audience, issuer, key, algorithm; expired; no subject: each is 401 invalid_token (one server for all)."""
    async with oauth_stack(tmp_path) as stack, httpx2.AsyncClient(timeout=10) as raw:
        for case in BAD_TOKENS:
            change = dict(case.values[0])
            options = {name: change.pop(name) for name in ("key", "kid", "algorithm") if name in change}
            token = stack.token(**options, **change)
            response = await raw.post(stack.url, json=INITIALIZE, headers={**JSON, "Authorization": f"Bearer {token}"})
            assert response.status_code == 401 and 'error="invalid_token"' in response.headers["www-authenticate"], case.id


async def test_a_token_without_a_required_scope_is_403(tmp_path: Path) -> None:
    async with oauth_stack(tmp_path, scopes=("kitchen", "admin")) as stack, httpx2.AsyncClient(timeout=10) as raw:
        response = await raw.post(stack.url, json=INITIALIZE, headers={**JSON, "Authorization": f"Bearer {stack.token()}"})
        metadata = (await raw.get(stack.url.replace("/mcp", "/.well-known/oauth-protected-resource/mcp"))).json()
    assert response.status_code == 403 and 'error="insufficient_scope"' in response.headers["www-authenticate"]
    assert metadata["scopes_supported"] == ["kitchen", "admin"]


async def test_an_issuer_without_reachable_metadata_is_a_startup_error() -> None:
    with pytest.raises(ConfigError, match="Cannot find the JWKS of the OAuth issuer http://127.0.0.1:9"):
        await discover_jwks_url(OAuthSettings(issuer="http://127.0.0.1:9"))
