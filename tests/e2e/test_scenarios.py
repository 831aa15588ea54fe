"""Seed 000 scenarios 2-4 and seed 003's success transcript, over the real store and MCP client.

The model's outputs (Understand's curation and constraint snapshots, the replies) are fixtures
written here; everything else is the server doing what it does for any client.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from mcp import Client

from alfred_mcp.server.leak_guard import find_uuid
from alfred_mcp.state.conversation import DEFAULT_CONVERSATION

from .helpers import call, eq

pytestmark = pytest.mark.anyio


def recipe_draft(name: str, protein: str) -> dict[str, Any]:
    return {
        "name": name, "cuisine": "mediterranean", "difficulty": "easy", "servings": 2,
        "ingredients": [{"name": protein, "quantity": 2, "unit": "fillet"}, {"name": "lemon", "quantity": 1}],
        "instructions": ["Season the fish.", "Bake 12 minutes."],
    }


def constraint(kind: str, field: str, value: Any) -> dict[str, Any]:
    return {"type": kind, "field": field, "value": value}


async def resource(client: Client, uri: str) -> dict[str, Any]:
    text = (await client.read_resource(uri)).contents[0].text
    assert find_uuid(text) is None
    return json.loads(text)


async def prompt(client: Client, name: str, **arguments: str) -> str:
    text = (await client.get_prompt(name, arguments)).messages[0].content.text
    assert find_uuid(text) is None
    return text


def section(text: str, title: str) -> str:
    """One '## ' section of a prompt, without the others."""
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, flags=re.S | re.M)
    assert match is not None, title
    return match.group(1)


async def test_forget_those_and_make_chicken_instead_clears_the_working_set(client: Client) -> None:
    """Seed 000 scenario 2: clear_all empties what the roles see; the registry keeps every mapping."""
    await call(client, "turn_begin", message="Create 2 fish recipes")
    drafts = await call(client, "draft_create", entity_type="recipe",
                        items=[recipe_draft("Lemon Cod", "cod fillets"), recipe_draft("Herb Salmon", "salmon fillets")])
    fish = [draft["ref"] for draft in drafts["drafts"]]
    first = await call(client, "understanding_submit", message="Create 2 fish recipes", constraint_snapshot={
        "new_constraints": [constraint("ingredient_required", "protein", "fish")],
        "goal_update": "2 fish recipes", "goal_subdomain": "recipes"})
    assert [d["ref"] for d in first["active"]["pending_drafts"]] == fish == ["gen_recipe_1", "gen_recipe_2"]
    await call(client, "turn_reply", response="Here are two fish recipes, not saved yet: Lemon Cod and Herb Salmon.")

    turn = await call(client, "turn_begin", message="Actually, forget those and make chicken instead")
    second = await call(client, "understanding_submit", message="Actually, forget those and make chicken instead",
                        curation={"clear_all": True, "curation_summary": "User switched from fish to chicken"},
                        constraint_snapshot={"new_constraints": [constraint("ingredient_required", "protein", "chicken")],
                                     "goal_update": "chicken recipes"})
    active = second["active"]
    assert (active["recent"], active["retained"], active["pending_drafts"]) == ([], [], [])
    assert active["cleared_at_turn"] == turn["turn"] and active["known_refs"] == 2
    assert second["reset_reason"] == "trigger_phrase"
    assert second["goal"]["description"] == "chicken recipes"
    assert [c["value"] for c in second["goal"]["constraints"]] == ["chicken"]
    assert second["decisions"] == [{"turn": 2, "action": "clear_all", "ref": None, "reason": "User switched from fish to chicken"}]

    registry = await call(client, "show_working_set")
    assert [(r["ref"], r["action"]) for r in registry["refs"]] == [("gen_recipe_1", "generated"), ("gen_recipe_2", "generated")]
    still = await call(client, "draft_read", refs=fish)
    assert [d["label"] for d in still["drafts"]] == ["Lemon Cod", "Herb Salmon"]
    entities = section(await prompt(client, "think"), "Entities in context")
    assert "gen_recipe" not in entities and "Entities from before turn 2 were set aside" in entities


async def test_fish_then_cod_then_simple_accumulates_constraints(client: Client) -> None:
    """Seed 000 scenario 3: three turns build one goal, protein=cod and style=simple, seen compiled by Think."""
    turns = [
        ("I want fish recipes", {"new_constraints": [constraint("ingredient_required", "category", "fish")],
                                 "goal_update": "fish recipes", "goal_subdomain": "recipes"}),
        ("Use cod", {"new_constraints": [constraint("ingredient_required", "protein", "cod")]}),
        ("Keep it simple", {"new_constraints": [constraint("difficulty", "style", "simple")]}),
    ]
    for message, snapshot in turns:
        await call(client, "turn_begin", message=message)
        await call(client, "understanding_submit", message=message, constraint_snapshot=snapshot)
        await call(client, "turn_reply", response="Noted.")
    read = await call(client, "constraints_read")
    goal = read["goal"]
    assert goal["description"] == "fish recipes" and goal["started_turn"] == 1
    assert [(c["type"], c["field"], c["value"], c["source_turn"]) for c in goal["constraints"]] == [
        ("ingredient_required", "category", "fish", 1),
        ("ingredient_required", "protein", "cod", 2),
        ("difficulty", "style", "simple", 3),
    ]
    compiled = read["constraints"]
    assert [i["value"] for i in compiled["must_include"]] == ["cod", "fish"] and compiled["difficulty"] == ["simple"]
    think = await prompt(client, "think")
    assert "- Goal: fish recipes (recipes)\n" in think
    assert "- Must include: cod (goal:protein), fish (goal:category)" in section(think, "Constraints")
    assert "- Difficulty: simple" in think
    assert (await resource(client, "alfred://session/current/constraints"))["goal"] == goal


async def test_ten_turns_keep_three_verbatim_and_a_bounded_summary(client: Client) -> None:
    """Seed 000 scenario 4: the conversation keeps the last 3 exchanges word for word, the rest folded."""
    for n in range(1, 11):
        await call(client, "turn_begin", message=f"Question {n}: what about dinner number {n}?")
        await call(client, "turn_reply", response=f"Answer {n}: try the recipe I suggested for night {n}.")
    history = await resource(client, "alfred://session/current/conversation")
    assert [e["turn"] for e in history["recent"]] == [8, 9, 10]
    assert history["recent"][-1] == {"turn": 10, "user": "Question 10: what about dinner number 10?",
                                     "assistant": "Answer 10: try the recipe I suggested for night 10."}
    earlier = history["earlier"].splitlines()
    assert [line.split(":")[0] for line in earlier] == [f"T{n}" for n in range(1, 8)]
    assert len(history["earlier"]) <= DEFAULT_CONVERSATION.summary_chars and history["folded_turns"] == [1, 7]
    conversation = section(await prompt(client, "think"), "Conversation")
    assert "User: Question 10: what about dinner number 10?" in conversation
    assert "User: Question 7:" not in conversation and 'T7: User: "Question 7:' in conversation


async def test_seed_003_success_transcript(client: Client) -> None:
    """Plan meals over four turns: propose, read once, narrow without re-reading, then save."""
    # Turn 1: "help me plan meals" -> Think proposes; nothing is read.
    await call(client, "turn_begin", message="help me plan meals")
    await call(client, "understanding_submit", message="help me plan meals",
               constraint_snapshot={"goal_update": "plan dinners", "goal_subdomain": "meal_plans"})
    await call(client, "turn_reply", response="Happy to! How many days, and which meals?")

    # Turn 2: "3 days, dinners only" -> read recipes and the pantry, present options.
    await call(client, "turn_begin", message="3 days, dinners only")
    await call(client, "understanding_submit", message="3 days, dinners only",
               constraint_snapshot={"new_constraints": [constraint("days", "days", 3), constraint("meal_type", "meal", "dinner")]})
    recipes = await call(client, "db_read", table="recipes", columns=["id", "name"], order_by=[{"field": "name"}])
    await call(client, "db_read", table="inventory", columns=["id", "name"], limit=10)
    await call(client, "turn_reply", response="Based on your pantry, here are 11 recipes you could cook this week.")
    by_name = {row["name"]: row["id"] for row in recipes["rows"]}
    cod = sorted(ref for name, ref in by_name.items() if "Cod" in name)

    # Turn 3: "no cod this week" -> Understand demotes the cod recipes; Think sees what was read, and does not re-read.
    await call(client, "turn_begin", message="no cod this week")
    await call(client, "understanding_submit", message="no cod this week", curation={"demote": cod, "curation_summary": "no cod this week"},
               constraint_snapshot={"new_constraints": [constraint("ingredient_excluded", "protein", "cod")]})
    think = await prompt(client, "think")
    happened = section(think, "What happened")
    assert "### Turn 2 (last turn)" in happened and '**User asked:** "3 days, dinners only"' in happened
    assert f"Read {len(recipes['rows'])} recipes → recipe_" in happened and "### Turn 1" in happened
    entities = section(think, "Entities in context")
    recent = entities.split("### Excluded")[0]
    assert all(f"{by_name[name]}: {name} [read]" in recent for name in ("Chicken Fajitas", "Spaghetti Carbonara"))
    assert all(f"- {ref}:" not in recent for ref in cod)
    assert all(f"- {ref}: " in entities.split("### Excluded")[1] for ref in cod)
    assert "- Never use: " in think and "cod (goal:protein)" in section(think, "Constraints")
    assert "- Meals: dinner only" in think and "- Days: 3 days" in think
    reply = await prompt(client, "reply")
    flow = section(reply, "Conversation flow")
    assert '**Last exchange:** User: "3 days, dinners only" / You: "Based on your pantry' in flow
    assert "No greeting after the first turn" in reply.split("## Conversation flow")[0]  # Reply's instructions say it, once
    await call(client, "turn_reply", response="Got it, no cod. That leaves 9 options: Chicken Fajitas, Spaghetti Carbonara, ...")

    # Turn 4: "let's go with the chicken and pasta ones" -> write the plan; Reply reports exactly what was saved.
    await call(client, "turn_begin", message="let's go with the chicken and pasta ones")
    chosen = [by_name["Chicken Fajitas"], by_name["Spaghetti Carbonara"]]
    await call(client, "understanding_submit", message="let's go with the chicken and pasta ones", referenced_refs=chosen)
    created = await call(client, "db_create", table="meal_plans", data=[
        {"date": "2026-01-13", "meal_type": "dinner", "recipe_id": chosen[0]},
        {"date": "2026-01-14", "meal_type": "dinner", "recipe_id": chosen[1]},
    ])
    meals = [row["id"] for row in created["rows"]]
    reply = await prompt(client, "reply")
    results = section(reply, "What happened this turn")
    assert f"Created 2 meal plan entries → {meals[0]}, {meals[1]}" in results and f"**Created:** {meals[0]}, {meals[1]}" in results
    assert "**Phase:** executing" in section(reply, "Conversation flow")
    narratives = await resource(client, "alfred://session/current/narratives")
    assert [n["turn"] for n in narratives["recent"]] == [2, 3]
    assert narratives["earlier"].startswith('T1: user: "help me plan meals" — goal: plan dinners')
    assert narratives["recent"][1]["demoted_refs"] == cod
    planned = await call(client, "db_read", table="meal_plans", filters=[eq("id", meals[0])])
    assert planned["rows"][0]["recipe_id_label"] == "Chicken Fajitas"
