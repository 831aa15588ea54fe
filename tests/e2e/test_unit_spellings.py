"""Every spelling of a unit a model may write ('count', 'pcs', 'each', 'Tablespoons', 'cups') is saved as the one the
pantry and the lists use ('piece', 'tbsp', 'cup'), through every tool that writes a unit column: db_create and
db_update on each table with one, so a ticked line adds to the pantry row of the same item instead of a second row."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from alfred_mcp.kitchen.schema import TABLES, UNITS
from alfred_mcp.kitchen.units import _CASE_SENSITIVE_ALIASES, EXTRA_UNITS, KNOWN_UNITS, UNIT_ALIASES

from .helpers import call, eq

pytestmark = pytest.mark.anyio

SPELLINGS: dict[str, str] = {
    **UNIT_ALIASES,
    **_CASE_SENSITIVE_ALIASES,
    **{alias.upper(): unit for alias, unit in UNIT_ALIASES.items() if alias.isalpha()},
    **{f"{unit}s": unit for unit in (*UNITS, *EXTRA_UNITS) if not unit.endswith(("s", "h", "f"))},
    **{f"{unit.capitalize()}.": unit for unit in UNITS},
}
"""A spelling a model may write -> the unit it is saved as."""

UNIT_COLUMNS = sorted((table.name, column.name) for table in TABLES.values() if table.user_owned
                      for column in table.columns if column.suggested == UNITS)


async def _row(client: Client, table: str, unit: str, position: int = 0) -> dict[str, Any]:
    """A row of `table` to write with `unit`: every required column filled."""
    if table == "recipe_ingredients":
        recipe = (await call(client, "db_read", table="recipes", limit=1))["rows"][0]["id"]
        return {"recipe_id": recipe, "name": "eggs", "quantity": 2, "unit": unit, "position": 100 + position}
    return {"name": f"eggs {position}", "quantity": 12, "unit": unit}  # a name of its own: never added to another line


def test_the_spellings_cover_every_alias_and_every_writable_unit_column() -> None:
    assert set(UNIT_ALIASES) <= set(SPELLINGS) and set(SPELLINGS.values()) <= KNOWN_UNITS
    assert {table for table, _ in UNIT_COLUMNS} == {"inventory", "shopping_list", "recipe_ingredients"}


@pytest.mark.parametrize(("table", "column"), UNIT_COLUMNS)
async def test_db_create_saves_every_unit_spelling_as_its_one_unit(client: Client, table: str, column: str) -> None:
    spellings = list(SPELLINGS)
    saved = {}
    for start in range(0, len(spellings), 50):  # a db_create takes at most 100 rows
        chunk = spellings[start:start + 50]
        created = (await call(client, "db_create", table=table, data=[await _row(client, table, s, start + i) for i, s in enumerate(chunk)]))["rows"]
        refs = [row["id"] for row in created]
        read = {row["id"]: row for row in (await call(client, "db_read", table=table, limit=100,
                                                      filters=[{"field": "id", "op": "in", "value": refs}]))["rows"]}
        saved |= {spelling: read[ref][column] for spelling, ref in zip(chunk, refs, strict=True)}
    assert saved == SPELLINGS


@pytest.mark.parametrize(("table", "column"), UNIT_COLUMNS)
async def test_db_update_saves_every_unit_spelling_as_its_one_unit(client: Client, table: str, column: str) -> None:
    ref = (await call(client, "db_create", table=table, data=[await _row(client, table, "piece")]))["rows"][0]["id"]
    saved = {}
    for spelling in SPELLINGS:
        await call(client, "db_update", table=table, filters=[eq("id", ref)], data={column: spelling})
        saved[spelling] = (await call(client, "db_read", table=table, filters=[eq("id", ref)]))["rows"][0][column]
    assert saved == SPELLINGS
