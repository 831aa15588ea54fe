"""Users are namespaced by origin: a static token's user, the local user and each OAuth issuer's subjects never
name the same kitchen unless the operator maps them, and an older database keeps its users' kitchens.

Runs on every backend (the `store` fixture): SQLite, PostgreSQL and Supabase."""

from __future__ import annotations

import itertools
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from alfred_mcp.app import AlfredApp
from alfred_mcp.config import OAuthSettings, Settings
from alfred_mcp.errors import ConfigError
from alfred_mcp.kitchen.query import Query
from alfred_mcp.kitchen.schema import RECIPES, SHOPPING_LIST
from alfred_mcp.store.base import Store
from alfred_mcp.store.user_origins import issuer_user, load_user_map, local_user, static_user

pytestmark = pytest.mark.anyio
ISSUER_A, ISSUER_B = "https://login.example.com", "https://accounts.example.org/tenant"
ORIGINS: dict[str, Callable[[str], str]] = {
    "static token": static_user,
    "local user": local_user,
    "issuer A": lambda name: issuer_user(ISSUER_A, name),
    "issuer B": lambda name: issuer_user(ISSUER_B, name),
}
PAIRS = list(itertools.combinations(ORIGINS, 2))
NAMES = ["alice", "local", "token:alice", "legacy:alice", "a#b", "oauth:https://login.example.com#alice"]
"""The same name from every origin, including names that look like another origin's handle."""

names = st.text(min_size=1).filter(str.strip)
issuers = st.from_regex(r"https?://[a-z0-9.:/_-]{1,40}", fullmatch=True)


@given(first=names, second=names, issuer=issuers, other_issuer=issuers)
def test_handles_of_different_origins_never_meet(first: str, second: str, issuer: str, other_issuer: str) -> None:
    """Whatever the names, a handle of one origin is never a handle of another (nor of another issuer)."""
    handles = {"token": static_user(first), "local": local_user(second), "oauth": issuer_user(issuer, second)}
    assert len({handles["token"], handles["local"], handles["oauth"]}) == 3
    assert static_user(first) != local_user(first) and issuer_user(issuer, first) != static_user(first)
    assert (issuer_user(issuer, first) == issuer_user(other_issuer, second)) == (issuer == other_issuer and first == second)


@pytest.mark.parametrize("make", [lambda: issuer_user(ISSUER_A, ""), lambda: issuer_user(ISSUER_A, "  "),
                                  lambda: static_user(""), lambda: local_user(" "), lambda: issuer_user("https://x#frag", "a")],
                         ids=["empty-sub", "blank-sub", "empty-static", "blank-local", "issuer-with-fragment"])
def test_an_empty_name_or_an_issuer_with_a_fragment_names_no_user(make: Callable[[], str]) -> None:
    with pytest.raises(ValueError):
        make()


def _app(store: Store, *, many: bool, user: str = "local", user_map: dict[str, str] | None = None) -> AlfredApp:
    settings = Settings(db=":memory:", user=user, seed_demo=False, user_map=user_map or {})
    return AlfredApp(store=store, settings=settings, serves_many=many)


@pytest.mark.parametrize(("first", "second"), PAIRS, ids=[f"{a}-vs-{b}" for a, b in PAIRS])
async def test_two_origins_with_the_same_name_never_share_a_kitchen(store: Store, first: str, second: str) -> None:
    """For every pair of origins and every name: the first origin's item is not in the second's kitchen."""
    app = _app(store, many=True)
    for name in NAMES:
        one, two = await app.user_for(ORIGINS[first](name)), await app.user_for(ORIGINS[second](name))
        assert one != two, name
        await store.insert(SHOPPING_LIST, [{"name": f"{first} {name}"}], user_id=one)
        seen = [row["name"] for row in await store.select(SHOPPING_LIST, Query(), user_id=two)]
        assert f"{first} {name}" not in seen, f"{second} {name!r} sees {first} {name!r}'s shopping list"


async def test_the_operator_map_shares_a_kitchen_on_purpose(store: Store) -> None:
    """Mapped, issuer A's alice uses the static token user alice's kitchen; issuer B's alice still does not."""
    user_map = {issuer_user(ISSUER_A, "alice"): static_user("alice")}
    app = _app(store, many=True, user_map=user_map)
    alice = await app.user_for(static_user("alice"))
    assert await app.user_for(issuer_user(ISSUER_A, "alice")) == alice
    assert await app.user_for(issuer_user(ISSUER_B, "alice")) != alice


async def _forget_user_origins(backend: str, request: pytest.FixtureRequest, store_target: Any) -> None:
    """Make the database look as an older alfred-mcp left it: the namespacing rename not yet run."""
    if backend == "sqlite":
        with sqlite3.connect(store_target) as connection:
            connection.execute("DELETE FROM alfred_meta WHERE key = 'user_origins'")
        return
    import psycopg

    from alfred_mcp.store.postgres import PostgresStore

    dsn = request.getfixturevalue("pg_dsn")
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as connection:
        await connection.execute('DELETE FROM "alfred_schema_migrations" WHERE "version" = 4')
    if backend == "supabase":  # Supabase is migrated with the PostgreSQL migrations, by the operator
        migrator = PostgresStore(dsn)
        await migrator.open()
        await migrator.close()


async def test_an_older_database_keeps_its_users_kitchens(
    backend: str, store: Store, store_opener: Callable[[], Store], store_target: Any, request: pytest.FixtureRequest,
) -> None:
    """An older database whose users are `alice` (a static token) and `local` (stdio): after the upgrade the
    static token user alice and the local user find their kitchens; nobody else from any origin does."""
    alice, local = await store.ensure_user("alice"), await store.ensure_user("local")  # what older builds wrote
    await store.insert(SHOPPING_LIST, [{"name": "oat milk"}], user_id=alice)
    await store.insert(RECIPES, [{"name": "Stew"}], user_id=local)
    await store.close()
    await _forget_user_origins(backend, request, store_target)

    served = _app(store_opener(), many=True)
    await served.open()
    local_app = _app(store_opener(), many=False)
    await local_app.open()
    try:
        assert await served.user_for(static_user("alice")) == alice
        assert local_app.user_id == local
        others = [local_user("alice"), static_user("local"), *(issuer_user(i, n) for i in (ISSUER_A, ISSUER_B) for n in ("alice", "local"))]
        for other in others:
            user_id = await served.user_for(other)
            assert user_id not in (alice, local), other
            assert await served.store.select(SHOPPING_LIST, Query(), user_id=user_id) == []
            assert await served.store.select(RECIPES, Query(), user_id=user_id) == []
        again = _app(store_opener(), many=True)  # a later process: the takeover holds
        await again.open()
        assert await again.user_for(static_user("alice")) == alice and await again.user_for(local_user("alice")) != alice
        await again.close()
    finally:
        await served.close()
        await local_app.close()


@pytest.mark.parametrize(
    ("content", "words"),
    [
        pytest.param("[1]", "must be a JSON object", id="not-an-object"),
        pytest.param("{oops", "ALFRED_USER_MAP_FILE=", id="not-json"),
        pytest.param(json.dumps({"alice": "token:alice"}), "the key 'alice' is not a user handle", id="bare-key"),
        pytest.param(json.dumps({"token:alice": "bob"}), "the value 'bob' is not a user handle", id="bare-value"),
        pytest.param(json.dumps({"oauth:https://x#": "token:a"}), "is not a user handle", id="empty-sub"),
        pytest.param(json.dumps({"token:": "token:a"}), "is not a user handle", id="empty-name"),
    ],
)
def test_a_bad_user_map_stops_the_server_naming_the_setting(tmp_path: Path, content: str, words: str) -> None:
    (tmp_path / "map.json").write_text(content)
    with pytest.raises(ConfigError, match=words) as refused:
        load_user_map(str(tmp_path / "map.json"))
    assert refused.value.fields["field"] == "ALFRED_USER_MAP_FILE"


@pytest.mark.parametrize("issuer", ["https://login.example.com#frag", "ftp://login.example.com"])
def test_an_issuer_that_cannot_name_users_stops_the_server(issuer: str) -> None:
    """An issuer URL with a fragment would make `oauth:<iss>#<sub>` ambiguous; one that is not http(s) is no issuer."""
    with pytest.raises(ConfigError) as refused:
        OAuthSettings.from_env(issuer)
    assert refused.value.fields["field"] == "ALFRED_OAUTH_ISSUER"


def test_the_user_map_comes_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "map.json").write_text(json.dumps({issuer_user(ISSUER_A, "alice"): "legacy:alice"}))
    monkeypatch.setenv("ALFRED_USER_MAP_FILE", str(tmp_path / "map.json"))
    assert Settings.from_env().user_map == {issuer_user(ISSUER_A, "alice"): "legacy:alice"}
