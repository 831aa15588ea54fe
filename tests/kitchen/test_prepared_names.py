"""How an ingredient is prepared is its note, before or after its name, so the name is what the pantry and the
catalog call it (issue 25, cook QA G5: 'shredded red cabbage', 'crumbled feta', 'chopped parsley')."""

from __future__ import annotations

import itertools

import pytest

from alfred_mcp.kitchen.ingredient_lines import ingredient_line, parse_ingredient_line

PREPARATIONS = ["chopped", "finely chopped", "roughly chopped", "minced", "diced", "thinly sliced", "shredded", "grated",
                "freshly grated", "crumbled", "melted", "softened", "beaten", "mashed", "peeled and deveined", "packed",
                "crushed", "cubed", "halved", "torn", "sifted", "ripe"]
NAMES = ["red cabbage", "feta", "parsley", "onion", "butter", "shrimp", "brown sugar", "garlic", "bananas"]
AMOUNTS = [("1 cup", 1.0, "cup"), ("1-2 tbsp", "1-2", "tbsp"), ("1/2 cup", 0.5, "cup"), ("200 g", 200.0, "g"), ("3", 3.0, None),
           ("a handful of", 1.0, "handful")]


@pytest.mark.parametrize(("amount", "preparation", "name"), list(itertools.product(AMOUNTS, PREPARATIONS, NAMES)))
def test_a_preparation_before_the_name_is_a_note(amount: tuple[str, float | str, str | None], preparation: str, name: str) -> None:
    written, quantity, unit = amount
    line = parse_ingredient_line(f"{written} {preparation} {name}")
    assert (line.quantity, line.unit, line.name, line.notes) == (quantity, unit, name, preparation)


@pytest.mark.parametrize(("preparation", "name"), list(itertools.product(PREPARATIONS, NAMES)))
def test_a_preparation_after_the_name_is_the_same_note(preparation: str, name: str) -> None:
    before, after = parse_ingredient_line(f"2 tbsp {preparation} {name}"), parse_ingredient_line(f"2 tbsp {name}, {preparation}")
    assert (before.name, before.notes) == (after.name, after.notes) == (name, preparation)


@pytest.mark.parametrize(("size", "preparation"), list(itertools.product(["small", "large", "medium"], ["diced", "ripe", "thinly sliced"])))
def test_a_size_and_a_preparation_are_both_notes(size: str, preparation: str) -> None:
    line = parse_ingredient_line(f"2 {size} {preparation} onions, at room temperature")
    assert (line.name, line.notes) == ("onions", f"{size}; {preparation}; at room temperature")


@pytest.mark.parametrize("product", ["crushed tomatoes", "diced tomatoes", "chopped tomatoes", "sliced almonds", "shredded coconut",
                                     "crushed red pepper flakes", "ground beef", "ground cinnamon", "cooked rice", "smoked paprika"])
@pytest.mark.parametrize("amount", ["1 can", "2 cups", "1/2 tsp", "400 g"])
def test_a_name_sold_prepared_keeps_its_word(product: str, amount: str) -> None:
    assert parse_ingredient_line(f"{amount} {product}").name == product


@pytest.mark.parametrize("preparation", ["chopped", "diced", "finely chopped"])
def test_a_preparation_with_no_name_after_it_stays_the_name(preparation: str) -> None:
    line = parse_ingredient_line(f"1 cup {preparation}")
    assert line.name == preparation and line.notes is None


@pytest.mark.parametrize(("preparation", "name"), list(itertools.product(PREPARATIONS, NAMES)))
def test_a_prepared_line_written_back_reads_the_same(preparation: str, name: str) -> None:
    line = parse_ingredient_line(f"1 1/2 cups {preparation} {name}")
    again = parse_ingredient_line(ingredient_line(line.name, 1.5, line.unit, line.notes, line.is_optional))
    assert (again.quantity, again.unit, again.name, again.notes) == (1.5, "cup", name, preparation)
