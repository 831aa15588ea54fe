"""Payload compilation: drafts become schema-valid rows, whole, deterministic, with every loss warned."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from alfred_mcp.errors import InvalidRefError, StateError
from alfred_mcp.kitchen.jsonschema import validate_row
from alfred_mcp.kitchen.schema import CUISINES, FLAVOR_TAGS, HEALTH_TAGS, MAX_ARRAY, OCCASIONS, get_table
from alfred_mcp.kitchen.units import Quantity, normalize_unit, parse_minutes, parse_quantity
from alfred_mcp.state.compiler import (
    CUISINE,
    FLAVOR,
    HEALTH,
    OCCASION,
    CatalogIndex,
    CatalogMatch,
    Compiled,
    CompiledRow,
    compile_draft,
    folded_words,
)
from alfred_mcp.state.drafts import MAX_TAGS, mark_draft_saved, new_draft

CATALOG_ROWS = [
    {"ref": "ing_1", "name": "cod", "aliases": ["cod loin", "cod fillet"], "category": "fish"},
    {"ref": "ing_2", "name": "garlic", "aliases": ["garlic clove"], "category": "alliums"},
    {"ref": "ing_3", "name": "olive oil", "aliases": ["extra virgin olive oil", "evoo"], "category": "oils"},
    {"ref": "ing_4", "name": "lemon", "aliases": [], "category": "citrus"},
    {"ref": "ing_5", "name": "butter", "aliases": ["unsalted butter"], "category": "dairy"},
    {"ref": "ing_6", "name": "chicken", "aliases": [], "category": "poultry"},
    {"ref": "ing_7", "name": "chicken thigh", "aliases": [], "category": "poultry"},
    {"ref": "ing_8", "name": "honey", "aliases": [], "category": "sweeteners"},
    {"ref": "ing_9", "name": "soy sauce", "aliases": ["shoyu"], "category": "condiments"},
    {"ref": "ing_10", "name": "tomato", "aliases": [], "category": "vegetables"},
    {"ref": "ing_11", "name": "berry", "aliases": [], "category": "fruit"},
    {"ref": "ing_12", "name": "salt", "aliases": ["kosher salt", "sea salt"], "category": "spices"},
    {"ref": "ing_13", "name": "green onion", "aliases": ["scallion", "spring onion"], "category": "alliums"},
]
CATALOG = CatalogIndex(CATALOG_ROWS)


def ingredient(
    name: str, quantity: Any = None, unit: str | None = None, notes: str | None = None, **extra: Any
) -> dict[str, Any]:
    return {"name": name, "quantity": quantity, "unit": unit, "notes": notes, **extra}


# Seed 000, failure 1: "Created 3 detailed recipes with 12+ ingredients each", then saved simplified.
HONEY_GARLIC_COD = {
    "name": "Honey Garlic Soy Glazed Cod",
    "description": "Flaky cod under a sticky honey-garlic glaze, done in the air fryer.",
    "cuisine": "American",
    "difficulty": "Beginner",
    "prep_time": 10,
    "cook_time": "12 min",
    "servings": 4,
    "ingredients": [
        ingredient("cod fillets", 4, "fillets", "skinless, about 6 oz each"),
        ingredient("honey", 3, "tablespoons"),
        ingredient("low-sodium soy sauce", "1/4", "cup"),
        ingredient("garlic", 4, "cloves", "minced"),
        ingredient("fresh ginger", 1, "teaspoon", "grated"),
        ingredient("rice vinegar", 1, "Tbsp"),
        ingredient("sesame oil", 2, "tsp"),
        ingredient("cornstarch", "1 1/2", "teaspoons"),
        ingredient("water", 2, "T"),
        ingredient("red pepper flakes", "½", "tsp", is_optional=True),
        ingredient("green onions", 2, "stalks", "thinly sliced"),
        ingredient("sesame seeds", 1, "tsp", "toasted"),
        ingredient("black pepper", "1/4", "tsp", "freshly ground"),
    ],
    "instructions": [
        "Whisk honey, soy sauce, garlic, ginger, vinegar and sesame oil in a small pan.",
        "Stir the cornstarch into the water and add it; simmer until glossy, about 2 minutes.",
        "Pat the cod dry and season with pepper.",
        "Air fry the cod at 400F for 8 minutes.",
        "Brush with glaze and air fry 2-4 minutes more.",
        "Finish with green onions, sesame seeds and pepper flakes.",
    ],
    "tags": ["fish", "quick"],
    "occasions": ["Weeknight"],
    "health_tags": ["High Protein", "dairy free"],
    "flavor_tags": ["Sweet", "savoury"],
    "equipment": ["Air Fryer"],
}
LEMON_BUTTER_COD = {
    "name": "Lemon Butter Cod",
    "description": "Pan-seared cod loins in a lemon, caper and white wine butter sauce.",
    "cuisine": "French",
    "difficulty": "intermediate",
    "prep_time_minutes": 15,
    "cook_time_minutes": 15,
    "servings": 4,
    "ingredients": [
        ingredient("cod loin", "1 1/2", "lbs", "cut into 4 portions"),
        ingredient("all-purpose flour", "1/4", "cup", "for dredging"),
        ingredient("kosher salt", 1, "tsp"),
        ingredient("white pepper", "¼", "tsp"),
        ingredient("olive oil", 1, "Tbsp"),
        ingredient("unsalted butter", 4, "tbsp", "cold, cubed"),
        ingredient("shallot", 1, None, "finely diced"),
        ingredient("garlic", 3, "cloves", "minced"),
        ingredient("dry white wine", "1/3", "cup"),
        ingredient("lemon", 1, "whole", "zested and juiced"),
        ingredient("capers", 2, "tbsp", "drained", is_optional=True),
        ingredient("fresh parsley", 2, "tbsp", "chopped"),
    ],
    "instructions": [
        "Season the cod with salt and pepper and dredge lightly in flour.",
        "Sear in olive oil over medium-high heat, 3-4 minutes a side; set aside.",
        "Lower the heat, soften the shallot and garlic in a little butter.",
        "Deglaze with wine and reduce by half.",
        "Whisk in the remaining butter off the heat, then lemon zest, juice and capers.",
        "Return the cod, spoon over the sauce and finish with parsley.",
    ],
    "occasions": ["hosting", "date night"],
    "flavor_tags": ["rich", "tangy"],
    "equipment_tags": ["stovetop", "cast iron skillet"],
    "notes": "Swap the wine for stock to keep it alcohol-free.",
}
PIRI_PIRI_FISH = {
    "name": "Piri Piri Fish",
    "description": "Cod roasted under a fiery Portuguese chili and roasted pepper sauce.",
    "cuisine": "Portuguese",
    "difficulty": "moderate",
    "prep_time": "20 minutes",
    "cook_time": "PT25M",
    "servings": 4,
    "ingredients": [
        ingredient("cod fillets", 2, "lb"),
        ingredient("red bird's eye chilies", "4-6", None, "stemmed"),
        ingredient("red bell pepper", 1, None, "roasted and peeled"),
        ingredient("garlic cloves", 5),
        ingredient("smoked paprika", 2, "teaspoons"),
        ingredient("lemon juice", 3, "tablespoons", "fresh"),
        ingredient("red wine vinegar", 1, "tbsp"),
        ingredient("extra virgin olive oil", "1/3", "cup"),
        ingredient("dried oregano", 1, "tsp"),
        ingredient("bay leaves", 2, "leaves"),
        ingredient("sea salt", "1 1/2", "tsp"),
        ingredient("fresh cilantro", 1, "handful", "to serve"),
        ingredient("lemon wedges", 4, "wedges", "to serve"),
        ingredient("flaky salt", "to taste"),
    ],
    "instructions": [
        "Blend chilies, roasted pepper, garlic, paprika, lemon juice, vinegar, oil, oregano and salt.",
        "Marinate the cod in half the sauce for 15 minutes.",
        "Roast with the bay leaves at 425F for 12-15 minutes.",
        "Serve with the remaining sauce, cilantro and lemon wedges.",
    ],
    "tags": ["fish", "spicy"],
    "occasions": ["weekend"],
    "health_tags": ["GF", "low carb", "paleo"],
    "flavor_tags": ["Hot", "smoky"],
    "equipment": ["oven", "Blender"],
}
COD_RECIPES = [HONEY_GARLIC_COD, LEMON_BUTTER_COD, PIRI_PIRI_FISH]


def compiled(ref: str, content: dict[str, Any], catalog: CatalogIndex | None = CATALOG) -> Compiled:
    return compile_draft(new_draft(ref, content, turn=1), catalog)


def root(result: Compiled) -> CompiledRow:
    assert len(result.rows) == 1
    return result.rows[0]


def assert_schema_valid(result: Compiled) -> None:
    """The compiled rows pass the kitchen write schema, children with their parent's gen ref filled in."""
    row = root(result)
    validate_row(get_table(row.table), row.data, "create")
    for child in row.children:
        validate_row(get_table(child.table), {**child.data, "recipe_id": result.ref}, "create")


# -- seed scenario 1: three cod recipes, saved whole --------------------------------------------


def test_three_generated_recipes_compile_to_three_whole_recipes() -> None:
    """Each recipe keeps every ingredient in order, with quantities, units, notes and optional flags."""
    results = [compiled(f"gen_recipe_{n}", content) for n, content in enumerate(COD_RECIPES, start=1)]
    assert [r.ref for r in results] == ["gen_recipe_1", "gen_recipe_2", "gen_recipe_3"]
    for result, content in zip(results, COD_RECIPES):
        row = root(result)
        assert row.table == "recipes"
        assert row.data["name"] == content["name"]
        assert row.data["description"] == content["description"]
        assert row.data["instructions"] == content["instructions"]
        assert row.data["servings"] == content["servings"]
        assert len(row.children) == len(content["ingredients"]) >= 12
        for position, (child, source) in enumerate(zip(row.children, content["ingredients"]), start=1):
            assert child.table == "recipe_ingredients"
            assert "recipe_id" not in child.data
            assert child.data["position"] == position
            assert child.data["name"] == source["name"]
            assert child.data.get("is_optional") == source.get("is_optional", False)
            assert source["notes"] is None or child.data["notes"].endswith(source["notes"])
            assert child.data.get("quantity") == parse_quantity(source["quantity"]).value
            assert child.data.get("unit") == normalize_unit(source["unit"])
        assert_schema_valid(result)


def test_honey_garlic_cod_rows_field_by_field() -> None:
    """The first recipe, spelled out: times parsed, enums normalized, units canonical, catalog refs attached."""
    row = root(compiled("gen_recipe_1", HONEY_GARLIC_COD))
    assert {key: value for key, value in row.data.items() if key not in ("instructions", "description")} == {
        "name": "Honey Garlic Soy Glazed Cod",
        "cuisine": "american",
        "difficulty": "easy",
        "prep_time_minutes": 10,
        "cook_time_minutes": 12,
        "servings": 4,
        "tags": ["fish", "quick"],
        "occasions": ["weeknight"],
        "health_tags": ["high-protein", "dairy-free"],
        "flavor_tags": ["sweet", "savory"],
        "equipment_tags": ["air-fryer"],
    }
    assert [(c.data.get("quantity"), c.data.get("unit")) for c in row.children] == [
        (4.0, "fillet"), (3.0, "tbsp"), (0.25, "cup"), (4.0, "clove"), (1.0, "tsp"), (1.0, "tbsp"), (2.0, "tsp"),
        (1.5, "tsp"), (2.0, "tbsp"), (0.5, "tsp"), (2.0, "stalk"), (1.0, "tsp"), (0.25, "tsp"),
    ]
    assert row.children[0].data == {
        "position": 1, "name": "cod fillets", "quantity": 4.0, "unit": "fillet", "notes": "skinless, about 6 oz each",
        "is_optional": False, "category": "fish", "ingredient_id": "ing_1",
    }
    assert [c.data.get("ingredient_id") for c in row.children] == [
        "ing_1", "ing_8", "ing_9", "ing_2", None, None, None, None, None, None, "ing_13", None, None,
    ]


def test_piri_piri_fish_keeps_what_the_schema_cannot_hold() -> None:
    """Unknown cuisine and tags move to tags; a range and 'to taste' stay in notes; each is warned."""
    result = compiled("gen_recipe_3", PIRI_PIRI_FISH)
    row = root(result)
    assert row.data["cuisine"] == "other"
    assert row.data["difficulty"] == "medium"
    assert (row.data["prep_time_minutes"], row.data["cook_time_minutes"]) == (20, 25)
    assert row.data["health_tags"] == ["gluten-free", "low-carb"]
    assert row.data["flavor_tags"] == ["spicy"]
    assert row.data["tags"] == ["fish", "spicy", "Portuguese", "paleo", "smoky"]
    chilies, salt = row.children[1].data, row.children[13].data
    assert (chilies["quantity"], chilies["notes"]) == (4.0, "4-6; stemmed")
    assert ("quantity" in salt, salt["notes"]) == (False, "to taste")
    assert [(c.data.get("quantity"), c.data.get("unit")) for c in row.children[9:13]] == [
        (2.0, "leaf"), (1.5, "tsp"), (1.0, "handful"), (4.0, "wedge"),
    ]
    assert result.warnings == (
        "gen_recipe_3: cuisine: 'Portuguese' is not one of " + ", ".join(CUISINES) + "; saved as 'other', kept in tags.",
        "gen_recipe_3: health_tags: 'paleo' is not one of " + ", ".join(HEALTH_TAGS) + "; left out, kept in tags.",
        "gen_recipe_3: flavor_tags: 'smoky' is not one of " + ", ".join(FLAVOR_TAGS) + "; left out, kept in tags.",
        "gen_recipe_3: ingredients[1] (\"red bird's eye chilies\") quantity '4-6' is a range; saved 4, kept '4-6' in notes.",
        "gen_recipe_3: ingredients[13] ('flaky salt') quantity 'to taste' is not a number; saved no quantity, "
        "kept 'to taste' in notes.",
    )


def test_recipe_notes_have_no_column_and_are_warned_not_merged() -> None:
    """Draft notes are not folded into the description; the warning carries them."""
    result = compiled("gen_recipe_2", LEMON_BUTTER_COD)
    assert root(result).data["description"] == LEMON_BUTTER_COD["description"]
    assert result.warnings == (
        "gen_recipe_2: occasions: 'date night' is not one of " + ", ".join(OCCASIONS) + "; left out, kept in tags.",
        "gen_recipe_2: notes: recipes have no notes column, so these were not saved: "
        "'Swap the wine for stock to keep it alcohol-free.'",
    )
    assert root(result).data["tags"] == ["date night"]
    assert root(result).data["equipment_tags"] == ["stovetop", "cast-iron"]


# -- normalization tables ---------------------------------------------------------------------


def recipe_with(**fields: Any) -> dict[str, Any]:
    return {"name": "Test", "ingredients": [{"name": "cod"}], "instructions": ["Cook."], **fields}


@pytest.mark.parametrize(
    ("written", "saved", "tag"),
    [
        pytest.param("Italian", "italian", None, id="case"),
        pytest.param("middle eastern", "middle-eastern", None, id="space-to-hyphen"),
        pytest.param("Middle_Eastern", "middle-eastern", None, id="underscore"),
        pytest.param("Tex-Mex", "mexican", None, id="tex-mex"),
        pytest.param("Sichuan", "chinese", None, id="regional"),
        pytest.param("Cajun", "american", None, id="cajun"),
        pytest.param("Portuguese", "other", "Portuguese", id="unknown-kept-in-tags"),
    ],
)
def test_cuisine_is_normalized(written: str, saved: str, tag: str | None) -> None:
    """Cuisines map to the schema's list; an unknown one becomes 'other' and is kept as a tag."""
    result = compiled("gen_recipe_1", recipe_with(cuisine=written))
    assert root(result).data["cuisine"] == saved
    assert root(result).data["tags"] == ([tag] if tag else [])
    assert bool(result.warnings) == (tag is not None)


@pytest.mark.parametrize(
    ("written", "saved"),
    [
        pytest.param("Beginner", "easy", id="beginner"),
        pytest.param("simple", "easy", id="simple"),
        pytest.param("Intermediate", "medium", id="intermediate"),
        pytest.param("moderate", "medium", id="moderate"),
        pytest.param("advanced", "hard", id="advanced"),
        pytest.param("Difficult", "hard", id="difficult"),
    ],
)
def test_difficulty_is_normalized(written: str, saved: str) -> None:
    """Skill words map onto easy / medium / hard without a warning."""
    result = compiled("gen_recipe_1", recipe_with(difficulty=written))
    assert (root(result).data["difficulty"], result.warnings) == (saved, ())


def test_unknown_difficulty_is_left_out_and_kept_as_a_tag() -> None:
    """No fallback for difficulty: the column stays empty, the word goes to tags, with a warning."""
    result = compiled("gen_recipe_1", recipe_with(difficulty="fiddly"))
    assert "difficulty" not in root(result).data
    assert root(result).data["tags"] == ["fiddly"]
    assert result.warnings == (
        "gen_recipe_1: difficulty: 'fiddly' is not one of easy, medium, hard; left out, kept in tags.",
    )


@pytest.mark.parametrize(
    ("column", "written", "saved", "moved"),
    [
        pytest.param(
            "occasions", ["Weeknight", "meal prep", "Entertaining"], ["weeknight", "batch-prep", "hosting"], [], id="occasions"
        ),
        pytest.param("occasions", ["date night"], [], ["date night"], id="occasion-unknown"),
        pytest.param(
            "health_tags", ["veggie", "Gluten Free", "keto-friendly"], ["vegetarian", "gluten-free", "keto"], [], id="health"
        ),
        pytest.param("health_tags", ["plant-based"], ["vegan"], ["plant-based"], id="health-nearest"),
        pytest.param("health_tags", ["paleo", "whole30"], [], ["paleo", "whole30"], id="health-unknown"),
        pytest.param("flavor_tags", ["Savoury", "zesty", "Creamy"], ["savory", "tangy", "rich"], [], id="flavor"),
        pytest.param("flavor_tags", ["veggie", "spicy", "hot"], ["spicy"], ["veggie"], id="flavor-duplicates-folded"),
    ],
)
def test_enum_tags_are_normalized_or_moved_to_tags(
    column: str, written: list[str], saved: list[str], moved: list[str]
) -> None:
    """Tag columns hold only schema values; anything else moves to tags, with one warning per value."""
    result = compiled("gen_recipe_1", recipe_with(**{column: written}))
    assert root(result).data[column] == saved
    assert root(result).data["tags"] == moved
    assert len(result.warnings) == len(moved)
    assert all(f"'{value}'" in warning for value, warning in zip(moved, result.warnings))


@pytest.mark.parametrize(
    ("written", "saved"),
    [
        pytest.param(["Air Fryer"], ["air-fryer"], id="spaces"),
        pytest.param(["Instant Pot", "pressure cooker"], ["instant-pot"], id="synonyms-folded"),
        pytest.param(["crockpot"], ["slow-cooker"], id="crockpot"),
        pytest.param(["Sheet Pan"], ["sheet-pan"], id="free-form-kept"),
    ],
)
def test_equipment_tags_are_lowercased_and_hyphenated(written: list[str], saved: list[str]) -> None:
    """Equipment is free-form: normalized spelling, suggested names where they match, no warnings."""
    result = compiled("gen_recipe_1", recipe_with(equipment_tags=written))
    assert (root(result).data["equipment_tags"], result.warnings) == (saved, ())


@pytest.mark.parametrize(
    ("written", "saved", "warned"),
    [
        pytest.param("Dinner", "dinner", False, id="case"),
        pytest.param("supper", "dinner", False, id="supper"),
        pytest.param("Breakfast", "breakfast", False, id="breakfast"),
        pytest.param("snacks", "snack", False, id="plural"),
        pytest.param("brunch", "lunch", True, id="brunch-nearest"),
        pytest.param("dessert", "snack", True, id="dessert-nearest"),
        pytest.param("midnight feast", "other", True, id="unknown"),
    ],
)
def test_meal_type_is_normalized(written: str, saved: str, warned: bool) -> None:
    """Meal types map to the enum; approximations and unknowns are warned and kept in notes."""
    result = compiled("gen_meal_1", {"date": "2026-01-12", "meal_type": written})
    assert root(result).data["meal_type"] == saved
    assert bool(result.warnings) == warned
    assert root(result).data.get("notes") == (f"meal_type: {written}" if warned else None)


@pytest.mark.parametrize(
    ("written", "saved"),
    [
        pytest.param("Refrigerator", "fridge", id="refrigerator"),
        pytest.param("cupboard", "cabinet", id="cupboard"),
        pytest.param("Freezer", "freezer", id="freezer"),
        pytest.param("countertop", "counter", id="countertop"),
    ],
)
def test_pantry_location_is_normalized(written: str, saved: str) -> None:
    """Storage words map to pantry / fridge / freezer / counter / cabinet."""
    result = compiled("gen_inv_1", {"name": "milk", "quantity": 1, "unit": "carton", "location": written})
    assert (root(result).data["location"], result.warnings) == (saved, ())


@pytest.mark.parametrize(
    ("written", "saved"),
    [
        pytest.param("Prep", "prep", id="case"),
        pytest.param("thaw", "prep", id="thaw"),
        pytest.param("groceries", "shopping", id="groceries"),
        pytest.param("cleaning", "cleanup", id="cleaning"),
    ],
)
def test_task_category_is_normalized(written: str, saved: str) -> None:
    """Task categories map to prep / shopping / cleanup / other."""
    result = compiled("gen_task_1", {"title": "Thaw the cod", "category": written})
    assert (root(result).data["category"], result.warnings) == (saved, ())


def test_unknown_task_category_is_other_and_says_it_was_not_kept() -> None:
    """Tasks have no free text, so the warning is the only record of the original."""
    result = compiled("gen_task_1", {"title": "Call mum", "category": "errands"})
    assert root(result).data["category"] == "other"
    assert result.warnings == (
        "gen_task_1: category: 'errands' is not one of prep, shopping, cleanup, other; saved as 'other', "
        "and there is no free-text column to keep it in.",
    )


@pytest.mark.parametrize(
    ("written", "unit"),
    [
        pytest.param("pounds", "lb", id="pounds"),
        pytest.param("lbs.", "lb", id="lbs-dot"),
        pytest.param("Ounces", "oz", id="ounces"),
        pytest.param("grams", "g", id="grams"),
        pytest.param("Tablespoons", "tbsp", id="tablespoons"),
        pytest.param("Tbsp", "tbsp", id="Tbsp"),
        pytest.param("T", "tbsp", id="capital-T"),
        pytest.param("t", "tsp", id="small-t"),
        pytest.param("teaspoons", "tsp", id="teaspoons"),
        pytest.param("cups", "cup", id="cups"),
        pytest.param("cloves", "clove", id="cloves"),
        pytest.param("fillets", "fillet", id="fillets"),
        pytest.param("pcs", "piece", id="pcs"),
        pytest.param("litres", "l", id="litres"),
        pytest.param("millilitres", "ml", id="millilitres"),
        pytest.param("kilograms", "kg", id="kilograms"),
        pytest.param("cans", "can", id="cans"),
        pytest.param("bunches", "bunch", id="bunches"),
        pytest.param("  Knob ", "knob", id="unknown-trimmed-lowercased"),
        pytest.param("", None, id="blank"),
    ],
)
def test_unit_aliases_are_normalized(written: str, unit: str | None) -> None:
    """Unit spellings collapse to one canonical unit; unknown units are kept, trimmed and lowercased."""
    assert normalize_unit(written) == unit


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        pytest.param(2, Quantity(2.0, None, None), id="int"),
        pytest.param("1/2", Quantity(0.5, None, None), id="fraction"),
        pytest.param("1 1/2", Quantity(1.5, None, None), id="mixed"),
        pytest.param("1-1/2", Quantity(1.5, None, None), id="mixed-hyphen"),
        pytest.param("½", Quantity(0.5, None, None), id="unicode"),
        pytest.param("1½", Quantity(1.5, None, None), id="unicode-mixed"),
        pytest.param("2 lb", Quantity(2.0, "lb", None), id="with-unit"),
        pytest.param("a pinch", Quantity(1.0, "pinch", None), id="a-pinch"),
        pytest.param("2-3", Quantity(2.0, None, "'2-3' is a range"), id="range-lower-bound"),
        pytest.param("2 to 3", Quantity(2.0, None, "'2 to 3' is a range"), id="range-words"),
        pytest.param("to taste", Quantity(None, None, "'to taste' is not a number"), id="words"),
        pytest.param("1/0", Quantity(None, None, "'1/0' is not a number"), id="zero-denominator"),
        pytest.param(None, Quantity(None, None, None), id="none"),
    ],
)
def test_quantities_are_parsed(written: Any, expected: Quantity) -> None:
    """Numbers, fractions and ranges read deterministically; what is not read exactly says why."""
    assert parse_quantity(written) == expected


@pytest.mark.parametrize(
    ("written", "minutes"),
    [
        pytest.param("25", 25, id="digits"),
        pytest.param("1 hr 15 min", 75, id="hours-minutes"),
        pytest.param("1.5 hours", 90, id="decimal-hours"),
        pytest.param("PT1H5M", 65, id="iso-8601"),
        pytest.param("1h30m", 90, id="compact"),
    ],
)
def test_durations_are_parsed_to_minutes(written: str, minutes: int) -> None:
    """Recipe times arrive in many spellings and are stored as whole minutes."""
    assert parse_minutes(written) == minutes


def test_unknown_unit_is_kept_with_a_warning() -> None:
    """An unknown unit is never dropped: it is saved as written and the warning names it."""
    result = compiled("gen_recipe_1", recipe_with(ingredients=[{"name": "butter", "quantity": 1, "unit": "Knob"}]))
    assert root(result).children[0].data["unit"] == "knob"
    assert result.warnings == ("gen_recipe_1: ingredients[0] ('butter') unit 'Knob' is not a known unit; kept as 'knob'.",)


def test_quantity_with_its_own_unit_fills_a_missing_unit() -> None:
    """'2 lb' with no unit is 2 lb, silently; with a different unit the text is kept in notes."""
    same = compiled("gen_shop_1", {"name": "cod", "quantity": "2 lb"})
    assert (root(same).data["quantity"], root(same).data["unit"], same.warnings) == (2.0, "lb", ())
    clash = compiled("gen_shop_1", {"name": "cod", "quantity": "2 lb", "unit": "oz"})
    assert (root(clash).data["unit"], root(clash).data["notes"]) == ("oz", "2 lb")
    assert clash.warnings == (
        "gen_shop_1: quantity '2 lb' names the unit 'lb' but unit is 'oz'; saved 2, kept '2 lb' in notes.",
    )


def test_catalog_category_wins_and_a_different_draft_category_is_warned() -> None:
    """Categories come from the catalog when an ingredient matches; a differing draft category is reported."""
    ingredients = [{"name": "cod", "category": "seafood"}, {"name": "yuzu", "category": "citrus"}]
    result = compiled("gen_recipe_1", recipe_with(ingredients=ingredients))
    assert [c.data.get("category") for c in root(result).children] == ["fish", "citrus"]
    assert result.warnings == ("gen_recipe_1: ingredients[0] ('cod') category 'seafood' replaced by the catalog's 'fish'.",)


# -- other kinds ------------------------------------------------------------------------------


def test_meal_plan_keeps_a_gen_recipe_ref_for_the_saver() -> None:
    """A meal can point at a recipe draft; the compiler leaves the ref for the saver to substitute."""
    content = {"date": "2026-01-14", "meal_type": "Dinner", "recipe": "gen_recipe_2", "servings": 2, "notes": "more sauce"}
    result = compiled("gen_meal_2", content)
    assert root(result) == CompiledRow(
        "meal_plans",
        {"date": "2026-01-14", "meal_type": "dinner", "recipe_id": "gen_recipe_2", "servings": 2, "notes": "more sauce"},
    )
    assert_schema_valid(result)


def test_task_compiles_with_its_refs() -> None:
    """Task links stay refs; the due date is ISO."""
    content = {"title": "Thaw the cod", "due": "2026-01-13", "category": "prep", "recipe": "recipe_3", "meal_plan": "gen_meal_2"}
    result = compiled("gen_task_1", content)
    assert root(result).data == {
        "title": "Thaw the cod", "due_date": "2026-01-13", "category": "prep",
        "recipe_id": "recipe_3", "meal_plan_id": "gen_meal_2",
    }
    assert_schema_valid(result)


def test_shopping_item_gets_a_store_section_and_catalog_ref() -> None:
    """Shopping categories map to store sections; the catalog ref is attached, its fine category is not."""
    content = {"name": "Lemons", "quantity": 3, "category": "Fruit", "source": "Lemon Butter Cod", "checked": False}
    result = compiled("gen_shop_1", content)
    assert root(result).data == {
        "name": "Lemons", "quantity": 3.0, "category": "produce", "source": "Lemon Butter Cod",
        "is_purchased": False, "ingredient_id": "ing_4",
    }
    assert_schema_valid(result)


def test_inventory_item_compiles_with_normalized_unit_and_location() -> None:
    """A pantry item: canonical unit, allowed location, dates, catalog ref and category."""
    result = compiled(
        "gen_inv_1",
        {
            "name": "unsalted butter", "quantity": "1 1/2", "unit": "sticks",
            "location": "Refrigerator", "expiration_date": "2026-03-01",
        },
    )
    assert root(result).data == {
        "name": "unsalted butter", "quantity": 1.5, "unit": "stick", "location": "fridge", "expiry_date": "2026-03-01",
        "category": "dairy", "ingredient_id": "ing_5",
    }
    assert_schema_valid(result)


def test_unknown_location_is_left_empty_and_kept_in_notes() -> None:
    """A storage place that fits no location is warned and kept in the item's notes."""
    result = compiled("gen_inv_1", {"name": "rice", "quantity": 2, "unit": "kg", "location": "garage", "notes": "big sack"})
    assert "location" not in root(result).data
    assert root(result).data["notes"] == "big sack; location: garage"
    assert result.warnings == (
        "gen_inv_1: location: 'garage' is not one of pantry, fridge, freezer, counter, cabinet; left out, kept in notes.",
    )


def test_saved_or_discarded_draft_is_not_compiled_again() -> None:
    """Compiling a saved draft would save the same entity twice; it is refused, naming the saved ref."""
    saved = mark_draft_saved(new_draft("gen_recipe_1", HONEY_GARLIC_COD, turn=1), "recipe_4")
    with pytest.raises(StateError) as caught:
        compile_draft(saved, CATALOG)
    assert "recipe_4" in caught.value.message


# -- catalog matching -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "match"),
    [
        pytest.param("Cod", CatalogMatch("ing_1", "fish"), id="exact-case"),
        pytest.param("cod fillets", CatalogMatch("ing_1", "fish"), id="alias-plural"),
        pytest.param("tomatoes", CatalogMatch("ing_10", "vegetables"), id="oes-plural"),
        pytest.param("mixed berries", CatalogMatch("ing_11", "fruit"), id="ies-plural"),
        pytest.param("boneless chicken thighs", CatalogMatch("ing_7", "poultry"), id="longest-phrase"),
        pytest.param("chicken breast", CatalogMatch("ing_6", "poultry"), id="shorter-phrase"),
        pytest.param("scallions", CatalogMatch("ing_13", "alliums"), id="alias"),
        pytest.param("Extra-Virgin Olive Oil", CatalogMatch("ing_3", "oils"), id="punctuation"),
        pytest.param("codfish", None, id="whole-words-only"),
        pytest.param("saffron", None, id="no-match"),
    ],
)
def test_catalog_matches_whole_words_longest_first(name: str, match: CatalogMatch | None) -> None:
    """Exact names and aliases, case and plural folded, then the longest catalog phrase in the name."""
    assert CATALOG.match(name) == match


def test_catalog_match_does_not_depend_on_row_order() -> None:
    """Duplicate names resolve to the lowest ref, names beat aliases, whatever order rows arrive in."""
    rows = [
        {"ref": "ing_30", "name": "scallion", "category": "onions"},
        {"ref": "ing_20", "name": "Scallions", "category": "alliums"},
        *CATALOG_ROWS,
    ]
    expected = CatalogIndex(rows).match("scallion")
    assert expected == CatalogMatch("ing_20", "alliums")
    for seed in range(5):
        shuffled = rows[:]
        random.Random(seed).shuffle(shuffled)
        assert CatalogIndex(shuffled).match("scallion") == expected


def test_catalog_rows_need_ingredient_refs() -> None:
    """The compiler is refs-only: a catalog row must carry an ing_ ref, never a raw id."""
    with pytest.raises(InvalidRefError) as caught:
        CatalogIndex([{"ref": "3f1b2c4d-1111-2222-3333-444455556666", "name": "cod"}])
    assert "3f1b2c4d" not in caught.value.message


def test_plurals_fold_to_one_key() -> None:
    """Singular and plural share a key, so either spelling matches the other."""
    pairs = [
        ("berry", "berries"), ("cookie", "cookies"), ("olive", "olives"),
        ("peach", "peaches"), ("tomato", "tomatoes"), ("cheese", "cheeses"),
    ]
    for singular, plural in pairs:
        assert folded_words(singular) == folded_words(plural)
    assert folded_words("hummus") == ("hummus",) and folded_words("bass") == ("bass",)


# -- determinism and the property -------------------------------------------------------------


def test_same_draft_compiles_to_equal_output() -> None:
    """Compiling is a pure function: twice, and with the catalog rows shuffled, the result is equal."""
    draft = new_draft("gen_recipe_3", PIRI_PIRI_FISH, turn=1)
    shuffled = CATALOG_ROWS[::-1]
    assert compile_draft(draft, CATALOG) == compile_draft(draft, CATALOG) == compile_draft(draft, CatalogIndex(shuffled))


def test_tag_columns_cannot_overflow() -> None:
    """Every tag a draft can carry fits the tags column, even when all of them move there."""
    assert 5 * MAX_TAGS + 2 <= MAX_ARRAY


_text = st.text(min_size=1, max_size=40).filter(str.strip)
_tag_words = st.one_of(
    _text.map(lambda s: s[:50]), st.sampled_from(["Weeknight", "veggie", "GF", "Hot", "date night", "Air Fryer"])
)
_quantities = st.one_of(
    st.none(),
    st.integers(min_value=0, max_value=10**6),
    st.floats(min_value=0, max_value=1e6, allow_nan=False, allow_infinity=False),
    st.sampled_from(["1 1/2", "½", "2-3", "1-1/2", "to taste", "2 lb", "a pinch", "3/4 cup"]),
    st.text(max_size=40),
)
_ingredients = st.fixed_dictionaries(
    {"name": st.text(min_size=1, max_size=200).filter(str.strip)},
    optional={
        "quantity": _quantities,
        "unit": st.one_of(
            st.sampled_from(["Tbsp", "cups", "lbs.", "cloves", "knob", "T"]), st.text(min_size=1, max_size=20).filter(str.strip)
        ),
        "notes": st.text(max_size=500),
        "is_optional": st.booleans(),
        "category": st.text(max_size=100),
    },
)
_recipes = st.fixed_dictionaries(
    {
        "name": st.text(min_size=1, max_size=200).filter(str.strip),
        "ingredients": st.lists(_ingredients, min_size=1, max_size=15),
        "instructions": st.lists(st.text(min_size=1, max_size=300).filter(str.strip), min_size=1, max_size=10),
    },
    optional={
        "description": st.text(max_size=300),
        "cuisine": st.one_of(st.sampled_from([*CUISINES, "Tex-Mex", "Middle Eastern", "Portuguese"]), _text),
        "difficulty": st.one_of(st.sampled_from(["Beginner", "hard", "moderate"]), _text),
        "prep_time_minutes": st.integers(min_value=0, max_value=10_000),
        "cook_time_minutes": st.integers(min_value=0, max_value=10_000),
        "servings": st.integers(min_value=1, max_value=1_000),
        "tags": st.lists(_tag_words, max_size=MAX_TAGS),
        "occasions": st.lists(st.one_of(st.sampled_from(OCCASIONS), _tag_words), max_size=MAX_TAGS),
        "health_tags": st.lists(st.one_of(st.sampled_from(HEALTH_TAGS), _tag_words), max_size=MAX_TAGS),
        "flavor_tags": st.lists(st.one_of(st.sampled_from(FLAVOR_TAGS), _tag_words), max_size=MAX_TAGS),
        "equipment_tags": st.lists(_tag_words, max_size=MAX_TAGS),
        "notes": st.text(max_size=300),
        "source_url": st.just("https://example.com/cod"),
        "parent_recipe": st.sampled_from(["recipe_3", "gen_recipe_2"]),
    },
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_recipes)
def test_any_valid_recipe_compiles_to_valid_rows_that_map_back(content: dict[str, Any]) -> None:
    """Every valid recipe draft compiles to schema-valid rows; ingredients map back one-to-one, in order; no tag is lost."""
    draft = new_draft("gen_recipe_1", content, turn=1)
    result = compile_draft(draft, CATALOG)
    assert_schema_valid(result)
    row, source = root(result), draft.content
    assert row.data["name"] == source["name"]
    assert row.data["instructions"] == source["instructions"]
    assert [c.data["position"] for c in row.children] == list(range(1, len(source["ingredients"]) + 1))
    for child, ingredient in zip(row.children, source["ingredients"], strict=True):
        assert child.data["name"] == ingredient["name"]
        assert child.data.get("quantity") == parse_quantity(ingredient["quantity"]).value
        assert child.data["is_optional"] == ingredient["is_optional"]
        assert not ingredient["notes"] or child.data["notes"].endswith(ingredient["notes"])
    _assert_no_tag_lost(row.data, source)
    assert compile_draft(draft, CATALOG) == result


def _assert_no_tag_lost(data: dict[str, Any], source: dict[str, Any]) -> None:
    tags = {tag.lower() for tag in data["tags"]}
    assert {tag.lower() for tag in source["tags"]} <= tags
    for column, vocabulary in (("occasions", OCCASION), ("health_tags", HEALTH), ("flavor_tags", FLAVOR)):
        for value in source[column]:
            assert vocabulary.lookup(value)[0] in data[column] or value.lower() in tags
    if source["cuisine"] is not None:
        assert CUISINE.lookup(source["cuisine"])[0] == data["cuisine"] or source["cuisine"].lower() in tags

