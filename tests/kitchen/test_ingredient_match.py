"""Dislikes and exclusions match the thing; allergies match whatever holds the allergen.

Generated over every name the catalog (names and aliases) and the taxonomy (members) know, in both
directions: a name is its own thing in every way a recipe writes it; a product made from it ('olive oil',
'peanut butter') is not that thing for a dislike, and still holds it for an allergy.
"""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alfred_mcp.kitchen.allergens import allergen_of
from alfred_mcp.kitchen.ingredient_match import (
    free_from_marks,
    heads_with,
    holds_words,
    is_disliked,
    same_variant,
    spellings,
    term_matches,
)
from alfred_mcp.kitchen.seed import demo_kitchen
from alfred_mcp.kitchen.taxonomy import default_taxonomy, ingredient_words
from alfred_mcp.operations.search import pantry_coverage
from alfred_mcp.state.pantry import Stock, needs_of

TAXONOMY = default_taxonomy()
CATALOG = demo_kitchen(date(2026, 1, 12)).catalog
KNOWN = sorted({name.lower() for row in CATALOG for name in (row["name"], *(row.get("aliases") or ()))}
               | {member.lower() for category in TAXONOMY.categories() for member in TAXONOMY.category(category).members})
"""Every ingredient name the project knows, from the catalog and the taxonomy."""
PRODUCTS = ("oil", "paste", "powder", "extract", "sauce", "stock", "broth", "vinegar", "butter", "flour", "milk", "juice",
            "syrup", "seasoning", "dressing")
"""Words that, after an ingredient, name a product made from it."""
ALLERGIES = ("shellfish", "peanuts", "tree nuts", "dairy", "eggs", "soy", "gluten", "fish", "sesame")


def written(name: str) -> list[str]:
    """The ways a recipe line writes the thing `name`."""
    return [name, name.upper(), name.title(), f"fresh {name}", f"{name}, chopped", f"{name} (about 2 cups)",
            f"2 cloves of {name}", f"salt and {name}"]


def test_every_known_name_is_its_own_thing_however_a_line_writes_it() -> None:
    cases = [(name, variant) for name in KNOWN for variant in written(name) if not TAXONOMY.excludes_from_member(variant, name)]
    assert len(cases) > 5000
    missed = [(term, line) for term, line in cases if is_disliked(line, (term,), TAXONOMY) != term]
    assert missed == []


def _products() -> list[tuple[str, str]]:
    return [(name, f"{name} {product}") for name in KNOWN for product in PRODUCTS
            if ingredient_words(name)[-len(ingredient_words(product)):] != ingredient_words(product)
            and TAXONOMY.resolve_category(name) is None
            and not any(heads_with(f"{name} {product}", other) for other in spellings(name)[1:])]
    """Every known name with a product word after it, unless the catalog names the product as that very thing
    ('miso paste' is the catalog's miso, so 'white miso paste' is white miso)."""


def test_a_product_made_from_a_thing_is_not_that_thing_for_a_dislike() -> None:
    cases = _products()
    assert len(cases) > 8000
    assert [(term, product) for term, product in cases if heads_with(product, term) or is_disliked(product, (term,), TAXONOMY)] == []


def test_a_product_made_from_a_thing_still_holds_it_for_an_allergy() -> None:
    assert [(term, product) for term, product in _products() if allergen_of(product, [term]) != term] == []


@pytest.mark.parametrize("allergy", ALLERGIES)
def test_an_allergy_category_holds_the_products_made_from_its_members(allergy: str) -> None:
    category = TAXONOMY.resolve_category(allergy)
    members = TAXONOMY.expand(allergy) if category else (allergy,)
    for member in members:
        for product in PRODUCTS:
            name = f"{member} {product}"
            if category is None or TAXONOMY.matches(name, category):
                assert allergen_of(name, [allergy]) == allergy, name
            else:  # only a phrase the category's excludes name (e.g. 'coconut milk' for dairy) falls out
                assert any(holds_words(name, phrase) for phrase in _excludes(category)), name


def _excludes(category: str) -> list[str]:
    pending, found, seen = [category], [], set()
    while pending:
        current = pending.pop()
        if current not in seen:
            seen.add(current)
            entry = TAXONOMY.category(current)
            found += entry.excludes
            pending += entry.includes
    return found


@pytest.mark.parametrize(
    ("name", "term", "thing", "allergen"),
    [
        pytest.param("olive oil", "olives", False, True, id="olive-oil-is-not-olives"),
        pytest.param("extra-virgin olive oil", "olives", False, True, id="extra-virgin-olive-oil"),
        pytest.param("kalamata olives", "olives", True, True, id="kalamata-olives"),
        pytest.param("olive", "olives", True, True, id="singular"),
        pytest.param("olives, pitted and halved", "olives", True, True, id="olives-with-notes"),
        pytest.param("peanut oil", "peanuts", True, True, id="peanut-oil-is-peanuts-by-category"),
        pytest.param("peanut butter", "peanuts", True, True, id="peanut-butter-is-peanuts"),
        pytest.param("sesame oil", "sesame", False, True, id="sesame-oil-holds-sesame"),
        pytest.param("butter", "dairy", True, True, id="butter-is-dairy"),
        pytest.param("peanut butter", "butter", False, True, id="peanut-butter-is-not-the-butter-of-dairy"),
        pytest.param("coconut milk", "milk", False, True, id="coconut-milk-is-not-milk"),
        pytest.param("cloves of garlic", "garlic", True, True, id="cloves-of-garlic"),
        pytest.param("garlic powder", "garlic", False, True, id="garlic-powder"),
        pytest.param("eggplant", "egg", False, False, id="eggplant-is-not-egg"),
    ],
)
def test_the_rule_in_both_directions(name: str, term: str, thing: bool, allergen: bool) -> None:
    assert term_matches(name, term, TAXONOMY, strict=True) is thing
    assert (allergen_of(name, [term]) == term) is allergen


@settings(max_examples=400, deadline=None)
@given(name=st.sampled_from(KNOWN), term=st.sampled_from(KNOWN), extra=st.sampled_from(["", " oil", ", sliced", "fresh "]))
def test_whatever_a_dislike_catches_the_same_word_as_an_allergy_catches(name: str, term: str, extra: str) -> None:
    line = extra + name if extra.endswith(" ") else name + extra
    if term_matches(line, term, TAXONOMY, strict=True):
        assert allergen_of(line, [term]) == term


def test_every_name_the_catalog_gives_one_ingredient_matches_it_both_ways() -> None:
    """A dislike or an allergy written with one of an ingredient's catalog names catches a line written with another
    ('aubergine' and 'grilled eggplant', 'scallions' and 'green onions')."""
    from alfred_mcp.kitchen.seed import catalog_spellings

    pairs = [(a, b) for names in catalog_spellings() for a in names for b in names if a != b]
    assert len(pairs) > 100
    missed = [(a, b) for a, b in pairs if is_disliked(f"chopped {b}", (a,), TAXONOMY) != a or allergen_of(f"{b}, sliced", [a]) != a]
    assert missed == []
    assert is_disliked("grilled eggplant", ("aubergine",), TAXONOMY) == "aubergine"
    assert allergen_of("eggplant parmesan", ["aubergine"]) == "aubergine"


_FREE_FROM_SPELLINGS = [("dairy-free", "dairy-free"), ("Dairy Free", "dairy-free"), ("non-dairy", "dairy-free"),
                        ("milk-free", "dairy-free"), ("vegan", "vegan"), ("plant-based", "vegan"),
                        ("gluten-free", "gluten-free"), ("egg-free", "egg-free"), ("lactose free", "lactose-free")]
_PLAIN_ITEMS = ["Greek yogurt", "yogurt", "butter", "cheddar cheese", "pasta", "bread", "mayonnaise", "milk"]


@pytest.mark.parametrize(("spelling", "mark"), _FREE_FROM_SPELLINGS)
@pytest.mark.parametrize("item", _PLAIN_ITEMS)
def test_a_free_from_variant_is_not_the_plain_item(spelling: str, mark: str, item: str) -> None:
    """'dairy-free yogurt' is not the pantry's Greek yogurt; two spellings of one freedom are the same variant."""
    variant = f"{spelling} {item}"
    assert free_from_marks(variant) == {mark} and free_from_marks(item) == frozenset()
    assert not same_variant(variant, item) and same_variant(variant, f"{mark} {item}")
    pantry = Stock([{"id": "1", "name": item, "ingredient_id": "ing_1", "quantity": 1, "unit": "cup"},
                    {"id": "2", "name": f"{mark} {item}", "ingredient_id": "ing_1", "quantity": 1, "unit": "cup"}])
    assert [row["id"] for row in pantry.matching(variant, "ing_1")] == ["2"]
    assert [row["id"] for row in pantry.matching(item, "ing_1")] == ["1"]
    rows = [{"name": variant, "ingredient_id": "ing_1", "quantity": 1, "unit": "cup"},
            {"name": item, "ingredient_id": "ing_1", "quantity": 1, "unit": "cup"}]
    assert len(needs_of(("recipe_1", row, 1.0) for row in rows)) == 2  # never summed into one need
    for linked in ("ing_1", None):  # what can I cook: neither covers the other, by catalog link or by words
        assert pantry_coverage([{"name": variant, "ingredient_id": linked}], [{"name": item, "ingredient_id": linked}]).missing == (variant,)
        assert pantry_coverage([{"name": item, "ingredient_id": linked}], [{"name": variant, "ingredient_id": linked}]).missing == (item,)
