"""What the pantry holds is said as a cook writes it and never rounded away from it: meal_cooked's 'left' reads
back as the quantity the pantry row then has (1.8 heads of garlic are '1 head + 8 cloves', not '2 heads')."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from alfred_mcp.kitchen.measures import Amount, convert_for, held
from alfred_mcp.kitchen.plurals import singular

STOCK = [("garlic", "head"), ("garlic", "clove"), ("flour", "g"), ("flour", "kg"), ("milk", "ml"), ("milk", "cup"),
         ("oil", "tbsp"), ("salt", "tsp"), ("tomatoes", "can"), ("lemons", None), ("cod fillets", "fillet"), ("butter", "oz"),
         ("milk", "gallon"), ("milk", "quart"), ("cream", "pint"), ("juice", "fl oz")]
UNITS = {"fl oz", "g", "kg", "ml", "l", "oz", "lb", "tsp", "tbsp", "cup", "quart", "gallon", "pint", "head", "clove", "can", "fillet",
         "piece"}


def read_back(text: str, name: str, unit: str | None) -> float:
    """The amount `text` says, in `unit`: '1 head + 8 cloves', '1 1/2 cups', '1.85 cans', '3'."""
    total = 0.0
    for part in text.split(" + "):
        words = part.split()
        number_words = [w for w in words if w[0].isdigit()]
        written = " ".join(w for w in words if not w[0].isdigit()) or None
        said_unit = written if written in UNITS else singular(written) if written else unit
        quantity = float(sum(Fraction(w) for w in number_words))
        converted = convert_for(name, quantity, said_unit, unit)
        assert converted is not None, (text, part)
        total += converted
    return total


@given(stock=st.sampled_from(STOCK), quantity=st.floats(min_value=0, max_value=5000, allow_nan=False))
def test_what_is_held_reads_back_as_the_quantity_held(stock: tuple[str, str | None], quantity: float) -> None:
    name, unit = stock
    text = held(Amount(quantity, unit), name)
    assert read_back(text, name, unit) == pytest.approx(quantity, rel=1e-3, abs=1e-3), text


@pytest.mark.parametrize(("quantity", "unit", "name", "text"), [
    (1.8, "head", "garlic", "1 head + 8 cloves"), (0.5, "head", "garlic", "1/2 head"), (2, "head", "garlic", "2 heads"),
    (0.3, "head", "garlic", "3 cloves"), (500, "g", "flour", "500 g"), (1.85, "can", "tomatoes", "1.85 cans"),
    (1 - 2 / 6, "bunch", "green onions", "2/3 bunch"), (1 - 2 / 16, "bunch", "flat-leaf parsley", "7/8 bunch"),
    (0.5, "gallon", "milk", "1/2 gallon"), (2, "quart", "milk", "2 quarts"), (12, "fl oz", "juice", "12 fl oz"),
])
def test_what_is_held_is_written_as_a_cook_would(quantity: float, unit: str, name: str, text: str) -> None:
    assert held(Amount(quantity, unit), name) == text
