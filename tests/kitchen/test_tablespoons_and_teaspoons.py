"""Amounts from a tablespoon to a quarter cup, written as a cook writes them (cook's QA F3): half tablespoons, else
whole tablespoons and the teaspoons left ('1 tbsp + 2 tsp' for 5 tsp), never '5 tsp'; the same amount read back from
the line, in every US volume unit a recipe writes, on the card, in the need of a shopping line and in a pasted line."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from alfred_mcp.kitchen.ingredient_lines import parse_ingredient_line
from alfred_mcp.kitchen.measures import VOLUME_ML, Amount, convert, line_text, needed, sensible
from alfred_mcp.kitchen.odd_amounts import oddities

QUARTER_TEASPOONS = [quarters / 4 for quarters in range(12, 48)]
"""Every amount measuring spoons hold from 1 tbsp (3 tsp) up to 1/4 cup (12 tsp)."""
_COMPOUND = re.compile(r"^(\d+) tbsp \+ (\d+ 1/2|1/2|\d+) tsp$")


def _teaspoons(text: str) -> float:
    """The teaspoons an amount's text says: '1 tbsp + 2 1/2 tsp' -> 5.5, '1 1/2 tbsp' -> 4.5, '1/4 cup' -> 12."""
    total = 0.0
    for part in text.split(" + "):
        number, unit = part.rsplit(" ", 1)
        total += convert(float(sum(Fraction(piece) for piece in number.split())), unit, "tsp")
    return total


@pytest.mark.parametrize("tsp", QUARTER_TEASPOONS)
def test_a_spoon_amount_from_a_tablespoon_is_never_written_in_teaspoons_alone(tsp: float) -> None:
    shown = sensible(Amount(tsp, "tsp"), "ginger")
    assert not re.fullmatch(r"[\d /]+ tsp", shown.text), shown.text
    compound = _COMPOUND.match(shown.text)
    if compound:  # whole tablespoons, and the teaspoons left below a tablespoon, no half tablespoon among them
        left = float(sum(Fraction(piece) for piece in compound.group(2).split()))
        assert 0 < left < 3 and left not in (1.5,), shown.text
    assert abs(_teaspoons(shown.text) - tsp) <= 0.085 * tsp, (tsp, shown.text)
    assert oddities(line_text(tsp, "tsp", "ginger"), shown.quantity, shown.unit, "ginger", shopping=False) == []


@pytest.mark.parametrize(("tsp", "text"), [
    (3, "1 tbsp"), (3.5, "1 tbsp + 1/2 tsp"), (4, "1 tbsp + 1 tsp"), (4.5, "1 1/2 tbsp"), (5, "1 tbsp + 2 tsp"),
    (5.5, "1 tbsp + 2 1/2 tsp"), (6, "2 tbsp"), (7, "2 tbsp + 1 tsp"), (8, "2 tbsp + 2 tsp"), (10, "3 tbsp + 1 tsp"),
    (11, "3 1/2 tbsp"), (11.25, "1/4 cup"), (12, "1/4 cup"),
])
def test_the_cooks_quoted_amounts_read_as_tablespoons_and_teaspoons(tsp: float, text: str) -> None:
    assert sensible(Amount(tsp, "tsp")).text == text


@pytest.mark.parametrize("unit", sorted(set(VOLUME_ML) - {"ml", "l"}))  # metric stays metric
@pytest.mark.parametrize("tsp", QUARTER_TEASPOONS[::3])
def test_every_us_volume_unit_reaches_the_same_words(unit: str, tsp: float) -> None:
    assert sensible(Amount(convert(tsp, "tsp", unit), unit)).text == sensible(Amount(tsp, "tsp")).text


@pytest.mark.parametrize("tsp", QUARTER_TEASPOONS)
def test_a_written_compound_reads_back_as_its_amount(tsp: float) -> None:
    text = line_text(tsp, "tsp", "baking powder")
    read = parse_ingredient_line(text)
    shown = sensible(Amount(tsp, "tsp"))
    assert read.name == "baking powder"
    assert isinstance(read.quantity, float) and read.unit is not None
    assert convert(read.quantity, read.unit, "tsp") == pytest.approx(convert(shown.quantity, shown.unit, "tsp"))


@pytest.mark.parametrize(("line", "quantity", "unit"), [
    ("1 tablespoon plus 2 teaspoons grated ginger", 5, "tsp"), ("1 cup plus 2 tablespoons flour", 18, "tbsp"),
    ("1 Tbsp. + 1/2 tsp. baking powder", 3.5, "tsp"), ("2 tbsp plus more for the pan", 2, "tbsp"),
])
def test_a_recipe_page_line_adding_two_measures_reads_as_their_sum(line: str, quantity: float, unit: str) -> None:
    read = parse_ingredient_line(line)
    assert (read.quantity, read.unit) == (pytest.approx(quantity), unit)


@given(tsp=st.floats(min_value=3, max_value=12))
def test_the_need_a_shopping_line_quotes_is_the_cards_amount_unless_that_is_short(tsp: float) -> None:
    card, need = sensible(Amount(tsp, "tsp"), "ginger"), needed(Amount(tsp, "tsp"), "ginger")
    assert _teaspoons(need.text) >= tsp * 0.98 - 1e-9
    if _teaspoons(card.text) >= tsp * 0.98:
        assert need.text == card.text


@pytest.mark.parametrize("tsp", QUARTER_TEASPOONS)
@pytest.mark.parametrize("name", ["ginger", "fresh thyme", "dried oregano", "kosher salt", "soy sauce"])
def test_a_shopping_line_bought_as_the_shop_sells_it_quotes_the_cards_amount(tsp: float, name: str) -> None:
    """Cook's QA F10: '1 piece ginger (need 1 tbsp + 2 tsp)' beside the card's '1 tbsp + 2 tsp ginger', not 'need
    2 tbsp'; the card's amount is quoted unless it is more than 2% short, and the line reads as a list's."""
    bought = line_text(tsp, "tsp", name, buying=True)
    card = sensible(Amount(tsp, "tsp"), name)
    if " (need " not in bought:
        return
    need = bought.partition(" (need ")[2].rstrip(")")
    assert need == (card.text if _teaspoons(card.text) >= tsp * 0.98 else needed(Amount(tsp, "tsp"), name).text)
    assert oddities(bought, tsp, "tsp", name, shopping=True) == [], bought


@pytest.mark.parametrize("eighths", range(1, 64))
def test_a_spoon_amount_halfway_between_two_measures_rounds_up_so_card_and_list_agree(eighths: int) -> None:
    """1 1/2 tsp x 7/4 is 2 5/8 tsp: the card writes 2 3/4 (as the list's need does), never 2 1/2 beside 'need 2 3/4'."""
    tsp = eighths / 8
    card, need = sensible(Amount(tsp, "tsp"), "kosher salt"), needed(Amount(tsp, "tsp"), "kosher salt")
    if eighths % 2 and tsp > 1 / 4 and card.unit == "tsp" and " + " not in card.text:
        assert card.quantity > tsp
        assert need.text == card.text
