"""Where a bought thing is kept: fresh produce that keeps out of the fridge on the counter, the rest of the produce in
the fridge, a canned, dried or frozen thing by its form whatever section it was filed under, and every section of
the shopping list somewhere a kitchen has. The demo kitchen keeps its produce where these rules say."""

from __future__ import annotations

from datetime import date

import pytest

from alfred_mcp.kitchen.ingredient_kinds import form_of
from alfred_mcp.kitchen.plurals import plural
from alfred_mcp.kitchen.schema import LOCATIONS, SHOPPING_CATEGORIES
from alfred_mcp.kitchen.sections import store_section
from alfred_mcp.kitchen.seed import demo_kitchen
from alfred_mcp.kitchen.storage_places import BY_FORM, IN_THE_FRIDGE_EVEN_SO, ON_THE_COUNTER, kept_in
from alfred_mcp.kitchen.taxonomy import default_taxonomy, ingredient_words

TAXONOMY = default_taxonomy()
PRODUCE_MEMBERS = sorted({member for category in ("vegetables", "fruit", "herbs") for member in TAXONOMY.expand(category)})


def _place(name: str, category: str | None = None, unit: str | None = None, notes: str | None = None) -> str | None:
    return kept_in(store_section(name, category, TAXONOMY, unit), name, unit, notes)


@pytest.mark.parametrize("name", ON_THE_COUNTER)
@pytest.mark.parametrize("category", [None, "produce"])
def test_produce_that_keeps_out_of_the_fridge_goes_on_the_counter(name: str, category: str | None) -> None:
    for spelled in (name, plural(name), f"red {name}", name.title()):
        assert _place(spelled, category) == "counter", spelled


@pytest.mark.parametrize("name", IN_THE_FRIDGE_EVEN_SO)
def test_produce_named_like_a_counter_thing_but_kept_cold_goes_in_the_fridge(name: str) -> None:
    assert _place(name, "produce") == "fridge"
    assert _place(plural(name), "produce") == "fridge"


@pytest.mark.parametrize("member", PRODUCE_MEMBERS)
def test_every_other_fresh_produce_goes_in_the_fridge(member: str) -> None:
    """Every vegetable, fruit and herb of the taxonomy: on the counter only when its name holds a counter thing (and
    no cold one), else in the fridge, unless it is bought dried ('oregano', 'raisin') or the like."""
    words = ingredient_words(member)
    holds = lambda phrases: any(_run_in(ingredient_words(phrase), words) for phrase in phrases)  # noqa: E731
    form = form_of(member, None)
    expected = BY_FORM[form] if form in BY_FORM else (
        "counter" if holds(ON_THE_COUNTER) and not holds(IN_THE_FRIDGE_EVEN_SO) else "fridge")
    assert _place(member, "produce") == expected, member


def _run_in(phrase: tuple[str, ...], words: tuple[str, ...]) -> bool:
    return any(words[start:start + len(phrase)] == phrase for start in range(len(words) - len(phrase) + 1))


@pytest.mark.parametrize(("form", "place"), sorted(BY_FORM.items()))
@pytest.mark.parametrize("name", ["tomatoes", "garlic", "peas", "salmon", "mango", "porcini"])
@pytest.mark.parametrize("category", [None, "produce", "seafood"])
def test_a_canned_dried_or_frozen_thing_is_kept_by_its_form_whatever_its_section(form: str, place: str, name: str,
                                                                                   category: str | None) -> None:
    assert _place(f"{form} {name}", category) == place
    assert _place(name, category, notes=form) == place
    if form == "canned":
        assert _place(name, category, unit="can") == place


@pytest.mark.parametrize("section", SHOPPING_CATEGORIES)
def test_every_store_section_has_a_place_in_the_kitchen(section: str) -> None:
    assert kept_in(section) in LOCATIONS


def test_the_demo_kitchen_keeps_its_produce_and_its_frozen_things_where_the_rules_say() -> None:
    checked = 0
    for row in demo_kitchen(date(2026, 1, 12)).inventory:
        section = store_section(row["name"], None, TAXONOMY, row["unit"])
        place = kept_in(section, row["name"], row["unit"], row.get("notes"))
        if section == "produce" or place in ("counter", "freezer") and row["location"] != "freezer" or row.get("notes") == "frozen":
            assert place == row["location"], row
            checked += 1
    assert checked >= 15
