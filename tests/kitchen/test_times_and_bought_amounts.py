"""Times as a person reads them ('1 hr 20 min') wherever one is shown, and fresh produce on a shopping list as the
shop sells it, for every taxonomy section: generated cases, each line judged by `kitchen/odd_amounts.py`."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alfred_mcp.agent.quick_answer import quick_answer
from alfred_mcp.kitchen.bought_as import purchase_of
from alfred_mcp.kitchen.measures import Amount, amount_to_buy, line_text, needed, to_buy
from alfred_mcp.kitchen.odd_amounts import oddities
from alfred_mcp.kitchen.recipe_times import duration_text
from alfred_mcp.kitchen.schema_org import markdown_from_rows
from alfred_mcp.kitchen.seed import demo_kitchen
from alfred_mcp.kitchen.taxonomy import default_taxonomy
from alfred_mcp.kitchen.units import KNOWN_UNITS, parse_minutes
from alfred_mcp.kitchen.view_texts import recipe_text
from alfred_mcp.operations.scaling import scaled_line
from tests.e2e.conftest import TODAY

A_TIME = re.compile(r"^(?:[1-9][0-9]* hr(?: [1-5]?[0-9] min)?|[1-5]?[0-9] min)$")
MINUTES = st.integers(min_value=0, max_value=10_000)
TAXONOMY = default_taxonomy()
CATEGORIES = TAXONOMY.categories()
UNITS = sorted(KNOWN_UNITS) + [None]
RECIPES = demo_kitchen(TODAY).recipes


@given(MINUTES)
def test_a_time_is_written_in_hours_and_minutes_and_reads_back_as_the_minutes(minutes: int) -> None:
    text = duration_text(minutes)
    assert A_TIME.match(text), text
    assert parse_minutes(text) == minutes


@pytest.mark.parametrize(("minutes", "text"), [(0, "0 min"), (45, "45 min"), (60, "1 hr"), (80, "1 hr 20 min"), (85, "1 hr 25 min"),
                                               (125, "2 hr 5 min")])
def test_the_times_the_cook_quoted_read_as_a_cook_writes_them(minutes: int, text: str) -> None:
    assert duration_text(minutes) == text


def _times_shown(text: str) -> list[str]:
    return re.findall(r"(?:Prep|Cook|Total|prep|cook|total) ((?:\d+ hr)?(?: ?\d+ min)?)", text)


@given(st.none() | MINUTES.filter(bool), st.none() | MINUTES.filter(bool), st.none() | MINUTES.filter(bool))
def test_a_recipe_card_and_its_markdown_show_every_time_in_hours_and_minutes(prep: int | None, cook: int | None,
                                                                              total: int | None) -> None:
    recipe = {"name": "Stew", "recipe": "recipe_1", "ingredients": [], "steps": [], "allergens": [], "conflicts": [],
              "prep_time_minutes": prep, "cook_time_minutes": cook, "total_time_minutes": total}
    card = recipe_text(recipe)
    markdown = markdown_from_rows(recipe, [])
    for text in (card, markdown):
        assert all(A_TIME.match(shown.strip()) for shown in _times_shown(text)), text
    expected_total = total or ((prep or 0) + (cook or 0) if prep and cook else None)
    assert (f"total {duration_text(expected_total)}" in card) if expected_total else "total" not in card


@given(MINUTES.filter(bool))
def test_a_quick_answer_gives_a_recipes_time_in_hours_and_minutes(minutes: int) -> None:
    answer = quick_answer({"table": "recipes", "rows": [{"id": "recipe_1", "name": "Stew", "total_time_minutes": minutes}]})
    assert duration_text(minutes) in answer
    if minutes >= 60:
        assert f"{minutes} min" not in answer


@pytest.mark.parametrize("category", CATEGORIES)
@settings(max_examples=100)
@given(data=st.data(), unit=st.sampled_from(UNITS), quantity=st.floats(min_value=0.05, max_value=400))
def test_every_taxonomy_section_is_listed_in_a_unit_you_can_buy(category: str, data: st.DataObject, unit: str | None,
                                                                 quantity: float) -> None:
    """Every category's members (fresh and in other forms), in every unit: no shopping line reads oddly, fresh produce
    is listed as the shop sells it (a bunch, a piece, a pack, the thing itself) with the amount needed after it, as
    the recipe card writes it."""
    member = data.draw(st.sampled_from(TAXONOMY.category(category).members) | st.sampled_from(
        [f"{form} {name}" for name in TAXONOMY.category(category).members for form in ("fresh", "dried", "chopped")]))
    text = line_text(quantity, unit, member, buying=True)
    shown = to_buy(Amount(quantity, unit), member)
    assert oddities(text, shown.quantity, shown.unit, member, shopping=True) == [], (category, text)
    if shown.bought is not None:
        purchase = purchase_of(member)
        need = needed(Amount(quantity, unit), member).text  # the recipe card's amount (cook's QA F10)
        need = shown.text if "-oz) can" in need else need
        taken = text[: -len(member)].strip()
        if need == taken:  # '1 pint blueberries', not '1 pint blueberries (need 1 pint)'
            assert purchase is not None and amount_to_buy(quantity, unit, member) == need
        else:
            assert purchase is not None and text.endswith(f"(need {need})")
            assert amount_to_buy(quantity, unit, member).endswith(f", need {need}")


@pytest.mark.parametrize(("quantity", "unit", "name", "text"), [
    (1.5, "tsp", "ginger", "1 piece ginger (need 1 1/2 tsp)"), (0.75, "tsp", "thyme", "1 bunch thyme (need 3/4 tsp)"),
    (1, "oz", "cremini mushrooms", "1 pack cremini mushrooms (need 1 oz)"), (3, "tbsp", "ginger", "1 piece ginger (need 3 tbsp)"),
    (2, "handful", "fresh cilantro", "1 bunch fresh cilantro (need 2 handfuls)"), (18, "cup", "vegetable broth", "5 cartons vegetable broth (need 4 quarts 2 cups)"),
    (9, "oz", "cremini mushrooms", "2 packs cremini mushrooms (need 9 oz)"), (0.5, "cup", "red onion", "1 red onion (need 1/2 cup)"),
    (1.5, "cup", "chopped onion", "2 chopped onions (need 1 1/2 cups)"), (2, "stalk", "celery", "1 bunch celery (need 2 stalks)"),
    (1, "tsp", "ground ginger", "1 jar ground ginger (need 1 tsp)"), (2, "tsp", "dried thyme", "1 jar dried thyme (need 2 tsp)"),
    (2, "tsp", "oregano", "1 jar oregano (need 2 tsp)"),
    (3, None, "shallots", "3 shallots"), (3, None, "green onions", "1 bunch green onions (need 3)"), (2, "head", "baby bok choy", "2 heads baby bok choy"),
    (42, "oz", "crushed tomatoes", "3 cans crushed tomatoes (need 2 3/4 lb)"), (1, "cup", "coconut milk", "1 can coconut milk (need 1 cup)"),
    (6, "cup", "chicken broth", "2 cartons chicken broth (need 6 cups)"),
])
def test_the_lines_the_cook_quoted_are_listed_as_the_shop_sells_them(quantity: float, unit: str | None, name: str, text: str) -> None:
    assert line_text(quantity, unit, name, buying=True) == text


@pytest.mark.parametrize(("ounces", "text"), [
    (14, "1 (14-oz) can crushed tomatoes"), (21, "1 1/2 (14-oz) cans crushed tomatoes"), (28, "2 (14-oz) cans crushed tomatoes"),
    (42, "3 (14-oz) cans crushed tomatoes"), (17.5, "1 1/4 (14-oz) cans crushed tomatoes"), (7, "1/2 (14-oz) can crushed tomatoes"), (5, "5 oz crushed tomatoes"),
    (16, "1 lb crushed tomatoes"),
])
def test_a_recipes_canned_goods_are_written_in_cans_when_the_weight_is_quarter_cans_from_half_a_can(ounces: float, text: str) -> None:
    assert line_text(ounces, "oz", "crushed tomatoes") == text


@given(st.sampled_from(RECIPES), st.integers(min_value=1, max_value=40))
def test_every_seed_recipe_at_any_servings_reads_as_a_cook_writes_it(recipe: object, servings: int) -> None:
    base = recipe.row["servings"]  # type: ignore[attr-defined]
    for row in recipe.ingredients:  # type: ignore[attr-defined]
        line = scaled_line(row, servings / base)
        assert oddities(line["text"], line["quantity"], line["unit"], line["name"], shopping=False,
                        exact=line.get("rounded_from"), notes=line.get("notes")) == [], (servings, line["text"])


@pytest.mark.parametrize("name", ["cherry tomatoes", "grape tomatoes", "cherry tomato"])
@pytest.mark.parametrize(("quantity", "unit"), [(0.25, "pint"), (1, "pint"), (1.25, "pint"), (2, "cup"), (12, None), (30, None)])
def test_cherry_tomatoes_are_bought_by_the_pint_never_one_by_one(name: str, quantity: float, unit: str | None) -> None:
    """Cook's QA 2 G20: '3 cherry tomatoes (need 1 1/4 pints)' was the line; a shopper takes whole pints (a pint is
    about 2 cups, 25 tomatoes), as many as hold the need, and the need is the card's."""
    text = line_text(quantity, unit, name, buying=True)
    shown = to_buy(Amount(quantity, unit), name)
    assert shown.bought is not None and shown.bought[1] == "pint", text
    assert re.match(rf"^\d+ pints? {re.escape(name)}(?: \(need |$)", text), text  # '1 pint', not '(need 1 pint)'
    assert oddities(text, shown.quantity, shown.unit, name, shopping=True) == [], text


@pytest.mark.parametrize("name", ["cherry tomatoes", "grape tomatoes", "blueberries", "raspberries"])
@pytest.mark.parametrize("pints", [0.25, 0.5, 0.75, 1, 1.25, 1.5, 2, 2.5, 3.75])
@pytest.mark.parametrize("factor", [1, 1.25, 0.5, 2.5])
def test_a_card_keeps_the_pints_a_recipe_buys_by(name: str, pints: float, factor: float) -> None:
    """The scaled card wrote '2 1/2 cups cherry tomatoes' for a recipe's 1 1/4 pints: what the shop sells by the pint
    stays in pints on the card (quarters; below a quarter pint, cups), and the list's need quotes the card; never a need
    equal to what is taken."""
    from alfred_mcp.kitchen.measures import sensible

    assert purchase_of(name) is not None and purchase_of(name).unit == "pint"  # type: ignore[union-attr]
    amount = Amount(pints * factor, "pint")
    shown = sensible(amount, name)
    if amount.quantity < 0.25:  # less than a quarter pint is measured: '1/4 cup'
        assert shown.unit in ("cup", "tbsp", "tsp"), shown
    else:
        assert shown.unit == "pint" and abs(shown.quantity * 4 - round(shown.quantity * 4)) < 1e-9, shown
        assert abs(shown.quantity - amount.quantity) <= 0.125 + 1e-9, shown
    text = line_text(amount.quantity, "pint", name, buying=True)
    assert oddities(text, to_buy(amount, name).quantity, "pint", name, shopping=True) == [], text
    need = re.search(r"\(need (.+)\)$", text)
    assert need is None or need.group(1) == needed(amount, name).text and not need.group(1).startswith(text.split(" ")[0] + " pint"), text


@pytest.mark.parametrize("name", ["bacon", "thick-cut bacon", "smoked bacon", "turkey bacon"])
@pytest.mark.parametrize("unit", ["slice", "strip"])
@pytest.mark.parametrize("count", [1, 4, 9, 12, 13, 30])
def test_bacon_counted_by_the_slice_is_bought_by_the_pack(name: str, unit: str, count: int) -> None:
    """Cook's QA 2 G26: '9 slices bacon' was the line; a shopper takes packs (about 12 slices each) and the list says
    the slices needed after it, as it does for tortillas; by weight it is bought as written."""
    text = line_text(count, unit, name, buying=True)
    packs = -(-count // 12)
    assert text.startswith(f"{packs} pack{'s' if packs > 1 else ''} {name} (need {count} "), text
    assert oddities(text, to_buy(Amount(count, unit), name).quantity, unit, name, shopping=True) == [], text
    assert line_text(8, "oz", name, buying=True) == f"8 oz {name}"
