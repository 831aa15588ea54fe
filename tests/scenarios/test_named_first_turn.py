"""A session's first turn sent in one turn_start, its calls naming rows as the user does (no ref known yet), through
the real client on a seeded kitchen (`operations/ref_names.py`).

Round 5's stage clients began "Show me the pancakes recipe" with a bare turn_start only to learn refs; here
Understand's quick read or Think's step call names the recipe, and the turn ends in the same call, its notice giving
the ref the name became. A change by a name that only some words match is refused there, the step waiting for Act
with the candidates' refs, and nothing changed.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from typing import Any

import pytest
from e2e.helpers import call, row_labels, word_only_one_holds
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.query import Query
from alfred_mcp.kitchen.schema import RECIPES
from alfred_mcp.operations.ref_names import CHANGES, NAME_ARGUMENTS
from alfred_mcp.server.mcp_server import build_server

from .scripts import plan, step

pytestmark = pytest.mark.anyio

READS = sorted(tool for tool in NAME_ARGUMENTS if tool not in CHANGES)
"""The kitchen tools that read a recipe by name."""
EXTRA = {"recipes_scale": {"servings": 8}}


@pytest.fixture
async def client(app: AlfredApp) -> AsyncIterator[Client]:
    async with Client(build_server(app)) as connected:
        yield connected


async def _names(app: AlfredApp) -> dict[str, tuple[str, str]]:
    """How a test names one recipe: 'exact' (its name, in other case) and 'words' (a word only it holds): (given, name)."""
    labels = await row_labels(app, RECIPES)
    found = word_only_one_holds(labels)
    assert found is not None, "the demo kitchen needs a recipe holding a word no other holds"
    word, label = found
    return {"exact": (label.lower(), label), "words": (word, label)}


def _understood(message: str) -> dict[str, Any]:
    return {"role": "understand", "output": {"processed_message": message}}


def _recipe_ref_in(answer: dict[str, Any], name: str) -> str:
    """The recipe ref the turn's notice gives beside `name`: what the client's model uses from then on."""
    notice = answer["notice"]
    assert name in notice, notice
    found = re.search(r"\brecipe_[1-9][0-9]*\b", notice)
    assert found is not None, notice
    return found.group(0)


@pytest.mark.parametrize("naming", ["exact", "words"])
async def test_a_first_turn_quick_read_names_the_recipe_and_ends_in_one_call(client: Client, app: AlfredApp, naming: str) -> None:
    given, name = (await _names(app))[naming]
    quick = {"processed_message": f"show the {given} recipe", "quick_mode": True, "quick_mode_confidence": 0.95,
             "quick_read": {"tool": "recipe_show", "arguments": {"recipe": given}}}
    answer = await call(client, "turn_start", message=f"Show me the {given} recipe.", then=[{"role": "understand", "output": quick}])
    assert answer["turn"] == 1 and answer["outcome"] == "completed" and "refused" not in answer, answer
    ref = _recipe_ref_in(answer, name)
    again = await call(client, "recipe_show", recipe=ref)  # the ref it became is the session's from then on
    assert again["name"] == name


@pytest.mark.parametrize("naming", ["exact", "words"])
@pytest.mark.parametrize("tool", READS)
async def test_a_first_turn_step_call_names_the_recipe_and_ends_in_one_call(
    client: Client, app: AlfredApp, tool: str, naming: str
) -> None:
    given, name = (await _names(app))[naming]
    think = plan(f"{tool} {given}", step("read", f"{tool} of {given}", call={"tool": tool, "arguments": {"recipe": given, **EXTRA.get(tool, {})}}))
    answer = await call(client, "turn_start", message=f"{tool} the {given}", then=[_understood(tool), {"role": "think", "output": think}])
    assert answer["turn"] == 1 and answer["outcome"] == "completed" and answer["stage"] == "answered" and "answered" in answer, answer
    assert "failed" not in answer["notice"]
    ref = _recipe_ref_in(answer, name)
    assert (await call(client, "recipe_show", recipe=ref))["name"] == name  # the ref it became names that recipe


async def test_a_first_turn_delete_by_some_words_is_refused_and_waits_for_act_with_the_ref_changing_nothing(
    client: Client, app: AlfredApp
) -> None:
    given, name = (await _names(app))["words"]
    before = await app.store.select(RECIPES, Query(limit=500), user_id=app.user_id)
    think = plan(f"Delete {given}", step("write", f"Delete {given}", call={
        "tool": "db_delete", "arguments": {"table": "recipes", "filters": [{"field": "id", "op": "eq", "value": given}]}}))
    answer = await call(client, "turn_start", message=f"Delete the {given}.", then=[_understood("delete"), {"role": "think", "output": think}])
    assert answer["expected_role"] == "act" and "exact name or a ref" in answer["notice"] and name in answer["notice"]
    assert await app.store.select(RECIPES, Query(limit=500), user_id=app.user_id) == before
    ref = _recipe_ref_in(answer, name)
    deleted = await call(client, "turn_submit", role="act", output={"action": "tool_call", "tool": "db_delete", "arguments": {
        "table": "recipes", "filters": [{"field": "id", "op": "eq", "value": ref}]}})
    assert "failed" not in deleted["notice"], deleted


async def test_a_first_turn_delete_by_exact_name_runs_in_one_call(client: Client, app: AlfredApp) -> None:
    given, name = (await _names(app))["exact"]
    think = plan(f"Delete {name}", step("write", f"Delete {name}", call={
        "tool": "db_delete", "arguments": {"table": "recipes", "filters": [{"field": "id", "op": "eq", "value": given}]}}))
    answer = await call(client, "turn_start", message=f"Delete {given}.", then=[_understood("delete"), {"role": "think", "output": think}])
    assert answer["stage"] == "answered" and "failed" not in answer["notice"], answer  # the state's account tells the removal
    assert name not in await row_labels(app, RECIPES)
