"""Ingredient lines read and written as a cook does: the count of a part ('3 garlic cloves' is 3 cloves of garlic), a
size before the unit ('a thumb-sized piece of ginger'), 'half a lemon', and on the card the size, package size and
range in the line ('1 large onion, finely chopped', '1 (14-oz) can coconut milk', '2–3 tbsp curry powder')."""

from __future__ import annotations

import itertools
import re
from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from alfred_mcp.kitchen.bought_as import can_size
from alfred_mcp.kitchen.card_lines import _QUALITY, _SIZE_OF_THING, PACKAGES, card_line
from alfred_mcp.kitchen.ingredient_lines import PART_UNITS, parse_ingredient_line
from alfred_mcp.kitchen.measures import Amount, dimension, line_text, part_can_use
from alfred_mcp.kitchen.plurals import plural
from alfred_mcp.kitchen.schema_org import draft_from_recipe
from alfred_mcp.kitchen.seed import demo_kitchen
from alfred_mcp.kitchen.taxonomy import ingredient_words

NAMES = ["garlic", "celery", "fresh thyme", "cilantro", "romaine lettuce", "ginger"]
SIZES = ["small", "large", "thumb-sized", "heaping", "scant", "1-inch"]
UNITS = ["piece", "tbsp", "tsp", "cup", "can", "slice", "clove"]


@pytest.mark.parametrize(("unit", "name"), list(itertools.product(sorted(PART_UNITS), NAMES)))
@pytest.mark.parametrize("count", [1, 3])
def test_a_name_ending_with_a_part_counts_that_part_of_the_thing_the_pantry_holds(unit: str, name: str, count: int) -> None:
    """'3 garlic cloves' is 3 cloves of garlic, so it compares with the pantry's heads of garlic."""
    word = unit if count == 1 else plural(unit)
    line = parse_ingredient_line(f"{count} {name} {word}, chopped")
    assert (line.quantity, line.unit, line.name, line.notes) == (count, unit, name, "chopped")


@pytest.mark.parametrize(("size", "unit"), list(itertools.product(SIZES, UNITS)))
@pytest.mark.parametrize("article", ["1", "a"])
def test_a_size_before_the_unit_is_a_note_and_the_unit_still_reads(size: str, unit: str, article: str) -> None:
    line = parse_ingredient_line(f"{article} {size} {unit} of fresh ginger, grated")
    assert (line.quantity, line.unit, line.name, line.notes) == (1.0, unit, "fresh ginger", f"{size}; grated")


@pytest.mark.parametrize(("part", "note"), [("juice", "juiced"), ("zest", "zested")])
@pytest.mark.parametrize(("amount", "quantity"), [("half a", 0.5), ("half an", 0.5), ("1", 1.0), ("2", 2.0), ("a", 1.0)])
@pytest.mark.parametrize("fruit", ["lemon", "orange", "lime"])
def test_the_juice_or_zest_of_a_fruit_is_the_fruit_juiced_or_zested(part: str, note: str, amount: str, quantity: float, fruit: str) -> None:
    written = fruit if quantity <= 1 else plural(fruit)
    line = parse_ingredient_line(f"{part} of {amount} {written}")
    assert (line.quantity, line.name.rstrip("s"), line.notes) == (quantity, fruit, note)


LINES = st.tuples(
    st.sampled_from([0.5, 1.0, 1.5, 2.0, 3.0]),
    st.sampled_from([None, "piece", "tbsp", "cup", *sorted(PACKAGES & {"can", "jar", "bag"})]),
    st.sampled_from(["onion", "coconut milk", "curry powder", "chicken thighs", "basmati rice"]),
    st.sampled_from([None, *SIZES]),
    st.sampled_from([None, "14 oz", "400 g"]),
    st.booleans(),
    st.sampled_from([None, "finely chopped", "to taste", "drained"]),
)


@given(LINES)
def test_a_card_line_says_size_package_and_range_where_a_cook_does_and_reads_back_the_same(
    parts: tuple[float, str | None, str, str | None, str | None, bool, str | None],
) -> None:
    """Whatever the stored notes hold, the card line has the size, the package size and the range in the amount, the
    rest after a comma; the line as shown reads back to the same name, unit and notes."""
    quantity, unit, name, size, package, ranged, rest = parts
    span = f"{quantity:g}-{quantity + 1:g}" if ranged and quantity == int(quantity) else None
    notes = "; ".join(part for part in (size, package, span, rest) if part) or None
    shown = card_line(line_text(quantity, unit, name), quantity, unit, name, notes, written=Amount(quantity, unit))
    whole = f"{shown.text}, {shown.notes}" if shown.notes else shown.text
    assert "; " not in shown.text and (size is None or size in shown.text)
    if span is not None:
        assert shown.text.startswith(span.replace("-", "–"))
    if package is not None and unit in PACKAGES:
        assert f"({package.replace(' oz', '-oz')})" in shown.text
    if rest == "to taste":
        assert shown.text.endswith(" to taste")
    read = parse_ingredient_line(whole)
    assert ingredient_words(read.name) == ingredient_words(name) and dimension(read.unit or "piece") == dimension(unit or "piece")
    # (a count is pieces, said or not; line_text may say 1/2 tbsp as 1 1/2 tsp)
    if span is None:  # a can says which can at any count ('1/2 (13.5-oz) can coconut milk'): its size reads back too
        said = [f"{ounces:g} oz"] if unit == "can" and package is None and (ounces := can_size(name)) else []
        use = part_can_use(shown.text, name)  # part of a can says what to open and measure
        expected = [*said, *(notes.split("; ") if notes else []), *([use] if use else [])] or [""]
        assert sorted((read.notes or "").replace("-oz", " oz").split("; ")) == sorted(expected)


def test_the_curry_a_cook_pasted_reads_as_a_cook_wrote_it() -> None:
    """The cook QA's curry: sizes, cans, the range and 'to taste' in their places; the yield's range is said."""
    lines = ["1 large onion, finely chopped", "3 garlic cloves, minced", "1 thumb-sized piece of ginger, grated",
             "1 (14 oz) can coconut milk", "1 can (400 g) chopped tomatoes", "2-3 tbsp curry powder",
             "1 1/2 cups (190 g) basmati rice", "Salt and pepper to taste", "juice of half a lemon"]
    draft, warnings = draft_from_recipe({"@type": "Recipe", "name": "Curry", "recipeYield": "Serves 4-6", "recipeIngredient": lines,
                                         "recipeInstructions": ["Cook."]}, source_url=None)
    shown = []
    for item in draft["ingredients"]:
        quantity = item.get("quantity")
        number = float(str(quantity).split("-")[0]) if quantity is not None else None
        text = line_text(number, item.get("unit"), item["name"])
        notes = "; ".join(part for part in (str(quantity) if isinstance(quantity, str) else None, item.get("notes")) if part)
        card = card_line(text, number, item.get("unit"), item["name"], notes or None,
                         written=None if number is None else Amount(number, item.get("unit")))
        shown.append(f"{card.text}, {card.notes}" if card.notes else card.text)
    assert shown == ["1 large onion, finely chopped", "3 cloves garlic, minced", "1 thumb-sized piece ginger, grated",
                     "1 (14-oz) can coconut milk", "1 (400 g) can chopped tomatoes", "2–3 tbsp curry powder",
                     "1 1/2 cups (190 g) basmati rice", "Salt and pepper to taste", "1/2 lemon, juiced"]
    assert draft["servings"] == 4 and any("'Serves 4-6' is a range" in warning for warning in warnings)


@pytest.mark.parametrize(("factor", "expected"), [(1.0, "2–3 tbsp curry powder"), (2.0, "4–6 tbsp curry powder"),
                                                  (1.25, "2 1/2–3 3/4 tbsp curry powder"), (0.5, "1–1 1/2 tbsp curry powder")])
def test_a_range_scales_both_ends_in_the_unit_it_was_written_in(factor: float, expected: str) -> None:
    """recipes_scale: '2-3 tbsp' for twice the servings is '4–6 tbsp', not '1/4 cup, 2-3'."""
    scaled = 2.0 * factor
    text = line_text(scaled, "tbsp", "curry powder")
    assert card_line(text, scaled, "tbsp", "curry powder", "2-3", written=Amount(2.0, "tbsp"), factor=factor) == (expected, None)


AMOUNTS = {"1": 1.0, "2": 2.0, "1 1/2": 1.5, "½": 0.5, "a": 1.0, "3/4": 0.75}


@given(st.sampled_from(sorted(AMOUNTS)), st.sampled_from([None, "(14 oz)", "(400 g)"]), st.sampled_from([None, *SIZES]),
       st.sampled_from([None, "cup", "tbsp", "can", "piece", "clove", "bunch"]),
       st.sampled_from(["garlic", "coconut milk", "chopped tomatoes", "fresh ginger", "basmati rice", "chicken thighs"]),
       st.sampled_from([None, "finely chopped", "drained", "to taste"]), st.booleans())
def test_a_line_as_a_cook_writes_it_reads_into_amount_unit_name_and_notes(
    amount: str, package: str | None, size: str | None, unit: str | None, name: str, notes: str | None, of: bool,
) -> None:
    """'1 (14 oz) large can of coconut milk, drained' -> 1, can, coconut milk, notes '14 oz; large; drained': whatever
    a cook puts around the name, the name is what the pantry holds."""
    if unit is None and (size is not None and size[0].isdigit() or package is not None):
        size, package = None, None  # '1 1-inch garlic' and '1 (14 oz) garlic' are not lines a cook writes
    words = [amount, package, size, unit, "of" if of and unit else None, name]
    text = " ".join(word for word in words if word) + (f", {notes}" if notes else "")
    line = parse_ingredient_line(text)
    assert (line.quantity, line.unit, line.name) == (AMOUNTS[amount], unit, name), text
    said = [part for part in (package and package.strip("()"), size, notes) if part]
    assert (line.notes or "").split("; ") == (said or [""]), text


def _seed_lines() -> list[tuple[str, dict[str, object]]]:
    kitchen = demo_kitchen(date(2026, 11, 27))
    return [(str(recipe.row["name"]), dict(part)) for recipe in kitchen.recipes for part in recipe.ingredients]


@pytest.mark.parametrize(("recipe", "part"), _seed_lines(), ids=lambda value: value if isinstance(value, str) else str(value.get("name")))
@pytest.mark.parametrize("factor", [0.25, 0.5, 1.0, 2.0, 3.0])
def test_every_seed_card_line_says_size_and_quality_before_the_name_and_names_places_with_capitals(
    recipe: str, part: dict[str, object], factor: float,
) -> None:
    """Every line of every demo recipe, at several servings, reads as an imported one does: '3 large eggs, plus 1
    extra yolk', '1/2 cup dry white wine', 'Greek yogurt', 'Yukon Gold potatoes' — no size or quality left at the
    head of the notes, no place name in lower case."""
    quantity = None if part.get("quantity") is None else float(part["quantity"]) * factor  # type: ignore[arg-type]
    unit, name, notes = part.get("unit"), str(part["name"]), part.get("notes")
    shown = card_line(line_text(quantity, unit, name), quantity, unit, name, notes,  # type: ignore[arg-type]
                      written=None if quantity is None else Amount(float(part["quantity"]), unit), factor=factor)  # type: ignore[arg-type]
    head = (shown.notes or "").split("; ")[0].split(", ")[0].strip()
    if quantity is not None:
        assert not (_SIZE_OF_THING.match(head) or (_QUALITY.match(head) and head.lower() not in name.lower())), (recipe, shown)
    for text in (shown.text, shown.notes or ""):
        assert not re.search(r"\b(greek|yukon gold|dijon|kalamata|parmigiano-reggiano)\b", text), (recipe, shown)


@pytest.mark.parametrize(("notes", "expected"), [
    ("large, plus 1 extra yolk", ("3 large eggs", "plus 1 extra yolk")),
    ("dry", ("3 dry eggs", None)),
    ("yukon gold, cut into wedges", ("3 Yukon Gold eggs", "cut into wedges")),
])
def test_a_leading_size_or_quality_in_notes_goes_before_the_name(notes: str, expected: tuple[str, str | None]) -> None:
    shown = card_line(line_text(3, "piece", "eggs"), 3, "piece", "eggs", notes)
    assert (shown.text, shown.notes) == expected
