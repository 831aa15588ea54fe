"""A compound name is linked to the catalog entry it is, never to a part of it that names another food: 'rice milk' is
not the catalog's milk (nor its rice), 'almond butter' not butter, 'egg noodles' not eggs; 'cheddar cheese', 'plum
tomatoes', 'lemon juice', 'unsalted butter' still are their entry. Such a compound is unknown to the catalog (matched
by its name alone) and the taxonomy files it with its family: a plant milk is no dairy for an allergy, and is shelved
with the milk."""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import given
from hypothesis import strategies as st

from alfred_mcp.kitchen.allergens import allergen_hits
from alfred_mcp.kitchen.sections import store_section
from alfred_mcp.kitchen.seed import catalog_spellings
from alfred_mcp.kitchen.taxonomy import default_taxonomy
from alfred_mcp.state.compiler import CatalogIndex

ENTRIES = [names[0] for names in catalog_spellings()]
FOOD_WORDS = ("rice", "oat", "almond", "coconut", "soy", "cashew", "hemp", "peanut", "turkey", "egg", "apple", "corn",
              "butter", "milk", "noodles", "flour", "cheese", "vinegar", "cream", "bacon", "yogurt", "wine", "chicken", "lemon")
"""Words that are foods of their own: before or after an entry's words they may make the name another food."""
PLAIN_WORDS = ("fresh", "large", "whole", "unsalted", "organic", "chopped", "small", "good")
"""Words that say which one or how it is prepared, never another food."""


@cache
def index() -> tuple[CatalogIndex, dict[str, str]]:
    rows = [{"id": f"ing_{i}", "ref": f"ing_{i}", "name": names[0], "aliases": list(names[1:]), "category": None}
            for i, names in enumerate(catalog_spellings(), start=1)]
    return CatalogIndex(rows), {row["ref"]: row["name"] for row in rows}


def linked(name: str) -> str | None:
    catalog, names = index()
    found = catalog.match(name)
    return None if found is None else names[found.ref]


@given(entry=st.sampled_from(ENTRIES), word=st.sampled_from(FOOD_WORDS), before=st.booleans())
def test_a_compound_is_never_linked_to_an_entry_the_taxonomy_files_it_apart_from(entry: str, word: str, before: bool) -> None:
    """Whatever entry a compound of an entry and another food is linked to, the taxonomy files the compound in every
    category that entry is in: the link never says more (dairy, a section) than the name is."""
    name = f"{word} {entry}" if before else f"{entry} {word}"
    found = linked(name)
    taxonomy = default_taxonomy()
    if found is not None:
        assert set(taxonomy.categories_of(found)) <= set(taxonomy.categories_of(name)), (name, found)


@given(entry=st.sampled_from(ENTRIES), word=st.sampled_from(PLAIN_WORDS), notes=st.sampled_from(["", ", diced", " (optional)"]))
def test_a_word_that_is_no_food_keeps_the_entry(entry: str, word: str, notes: str) -> None:
    """'fresh basil', 'large eggs', 'unsalted butter, diced' are their entry, as the entry's own name is."""
    assert linked(entry) == entry
    assert linked(f"{word} {entry}{notes}") == entry


@pytest.mark.parametrize(("name", "entry"), [
    ("rice milk", None), ("oat milk", None), ("almond milk", None), ("soy milk", None), ("hemp milk", None),
    ("vanilla almond milk", None), ("coconut milk", "coconut milk"), ("whole milk", "milk"), ("milk", "milk"),
    ("peanut butter", "peanut butter"), ("almond butter", None), ("unsalted butter", "butter"), ("butter beans", None),
    ("cream of tartar", None), ("coconut cream", None), ("heavy cream", "heavy cream"), ("eggplant", "eggplant"),
    ("large eggs", "eggs"), ("egg noodles", None), ("egg yolks", "eggs"), ("buttermilk", "buttermilk"),
    ("cheddar cheese", "cheddar"), ("plum tomatoes", "tomatoes"), ("lemon juice", "lemons"), ("garlic powder", "garlic"),
    ("apple cider vinegar", None), ("white wine vinegar", None), ("turkey bacon", None), ("corn starch", None),
    ("chicken thighs (skin-on)", "chicken thighs"), ("kalamata olives, pitted", "kalamata olives"),
])
def test_compound_names_are_linked_to_the_entry_they_are(name: str, entry: str | None) -> None:
    assert linked(name) == entry


PLANT_MILKS = [name for name in default_taxonomy().expand("dairy alternatives") if name.endswith(("milk", "cream", "cheese"))]


@pytest.mark.parametrize("name", PLANT_MILKS)
def test_a_plant_milk_is_no_dairy_for_an_allergy_and_is_shelved_with_the_milk(name: str) -> None:
    taxonomy = default_taxonomy()
    assert allergen_hits([(name, name)], ["dairy"]) == []
    assert allergen_hits([("milk", "milk")], ["dairy"]) != []
    assert linked(name) in (None, name)  # never the catalog's milk, cream or cheese
    assert store_section(name, None, taxonomy) in ("dairy", "canned")  # coconut milk and cream come in cans
