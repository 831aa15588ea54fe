"""shopping_list_from as a cook meets it: an allergen line is left out (never the whole list), a line a person listed
counts for what it holds (topped up when short), and every note names the amounts with their noun."""

from __future__ import annotations

import re
from typing import Any

import pytest
from mcp import Client

from alfred_mcp.agent.act_tools import RESULT_CARD_BUDGET, UNCHANGED_ROWS, result_card

from .helpers import call, eq

pytestmark = pytest.mark.anyio

CONSENT = {"allergens": ["peanuts"], "reason": "the user accepts peanut oil for this"}
SPAN = {"from": "2031-06-01", "to": "2031-06-07"}


async def _recipe(client: Client, name: str, servings: int, ingredients: list[dict[str, Any]], **override: Any) -> str:
    created = await call(client, "db_create", table="recipes", data={"name": name, "servings": servings, "instructions": ["Cook."]}, **override)
    ref = str(created["rows"][0]["id"])
    await call(client, "db_create", table="recipe_ingredients", **override,
               data=[{"recipe_id": ref, "position": i + 1, **item} for i, item in enumerate(ingredients)])
    return ref


async def _lines(client: Client, name: str) -> list[dict[str, Any]]:
    return list((await call(client, "db_read", table="shopping_list", filters=[eq("name", name)], limit=10))["rows"])


def _by_meal_or_recipe(kind: str, ref: str) -> dict[str, Any]:
    return {"meal_plans": SPAN} if kind == "meal_plans" else {"recipes": [ref]}


@pytest.mark.parametrize("kind", ["meal_plans", "recipes"])
@pytest.mark.parametrize("preview", [True, False], ids=["preview", "add"])
async def test_a_line_holding_the_users_allergen_is_left_out_and_every_other_line_is_added(
    client: Client, kind: str, preview: bool,
) -> None:
    """The demo user is allergic to peanuts: the peanut oil line is left out, saying which meal and why in a cook's
    words, and the other lines are listed (a preview is never refused); with the user's consent it is added too."""
    noodles = await _recipe(client, "Quux Noodles", 2, [{"name": "peanut oil", "quantity": 2, "unit": "tbsp"},
                                                        {"name": "quuxnoodles", "quantity": 200, "unit": "g"}],
                            allergy_override=CONSENT)
    if kind == "meal_plans":
        await call(client, "db_create", table="meal_plans", allergy_override=CONSENT,
                   data={"date": "2031-06-06", "meal_type": "lunch", "recipe_id": noodles, "servings": 2})
    source = _by_meal_or_recipe(kind, noodles)
    result = await call(client, "shopping_list_from", preview=preview, **source)
    assert [line["name"] for line in result["lines"]] == ["quuxnoodles"]
    (left,) = result["left_out"]
    assert (left["name"], left["allergen"], left["recipes"]) == ("peanut oil", "peanuts", [noodles])
    where = "Quux Noodles (Fri Jun 6 lunch, for 2)" if kind == "meal_plans" else "Quux Noodles (for 2)"
    assert left["for"] == [where]
    assert left["text"] == f"Left out peanut oil, for {where}: it contains peanuts, and you are allergic to peanuts."
    assert left["text"] in result["message"] and "allergy_override" not in result["message"] and "data[" not in result["message"]
    assert await _lines(client, "peanut oil") == []
    assert len(await _lines(client, "quuxnoodles")) == (0 if preview else 1)
    consented = await call(client, "shopping_list_from", preview=preview, allergy_override=CONSENT, **source)
    assert "peanut oil" in [line["name"] for line in consented["lines"]] and "left_out" not in consented
    assert len(await _lines(client, "peanut oil")) == (0 if preview else 1)


@pytest.mark.parametrize(
    ("on_list", "needed", "expected"),
    [pytest.param((6, "oz"), (18, "oz"), ("updated", "1 1/4 lb quuxpancetta", "14 oz"), id="same-unit-short"),
     pytest.param((1, "lb"), (250, "g"), ("already", None, None), id="converted-enough"),
     pytest.param((2, "head"), (3, "head"), ("updated", "3 heads quuxbok choy", "1 head"), id="count-short"),
     pytest.param((1, "carton"), (6, "cup"), ("updated", "2 cartons quux broth (need 6 cups)", "1 carton"), id="shop-size-short"),
     pytest.param((1, "bag"), (24, None), ("already", "need 24 quuxtortillas, the list has 1 bag quuxtortillas: check it is enough", None), id="not-comparable")],
)
async def test_a_line_a_person_listed_for_the_recipe_counts_for_what_it_holds(
    client: Client, on_list: tuple[float, str], needed: tuple[float, str | None], expected: tuple[str, str | None, str | None],
) -> None:
    """A line whose source names the recipe without servings covers it only as far as its amount goes: short, it is
    topped up by the gap (the result says what was there and what is added), counted as the shop sells it where only
    that compares (a carton of broth is about 4 cups); in a unit that does not compare even so, it is
    left with both amounts named; ticked as bought, it is reported as bought, never as on the list."""
    name = {"oz": "quuxpancetta", "lb": "quuxpancetta", "head": "quuxbok choy", "bag": "quuxtortillas", "carton": "quux broth"}[on_list[1]]
    dish = await _recipe(client, "Quux Dish", 4, [{"name": name, "quantity": needed[0], "unit": needed[1]}])
    await call(client, "db_create", table="shopping_list",
               data={"name": name, "quantity": on_list[0], "unit": on_list[1], "source": "Quux Dish"})
    result = await call(client, "shopping_list_from", recipes=[dish])
    action, text, adds = expected
    if action == "updated":
        (line,) = result["lines"]
        assert (line["action"], line["text"], line["adds"]) == ("updated", text, adds)
        assert result["already_listed"] == []
    else:
        assert result["lines"] == [] and [item["name"] for item in result["already_listed"]] == [name]
        assert result["already_listed"][0].get("note") == text
    again = await call(client, "shopping_list_from", recipes=[dish])
    assert again["lines"] == [], "topped up once, the line holds what the recipe needs"
    await call(client, "db_update", table="shopping_list", filters=[eq("name", name)], data={"is_purchased": True})
    bought = await call(client, "shopping_list_from", recipes=[dish])
    (kept,) = bought["already_listed"]
    assert bought["lines"] == [] and kept["note"] == ("bought already" if text is None or action == "updated"
                                                      else text.replace("the list has", "bought"))


@pytest.mark.parametrize(("pantry", "needed", "noun"), [
    pytest.param((1, "lb"), (2, None), "2 quuxcarrots", id="count"),
    pytest.param((2, "carton"), (11, "cup"), "2 3/4 quarts quuxbroth", id="volume"),  # as recipes_scale says it
    pytest.param((1, "bottle"), (2, "tbsp"), "2 tbsp quuxoil", id="spoons"),
])
async def test_a_pantry_note_names_what_is_needed_with_its_noun(
    client: Client, pantry: tuple[float, str], needed: tuple[float, str | None], noun: str,
) -> None:
    name = noun.rsplit(" ", 1)[-1]
    dish = await _recipe(client, "Quux Soup", 2, [{"name": name, "quantity": needed[0], "unit": needed[1]}])
    await call(client, "db_create", table="inventory", data={"name": name, "quantity": pantry[0], "unit": pantry[1]})
    result = await call(client, "shopping_list_from", recipes=[dish], preview=True)
    (covered,) = result["covered"]
    assert covered["note"].startswith(f"need {noun}, the pantry has ") and covered["note"].endswith(": check there is enough")


@pytest.mark.parametrize("preview", [True, False], ids=["preview", "add"])
async def test_what_a_long_week_leaves_out_stands_in_acts_card_of_the_result(client: Client, preview: bool) -> None:
    """The demo week with a peanut meal: the card Act reads names every line and says which line was left out and why;
    past its budget, the cut names what it left out."""
    noodles = await _recipe(client, "Quux Noodles", 2, [{"name": "peanut oil", "quantity": 2, "unit": "tbsp"}], allergy_override=CONSENT)
    await call(client, "db_create", table="meal_plans", allergy_override=CONSENT,
               data={"date": "2026-01-16", "meal_type": "lunch", "recipe_id": noodles, "servings": 2})
    arguments = {"meal_plans": {"from": "2026-01-12", "to": "2026-01-18"}, "preview": preview}
    result = await call(client, "shopping_list_from", **arguments)
    card = result_card("shopping_list_from", arguments, result)
    assert len(result["lines"]) > 10 and all(line.get("ref", line["name"]) in card for line in result["lines"])
    counted = UNCHANGED_ROWS["covered"] in card  # the covered rows counted, with the read that lists them
    assert len(card) <= RESULT_CARD_BUDGET and ("not shown" in card or counted or all(c["name"] in card for c in result["covered"]))
    assert "Left out peanut oil, for Quux Noodles (Fri Jan 16 lunch, for 2): it contains peanuts" in card


GUESTS = {"occasion_update": "Saturday dinner", "goal_update": "a menu for Saturday", "goal_subdomain": "recipes",
          "new_constraints": [{"type": "allergy", "field": "guests", "value": ["sesame"], "lifetime": "occasion"}]}


@pytest.mark.parametrize("preview", [True, False], ids=["preview", "add"])
async def test_a_line_holding_the_guests_allergen_is_left_out_while_the_occasion_holds(client: Client, preview: bool) -> None:
    """The occasion's guests are allergic to sesame: the sesame oil line is left out, saying whose allergy it is."""
    dish = await _recipe(client, "Quux Greens", 4, [{"name": "toasted sesame oil", "quantity": 1, "unit": "tbsp"},
                                                    {"name": "quuxgreens", "quantity": 2, "unit": "bunch"}])
    await call(client, "understanding_submit", message="six guests on Saturday, one is allergic to sesame", constraint_snapshot=GUESTS)
    result = await call(client, "shopping_list_from", recipes=[dish], preview=preview)
    assert [line["name"] for line in result["lines"]] == ["quuxgreens"]
    (left,) = result["left_out"]
    assert left["text"] == ("Left out toasted sesame oil, for Quux Greens (for 4): it contains sesame, and the guests "
                            "(Saturday dinner) are allergic to sesame.")


@pytest.mark.parametrize(("pantry", "needed"), [
    pytest.param({"name": "pumpkin", "quantity": 2, "unit": "piece"}, {"name": "pumpkin puree", "quantity": 1, "unit": "can", "notes": "15 oz"},
                 id="can-against-fresh"),
    pytest.param({"name": "artichoke hearts", "quantity": 2, "unit": "can"}, {"name": "artichoke hearts", "quantity": 3}, id="fresh-against-can"),
    pytest.param({"name": "porcini mushrooms", "quantity": 8, "unit": "oz"}, {"name": "dried porcini mushrooms", "quantity": 1, "unit": "oz"},
                 id="dried-against-fresh"),
    pytest.param({"name": "corn", "quantity": 4, "unit": "piece"}, {"name": "frozen corn", "quantity": 1, "unit": "cup"}, id="frozen-against-fresh"),
])
async def test_another_form_in_the_pantry_neither_covers_the_need_nor_counts_toward_makeable(
    client: Client, pantry: dict[str, Any], needed: dict[str, Any],
) -> None:
    """A can is bought even with the fresh thing in the pantry (and the reverse), with no 'check' note comparing the
    two; makeable counts it missing."""
    dish = await _recipe(client, "Quux Stew", 2, [needed])
    await call(client, "db_create", table="inventory", data=pantry)
    result = await call(client, "shopping_list_from", recipes=[dish], preview=True)
    assert [line["name"] for line in result["lines"]] == [needed["name"]] and result["covered"] == []
    makeable = await call(client, "recipes_makeable", limit=50, honor_constraints=False)
    (hit,) = [hit for hit in makeable["recipes"] if hit["ref"] == dish]
    assert hit["missing"] == [needed["name"]]


@pytest.mark.parametrize("preview", [True, False], ids=["preview", "add"])
async def test_boneless_and_bone_in_thighs_stay_two_lines_each_named_for_its_cut(client: Client, preview: bool) -> None:
    """Tikka wants boneless thighs, the Greek tray bake bone-in, skin-on ones: two purchases, two lines, each saying its
    cut (a cut the recipe gave in its notes is the line's note); the pantry's 2 lb of thighs (cut not said) counts
    once, not for each; listing them again adds nothing."""
    tikka = await _recipe(client, "Quux Tikka", 4, [{"name": "boneless chicken thighs", "quantity": 5, "unit": "lb"}])
    greek = await _recipe(client, "Quux Greek Chicken", 4,
                          [{"name": "chicken thighs", "quantity": 3, "unit": "lb", "notes": "bone-in, skin-on"}])
    result = await call(client, "shopping_list_from", recipes=[tikka, greek], preview=preview)
    assert sorted(line["text"] for line in result["lines"]) == [
        "3 lb bone-in, skin-on chicken thighs", "3 lb boneless chicken thighs (short 3 lb; the pantry has 2 lb)"]
    if not preview:
        (greek_line,) = await _lines(client, "chicken thighs")
        assert greek_line["notes"] == "bone-in, skin-on"
        again = await call(client, "shopping_list_from", recipes=[tikka, greek])
        assert again["lines"] == [] and {item["name"] for item in again["already_listed"]} == {"boneless chicken thighs", "chicken thighs"}


FRESH = [{"name": "quuxthyme thyme", "quantity": 1, "unit": "tsp", "notes": "leaves only"},
         {"name": "fresh ginger", "quantity": 1.5, "unit": "tsp", "notes": "grated"},
         {"name": "quux cremini mushrooms", "quantity": 1, "unit": "oz"},
         {"name": "quux cilantro", "quantity": 2, "unit": "handful"},
         {"name": "quux vegetable broth", "quantity": 18, "unit": "cup"}]


@pytest.mark.parametrize("servings", [1, 2, 5])
async def test_fresh_produce_is_listed_as_the_shop_sells_it_and_topping_it_up_keeps_one_purchase(client: Client, servings: int) -> None:
    """Spoons of thyme and ginger, an ounce of mushrooms, handfuls of cilantro: the list says what to take from the
    shelf (a bunch, a piece, a pack) and the amount needed after it; more servings add to what is needed, and one
    bunch that still holds it stays one bunch."""
    from alfred_mcp.kitchen.odd_amounts import oddities

    ref = await _recipe(client, "Quux Herb Broth", 2, FRESH)
    first = await call(client, "shopping_list_from", recipes=[ref], servings={ref: servings})
    texts = {line["name"]: line["text"] for line in first["lines"]}
    assert texts["quuxthyme thyme"].startswith("1 bunch quuxthyme thyme (need ")
    assert texts["fresh ginger"].startswith("1 piece fresh ginger (need ")  # a piece grates to 3 tbsp
    assert texts["quux cremini mushrooms"].startswith("1 pack quux cremini mushrooms (need ")
    assert texts["quux cilantro"].startswith(f"{1 if servings < 5 else 3} bunch")
    # broth in cups a measure holds, or whole quarts and the cups left: never quarter quarts
    assert re.fullmatch(r"\d+ cartons? quux vegetable broth \(need (?:[\d /]+ cups?|\d+ quarts?(?: [\d /]+ cups?)?)\)",
                        texts["quux vegetable broth"])
    more = await call(client, "shopping_list_from", recipes=[ref], servings={ref: servings + 1})
    shown = (await call(client, "shopping_list_show"))["sections"]
    lines = [line for section in shown for line in section["lines"] if line["name"] in texts]
    assert len(lines) == len(FRESH) and {line["name"] for line in more["lines"]} <= set(texts)
    for line in lines:
        assert oddities(line["text"], line["quantity"], line["unit"], line["name"], shopping=True) == [], line["text"]
    assert next(line["text"] for line in lines if line["name"] == "quuxthyme thyme").startswith("1 bunch ")


@pytest.mark.parametrize(("pantry", "need", "listed"), [
    ({"name": "quuxherb parsley", "quantity": 1, "unit": "bunch"}, {"name": "quuxherb parsley", "quantity": 2, "unit": "tbsp"}, None),
    ({"name": "quuxherb parsley", "quantity": 1, "unit": "bunch"}, {"name": "quuxherb parsley", "quantity": 3, "unit": "cup"},
     "2 bunches quuxherb parsley (short 2 cups; the pantry has 1 cup)"),
    ({"name": "quux crushed tomatoes", "quantity": 1, "unit": "can"}, {"name": "quux crushed tomatoes", "quantity": 28, "unit": "oz"},
     "1 can quux crushed tomatoes (short 14 oz; the pantry has 1 (14-oz) can)"),
    ({"name": "quux red onion", "quantity": 1, "unit": "piece"}, {"name": "quux red onion", "quantity": 0.5, "unit": "cup"}, None),
    ({"name": "quux green onions", "quantity": 1, "unit": "bunch"}, {"name": "quux green onions", "quantity": 3, "unit": "piece"}, None),
    ({"name": "quux green onions", "quantity": 1, "unit": "bunch"}, {"name": "quux green onions", "quantity": 9, "unit": "piece"},
     "1 bunch quux green onions (short 3; the pantry has 6)"),
])
async def test_what_the_pantry_holds_as_bought_counts_against_what_a_recipe_measures(
    client: Client, pantry: dict[str, Any], need: dict[str, Any], listed: str | None,
) -> None:
    """A bunch of parsley in the fridge covers 2 tbsp of it; 3 cups need two more bunches; a can on the shelf is 14 oz
    of the 28 a recipe needs: the pantry counts in what the shop sells, not only in the recipe's measure; a line that
    is the pantry's shortfall says so ('short 14 oz', never 'need 14 oz' for a recipe needing 28)."""
    await call(client, "db_create", table="inventory", data={**pantry, "location": "fridge"})
    ref = await _recipe(client, "Quux Pantry Check", 2, [need])
    result = await call(client, "shopping_list_from", recipes=[ref], preview=True)
    assert [line["text"] for line in result["lines"]] == ([listed] if listed else [])
    if listed is None:
        assert [item["name"] for item in result["covered"]] == [need["name"]] and result["covered"][0].get("note") is None


def _eggs_in(scaled_line: dict[str, Any]) -> int:
    """The eggs a scaled card line names: its own count plus the yolks (or whites) its notes add."""
    own = int(scaled_line["quantity"])
    extra = re.search(r"(\d+) (?:extra )?(?:yolk|white)", scaled_line.get("notes") or "")
    return own + (int(extra.group(1)) if extra else 0)


async def test_the_eggs_listed_are_the_eggs_yolks_and_whites_the_scaled_recipes_call_for(client: Client) -> None:
    """From an empty pantry, the eggs line needs what the scaled cards say, summed: carbonara for 3 is 2 eggs plus
    1 yolk, pancakes for 3 one egg: 4 eggs, not 3; for 6 and 7, 5 + 2 yolks + 2 = 9."""
    await call(client, "db_delete", table="inventory", all=True)
    await call(client, "db_delete", table="shopping_list", all=True)
    rows = (await call(client, "db_read", table="recipes", columns=["name"]))["rows"]
    refs = {row["name"]: row["id"] for row in rows}
    carbonara, pancakes = refs["Spaghetti Carbonara"], refs["Blueberry Oat Pancakes"]
    wrong = {}
    for servings in [(3, 3), (6, 7), (1, 1), (4, 4), (5, 2), (12, 9)]:
        by_ref = dict(zip((carbonara, pancakes), servings))
        cards = [await call(client, "recipes_scale", recipe=ref, servings=n) for ref, n in by_ref.items()]
        expected = sum(_eggs_in(line) for card in cards for line in card["ingredients"] if line["name"] in ("eggs", "egg"))
        listed = await call(client, "shopping_list_from", recipes=list(by_ref), servings=by_ref, preview=True)
        eggs = [line for line in listed["lines"] if line["name"] in ("eggs", "egg")]
        if len(eggs) != 1 or eggs[0]["quantity"] != expected or str(expected) not in eggs[0]["text"] and eggs[0]["unit"] != "dozen":
            wrong[servings] = (expected, [line["text"] for line in eggs])
    assert wrong == {}


async def test_salt_and_pepper_on_one_line_is_listed_and_checked_as_salt_and_black_pepper(client: Client) -> None:
    """'Salt and pepper to taste' is two things: the pantry check and the list see salt and black pepper, never a line
    named 'salt and pepper'."""
    fish = await _recipe(client, "Quux Seasoned Fish", 2, [{"name": "Salt and pepper", "notes": "to taste"},
                                                         {"name": "quux fillets", "quantity": 2, "unit": "fillet"}])
    result = await call(client, "shopping_list_from", recipes=[fish], preview=True)
    named = [item["name"].lower() for key in ("lines", "covered", "already_listed") for item in result[key]]
    assert "salt and pepper" not in named and "black pepper" in named and "salt" in named, named


async def test_an_already_listed_name_agrees_with_its_line(client: Client) -> None:
    """Listed for one, the line says '1 quux fillet': listing it again names it as the line does, not 'quux fillets'."""
    fish = await _recipe(client, "Quux Single Fish", 2, [{"name": "quux fillets", "quantity": 2, "unit": "fillet"}])
    first = await call(client, "shopping_list_from", recipes=[fish], servings={fish: 1})
    assert [line["text"] for line in first["lines"]] == ["1 quux fillet"], first["lines"]
    again = await call(client, "shopping_list_from", recipes=[fish], servings={fish: 1})
    assert [item["name"] for item in again["already_listed"]] == ["quux fillet"], again


@pytest.mark.parametrize(("name", "parts"), [
    ("quux lemon", [(0.5, None), (1, "tbsp")]),  # half a lemon and a tablespoon of juice: 1 lemon, not 2
    ("quux shallot", [(0.5, None), (2, "tbsp")]),
    ("quux red onion", [(0.25, None), (0.25, "cup"), (0.25, None)]),
    ("quux thyme", [(2, "sprig"), (0.5, "tsp")]),
    ("quux vegetable broth", [(1, "carton"), (1.5, "cup"), (1, "cup")]),
])
async def test_a_shortfall_from_several_recipes_is_added_up_first_and_rounded_once(client: Client, name: str,
                                                                                  parts: list[tuple[float, str | None]]) -> None:
    """What several recipes need of one ingredient, in different units, is added up in one unit and rounded once to
    what is bought: the line never buys more than rounding the sum up does."""
    from alfred_mcp.kitchen.measures import Amount, about_in, to_buy

    refs = [await _recipe(client, f"Quux Part {i}", 2, [{"name": name, "quantity": quantity, "unit": unit}])
            for i, (quantity, unit) in enumerate(parts)]
    result = await call(client, "shopping_list_from", recipes=refs)
    (line,) = [line for line in result["lines"] if line["name"] == name]
    first_unit = parts[0][1]
    total = sum(about_in(name, quantity, unit, first_unit) or 0.0 for quantity, unit in parts)
    once = to_buy(Amount(total, first_unit), name)
    listed = about_in(name, float(line["quantity"]), line["unit"], first_unit)
    rounded_once = about_in(name, once.quantity, once.unit, first_unit)
    assert listed is not None and rounded_once is not None
    assert total * 0.98 - 1e-9 <= listed <= rounded_once + 1e-6, (line["text"], total, once.text)


@pytest.mark.parametrize("kind", ["meal_plans", "recipes"])
@pytest.mark.parametrize("preview", [True, False], ids=["preview", "add"])
async def test_water_from_the_tap_is_never_listed_and_is_said_covered(client: Client, kind: str, preview: bool) -> None:
    """Cook's QA 2 G21: '1.25 l water' was a line to buy. Tap water is covered ('from the tap'); water a shop sells
    (sparkling) is still listed."""
    stew = await _recipe(client, "Quux Stew", 4, [{"name": "water", "quantity": 1, "unit": "l"},
                                                  {"name": "warm water", "quantity": 1, "unit": "cup"},
                                                  {"name": "sparkling water", "quantity": 1, "unit": "l"},
                                                  {"name": "quuxbeans", "quantity": 200, "unit": "g"}])
    if kind == "meal_plans":
        await call(client, "db_create", table="meal_plans", data={"date": "2031-06-06", "meal_type": "dinner", "recipe_id": stew, "servings": 4})
    result = await call(client, "shopping_list_from", preview=preview, **_by_meal_or_recipe(kind, stew))
    assert sorted(line["name"] for line in result["lines"]) == ["quuxbeans", "sparkling water"]
    assert {item["name"]: item["note"] for item in result["covered"] if "water" in item["name"]} == \
        {"water": "from the tap", "warm water": "from the tap"}
    assert await _lines(client, "water") == [] and await _lines(client, "warm water") == []


@pytest.mark.parametrize("name", ["lemons", "limes", "onions", "tomatoes", "potatoes", "carrots", "shallots"])
@pytest.mark.parametrize(("listed", "needed", "pantry"), [((1, "lb"), 5, 3), ((500, "g"), 4, 1), ((2, "piece"), 5, 3)])
async def test_a_shortfall_added_to_a_line_a_person_wrote_never_reads_as_the_line_being_short(
        client: Client, name: str, listed: tuple[float, str], needed: int, pantry: int) -> None:
    """Cook's QA 2 G16: a person's '1 lb lemons' and a recipe 2 lemons short of the pantry's 3 read '1 1/2 lb lemons
    (short 1 1/2 lb; the pantry has 3)'. The person's amount is not the shortfall: a count is kept beside a weight
    ('1 lb + 2 lemons'), added to a count of the same ('4 lemons'), and the line never says 'short'."""
    await call(client, "db_delete", table="inventory", all=True)
    await call(client, "db_delete", table="shopping_list", all=True)
    await call(client, "db_create", table="inventory", data={"name": name, "quantity": pantry, "unit": "piece", "location": "pantry"})
    await call(client, "db_create", table="shopping_list", data={"name": name, "quantity": listed[0], "unit": listed[1]})
    ref = await _recipe(client, "Quux Market Salad", 4, [{"name": name, "quantity": needed}])
    result = await call(client, "shopping_list_from", recipes=[ref])
    (line,) = result["lines"]
    assert "short" not in line["text"], line
    short = needed - pantry
    if listed[1] == "piece":
        assert line["text"].startswith(f"{listed[0] + short} "), line
    else:
        assert line["text"].startswith(f"{listed[0]} {listed[1]} + {short} "), line


@pytest.mark.parametrize(("name", "unit", "holds"), [("buttermilk", "carton", 2.0), ("chicken broth", "carton", 4.0),
                                                     ("heavy cream", "carton", 2.0), ("olive oil", "bottle", 2.0),
                                                     ("milk", "carton", 8.0), ("ground cumin", "jar", 0.5)])
@pytest.mark.parametrize("share", [0.25, 0.5, 0.75])
async def test_what_a_listed_container_holds_beyond_its_own_recipe_covers_another_first(
        client: Client, name: str, unit: str, holds: float, share: float) -> None:
    """Cook's QA 2 G10: '1 carton buttermilk' listed for pancakes (1 cup of its 2), then a salad's 3/4 cup, read '2 cartons
    buttermilk (need 2 3/4 cups)': the carton was counted as needed in full. What the container holds beyond its own
    recipe's need covers the new need first: within it, the line is enough; beyond it, the line needs both needs."""
    await call(client, "db_delete", table="inventory", all=True)
    await call(client, "db_delete", table="shopping_list", all=True)
    own = await _recipe(client, "Quux Own Recipe", 4, [{"name": name, "quantity": holds * share, "unit": "cup"}])
    own_name = (await call(client, "db_read", table="recipes", filters=[eq("id", own)], columns=["name"]))["rows"][0]["name"]
    await call(client, "db_create", table="shopping_list", data={"name": name, "quantity": 1, "unit": unit, "source": own_name})
    spare = holds * (1 - share)
    for more, fits in ((spare / 2, True), (spare + holds / 4, False)):
        other = await _recipe(client, f"Quux Other {more:g}", 4, [{"name": name, "quantity": more, "unit": "cup"}])
        result = await call(client, "shopping_list_from", recipes=[other], preview=True)
        if fits:
            assert result["lines"] == [] and [item["name"] for item in result["already_listed"]] == [name], result
            continue
        (line,) = result["lines"]
        assert line["text"].startswith(f"2 {unit}"), line
        from alfred_mcp.kitchen.measures import about_in
        listed = about_in(name, float(line["quantity"]), line["unit"], "cup")
        assert listed is not None and holds * share + more - 1e-6 <= listed <= (holds * share + more) * 1.1 + 0.25, line


@pytest.mark.parametrize("servings", [4, 6, 9, 10, 12, 14])
async def test_an_egg_line_short_for_the_yolks_says_they_are_why(client: Client, servings: int) -> None:
    """Cook's QA 2 G3: '1 egg (short 1; the pantry has 10)' for a card of '8 large eggs, plus 3 extra yolks' read as
    'I have 10 and need 8: why buy one?'. Short of eggs, the line says how many the card's eggs and yolks need and that
    the yolks are in it: '1 egg (need 11 with the 3 yolks; the pantry has 10)'; covered, nothing is listed."""
    rows = (await call(client, "db_read", table="recipes", columns=["name"]))["rows"]
    carbonara = next(row["id"] for row in rows if row["name"] == "Spaghetti Carbonara")
    pantry = [row for row in (await call(client, "db_read", table="inventory", limit=200))["rows"] if row["name"] in ("eggs", "egg")]
    held = sum(int(row["quantity"]) for row in pantry)
    card = await call(client, "recipes_scale", recipe=carbonara, servings=servings)
    (eggs_line,) = [line for line in card["ingredients"] if line["name"] in ("eggs", "egg")]
    needed = _eggs_in(eggs_line)
    extra = re.search(r"(\d+) (?:extra )?yolks?", eggs_line.get("notes") or "")
    yolks = int(extra.group(1)) if extra else 0
    listed = await call(client, "shopping_list_from", recipes=[carbonara], servings={carbonara: servings}, preview=True)
    eggs = [line["text"] for line in listed["lines"] if line["name"] in ("eggs", "egg")]
    if needed <= held:
        assert eggs == [], eggs
        return
    short = needed - held
    noun = "egg" if short == 1 else "eggs"
    with_yolks = f" with the {yolks} yolk{'s' if yolks != 1 else ''}" if yolks else ""
    expected = f"{short} {noun} (need {needed}{with_yolks}; the pantry has {held})" if yolks else f"{short} {noun} (short {short}; the pantry has {held})"
    assert eggs == [expected], (eggs_line, eggs)
