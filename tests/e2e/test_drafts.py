"""Generate -> save through the real MCP client: drafts kept whole, saved whole, failures reported."""

from __future__ import annotations

import sqlite3

import pytest
from mcp import Client

from alfred_mcp.app import AlfredApp

from .cod_recipes import THREE_COD
from .helpers import call, call_error, eq

pytestmark = pytest.mark.anyio


async def ingredients_of(client: Client, recipe_ref: str) -> list[dict]:
    result = await call(client, "db_read", table="recipe_ingredients", filters=[eq("recipe_id", recipe_ref)],
                        order_by=[{"field": "position"}], limit=500)
    return result["rows"]


async def test_three_cod_recipes_are_saved_whole_with_every_ingredient_in_order(client: Client) -> None:
    """Seed 000 scenario 1: 'make 3 cod recipes and save them' saves three full recipes, nothing simplified."""
    drafted = await call(client, "draft_create", entity_type="recipe", items=THREE_COD)
    refs = [d["ref"] for d in drafted["drafts"]]
    assert refs == ["gen_recipe_1", "gen_recipe_2", "gen_recipe_3"]
    saved = await call(client, "draft_save", refs=refs)
    assert saved["saved"] == 3 and saved["failed"] == 0
    assert saved["batch"]["outcome"] == "completed" and saved["batch"]["progress"]["completed"] == 3
    for draft, item in zip(drafted["drafts"], saved["items"]):
        content = draft["content"]
        recipe = (await call(client, "db_read", table="recipes", filters=[eq("id", item["saved_as"])]))["rows"][0]
        assert recipe["name"] == content["name"] and recipe["description"] == content["description"]
        assert recipe["instructions"] == content["instructions"]
        assert (recipe["prep_time_minutes"], recipe["cook_time_minutes"], recipe["servings"]) == (15, 12, 4)
        assert recipe["difficulty"] == "easy" and recipe["equipment_tags"] == ["air-fryer"]
        assert "gluten-free" in recipe["health_tags"]
        rows = await ingredients_of(client, item["saved_as"])
        assert len(rows) == len(content["ingredients"]) >= 12
        assert item["children"] == {"recipe_ingredients": len(rows)}
        for position, (row, source) in enumerate(zip(rows, content["ingredients"]), start=1):
            assert row["position"] == position
            assert row["name"] == source["name"]
            assert row["notes"] == source["notes"]
            assert row["is_optional"] == source["is_optional"]
            assert row["recipe_id"] == item["saved_as"] and row["recipe_id_label"] == content["name"]
        assert rows[0]["quantity"] == 4 and rows[0]["unit"] == "fillet"
        assert rows[5]["quantity"] == pytest.approx(1 / 3)


async def test_gen_ref_and_saved_ref_both_resolve_to_the_saved_row(client: Client) -> None:
    drafted = await call(client, "draft_create", entity_type="recipe", items=THREE_COD[:1])
    gen_ref = drafted["drafts"][0]["ref"]
    saved_as = (await call(client, "draft_save", refs=[gen_ref]))["items"][0]["saved_as"]
    by_gen = await call(client, "db_read", table="recipes", filters=[eq("id", gen_ref)])
    by_saved = await call(client, "db_read", table="recipes", filters=[eq("id", saved_as)])
    assert by_gen["rows"] == by_saved["rows"] and by_saved["rows"][0]["id"] == saved_as
    working = {e["ref"]: e for e in (await call(client, "show_working_set"))["refs"]}
    assert working[gen_ref]["saved_as"] == saved_as and working[gen_ref]["action"] == "saved"


async def test_one_failed_save_is_reported_and_leaves_no_partial_recipe(client: Client, app: AlfredApp) -> None:
    """Seed 000 scenario 5: one of three fails on a real constraint; two save, the failure is recorded."""
    # A real database rule the drafts do not know about: an ingredient named 'poison' is refused.
    with sqlite3.connect(app.settings.db) as connection:
        connection.execute(
            "CREATE TRIGGER refuse_poison BEFORE INSERT ON recipe_ingredients WHEN NEW.name = 'poison' "
            "BEGIN SELECT RAISE(ABORT, 'poison is not an ingredient'); END"
        )
    items = [THREE_COD[0], {**THREE_COD[1], "ingredients": THREE_COD[1]["ingredients"] + [{"name": "poison"}]}, THREE_COD[2]]
    refs = [d["ref"] for d in (await call(client, "draft_create", entity_type="recipe", items=items))["drafts"]]
    saved = await call(client, "draft_save", refs=refs)
    statuses = {item["ref"]: item["status"] for item in saved["items"]}
    assert statuses == {refs[0]: "completed", refs[1]: "failed", refs[2]: "completed"}
    failed = next(item for item in saved["items"] if item["status"] == "failed")
    assert failed["reason"] and saved["batch"]["outcome"] == "partial"
    assert f"{refs[1]} failed" in saved["batch"]["summary"]
    lost = await call(client, "db_read", table="recipes", filters=[eq("name", "Lemon Butter Cod")])
    assert lost["count"] == 0
    with sqlite3.connect(app.settings.db) as connection:
        orphans = connection.execute(
            "SELECT count(*) FROM recipes r WHERE NOT EXISTS (SELECT 1 FROM recipe_ingredients i WHERE i.recipe_id = r.id)"
        ).fetchone()[0]
    assert orphans == 0
    still = await call(client, "draft_read", refs=[refs[1]])
    assert still["drafts"][0]["status"] == "pending"


async def test_draft_saved_in_a_later_turn_keeps_its_content(client: Client) -> None:
    gen_ref = (await call(client, "draft_create", entity_type="recipe", items=THREE_COD[2:]))["drafts"][0]["ref"]
    await call(client, "turn_begin")
    await call(client, "db_read", table="inventory", limit=5)
    await call(client, "turn_begin")
    saved = await call(client, "draft_save", refs=[gen_ref])
    rows = await ingredients_of(client, saved["items"][0]["saved_as"])
    assert [r["name"] for r in rows][-3:] == ["cajun seasoning", "cornstarch", "lime"]


async def test_meal_plan_pointing_at_a_draft_recipe_saves_in_the_same_batch(client: Client) -> None:
    recipe = (await call(client, "draft_create", entity_type="recipe", items=THREE_COD[:1]))["drafts"][0]["ref"]
    meal = (await call(client, "draft_create", entity_type="meal", items=[{"date": "2026-01-20", "meal_type": "Supper", "recipe": recipe}]))["drafts"][0]["ref"]
    saved = await call(client, "draft_save", refs=[meal, recipe])
    by_ref = {item["ref"]: item for item in saved["items"]}
    assert by_ref[recipe]["status"] == by_ref[meal]["status"] == "completed"
    row = (await call(client, "db_read", table="meal_plans", filters=[eq("id", by_ref[meal]["saved_as"])]))["rows"][0]
    assert row["recipe_id"] == by_ref[recipe]["saved_as"] and row["meal_type"] == "dinner"
    assert row["recipe_id_label"] == "Honey Garlic Cod"


async def test_revising_a_draft_keeps_its_ref(client: Client) -> None:
    """'Add lime to it': the draft changes in place, same ref, and saves with the change."""
    draft = (await call(client, "draft_create", entity_type="recipe", items=THREE_COD[1:2]))["drafts"][0]
    ingredients = draft["content"]["ingredients"] + [{"name": "lime", "quantity": 1, "unit": "piece"}]
    revised = await call(client, "draft_revise", ref=draft["ref"], patch={"ingredients": ingredients})
    assert revised["draft"]["ref"] == draft["ref"] and revised["draft"]["content"]["ingredients"][-1]["name"] == "lime"
    saved = await call(client, "draft_save", refs=[draft["ref"]])
    assert (await ingredients_of(client, saved["items"][0]["saved_as"]))[-1]["name"] == "lime"


async def test_batch_cannot_complete_while_items_are_pending(client: Client) -> None:
    refs = [d["ref"] for d in (await call(client, "draft_create", entity_type="recipe", items=THREE_COD))["drafts"]]
    batch = (await call(client, "batch_open", refs=refs))["batch"]
    assert batch["progress"]["pending"] == 3
    await call(client, "draft_save", refs=refs[:2], batch=batch["batch"])
    refused = await call_error(client, "batch_complete", batch=batch["batch"])
    assert refused["code"] == "batch_incomplete" and refs[2] in refused["message"]
    await call(client, "batch_skip", batch=batch["batch"], refs=[refs[2]], reason="user only wanted two")
    done = await call(client, "batch_complete", batch=batch["batch"])
    assert done["batch"]["progress"] == {"pending": 0, "completed": 2, "failed": 0, "skipped": 1, "total": 3}


async def test_all_or_nothing_meal_batch_saves_nothing_when_one_fails(client: Client, app: AlfredApp) -> None:
    """A recipe deleted between drafting and saving fails its meal, and so the whole meal batch."""
    gone = (await call(client, "db_read", table="recipes", limit=1))["rows"][0]["id"]
    before = (await call(client, "db_read", table="meal_plans", limit=500))["count"]
    items = [{"date": "2026-02-01", "meal_type": "dinner"}, {"date": "2026-02-02", "meal_type": "dinner", "recipe": gone}]
    refs = [d["ref"] for d in (await call(client, "draft_create", entity_type="meal", items=items))["drafts"]]
    await call(client, "db_delete", table="recipes", filters=[eq("id", gone)])
    saved = await call(client, "draft_save", refs=refs)
    assert saved["batch"]["policy"] == "all_or_nothing" and saved["batch"]["outcome"] == "failed"
    assert saved["saved"] == 0 and "deleted" in saved["items"][1]["reason"]
    assert (await call(client, "db_read", table="meal_plans", limit=500))["count"] == before


async def test_a_draft_naming_a_deleted_or_unknown_row_is_refused_where_it_is_given(client: Client) -> None:
    """draft_create refuses a meal whose recipe is deleted or unknown, naming the item's field, and keeps nothing."""
    gone = (await call(client, "db_read", table="recipes", limit=1))["rows"][0]["id"]
    await call(client, "db_delete", table="recipes", filters=[eq("id", gone)])
    for recipe, code in ((gone, "deleted_ref"), ("recipe_999", "unknown_ref"), ("gen_recipe_9", "unknown_ref")):
        items = [{"date": "2026-02-01", "meal_type": "dinner"}, {"date": "2026-02-02", "meal_type": "dinner", "recipe": recipe}]
        error = await call_error(client, "draft_create", entity_type="meal", items=items)
        assert (error["code"], error["field"]) == (code, "items[1].recipe")
        assert error["message"].startswith("items[1].recipe: ")
    assert (await call(client, "draft_read"))["count"] == 0


@pytest.mark.both_eras  # progress notifications are protocol framing
async def test_save_reports_each_item_checked_then_saved_after_the_commit(client: Client) -> None:
    """Progress counts two per draft: checked (before any commit), then saved (only once committed)."""
    refs = [d["ref"] for d in (await call(client, "draft_create", entity_type="recipe", items=THREE_COD))["drafts"]]
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        seen.append((done, total, message))

    result = await client.call_tool("draft_save", {"refs": refs}, progress_callback=progress)
    assert not result.is_error
    assert [(done, total) for done, total, _ in seen] == [(n, 6) for n in range(1, 7)]
    messages = [message or "" for _, _, message in seen]
    assert [m.split(" ")[0] for m in messages] == ["checked"] * 3 + ["saved"] * 3
    saved = {item["ref"]: item["saved_as"] for item in result.structured_content["items"]}
    assert messages[3:] == [f"saved {n}/3 {ref}: {saved[ref]}" for n, ref in enumerate(refs, start=1)]


@pytest.mark.parametrize(
    ("tool", "arguments", "code"),
    [
        pytest.param("draft_save", {"refs": ["gen_recipe_9"]}, "unknown_ref", id="unknown-draft"),
        pytest.param("draft_create", {"entity_type": "recipe", "items": [{"name": "No ingredients", "instructions": ["x"]}]}, "invalid_payload", id="invalid-draft"),
        pytest.param("draft_create", {"entity_type": "recipe", "items": [{"name": "X", "ingredients": [{"name": "a"}], "instructions": ["x"], "colour": "red"}]}, "invalid_payload", id="unknown-field"),
        pytest.param("batch_status", {"batch": "batch_42"}, "invalid_input", id="unknown-batch"),
        pytest.param("draft_save", {"refs": ["recipe_1"]}, "invalid_input", id="saved-ref-is-not-a-draft"),
    ],
)
async def test_bad_draft_requests_are_specific_errors(client: Client, tool: str, arguments: dict, code: str) -> None:
    error = await call_error(client, tool, **arguments)
    assert error["code"] == code, error


async def test_saving_an_already_saved_draft_names_its_saved_ref(client: Client) -> None:
    gen_ref = (await call(client, "draft_create", entity_type="task", items=[{"title": "Thaw the cod"}]))["drafts"][0]["ref"]
    saved_as = (await call(client, "draft_save", refs=[gen_ref]))["items"][0]["saved_as"]
    error = await call_error(client, "draft_save", refs=[gen_ref])
    assert error["code"] == "state_error" and saved_as in error["message"]


async def test_batch_item_that_does_not_exist_is_named(client: Client) -> None:
    refs = [d["ref"] for d in (await call(client, "draft_create", entity_type="task", items=[{"title": "a"}, {"title": "b"}]))["drafts"]]
    batch = (await call(client, "batch_open", refs=refs[:1]))["batch"]["batch"]
    error = await call_error(client, "batch_skip", batch=batch, refs=[refs[1]], reason="no")
    assert error["code"] == "invalid_input" and refs[1] in error["message"] and refs[0] in error["message"]


async def test_discarded_draft_says_so(client: Client) -> None:
    gen_ref = (await call(client, "draft_create", entity_type="shop", items=[{"name": "limes", "quantity": 3}]))["drafts"][0]["ref"]
    await call(client, "draft_discard", refs=[gen_ref])
    error = await call_error(client, "draft_save", refs=[gen_ref])
    assert "discarded" in error["message"]
