"""Allergies are inviolable on writes, over the real client: every table that can hold an allergen refuses
it (naming allergen and ingredient), an explicit override is recorded, and an allergy is never dropped
silently. List columns take add/remove."""

from __future__ import annotations

from typing import Any

import pytest
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.query import Query, Where
from alfred_mcp.kitchen.schema import TABLES

from .helpers import call, call_error, eq

pytestmark = pytest.mark.anyio
ALL_PREFERENCES = {"table": "preferences", "all": True}


async def count(app: AlfredApp, table: str) -> int:
    return await app.store.count(TABLES[table], Where(), user_id=app.user_id)


async def allergies(client: Client) -> list[str]:
    rows = (await call(client, "db_read", table="preferences", columns=["allergies"]))["rows"]
    return list(rows[0]["allergies"])


async def a_recipe(client: Client) -> str:
    rows = (await call(client, "db_read", table="recipes", filters=[eq("name", "Chicken Fajitas")], columns=["name"]))["rows"]
    return str(rows[0]["id"])


async def test_an_allergy_is_added_without_losing_the_others(client: Client) -> None:
    """'I'm allergic to shellfish': peanuts stays; a replacing list that would drop it is refused, naming it."""
    refused = await call_error(client, "db_update", **ALL_PREFERENCES, data={"allergies": ["shellfish"]})
    assert refused["code"] == "allergen_conflict" and refused["dropped"] == ["peanuts"]
    assert '{"allergies": {"add": [...]}}' in refused["message"]
    await call(client, "db_update", **ALL_PREFERENCES, data={"allergies": {"add": ["shellfish"]}})
    assert await allergies(client) == ["peanuts", "shellfish"]
    await call(client, "db_update", **ALL_PREFERENCES, data={"allergies": {"remove": ["Peanuts"]}})
    assert await allergies(client) == ["shellfish"]
    await call(client, "db_update", **ALL_PREFERENCES, data={"allergies": ["sesame"]}, confirm_allergy_removal=True)
    assert await allergies(client) == ["sesame"]


async def test_list_changes_work_per_row_on_any_list_column(client: Client) -> None:
    ref = await a_recipe(client)
    before = (await call(client, "db_read", table="recipes", filters=[eq("id", ref)], columns=["tags"]))["rows"][0]["tags"]
    updated = await call(client, "db_update", table="recipes", filters=[eq("id", ref)], data={"tags": {"add": ["date-night"], "remove": before[:1]}})
    assert before and updated["rows"][0]["tags"] == [*before[1:], "date-night"]


def _writes(recipe: str) -> list[Any]:
    return [
        pytest.param("db_create", {"table": "recipes", "data": {"name": "Peanut Noodles", "instructions": ["Toss."]}},
                     "'Peanut Noodles' contains peanuts", id="recipe-name"),
        pytest.param("db_create", {"table": "recipe_ingredients", "data": {"recipe_id": recipe, "name": "peanut butter", "position": 9}},
                     "'peanut butter' contains peanuts", id="recipe-ingredient"),
        pytest.param("db_create", {"table": "shopping_list", "data": [{"name": "lemons"}, {"name": "Satay sauce"}]},
                     "data[1].name (shopping item) 'Satay sauce' contains peanuts", id="shopping-item"),
        pytest.param("db_update", {"table": "shopping_list", "all": True, "data": {"name": "groundnuts"}},
                     "'groundnuts' contains peanuts", id="update-to-an-allergen"),
    ]


@pytest.mark.parametrize("index", range(4))
async def test_every_write_holding_an_allergen_is_refused_and_changes_nothing(client: Client, app: AlfredApp, index: int) -> None:
    tool, arguments, named = _writes(await a_recipe(client))[index].values
    before = {table: await count(app, table) for table in ("recipes", "recipe_ingredients", "shopping_list")}
    shopping = (await call(client, "db_read", table="shopping_list", columns=["name"]))["rows"]
    error = await call_error(client, tool, **arguments)
    assert error["code"] == "allergen_conflict" and named in error["message"] and error["allergens"] == ["peanuts"]
    assert "allergy_override" in error["message"]
    assert {table: await count(app, table) for table in before} == before
    assert (await call(client, "db_read", table="shopping_list", columns=["name"]))["rows"] == shopping


async def test_a_meal_plan_of_a_recipe_holding_an_allergen_is_refused(client: Client) -> None:
    """The meal is checked through its recipe: its name and every ingredient."""
    satay = await call(client, "db_create", table="recipes", data={"name": "Chicken Satay", "instructions": ["Grill."]},
                       allergy_override={"allergens": ["peanuts"], "reason": "for a guest"})
    ref = satay["rows"][0]["id"]
    error = await call_error(client, "db_create", table="meal_plans", data={"date": "2026-02-01", "meal_type": "dinner", "recipe_id": ref})
    assert error["code"] == "allergen_conflict" and f"({ref} Chicken Satay)" in error["message"]


@pytest.mark.parametrize("named_by", ["draft ref", "saved ref"])
async def test_a_meal_draft_of_a_saved_recipe_holding_an_allergen_is_refused(client: Client, app: AlfredApp, named_by: str) -> None:
    """A recipe saved with consent does not carry that consent to a later meal: named by its saved ref or by the
    draft ref it was saved from, the meal is checked through the recipe and refused; with its own override it saves."""
    satay = {"name": "Chicken Satay", "ingredients": [{"name": "peanut sauce", "quantity": 1}], "instructions": ["Grill."]}
    await call(client, "draft_create", entity_type="recipe", items=[satay])
    consent = {"allergens": ["peanuts"], "reason": "for a guest"}
    saved = (await call(client, "draft_save", refs=["gen_recipe_1"], allergy_override=consent))["items"][0]["saved_as"]
    recipe = "gen_recipe_1" if named_by == "draft ref" else saved
    meal = (await call(client, "draft_create", entity_type="meal",
                       items=[{"date": "2026-02-01", "meal_type": "dinner", "recipe": recipe}]))["drafts"][0]["ref"]
    before = await count(app, "meal_plans")
    error = await call_error(client, "draft_save", refs=[meal])
    assert error["code"] == "allergen_conflict" and f"({saved} Chicken Satay" in error["message"]
    assert await count(app, "meal_plans") == before
    assert (await call(client, "draft_save", refs=[meal], allergy_override=consent))["saved"] == 1
    assert await count(app, "meal_plans") == before + 1


async def test_an_explicit_override_is_accepted_and_recorded(client: Client) -> None:
    consent = {"allergens": ["peanuts"], "reason": "the user is cooking for a guest"}
    created = await call(client, "db_create", table="shopping_list", data={"name": "peanut butter"}, allergy_override=consent)
    assert created["count"] == 1
    narrative = (await client.read_resource("alfred://session/current/narratives")).contents[0].text
    assert "allergy override (peanuts): the user is cooking for a guest" in narrative


async def test_an_override_for_another_allergen_does_not_cover_this_one(client: Client) -> None:
    error = await call_error(client, "db_create", table="shopping_list", data={"name": "peanut butter"},
                             allergy_override={"allergens": ["shellfish"], "reason": "guest"})
    assert error["code"] == "allergen_conflict"


@pytest.mark.parametrize(
    ("override", "field"),
    [pytest.param({"allergens": [], "reason": "x"}, "allergy_override.allergens", id="no-allergens"),
     pytest.param({"allergens": ["peanuts"], "reason": " "}, "allergy_override.reason", id="no-reason")],
)
async def test_an_override_must_name_the_allergens_and_why(client: Client, override: dict[str, Any], field: str) -> None:
    error = await call_error(client, "db_create", table="shopping_list", data={"name": "peanut butter"}, allergy_override=override)
    assert error["field"] == field


async def test_a_draft_holding_an_allergen_refuses_an_all_or_nothing_save_and_fails_alone_in_a_partial_one(
    client: Client, app: AlfredApp
) -> None:
    """The scampi is named with its ingredient and the fix is said. All or nothing: neither draft is saved. Partial
    (recipes' default): the soup is saved, the scampi is recorded as failed in the manifest, with the same reason."""
    await call(client, "db_update", **ALL_PREFERENCES, data={"allergies": {"add": ["shellfish"]}})
    scampi = {"name": "Garlic Scampi", "ingredients": [{"name": "tiger prawns", "quantity": 10}], "instructions": ["Fry."]}
    soup = {"name": "Leek Soup", "ingredients": [{"name": "leeks", "quantity": 2}], "instructions": ["Simmer."]}
    await call(client, "draft_create", entity_type="recipe", items=[soup, scampi])
    before = await count(app, "recipes")
    named = "gen_recipe_2 (Garlic Scampi): ingredient 'tiger prawns' contains shellfish"
    error = await call_error(client, "draft_save", refs=["gen_recipe_1", "gen_recipe_2"], policy="all_or_nothing")
    assert named in error["message"] and "Nothing was written" in error["message"]
    assert await count(app, "recipes") == before

    result = await call(client, "draft_save", refs=["gen_recipe_1", "gen_recipe_2"])
    assert (result["saved"], result["failed"]) == (1, 1)
    items = {item["ref"]: item for item in result["items"]}
    assert items["gen_recipe_1"]["status"] == "completed"
    failed = items["gen_recipe_2"]
    assert failed["status"] == "failed" and named in failed["reason"] and "This draft was not saved" in failed["reason"]
    assert "allergy_override" in failed["reason"]
    assert await count(app, "recipes") == before + 1
    status = await call(client, "batch_status")
    recorded = {item["ref"]: item for item in status["batch"]["items"]}
    assert recorded["gen_recipe_2"]["status"] == "failed" and named in recorded["gen_recipe_2"]["reason"]


async def test_a_variation_is_saved_after_its_parent_in_one_call(client: Client, app: AlfredApp) -> None:
    base = {"name": "Base Cod", "ingredients": [{"name": "cod", "quantity": 1}], "instructions": ["Bake."]}
    await call(client, "draft_create", entity_type="recipe", items=[base])
    twist = {**base, "name": "Twisted Cod", "parent_recipe": "gen_recipe_1"}
    await call(client, "draft_create", entity_type="recipe", items=[twist])
    saved = await call(client, "draft_save", refs=["gen_recipe_2", "gen_recipe_1"])
    assert saved["saved"] == 2 and saved["failed"] == 0
    rows = {row["name"]: row for row in await app.store.select(TABLES["recipes"], Query(), user_id=app.user_id)}
    assert rows["Twisted Cod"]["parent_recipe_id"] == rows["Base Cod"]["id"]


async def test_a_variation_saved_without_its_unsaved_parent_fails_with_every_fix(client: Client) -> None:
    base = {"name": "Base Cod", "ingredients": [{"name": "cod", "quantity": 1}], "instructions": ["Bake."]}
    await call(client, "draft_create", entity_type="recipe", items=[base])
    await call(client, "draft_create", entity_type="recipe", items=[{**base, "name": "Twist", "parent_recipe": "gen_recipe_1"}])
    result = await call(client, "draft_save", refs=["gen_recipe_2"])
    reason = result["items"][0]["reason"]
    assert result["failed"] == 1 and "parent_recipe gen_recipe_1 (Base Cod) is a draft not saved yet" in reason
    assert "save both in one draft_save call" in reason and "or save gen_recipe_1 first" in reason and "draft_revise gen_recipe_2" in reason


async def test_a_batch_whose_every_item_failed_is_kept_with_its_reasons(client: Client) -> None:
    """No row was written, yet the manifest was: batch_status reports the failure after the call."""
    base = {"name": "Base Cod", "ingredients": [{"name": "cod", "quantity": 1}], "instructions": ["Bake."]}
    await call(client, "draft_create", entity_type="recipe", items=[base])
    await call(client, "draft_create", entity_type="recipe", items=[{**base, "name": "Twist", "parent_recipe": "gen_recipe_1"}])
    saved = await call(client, "draft_save", refs=["gen_recipe_2"])
    assert (saved["saved"], saved["failed"]) == (0, 1)
    status = (await call(client, "batch_status", batch=saved["batch"]["batch"]))["batch"]
    (item,) = status["items"]
    assert item["status"] == "failed" and "is a draft not saved yet" in item["reason"]
    await call(client, "turn_begin")  # a later call (a fresh copy of the session) still sees it
    assert (await call(client, "batch_status"))["batch"]["items"] == status["items"]


async def test_a_draft_naming_an_unknown_ref_is_refused_at_create(client: Client) -> None:
    error = await call_error(client, "draft_create", entity_type="recipe",
                             items=[{"name": "X", "ingredients": [{"name": "cod"}], "instructions": ["Go."], "parent_recipe": "gen_recipe_9"}])
    assert error["code"] == "unknown_ref" and error["field"] == "parent_recipe"


async def test_the_resolver_tool_answers_with_refs_and_confidence(client: Client) -> None:
    await call(client, "db_read", table="recipes", filters=[eq("name", "Chicken Fajitas")], columns=["name"])
    result = await call(client, "entity_resolve", text="let's do the fajitas one, or that salmon")
    fajitas, salmon = result["mentions"]
    assert (fajitas["ref"], fajitas["confidence"], fajitas["candidates"][0]["tier"]) == (await a_recipe(client), "high", "active")
    # 'that salmon' names the salmon recipe and the pantry's salmon fillets alike: both are offered, none is picked
    assert salmon["ref"] is None and salmon["resolution"] == "ambiguous"
    assert {(c["label"], c["tier"]) for c in salmon["candidates"]} >= {("Miso-Glazed Salmon with Bok Choy", "background")}
    assert {c["ref"].split("_")[0] for c in salmon["candidates"]} == {"recipe", "inv"}


async def test_every_unknown_column_of_a_read_is_named_at_once(client: Client) -> None:
    error = await call_error(client, "db_read", table="recipes", columns=["name", "colour", "size", "taste"])
    assert error["code"] == "unknown_column" and error["columns"] == ["colour", "size", "taste"]


async def test_a_shopping_list_built_from_a_recipe_holding_an_allergen_leaves_that_line_out_without_consent(client: Client, app: AlfredApp) -> None:
    """shopping_list_from writes shopping items too: an allergen line is left out (the others added) unless the user consents."""
    consent = {"allergens": ["peanuts"], "reason": "satay for a guest"}
    satay = await call(client, "db_create", table="recipes", data={"name": "Chicken Satay", "instructions": ["Grill."]},
                       allergy_override=consent)
    ref = satay["rows"][0]["id"]
    await call(client, "db_create", table="recipe_ingredients", allergy_override=consent,
               data=[{"recipe_id": ref, "name": "peanut butter", "position": 1, "quantity": 100, "unit": "g"},
                     {"recipe_id": ref, "name": "lemongrass", "position": 2, "quantity": 1}])
    before = await count(app, "shopping_list")
    partial = await call(client, "shopping_list_from", recipes=[ref])
    assert [(item["name"], item["allergen"]) for item in partial["left_out"]] == [("peanut butter", "peanuts")]
    assert [line["name"] for line in partial["lines"]] == ["lemongrass"] and await count(app, "shopping_list") == before + 1
    added = await call(client, "shopping_list_from", recipes=[ref], allergy_override=consent)
    assert any(line["name"] == "peanut butter" for line in added["lines"]) and await count(app, "shopping_list") > before
