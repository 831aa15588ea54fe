"""A slow or broken OAuth issuer costs only its own tokens: they are refused (401 saying why), junk is refused
without asking the issuer, the issuer is asked at a bounded rate, and nobody else's request slows down.

The issuer is a loopback HTTP server written here whose key set can be made to stall, fail or lie."""

from __future__ import annotations

import json
import secrets
import sys
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx2
import jwt
import pytest
from asgi_server import serving
from cryptography.hazmat.primitives.asymmetric import rsa
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from alfred_mcp.app import AlfredApp
from alfred_mcp.config import HttpSettings, OAuthSettings, Settings
from alfred_mcp.server.http import http_app
from alfred_mcp.server.jwks import JwksCache, KeysUnavailable

sys.path.insert(0, str(Path(__file__).parents[1]))
from http_harness import http_client, http_server  # noqa: E402

pytestmark = pytest.mark.anyio
KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
JWK = {**json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(KEY.public_key())), "kid": "k1", "use": "sig", "alg": "RS256"}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}
JSON = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
STALL_SECONDS = 60.0

BROKEN_KEY_SETS: dict[str, tuple[int, str, str]] = {
    "not-json": (200, "text/html", "<html>maintenance</html>"),
    "json-not-an-object": (200, "application/json", "[1, 2, 3]"),
    "no-keys": (200, "application/json", '{"keys": []}'),
    "unusable-keys": (200, "application/json", '{"keys": [{"kty": "RSA", "kid": "k1", "n": "AQAB"}]}'),
    "http-500": (500, "text/plain", "internal error"),
    "http-404": (404, "text/plain", "not found"),
    "http-302": (302, "text/plain", ""),
    "too-large": (200, "application/json", json.dumps({"keys": [JWK], "padding": "x" * 600_000})),
}
"""What a broken issuer's key set URL answers (status, content type, body), and the words its 401 says."""
REASONS = {"not-json": "not JSON", "json-not-an-object": "not a JSON object", "no-keys": "no usable key",
           "unusable-keys": "no usable key", "http-500": "HTTP 500", "http-404": "HTTP 404", "http-302": "HTTP 302",
           "too-large": "larger than 512,000 bytes"}


@dataclass
class Issuer:
    """The loopback issuer: what its key set answers (`mode`), and how often it was asked."""

    url: str = ""
    mode: str = "ok"
    hits: int = 0
    stalled: list[float] = field(default_factory=list)

    def token(self, audience: str, **claims: Any) -> str:
        now = int(time.time())
        kid = claims.pop("kid", "k1")
        body = {"iss": self.url, "aud": audience, "sub": "carol", "exp": now + 300, "iat": now, **claims}
        return jwt.encode({k: v for k, v in body.items() if v is not None}, KEY, algorithm="RS256", headers={"kid": kid})

    def app(self) -> Starlette:
        async def jwks(request: Request) -> Response:
            self.hits += 1
            if self.mode == "stall":
                self.stalled.append(time.monotonic())
                with anyio.move_on_after(STALL_SECONDS):
                    while self.mode == "stall":
                        await anyio.sleep(0.05)
            if self.mode in BROKEN_KEY_SETS:
                status, kind, body = BROKEN_KEY_SETS[self.mode]
                return PlainTextResponse(body, status_code=status, media_type=kind)
            return JSONResponse({"keys": [JWK]})

        return Starlette(routes=[Route("/jwks.json", jwks)])


@asynccontextmanager
async def issuer_and_server(tmp_path: Path, mode: str = "ok", *, keys: JwksCache | None = None) -> AsyncIterator[tuple[Issuer, str]]:
    """The issuer (in `mode`) and an in-process alfred-mcp accepting its tokens; yields (issuer, /mcp URL)."""
    issuer = Issuer(mode=mode)
    async with serving(lambda port: issuer.app()) as base:
        issuer.url = base
        settings = Settings(db=str(tmp_path / "k.db"), http=HttpSettings(oauth=OAuthSettings(issuer=base)))

        if keys is not None:
            keys.url = f"{base}/jwks.json"

        def build(port: int) -> Any:
            return http_app(AlfredApp.from_settings(settings), "127.0.0.1", port, {}, jwks_url=f"{base}/jwks.json", keys=keys)

        try:
            async with serving(build) as server:
                yield issuer, f"{server}/mcp"
        finally:
            issuer.mode = "ok"  # releases a stalled request


async def _post(client: httpx2.AsyncClient, url: str, token: str) -> httpx2.Response:
    return await client.post(url, json=INITIALIZE, headers={**JSON, "Authorization": f"Bearer {token}"})


def _description(response: httpx2.Response) -> str:
    challenge = response.headers.get("www-authenticate", "")
    assert challenge.startswith("Bearer ") and 'error="invalid_token"' in challenge, challenge
    return challenge.split('error_description="', 1)[1]


@pytest.mark.parametrize("mode", list(BROKEN_KEY_SETS))
async def test_a_broken_key_set_refuses_the_issuer_s_tokens_with_a_401_naming_the_problem(tmp_path: Path, mode: str) -> None:
    """Whatever the key set URL answers instead of keys, a well-formed token from the issuer is 401 saying what
    went wrong (never a 500 with a traceback); once the issuer is mended, the same token works."""
    async with issuer_and_server(tmp_path, mode, keys=JwksCache("", refetch_interval=0.0)) as (issuer, url), \
            httpx2.AsyncClient(timeout=30) as raw:
        token = issuer.token(url)
        refused = await _post(raw, url, token)
        assert refused.status_code == 401, refused.text
        assert REASONS[mode] in _description(refused) and REASONS[mode] in refused.json()["error_description"]
        issuer.mode = "ok"
        assert (await _post(raw, url, token)).status_code == 200


def _junk(audience: str, issuer: Issuer) -> dict[str, str]:
    """Tokens that are not this issuer's tokens for this server, one of each kind, freshly made."""
    now = int(time.time())
    other_key = "a-shared-secret-of-enough-length-" + secrets.token_hex(8)
    return {
        "three-random-parts": ".".join(secrets.token_urlsafe(n) for n in (12, 40, 30)),
        "not-base64": "@@@.###.$$$",
        "another-issuer": jwt.encode({"iss": "https://elsewhere.example", "aud": audience, "sub": "x", "exp": now + 60},
                                     KEY, algorithm="RS256", headers={"kid": secrets.token_hex(4)}),
        "another-audience": issuer.token("https://elsewhere.example/mcp", kid=secrets.token_hex(4)),
        "expired": issuer.token(audience, exp=now - 3600, kid=secrets.token_hex(4)),
        "no-expiry": issuer.token(audience, exp=None, kid=secrets.token_hex(4)),
        "no-subject": issuer.token(audience, sub=None, kid=secrets.token_hex(4)),
        "empty-subject": issuer.token(audience, sub="", kid=secrets.token_hex(4)),
        "blank-subject": issuer.token(audience, sub="   ", kid=secrets.token_hex(4)),
        "number-subject": issuer.token(audience, sub=42, kid=secrets.token_hex(4)),
        "hs256": jwt.encode({"iss": issuer.url, "aud": audience, "sub": "x", "exp": now + 60}, other_key, algorithm="HS256"),
        "alg-none": jwt.encode({"iss": issuer.url, "aud": audience, "sub": "x", "exp": now + 60}, None, algorithm="none"),
    }


JUNK_REASONS = {
    "three-random-parts": "this server does not know it", "not-base64": "this server does not know it",
    "another-issuer": "it was not issued by", "another-audience": "it is not meant for this server",
    "expired": "it has expired", "no-expiry": "it has no expiry (exp)",
    "no-subject": "its subject (sub) is missing or empty", "empty-subject": "its subject (sub) is missing or empty",
    "blank-subject": "its subject (sub) is missing or empty", "number-subject": "its subject (sub) is missing or empty",
    "hs256": "algorithm 'HS256' is not accepted", "alg-none": "algorithm 'none' is not accepted",
}


async def test_junk_is_refused_without_asking_the_issuer(tmp_path: Path) -> None:
    """Every kind of token that is not the issuer's for this server, several of each, is 401 saying what is wrong
    with it, and the key set is never fetched: no request can make the server call the issuer without a
    plausible token."""
    async with issuer_and_server(tmp_path) as (issuer, url), httpx2.AsyncClient(timeout=30) as raw:
        for _ in range(3):
            for kind, token in _junk(url, issuer).items():
                response = await _post(raw, url, token)
                assert response.status_code == 401 and JUNK_REASONS[kind] in _description(response), kind
        assert issuer.hits == 0


async def test_unknown_key_ids_fetch_the_key_set_at_a_bounded_rate(tmp_path: Path) -> None:
    """Forty plausible tokens with forty unknown key ids cost one fetch of the key set, not forty."""
    async with issuer_and_server(tmp_path) as (issuer, url), httpx2.AsyncClient(timeout=30) as raw:
        answers = await _all([_post(raw, url, issuer.token(url, kid=f"k-{n}")) for n in range(40)])
        assert {answer.status_code for answer in answers} == {401}
        assert all("no key with id" in _description(answer) for answer in answers)
        assert issuer.hits == 1
        assert (await _post(raw, url, issuer.token(url))).status_code == 200, "the known key still works"
        assert issuer.hits == 1


async def test_the_breaker_stops_asking_a_failing_issuer_for_a_cooldown(tmp_path: Path) -> None:
    """After three failed fetches in a row the issuer is not asked again until the cooldown ends (a clock read here)."""
    now = [0.0]
    cache = JwksCache("", refetch_interval=1.0, breaker_failures=3, cooldown=30.0, clock=lambda: now[0])
    issuer = Issuer(mode="http-500")
    async with serving(lambda port: issuer.app()) as base:
        cache.url = f"{base}/jwks.json"
        for second in range(0, 120):
            now[0] = float(second)
            with pytest.raises(KeysUnavailable, match="HTTP 500"):
                await cache.signing_key("k1")
        # three fetches a second apart (0, 1, 2), then one after each cooldown: 32, 2+30+60=92 (the pause doubles)
        assert issuer.hits == 5
        issuer.mode, now[0] = "ok", 1000.0
        assert (await cache.signing_key("k1")).key_id == "k1"


async def test_a_stalled_issuer_answers_its_tokens_within_the_time_limit(tmp_path: Path) -> None:
    """Every request waiting for a key set that never comes shares one fetch and gets its 401 when the limit ends."""
    async with issuer_and_server(tmp_path, "stall", keys=JwksCache("", timeout=1.0)) as (issuer, url), \
            httpx2.AsyncClient(timeout=30) as raw:
        started = time.monotonic()
        answers = await _all([_post(raw, url, issuer.token(url)) for _ in range(20)])
        elapsed = time.monotonic() - started
    assert {answer.status_code for answer in answers} == {401}
    assert all("did not arrive within 1 seconds" in _description(answer) for answer in answers)
    assert issuer.hits == 1 and elapsed < 5


STATIC = "static-alice-token-0123456789"
JUNK_REQUESTS = 60


async def test_a_stalled_issuer_and_a_flood_of_jwts_do_not_slow_a_static_token_user(tmp_path: Path) -> None:
    """The real server (its own process) with a key set that stalls: while sixty requests carry JWTs (junk, and
    plausible ones with unknown key ids that wait for the stalled issuer), a static-token user's db_read takes
    about as long as it does with no one else around."""
    issuer = Issuer(mode="stall")
    async with serving(lambda port: issuer.app()) as base:
        issuer.url = base
        env = {"ALFRED_OAUTH_ISSUER": base, "ALFRED_OAUTH_JWKS_URL": f"{base}/jwks.json"}
        async with http_server(str(tmp_path / "k.db"), {STATIC: "alice"}, env) as url, http_client(url, STATIC) as alice:
            await alice.call_tool("db_create", {"table": "recipes", "data": {"name": "Soup"}})
            quiet = [await _timed_read(alice) for _ in range(10)]
            async with httpx2.AsyncClient(timeout=60, limits=httpx2.Limits(max_connections=JUNK_REQUESTS)) as raw:
                answers: list[httpx2.Response] = []

                async def flood() -> None:
                    tokens = [*(_junk(url, issuer).values()), *(issuer.token(url, kid=f"k{n}") for n in range(JUNK_REQUESTS))]
                    answers.extend(await _all([_post(raw, url, token) for token in tokens[:JUNK_REQUESTS]]))

                async with anyio.create_task_group() as group:
                    group.start_soon(flood)
                    while not issuer.stalled:
                        await anyio.sleep(0.01)
                    busy = [await _timed_read(alice) for _ in range(10)]
        issuer.mode = "ok"  # releases the stalled request
    assert {answer.status_code for answer in answers} == {401}
    assert issuer.hits == 1, "one fetch for every plausible token, none for the junk"
    assert max(busy) < max(0.5, 5 * max(quiet)), f"db_read took {max(busy):.3f} s under the flood, {max(quiet):.3f} s alone"


async def _timed_read(client: Any) -> float:
    started = time.monotonic()
    result = await client.call_tool("db_read", {"table": "recipes"})
    assert result.structured_content["count"] == 1
    return time.monotonic() - started


async def _all(calls: list[Any]) -> list[Any]:
    """Run the awaitables at once; their results in order."""
    results: list[Any] = [None] * len(calls)

    async def run(index: int, call: Any) -> None:
        results[index] = await call

    async with anyio.create_task_group() as group:
        for index, call in enumerate(calls):
            group.start_soon(run, index, call)
    return results
