"""The kitchen rows a message's words bring into the Understand context: rows named by the words, never rows that
only share a substring with them, and none for a word that names a kind or a place."""

from __future__ import annotations

from datetime import date

import pytest

from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.query import Query
from alfred_mcp.kitchen.schema import HEALTH_TAGS, LOCATIONS, PARENT_CATEGORIES, Table
from alfred_mcp.kitchen.taxonomy import ingredient_words
from alfred_mcp.operations.entities import NAMED_TABLES, read_references

pytestmark = pytest.mark.anyio

NAMED = "has: "
"""How a background row named by a message word says why it is listed ('title has: fridge')."""


@pytest.mark.parametrize("word", sorted({*LOCATIONS, *HEALTH_TAGS, *PARENT_CATEGORIES}))
async def test_a_kind_or_a_place_brings_no_row_named_by_it(app: AlfredApp, word: str) -> None:
    async with app.work("test") as work:
        reading = await read_references(work, f"what's in the {word}? make it {word}", today=date.today())
    assert [c for c in reading.background if NAMED in c.reason] == []
    assert [m.candidates for m in reading.mentions] == [()]


async def test_a_message_word_brings_only_rows_that_hold_it_whole(app: AlfredApp) -> None:
    """Every part of a seeded label's word ('free' of 'freezer', 'butt' of 'butter') as a message word: the rows it
    brings hold it as a whole word, and a part that is no whole word of any label brings none."""
    async with app.work("test") as work:
        seeded = {word for table in NAMED_TABLES for row in await work.store.select(table, _all(table), user_id=work.user_id)
                  for word in ingredient_words(str(row.get(table.label_columns[0]) or ""))}
        parts = sorted({word[:cut] for word in seeded for cut in (4, 5) if len(word) > cut + 1} - seeded)
        assert parts
        for part in parts:
            reading = await read_references(work, f"the {part}", today=date.today())
            named = [c for c in reading.background if c.reason.endswith(f"{NAMED}{part}")]
            assert named == [], (part, named)


def _all(table: Table) -> Query:
    return Query(columns=("id", *table.label_columns), limit=200)
