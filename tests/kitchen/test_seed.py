"""The demo kitchen: valid rows for every table, laid out around the given day, linked to the catalog."""

from __future__ import annotations

from collections import Counter
from datetime import date, timedelta
from typing import Any

import pytest

from alfred_mcp.kitchen.jsonschema import validate_row
from alfred_mcp.kitchen.schema import LOCATIONS, TABLES, Table
from alfred_mcp.kitchen.seed import DemoKitchen, demo_kitchen
from alfred_mcp.kitchen.taxonomy import default_taxonomy

TODAY = date(2026, 1, 12)
KITCHEN = demo_kitchen(TODAY)
TAXONOMY = default_taxonomy()
LOADER_KEYS = {"recipes": ("parent",), "meal_plans": ("recipe",), "tasks": ("recipe",)}
SEEDED_TABLES = (
    "ingredients", "recipes", "recipe_ingredients", "inventory", "shopping_list", "preferences", "meal_plans", "tasks",
)


def seed_rows(kitchen: DemoKitchen, table: str) -> list[dict[str, Any]]:
    """The rows the loader writes to `table`: its own keys resolved away, recipe_id and position filled in."""
    if table == "recipe_ingredients":
        return [
            {**item, "recipe_id": f"recipe_{number}", "position": position}
            for number, recipe in enumerate(kitchen.recipes, start=1)
            for position, item in enumerate(recipe.ingredients, start=1)
        ]
    rows = {
        "ingredients": list(kitchen.catalog),
        "recipes": [recipe.row for recipe in kitchen.recipes],
        "inventory": list(kitchen.inventory),
        "shopping_list": list(kitchen.shopping_list),
        "preferences": [kitchen.preferences],
        "meal_plans": list(kitchen.meal_plans),
        "tasks": list(kitchen.tasks),
    }[table]
    dropped = LOADER_KEYS.get(table, ())
    return [{key: value for key, value in row.items() if key not in dropped} for row in rows]


def schema_problems(table: Table, row: dict[str, Any]) -> list[str]:
    """What is wrong with `row` as a create on `table`: unwritable columns, missing ones, bad enums or dates."""
    writable = {column.name: column for column in table.writable_columns}
    problems = [f"{name} is not writable" for name in row if name not in writable]
    problems += [f"{c.name} is missing" for c in writable.values() if c.required_on_create and row.get(c.name) is None]
    for name, value in row.items():
        column = writable.get(name)
        if column is None or value is None:
            continue
        values = value if column.type == "text[]" else [value]
        if column.enum is not None:
            problems += [f"{name}: {item!r} is not allowed" for item in values if item not in column.enum]
        if column.type == "date" and not _is_iso_date(value):
            problems.append(f"{name}: {value!r} is not YYYY-MM-DD")
    return problems


def _is_iso_date(value: object) -> bool:
    try:
        return isinstance(value, str) and len(value) == 10 and date.fromisoformat(value).isoformat() == value
    except ValueError:
        return False


def _catalog_index() -> dict[str, dict[str, Any]]:
    return {name.lower(): row for row in KITCHEN.catalog for name in (row["name"], *row["aliases"])}


def _recipe_names() -> set[str]:
    return {recipe.row["name"] for recipe in KITCHEN.recipes}


def _recipes_with(category: str) -> set[str]:
    return {
        recipe.row["name"]
        for recipe in KITCHEN.recipes
        if any(TAXONOMY.matches(item["name"], category) for item in recipe.ingredients)
    }


# -- schema validity ----------------------------------------------------------------------------


@pytest.mark.parametrize("table", SEEDED_TABLES)
def test_seed_rows_use_writable_columns_required_values_enums_and_iso_dates(table: str) -> None:
    """Every seed row names only writable columns, fills the required ones and keeps to enums and dates."""
    rows = seed_rows(KITCHEN, table)
    problems = [(row.get("name"), problem) for row in rows for problem in schema_problems(TABLES[table], row)]
    assert problems == []


@pytest.mark.parametrize("table", SEEDED_TABLES)
def test_seed_rows_pass_the_write_schema(table: str) -> None:
    """Every seed row is accepted by the same JSON Schema check a caller's create goes through."""
    for row in seed_rows(KITCHEN, table):
        validate_row(TABLES[table], row, "create")


def test_schema_checker_reports_each_kind_of_problem() -> None:
    """The checker above is not vacuous: it flags unwritable, missing, off-enum and malformed values."""
    row = {"id": "x", "date": "12/01/2026", "meal_type": "brunch"}
    assert schema_problems(TABLES["meal_plans"], row) == [
        "id is not writable",
        "date: '12/01/2026' is not YYYY-MM-DD",
        "meal_type: 'brunch' is not allowed",
    ]
    assert schema_problems(TABLES["meal_plans"], {"date": "2026-01-12"}) == ["meal_type is missing"]


# -- recipes ----------------------------------------------------------------------------------


def test_recipes_have_six_to_fourteen_ingredients_and_four_to_eight_steps() -> None:
    """Each recipe is complete enough to cook from."""
    for recipe in KITCHEN.recipes:
        assert 6 <= len(recipe.ingredients) <= 14, recipe.row["name"]
        assert 4 <= len(recipe.row["instructions"]) <= 8, recipe.row["name"]


def test_recipes_have_unique_names_and_several_cuisines() -> None:
    """About ten recipes, no two with the same name, across at least six cuisines."""
    names = [recipe.row["name"] for recipe in KITCHEN.recipes]
    assert 9 <= len(names) <= 12 and len(set(names)) == len(names)
    assert len({recipe.row["cuisine"] for recipe in KITCHEN.recipes}) >= 6


def test_fish_category_finds_the_cod_and_salmon_recipes() -> None:
    """The taxonomy finds the fish recipes through their ingredients: a cod one and a salmon one."""
    assert _recipes_with("fish") == {
        "Lemon Garlic Baked Cod", "Air-Fryer Lemon Garlic Cod", "Miso-Glazed Salmon with Bok Choy",
    }


def test_recipe_mix_has_chicken_vegetarian_pasta_and_breakfast() -> None:
    """Two or three chicken dishes, three or more vegetarian ones, a pasta and a breakfast."""
    assert 2 <= len(_recipes_with("poultry")) <= 3
    vegetarian = {r.row["name"] for r in KITCHEN.recipes if "vegetarian" in r.row["health_tags"]}
    assert len(vegetarian) >= 3
    assert not vegetarian & (_recipes_with("meat") | _recipes_with("seafood"))
    assert _recipes_with("pasta")
    assert any("breakfast" in recipe.row["tags"] for recipe in KITCHEN.recipes)


def test_ingredients_have_quantities_notes_and_optional_items() -> None:
    """Recipe ingredients carry amounts and prep notes, and some are optional."""
    items = [item for recipe in KITCHEN.recipes for item in recipe.ingredients]
    assert sum("quantity" in item for item in items) >= len(items) - 2
    assert any(item.get("notes") == "finely chopped" for item in items)
    assert any(item["is_optional"] for item in items) and not all(item["is_optional"] for item in items)


def test_variation_names_an_existing_parent() -> None:
    """Exactly one recipe is a variation, and its 'parent' key names another seed recipe."""
    parents = [recipe.row["parent"] for recipe in KITCHEN.recipes if "parent" in recipe.row]
    assert parents == ["Lemon Garlic Baked Cod"]


def test_meal_plans_and_tasks_name_existing_recipes() -> None:
    """Every 'recipe' key the loader resolves names a seed recipe."""
    named = {row["recipe"] for row in (*KITCHEN.meal_plans, *KITCHEN.tasks) if "recipe" in row}
    assert named and named <= _recipe_names()


# -- the rest of the kitchen --------------------------------------------------------------------


def test_meal_plans_cover_the_seven_days_from_today() -> None:
    """A week of plans, today to today+6, mostly dinners, with one entry that is only a note."""
    days = {date.fromisoformat(row["date"]) for row in KITCHEN.meal_plans}
    assert days == {TODAY + timedelta(days=offset) for offset in range(7)}
    meal_types = Counter(row["meal_type"] for row in KITCHEN.meal_plans)
    assert meal_types["dinner"] == 7 and meal_types["lunch"] >= 2
    assert any("recipe" not in row and row.get("notes") for row in KITCHEN.meal_plans)


def test_inventory_has_items_expiring_this_week_and_one_already_expired() -> None:
    """Some items run out within seven days and exactly one is past its date."""
    expiries = [date.fromisoformat(row["expiry_date"]) for row in KITCHEN.inventory if "expiry_date" in row]
    assert sum(TODAY <= day <= TODAY + timedelta(days=7) for day in expiries) >= 5
    assert sum(day < TODAY for day in expiries) == 1


def test_inventory_spans_every_location() -> None:
    """About forty items, kept in pantry, fridge, freezer, counter and cabinet."""
    assert 35 <= len(KITCHEN.inventory) <= 55
    assert {row["location"] for row in KITCHEN.inventory} == set(LOCATIONS)


def test_shopping_list_has_open_and_purchased_items() -> None:
    """About ten things to buy, some already bought."""
    purchased = [row["is_purchased"] for row in KITCHEN.shopping_list]
    assert 8 <= len(purchased) <= 14 and any(purchased) and not all(purchased)


def test_tasks_have_due_dates_and_some_are_tied_to_recipes() -> None:
    """About five tasks, all dated, several about a recipe, one already done."""
    assert 4 <= len(KITCHEN.tasks) <= 8
    assert all("due_date" in row for row in KITCHEN.tasks)
    assert sum("recipe" in row for row in KITCHEN.tasks) >= 2
    assert any(row["completed"] for row in KITCHEN.tasks)


def test_preferences_declare_a_peanut_allergy_and_the_equipment() -> None:
    """The household is allergic to peanuts and owns an air fryer and an oven."""
    prefs = KITCHEN.preferences
    assert prefs["allergies"] == ["peanuts"]
    assert {"air-fryer", "oven"} <= set(prefs["available_equipment"])
    assert prefs["disliked_ingredients"] and prefs["favorite_cuisines"]
    assert prefs["household_adults"] >= 1


def test_no_recipe_or_pantry_item_holds_the_allergen() -> None:
    """Nothing the household cooks or keeps belongs to its allergy's category."""
    names = [item["name"] for recipe in KITCHEN.recipes for item in recipe.ingredients]
    names += [row["name"] for row in (*KITCHEN.inventory, *KITCHEN.shopping_list)]
    for allergy in KITCHEN.preferences["allergies"]:
        assert [name for name in names if TAXONOMY.matches(name, allergy)] == []


# -- the catalog ------------------------------------------------------------------------------


def test_catalog_has_about_120_ingredients_with_unique_names_and_aliases() -> None:
    """Each catalog name or alias points at one ingredient, so linking by name is unambiguous."""
    assert 100 <= len(KITCHEN.catalog) <= 150
    names = [name.lower() for row in KITCHEN.catalog for name in (row["name"], *row["aliases"])]
    assert [name for name, count in Counter(names).items() if count > 1] == []


def test_recipe_pantry_and_shopping_names_link_to_the_catalog() -> None:
    """Every recipe ingredient, inventory item and shopping item names a catalog ingredient or alias."""
    index = _catalog_index()
    names = [item["name"] for recipe in KITCHEN.recipes for item in recipe.ingredients]
    names += [row["name"] for row in (*KITCHEN.inventory, *KITCHEN.shopping_list)]
    assert [name for name in names if name.lower() not in index] == []


def test_copied_categories_match_the_catalog() -> None:
    """Recipe ingredients and inventory carry their catalog ingredient's category."""
    index = _catalog_index()
    rows = [*(item for recipe in KITCHEN.recipes for item in recipe.ingredients), *KITCHEN.inventory]
    assert [row["name"] for row in rows if row.get("category") != index[row["name"].lower()]["category"]] == []


def test_every_catalog_category_is_a_taxonomy_category_holding_the_ingredient() -> None:
    """Each catalog ingredient's fine-grained category exists in the taxonomy and matches its name."""
    strays = [row["name"] for row in KITCHEN.catalog if not TAXONOMY.matches(row["name"], row["category"])]
    assert strays == []


# -- dates and determinism ----------------------------------------------------------------------


def test_demo_kitchen_is_deterministic() -> None:
    """The same day gives the same kitchen."""
    assert demo_kitchen(TODAY) == demo_kitchen(TODAY)


def test_dates_move_with_today() -> None:
    """A day later, every meal, expiry and due date is a day later too."""
    later = demo_kitchen(TODAY + timedelta(days=1))

    def dates(kitchen: DemoKitchen) -> list[date]:
        rows = (*kitchen.meal_plans, *kitchen.inventory, *kitchen.tasks)
        keys = ("date", "expiry_date", "purchase_date", "due_date")
        return [date.fromisoformat(row[key]) for row in rows for key in keys if key in row]

    assert dates(later) == [day + timedelta(days=1) for day in dates(KITCHEN)]
    assert later.recipes == KITCHEN.recipes and later.catalog == KITCHEN.catalog


def test_each_call_returns_fresh_rows() -> None:
    """Changing one result does not leak into the next call."""
    first = demo_kitchen(TODAY)
    first.recipes[0].row["tags"].append("changed")
    first.preferences["allergies"].clear()
    second = demo_kitchen(TODAY)
    assert "changed" not in second.recipes[0].row["tags"]
    assert second.preferences["allergies"] == ["peanuts"]


def test_the_pantry_and_the_list_name_a_container_as_the_shop_sells_it() -> None:
    """Seeded '1 bag corn tortillas' beside a list line of '1 pack': every pantry and shopping row counted in a
    container (a bag, a box, a pack, a bottle, a bunch...) names the one its purchase names, the word the shopping list
    writes (a can of something also sold canned is a can)."""
    from alfred_mcp.kitchen.bought_as import can_size, purchase_of
    from alfred_mcp.kitchen.measures import line_text

    containers = {"bag", "box", "pack", "packet", "can", "jar", "bottle", "carton", "tub", "block", "wedge", "bunch", "head", "tin"}
    odd = []
    for row in [*KITCHEN.inventory, *KITCHEN.shopping_list]:
        purchase = purchase_of(str(row["name"]))
        if row.get("unit") in containers and purchase is not None and purchase.unit != row["unit"] \
                and not (row["unit"] == "can" and can_size(str(row["name"]))):
            odd.append((row["name"], row["unit"], purchase.unit, line_text(1, purchase.unit, str(row["name"]), buying=True)))
    assert odd == []
