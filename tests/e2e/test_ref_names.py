"""A row named the way people name it where a call takes one ref, through the real client on the demo kitchen.

Every argument that takes a name (`operations/ref_names.py`: the kitchen tools' `recipe`, and `id eq` filters of
db_read, db_update and db_delete on every table people name) is tried by exact name, by some of its words, with a
word several rows share, with no row's name, and with text that must never be read as a name (SQL, another table's
ref, a database id). The cases come from the kitchen's own labels, never from a fixed list.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import AsyncIterator
from typing import Any

import pytest
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.query import Query
from alfred_mcp.kitchen.schema import RECIPES, TABLES, Table
from alfred_mcp.kitchen.taxonomy import ingredient_words
from alfred_mcp.operations.entities import NAMED_TABLES
from alfred_mcp.operations.ref_names import CHANGES, FILTER_TOOLS, NAME_ARGUMENTS
from alfred_mcp.server.mcp_server import AlfredServer
from alfred_mcp.state.entity_resolver import name_words

from .helpers import call, call_error, eq, row_labels, word_only_one_holds

pytestmark = pytest.mark.anyio


@pytest.fixture
async def client(server: AlfredServer) -> AsyncIterator[Client]:
    """The real client on one protocol era: names are resolved below the protocol, the same in both."""
    async with Client(server) as connected:
        yield connected


def _cases() -> list[tuple[str, str, Table]]:
    """(tool, argument, table) for every argument that takes a name."""
    kitchen = [(tool, argument, RECIPES) for tool, arguments in NAME_ARGUMENTS.items() for argument in arguments]
    return kitchen + [(tool, "filters", table) for tool in sorted(FILTER_TOOLS) for table in NAMED_TABLES]


CASES = _cases()
CASE_IDS = [f"{tool}-{argument}-{table.name}" for tool, argument, table in CASES]


def _arguments(tool: str, table: Table, value: str) -> dict[str, Any]:
    """The call with `value` where it takes one ref of `table`."""
    if tool in FILTER_TOOLS:
        (label,) = table.label_columns
        data = {"data": {label: "Renamed in a test"}} if tool == "db_update" else {}
        return {"table": table.name, "filters": [eq("id", value)], **data}
    return {"recipe": value, **({"servings": 3} if tool == "recipes_scale" else {})}


async def _kitchen(app: AlfredApp) -> dict[str, list[dict[str, Any]]]:
    """Every row of the user's kitchen, to see that a refused call changed nothing."""
    tables = [table for table in TABLES.values() if table.user_owned]
    return {table.name: sorted((await app.store.select(table, Query(limit=1000), user_id=app.user_id)), key=lambda r: r["id"])
            for table in tables}


def _shared_word(labels: list[str]) -> tuple[str, list[str]] | None:
    """A word two or more labels hold: (word, those labels)."""
    counts = Counter(word for label in labels for word in set(name_words(label)))
    shared = sorted(word for word, count in counts.items() if count > 1)
    if not shared:
        return None
    return shared[0], [label for label in labels if shared[0] in ingredient_words(label)]


def _result_ref(tool: str, result: dict[str, Any]) -> str:
    return str(result["rows"][0]["id"] if tool in FILTER_TOOLS else result["recipe"] if "recipe" in result else result["ref"])


@pytest.mark.parametrize(("tool", "argument", "table"), CASES, ids=CASE_IDS)
async def test_an_exact_name_in_any_case_runs_the_call_on_that_row_and_answers_its_ref(
    client: Client, app: AlfredApp, tool: str, argument: str, table: Table
) -> None:
    labels = await row_labels(app, table)
    label = next(label for label in sorted(labels) if labels.count(label) == 1 and name_words(label))
    given = label.upper() if len(label) % 2 else f"  {label.lower()} "
    result = await call(client, tool, **_arguments(tool, table, given))
    ref = result["named"][given]
    assert re.fullmatch(fr"{table.entity_type}_[1-9][0-9]*", ref)
    assert _result_ref(tool, result) == ref
    if tool != "db_delete":  # the ref names the row from then on
        again = await call(client, tool, **_arguments(tool, table, ref))
        assert "named" not in again and _result_ref(tool, again) == ref


@pytest.mark.parametrize(("tool", "argument", "table"), CASES, ids=CASE_IDS)
async def test_some_words_of_one_name_run_a_read_and_are_refused_for_a_change(
    client: Client, app: AlfredApp, tool: str, argument: str, table: Table
) -> None:
    found = word_only_one_holds(await row_labels(app, table))
    assert found is not None, f"the demo kitchen's {table.name} need a word only one of them holds"
    word, label = found
    before = await _kitchen(app)
    if tool in CHANGES:
        error = await call_error(client, tool, **_arguments(tool, table, word))
        assert error["code"] == "unmatched_name" and error["field"] == ("recipe" if argument == "recipe" else "filters[0].value")
        assert label in error["message"] and "exact name or a ref" in error["message"] and "nothing was changed" in error["message"]
        assert await _kitchen(app) == before
        (ref,) = error["candidates"]  # the candidate's ref entered the session: the next try can give it
        await call(client, tool, **_arguments(tool, table, ref))
    else:
        result = await call(client, tool, **_arguments(tool, table, word))
        assert result["named"] == {word: _result_ref(tool, result)}
        assert await _kitchen(app) == before


@pytest.mark.parametrize(("tool", "argument", "table"), CASES, ids=CASE_IDS)
async def test_a_word_several_rows_share_lists_them_with_their_refs_and_changes_nothing(
    client: Client, app: AlfredApp, tool: str, argument: str, table: Table
) -> None:
    found = _shared_word(await row_labels(app, table))
    assert found is not None, f"the demo kitchen's {table.name} need a word two of them share"
    word, labels = found
    before = await _kitchen(app)
    error = await call_error(client, tool, **_arguments(tool, table, word))
    assert error["code"] == "unmatched_name" and len(error["candidates"]) == len(labels) >= 2
    assert all(label in error["message"] for label in labels) and "nothing was changed" in error["message"]
    assert await _kitchen(app) == before
    if tool not in CHANGES or tool == "db_update":  # a listed ref is known now
        await call(client, tool, **_arguments(tool, table, error["candidates"][1]))


@pytest.mark.parametrize(("tool", "argument", "table"), CASES, ids=CASE_IDS)
@pytest.mark.parametrize("given", [
    "Quince Soufflé Nobody Made", "'; DROP TABLE recipes; --", "x' OR '1'='1", "%", "_", "recipe_1 OR 1=1",
])
async def test_a_name_no_row_has_is_refused_naming_the_argument_and_changes_nothing(
    client: Client, app: AlfredApp, tool: str, argument: str, table: Table, given: str
) -> None:
    before = await _kitchen(app)
    error = await call_error(client, tool, **_arguments(tool, table, given))
    assert error["code"] == "unmatched_name" and error["field"] in ("recipe", "filters[0].value")
    assert f"no {table.noun} is named" in error["message"] and "nothing was changed" in error["message"]
    assert await _kitchen(app) == before


@pytest.mark.parametrize(("tool", "argument", "table"), CASES, ids=CASE_IDS)
@pytest.mark.parametrize("given", ["task_1", "inv_2", "gen_meal_1", "0b7e6f5c-3a1d-4c2e-9f00-1234567890ab"])
async def test_a_ref_or_an_id_is_never_read_as_a_name(
    client: Client, app: AlfredApp, tool: str, argument: str, table: Table, given: str
) -> None:
    """Another table's ref and a database id go to the translation layer, which refuses them as refs."""
    if given.split("_")[0] == table.entity_type:
        given = "meal_1"
    before = await _kitchen(app)
    error = await call_error(client, tool, **_arguments(tool, table, given))
    assert error["code"] in ("invalid_ref", "unknown_ref") and error.get("field") in ("recipe", "id")
    assert await _kitchen(app) == before


async def test_a_name_longer_than_any_label_is_refused_naming_the_argument(client: Client) -> None:
    error = await call_error(client, "recipe_show", recipe="pancake " * 40)
    assert error["field"] == "recipe" and "at most 200 characters" in error["message"]


NEW_ROWS: dict[str, dict[str, Any]] = {
    "recipes": {"name": "A Variation in a Test"}, "recipe_ingredients": {"position": 99, "name": "flaky salt"},
    "meal_plans": {"date": "2026-01-20", "meal_type": "dinner"}, "tasks": {"title": "A task in a test"}, "cooking_log": {},
}
"""A row each table with a foreign key to a named table can be given, all but that key."""
FOREIGN_KEYS = [(table.name, column.name) for table in TABLES.values() for column in table.fk_columns
                if column.fk is not None and TABLES[column.fk.table] in NAMED_TABLES]


def test_every_foreign_key_to_a_named_table_has_a_row_to_try() -> None:
    assert FOREIGN_KEYS and {table for table, _ in FOREIGN_KEYS} <= set(NEW_ROWS)


@pytest.mark.parametrize(("table", "column"), FOREIGN_KEYS, ids=[f"{t}.{c}" for t, c in FOREIGN_KEYS])
@pytest.mark.parametrize("naming", ["exact", "words", "shared"])
async def test_a_foreign_key_of_a_new_row_takes_a_name_and_an_update_only_an_exact_one(
    client: Client, app: AlfredApp, table: str, column: str, naming: str
) -> None:
    target = TABLES[TABLES[table].column(column).fk.table]  # type: ignore[union-attr]
    labels = await row_labels(app, target)
    unique, shared = word_only_one_holds(labels), _shared_word(labels)
    assert unique is not None and shared is not None
    given, label = {"exact": (unique[1].upper(), unique[1]), "words": unique, "shared": (shared[0], "")}[naming]
    before = await _kitchen(app)
    arguments = {"table": table, "data": {**NEW_ROWS[table], column: given}}
    if naming == "shared":
        error = await call_error(client, "db_create", **arguments)
        assert error["code"] == "unmatched_name" and error["field"] == f"data.{column}" and len(error["candidates"]) >= 2
        assert await _kitchen(app) == before
        return
    created = await call(client, "db_create", **arguments)
    (row,) = created["rows"]
    assert created["named"] == {given: row[column]} and row[f"{column}_label"] == label
    update = {"table": table, "filters": [eq("id", row["id"])], "data": {column: given}}
    if naming == "words":
        error = await call_error(client, "db_update", **update)
        assert error["code"] == "unmatched_name" and "exact name or a ref" in error["message"]
    else:
        assert (await call(client, "db_update", **update))["rows"][0][column] == row[column]
