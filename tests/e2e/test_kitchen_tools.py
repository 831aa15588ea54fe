"""shopping_list_from, meal_cooked and kitchen_undo through the real client (2026-07-28; test_era_parity.py proves the 2025-11-25 era answers the same)."""

from __future__ import annotations

from typing import Any

import pytest
from kitchen.test_held_amounts import reads_as_held
from mcp import Client

from alfred_mcp.agent.act_tools import summarize_result
from alfred_mcp.kitchen.odd_amounts import oddities, repeated_ingredients
from alfred_mcp.kitchen.shopping_lines import parsed_amount

from .helpers import among, call, call_error, eq

pytestmark = pytest.mark.anyio


async def _recipe(client: Client, name: str, servings: int, ingredients: list[dict[str, Any]]) -> str:
    created = await call(client, "draft_create", entity_type="recipe",
                         items=[{"name": name, "servings": servings, "ingredients": ingredients, "instructions": ["Cook."]}])
    saved = await call(client, "draft_save", refs=[created["drafts"][0]["ref"]])
    return str(saved["items"][0]["saved_as"])


async def _pantry(client: Client, *items: tuple[str, float, str]) -> list[str]:
    created = await call(client, "db_create", table="inventory",
                         data=[{"name": name, "quantity": quantity, "unit": unit} for name, quantity, unit in items])
    return [row["id"] for row in created["rows"]]


async def _rows(client: Client, table: str, session: str | None = None, **filters: Any) -> list[dict[str, Any]]:
    where = [eq(k, v) for k, v in filters.items()]
    extra = {"session": session} if session else {}
    return list((await call(client, "db_read", table=table, filters=where, limit=100, **extra))["rows"])


async def test_shopping_lines_merge_convert_and_subtract_the_pantry(client: Client) -> None:
    """g and kg add up; cups of the same flour stay on its line beside them; the pantry is subtracted; the line names
    what it was listed for, so listing the same recipe again adds nothing, and more servings add the difference."""
    bread = await _recipe(client, "Test Bread", 1, [{"name": "quuxflour", "quantity": 500, "unit": "g"},
                                                   {"name": "quuxsalt", "quantity": 1, "unit": "tsp"}])
    cake = await _recipe(client, "Test Cake", 1, [{"name": "quuxflour", "quantity": 1, "unit": "kg"},
                                                 {"name": "quuxflour", "quantity": 2, "unit": "cup"},
                                                 {"name": "quuxsalt", "quantity": 2, "unit": "tsp"},
                                                 {"name": "quuxvanilla", "quantity": 1, "unit": "tsp", "is_optional": True}])
    await _pantry(client, ("quuxflour", 300, "g"), ("quuxsalt", 1, "tbsp"))
    result = await call(client, "shopping_list_from", recipes=[bread, cake])
    (line,) = result["lines"]
    assert (line["name"], line["quantity"], line["unit"], line["recipes"]) == ("quuxflour", 1.2, "kg", [bread, cake])
    assert line["text"] == "1.2 kg + 2 cups quuxflour (the pantry has 300 g)"
    assert [c["name"] for c in result["covered"]] == ["quuxsalt"]
    (stored,) = await _rows(client, "shopping_list", name="quuxflour")
    assert stored["source"] == "Test Bread (for 1); Test Cake (for 1)"
    again = await call(client, "shopping_list_from", recipes=[bread])
    assert again["lines"] == [] and again["already_listed"] == [{"name": "quuxflour", "recipes": [bread]}]
    assert "already on the list" in again["message"]
    more = await call(client, "shopping_list_from", recipes=[bread], servings={bread: 2})
    assert [(line["action"], line["quantity"]) for line in more["lines"]] == [("updated", pytest.approx(1.7))]
    (stored,) = await _rows(client, "shopping_list", name="quuxflour")
    assert stored["source"] == "Test Cake (for 1); Test Bread (for 2)"
    stray = await call_error(client, "shopping_list_from", recipes=[bread], servings={cake: 2})
    assert stray["field"] == "servings" and len(await _rows(client, "shopping_list", name="quuxflour")) == 1


async def test_shopping_from_a_range_of_meal_plans_scales_to_each_meal(client: Client) -> None:
    soup = await _recipe(client, "Test Soup", 4, [{"name": "quuxlentils", "quantity": 400, "unit": "g"}])
    await call(client, "db_create", table="meal_plans", data=[
        {"date": "2031-03-02", "meal_type": "dinner", "recipe_id": soup, "servings": 2},
        {"date": "2031-03-04", "meal_type": "lunch", "recipe_id": soup, "servings": 8},
        {"date": "2031-03-09", "meal_type": "dinner", "recipe_id": soup, "servings": 4}])
    result = await call(client, "shopping_list_from", meal_plans={"from": "2031-03-01", "to": "2031-03-05"})
    assert result["meals"] == 2 and result["recipes"] == [soup]
    assert [(line["name"], line["quantity"], line["unit"]) for line in result["lines"]] == [("quuxlentils", 1, "kg")]
    empty = await call_error(client, "shopping_list_from", meal_plans={"from": "2031-04-01", "to": "2031-04-02"})
    backwards = await call_error(client, "shopping_list_from", meal_plans={"from": "2031-04-02", "to": "2031-04-01"})
    assert empty["field"] == "meal_plans" and backwards["field"] == "meal_plans.to"


async def test_meal_cooked_deducts_converted_amounts_and_reports_the_rest(client: Client) -> None:
    pasta = await _recipe(client, "Test Pasta", 2, [
        {"name": "quuxspaghetti", "quantity": 250, "unit": "g"}, {"name": "quuxolive oil", "quantity": 2, "unit": "tbsp"},
        {"name": "quuxtomatoes", "quantity": 400, "unit": "g"}, {"name": "quuxbasil", "quantity": 1, "unit": "bunch"},
        {"name": "quuxpepper", "notes": "to taste"}])
    spaghetti, oil, tomatoes = await _pantry(client, ("quuxspaghetti", 1, "kg"), ("quuxolive oil", 250, "ml"), ("quuxtomatoes", 2, "can"))
    result = await call(client, "meal_cooked", recipe=pasta, servings=4)
    used = {line["name"]: line for line in result["deducted"]}
    assert used["quuxspaghetti"]["left"] == "500 g" and used["quuxolive oil"]["used"] == "1/4 cup"
    reasons = {line["name"]: line["reason"] for line in result["not_deducted"]}
    assert "does not convert" in reasons["quuxtomatoes"] and reasons["quuxbasil"] == "not in the pantry"
    assert reasons["quuxpepper"] == "the recipe gives no quantity"
    stock = {row["id"]: row["quantity"] for row in await _rows(client, "inventory", name="quuxolive oil")}
    assert stock[oil] == pytest.approx(250 - 4 * 14.7868, rel=1e-3)
    log = await _rows(client, "cooking_log", id=result["log"])
    assert log[0]["recipe_id"] == pasta and log[0]["servings"] == 4


async def test_meal_cooked_uses_a_meal_plan_and_never_goes_below_zero(client: Client) -> None:
    rice = await _recipe(client, "Test Rice", 2, [{"name": "quuxrice", "quantity": 300, "unit": "g"}])
    meal = (await call(client, "db_create", table="meal_plans",
                       data={"date": "2031-05-01", "meal_type": "dinner", "recipe_id": rice, "servings": 2}))["rows"][0]["id"]
    (rice_row,) = await _pantry(client, ("quuxrice", 200, "g"))
    result = await call(client, "meal_cooked", meal=meal)
    assert result["deducted"][0]["left"] == "used up" and "100 g more than the pantry had" in result["not_deducted"][0]["reason"]
    assert (await _rows(client, "inventory", id=rice_row))[0]["quantity"] == 0
    assert (await _rows(client, "cooking_log", id=result["log"]))[0]["from_meal_plan_id"] == meal


@pytest.mark.parametrize("preview", [True, False])
async def test_a_meal_cooked_already_is_not_shopped_for_again(client: Client, preview: bool) -> None:
    """Meal plans listed from..to leave out the meals meal_cooked logged (nothing left to buy for them) and say how
    many; when every meal of the range was cooked, the call is refused, naming meal_plans, and writes nothing."""
    rice = await _recipe(client, "Test Rice Bowl", 2, [{"name": "quuxrice", "quantity": 300, "unit": "g"}])
    soup = await _recipe(client, "Test Leek Soup", 2, [{"name": "quuxleeks", "quantity": 2}])
    meals = [(await call(client, "db_create", table="meal_plans", data={
        "date": "2031-05-0" + day, "meal_type": "dinner", "recipe_id": recipe, "servings": 2}))["rows"][0]["id"]
        for day, recipe in (("1", rice), ("2", soup))]
    await call(client, "meal_cooked", meal=meals[0])
    span = {"from": "2031-05-01", "to": "2031-05-02"}
    listed = await call(client, "shopping_list_from", meal_plans=span, preview=preview)
    assert listed["recipes"] == [soup] and listed["meals"] == 1, listed
    assert [line["name"] for line in listed["lines"]] == ["quuxleeks"] and "1 meal cooked already" in listed["message"], listed
    await call(client, "meal_cooked", meal=meals[1])
    before = await _rows(client, "shopping_list")
    refused = await call_error(client, "shopping_list_from", meal_plans=span, preview=preview)
    assert refused["field"] == "meal_plans" and "cooked already" in refused["message"], refused
    assert await _rows(client, "shopping_list") == before


async def test_undo_walks_back_create_update_delete_and_save_with_the_same_refs(client: Client) -> None:
    saved = await _recipe(client, "Undo Pie", 4, [{"name": "quuxapples", "quantity": 6}])
    (apples,) = await _pantry(client, ("quuxapples", 3, "piece"))
    await call(client, "db_update", table="inventory", filters=[eq("id", apples)], data={"quantity": 9})
    await call(client, "db_delete", table="recipes", filters=[eq("id", saved)])

    restored = await call(client, "kitchen_undo")
    assert restored["undone"]["tool"] == "db_delete" and restored["restored"][0]["ref"] == saved
    assert (await _rows(client, "recipes", id=saved))[0]["name"] == "Undo Pie"
    assert len(await _rows(client, "recipe_ingredients", recipe_id=saved)) == 1
    reverted = await call(client, "kitchen_undo")
    assert reverted["reverted"][0]["ref"] == apples and (await _rows(client, "inventory", id=apples))[0]["quantity"] == 3
    removed = await call(client, "kitchen_undo")
    assert removed["removed"][0]["ref"] == apples
    assert (await call_error(client, "db_read", table="inventory", filters=[eq("id", apples)]))["code"] == "deleted_ref"
    unsaved = await call(client, "kitchen_undo")
    assert unsaved["undone"]["tool"] == "draft_save" and unsaved["drafts_reopened"]
    draft = (await call(client, "draft_read", refs=unsaved["drafts_reopened"]))["drafts"][0]
    assert draft["status"] == "pending" and draft["saved_as"] is None


async def test_undo_refuses_naming_a_row_changed_since_and_changes_nothing(client: Client) -> None:
    (item,) = await _pantry(client, ("quuxmilk", 1, "l"))
    await call(client, "db_update", table="inventory", filters=[eq("id", item)], data={"quantity": 2})
    await call(client, "db_update", table="inventory", filters=[eq("id", item)], data={"quantity": 5})
    first = await call(client, "kitchen_undo")
    assert first["reverted"] and (await _rows(client, "inventory", id=item))[0]["quantity"] == 2
    other = (await call(client, "session_start"))["session"]
    await call(client, "db_update", table="inventory", filters=[eq("name", "quuxmilk")], data={"quantity": 7}, session=other)
    error = await call_error(client, "kitchen_undo", session="session_1")
    assert error["code"] == "undo_conflict" and "was changed since (quantity)" in error["message"] and item in error["message"]
    assert (await _rows(client, "inventory", id=item, session="session_1"))[0]["quantity"] == 7


async def test_undo_with_nothing_to_undo_says_so(client: Client) -> None:
    error = await call_error(client, "kitchen_undo")
    assert error["code"] == "undo_conflict" and "Nothing to undo" in error["message"]


async def test_undo_of_a_shopping_list_and_a_cooked_meal(client: Client) -> None:
    stew = await _recipe(client, "Test Stew", 2, [{"name": "quuxbeef", "quantity": 500, "unit": "g"}])
    (beef,) = await _pantry(client, ("quuxbeef", 1, "kg"))
    added = await call(client, "shopping_list_from", recipes=[stew])
    assert added["covered"] and not added["lines"]
    cooked = await call(client, "meal_cooked", recipe=stew)
    undone = await call(client, "kitchen_undo")
    assert undone["undone"]["tool"] == "meal_cooked" and {r["ref"] for r in undone["removed"]} == {cooked["log"]}
    assert (await _rows(client, "inventory", id=beef))[0]["quantity"] == 1


async def test_the_undo_log_keeps_the_last_ten_writes(client: Client) -> None:
    """Older entries are dropped, so a session's undo log stays bounded; each undo walks one step back."""
    items = await _pantry(client, *((f"quuxjar{i}", 1, "piece") for i in range(12)))
    for i, item in enumerate(items[:11]):
        await call(client, "db_update", table="inventory", filters=[eq("id", item)], data={"quantity": 2 + i})
    for _ in range(10):
        assert (await call(client, "kitchen_undo"))["undone"]["tool"] == "db_update"
    error = await call_error(client, "kitchen_undo")
    assert "Nothing to undo" in error["message"]
    assert [row["quantity"] for row in await _rows(client, "inventory", id=items[0])] == [2]


async def test_a_write_too_large_to_keep_is_refused_by_undo_not_skipped(client: Client) -> None:
    for start in (0, 50, 100):
        await _pantry(client, *((f"quuxbox{i}", 1, "piece") for i in range(start, start + 50)))
    await call(client, "db_update", table="inventory", all=True, data={"notes": "checked"})
    await call(client, "db_update", table="inventory", filters=[eq("name", "quuxbox1")], data={"notes": "x"})
    assert (await call(client, "kitchen_undo"))["reverted"]
    error = await call_error(client, "kitchen_undo")
    assert error["code"] == "undo_conflict" and "more rows than an undo keeps" in error["message"]


async def test_a_count_of_the_unit_the_name_says_is_the_same_count_and_containers_are_checked_not_rebought(client: Client) -> None:
    """'4 cod fillets' against 4 'fillet' of cod fillets compare; a bottle against 2 tbsp is covered with a note to check."""
    fish = await _recipe(client, "Test Fish", 2, [{"name": "quuxcod fillets", "quantity": 4}, {"name": "quuxoil", "quantity": 2, "unit": "tbsp"}])
    fillets, bottle = await _pantry(client, ("quuxcod fillets", 3, "fillet"), ("quuxoil", 1, "bottle"))
    result = await call(client, "shopping_list_from", recipes=[fish])
    assert [(line["name"], line["quantity"]) for line in result["lines"]] == [("quuxcod fillets", 1)]
    assert "check there is enough" in result["covered"][0]["note"] and result["covered"][0]["name"] == "quuxoil"
    cooked = await call(client, "meal_cooked", recipe=fish)
    assert [(line["ref"], line["left"]) for line in cooked["deducted"]] == [(fillets, "used up")]
    assert {line["name"] for line in cooked["not_deducted"]} == {"quuxcod fillets", "quuxoil"}


async def test_the_demo_week_listed_twice_changes_nothing_the_second_time_and_reads_as_a_person_writes(client: Client) -> None:
    """The seeded week: no odd line (kitchen/odd_amounts.py), one line per ingredient, herbs and pastes where a shopper
    finds them; listed again it adds nothing and says so; a new meal in the week still tops the list up."""
    week = {"from": "2026-01-12", "to": "2026-01-18"}
    await call(client, "shopping_list_from", meal_plans=week)
    shown = await call(client, "shopping_list_show")
    lines = [line for section in shown["sections"] for line in section["lines"] if not line["bought"]]
    assert [(line["text"], rules) for line in lines
            if (rules := oddities(line["text"], line["quantity"], line["unit"], line["name"], shopping=True))] == []
    assert repeated_ingredients(line["name"] for line in lines) == []
    where = {line["name"]: section["section"] for section in shown["sections"] for line in section["lines"]}
    assert where["dried oregano"] == "spices" and where["tomato paste"] == "canned"
    again = await call(client, "shopping_list_from", meal_plans=week)
    assert again["lines"] == [] and again["already_listed"] and "already on the list" in again["message"]
    assert await call(client, "shopping_list_show") == shown
    pasta = await _recipe(client, "Test Pepper Pasta", 2, [{"name": "black pepper", "quantity": 2, "unit": "tsp"}])
    await call(client, "db_create", table="meal_plans", data={"date": "2026-01-16", "meal_type": "lunch", "recipe_id": pasta, "servings": 2})
    held = await call(client, "shopping_list_from", meal_plans=week)  # 2 tsp more still fits the jar on the list
    assert held["lines"] == [] and "black pepper" in [item["name"] for item in held["already_listed"]]
    rub = await _recipe(client, "Test Pepper Rub", 2, [{"name": "black pepper", "quantity": 1, "unit": "cup"}])
    await call(client, "db_create", table="meal_plans", data={"date": "2026-01-17", "meal_type": "dinner", "recipe_id": rub, "servings": 2})
    topped = await call(client, "shopping_list_from", meal_plans=week)
    assert [(line["name"], line["action"]) for line in topped["lines"]] == [("black pepper", "updated")]
    assert "black pepper" not in [item["name"] for item in topped["already_listed"]], "one ingredient, one place in the result"
    (line,) = topped["lines"]
    assert line["was"].startswith("1 jar black pepper") and line["text"].split()[1] == "jars", line
    assert line["adds"].endswith("jars") or line["adds"].endswith("jar"), line  # the jars it shows more


async def test_an_amount_in_another_unit_joins_the_ingredients_one_line_as_one_amount(client: Client) -> None:
    """The demo list has 1 carton of buttermilk (about 2 cups) for the pancakes (1 1/4 cups): 3/4 cup more fits in
    what it holds beyond them (cook's QA 2 G10: it read '2 cartons (need 2 3/4 cups)', the carton counted as needed in
    full), so it is reported as already listed; 4 tbsp more makes 2 1/4 cups, bought as 2 cartons: one amount, never
    '1 carton + 1/4 cup'."""
    scones = await _recipe(client, "Test Scones", 1, [{"name": "buttermilk", "quantity": 0.75, "unit": "cup"}])
    bread = await _recipe(client, "Test Soda Bread", 1, [{"name": "buttermilk", "quantity": 4, "unit": "tbsp"}])
    preview = await call(client, "shopping_list_from", recipes=[scones], preview=True)
    first = await call(client, "shopping_list_from", recipes=[scones])
    assert first["lines"] == [] and [(item["name"], item.get("note")) for item in first["already_listed"]] == [
        ("buttermilk", "1 carton buttermilk is enough")], first
    assert preview["lines"] == first["lines"] and preview["already_listed"] == first["already_listed"]
    second = await call(client, "shopping_list_from", recipes=[bread])
    assert [(line["text"], line["action"]) for line in second["lines"]] == [("2 cartons buttermilk (need 2 1/4 cups)", "updated")]
    shown = await call(client, "shopping_list_show")
    lines = [line for section in shown["sections"] for line in section["lines"] if line["name"] == "buttermilk"]
    assert [(line["text"], line.get("notes")) for line in lines] == [("2 cartons buttermilk (need 2 1/4 cups)", None)]


async def test_servings_name_only_the_recipes_listed_and_not_meal_plans(client: Client) -> None:
    before = await _rows(client, "shopping_list")
    with_meals = await call_error(client, "shopping_list_from", meal_plans={"from": "2026-01-12", "to": "2026-01-18"},
                                  servings={"recipe_1": 2})
    assert with_meals["field"] == "servings"
    zero = await call_error(client, "shopping_list_from", recipes=["recipe_1"], servings={"recipe_1": 0})
    assert "servings" in zero["message"]
    assert await _rows(client, "shopping_list") == before


async def test_more_servings_of_a_listed_meal_add_only_the_difference(client: Client) -> None:
    stew = await _recipe(client, "Test Stew", 2, [{"name": "quuxbeans", "quantity": 200, "unit": "g"}])
    meal = (await call(client, "db_create", table="meal_plans",
                       data={"date": "2031-06-02", "meal_type": "dinner", "recipe_id": stew, "servings": 2}))["rows"][0]["id"]
    span = {"from": "2031-06-01", "to": "2031-06-07"}
    first = await call(client, "shopping_list_from", meal_plans=span)
    assert [(line["text"], line["action"]) for line in first["lines"]] == [("200 g quuxbeans", "added")]
    await call(client, "db_update", table="meal_plans", filters=[eq("id", meal)], data={"servings": 5})
    more = await call(client, "shopping_list_from", meal_plans=span)
    assert [(line["text"], line["action"]) for line in more["lines"]] == [("500 g quuxbeans", "updated")]
    (row,) = await _rows(client, "shopping_list", name="quuxbeans")
    assert row["source"] == "Test Stew (Mon Jun 2 dinner, for 5)"
    again = await call(client, "shopping_list_from", meal_plans=span)
    assert again["lines"] == [] and again["already_listed"] == [{"name": "quuxbeans", "recipes": [stew]}]


async def test_servings_for_a_recipe_that_does_not_say_how_many_it_serves_is_refused(client: Client) -> None:
    bare = (await call(client, "db_create", table="recipes", data={"name": "Quux Bare"}))["rows"][0]["id"]
    refused = await call_error(client, "shopping_list_from", recipes=[bare], servings={bare: 4})
    assert refused["field"] == "servings" and "how many it serves" in refused["message"]


def _without_refs(lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{key: value for key, value in line.items() if key != "ref"} for line in lines]


@pytest.mark.parametrize(
    "source",
    [pytest.param({"meal_plans": {"from": "2026-01-12", "to": "2026-01-18"}}, id="demo-week"),
     pytest.param({"recipes": 2, "servings": 6}, id="recipes-at-servings")],
)
async def test_a_preview_lists_exactly_what_adding_then_adds_and_writes_nothing(client: Client, source: dict[str, Any]) -> None:
    """preview: the lines the call would add or top up (new lines without a ref), what is already listed and what the
    pantry covers, and not a row written nor an undo step recorded; the call then adds exactly those lines; a preview
    after it has nothing to add and says why."""
    if "recipes" in source:  # the first recipes of the demo kitchen, the last one at more servings
        refs = [row["id"] for row in (await call(client, "db_read", table="recipes", limit=source["recipes"]))["rows"]]
        source = {"recipes": refs, "servings": {refs[-1]: source["servings"]}}
    before = await _rows(client, "shopping_list")
    preview = await call(client, "shopping_list_from", preview=True, **source)
    assert preview["preview"] is True and preview["lines"]
    assert all(("ref" in line) == (line["action"] == "updated") for line in preview["lines"])
    assert await _rows(client, "shopping_list") == before
    assert (await call_error(client, "kitchen_undo"))["message"].startswith("Nothing to undo")
    added = await call(client, "shopping_list_from", **source)
    assert "preview" not in added
    assert _without_refs(added["lines"]) == _without_refs(preview["lines"])
    assert [line.get("ref") for line in preview["lines"] if line["action"] == "updated"] == [
        line["ref"] for line in added["lines"] if line["action"] == "updated"]
    assert (added["covered"], added["already_listed"]) == (preview["covered"], preview["already_listed"])
    after = await call(client, "shopping_list_from", preview=True, **source)
    assert after["lines"] == [] and after["already_listed"] and after["message"].startswith("Nothing to add:")


@pytest.mark.parametrize(("held", "used"), [
    (("garlic", 2, "head"), (2, "clove")), (("quuxflour", 1, "kg"), (333, "g")), (("quuxmilk", 2, "cup"), (3, "tbsp")),
    (("quuxtomatoes", 2, "can"), (0.15, "can")), (("garlic", 1, "head"), (10, "clove")), (("garlic", 2, "head"), (13, "clove")),
    (("soy sauce", 1, "bottle"), (1.5, "tbsp")), (("olive oil", 2, "bottle"), (1, "tbsp")), (("vegetable broth", 1, "carton"), (1, "tbsp")),
], ids=lambda case: "-".join(str(part) for part in case))
async def test_meal_cooked_says_left_what_the_pantry_then_holds(
    client: Client, held: tuple[str, float, str], used: tuple[float, str]
) -> None:
    name = held[0]
    dish = await _recipe(client, f"Test {name}", 1, [{"name": name, "quantity": used[0], "unit": used[1]}])
    await _pantry(client, held)
    cooked = await call(client, "meal_cooked", recipe=dish)
    assert cooked["deducted"]
    for line in cooked["deducted"]:  # the demo pantry may hold some too: every row deducted says what it holds
        (stock,) = await _rows(client, "inventory", id=line["ref"])
        assert reads_as_held(line["left"], stock["name"], stock["unit"], stock["quantity"]), line


@pytest.mark.parametrize("rating", [1, 2, 3, 4, 5])
async def test_meal_cooked_logs_how_it_went(client: Client, rating: int) -> None:
    """'I cooked it, they were great': the rating and notes go on the log entry in the same call, and are reported."""
    soup = await _recipe(client, "Test Soup", 2, [{"name": "quuxleek", "quantity": 1}])
    result = await call(client, "meal_cooked", recipe=soup, rating=rating, notes="the kids loved it")
    assert result["rating"] == rating and result["notes"] == "the kids loved it"
    (log,) = await _rows(client, "cooking_log", id=result["log"])
    assert (log["rating"], log["notes"]) == (rating, "the kids loved it")


@pytest.mark.parametrize(("field", "value"), [("rating", 0), ("rating", 6), ("rating", "great"), ("notes", "x" * 2001), ("notes", 5)])
async def test_meal_cooked_refuses_a_bad_rating_or_notes_naming_it_and_changes_nothing(client: Client, field: str, value: Any) -> None:
    soup = await _recipe(client, "Test Stew", 2, [{"name": "quuxleek", "quantity": 1}])
    before = await _rows(client, "cooking_log")
    error = await call_error(client, "meal_cooked", recipe=soup, **{field: value})
    assert field in error.get("field", "") + error.get("message", "")
    assert await _rows(client, "cooking_log") == before


@pytest.mark.parametrize(("quantity", "unit"), [(3, "tbsp"), (0.25, "cup"), (1, "tsp"), (0.75, "cup"), (2, "tbsp"), (100, "ml")])
@pytest.mark.parametrize("servings", [3, 4, 6])
async def test_the_shopping_note_says_the_amount_as_recipes_scale_does(client: Client, quantity: float, unit: str, servings: int) -> None:
    """Olive oil for 6 was '1/4 cup + 2 tbsp' in recipes_scale and '1/2 cup' (rounded up to buy) in the pantry note:
    the note says recipes_scale's amount, or, where that rounds below the need ('1 cup' for 1 1/8), the next measure
    up, never less than needed."""
    dressing = await _recipe(client, f"Test Dressing {quantity} {unit}", 2, [{"name": "quuxoil", "quantity": quantity, "unit": unit}])
    await _pantry(client, ("quuxoil", 1, "bottle"))
    scaled = (await call(client, "recipes_scale", recipe=dressing, servings=servings))["ingredients"][0]
    (covered,) = (await call(client, "shopping_list_from", recipes=[dressing],
                             servings={dressing: servings}, preview=True))["covered"]
    wanted = covered["note"].split("need ", 1)[1].split(", the pantry has", 1)[0]
    exact = scaled.get("rounded_from", scaled["quantity"])
    if exact <= scaled["quantity"]:
        assert scaled["text"] == wanted
    else:
        amount = parsed_amount(wanted.removesuffix(" quuxoil"))
        assert amount is not None and amount[1] == scaled["unit"] and exact <= amount[0] < exact * 1.34, (scaled, wanted)


@pytest.mark.parametrize("variant", ["dairy-free yogurt", "vegan yogurt", "non-dairy yogurt"])
async def test_meal_cooked_never_takes_the_plain_item_for_a_free_from_one(client: Client, variant: str) -> None:
    """'dairy-free yogurt' was matched to the pantry's Greek yogurt ('only as 24 oz, which does not convert')."""
    bowl = await _recipe(client, f"Test Bowl {variant}", 2, [{"name": variant, "quantity": 1, "unit": "cup"}])
    (greek,) = await _pantry(client, ("Greek yogurt", 24, "oz"))
    result = await call(client, "meal_cooked", recipe=bowl)
    assert result["deducted"] == [] and result["not_deducted"][0]["reason"] == "not in the pantry"
    assert (await _rows(client, "inventory", id=greek))[0]["quantity"] == 24


async def test_meal_cooked_takes_what_shopping_counted_as_covered_in_a_unit_that_does_not_convert(client: Client) -> None:
    """A bottle of olive oil, a bag of panko, a wedge of parmesan, 2 oz of paprika, a box of salt: the shopping list counts
    each as covering the recipe (as the shop sells it, full), so cooking the recipe takes the amount from each, saying
    about how much is left; a can of an unknown size is reported apart, naming the unit it does not convert to."""
    crumbs = await _recipe(client, "Test Crumbed Fish", 2, [
        {"name": "olive oil", "quantity": 2, "unit": "tbsp"}, {"name": "panko", "quantity": 0.5, "unit": "cup"},
        {"name": "parmesan", "quantity": 0.25, "unit": "cup"}, {"name": "paprika", "quantity": 1, "unit": "tsp"},
        {"name": "salt", "quantity": 1, "unit": "tsp"}, {"name": "quuxbeans", "quantity": 200, "unit": "g"}])
    refs = await _pantry(client, ("olive oil", 1, "bottle"), ("panko", 1, "bag"), ("parmesan", 1, "wedge"), ("paprika", 2, "oz"),
                         ("salt", 1, "box"), ("quuxbeans", 2, "can"))
    listed = await call(client, "shopping_list_from", recipes=[crumbs], preview=True)
    checked = {item["name"] for item in listed["covered"] if "covered" not in (item.get("note") or "covered")}
    assert listed["lines"] == [] and checked == {"quuxbeans"}
    cooked = await call(client, "meal_cooked", recipe=crumbs, servings=2)
    taken = {line["ref"]: line for line in cooked["deducted"]}
    assert [ref for ref in refs[:4] if ref in taken and "about " not in taken[ref]["left"]] == []
    assert [item["name"] for item in cooked["not_deducted"]] == ["quuxbeans"]
    assert "2 cans, which does not convert to g" in cooked["not_deducted"][0]["reason"]
    used = {line["name"]: line["used"] for line in cooked["deducted"]}
    assert used["olive oil"] == "2 tbsp" and used["paprika"] == "1 tsp"
    paprika = (await _rows(client, "inventory", id=refs[3]))[0]
    assert paprika["unit"] == "oz" and paprika["quantity"] == pytest.approx(2 - 2 / 24, rel=1e-3)


async def test_added_and_topped_up_lines_are_counted_apart_in_the_result_and_its_headline(client: Client) -> None:
    """A line topped up is never counted as added: the result's `added` and `topped_up` count the lines by their action,
    in a preview and in the write, and the one-line summary a model acts on says both."""
    bread = await _recipe(client, "Test Loaf", 1, [{"name": "quuxflour", "quantity": 500, "unit": "g"},
                                                  {"name": "quuxsugar", "quantity": 100, "unit": "g"}])
    cake = await _recipe(client, "Test Sponge", 1, [{"name": "quuxflour", "quantity": 200, "unit": "g"}, {"name": "quuxegg", "quantity": 2}])
    first = await call(client, "shopping_list_from", recipes=[bread])
    assert (first["added"], first["topped_up"]) == (2, 0) and summarize_result("shopping_list_from", first).startswith(
        "shopping_list_from: 2 added to the shopping list from")
    for preview in (True, False):
        second = await call(client, "shopping_list_from", recipes=[cake], preview=preview)
        actions = [line["action"] for line in second["lines"]]
        assert (second["added"], second["topped_up"]) == (actions.count("added"), actions.count("updated")) == (1, 1)
        said = summarize_result("shopping_list_from", second)
        assert said.startswith("shopping_list_from: 1 to add, 1 to top up (a preview" if preview
                               else "shopping_list_from: 1 added to the shopping list, 1 topped up"), said


async def test_ticking_a_line_bought_puts_its_amount_in_the_pantry(client: Client) -> None:
    """10 eggs in the pantry and 12 bought are 22 in the same row; a row past its use-by date takes nothing, so what is
    bought goes in a new row with no use-by date of the old one; so does a unit that does not convert, or nothing to add
    to; a line without an amount stocks nothing and says so; a line ticked again is not stocked twice; unticking takes
    back what ticking stocked."""
    eggs, milk, beans = await _pantry(client, ("quuxeggs", 10, "piece"), ("quuxmilk", 1, "l"), ("quuxbeans", 1, "can"))
    await call(client, "db_update", table="inventory", filters=[eq("id", milk)], data={"expiry_date": "2026-01-02"})
    lines = (await call(client, "db_create", table="shopping_list", data=[
        {"name": "quuxeggs", "quantity": 12}, {"name": "quuxmilk", "quantity": 2, "unit": "l"},
        {"name": "quuxbeans", "quantity": 400, "unit": "g"}, {"name": "quuxkale", "quantity": 1, "unit": "bunch"},
        {"name": "quuxbread"}]))["rows"]
    refs = [line["id"] for line in lines]
    ticked = await call(client, "shopping_list_check", items=refs, bought=True)
    stocked = {item["name"]: item for item in ticked["stocked"]}
    assert stocked["quuxeggs"]["ref"] == eggs and stocked["quuxeggs"]["now"] == "22" and not stocked["quuxeggs"]["new"]
    assert all(stocked[name]["new"] and stocked[name]["ref"] not in (milk, beans) for name in ("quuxmilk", "quuxbeans", "quuxkale"))
    assert "no amount" in stocked["quuxbread"]["note"]
    pantry = {(row["name"], row["unit"]): row for row in await _rows(client, "inventory")}
    assert pantry[("quuxeggs", "piece")]["quantity"] == 22
    assert [row["quantity"] for row in await _rows(client, "inventory", name="quuxmilk")] == [1, 2]
    new_milk = (await _rows(client, "inventory", id=stocked["quuxmilk"]["ref"]))[0]
    assert new_milk["expiry_date"] is None and new_milk["purchase_date"] is not None
    assert pantry[("quuxbeans", "g")]["quantity"] == 400 and pantry[("quuxkale", "bunch")]["quantity"] == 1
    again = await call(client, "shopping_list_check", items=refs[:1], bought=True)
    assert again["stocked"] == [] and (await _rows(client, "inventory", id=eggs))[0]["quantity"] == 22
    untick = await call(client, "shopping_list_check", items=refs[:1], bought=False)
    assert "stocked" not in untick and [(item["ref"], item["now"]) for item in untick["unstocked"]] == [(eggs, "10")]
    assert (await _rows(client, "inventory", id=eggs))[0]["quantity"] == 10


@pytest.mark.parametrize("filters", ["id", "name"])
@pytest.mark.parametrize("lines", [1, 3])
async def test_a_db_update_ticking_lines_bought_ticks_them_and_says_the_pantry_is_unchanged(client: Client, filters: str,
                                                                                        lines: int) -> None:
    """A model ticks with db_update and then adds to the pantry itself (every recorded conversation that ticked did:
    'eggs ticked, your fridge now has 22'), so db_update only ticks: the lines are bought, the pantry is as it was, and
    the result says so and how the pantry gets what was bought, naming only tools a model can call (shopping_list_check,
    which stocks it as the view does, is the view's and Act's, not in a model's tools/list)."""
    created = (await call(client, "db_create", table="shopping_list",
                          data=[{"name": "quuxleeks", "quantity": 2 + n} for n in range(lines)]))["rows"]
    before = await _rows(client, "inventory")
    where = [among("id", [row["id"] for row in created])] if filters == "id" else [eq("name", "quuxleeks")]
    result = await call(client, "db_update", table="shopping_list", filters=where, data={"is_purchased": True})
    assert all(row["is_purchased"] for row in await _rows(client, "shopping_list", name="quuxleeks"))
    assert await _rows(client, "inventory") == before
    assert not [w for w in result.get("warnings", []) if w.startswith("shopping_list:")]  # a note: it stops no planned call
    (warning,) = [w for w in result.get("notes", []) if w.startswith("shopping_list:")]
    assert f"{lines} line{'s' if lines > 1 else ''} ticked bought" in warning and "pantry was not changed" in warning \
        and "db_update/db_create" in warning and "shopping_list_check" not in warning


@pytest.mark.parametrize("data", [{"quantity": 3}, {"notes": "the big ones"}, {"is_purchased": False}])
async def test_a_db_update_that_does_not_tick_a_line_says_nothing_of_the_pantry(client: Client, data: dict[str, Any]) -> None:
    (line,) = (await call(client, "db_create", table="shopping_list", data=[{"name": "quuxleeks", "quantity": 2}]))["rows"]
    before = await _rows(client, "inventory")
    result = await call(client, "db_update", table="shopping_list", filters=[eq("id", line["id"])], data=data)
    assert not [w for w in result.get("warnings", []) + result.get("notes", []) if w.startswith("shopping_list:")]
    assert await _rows(client, "inventory") == before
