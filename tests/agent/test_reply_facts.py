"""The reply check on real turns: the facts come from what the turn's calls did (real SQLite kitchen, real tools),
and each claim is judged per thing, per table, per verb."""

from __future__ import annotations

from typing import Any

import pytest

from alfred_mcp.agent.account_words import meal_words
from alfred_mcp.agent.llm.scripted import ScriptedLLM
from alfred_mcp.agent.loop import run_turn
from alfred_mcp.agent.machine import TurnMachine
from alfred_mcp.agent.present import reply_facts, state_reply
from alfred_mcp.app import AlfredApp
from alfred_mcp.server.tools.runner import tool_runner
from alfred_mcp.state.agent_turn import TurnState

pytestmark = pytest.mark.anyio
FAJITAS = "Chicken Fajitas"


def _turn(step: str, acts: list[dict[str, Any]], reply: str) -> dict[str, list[Any]]:
    plan = {"goal": step, "decision": "plan_direct", "steps": [{"description": step, "step_type": "write", "subdomain": "recipes"}]}
    complete = {"decision": {"action": "step_complete", "result_summary": "done"}}
    return {"understand": [{}], "think": [plan], "act": [*({"decision": {"action": "tool_call", **a}} for a in acts), complete],
            "reply": [{"response": reply}] * 3}


DELETE = {"tool": "db_delete", "arguments": {"table": "recipes", "filters": [{"field": "name", "op": "eq", "value": FAJITAS}]}}
ADD = {"tool": "db_create", "arguments": {"table": "shopping_list", "data": [{"name": "eggs", "quantity": 12}, {"name": "oat milk"}]}}


async def drive(app: AlfredApp, outputs: dict[str, list[Any]]) -> TurnState:
    async with app.work("chat") as work:
        return await run_turn(TurnMachine(work, tool_runner(app, work.session.name)), ScriptedLLM(outputs), "do it")


CASES = [
    pytest.param(ADD, "I added eggs and oat milk to your shopping list.", True, id="both-things-added"),
    pytest.param(ADD, "Eggs and oat milk are now on your list.", True, id="state-claim"),
    pytest.param(ADD, "Your shopping list now has eggs and oat milk.", True, id="paraphrase"),
    pytest.param(ADD, "I added eggs, oat milk and pears to your shopping list.", False, id="one-thing-not-added"),
    pytest.param(ADD, "I added eggs and oat milk to your pantry.", False, id="wrong-table"),
    pytest.param(ADD, "I also added the arugula, pears and lemons to your shopping list.", False, id="issue-24-sample"),
    # The demo kitchen plans the fajitas for a dinner: a truthful reply also says that dinner is left without a recipe.
    pytest.param(DELETE, f"I deleted {FAJITAS}; its dinner on the meal plan is now without a recipe.", True, id="the-thing-deleted"),
    pytest.param(DELETE, f"{FAJITAS} was removed from your recipes, so that dinner is left empty.", True, id="passive-removal"),
    pytest.param(DELETE, "I deleted Blueberry Oat Pancakes.", False, id="another-thing"),
    pytest.param(DELETE, f"I added {FAJITAS} to your meal plan.", False, id="wrong-verb"),
    pytest.param(DELETE, f"I said I had added pears, but I had not. The dinner that had {FAJITAS} is now without a recipe.",
                 True, id="correction"),
]


@pytest.mark.parametrize(("act", "reply", "truthful"), CASES)
async def test_each_claim_is_checked_against_what_this_turn_did(app: AlfredApp, act: dict[str, Any], reply: str, truthful: bool) -> None:
    state = await drive(app, _turn("do it", [act], reply))
    assert state.outcome == "completed"
    if truthful:
        assert (state.reply, state.reply_source) == (reply, "model")
    else:
        assert state.reply_source == "fallback" and state.invalid_outputs == {"reply": 3}
        assert "this turn did not do that" in state.errors[0]["message"] or "nothing was" in state.errors[0]["message"]


async def test_a_removals_cascaded_rows_are_facts_of_the_turn(app: AlfredApp) -> None:
    state = await drive(app, _turn("delete", [DELETE], f"I deleted {FAJITAS}."))
    effects = state.steps[0].tool_calls[0].effects
    assert {"action": "cascaded", "table": "recipe_ingredients"} in [{k: e[k] for k in ("action", "table")} for e in effects]
    async with app.work("read") as work:
        facts = reply_facts(work.session, state)
    assert ("cascaded", "recipe_ingredients") in {(fact.action, fact.table) for fact in facts.things}
    assert ("deleted", "recipes", FAJITAS) in {(fact.action, fact.table, fact.label) for fact in facts.things}


async def test_an_undone_removal_names_the_rows_it_linked_again_in_the_facts_and_the_states_reply(app: AlfredApp) -> None:
    """Delete the planned fajitas, then undo it in the next turn: the dinner points at the recipe again, the reply
    facts say so, and when no model reply passes, the state's own reply names that dinner."""
    await drive(app, _turn("delete", [DELETE], f"I deleted {FAJITAS}; its dinner on the meal plan is now without a recipe."))
    state = await drive(app, _turn("undo", [{"tool": "kitchen_undo", "arguments": {}}], "I deleted the pears."))
    async with app.work("read") as work:
        facts = reply_facts(work.session, state)
    dinners = [item for item in facts.relinked if item.label.endswith("[dinner]")]
    assert dinners and {(fact.action, fact.table) for fact in facts.things} >= {("relinked", "meal_plans"), ("undone", "recipes")}
    assert state.reply_source == "fallback" and "Linked again: " + meal_words(dinners[0].label) in state.reply


async def test_an_undone_add_is_a_removal_of_its_rows_in_the_facts_and_a_reply_saying_so_passes(app: AlfredApp) -> None:
    """Add eggs and oat milk, then undo it in the next turn: the undo removed those rows, so the facts hold their removal beside
    the undo, and 'no longer on your shopping list' and 'I undid the addition of the eggs' are the model's replies."""
    await drive(app, _turn("add", [ADD], "I added eggs and oat milk to your shopping list."))
    reply = "Undone: the eggs and oat milk are no longer on your shopping list; I undid the addition of the eggs and the oat milk."
    state = await drive(app, _turn("undo", [{"tool": "kitchen_undo", "arguments": {}}], reply))
    async with app.work("read") as work:
        facts = reply_facts(work.session, state)
        told = state_reply(work.session, state)
    assert "undid" in told.lower() and told.lower().count("eggs") == 1, told  # the state's own account tells the undo once
    assert {("deleted", "shopping_list", "eggs"), ("deleted", "shopping_list", "oat milk")} <= {
        (fact.action, fact.table, fact.label.lower()) for fact in facts.things}
    assert (state.reply, state.reply_source) == (reply, "model")
