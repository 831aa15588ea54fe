"""The scenario conversations through the bundled loop: every role's prompt of a one-step turn fits
PROMPT_TOKENS_BUDGET (its output schema as text included), so a small local model's whole call, with its
answer budget, fits an 8,192-token context; and each turn ends as the script says."""

from __future__ import annotations

import pytest

from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import TABLES

from .loop_driver import PROMPT_TOKENS_BUDGET, ScenarioModel, loop_turn
from .scripts import SCENARIOS, SHOPPING, Scenario

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
async def test_every_prompt_of_a_one_step_turn_fits_a_small_models_context(app: AlfredApp, scenario: Scenario) -> None:
    model = ScenarioModel()
    seen: set[str] = set()
    for turn in scenario.turns:
        state = await loop_turn(app, model, turn.message, turn.outputs)
        assert state.stage == "done"
        if turn.steps <= 1:
            over = [(asked.kind, asked.tokens) for asked in model.asked if asked.tokens > PROMPT_TOKENS_BUDGET]
            assert not over, f"{turn.message!r}: prompts over {PROMPT_TOKENS_BUDGET} tokens: {over}"
        seen |= {asked.kind for asked in model.asked}
    assert "understand" in seen


async def test_a_write_step_sees_what_the_read_step_before_it_read(app: AlfredApp) -> None:
    """Act's prompt for 'add what is missing' (a stateless call) carries the cards of the read step: the
    recipe's ingredients and the shopping list, every row."""
    model = ScenarioModel()
    (turn,) = SHOPPING.turns
    await loop_turn(app, model, turn.message, turn.outputs)
    write = next(asked.prompt for asked in model.asked if asked.kind == "act_write")
    earlier = write.split("## Read by earlier steps (this turn)", 1)[1]
    (carbonara,) = await app.store.select(TABLES["recipes"], Query(where=Where(all_of=(Filter("name", "eq", "Spaghetti Carbonara"),))),
                                          user_id=app.user_id)
    parts = await app.store.select(TABLES["recipe_ingredients"], Query(where=Where(all_of=(Filter("recipe_id", "eq", carbonara["id"]),))),
                                   user_id=app.user_id)
    assert parts and all(f" {part['name']} (" in earlier for part in parts)
    assert "shopping_list: 12 shopping items" in earlier


def test_the_conversations_cover_every_role_and_step_type_in_one_step_turns() -> None:
    """So the prompt budget is measured for each: Understand, Think, Reply, and Act in each step type."""
    kinds = {step["step_type"] for scenario in SCENARIOS for turn in scenario.turns if turn.steps == 1
             for plan in turn.outputs.get("think", []) if isinstance(plan, dict) for step in plan.get("steps", [])}
    assert kinds == {"read", "analyze", "generate", "write"}
    roles = {role for scenario in SCENARIOS for turn in scenario.turns if turn.steps == 1 for role in turn.outputs}
    assert roles == {"understand", "think", "act", "reply"}
