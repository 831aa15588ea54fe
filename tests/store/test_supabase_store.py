"""SupabaseStore against a real PostgREST: JWT pass-through, RLS, refusals, quoting, atomic rpc.

The shared store suite runs on Supabase through the `store` fixture; these tests pin what only
this backend has: every user call carries that user's JWT, nothing falls back to a service key,
PostgREST filters are quoted, and a unit of work is one SQL transaction.
"""

from __future__ import annotations

import inspect
import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from supabase_harness import SupabaseStack

from alfred_mcp.errors import ConstraintViolationError, StoreError
from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import INGREDIENTS, RECIPE_INGREDIENTS, RECIPES, Table
from alfred_mcp.store.base import Row, Store
from alfred_mcp.store.supabase import SupabaseStore

pytestmark = pytest.mark.anyio

INJECTIONS = (
    'a,b (c)', 'x)",name.neq.', "or(name.eq.x)", 'quote " and \\ backslash', "star*", "50%", "it's",
    "name.eq.Curry", "{brace,list}", "'; DROP TABLE recipes; --",
)


@pytest.fixture
async def sb(supabase_stack: SupabaseStack) -> AsyncIterator[SupabaseStore]:
    """A SupabaseStore on the test's stack, with the service key for catalog writes."""
    store = SupabaseStore(
        supabase_stack.url, supabase_stack.anon_key, jwt_secret=supabase_stack.jwt_secret, service_key=supabase_stack.service_key
    )
    await store.open()
    yield store
    await store.close()


@pytest.fixture
async def rest(supabase_stack: SupabaseStack) -> AsyncIterator[httpx.AsyncClient]:
    """A raw HTTP client on the gateway's /rest/v1, for requests a store would never make."""
    async with httpx.AsyncClient(base_url=supabase_stack.url + "/rest/v1", timeout=10) as client:
        yield client


def bearer(stack: SupabaseStack, token: str) -> dict[str, str]:
    return {"apikey": stack.anon_key, "Authorization": f"Bearer {token}"}


async def add(store: Store, table: Table, user: str, **values: Any) -> Row:
    (row,) = await store.insert(table, [values], user_id=user)
    return row


def test_supabase_store_implements_the_whole_store_protocol() -> None:
    """Every Store method exists on SupabaseStore with the same parameters."""
    members = {name: getattr(Store, name) for name in dir(Store) if not name.startswith("_") and callable(getattr(Store, name))}
    assert members
    for name, member in members.items():
        ours = inspect.signature(getattr(SupabaseStore, name)).parameters
        theirs = inspect.signature(member).parameters
        assert [(p.name, p.kind) for p in ours.values()] == [(p.name, p.kind) for p in theirs.values()], name
    assert SupabaseStore.dialect == "postgres"


async def test_another_users_rows_stay_invisible_even_with_a_crafted_filter(sb: SupabaseStore) -> None:
    """Bob's filter naming Alice's row id and name matches nothing; his update and delete change nothing."""
    alice, bob = await sb.ensure_user("alice"), await sb.ensure_user("bob")
    curry = await add(sb, RECIPES, alice, name="Curry")
    crafted = Where(any_of=(Filter("id", "in", [curry["id"]]), Filter("name", "eq", "Curry")))
    assert await sb.select(RECIPES, Query(where=crafted), user_id=bob) == []
    assert await sb.update(RECIPES, crafted, {"name": "Stolen"}, user_id=bob) == []
    assert await sb.delete(RECIPES, crafted, user_id=bob) == []
    assert [row["name"] for row in await sb.select(RECIPES, Query(), user_id=alice)] == ["Curry"]


async def test_rls_refuses_bob_even_when_he_bypasses_the_store(sb: SupabaseStore, supabase_stack: SupabaseStack, rest: httpx.AsyncClient) -> None:
    """Raw PostgREST and rpc calls with Bob's JWT neither read, change nor reference Alice's rows."""
    alice, bob = await sb.ensure_user("alice"), await sb.ensure_user("bob")
    curry = await add(sb, RECIPES, alice, name="Curry")
    headers = bearer(supabase_stack, supabase_stack.user_token(bob))
    assert (await rest.get("/recipes", params={"id": f"eq.{curry['id']}"}, headers=headers)).json() == []
    patched = await rest.patch("/recipes", params={"id": f"eq.{curry['id']}"}, json={"name": "x"},
                               headers={**headers, "Prefer": "return=representation"})
    assert patched.json() == []
    ops = [{"op": "update", "table": "recipes", "ids": [curry["id"]], "values": {"name": "x"}}]
    assert (await rest.post("/rpc/alfred_apply", json={"ops": ops}, headers=headers)).json() == [[]]
    child = {"id": str(uuid.uuid4()), "user_id": bob, "recipe_id": curry["id"], "name": "rice", "position": 1}
    linked = await rest.post("/rpc/alfred_apply", json={"ops": [{"op": "insert", "table": "recipe_ingredients", "rows": [child]}]},
                             headers=headers)
    assert linked.status_code >= 400 and linked.json()["code"] == "23503"
    assert [row["name"] for row in await sb.select(RECIPES, Query(), user_id=alice)] == ["Curry"]


async def test_a_reference_to_another_users_row_is_refused_by_the_store(sb: SupabaseStore) -> None:
    """An FK value naming Alice's recipe is a constraint violation for Bob, naming the column."""
    alice, bob = await sb.ensure_user("alice"), await sb.ensure_user("bob")
    curry = await add(sb, RECIPES, alice, name="Curry")
    with pytest.raises(ConstraintViolationError) as raised:
        await add(sb, RECIPE_INGREDIENTS, bob, recipe_id=curry["id"], name="rice", position=1)
    assert raised.value.fields.get("field") == "recipe_id"


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda s: s.select(RECIPES, Query(), user_id=""), id="select"),
        pytest.param(lambda s: s.count(RECIPES, Where(), user_id=""), id="count"),
        pytest.param(lambda s: s.insert(RECIPES, [{"name": "x"}], user_id=""), id="insert"),
        pytest.param(lambda s: s.delete(RECIPES, Where(), user_id=""), id="delete"),
        pytest.param(lambda s: s.create_session(""), id="create_session"),
    ],
)
async def test_a_call_without_a_user_is_refused(sb: SupabaseStore, call: Any) -> None:
    """No user means no JWT: the call is refused before any request, never sent with another key."""
    with pytest.raises(StoreError, match="needs a user"):
        await call(sb)


async def test_the_anon_key_reads_the_catalog_but_no_kitchen_rows_and_runs_no_rpc(
    sb: SupabaseStore, supabase_stack: SupabaseStack, rest: httpx.AsyncClient
) -> None:
    """Without a user JWT PostgREST acts as anon: catalog yes, recipes and alfred_apply no."""
    alice = await sb.ensure_user("alice")
    await add(sb, RECIPES, alice, name="Curry")
    await sb.insert(INGREDIENTS, [{"name": "rice"}], user_id="")
    assert [row["name"] for row in await sb.select(INGREDIENTS, Query(), user_id="")] == ["rice"]
    anon = bearer(supabase_stack, supabase_stack.anon_key)
    assert (await rest.get("/recipes", headers=anon)).json()["code"] == "42501"
    assert (await rest.post("/rpc/alfred_apply", json={"ops": []}, headers=anon)).json()["code"] == "42501"


async def test_user_calls_carry_the_users_own_token_and_catalog_writes_need_the_service_key(supabase_stack: SupabaseStack) -> None:
    """Every user call asks the token source for that user; without a service key the catalog is read-only."""
    asked: list[str] = []

    def tokens(user_id: str) -> str:
        asked.append(user_id)
        return supabase_stack.user_token(user_id)

    store = SupabaseStore(supabase_stack.url, supabase_stack.anon_key, tokens=tokens)
    await store.open()
    try:
        alice = await store.ensure_user("alice")
        await add(store, RECIPES, alice, name="Curry")
        await store.select(RECIPES, Query(), user_id=alice)
        assert asked and set(asked) == {alice}
        with pytest.raises(StoreError, match="service key"):
            await store.insert(INGREDIENTS, [{"name": "rice"}], user_id=alice)
    finally:
        await store.close()


async def test_injection_strings_are_plain_values_in_every_filter(sb: SupabaseStore) -> None:
    """Commas, parentheses, quotes, backslashes, operators and SQL in values match only themselves."""
    alice = await sb.ensure_user("alice")
    await sb.insert(RECIPES, [{"name": name, "tags": [name]} for name in INJECTIONS], user_id=alice)
    for name in INJECTIONS:
        for clause in (Filter("name", "eq", name), Filter("name", "in", [name, "zzz"]), Filter("tags", "contains", [name])):
            rows = await sb.select(RECIPES, Query(where=Where((clause,))), user_id=alice)
            assert [row["name"] for row in rows] == [name], (clause, rows)
        assert await sb.count(RECIPES, Where((Filter("name", "neq", name),)), user_id=alice) == len(INJECTIONS) - 1
        either = Where(any_of=(Filter("name", "eq", name), Filter("name", "eq", "nothing")))
        assert await sb.count(RECIPES, either, user_id=alice) == 1
    assert [row["name"] for row in await sb.select(RECIPES, Query(where=Where((Filter("name", "ilike", "star*"),))), user_id=alice)] == ["star*"]
    assert await sb.count(RECIPES, Where(), user_id=alice) == len(INJECTIONS)


async def test_a_failing_child_insert_in_one_rpc_leaves_no_parent(sb: SupabaseStore, supabase_stack: SupabaseStack, rest: httpx.AsyncClient) -> None:
    """alfred_apply is one transaction: a parent followed by an invalid child stores neither."""
    alice = await sb.ensure_user("alice")
    recipe_id = str(uuid.uuid4())
    ops = [
        {"op": "insert", "table": "recipes", "rows": [{"id": recipe_id, "user_id": alice, "name": "Curry"}]},
        {"op": "insert", "table": "recipe_ingredients", "rows": [{"id": str(uuid.uuid4()), "user_id": alice, "recipe_id": recipe_id, "position": 1}]},
    ]
    failed = await rest.post("/rpc/alfred_apply", json={"ops": ops}, headers=bearer(supabase_stack, supabase_stack.user_token(alice)))
    assert failed.json()["code"] == "23502"
    assert await sb.count(RECIPES, Where(), user_id=alice) == 0


async def test_a_unit_of_work_sees_its_own_writes_and_commits_them_in_one_call(sb: SupabaseStore) -> None:
    """Inside transaction() reads see the block's pending rows (updated ones too); the end commits rows and documents."""
    alice = await sb.ensure_user("alice")
    session = await sb.create_session(alice)
    async with sb.transaction():
        curry = await add(sb, RECIPES, alice, name="Curry")
        await add(sb, RECIPE_INGREDIENTS, alice, recipe_id=curry["id"], name="rice", position=1)
        await sb.save_documents(session.session_id, {"drafts": {"saved": curry["name"]}})
        await sb.update(RECIPES, Where((Filter("name", "eq", "Curry"),)), {"servings": 4}, user_id=alice)
        (read,) = await sb.select(RECIPES, Query(where=Where((Filter("servings", "eq", 4),))), user_id=alice)
        assert read["id"] == curry["id"] and await sb.count(RECIPE_INGREDIENTS, Where(), user_id=alice) == 1
        assert await sb.load_documents(session.session_id) == {}, "session state reads see committed data"
    assert await sb.count(RECIPE_INGREDIENTS, Where(), user_id=alice) == 1
    assert await sb.load_documents(session.session_id) == {"drafts": {"saved": "Curry"}}


async def test_an_error_inside_a_transaction_surfaces_at_the_call_and_the_unit_commits_nothing(sb: SupabaseStore) -> None:
    """The dry run raises the database's own error at the failing call; leaving the block keeps nothing."""
    alice = await sb.ensure_user("alice")
    with pytest.raises(ConstraintViolationError, match="servings"):
        async with sb.transaction():
            await add(sb, RECIPES, alice, name="Curry")
            await add(sb, RECIPES, alice, name="Bad", servings=-1)
    assert await sb.count(RECIPES, Where(), user_id=alice) == 0


async def test_an_unmigrated_project_is_refused_at_open(supabase_stack: SupabaseStack, pg_dsn: str) -> None:
    """A schema version other than this build's stops open() with the fix in the message."""
    import psycopg

    with psycopg.connect(pg_dsn, autocommit=True) as admin:
        admin.execute("UPDATE alfred_meta SET value = '0' WHERE key = 'schema_version'")
    store = SupabaseStore(supabase_stack.url, supabase_stack.anon_key, jwt_secret=supabase_stack.jwt_secret)
    with pytest.raises(StoreError, match="Apply migrations"):
        await store.open()


def test_a_store_without_a_way_to_sign_user_tokens_is_refused() -> None:
    """Neither a JWT secret nor a token source: there would be no user JWT, so no store."""
    with pytest.raises(StoreError, match="JWT secret"):
        SupabaseStore("http://127.0.0.1:1", "anon-key")


async def test_the_real_server_saves_drafts_and_reads_them_back_on_supabase(supabase_stack: SupabaseStack) -> None:
    """MCP tools over SupabaseStore: the demo seed, three generated recipes saved whole, refs only, read back."""
    from datetime import date

    from e2e.cod_recipes import THREE_COD
    from e2e.helpers import call, eq
    from mcp import Client

    from alfred_mcp.app import AlfredApp
    from alfred_mcp.config import Settings
    from alfred_mcp.operations.seeding import seed
    from alfred_mcp.server.mcp_server import build_server

    store = SupabaseStore(
        supabase_stack.url, supabase_stack.anon_key, jwt_secret=supabase_stack.jwt_secret, service_key=supabase_stack.service_key
    )
    app = AlfredApp(store=store, settings=Settings(seed_demo=False, check_results=True))
    await app.open()
    try:
        await seed(app.store, app.user_id, today=date(2026, 1, 12))
        async with Client(build_server(app)) as client:
            refs = [d["ref"] for d in (await call(client, "draft_create", entity_type="recipe", items=THREE_COD))["drafts"]]
            saved = await call(client, "draft_save", refs=refs)
            assert {item["status"] for item in saved["items"]} == {"completed"}
            name = THREE_COD[0]["name"]
            (recipe,) = (await call(client, "db_read", table="recipes", filters=[eq("name", name)]))["rows"]
            parts = await call(client, "db_read", table="recipe_ingredients", filters=[eq("recipe_id", recipe["id"])])
            assert parts["count"] == len(THREE_COD[0]["ingredients"])
    finally:
        await app.close()
