"""The CRUD tools through the real MCP client: refs only, clear errors, nothing lost."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings
from alfred_mcp.contracts import EXTRA_TOOLS, load_contracts
from alfred_mcp.contracts import listed as is_listed
from alfred_mcp.kitchen.query import Query, Where
from alfred_mcp.kitchen.schema import TABLES
from alfred_mcp.server.leak_guard import find_uuid
from alfred_mcp.server.mcp_server import build_server

from .helpers import among, call, call_error, eq

pytestmark = pytest.mark.anyio


async def count_rows(app: AlfredApp, table: str) -> int:
    return await app.store.count(TABLES[table], Where(), user_id=app.user_id)


async def test_tools_list_is_exactly_the_published_contracts(client: Client, app: AlfredApp) -> None:
    """What tools/list advertises equals tools/*.json, field by field: every contract of the default list (for a
    client without MCP Apps: no view-only tool and no `_meta`; tests/e2e/test_views.py covers the other)."""
    listed = {tool.name: tool.model_dump(by_alias=True, exclude_none=True) for tool in (await client.list_tools()).tools}
    contracts = load_contracts()
    default = {name for name, c in contracts.items() if is_listed(name, everything=False, has_model=app.llm is not None) and not c.app_only}
    assert set(listed) == default and EXTRA_TOOLS.isdisjoint(listed) and "chat" not in listed
    for name, contract in contracts.items():
        if name not in listed:
            continue
        tool = listed[name]
        assert tool["title"] == contract.title
        assert tool["description"] == contract.description
        assert tool["annotations"] == contract.annotations
        assert tool["inputSchema"] == contract.input_schema
        assert tool["outputSchema"] == contract.output_schema
        assert "_meta" not in tool


async def test_every_tool_is_listed_with_all_tools_and_served_either_way(tmp_path: Path) -> None:
    """ALFRED_TOOLS=all lists every contract (chat too); the default list leaves the extras out, yet serves them by name."""
    for everything in (True, False):
        tools = ("all",) if everything else ()
        app = AlfredApp.from_settings(Settings(db=str(tmp_path / f"k{everything}.db"), seed_demo=False, tools=tools))
        async with Client(build_server(app)) as client:
            names = {tool.name for tool in (await client.list_tools()).tools}
            working = await call(client, "show_working_set")
        assert (names == set(load_contracts())) is everything and working["count"] == 0


async def test_read_returns_refs_and_fk_labels_never_uuids(client: Client) -> None:
    """Every id and foreign key comes back as a ref, with the target's label beside it."""
    recipes = await call(client, "db_read", table="recipes", order_by=[{"field": "name"}])
    assert recipes["count"] >= 8
    assert all(row["id"].startswith("recipe_") for row in recipes["rows"])
    assert "user_id" not in recipes["rows"][0]
    meals = await call(client, "db_read", table="meal_plans", filters=[{"field": "recipe_id", "op": "is_null", "value": False}])
    row = meals["rows"][0]
    assert row["id"].startswith("meal_") and row["recipe_id"].startswith("recipe_")
    by_ref = {r["id"]: r["name"] for r in recipes["rows"]}
    assert row["recipe_id_label"] == by_ref[row["recipe_id"]]


async def test_same_row_keeps_its_ref_across_reads(client: Client) -> None:
    first = await call(client, "db_read", table="recipes", order_by=[{"field": "name"}])
    again = await call(client, "db_read", table="recipes", order_by=[{"field": "name"}])
    assert [r["id"] for r in first["rows"]] == [r["id"] for r in again["rows"]]


async def test_list_then_delete_two_next_turn_and_deleted_ref_is_named(client: Client, app: AlfredApp) -> None:
    """Seed 002 flow: list recipes, next turn delete two of them by ref; the refs then say so."""
    listed = await call(client, "db_read", table="recipes", order_by=[{"field": "name"}])
    doomed = [listed["rows"][0]["id"], listed["rows"][1]["id"]]
    names = [listed["rows"][0]["name"], listed["rows"][1]["name"]]
    before = await count_rows(app, "recipes")
    turn = await call(client, "turn_begin")
    assert turn["turn"] == listed["turn"] + 1
    deleted = await call(client, "db_delete", table="recipes", filters=[among("id", doomed)])
    assert sorted(r["id"] for r in deleted["rows"]) == sorted(doomed)
    assert await count_rows(app, "recipes") == before - 2
    error = await call_error(client, "db_read", table="recipes", filters=[eq("id", doomed[0])])
    assert error["code"] == "deleted_ref"
    assert names[0] in error["message"] and f"turn {turn['turn']}" in error["message"]


async def test_list_add_to_meal_plan_then_delete_that_meal_plan(client: Client, app: AlfredApp) -> None:
    """Seed 002 flow: list recipes; add one to a meal plan; next turn delete that meal plan."""
    recipes = await call(client, "db_read", table="recipes", limit=3)
    chosen = recipes["rows"][2]
    await call(client, "turn_begin")
    created = await call(client, "db_create", table="meal_plans",
                         data={"date": "2026-01-20", "meal_type": "dinner", "recipe_id": chosen["id"]})
    meal = created["rows"][0]
    assert meal["id"].startswith("meal_") and meal["recipe_id"] == chosen["id"]
    assert meal["recipe_id_label"] == chosen["name"]
    await call(client, "turn_begin")
    deleted = await call(client, "db_delete", table="meal_plans", filters=[eq("id", meal["id"])])
    assert deleted["count"] == 1
    still = await call(client, "db_read", table="recipes", filters=[eq("id", chosen["id"])])
    assert still["count"] == 1


async def test_deleting_a_recipe_deletes_its_ingredients_and_unlinks_meal_plans(client: Client, app: AlfredApp) -> None:
    meals = await call(client, "db_read", table="meal_plans", filters=[{"field": "recipe_id", "op": "is_null", "value": False}], limit=1)
    recipe_ref = meals["rows"][0]["recipe_id"]
    ingredients = await call(client, "db_read", table="recipe_ingredients", filters=[eq("recipe_id", recipe_ref)], limit=500)
    assert ingredients["count"] > 0
    deleted = await call(client, "db_delete", table="recipes", filters=[eq("id", recipe_ref)])
    assert deleted["cascaded"] == [{"table": "recipe_ingredients", "count": ingredients["count"]}]
    meal = await call(client, "db_read", table="meal_plans", filters=[eq("id", meals["rows"][0]["id"])])
    assert meal["rows"][0]["recipe_id"] is None
    error = await call_error(client, "db_read", table="recipe_ingredients", filters=[eq("id", ingredients["rows"][0]["id"])])
    assert error["code"] == "deleted_ref"


async def test_ingredients_come_back_in_position_order(client: Client) -> None:
    recipe = (await call(client, "db_read", table="recipes", limit=1))["rows"][0]
    rows = (await call(client, "db_read", table="recipe_ingredients", filters=[eq("recipe_id", recipe["id"])],
                       order_by=[{"field": "position"}], limit=500))["rows"]
    assert [r["position"] for r in rows] == list(range(1, len(rows) + 1))


@pytest.mark.parametrize(
    ("tool", "arguments", "code", "words"),
    [
        pytest.param("db_read", {"table": "recipes", "filters": [eq("id", "recipe_999")]}, "unknown_ref", ["recipe_999"], id="unknown-ref"),
        pytest.param("db_read", {"table": "meal_plans", "filters": [eq("recipe_id", "inv_1")]}, "invalid_ref", ["recipe_id", "inv_1"], id="wrong-type-ref"),
        pytest.param("db_read", {"table": "recipes", "filters": [eq("id", "3f1b2c4d-1111-2222-3333-444455556666")]}, "invalid_ref", ["ref"], id="raw-uuid"),
        pytest.param("db_read", {"table": "pantry"}, "invalid_input", ["table", "recipes"], id="unknown-table"),
        pytest.param("db_read", {"table": "recipes", "filters": [eq("colour", "red")]}, "unknown_column", ["colour", "name"], id="unknown-column"),
        pytest.param("db_read", {"table": "recipes", "filters": [{"field": "name", "op": "like", "value": "x"}]}, "invalid_input", ["op", "ilike"], id="unknown-op"),
        pytest.param("db_create", {"table": "meal_plans", "data": {"date": "2026-01-20", "meal_type": "brunch"}}, "invalid_payload", ["meal_type", "dinner"], id="enum-violation"),
        pytest.param("db_create", {"table": "recipes", "data": {"name": "X", "servings": "four"}}, "invalid_payload", ["servings"], id="wrong-type"),
        pytest.param("db_create", {"table": "recipes", "data": {"name": "X", "colour": "red"}}, "unknown_column", ["colour"], id="unknown-column-in-payload"),
        pytest.param("db_create", {"table": "ingredients", "data": {"name": "X"}}, "invalid_input", ["table"], id="catalog-read-only"),
        pytest.param("db_create", {"table": "recipes", "data": {"name": ""}}, "invalid_payload", ["name", "empty"], id="empty-name"),
        pytest.param("db_create", {"table": "tasks", "data": {"title": " \t "}}, "invalid_payload", ["title", "empty"], id="blank-title"),
        pytest.param("shopping_list_from", {}, "invalid_input", ["'recipes'", "'meal_plans'", "one of them"], id="neither-alternative"),
        pytest.param("meal_cooked", {"recipe": "recipe_1", "meal": "meal_1"}, "invalid_input", ["'recipe'", "'meal'", "not both"],
                     id="both-alternatives"),
        pytest.param("draft_revise", {"ref": "gen_recipe_1"}, "invalid_input", ["'patch'", "'content'", "one of them"], id="neither-revision"),
        pytest.param("batch_status", {}, "invalid_input", ["no batches yet"], id="no-batch-yet"),
        pytest.param("entity_resolve", {"text": "the salmon", "entity_type": "spaceship"}, "invalid_input", ["entity_type", "recipe"],
                     id="unknown-ref-prefix"),
        pytest.param("session_start", {"bogus": 1}, "invalid_input", ["'bogus'", "it takes none"], id="argument-of-a-tool-without-any"),
        pytest.param("db_create", {"table": "recipes", "data": {"name": "X", "servings": True}}, "invalid_payload", ["got true"],
                     id="json-spelling-of-values"),
        pytest.param("db_update", {"table": "recipes", "data": {"servings": 2}}, "unscoped_write", ["all"], id="update-without-filters"),
        pytest.param("db_delete", {"table": "inventory"}, "unscoped_write", ["all"], id="delete-without-filters"),
        pytest.param("db_read", {"table": "recipes", "session": "session_99"}, "unknown_session", ["session_99"], id="unknown-session"),
    ],
)
async def test_bad_input_is_a_specific_error_and_changes_nothing(
    client: Client, app: AlfredApp, tool: str, arguments: dict, code: str, words: list[str]
) -> None:
    """Each mistake gets an isError result that names the problem; no table changes."""
    before = {name: await count_rows(app, name) for name in TABLES if TABLES[name].user_owned}
    error = await call_error(client, tool, **arguments)
    assert error["code"] == code, error
    for word in words:
        assert word in error["message"], error["message"]
    after = {name: await count_rows(app, name) for name in TABLES if TABLES[name].user_owned}
    assert after == before


async def test_injection_strings_are_plain_values(client: Client, app: AlfredApp) -> None:
    """SQL in a value matches nothing and breaks nothing."""
    evil = "x'); DROP TABLE recipes; --"
    found = await call(client, "db_read", table="recipes", filters=[{"field": "name", "op": "ilike", "value": evil}])
    assert found["count"] == 0
    created = await call(client, "db_create", table="shopping_list", data={"name": evil})
    assert created["rows"][0]["name"] == evil
    assert await count_rows(app, "recipes") > 0


async def test_batch_create_is_all_or_nothing(client: Client, app: AlfredApp) -> None:
    before = await count_rows(app, "tasks")
    error = await call_error(client, "db_create", table="tasks", data=[{"title": "ok"}, {"title": "bad", "category": "nope"}])
    assert error["code"] == "invalid_payload" and "data[1]" in error["message"]
    assert await count_rows(app, "tasks") == before


async def test_update_by_ref_changes_only_that_row(client: Client) -> None:
    rows = (await call(client, "db_read", table="inventory", order_by=[{"field": "name"}], limit=2))["rows"]
    updated = await call(client, "db_update", table="inventory", filters=[eq("id", rows[0]["id"])], data={"quantity": 42})
    assert [r["id"] for r in updated["rows"]] == [rows[0]["id"]] and updated["rows"][0]["quantity"] == 42
    other = await call(client, "db_read", table="inventory", filters=[eq("id", rows[1]["id"])])
    assert other["rows"][0]["quantity"] == rows[1]["quantity"]


async def test_working_set_lists_refs_with_labels_and_deletions(client: Client) -> None:
    listed = await call(client, "db_read", table="recipes", limit=2)
    await call(client, "db_delete", table="recipes", filters=[eq("id", listed["rows"][0]["id"])])
    working = await call(client, "show_working_set", entity_type="recipe")
    entries = {e["ref"]: e for e in working["refs"]}
    assert entries[listed["rows"][0]["id"]]["deleted_turn"] == listed["turn"]
    assert entries[listed["rows"][1]["id"]]["label"] == listed["rows"][1]["name"]


async def test_session_start_gives_fresh_refs_and_old_session_stays_addressable(client: Client) -> None:
    first = await call(client, "db_read", table="recipes", limit=1)
    started = await call(client, "session_start")
    assert started["previous"] == first["session"] and started["session"] != first["session"]
    fresh = await call(client, "show_working_set")
    assert fresh["count"] == 0 and fresh["turn"] == 1
    old = await call(client, "show_working_set", session=first["session"])
    assert old["count"] >= 1


async def test_describe_table_tells_enums_fks_and_ref_prefixes(client: Client) -> None:
    everything = await call(client, "describe_table")
    assert {t["name"]: t["ref_prefix"] for t in everything["tables"]}["meal_plans"] == "meal"
    meal = (await call(client, "describe_table", table="meal_plans"))["tables"][0]
    columns = {c["name"]: c for c in meal["columns"]}
    assert columns["meal_type"]["allowed"] == ["breakfast", "lunch", "dinner", "snack", "other"]
    assert columns["recipe_id"]["references"] == "recipes" and columns["recipe_id"]["ref_prefix"] == "recipe"


async def test_text_content_carries_the_same_result_as_structured(client: Client) -> None:
    result = await client.call_tool("db_read", {"table": "tasks"})
    text = result.content[0].text
    assert json.loads(text.split("\n", 1)[1]) == result.structured_content
    assert find_uuid(text) is None


async def test_an_error_result_carries_its_fields_in_meta_and_no_structured_content(client: Client) -> None:
    """A refused call's result validates against any outputSchema: no structuredContent, the message as text."""
    result = await client.call_tool("db_read", {"table": "nope"})
    assert result.is_error and result.structured_content is None
    fields = (result.meta or {})["alfred/error"]
    assert fields["code"] == "invalid_input" and fields["field"] == "table"
    assert result.content[0].type == "text" and result.content[0].text == f"Error: {fields['message']}"


async def test_long_numbers_words_and_uuids_in_text_are_kept_as_typed(client: Client) -> None:
    """Text is data: a run of 32 digits (a card number), of 32 letters, or a UUID someone typed is stored and read back as typed."""
    number, word, raw = "1234567890" * 4, "deadbeef" * 4, "123e4567e89b12d3a456426614174000"
    created = await call(client, "db_create", table="inventory", data={
        "name": "gift card", "quantity": 1, "unit": "piece", "notes": f"card {number}, code {word}, id {raw}",
    })
    (row,) = created["rows"]
    assert row["notes"] == f"card {number}, code {word}, id {raw}"
    (read,) = (await call(client, "db_read", table="inventory", filters=[eq("id", row["id"])]))["rows"]
    assert read["notes"] == row["notes"]


async def test_renaming_a_linked_ingredient_follows_the_catalog(client: Client) -> None:
    """A rename without a new catalog link re-links by the new name (a recipe ingredient takes that category unless
    given one), unlinks when the new name names no catalog ingredient, and leaves a link alone when the name stays.
    A row without a link stays without one, as db_create leaves it."""
    linked = {"field": "ingredient_id", "op": "is_null", "value": False}
    part = (await call(client, "db_read", table="recipe_ingredients", filters=[linked], limit=1))["rows"][0]
    catalog = (await call(client, "db_read", table="ingredients", limit=200))["rows"]
    other, third = [row for row in catalog if row["id"] != part["ingredient_id"] and row["category"] and " " not in row["name"]][:2]

    async def renamed(table: str, ref: str, **data: Any) -> tuple[Any, Any]:
        (row,) = (await call(client, "db_update", table=table, filters=[eq("id", ref)], data=data))["rows"]
        (read,) = (await call(client, "db_read", table=table, filters=[eq("id", ref)]))["rows"]
        assert read == row
        return row["ingredient_id"], row["category"]

    assert await renamed("recipe_ingredients", part["id"], name=part["name"]) == (part["ingredient_id"], part["category"])
    assert await renamed("recipe_ingredients", part["id"], name=other["name"], category="my own") == (other["id"], "my own")
    assert await renamed("recipe_ingredients", part["id"], name=third["name"]) == (third["id"], third["category"])
    assert await renamed("recipe_ingredients", part["id"], name="zzyzx cordial") == (None, None)
    assert await renamed("recipe_ingredients", part["id"], name=other["name"]) == (None, None)

    stock = (await call(client, "db_read", table="inventory", filters=[linked], limit=1))["rows"][0]
    assert await renamed("inventory", stock["id"], name="zzyzx cordial") == (None, stock["category"])
    await call(client, "kitchen_undo")  # the rename and its unlinking are one call: undone together
    (back,) = (await call(client, "db_read", table="inventory", filters=[eq("id", stock["id"])]))["rows"]
    assert {**back, "updated_at": None} == {**stock, "updated_at": None}  # the undo is a write of its own


async def test_a_blank_rename_leaves_the_row_as_it_was(client: Client) -> None:
    (before,) = (await call(client, "db_read", table="recipes", limit=1))["rows"]
    error = await call_error(client, "db_update", table="recipes", filters=[eq("id", before["id"])], data={"name": " "})
    assert error["code"] == "invalid_payload" and error["field"] == "name"
    (after,) = (await call(client, "db_read", table="recipes", filters=[eq("id", before["id"])]))["rows"]
    assert after == before


async def test_a_recipe_cannot_become_its_own_ancestor(client: Client, app: AlfredApp) -> None:
    """parent_recipe_id may not point at the recipe itself, nor at one of its variations (a loop of parents)."""
    first, second, third = (await call(client, "db_read", table="recipes", limit=3))["rows"]

    async def parent(ref: str, of: str) -> dict[str, Any]:
        return await call(client, "db_update", table="recipes", filters=[eq("id", of)], data={"parent_recipe_id": ref})

    await parent(first["id"], second["id"])  # second is a variation of first
    await parent(second["id"], third["id"])  # third of second
    for ref, of, words in ((first["id"], first["id"], "its own parent recipe"), (third["id"], first["id"], "descends from")):
        error = await call_error(client, "db_update", table="recipes", filters=[eq("id", of)], data={"parent_recipe_id": ref})
        assert error["code"] == "constraint_violation" and error["field"] == "parent_recipe_id" and words in error["message"], error
    (kept,) = (await call(client, "db_read", table="recipes", filters=[eq("id", first["id"])]))["rows"]
    assert kept["parent_recipe_id"] == first["parent_recipe_id"]
    await parent(first["id"], third["id"])  # re-parenting within the tree without a loop is fine


async def test_two_processes_on_one_session_never_answer_a_conflict(app: AlfredApp, tmp_path: Path) -> None:
    """A second server on the same database and user (another process, another replica) writes in the same session
    at the same time: a call whose session another one saved first runs again, so every call succeeds and every
    row is written once."""
    other = AlfredApp.from_settings(Settings(db=app.settings.db, seed_demo=False))
    await other.open()
    try:
        async with Client(build_server(app)) as first, Client(build_server(other)) as second:
            outcomes: list[bool] = []

            async def add(client: Client, name: str) -> None:
                result = await client.call_tool("db_create", {"table": "tasks", "data": {"title": name}})
                outcomes.append(not result.is_error)

            async with anyio.create_task_group() as group:
                for i in range(12):
                    group.start_soon(add, first, f"first {i}")
                    group.start_soon(add, second, f"second {i}")
            assert outcomes == [True] * 24
        titles = sorted(row["title"] for row in await app.store.select(TABLES["tasks"], Query(), user_id=app.user_id)
                        if row["title"].startswith(("first ", "second ")))
        assert titles == sorted([f"first {i}" for i in range(12)] + [f"second {i}" for i in range(12)])
    finally:
        await other.close()
