"""Constraint scopes and lifetimes, and references as people mean them, driven stage by stage by a scripted
client model over the real client.

'Make the carbonara dairy-free' is about that recipe: the next, unrelated 'what can I cook tonight?' is not
filtered by it. The guests' shellfish and sesame outlive a new goal area (Think reads what the new goal
replaced and what it kept) and a write for the occasion that holds shrimp is refused, then accepted with the
user's explicit override. Understand's resolver reads "the first one" in the list shown (after a delete and a
restore) and "that one" as the previous turn's single recipe. The database end state is checked.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import TABLES

from .driver import Seen, StageClient, section_as_read
from .scripts import act, constraint, done, plan, reply, step, tool

pytestmark = pytest.mark.anyio


async def shopping(app: AlfredApp, name: str) -> list[dict[str, Any]]:
    query = Query(where=Where(all_of=(Filter("name", "eq", name),)), limit=50)
    return await app.store.select(TABLES["shopping_list"], query, user_id=app.user_id)


def notices(log: Any, tool_name: str) -> list[str]:
    return [c.result["notice"] for c in log.calls if c.result and tool_name in (c.result.get("notice") or "")]


def _dairy_free(seen: Seen) -> dict[str, Any]:
    ref = seen.ref("Spaghetti Carbonara")
    return {"referenced_refs": [ref], "constraint_snapshot": {
        "new_constraints": [{**constraint("ingredient_excluded", "diet", "dairy"), "about": ref}],
        "goal_update": "a dairy-free carbonara", "goal_subdomain": "recipes"}}


TONIGHT = {
    "understand": [{"processed_message": "what can I cook tonight"}],
    "think": [plan("Suggest what to cook tonight", step("read", "Find what the pantry covers"))],
    "act": [tool("recipes_makeable", limit=20), done("Listed what can be made")],
    "reply": [reply("Here is what you can make tonight.")],
}


@pytest.mark.parametrize("scoped", [True, False], ids=["about-the-carbonara", "goal-wide"])
async def test_a_one_recipe_constraint_does_not_filter_tonights_search(stage: StageClient, app: AlfredApp, scoped: bool) -> None:
    """Scoped to the carbonara, 'dairy-free' leaves tonight's search alone; stated goal-wide it filters it (the control)."""
    before = await app.store.select(TABLES["recipes"], Query(limit=500), user_id=app.user_id)
    await stage.turn("Show me the carbonara", {
        "understand": [{"processed_message": "show the carbonara"}],
        "think": [plan("Show the carbonara", step("read", "Read Spaghetti Carbonara"))],
        "act": [tool("db_read", table="recipes", filters=[{"field": "name", "op": "eq", "value": "Spaghetti Carbonara"}]),
                done("Read it")],
        "reply": [reply("Here is Spaghetti Carbonara.")],
    })

    def understand(seen: Seen) -> dict[str, Any]:
        out = _dairy_free(seen)
        if not scoped:
            del out["constraint_snapshot"]["new_constraints"][0]["about"]
        return out

    dairy = await stage.turn("Make it dairy-free", {
        "understand": [understand],
        "think": [{"goal": "A dairy-free carbonara", "decision": "propose",
                   "proposal_message": "Shall I swap the parmesan for nutritional yeast?"}],
    })
    tonight = await stage.turn("What can I cook tonight?", TONIGHT)
    think = dairy.contexts()[1]["context"]  # tonight's Think is told the constraints are unchanged since
    unchanged = re.search(r"\(As sent before, unchanged: ([^)]*)\)", tonight.contexts()[1]["context"])
    assert unchanged and "Constraints" in unchanged.group(1)
    found = notices(tonight, "recipes_makeable")
    assert found, [c.result for c in tonight.calls]
    searched = await stage.client.call_tool("recipes_makeable", {"limit": 20})  # what Act's search read, with its reasons
    assert searched.structured_content is not None
    excluded_for_dairy = [e for e in searched.structured_content["excluded"] if "dairy" in str(e)]
    if scoped:
        assert "- Only for recipe_" in think and "exclude dairy" in think and "dairy (goal:diet)" not in think
        assert excluded_for_dairy == []
    else:
        assert "dairy (goal:diet)" in think and excluded_for_dairy
    after = await app.store.select(TABLES["recipes"], Query(limit=500), user_id=app.user_id)
    assert sorted(row["name"] for row in after) == sorted(row["name"] for row in before)


GUESTS = {"occasion_update": "Saturday dinner, 6 guests", "goal_update": "a menu for Saturday", "goal_subdomain": "recipes",
          "new_constraints": [{**constraint("allergy", "guests", ["shellfish", "sesame"]), "lifetime": "occasion"},
                              {**constraint("servings", "people", 6), "lifetime": "occasion"}]}
OVERRIDE = {"allergens": ["shellfish"], "reason": "the guest allergic to shellfish cancelled, the user says"}


async def test_the_guests_shellfish_survives_a_new_goal_and_holds_on_the_write(stage: StageClient, app: AlfredApp) -> None:
    await stage.turn("Six friends on Saturday: one is allergic to shellfish, another to sesame. Ideas?", {
        "understand": [{"constraint_snapshot": GUESTS}],
        "think": [{"goal": "A Saturday menu for 6", "decision": "propose",
                   "proposal_message": "A lemon chicken traybake, no shellfish or sesame: shall I plan it?"}],
    })
    shop = await stage.turn("Put shrimp on my shopping list", {
        "understand": [{"constraint_snapshot": {"goal_update": "the shopping list", "goal_subdomain": "shopping"}}],
        "think": [{"goal": "Shrimp for the list", "decision": "propose",
                   "proposal_message": "A guest is allergic to shellfish: still add shrimp?"}],
    })
    think = shop.contexts()[1]["context"]
    assert "- Replaced: Ended goal 'a menu for Saturday' (a new goal area)" in think
    constraints = section_as_read(stage, "Constraints")  # as Think reads it: lines unchanged since were sent before
    assert "- Replaced: Ended goal 'a menu for Saturday' (a new goal area)" in constraints
    assert "shellfish (guest allergy)" in constraints and "sesame (guest allergy)" in constraints
    assert "- Occasion (lasts until done): Saturday dinner, 6 guests" in constraints and "- Servings: 6" in constraints
    written = await stage.turn("Add it anyway", {
        "understand": [{"processed_message": "add shrimp anyway"}],
        "think": [plan("Add shrimp to the shopping list", step("write", "Add shrimp", "shopping")),
                  {"goal": "Shrimp for the list", "decision": "propose",
                   "proposal_message": "A guest is allergic to shellfish, so I can't add shrimp; only you can override that."}],
        "act": [tool("db_create", table="shopping_list", data={"name": "shrimp", "quantity": 1, "unit": "lb"}),  # refused
                act({"action": "blocked", "reason_code": "plan_invalid", "reason": "A guest is allergic to shellfish."})],
    })
    refused = notices(written, "db_create failed")
    assert refused and "the guests (Saturday dinner, 6 guests) are allergic to shellfish" in refused[0]
    assert await shopping(app, "shrimp") == [], "refused for the occasion: nothing written"
    # The user's own call, outside the assistant's turn, with the same override as for the user's own allergies.
    accepted = await stage.client.call_tool("db_create", {"table": "shopping_list", "data": {"name": "shrimp", "quantity": 1, "unit": "lb"},
                                                          "allergy_override": OVERRIDE})
    assert not accepted.is_error and [row["name"] for row in await shopping(app, "shrimp")] == ["shrimp"]


def _read(table: str, **extra: Any) -> dict[str, Any]:
    return tool("db_read", table=table, **extra)


def _turn(action: dict[str, Any] | Any, summary: str) -> dict[str, list[Any]]:
    return {"understand": [{"processed_message": summary}], "think": [plan(summary, step("read" if "read" in summary else "write", summary))],
            "act": [action, done(summary)], "reply": [reply("Done.")]}


async def test_understand_reads_the_first_one_and_that_one_as_people_mean_them(stage: StageClient, app: AlfredApp) -> None:
    """Understand's resolver lines: 'the first one' after that row was deleted and restored (the user's own undo)
    is still the list's first row; 'that one' after a turn that read one recipe is that recipe. Acting on
    'the first one' deletes exactly that row."""
    everything = sorted(row["name"] for row in await app.store.select(TABLES["recipes"], Query(limit=500), user_id=app.user_id))
    await stage.turn("Show me my recipes", _turn(_read("recipes", order_by=[{"field": "name", "direction": "asc"}], limit=4),
                                                 "read the recipes"))
    first, third = stage.seen.ref(everything[0]), stage.seen.ref(everything[2])
    await stage.turn("Delete the first one", _turn(tool("db_delete", table="recipes", filters=[{"field": "id", "op": "eq", "value": first}]),
                                                   "delete the first one"))
    undone = await stage.client.call_tool("kitchen_undo", {})  # the user's own restore, outside the assistant's turn
    assert not undone.is_error
    await stage.turn(f"Show me {everything[2]}", _turn(_read("recipes", filters=[{"field": "id", "op": "eq", "value": third}]),
                                                       "read that recipe"))
    log = await stage.turn("Is that one spicy? And what about the first one?", {
        "understand": [{"referenced_refs": [third, first]}], "think": [{"goal": "Answer", "decision": "propose",
                                                                       "proposal_message": "Neither is spicy."}]})
    understand = log.contexts()[0]["context"]
    assert f'"that one" → {third} {everything[2]} (high' in understand
    resolved = f'"the first" → {first} {everything[0]} (medium'
    assert resolved in understand or (  # or as the client read it in turn 2, the Resolver section it grew from
        re.search(r"## Resolver .*\(as sent to understand in turn 2, with these lines added:\)", understand)
        and resolved in next(c["context"] for c in stage.turns[1].contexts() if c["role"] == "understand"))
    await stage.turn("Delete the first one", _turn(tool("db_delete", table="recipes", filters=[{"field": "id", "op": "eq", "value": first}]),
                                                   "delete the first one"))
    names = sorted(row["name"] for row in await app.store.select(TABLES["recipes"], Query(limit=500), user_id=app.user_id))
    assert names == everything[1:]
