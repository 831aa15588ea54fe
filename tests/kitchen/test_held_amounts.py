"""What the pantry holds is said as a cook writes it: the amount itself when a kitchen measure says it exactly (1.8
heads of garlic are '1 head and 8 cloves', not '2 heads'), else 'about' the nearest measure, what is left in a
container in the measure it holds ('about 1 1/4 cups of the bottle'): never a '+' nor a thousandth of a container, and
it reads back as the quantity the pantry row has (exactly, or within the rounding of 'about')."""

from __future__ import annotations

import math
import re
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from alfred_mcp.kitchen.bought_as import can_size
from alfred_mcp.kitchen.measures import (
    USED_UP,
    Amount,
    about_in,
    amount_text,
    count_cut,
    dimension,
    held,
    ingredient_text,
    sensible,
)
from alfred_mcp.kitchen.odd_amounts import WHOLE_UNITS, about_disagrees
from alfred_mcp.kitchen.plurals import singular
from alfred_mcp.kitchen.units import KNOWN_UNITS

STOCK = [("garlic", "head"), ("garlic", "clove"), ("flour", "g"), ("flour", "kg"), ("milk", "ml"), ("milk", "cup"),
         ("oil", "tbsp"), ("salt", "tsp"), ("tomatoes", "can"), ("lemons", None), ("cod fillets", "fillet"), ("butter", "oz"),
         ("milk", "gallon"), ("milk", "quart"), ("cream", "pint"), ("juice", "fl oz"), ("soy sauce", "bottle"),
         ("olive oil", "bottle"), ("vegetable broth", "carton"), ("black beans", "can"), ("kosher salt", "box"),
         ("rolled oats", "bag"), ("flat-leaf parsley", "bunch"), ("ground cumin", "jar")]
UNITS = {"fl oz", "g", "kg", "ml", "l", "oz", "lb", "tsp", "tbsp", "cup", "quart", "gallon", "pint", "head", "clove", "can", "fillet",
         "piece", "bottle", "carton", "box", "bag", "bunch", "jar", "pinch"}
METRIC = frozenset({"g", "kg", "ml", "l"})
_AMOUNT = re.compile(r"(\d+ \d+/\d+|\d+/\d+|\d+\.\d+|\d+)(?: (fl oz|[a-z]+))?")


def read_back(text: str, name: str, unit: str | None) -> float:
    """The amount `text` says, in `unit`: '1 head and 8 cloves', '1 1/2 cups', 'about 1 1/4 cups of the bottle', '3'."""
    total = 0.0
    for number, word in _AMOUNT.findall(text):
        said = word if word in UNITS else singular(word) if word and singular(word) in UNITS else unit
        quantity = float(sum(Fraction(part) for part in number.split()))
        if said == "pinch":  # a pinch is less than 1/8 tsp
            quantity, said = quantity / 16, "tsp"
        said = None if said == "piece" else said
        one = can_size(name) if unit == "can" and said == "oz" else about_in(name, 1, unit, said)  # one container, in it
        converted = about_in(name, quantity, said, unit) or (quantity / one if one else None)
        assert converted is not None, (text, number, word)
        total += converted
    return total


def reads_as_held(text: str, name: str, unit: str | None, quantity: float) -> bool:
    """True when `text` reads back as `quantity` of `unit`: exactly, or within the rounding of 'about' (cloves and
    fillets are counted whole); never a '+' nor a thousandth of a container."""
    if " + " in text or (unit not in METRIC and re.search(r"\d\.\d{3}", text)):
        return False
    if text.startswith("less than "):
        return 0 < quantity <= read_back(text, name, unit)
    rounded = "about " in text
    near = 1.0 if unit in ("clove", "fillet") else 0.2  # a whole clove; a quarter of a piece, an ounce
    return read_back(text, name, unit) == pytest.approx(quantity, rel=0.2 if rounded else 1e-3, abs=near if rounded else 1e-3)


@given(stock=st.sampled_from(STOCK), quantity=st.floats(min_value=0, max_value=5000, allow_nan=False))
def test_what_is_held_reads_back_as_the_quantity_held_and_says_about_when_rounded(stock: tuple[str, str | None],
                                                                                   quantity: float) -> None:
    name, unit = stock
    text = held(Amount(quantity, unit), name)
    assert reads_as_held(text, name, unit, quantity), text


@pytest.mark.parametrize(("quantity", "unit", "name", "text"), [
    (1.8, "head", "garlic", "1 head and 8 cloves"), (0.5, "head", "garlic", "1/2 head"), (2, "head", "garlic", "2 heads"),
    (1.7, "head", "garlic", "1 head and 7 cloves"), (0.3, "head", "garlic", "3 cloves"), (500, "g", "flour", "500 g"),
    (1.85, "can", "tomatoes", "1 can and about 12 oz of another"), (1.5, "can", "black beans", "1 1/2 cans"), (1.4, None, "onions", "about 1 1/2"),
    (1 - 2 / 6, "bunch", "green onions", "2/3 bunch"), (1 - 2 / 16, "bunch", "flat-leaf parsley", "about 1 cup of the bunch"),
    (2 + 1 / 3, "bag", "tortilla chips", "2 1/3 bags"), (2.4, "package", "tofu", "about 2 1/3 packages"),
    (0.5, "gallon", "milk", "1/2 gallon"), (2, "quart", "milk", "2 quarts"), (12, "fl oz", "juice", "12 fl oz"),
    (0.925, "bottle", "soy sauce", "about 1 1/4 cups of the bottle"),
    (1.85, "bottle", "olive oil", "1 bottle and about 1 2/3 cups of another"),
    (0.9375, "carton", "vegetable broth", "about 3 3/4 cups of the carton"),
])
def test_what_is_held_is_written_as_a_cook_would(quantity: float, unit: str, name: str, text: str) -> None:
    assert held(Amount(quantity, unit), name) == text


@given(stock=st.sampled_from(STOCK), quantity=st.sampled_from([0.0, -0.0, -1e-12]))
def test_nothing_left_reads_as_used_up_in_every_unit(stock: tuple[str, str | None], quantity: float) -> None:
    """'0 fillets' left reads as a count of fillets: a row holding nothing is 'used up', whatever its unit."""
    name, unit = stock
    assert held(Amount(quantity, unit), name) == USED_UP


PACKS_OF_UNKNOWN_CONTENT = ["tortilla chips", "tofu", "bread", "crackers"]
COUNT_UNITS = sorted(unit for unit in KNOWN_UNITS if dimension(unit).startswith("count:") and unit not in ("piece", *WHOLE_UNITS))


@given(unit=st.sampled_from(COUNT_UNITS), name=st.sampled_from(PACKS_OF_UNKNOWN_CONTENT),
       quantity=st.one_of(st.integers(1, 120).map(lambda n: n / 24), st.floats(min_value=0.05, max_value=12)))
def test_a_count_held_says_the_number_its_line_says_and_about_only_when_rounded(unit: str, name: str, quantity: float) -> None:
    """One rounding rule for packs: what the pantry holds ('about 2 1/3 bags' for 2.4) and a line of the same amount
    ('2 1/3 bags') say the same number (`count_cut`), and 'about' is said exactly when that number is not the amount."""
    text = held(Amount(quantity, unit), name)
    line = sensible(Amount(quantity, unit), name)
    cut = count_cut(quantity, unit)
    assert line.quantity == cut
    line_text = ingredient_text(line.text, line.quantity, line.unit, name)
    assert not about_disagrees(text, line_text, quantity), (text, line_text)
    said = "" if math.isclose(cut, quantity, rel_tol=1e-6) else "less than " if cut > 2 * quantity else "about "
    assert text == f"{said}{amount_text(cut, unit)}"


@pytest.mark.parametrize(("held_text", "line_text", "exact", "disagrees"), [
    ("about 2 1/3 bags", "2 1/2 bags tofu", 2.35, True), ("2 1/3 bags", "2 1/2 bags tofu", 7 / 3, True),
    ("about 2 1/2 bags", "2 1/2 bags tofu", 2.45, False), ("less than 1/4 bag", "1/4 bag tofu", 1 / 24, False), ("2 1/2 bags", "2 1/2 bags tofu", 2.5, False),
    ("2 bags and about 1 cup of another", "2 1/2 bags rice", 2.4, False), ("used up", "1 bag rice", 0.0, False),
])
def test_about_disagrees_names_a_held_count_another_than_its_line(held_text: str, line_text: str, exact: float,
                                                                 disagrees: bool) -> None:
    assert about_disagrees(held_text, line_text, exact) is disagrees
