"""UUID-shaped text a person gives is data: written to every text column of every kitchen table, on
every backend, it reads back exactly as given, is never taken for a ref, and no database id ever
comes back (the ids are read from the database itself)."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.schema import Column, Table
from alfred_mcp.server.mcp_server import build_server

from .conftest import Kitchen
from .corpus import _VALID_ROWS, HEX32, USER_TABLES, UUID
from .harness import KitchenSnapshot, call, db_ids, render_everything

pytestmark = pytest.mark.anyio

TEXTS = [f"https://cooking.example/recipes/{UUID}/lemon-cod", f"order {HEX32.upper()} (keep)", UUID]
"""A source URL with an id in its path, a compact id in a note, an id alone."""


def _text_columns(table: Table) -> list[Column]:
    return [c for c in table.writable_columns if c.type in ("text", "text[]") and c.enum is None and c.fk is None]


def _value(column: Column, text: str) -> Any:
    limit = column.max_length or 2_000
    return [text[:limit]] if column.type == "text[]" else text[:limit]


COLUMNS = [(table, column) for table in USER_TABLES if table.name in _VALID_ROWS for column in _text_columns(table)]


async def test_uuid_text_in_every_text_column_reads_back_as_given(kitchen_app: AlfredApp, kitchen: Kitchen) -> None:
    snapshot = KitchenSnapshot(kitchen.db)
    problems: list[str] = []
    try:
        async with Client(build_server(kitchen_app)) as client:
            for number, (table, column, text) in enumerate((t, c, x) for t, c in COLUMNS for x in TEXTS):
                value = _value(column, text)
                given = dict(_VALID_ROWS[table.name])
                if "name" in given and column.name != "name":  # a row of its own: never added to an open line of the same item
                    given["name"] = f"{given['name']} {number}"
                wrote = await _write(client, table, {**given, column.name: value})
                if not wrote.ok:
                    problems.append(f"{table.name}.{column.name}: refused {text!r}: {wrote.text[:200]}")
                    continue
                ref = wrote.structured["rows"][0]["id"]
                read = await call(client, "db_read", {"table": table.name, "filters": [{"field": "id", "op": "eq", "value": ref}]})
                (row,) = read.structured["rows"]
                if row[column.name] != value:
                    problems.append(f"{table.name}.{column.name}: {value!r} came back as {row[column.name]!r}")
                ids = db_ids(snapshot.take())
                if wrote.leaked(ids) or read.leaked(ids):
                    problems.append(f"{table.name}.{column.name}: a database id came back")
            problems += await render_everything(client, db_ids(snapshot.take()))
    finally:
        snapshot.close()
    assert COLUMNS and not problems, "\n".join(problems)


async def _write(client: Client, table: Table, data: dict[str, Any]) -> Any:
    if table.name == "preferences":  # one row per user: the seeded one is updated
        return await call(client, "db_update", {"table": table.name, "data": data, "all": True, "confirm_allergy_removal": True})
    return await call(client, "db_create", {"table": table.name, "data": data})


@pytest.mark.parametrize("text", [UUID, HEX32, UUID.upper()])
async def test_uuid_text_where_a_ref_is_expected_is_refused_as_not_a_ref(kitchen_app: AlfredApp, text: str) -> None:
    """Never mistaken for a ref: in a foreign key, a filter on id and a ref argument, it is refused naming the field."""
    async with Client(build_server(kitchen_app)) as client:
        outcomes = {
            "recipe_id": await call(client, "db_create", {"table": "meal_plans", "data": {
                "date": "2026-02-01", "meal_type": "dinner", "recipe_id": text}}),
            "id": await call(client, "db_read", {"table": "recipes", "filters": [{"field": "id", "op": "eq", "value": text}]}),
            "recipe": await call(client, "recipe_show", {"recipe": text}),
        }
    for field, outcome in outcomes.items():
        assert not outcome.ok and outcome.fields.get("field") == field and outcome.fields.get("code") in ("invalid_ref", "invalid_input"), (
            field, outcome.fields, outcome.text)
