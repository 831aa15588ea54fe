"""Bearer-token configuration, the --http address, database URLs in settings, and the no-fallback rule."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings
from alfred_mcp.errors import ConfigError
from alfred_mcp.server.auth import TokenUsers, load_tokens
from alfred_mcp.server.http import parse_address, transport_security
from alfred_mcp.store.factory import open_store
from alfred_mcp.store.sqlite import SQLiteStore

pytestmark = pytest.mark.anyio
TOKEN_A, TOKEN_B = "a" * 20, "b" * 20


def test_tokens_come_from_a_json_file_and_from_pairs(tmp_path: Path) -> None:
    """The file maps token → user; pairs add to it (and win on the same token)."""
    file = tmp_path / "tokens.json"
    file.write_text(json.dumps({TOKEN_A: "alice", TOKEN_B: "old"}))
    assert load_tokens(str(file), f" {TOKEN_B}=bob , ") == {TOKEN_A: "alice", TOKEN_B: "bob"}


@pytest.mark.parametrize(
    ("file_text", "pairs", "words"),
    [
        pytest.param(None, "", "needs bearer tokens", id="none"),
        pytest.param(None, "short=alice", "at least 16 characters", id="short-token"),
        pytest.param(None, f"{TOKEN_A}=", "name a user", id="no-user"),
        pytest.param(None, TOKEN_A, "'token=user' pairs", id="no-equals"),
        pytest.param("[1, 2]", "", "JSON object", id="file-not-an-object"),
        pytest.param("{not json", "", "cannot read it: not JSON", id="file-not-json"),
    ],
)
def test_bad_token_configuration_is_refused_with_what_to_fix(tmp_path: Path, file_text: str | None, pairs: str, words: str) -> None:
    """Every bad configuration stops the server with a sentence saying what is wrong."""
    file = None
    if file_text is not None:
        (tmp_path / "t.json").write_text(file_text)
        file = str(tmp_path / "t.json")
    with pytest.raises(ConfigError, match=words):
        load_tokens(file, pairs)


async def test_only_a_known_token_names_a_user() -> None:
    """A known token becomes an access token for its user; anything else is no one."""
    verifier = TokenUsers({TOKEN_A: "alice"})
    known = await verifier.verify_token(TOKEN_A)
    assert known is not None and known.subject == "token:alice" and known.client_id == "alice"
    assert await verifier.verify_token(TOKEN_B) is None and await verifier.verify_token("") is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [pytest.param("127.0.0.1:8765", ("127.0.0.1", 8765), id="ipv4"), pytest.param("localhost:80", ("localhost", 80), id="name")],
)
def test_the_http_address_is_host_and_port(text: str, expected: tuple[str, int]) -> None:
    """HOST:PORT parses into its parts."""
    assert parse_address(text) == expected


@pytest.mark.parametrize("text", ["8765", "127.0.0.1:", "127.0.0.1:99999", ":8765", "host:http"])
def test_a_bad_http_address_is_refused(text: str) -> None:
    """Anything but HOST:PORT with a valid port is a ConfigError naming the flag."""
    with pytest.raises(ConfigError, match="--http takes HOST:PORT"):
        parse_address(text)


def test_a_database_url_stays_text_and_selects_postgres(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """--db / ALFRED_DB keep a postgresql:// URL intact; a path still means SQLite."""
    monkeypatch.delenv("ALFRED_DB", raising=False)
    url = "postgresql://alfred@127.0.0.1:5432/kitchen"
    assert Settings.from_env(db=url).db == url
    assert type(open_store(Settings.from_env(db=url).db)).__name__ == "PostgresStore"
    monkeypatch.setenv("ALFRED_DB", str(tmp_path / "k.db"))
    assert isinstance(open_store(Settings.from_env().db), SQLiteStore)


async def test_a_many_user_app_never_falls_back_to_a_default_user(tmp_path: Path) -> None:
    """Serving over HTTP, a call without an authenticated user is refused instead of acting for 'local'."""
    app = AlfredApp.from_settings(Settings(db=str(tmp_path / "k.db"), seed_demo=False))
    app.serves_many = True
    await app.open()
    try:
        with pytest.raises(RuntimeError, match="without an authenticated user"):
            _ = app.user_id
        bob = await app.user_for("bob")
        with app.acting_as(bob):
            assert app.user_id == bob
    finally:
        await app.close()


@pytest.mark.parametrize(
    ("host", "extra", "allowed"),
    [
        pytest.param("127.0.0.1", "", ["127.0.0.1", "localhost", "[::1]"], id="loopback"),
        pytest.param("0.0.0.0", "kitchen.example, 10.0.0.5", ["0.0.0.0", "kitchen.example", "10.0.0.5"], id="public-names"),
    ],
)
def test_dns_rebinding_protection_allows_only_the_served_names(host: str, extra: str, allowed: list[str]) -> None:
    """Protection is on, and Host may only name the served host, loopback aliases or the configured names, with any
    port or none (behind a load balancer on 80 or 443 the Host has no port); Origin the same, over http or https."""
    settings = transport_security(host, extra)
    assert settings.enable_dns_rebinding_protection
    assert settings.allowed_hosts == [each for name in allowed for each in (name, f"{name}:*")]
    assert sorted(settings.allowed_origins) == sorted(f"{scheme}://{each}" for scheme in ("http", "https") for name in allowed
                                                      for each in (name, f"{name}:*"))


def test_the_http_app_builds_without_warnings_and_serves_no_local_user(tmp_path: Path) -> None:
    """Building the ASGI app with tokens raises no SDK warning (they are errors here) and drops the local user."""
    from alfred_mcp.server.http import http_app

    app = AlfredApp.from_settings(Settings(db=str(tmp_path / "k.db"), seed_demo=False))
    http_app(app, "127.0.0.1", 8765, {TOKEN_A: "alice"})
    assert app.serves_many and not app.gets_demo_kitchen
