"""Seed 000's scenarios and issue 14's three conversations, driven stage by stage by a scripted client
model through turn_start and turn_submit (following the answers) over the real client and a real SQLite kitchen.

Each test asserts the database end state, the calls of every turn, and that no turn returned more
than TURN_BYTES_BUDGET bytes to the model.
"""

from __future__ import annotations

from typing import Any

import pytest

from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import TABLES

from .driver import StageClient, TurnLog, section_as_read
from .scripts import (
    ALLERGY,
    AMBIGUOUS,
    CATEGORY_SEARCH,
    COOKING,
    CREATE_AND_SAVE,
    DELETE_PLANNED,
    DINNERS,
    FISH,
    FRIDAY,
    GUESTS,
    IMPORT,
    NO_DAIRY,
    ORDINALS,
    READ_RECIPE,
    READ_TURN_BYTES_BUDGET,
    READ_TURN_CALLS_BUDGET,
    SATURDAY,
    SCENARIOS,
    SHOPPING,
    THREE_FISH,
    TOMATO_SOUP,
    TURN_BYTES_BUDGET,
    TURN_CALLS_BUDGET,
    UNDO,
    Scenario,
    drive,
)

pytestmark = pytest.mark.anyio


async def rows(app: AlfredApp, table: str, *filters: Filter) -> list[dict[str, Any]]:
    return await app.store.select(TABLES[table], Query(where=Where(all_of=filters), limit=500), user_id=app.user_id)


async def by_name(app: AlfredApp, table: str, name: str) -> list[dict[str, Any]]:
    return await rows(app, table, Filter("name", "eq", name))


async def ingredients_of(app: AlfredApp, recipe: dict[str, Any]) -> list[str]:
    found = await rows(app, "recipe_ingredients", Filter("recipe_id", "eq", recipe["id"]))
    return [row["name"] for row in sorted(found, key=lambda row: row["position"])]


async def run(stage: StageClient, scenario: Scenario) -> list[TurnLog]:
    """Drive the scenario: every turn ends, takes one call per role output (turn_start, then turn_submit:
    never turn_context) and stays within the targets of calls and bytes per turn."""
    logs = await drive(stage, scenario)
    for number, (turn, log) in enumerate(zip(scenario.turns, logs)):
        assert log.count == turn.calls, f"{turn.message!r}: {log.count} calls, expected {turn.calls}"
        assert log.count <= TURN_CALLS_BUDGET and log.bytes <= TURN_BYTES_BUDGET, f"{turn.message!r}: {log.count} calls, {log.bytes} bytes"
        if turn.one_step_read and number > 0:
            assert log.count <= READ_TURN_CALLS_BUDGET, f"{turn.message!r}: {log.count} calls"
            assert log.bytes <= READ_TURN_BYTES_BUDGET, f"{turn.message!r}: {log.bytes} bytes returned to the model"
        assert log.final["stage"] == "done" and log.final["expected_role"] is None
    return logs


def test_the_scenarios_cover_seed_000_and_the_conversations_of_issues_14_and_24() -> None:
    assert {s.name for s in SCENARIOS} == {
        "seed000_create_3_fish_and_save", "seed000_fish_category_search", "seed000_what_can_i_make",
        "issue14_three_days_of_dinners", "issue14_fish_cod_rice_variations", "issue14_shellfish_allergy_and_black_pepper",
        "issue24_read_a_recipes_ingredients", "issue24_guests_on_saturday", "issue24_undo_a_change",
        "issue24_import_a_pasted_recipe", "issue24_shop_for_a_recipe", "issue24_log_a_cooked_meal",
        "issue24_delete_a_planned_recipe", "issue24_ordinals_and_that_one", "issue24_a_constraint_noted",
    }


async def test_a_constraint_only_turn_is_three_calls_and_holds_for_the_next(stage: StageClient, app: AlfredApp) -> None:
    """'No dairy from now on': Understand records it and says there is nothing else to do, so Reply is next (no Think);
    the next turn's lookup leaves the dairy recipes out."""
    noted, cooked = await run(stage, NO_DAIRY)
    assert noted.count == 3 and noted.final["outcome"] == "completed"
    notice = next(c.result["notice"] for c in cooked.calls if c.result and "recipes_makeable" in (c.result.get("notice") or ""))
    assert "dairy" in notice.split("Left out by the constraints", 1)[1]


async def test_create_three_fish_recipes_and_save_them_whole(stage: StageClient, app: AlfredApp) -> None:
    """Seed 000 §3.1-3.2: one turn generates 3 recipes and saves each with every ingredient, in order."""
    (log,) = await run(stage, CREATE_AND_SAVE)
    for draft in THREE_FISH:
        (saved,) = await by_name(app, "recipes", draft["name"])
        assert await ingredients_of(app, saved) == [part["name"] for part in draft["ingredients"]]
    assert log.final["summary"]["steps_completed"] == 2 and "3 saved" in log.final["summary"]["summary"], log.final["summary"]


async def test_fish_search_shows_the_rows_in_the_act_notice(stage: StageClient, app: AlfredApp) -> None:
    """Seed 000 §3.4: 'fish' is a category; the notice Act reads is a card of the rows, not refs alone."""
    before = len(await rows(app, "recipes"))
    (log,) = await run(stage, CATEGORY_SEARCH)
    notice = next(c.result["notice"] for c in log.calls if c.result and "recipes_search" in (c.result.get("notice") or ""))
    assert "Miso-Glazed Salmon with Bok Choy" in notice and "Lemon Garlic Baked Cod" in notice and "matched=" in notice
    assert len(await rows(app, "recipes")) == before


async def test_what_can_i_make_is_clarified_before_anything_runs(stage: StageClient, app: AlfredApp) -> None:
    """Seed 000 §3.5: an ambiguous request is answered with a question; the answer then plans one read."""
    before = {table: len(await rows(app, table)) for table in ("recipes", "meal_plans", "shopping_list")}
    first, second = await run(stage, AMBIGUOUS)
    assert first.final["outcome"] == "clarify" and "how many people" in first.final["reply"]
    assert second.final["outcome"] == "completed"
    assert {table: len(await rows(app, table)) for table in before} == before


async def test_three_days_of_dinners_without_cod(stage: StageClient, app: AlfredApp) -> None:
    """'Plan 3 days of dinners, dinners only, no cod this week, go with the chicken and pasta ones':
    three dinners saved on three days with the chosen recipes, none with cod."""
    logs = await run(stage, DINNERS)
    planned = [row for row in await rows(app, "meal_plans") if row["date"] in ("2026-02-02", "2026-02-03", "2026-02-04")]
    recipes = {row["id"]: row["name"] for row in await rows(app, "recipes")}
    assert sorted((row["date"], row["meal_type"], recipes[row["recipe_id"]]) for row in planned) == [
        ("2026-02-02", "dinner", "Chicken Fajitas"), ("2026-02-03", "dinner", "Greek Lemon Chicken and Potatoes"),
        ("2026-02-04", "dinner", "Spaghetti Carbonara")]
    think = section_as_read(stage, "Constraints", until=(2, "think"))  # lines unchanged since were sent before
    assert "- Meals: dinner only" in think and "cod (goal:protein)" in think and "- Days: 3 days" in think
    understand = logs[2].contexts()[0]["context"]
    assert '"chicken" →' in understand and '"pasta" →' in understand, "the resolver reads the user's words"


async def test_fish_for_the_air_fryer_saves_variations_after_their_parent_then_deletes_the_second(
    stage: StageClient, app: AlfredApp,
) -> None:
    """'Fish for the air fryer, cod and rice, 3 variations, save all 3, delete the second': the variations
    name their parent, are saved after it in one call, and 'the second' is deleted with its ingredients."""
    logs = await run(stage, FISH)
    (base,) = await by_name(app, "recipes", "Air-Fryer Cod with Rice")
    (miso,) = await by_name(app, "recipes", "Miso Cod with Rice")
    assert miso["parent_recipe_id"] == base["id"] and miso["cook_time_minutes"] == 15
    assert await by_name(app, "recipes", "Cajun Cod with Rice") == []
    assert "cajun seasoning" not in [row["name"] for row in await rows(app, "recipe_ingredients")]
    assert await ingredients_of(app, miso) == ["cod fillet", "jasmine rice", "olive oil", "lemon", "garlic", "white miso"]
    deleted = next(c.result["notice"] for c in logs[4].calls if c.result and "db_delete" in (c.result.get("notice") or ""))
    assert deleted.startswith("db_delete recipes: 1 deleted") and "Cajun Cod with Rice" in deleted
    ended = next(c.result for c in logs[4].calls if c.result and c.result.get("stage") == "answered")  # told by the state
    assert ended["reply"] == "Removed Cajun Cod with Rice from your recipes." and "saved" not in ended["reply"], ended


async def test_allergies_hold_on_every_write(stage: StageClient, app: AlfredApp) -> None:
    """'I'm allergic to shellfish, add black pepper to my list': the allergy is added (peanuts kept, a
    replacing list refused), black pepper is on the list, and a shrimp recipe is never saved."""
    first, _, scampi = await run(stage, ALLERGY)
    (preferences,) = await rows(app, "preferences")
    assert sorted(preferences["allergies"]) == ["peanuts", "shellfish"]
    assert "db_update failed" in first.shown("would drop the allergy peanuts")
    assert [row["name"] for row in await by_name(app, "shopping_list", "black pepper")] == ["black pepper"]
    assert await by_name(app, "recipes", "Garlic Shrimp Scampi") == []
    # A partial batch: the scampi is recorded as failed for the allergen (no row written), then Act re-plans.
    save = next(c.result for c in scampi.calls if c.result and (c.result.get("notice") or "").startswith("draft_save: 0 of 1 saved"))
    assert "gen_recipe_1 failed" in save["notice"] and "'shrimp' contains shellfish" in save["notice"]
    assert scampi.final["outcome"] == "propose" and "chicken scampi" in scampi.final["reply"]


async def test_every_row_of_a_read_reaches_act_and_reply_with_the_columns_asked_for(stage: StageClient, app: AlfredApp) -> None:
    """A recipe of 14 ingredients read with is_optional and notes: every row, every asked column, reaches Act's
    notice (not 10 rows and 40 characters); the turn is answered from them (no Reply context is sent), and no context
    of the turn sends them again."""
    first, _ = await run(stage, READ_RECIPE)
    (tikka,) = await by_name(app, "recipes", "Chicken Tikka Masala")
    ingredients = sorted(await rows(app, "recipe_ingredients", Filter("recipe_id", "eq", tikka["id"])), key=lambda r: r["position"])
    assert len(ingredients) > 10
    act = first.shown("is_optional=")
    answered = [call.result for call in first.calls if call.result is not None and "answered" in call.result]
    assert answered and "next" not in answered[-1]
    for row in ingredients:
        assert f" {row['name']} (quantity=" in act, row["name"]
    assert act.count("is_optional=") == len(ingredients) and "more not shown" not in act
    assert not any("is_optional=" in sent["context"] for sent in first.contexts())


async def test_a_dinner_for_guests_is_saved_with_its_recipe_on_the_day(stage: StageClient, app: AlfredApp) -> None:
    """'6 friends on Saturday, one vegetarian' then 'save it and put it on Saturday': the recipe for 6 and a
    dinner on that Saturday naming it, saved in one call (the meal after the recipe it names)."""
    await run(stage, GUESTS)
    (lasagna,) = await by_name(app, "recipes", "Roasted Vegetable Lasagna")
    assert lasagna["servings"] == 6
    dinners = await rows(app, "meal_plans", Filter("date", "eq", SATURDAY), Filter("meal_type", "eq", "dinner"))
    assert [(d["recipe_id"], d["servings"]) for d in dinners if d["recipe_id"] == lasagna["id"]] == [(lasagna["id"], 6)]


async def test_undoing_an_addition_removes_exactly_what_was_added(stage: StageClient, app: AlfredApp) -> None:
    before = sorted(row["name"] for row in await rows(app, "shopping_list"))
    added, undone = await run(stage, UNDO)
    assert "eggs" in added.shown("db_create shopping_list: 2 created")
    assert sorted(row["name"] for row in await rows(app, "shopping_list")) == before
    assert "db_delete shopping_list: 2 deleted" in undone.shown("db_delete shopping_list")


async def test_a_pasted_recipe_is_saved_whole(stage: StageClient, app: AlfredApp) -> None:
    await run(stage, IMPORT)
    (soup,) = await by_name(app, "recipes", TOMATO_SOUP["name"])
    assert await ingredients_of(app, soup) == [part["name"] for part in TOMATO_SOUP["ingredients"]]


async def test_shopping_for_a_recipe_adds_each_missing_ingredient_once(stage: StageClient, app: AlfredApp) -> None:
    """The carbonara's ingredients, read whole, are on the list once each afterwards (those already there not again)."""
    await run(stage, SHOPPING)
    (carbonara,) = await by_name(app, "recipes", "Spaghetti Carbonara")
    needed = await ingredients_of(app, carbonara)
    listed = [row["name"] for row in await rows(app, "shopping_list")]
    assert all(listed.count(name) == 1 for name in needed), listed


async def test_a_cooked_meal_is_logged_and_read_back(stage: StageClient, app: AlfredApp) -> None:
    _, asked = await run(stage, COOKING)
    (fajitas,) = await by_name(app, "recipes", "Chicken Fajitas")
    logged = await rows(app, "cooking_log", Filter("recipe_id", "eq", fajitas["id"]))
    assert [(row["rating"], row["servings"]) for row in logged] == [(5, 4)]
    assert "rating=5" in asked.shown("rating=5")


async def test_deleting_a_planned_recipe_keeps_the_planned_meal_without_it(stage: StageClient, app: AlfredApp) -> None:
    (risotto,) = await by_name(app, "recipes", "Mushroom Risotto")
    planned = [row["id"] for row in await rows(app, "meal_plans", Filter("recipe_id", "eq", risotto["id"]))]
    assert planned
    await run(stage, DELETE_PLANNED)
    assert await by_name(app, "recipes", "Mushroom Risotto") == []
    assert await rows(app, "recipe_ingredients", Filter("recipe_id", "eq", risotto["id"])) == []
    kept = {row["id"]: row for row in await rows(app, "meal_plans")}
    assert all(meal in kept and kept[meal]["recipe_id"] is None for meal in planned)


async def test_the_second_one_and_that_one_name_the_same_recipe_across_turns(stage: StageClient, app: AlfredApp) -> None:
    """'Show me my chicken recipes', 'tell me more about the second one', 'plan that one for Friday dinner': the
    second row the client was shown is read, then planned on Friday."""
    search, more, planned = await run(stage, ORDINALS)
    second = search.shown("matched=").splitlines()[2]  # the head, then the rows in the order shown
    (recipe,) = await by_name(app, "recipes", second.split(" ", 2)[2].split(" (")[0])
    read = more.shown("is_optional=")
    assert all(f" {name} (" in read for name in await ingredients_of(app, recipe))
    dinners = await rows(app, "meal_plans", Filter("date", "eq", FRIDAY), Filter("meal_type", "eq", "dinner"))
    assert recipe["id"] in [row["recipe_id"] for row in dinners]
    assert planned.final["outcome"] == "completed" and search.final["outcome"] == "completed"
