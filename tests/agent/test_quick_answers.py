"""Quick mode's answer reads as a person wrote it: for every table of the demo kitchen, through a real quick turn,
no refs, no raw ids, no column names, no float amounts ("6.0 oz"), dates as a calendar shows them."""

from __future__ import annotations

import re
from typing import Any

import pytest

from alfred_mcp.agent.llm.scripted import ScriptedLLM
from alfred_mcp.agent.loop import run_turn
from alfred_mcp.agent.machine import TurnMachine
from alfred_mcp.agent.quick_answer import quick_answer
from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.schema import TABLES
from alfred_mcp.server.leak_guard import find_uuid
from alfred_mcp.server.tools.runner import tool_runner
from alfred_mcp.state.agent_turn import TurnState

pytestmark = pytest.mark.anyio
REF = re.compile(r"\b[a-z_]+_\d+\b")
FLOAT_AMOUNT = re.compile(r"\b\d+\.0\b")
ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
COLUMNS = {column.name for table in TABLES.values() for column in table.columns if "_" in column.name}


async def quick(app: AlfredApp, read: dict[str, Any]) -> TurnState:
    answer = {"quick_mode": True, "quick_mode_confidence": 1.0, "quick_read": read}
    async with app.work("chat") as work:
        return await run_turn(TurnMachine(work, tool_runner(app, work.session.name)), ScriptedLLM({"understand": [answer]}), "look")


def assert_reads_as_written_by_a_person(reply: str) -> None:
    assert reply and find_uuid(reply) is None, reply
    assert REF.search(reply) is None, f"a ref in: {reply}"
    assert FLOAT_AMOUNT.search(reply) is None, f"a float amount in: {reply}"
    assert ISO_DATE.search(reply) is None, f"an ISO date in: {reply}"
    assert not [column for column in COLUMNS if column in reply], reply
    assert "None" not in reply and "{" not in reply


@pytest.mark.parametrize("table", ["inventory", "shopping_list", "recipes", "meal_plans", "tasks", "cooking_log", "ingredients",
                                   "recipe_ingredients", "preferences"])
@pytest.mark.parametrize("limit", [1, 3, 100])
async def test_a_quick_answer_reads_as_a_person_wrote_it(app: AlfredApp, table: str, limit: int) -> None:
    state = await quick(app, {"table": table, "limit": limit})
    assert state.outcome == "quick" and state.quick_result is not None
    assert_reads_as_written_by_a_person(state.reply or "")
    if state.quick_result["rows"] and limit == 1:
        assert "\n" not in (state.reply or ""), "one row is one sentence"


@pytest.mark.parametrize(("where", "said"), [
    ({"field": "name", "op": "eq", "value": "unicorn"}, 'No items in your pantry named "unicorn".'),
    ({"field": "location", "op": "eq", "value": "freezer"}, None),
    ({"field": "quantity", "op": "gt", "value": 10_000}, "Nothing matched in your pantry."),
])
async def test_nothing_found_is_said_plainly(app: AlfredApp, where: dict[str, Any], said: str | None) -> None:
    """A lookup that found nothing says what it looked for; a filter not put in words is said as 'matched'."""
    empty = [{"field": "name", "op": "eq", "value": "unicorn"}] if said is None else []
    state = await quick(app, {"table": "inventory", "filters": [where, *empty]})
    assert state.reply == (said or 'No items in your freezer named "unicorn".')


@pytest.mark.parametrize(("quantity", "unit", "shown"), [
    (6.0, "oz", "6 oz"), (1.5, "cup", "1 1/2 cups"), (12, None, "12"), (0.25, "tsp", "1/4 tsp"), (250.0, "g", "250 g"),
    (0.875, "pack", "about 1 pack"), (28.0, "oz", "1 3/4 lb"), (18.0, "oz", "1 lb 2 oz"), (0.5, "gallon", "1/2 gallon"),
    (2.0, "quart", "2 quarts"), (1.5, "pint", "1 1/2 pints"), (12.0, "fl oz", "12 fl oz"),
])
def test_amounts_are_written_as_a_cook_writes_them(quantity: float, unit: str | None, shown: str) -> None:
    result = {"table": "inventory", "rows": [{"id": "inv_1", "name": "pancetta", "quantity": quantity, "unit": unit,
                                              "location": "fridge", "expiry_date": "2026-01-14"}]}
    assert quick_answer(result) == f"In your pantry, one item: pancetta ({shown}, in the fridge, use by Wed Jan 14)."
