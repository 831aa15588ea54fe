"""Act reaches the kitchen inside a turn (scripted model, real store, real MCP client): it scales with recipes_scale,
builds the shopping list with shopping_list_from, logs a cooked meal with meal_cooked, undoes with kitchen_undo and
imports with recipes_import, and each write completes its step's batch items. A `chat` on a server the host made
read-only or narrowed with --tools offers and runs none of the tools it hides.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from e2e.helpers import call, eq
from mcp import Client
from recipe_site import PLAIN_TEXT

from alfred_mcp.agent.llm.scripted import ScriptedLLM
from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings
from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import TABLES
from alfred_mcp.operations.seeding import seed

pytestmark = pytest.mark.anyio
TODAY = date(2026, 1, 12)


@pytest.fixture
async def app(tmp_path: Path) -> AsyncIterator[AlfredApp]:
    opened = AlfredApp.from_settings(Settings(db=str(tmp_path / "kitchen.db"), seed_demo=False, check_results=True))
    await opened.open()
    await seed(opened.store, opened.user_id, today=TODAY)
    yield opened
    await opened.close()


def tool(name: str, **arguments: Any) -> dict[str, Any]:
    return {"decision": {"action": "tool_call", "tool": name, "arguments": arguments}}


def complete(summary: str) -> dict[str, Any]:
    return {"decision": {"action": "step_complete", "result_summary": summary}}


def step(description: str, step_type: str, subdomain: str, *batch: str, **extra: Any) -> dict[str, Any]:
    return {"description": description, "step_type": step_type, "subdomain": subdomain,
            **({"batch": [{"ref": ref} for ref in batch]} if batch else {}), **extra}


async def rows(app: AlfredApp, table: str, *filters: Filter) -> list[dict[str, Any]]:
    return await app.store.select(TABLES[table], Query(where=Where(all_of=filters), limit=500), user_id=app.user_id)


async def _carbonara_and_tonights_salmon(client: Client) -> tuple[str, str]:
    (recipe,) = (await call(client, "db_read", table="recipes", filters=[eq("name", "Spaghetti Carbonara")]))["rows"]
    (meal,) = (await call(client, "db_read", table="meal_plans",
                          filters=[eq("date", TODAY.isoformat()), eq("meal_type", "dinner")]))["rows"]
    return recipe["id"], meal["id"]


async def test_act_scales_shops_cooks_and_undoes_inside_turns(client: Client, app: AlfredApp) -> None:
    carbonara, salmon = await _carbonara_and_tonights_salmon(client)
    pantry_before = {row["id"]: row["quantity"] for row in await rows(app, "inventory")}
    plan = {"goal": "Scale, shop and cook", "decision": "plan_direct", "steps": [
        step("Scale the carbonara to 6", "read", "recipes"),
        step("Add the carbonara to the shopping list", "write", "shopping", carbonara),
        step("Log tonight's salmon as cooked", "write", "meal_plans", salmon)]}
    app.llm = llm = ScriptedLLM({
        "understand": [{"referenced_refs": [carbonara, salmon]}], "think": [plan],
        "act": [tool("recipes_scale", recipe=carbonara, servings=6), complete("scaled"),
                tool("shopping_list_from", recipes=[carbonara]), complete("listed"),
                tool("meal_cooked", meal=salmon), complete("cooked")],
        # the pantry lacked part of the salmon dinner: a reply leaving that out is refused, one naming it passes
        "reply": [{"response": "Here it is for 6; I added what you lack to your shopping list and logged the salmon."},
                  {"response": "Here it is for 6; I added what you lack to your shopping list and logged the salmon. "
                               "The pantry had no mirin, ginger, sesame oil or baby bok choy, and one salmon fillet "
                               "fewer than the dinner used, so those were not taken out of it."}]})
    result = await call(client, "chat", message="carbonara for 6 please, put it on the list, and we ate the salmon")
    assert result["outcome"] == "completed", result["reply"]
    assert {e["type"] for e in result["summary"]["entities_created"]} == {"shop", "log"}  # the ledger counts the kitchen tools' rows

    state = (await call(client, "turn_status"))["state"]
    scaled_card = state["steps"][0]["tool_calls"][0]["card"]
    scaled = await call(client, "recipes_scale", recipe=carbonara, servings=6)
    assert "servings: 6" in scaled_card and all(line["name"] in scaled_card for line in scaled["ingredients"])
    act_prompts = [r.prompt_text() for r in llm.requests if r.role == "act"]
    assert "servings: 6" in act_prompts[1]  # the step's next decision sees the scaled amounts

    batches = {str(b["step"]): b for b in (await call(client, "turn_status"))["batches"]}
    shop_batch, cook_batch = (batches[state["steps"][i]["batch"]] for i in (1, 2))
    assert [(i["ref"], i["status"]) for i in shop_batch["items"]] == [(carbonara, "completed")]
    assert shop_batch["action"] == "added to the shopping list"
    assert [(i["ref"], i["status"]) for i in cook_batch["items"]] == [(salmon, "completed")] and cook_batch["action"] == "cooked"

    lines = [line for line in await rows(app, "shopping_list") if "Spaghetti Carbonara" in (line["source"] or "")]
    ingredients = await rows(app, "recipe_ingredients", Filter("recipe_id", "eq", await _row_id(app, carbonara)))
    needed = {i["name"] for i in ingredients if not i["is_optional"]}
    listed = await call(client, "shopping_list_from", recipes=[carbonara])  # listing it again adds nothing and says so
    assert listed["lines"] == [] and listed["already_listed"]
    assert lines and {line["name"] for line in lines} <= needed

    (log,) = await rows(app, "cooking_log", Filter("from_meal_plan_id", "eq", await _row_id(app, salmon)))
    pantry_cooked = {row["id"]: row["quantity"] for row in await rows(app, "inventory")}
    assert pantry_cooked != pantry_before

    app.llm = ScriptedLLM({
        "understand": [{"referenced_refs": []}],
        "think": [{"goal": "Undo the cooked salmon", "decision": "plan_direct", "steps": [step("Undo the last write", "write", "history")]}],
        "act": [tool("kitchen_undo"), complete("undone")],
        "reply": [{"response": "Undid it: the salmon is no longer logged and the pantry is as it was."}]})
    undone = await call(client, "chat", message="oops, undo that")
    assert undone["outcome"] == "completed", undone["reply"]
    assert await rows(app, "cooking_log", Filter("id", "eq", log["id"])) == []
    assert {row["id"]: row["quantity"] for row in await rows(app, "inventory")} == pantry_before
    assert len([line for line in await rows(app, "shopping_list") if "Spaghetti Carbonara" in (line["source"] or "")]) == len(lines)


async def test_a_generate_step_imports_a_recipe_and_the_write_step_saves_the_draft(client: Client, app: AlfredApp) -> None:
    plan = {"goal": "Import and save the pancakes", "decision": "plan_direct", "steps": [
        step("Import the pasted recipe", "generate", "recipes", expected_count=1), step("Save it", "write", "recipes")]}
    app.llm = ScriptedLLM({
        "understand": [{"referenced_refs": []}], "think": [plan],
        "act": [tool("recipes_import", source=PLAIN_TEXT), complete("imported"),
                tool("draft_save", refs=["gen_recipe_1"]), complete("saved")],
        "reply": [{"response": "Saved Weeknight Pancakes."}]})
    result = await call(client, "chat", message="save this recipe: " + PLAIN_TEXT[:40])
    assert result["outcome"] == "completed", result["reply"]
    state = (await call(client, "turn_status"))["state"]
    assert state["steps"][0]["drafts"] == ["gen_recipe_1"]
    (saved,) = await rows(app, "recipes", Filter("name", "eq", "Weeknight Pancakes"))
    assert len(await rows(app, "recipe_ingredients", Filter("recipe_id", "eq", saved["id"]))) == 5


@pytest.mark.parametrize(("controls", "hidden", "offered"), [
    ({"read_only": True}, {"shopping_list_from", "meal_cooked", "kitchen_undo", "db_create", "draft_create"},
     {"recipes_scale", "recipe_show", "db_read"}),
    ({"tools": ("core", "agent")}, {"shopping_list_from", "meal_cooked", "kitchen_undo", "recipes_scale", "draft_save"},
     {"db_create", "db_delete", "recipes_search"}),
], ids=["read-only", "tools core,agent"])
async def test_chat_offers_and_runs_no_tool_the_host_hides(
    client: Client, app: AlfredApp, controls: dict[str, Any], hidden: set[str], offered: set[str]
) -> None:
    carbonara, salmon = await _carbonara_and_tonights_salmon(client)
    app.settings = replace(app.settings, **controls)
    log_before = await rows(app, "cooking_log")
    plan = {"goal": "Cook", "decision": "plan_direct", "steps": [step("Log the salmon as cooked", "write", "meal_plans")]}
    app.llm = llm = ScriptedLLM({
        "understand": [{"referenced_refs": [salmon]}], "think": [plan],
        "act": [tool("meal_cooked", meal=salmon), {"decision": {"action": "blocked", "reason": "cannot write here",
                                                                "reason_code": "tool_failure"}}],
        "reply": [{"response": "I couldn't log it: this server doesn't let me write to the kitchen."}]})
    result = await call(client, "chat", message="we ate the salmon")
    assert result["outcome"] == "blocked"
    assert await rows(app, "cooking_log") == log_before
    refused = (await call(client, "turn_status"))["state"]["steps"][0]["refused"]
    assert len(refused) == 1 and refused[0].startswith("meal_cooked (not run): 'meal_cooked' is not available on this server")
    act_prompt = next(r.prompt_text() for r in llm.requests if r.role == "act")
    section = act_prompt.split("## Tools for this step", 1)[1]
    listed = set(re.findall(r"(?:^- |^- Also: |, )([a-z_]+)\(", section, re.MULTILINE))
    assert not listed & hidden and offered <= listed


async def _row_id(app: AlfredApp, ref: str) -> str:
    async with app.work("test") as work:
        return work.session.registry.resolve(ref)



async def test_skipping_every_item_of_a_write_step_leaves_its_batch_saying_what_the_step_was_for(client: Client) -> None:
    """batch_skip is a write tool, but skipping an item writes nothing: the manifest still says 'saved', never 'done'."""
    drafts = await call(client, "draft_create", entity_type="recipe", items=[
        {"name": name, "ingredients": [{"name": "apple"}], "instructions": ["Bake."]} for name in ("Pie A", "Pie B")])
    refs = [d["ref"] for d in drafts["drafts"]]
    await call(client, "turn_start", message="never mind, save neither")
    await call(client, "turn_submit", role="understand", output={"referenced_refs": refs})
    await call(client, "turn_submit", role="think", output={"goal": "Save", "decision": "plan_direct", "steps": [
        step("Save the two pies", "write", "recipes", *refs)]})
    batch = (await call(client, "turn_status"))["state"]["steps"][0]["batch"]
    await call(client, "turn_submit", role="act", output=tool("batch_skip", batch=batch, refs=refs, reason="the user changed their mind"))
    state = await call(client, "turn_submit", role="act", output=complete("skipped both"))
    assert state["expected_role"] == "reply"
    (manifest,) = (await call(client, "turn_status"))["batches"]
    assert manifest["action"] == "saved" and {i["status"] for i in manifest["items"]} == {"skipped"}
