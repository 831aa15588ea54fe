"""The ingredient taxonomy: word-aware category membership, aliases, expansion and loading."""

from __future__ import annotations

import json
from typing import Any

import pytest

from alfred_mcp.errors import ConfigError, InvalidFilterError
from alfred_mcp.kitchen.taxonomy import default_taxonomy, ingredient_words, load_taxonomy, taxonomy_path

TAXONOMY = default_taxonomy()


@pytest.mark.parametrize(
    ("name", "inside", "outside"),
    [
        pytest.param("cod fillets", {"fish", "seafood"}, {"shellfish", "meat"}, id="cod-fillets"),
        pytest.param("Salmon fillet", {"fish", "seafood"}, set(), id="salmon-fillet"),
        pytest.param("shrimp", {"shellfish", "seafood"}, {"fish"}, id="shrimp"),
        pytest.param("fish sauce", {"fish", "condiments"}, set(), id="fish-sauce"),
        pytest.param("chicken thighs", {"poultry", "meat"}, {"red meat"}, id="chicken-thighs"),
        pytest.param("pancetta", {"pork", "meat"}, set(), id="pancetta"),
        pytest.param("turkey bacon", {"poultry", "meat"}, {"pork"}, id="turkey-bacon-not-pork"),
        pytest.param("spring onions", {"alliums", "vegetables"}, set(), id="spring-onions"),
        pytest.param("garlic cloves", {"alliums"}, {"spices"}, id="garlic-clove-not-spice"),
        pytest.param("peanut butter", {"peanuts", "nuts"}, {"dairy", "legumes"}, id="peanut-butter"),
        pytest.param("almond milk", {"tree nuts", "dairy alternatives"}, {"dairy"}, id="almond-milk"),
        pytest.param("coconut milk", {"dairy alternatives"}, {"dairy", "nuts"}, id="coconut-milk"),
        pytest.param("butter beans", {"legumes"}, {"dairy"}, id="butter-beans"),
        pytest.param("butternut squash", {"squash", "vegetables"}, {"dairy", "nuts"}, id="butternut"),
        pytest.param("unsalted butter", {"dairy"}, set(), id="butter"),
        pytest.param("parmesan", {"cheese", "dairy"}, set(), id="parmesan"),
        pytest.param("vegan cheese", {"cheese"}, {"dairy"}, id="vegan-cheese"),
        pytest.param("eggplant", {"nightshades", "vegetables"}, {"eggs"}, id="eggplant-not-egg"),
        pytest.param("large eggs", {"eggs"}, set(), id="eggs"),
        pytest.param("sweet potatoes", {"root vegetables"}, {"nightshades"}, id="sweet-potato"),
        pytest.param("cherry tomatoes", {"nightshades"}, {"stone fruit", "fruit"}, id="cherry-tomato"),
        pytest.param("oyster mushrooms", {"mushrooms"}, {"shellfish", "seafood"}, id="oyster-mushroom"),
        pytest.param("oyster sauce", {"shellfish", "condiments"}, {"mushrooms"}, id="oyster-sauce"),
        pytest.param("water chestnuts", {"vegetables"}, {"nuts", "tree nuts"}, id="water-chestnut"),
        pytest.param("pine nuts", {"tree nuts", "nuts"}, set(), id="pine-nuts"),
        pytest.param("ground nutmeg", {"spices"}, {"nuts"}, id="nutmeg"),
        pytest.param("bay leaves", {"herbs"}, set(), id="bay-leaves"),
        pytest.param("Jalapeños", {"nightshades"}, set(), id="accents"),
        pytest.param("red wine vinegar", {"condiments"}, {"alcohol"}, id="wine-vinegar"),
        pytest.param("dry white wine", {"alcohol"}, set(), id="white-wine"),
        pytest.param("vegetable broth", {"broths"}, {"vegetables"}, id="vegetable-broth"),
        pytest.param("flour tortillas", {"bread", "gluten"}, {"baking"}, id="flour-tortilla"),
        pytest.param("corn tortillas", {"bread"}, {"gluten", "vegetables"}, id="corn-tortilla"),
        pytest.param("rice noodles", {"pasta", "grains"}, {"gluten"}, id="rice-noodles"),
        pytest.param("spaghetti squash", {"squash"}, {"pasta", "gluten"}, id="spaghetti-squash"),
        pytest.param("rice vinegar", {"condiments"}, {"grains"}, id="rice-vinegar"),
        pytest.param("codfish", set(), {"fish"}, id="codfish-is-one-word"),
    ],
)
def test_categories_of_follows_whole_words_and_excludes(name: str, inside: set[str], outside: set[str]) -> None:
    """An ingredient name is in the categories whose member words it holds, and not in those that exclude it."""
    found = set(TAXONOMY.categories_of(name))
    assert inside <= found
    assert not outside & found


@pytest.mark.parametrize(
    ("text", "words"),
    [
        pytest.param("Cod Fillets", ("cod", "fillet"), id="lowercase-plural"),
        pytest.param("berries", ("berry",), id="ies"),
        pytest.param("tomatoes", ("tomato",), id="oes"),
        pytest.param("peaches", ("peach",), id="ches"),
        pytest.param("radishes", ("radish",), id="shes"),
        pytest.param("bay leaves", ("bay", "leaf"), id="irregular"),
        pytest.param("asparagus", ("asparagus",), id="us-kept"),
        pytest.param("swiss chard", ("swiss", "chard"), id="ss-kept"),
        pytest.param("peas", ("pea",), id="short-plural"),
        pytest.param("gas", ("gas",), id="three-letters-kept"),
        pytest.param("all-purpose flour", ("all", "purpose", "flour"), id="hyphen"),
        pytest.param("za'atar", ("zaatar",), id="apostrophe"),
        pytest.param("Crème Fraîche", ("creme", "fraiche"), id="accents"),
        pytest.param("  ", (), id="blank"),
    ],
)
def test_ingredient_words_lowercases_splits_and_folds_plurals(text: str, words: tuple[str, ...]) -> None:
    """Names are compared as lowercase ASCII words with simple plurals folded."""
    assert ingredient_words(text) == words


@pytest.mark.parametrize(
    ("word", "category"),
    [
        pytest.param("fish", "fish", id="name"),
        pytest.param("Fish", "fish", id="case"),
        pytest.param("fishes", "fish", id="plural"),
        pytest.param("leafy green", "leafy greens", id="singular"),
        pytest.param("greens", "leafy greens", id="alias"),
        pytest.param("onions", "alliums", id="alias-onions"),
        pytest.param("berry", "berries", id="singular-ies"),
        pytest.param("Veggies", "vegetables", id="alias-irregular"),
        pytest.param("non-dairy", "dairy alternatives", id="alias-hyphen"),
        pytest.param("cod", None, id="member-is-not-a-category"),
        pytest.param("", None, id="empty"),
    ],
)
def test_resolve_category_reads_names_aliases_and_plurals(word: str, category: str | None) -> None:
    """A category is found by its name, an alias, or either in another case or number."""
    assert TAXONOMY.resolve_category(word) == category


def test_expand_includes_sub_categories_sorted_without_duplicates() -> None:
    """Expanding seafood gives fish and shellfish members, sorted and once each."""
    terms = TAXONOMY.expand("seafood")
    assert {"cod", "salmon", "tilapia", "shrimp", "mussel"} <= set(terms)
    assert list(terms) == sorted(set(terms))


def test_expand_accepts_an_alias() -> None:
    """expand('greens') is expand('leafy greens')."""
    assert TAXONOMY.expand("greens") == TAXONOMY.expand("leafy greens")


def test_every_expanded_term_belongs_to_its_category() -> None:
    """No member is cancelled by its own category's excludes or an including category's excludes."""
    stray = [
        (category, term)
        for category in TAXONOMY.categories()
        for term in TAXONOMY.expand(category)
        if not TAXONOMY.matches(term, category)
    ]
    assert stray == []


@pytest.mark.parametrize("call", ["expand", "matches", "category"])
def test_unknown_category_is_refused_with_the_known_ones(call: str) -> None:
    """Naming a category that does not exist raises an input error listing the real ones."""
    method = getattr(TAXONOMY, call)
    args = ("cod", "fishy things") if call == "matches" else ("fishy things",)
    with pytest.raises(InvalidFilterError) as raised:
        method(*args)
    assert raised.value.fields["field"] == "category"
    assert raised.value.fields["valid"] == TAXONOMY.categories()


def test_matches_accepts_aliases() -> None:
    """matches() takes an alias as well as a name."""
    assert TAXONOMY.matches("baby spinach", "greens")
    assert not TAXONOMY.matches("baby spinach", "onions")


def test_categories_are_sorted_described_and_plentiful() -> None:
    """The packaged file holds about thirty described categories, listed in order."""
    names = TAXONOMY.categories()
    assert names == sorted(names)
    assert len(names) >= 30
    assert all(TAXONOMY.category(name).description for name in names)


def test_category_returns_the_definition_by_alias() -> None:
    """category() resolves aliases and returns the parsed definition."""
    seafood = TAXONOMY.category("sea food")
    assert seafood.name == "seafood" and seafood.includes == ("fish", "shellfish")


def test_loading_is_deterministic() -> None:
    """Loading the same data twice gives equal taxonomies that answer alike."""
    data = json.loads(taxonomy_path().read_text(encoding="utf-8"))
    first, second = load_taxonomy(data), load_taxonomy(json.loads(json.dumps(data)))
    assert first == second == TAXONOMY
    names = ["cod fillets", "peanut butter", "chicken thighs", "spring onions"]
    assert [first.categories_of(n) for n in names] == [second.categories_of(n) for n in names]


def test_default_taxonomy_is_loaded_once() -> None:
    """The packaged taxonomy is cached."""
    assert default_taxonomy() is default_taxonomy()


def _data(**categories: Any) -> dict[str, Any]:
    return {"version": 1, "categories": categories}


@pytest.mark.parametrize(
    "data",
    [
        pytest.param({"version": 2, "categories": {}}, id="version"),
        pytest.param([], id="not-an-object"),
        pytest.param({"version": 1, "categories": {}, "extra": 1}, id="unknown-top-level-key"),
        pytest.param({"version": 1, "categories": []}, id="categories-not-an-object"),
        pytest.param(_data(fish={"members": "cod"}), id="members-not-a-list"),
        pytest.param(_data(fish={"members": ["cod"], "parents": []}), id="unknown-category-key"),
        pytest.param(_data(fish={"description": "empty"}), id="no-members-or-includes"),
        pytest.param(_data(fish={"members": ["cod"], "includes": ["shellfish"]}), id="unknown-include"),
        pytest.param(_data(a={"members": ["x"], "includes": ["b"]}, b={"members": ["y"], "includes": ["a"]}), id="cycle"),
        pytest.param(_data(fish={"members": ["cod", "!!"]}), id="member-without-words"),
        pytest.param({**_data(fish={"members": ["cod"]}), "aliases": {"seafood": "shellfish"}}, id="alias-to-unknown"),
        pytest.param({**_data(fish={"members": ["cod"]}), "aliases": {"fishes": "fish"}}, id="alias-clashes-with-name"),
        pytest.param(_data(fish={"members": ["cod"]}, fishes={"members": ["trout"]}), id="names-fold-alike"),
    ],
)
def test_malformed_taxonomy_is_refused(data: Any) -> None:
    """A taxonomy with the wrong shape or dangling names fails loudly at load time."""
    with pytest.raises(ConfigError):
        load_taxonomy(data)


def test_small_taxonomy_applies_includes_and_local_excludes() -> None:
    """A parent holds its sub-categories' names, minus what the parent or the sub-category excludes."""
    taxonomy = load_taxonomy(
        _data(
            fruit={"members": ["apple"], "includes": ["stone fruit"], "excludes": ["apple cider vinegar"]},
            **{"stone fruit": {"members": ["cherry"], "excludes": ["cherry tomato"]}},
        )
    )
    assert taxonomy.categories_of("cherries") == ("fruit", "stone fruit")
    assert taxonomy.categories_of("cherry tomatoes") == ()
    assert taxonomy.categories_of("apple cider vinegar") == ()
    assert taxonomy.expand("fruit") == ("apple", "cherry")
