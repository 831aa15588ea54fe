"""Every argument that takes a list of refs of a table people name takes names too, item by item, by the rules of a
single ref (`operations/ref_names.py`): an exact name, else the one row holding all its words; a call that changes
rows (shopping_list_check ticks lines) only an exact name; no row or several: `unmatched_name` naming the item
(`items[1]`) and listing candidates, nothing changed. The arguments come from the tool contracts, the names from the
demo kitchen's own rows. (Real client, real SQLite.)"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.contracts import load_contracts
from alfred_mcp.kitchen.query import Query
from alfred_mcp.kitchen.schema import TABLES, Table
from alfred_mcp.operations.ref_names import CHANGES, REF_LISTS
from alfred_mcp.server.mcp_server import AlfredServer

from .helpers import call, call_error, row_labels, word_only_one_holds

pytestmark = pytest.mark.anyio

NOT_ROW_REFS = {("understanding_submit", "referenced_refs"), ("db_read", "columns")}
"""Lists of strings that are no rows to look up: the refs Understand says the user means (kept as said), columns."""
DRAFTS = "^(gen_)?"
"""A list of draft refs (gen_*, or a batch's items) is checked against its pattern: drafts are named by their refs."""


def _string_lists() -> list[tuple[str, str, dict[str, Any]]]:
    return [(name, argument, schema) for name, contract in sorted(load_contracts().items())
            for argument, schema in contract.input_schema.get("properties", {}).items()
            if schema.get("type") == "array" and schema.get("items", {}).get("type") == "string"]


def test_every_list_of_row_refs_in_every_contract_takes_names() -> None:
    """A list of strings is a list of row refs taking names (REF_LISTS, its items without a ref pattern, the argument or
    the tool saying names work), a list of
    draft refs, or the refs Understand reports."""
    for tool, argument, schema in _string_lists():
        if REF_LISTS.get(tool, ("",))[0] == argument:
            said = schema.get("description", "") + load_contracts()[tool].description
            assert "pattern" not in schema["items"] and "names" in said, (tool, argument)
        else:
            pattern = schema["items"].get("pattern", "")
            assert pattern.startswith(("^gen_", DRAFTS)) or (tool, argument) in NOT_ROW_REFS, (tool, argument, schema)
    assert {tool for tool, _, _ in _string_lists()} >= set(REF_LISTS)


@pytest.fixture
async def client(server: AlfredServer) -> AsyncIterator[Client]:
    async with Client(server) as connected:
        yield connected


def _call_with(tool: str, listed: list[str]) -> dict[str, Any]:
    argument = REF_LISTS[tool][0]
    return {argument: listed, **({"bought": True} if tool == "shopping_list_check" else {"preview": True})}


async def _rows(app: AlfredApp, table: Table) -> list[dict[str, Any]]:
    return sorted(await app.store.select(table, Query(limit=1000), user_id=app.user_id), key=lambda row: str(row["id"]))


async def _unique_label(app: AlfredApp, table: Table) -> str:
    labels = await row_labels(app, table)
    return next(label for label in sorted(labels) if labels.count(label) == 1)


@pytest.mark.parametrize("tool", sorted(REF_LISTS))
async def test_an_exact_name_in_a_ref_list_runs_the_call_on_that_row_and_answers_its_ref(client: Client, app: AlfredApp, tool: str) -> None:
    table = REF_LISTS[tool][1]
    label = await _unique_label(app, table)
    named = (await call(client, tool, **_call_with(tool, [label.upper()])))["named"]
    ref = named[label.upper()]
    assert ref.startswith(f"{table.entity_type}_")
    if tool == "shopping_list_check":
        (row,) = [row for row in (await call(client, "db_read", table=table.name))["rows"] if row["id"] == ref]
        assert row["is_purchased"] is True
    else:
        by_ref = await call(client, tool, **_call_with(tool, [ref]))
        assert "named" not in by_ref and by_ref["recipes"] == [ref]


@pytest.mark.parametrize("tool", sorted(REF_LISTS))
async def test_a_word_of_one_name_in_a_ref_list_runs_a_read_and_is_refused_for_a_change(client: Client, app: AlfredApp, tool: str) -> None:
    table = REF_LISTS[tool][1]
    found = word_only_one_holds(await row_labels(app, table))
    assert found is not None
    word, label = found
    before = await _rows(app, table)
    if tool in CHANGES:
        error = await call_error(client, tool, **_call_with(tool, [word]))
        assert error["code"] == "unmatched_name" and error["field"] == f"{REF_LISTS[tool][0]}[0]" and label in error["message"]
        assert await _rows(app, table) == before
    else:
        result = await call(client, tool, **_call_with(tool, [word]))
        assert result["named"] == {word: result["recipes"][0]}


@pytest.mark.parametrize("tool", sorted(REF_LISTS))
async def test_a_name_no_row_has_after_a_ref_is_refused_naming_its_item_and_changes_nothing(client: Client, app: AlfredApp, tool: str) -> None:
    argument, table = REF_LISTS[tool]
    ref = (await call(client, "db_read", table=table.name, limit=1))["rows"][0]["id"]
    before = {name: await _rows(app, TABLES[name]) for name in ("shopping_list", "inventory")}
    error = await call_error(client, tool, **_call_with(tool, [ref, "Quince Soufflé Nobody Made"]))
    assert error["code"] == "unmatched_name" and error["field"] == f"{argument}[1]" and "nothing was changed" in error["message"]
    assert {name: await _rows(app, TABLES[name]) for name in before} == before


async def test_servings_keyed_by_a_recipe_name_follow_it_to_its_ref(client: Client, app: AlfredApp) -> None:
    table = REF_LISTS["shopping_list_from"][1]
    label = await _unique_label(app, table)
    by_name = await call(client, "shopping_list_from", recipes=[label], servings={label: 8}, preview=True)
    ref = by_name["named"][label]
    by_ref = await call(client, "shopping_list_from", recipes=[ref], servings={ref: 8}, preview=True)
    assert by_name["lines"] == by_ref["lines"]
