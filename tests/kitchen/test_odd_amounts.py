"""Amount lines read as a cook writes them: every unit and count noun, both ways of rounding, judged by the rules
of `kitchen/odd_amounts.py` (which are themselves checked on the lines the issue quoted)."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from alfred_mcp.kitchen.measures import Amount, convert_for, ingredient_text, line_text, part_can_use, sensible, to_buy, unit_word
from alfred_mcp.kitchen.odd_amounts import oddities, repeated_ingredients
from alfred_mcp.kitchen.seed import demo_kitchen
from alfred_mcp.kitchen.taxonomy import default_taxonomy
from alfred_mcp.kitchen.units import KNOWN_UNITS, normalize_unit
from tests.e2e.conftest import TODAY

UNITS = sorted(KNOWN_UNITS) + [None]
SEED_NAMES = sorted({str(row["name"]) for recipe in demo_kitchen(TODAY).recipes for row in recipe.ingredients})
COUNT_NOUNS = ["shallot", "lemons", "egg", "eggs", "salmon fillets", "green onions", "tomato", "potatoes", "leaf", "loaves",
               "baby bok choy", "berry", "cherries", "box", "peach", "garlic cloves", "garlic", "fresh ginger"]
NAMES = SEED_NAMES + COUNT_NOUNS


@pytest.mark.parametrize(("text", "quantity", "unit", "name", "shopping", "rule"), [
    ("15 tbsp buttermilk", 15, "tbsp", "buttermilk", True, "too many spoons"),
    ("4 1/2 shallots", 4.5, None, "shallots", True, "fraction of a whole item"),
    ("1 3/4 lemon", 1.75, None, "lemon", True, "fraction of a whole item"),
    ("1 fillet salmon fillets", 1, "fillet", "salmon fillets", True, "unit repeated in the name"),
    ("1.9583 tbsp black pepper", 1.9583, "tbsp", "black pepper", True, "decimal"),
    ("7 1/2 cloves garlic", 7.5, "clove", "garlic", False, "fraction of a whole item"),
    ("2 1/2 lemon", 2.5, None, "lemon", False, "plural disagreement"),
    ("1 1/8 cups parmesan", 1.125, "cup", "parmesan", False, "cup no measure holds"),
    ("3 shallot", 3, None, "shallot", False, "plural disagreement"),
    ("2 cup flour", 2, "cup", "flour", False, "plural disagreement"),
    ("4 1/2 tsp sugar", 4.5, "tsp", "sugar", False, "too many spoons"),
    ("0 tsp salt", 0, "tsp", "salt", False, "zero"),
    ("5/8 tsp kosher salt", 0.625, "tsp", "kosher salt", False, "spoon no measure holds"),
    ("1 1/4 tbsp soy sauce", 1.25, "tbsp", "soy sauce", False, "spoon no measure holds"),
    ("1/4 cup + 1/2 tbsp olive oil", 0.28125, "cup", "olive oil", False, "compound a cook would not write"),
    ("1 tbsp + 3/4 tsp kosher salt", 1.25, "tbsp", "kosher salt", False, "compound a cook would not write"),
    ("1/4 cup + 2 tbsp butter", 0.375, "cup", "butter", False, "compound a cook would not write"),
    ("4 tbsp olive oil", 4, "tbsp", "olive oil", False, "too many spoons"),
    ("8 tbsp butter", 8, "tbsp", "butter", False, "too many spoons"),
    ("2 5/8 lb crushed tomatoes", 2.625, "lb", "crushed tomatoes", False, "weight no scale shows"),
    ("1 7/8 lb chicken breast", 1.875, "lb", "chicken breast", False, "weight no scale shows"),
    ("1 1/3 lb crushed tomatoes", 4 / 3, "lb", "crushed tomatoes", False, "weight no scale shows"),
    ("3/8 oz dried porcini", 0.375, "oz", "dried porcini", False, "weight no scale shows"),
    ("12 cups vegetable broth", 12, "cup", "vegetable broth", False, "quarts written as cups"),
    ("18 cups olive oil", 18, "cup", "olive oil", True, "quarts written as cups"),
    ("1 1/2 tsp ginger", 1.5, "tsp", "ginger", True, "unit you cannot buy"),
    ("3 tbsp ginger", 3, "tbsp", "ginger", True, "unit you cannot buy"),
    ("3/4 tsp thyme", 0.75, "tsp", "thyme", True, "unit you cannot buy"),
    ("1 oz cremini mushrooms", 1, "oz", "cremini mushrooms", True, "unit you cannot buy"),
    ("2 handfuls fresh cilantro", 2, "handful", "fresh cilantro", True, "unit you cannot buy"),
    ("1 3/4 onions", 1.75, None, "onions", False, "fraction of a whole item"),
    ("1 3/4 lb crushed tomatoes", 1.75, "lb", "crushed tomatoes", False, "cans written as a weight"),
    ("2 5/8 lb crushed tomatoes", 2.625, "lb", "crushed tomatoes", False, "cans written as a weight"),
    ("1 3/4 lb crushed tomatoes", 1.75, "lb", "crushed tomatoes", True, "unit you cannot buy"),
    ("2 tbsp tomato paste", 2, "tbsp", "tomato paste", True, "unit you cannot buy"),
    ("1 cup + 2 tbsp parmesan", 1.125, "cup", "parmesan", False, "spoons added to spoons"),
    ("1 tbsp + 2 tsp olive oil", 5 / 3, "tbsp", "olive oil", True, "spoons added to spoons"),
    ("1 tbsp + 1 1/2 tsp olive oil", 4.5, "tsp", "olive oil", False, "spoons added to spoons"),
    ("1/4 cup + 1 tsp olive oil", 13, "tsp", "olive oil", False, "spoons added to spoons"),
    ("4 tsp mirin", 4, "tsp", "mirin", False, "too many spoons"),
    ("5 tsp ginger", 5, "tsp", "ginger", False, "too many spoons"),
    ("3 1/2 tsp baking powder", 3.5, "tsp", "baking powder", False, "too many spoons"),
    ("1/2 cup + 1 tbsp butter", 0.5625, "cup", "butter", False, "spoons added to spoons"),
    ("30 oz potatoes", 30, "oz", "potatoes", False, "ounces past a pound"),
    ("17 1/2 oz crushed tomatoes", 17.5, "oz", "crushed tomatoes", False, "part cans written as a weight"),
    ("1/4 can black beans", 0.25, "can", "black beans", False, "can without its size"),
    ("1 1/2 cans chickpeas", 1.5, "can", "chickpeas", False, "can without its size"),
    ("3 cans chickpeas", 3, "can", "chickpeas", False, "can without its size"),
    ("2 1/4 quarts vegetable broth", 2.25, "quart", "vegetable broth", False, "part quarts of a carton liquid"),
    ("1 1/4 quarts chicken stock", 1.25, "quart", "chicken stock", True, "part quarts of a carton liquid"),
    ("12 cups vegetable broth", 12, "cup", "vegetable broth", False, "quarts written as cups"),
    ("1 can black beans", 1, "can", "black beans", False, "can without its size"),
    ("4 1/2 quarts all-purpose flour", 4.5, "quart", "all-purpose flour", False, "dry goods by the quart"),
    ("salt and pepper", None, None, "salt and pepper", True, "two things on one line"),
    ("3 tsp olive oil", 3, "tsp", "olive oil", False, "too many spoons"),
    ("7 tsp olive oil", 7, "tsp", "olive oil", False, "too many spoons"),
    ("1 skin on salmon fillet", 1, "fillet", "salmon fillets", False, "quality not hyphenated"),
    ("8 oz spaghetti", 8, "oz", "spaghetti", True, "unit you cannot buy"),
    ("13 1/2 cups vegetable broth", 13.5, "cup", "vegetable broth", False, "too many cups to measure"),
    ("2 1/4 (14-oz) cans crushed tomatoes", 31.5, "oz", "crushed tomatoes", False, "part can without what to use"),
])
def test_the_rules_catch_the_lines_the_issue_quoted(text: str, quantity: float, unit: str | None, name: str,
                                                     shopping: bool, rule: str) -> None:
    assert rule in oddities(text, quantity, unit, name, shopping=shopping)


@pytest.mark.parametrize(("text", "quantity", "unit", "name"), [
    ("5 shallots", 5, None, "shallots"), ("1/2 lemon", 0.5, None, "lemons"), ("2/3 cup pecorino romano", 2 / 3, "cup", "pecorino romano"),
    ("1 cup parmesan", 1, "cup", "parmesan"), ("2 salmon fillets", 2, "fillet", "salmon fillets"),
    ("250 g spaghetti", 250, "g", "spaghetti"), ("3 quarts 1 1/2 cups vegetable broth", 13.5, "cup", "vegetable broth"),
    ("1/8 tsp cayenne", 0.125, "tsp", "cayenne"), ("1 tbsp + 1 tsp mirin", 4, "tsp", "mirin"),
    ("1 tbsp + 2 tsp olive oil", 5, "tsp", "olive oil"), ("1 tbsp + 1/2 tsp baking powder", 3.5, "tsp", "baking powder"),
    ("2 tbsp + 2 1/2 tsp honey", 8.5, "tsp", "honey"),
    ("18 cups all-purpose flour", 18, "cup", "all-purpose flour"),
    ("4 1/2 tbsp olive oil", 4.5, "tbsp", "olive oil"), ("6 tbsp butter", 6, "tbsp", "butter"), ("1/4 cup olive oil", 0.25, "cup", "olive oil"),
    ("1/2 cup pecorino romano", 0.5, "cup", "pecorino romano"), ("3 quarts vegetable broth", 3, "quart", "vegetable broth"),
    ("2 lb chicken breast", 2, "lb", "chicken breast"), ("1 lb 2 oz pancetta", 1.125, "lb", "pancetta"),
    ("2 (14-oz) cans crushed tomatoes", 28, "oz", "crushed tomatoes"), ("1 1/4 (14-oz) cans crushed tomatoes", 17.5, "oz", "crushed tomatoes"),
    ("1/2 oz dried porcini", 0.5, "oz", "dried porcini"), ("1 1/2 red onions", 1.5, None, "red onions"), ("1 pinch kosher salt", 1, "pinch", "kosher salt"),
])
def test_lines_a_cook_writes_pass_the_rules(text: str, quantity: float, unit: str | None, name: str) -> None:
    assert oddities(text, quantity, unit, name, shopping=False, notes=part_can_use(text, name)) == []  # part cans: what to use


@pytest.mark.parametrize(("text", "quantity", "unit", "name"), [
    ("1 bunch thyme (need 3/4 tsp)", 0.75, "tsp", "thyme"), ("1 piece ginger (need 1 1/2 tsp)", 1.5, "tsp", "ginger"),
    ("1 pack cremini mushrooms (need 1 oz)", 1, "oz", "cremini mushrooms"), ("1 bunch fresh cilantro (need 2 handfuls)", 2, "handful", "fresh cilantro"),
    ("5 cartons vegetable broth (need 4 quarts 2 cups)", 18, "cup", "vegetable broth"),
    ("1 jar dried thyme (need 2 tbsp)", 2, "tbsp", "dried thyme"), ("1 jar ground ginger (need 1 tsp)", 1, "tsp", "ground ginger"),
    ("5 lb all-purpose flour", 5, "lb", "all-purpose flour"), ("1 gallon milk", 1, "gallon", "milk"), ("12 oz chicken thighs", 12, "oz", "chicken thighs"),
    ("2 cans crushed tomatoes (need 1 3/4 lb)", 1.75, "lb", "crushed tomatoes"), ("1 can tomato paste (need 2 tbsp)", 2, "tbsp", "tomato paste"),
])
def test_shopping_lines_a_cook_writes_pass_the_rules(text: str, quantity: float, unit: str | None, name: str) -> None:
    assert oddities(text, quantity, unit, name, shopping=True) == []


@pytest.mark.parametrize(("text", "quantity", "unit", "name", "exact"), [
    ("2 red onions", 2, None, "red onions", 1.5), ("1/8 tsp kosher salt", 0.125, "tsp", "kosher salt", 1 / 16),
    ("1 cup olive oil", 1, "cup", "olive oil", 0.7),
])
def test_an_amount_rounded_far_from_the_exact_one_is_odd(text: str, quantity: float, unit: str | None, name: str, exact: float) -> None:
    assert "rounded far from the amount" in oddities(text, quantity, unit, name, shopping=False, exact=exact)


@pytest.mark.parametrize(("text", "quantity", "unit", "name", "exact"), [
    ("1/4 onion", 0.25, None, "onion", 1 / 3), ("3/4 carrot", 0.75, None, "carrot", 2 / 3), ("1/2 red onion", 0.5, None, "red onion", 0.375),
    ("1/8 lemon", 0.125, None, "lemon", 0.125),
])
def test_part_of_a_piece_that_is_not_the_nearest_cut_is_odd(text: str, quantity: float, unit: str | None, name: str, exact: float) -> None:
    assert "cut a cook would not make" in oddities(text, quantity, unit, name, shopping=False, exact=exact)


@pytest.mark.parametrize(("text", "quantity", "unit", "name", "exact"), [
    ("1 egg", 1, None, "egg", 0.7), ("2 cloves garlic", 2, "clove", "garlic", 1.5), ("1/4 lemon", 0.25, None, "lemon", 0.125),
    ("1/2 tsp red pepper flakes", 0.5, "tsp", "red pepper flakes", 0.375), ("1/8 tsp cayenne", 0.125, "tsp", "cayenne", 0.1),
])
def test_things_counted_whole_and_the_smallest_spoons_may_round_further(text: str, quantity: float, unit: str | None, name: str,
                                                                        exact: float) -> None:
    assert oddities(text, quantity, unit, name, shopping=False, exact=exact) == []


@given(st.sampled_from(UNITS), st.floats(min_value=0.05, max_value=400), st.sampled_from(NAMES), st.booleans())
@example("tsp", 2.84, "tomato paste", True)  # rounded up to 3 tsp: bought as 1 tbsp
@example("cup", 0.609, "pecorino romano", False)  # a compound's tablespoons never more than 4
@example("leaf", 7.5, "flat-leaf parsley", False)  # 'flat-leaf' is one word, not the unit repeated
def test_every_unit_and_count_noun_reads_as_a_cook_writes_it(unit: str | None, quantity: float, name: str, buying: bool) -> None:
    shown = (to_buy if buying else sensible)(Amount(quantity, unit), name)
    text = line_text(quantity, unit, name, buying=buying)
    notes = None if buying else part_can_use(text, name)  # a card says what to use of a part can
    assert oddities(text, shown.quantity, shown.unit, name, shopping=buying, exact=shown.rounded_from, notes=notes) == [], text
    if shown.bought is None:
        assert text == ingredient_text(shown.text, shown.quantity, shown.unit, name)


@given(st.sampled_from(UNITS), st.floats(min_value=0.05, max_value=400), st.sampled_from(NAMES))
def test_a_shopping_amount_is_never_less_than_needed(unit: str | None, quantity: float, name: str) -> None:
    from alfred_mcp.kitchen.measures import convert, pack_of

    shown = to_buy(Amount(quantity, unit), name)
    pack = pack_of(name)
    if pack is not None and (unit, shown.unit) == (pack[1], pack[0]):  # cloves bought as heads of garlic
        needed = quantity / pack[2]
    else:
        needed = convert(quantity, unit, shown.unit)
    assert shown.quantity >= needed * 0.98 - 1e-9


@given(st.sampled_from(COUNT_NOUNS), st.sampled_from([0.25, 0.5, 1, 2, 3, 12]))
def test_a_counted_name_agrees_with_its_number(name: str, quantity: float) -> None:
    text = ingredient_text(str(quantity), quantity, None, name)
    assert "plural disagreement" not in oddities(text, quantity, None, name, shopping=False), text


@pytest.mark.parametrize(("name", "quantity", "text"), [
    ("shallot", 3, "3 shallots"), ("lemons", 1, "1 lemon"), ("tomato", 2, "2 tomatoes"), ("berry", 2, "2 berries"),
    ("peach", 2, "2 peaches"), ("baby bok choy", 2, "2 baby bok choy"), ("garlic", 2, "2 garlic"), ("leaves", 1, "1 leaf"),
    ("green onions", 0.5, "1/2 green onion"),
])
def test_a_counted_name_is_written_as_a_person_says_it(name: str, quantity: float, text: str) -> None:
    assert ingredient_text(str(quantity), quantity, None, name) == text


@pytest.mark.parametrize(("amount", "name", "text"), [
    (Amount(14, "clove"), "garlic", "2 heads garlic"), (Amount(3, "clove"), "garlic cloves", "3 garlic cloves"),
    (Amount(3, "clove"), "garlic powder", "3 cloves garlic powder"), (Amount(41, "cup"), "vegetable broth", "10 quarts 1 cup vegetable broth"),
    (Amount(10.25, "cup"), "vegetable broth", "10 1/4 cups vegetable broth"), (Amount(4, "cup"), "milk", "4 cups milk"),
])
def test_what_is_bought_by_the_pack_or_the_quart_is_listed_so(amount: Amount, name: str, text: str) -> None:
    shown = to_buy(amount, name)
    assert ingredient_text(shown.text, shown.quantity, shown.unit, name) == text


PASTA = default_taxonomy().expand("pasta")


@given(st.sampled_from(PASTA), st.sampled_from(["oz", "lb", "g", "kg", "cup"]), st.floats(min_value=0.1, max_value=80))
def test_pasta_is_bought_by_the_box_whatever_it_is_measured_in(name: str, unit: str, quantity: float) -> None:
    """'8 oz spaghetti' is not what a shopper takes from the shelf: '1 box spaghetti (need 8 oz)', and 3 lb is 3 boxes."""
    text = line_text(quantity, unit, name, buying=True)
    shown = to_buy(Amount(quantity, unit), name)
    assert shown.bought is not None and shown.bought[1] == "box", text
    assert text.startswith("1 box " if shown.bought[0] == 1 else f"{shown.bought[0]:g} boxes ") and "(need " in text, text
    assert oddities(text, shown.quantity, shown.unit, name, shopping=True, exact=shown.rounded_from) == [], text


def test_a_pack_and_its_pieces_convert_for_that_ingredient_only() -> None:
    assert convert_for("garlic", 2, "head", "clove") == 20 and convert_for("garlic", 5, "clove", "head") == 0.5
    assert convert_for("garlic powder", 2, "head", "clove") is None and convert_for("garlic", 1, "head", "kg") is None
    assert convert_for("garlic", 1, "head", "tsp") == pytest.approx(10)  # a head minces to about 10 tsp


@pytest.mark.parametrize(("name", "quantity", "unit", "to", "expected"), [
    ("thyme", 1, "bunch", "tbsp", 4), ("thyme", 6, "tsp", "bunch", 0.5), ("flat-leaf parsley", 1, "bunch", "cup", 1),
    ("onion", 2, "piece", "cup", 2), ("onion", 1, None, "cup", 1), ("crushed tomatoes", 2, "can", "oz", 28),
    ("cremini mushrooms", 1, "pack", "oz", 8), ("fresh ginger", 1, "piece", "tbsp", 3),
])
def test_what_the_shop_sells_converts_to_what_it_holds(name: str, quantity: float, unit: str | None, to: str, expected: float) -> None:
    assert convert_for(name, quantity, unit, to) == pytest.approx(expected)


@pytest.mark.parametrize(("name", "unit", "to"), [
    ("dried thyme", "bunch", "tsp"), ("ground ginger", "piece", "tsp"), ("olive oil", "bottle", "tbsp"),
    ("vegetable broth", "carton", "cup"), ("black pepper", "jar", "tbsp"), ("cremini mushrooms", "pack", "sprig"),
    ("onion", "piece", "sprig"),
])
def test_other_forms_and_measures_a_purchase_does_not_hold_do_not_convert(name: str, unit: str, to: str) -> None:
    assert convert_for(name, 1, unit, to) is None


@pytest.mark.parametrize("unit", sorted(KNOWN_UNITS))
def test_every_units_plural_is_english_and_reads_back_as_the_unit(unit: str) -> None:
    """'2 inches', '2 splashes', '2 leaves': the parser reads each back as the unit it was written from."""
    many, one = unit_word(unit, 2), unit_word(unit, 1)
    assert normalize_unit(many) == unit and one == unit
    assert not many.endswith(("chs", "shs", "xs", "ss")), many


def test_the_same_ingredient_on_two_lines_is_found_whatever_its_spelling() -> None:
    assert repeated_ingredients(["Shallots", "shallot", "lemon", "buttermilk", "Buttermilk"]) == ["buttermilk", "shallot"]
    assert repeated_ingredients(["lemon", "lime"]) == []
