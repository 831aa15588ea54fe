"""A state-worded quick answer (a table's quick read) gives the client's model the rows' refs beside the person's
words, never inside them, so a next turn can name a row in Understand's referenced_refs without a lookup of its own.
Through the real client, sent ahead on the stage listing, generated over every kitchen table a quick read words."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
from e2e.helpers import call
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.server.mcp_server import build_server

pytestmark = pytest.mark.anyio
TABLES = ("inventory", "shopping_list", "recipes", "meal_plans", "tasks")
"""The tables a quick read words that the seeded kitchen has rows in."""


def _quick(table: str) -> dict[str, object]:
    return {"quick_mode": True, "quick_mode_confidence": 0.95, "quick_read": {"table": table, "limit": 5}}


@pytest.mark.parametrize("table", TABLES)
async def test_a_quick_answer_gives_the_rows_refs_beside_the_words_and_a_next_turn_names_one(app: AlfredApp, table: str) -> None:
    app.settings = replace(app.settings, listed=("stages",))
    async with Client(build_server(app)) as client:
        await call(client, "session_start")
        rows = (await call(client, "db_read", table=table, limit=5))["rows"]
        answer = await call(client, "turn_start", message=f"What's in my {table}?",
                            then=[{"role": "understand", "output": _quick(table)}])
        assert answer["outcome"] == "quick", answer
        refs = [row["id"] for row in rows]
        notice = answer.get("notice") or ""
        assert rows and all(re.search(rf"\b{ref}\b", notice) for ref in refs), notice
        assert not any(re.search(rf"\b{ref}\b", answer["reply"]) for ref in refs), answer["reply"]
        named = await call(client, "turn_start", message="Tell me about the first one",
                           then=[{"role": "understand", "output": {"referenced_refs": [refs[0]]}}])
        assert "refused" not in named and "not_applied" not in named and named["expected_role"] == "think", named
