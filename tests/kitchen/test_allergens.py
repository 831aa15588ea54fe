"""An allergy covers what its taxonomy category holds; excludes and other words stay out."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from alfred_mcp.kitchen.allergens import allergen_hits, allergen_of
from alfred_mcp.kitchen.taxonomy import default_taxonomy

TAXONOMY = default_taxonomy()
ALLERGEN_GROUPS = ("shellfish", "peanuts", "tree nuts", "dairy", "eggs", "soy", "gluten", "fish")


@pytest.mark.parametrize(
    ("allergy", "member"),
    [pytest.param(group, member, id=f"{group}:{member}") for group in ALLERGEN_GROUPS for member in TAXONOMY.expand(group)],
)
def test_every_member_of_an_allergen_category_is_refused(allergy: str, member: str) -> None:
    assert allergen_of(member, [allergy]) == allergy


@pytest.mark.parametrize(
    ("allergy", "name"),
    [pytest.param(group, phrase, id=f"{group}:{phrase}") for group in ALLERGEN_GROUPS for phrase in TAXONOMY.category(group).excludes],
)
def test_a_category_exclude_is_not_the_allergen(allergy: str, name: str) -> None:
    assert allergen_of(name, [allergy]) is None


@pytest.mark.parametrize(
    ("name", "allergies", "expected"),
    [
        pytest.param("Tiger Prawns", ["Shellfish"], "Shellfish", id="plural-and-case"),
        pytest.param("Chicken Satay", ["peanuts"], "peanuts", id="a-dish-named-for-it"),
        pytest.param("strawberry jam", ["strawberries"], "strawberries", id="not-a-category-matches-by-words"),
        pytest.param("black pepper", ["shellfish", "peanuts"], None, id="unrelated"),
        pytest.param("oyster mushrooms", ["shellfish"], None, id="excluded-phrase"),
        pytest.param("shrimp", [], None, id="no-allergies"),
    ],
)
def test_allergen_of(name: str, allergies: list[str], expected: str | None) -> None:
    assert allergen_of(name, allergies) == expected


def test_hits_say_where_and_what() -> None:
    hits = allergen_hits([("ingredient", "shrimp"), ("ingredient", "rice"), ("name", "Shrimp Scampi")], ["shellfish"])
    assert [hit.describe() for hit in hits] == ["ingredient 'shrimp' contains shellfish", "name 'Shrimp Scampi' contains shellfish"]


_LOOK_ALIKE = {"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "x": "х", "i": "і", "s": "ѕ", "y": "у", "k": "κ"}
"""Latin letters and a look-alike of each from another script (Cyrillic, and a Greek kappa)."""


@given(st.sampled_from([("peanut butter", "peanuts"), ("tiger prawns", "shellfish"), ("whole milk", "milk"), ("sesame oil", "sesame")]),
       st.data())
def test_a_look_alike_letter_does_not_hide_an_allergen(case: tuple[str, str], data: st.DataObject) -> None:
    """'pеanut' with a Cyrillic е is still peanut: any mix of look-alike letters, in either case."""
    name, allergy = case
    swapped = "".join(_LOOK_ALIKE[ch] if ch in _LOOK_ALIKE and data.draw(st.booleans()) else ch for ch in name)
    assert allergen_of(swapped, [allergy]) == allergy
    assert allergen_of(swapped.upper(), [allergy]) == allergy
