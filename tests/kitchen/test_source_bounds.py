"""Every reader of untrusted input, against the shapes that used to stall or crash it: nesting 10,000
deep, flat graphs of millions of entries, keys and values with control characters. Each answers with
a refusal naming `source` (or reads what it can), never an internal error, never a recursion."""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from typing import Any

import pytest
from recipe_site import YOAST_RECIPE, paprika_archive

from alfred_mcp.errors import ImportSourceError, InputError
from alfred_mcp.kitchen.json_bounds import MAX_DEPTH, MAX_VALUES, depth_within
from alfred_mcp.kitchen.recipe_sources import MAX_RECIPE_VALUES, recipes_in_html, recipes_in_json, recipes_in_paprika
from alfred_mcp.kitchen.schema_org import draft_from_recipe, find_recipes
from alfred_mcp.kitchen.text import MAX_DEPTH as ARGUMENT_DEPTH
from alfred_mcp.kitchen.text import admit

PAPRIKA = {"name": "Stew", "ingredients": "1 onion\n2 carrots", "directions": "Chop.\nSimmer."}


def _json(document: str) -> list[dict[str, Any]]:
    return recipes_in_json(document)


def _page(document: str) -> list[dict[str, Any]]:
    return recipes_in_html(f'<html><head><script type="application/ld+json">{document}</script></head><body></body></html>')


def _paprika(document: str) -> list[dict[str, Any]]:
    return recipes_in_paprika(paprika_archive(raw=gzip.compress(document.encode()))).recipes


READERS: dict[str, Callable[[str], list[dict[str, Any]]]] = {"json": _json, "page": _page, "paprika": _paprika}
LIMITS = {"json": MAX_VALUES, "page": MAX_VALUES, "paprika": MAX_RECIPE_VALUES}


def _nested(depth: int, opener: str, closer: str, inner: str = "1") -> str:
    return opener * depth + inner + closer * depth


DEEP = {
    "arrays 10,000 deep": _nested(10_000, "[", "]"),
    "objects 10,000 deep": _nested(10_000, '{"a":', "}"),
    "a graph one level too deep": '{"@graph": ' + _nested(MAX_DEPTH, "[", "]") + "}",
    "a recipe nested in sections 5,000 deep": json.dumps({**YOAST_RECIPE, "recipeInstructions": "x"})[:-1]
    + ', "x": ' + _nested(5_000, '{"itemListElement": [', "]}") + "}",
}


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("shape", DEEP)
def test_deep_nesting_is_refused_naming_source(reader: str, shape: str) -> None:
    with pytest.raises(ImportSourceError) as raised:
        READERS[reader](DEEP[shape])
    assert raised.value.fields["field"] == "source"
    assert "levels deep" in raised.value.message or (reader == "paprika" and "Paprika recipe" in raised.value.message)


@pytest.mark.parametrize("reader", READERS)
def test_a_flat_graph_over_the_bound_is_refused_before_it_is_built(reader: str) -> None:
    entries = ",".join(["{}"] * (LIMITS[reader] + 1))
    with pytest.raises(ImportSourceError) as raised:
        READERS[reader](f'{{"@graph": [{entries}]}}')
    assert raised.value.fields["field"] == "source" and f"more than {LIMITS[reader]:,} values" in raised.value.message


@pytest.mark.parametrize("reader", ["json", "page"])
def test_a_recipe_nested_within_the_bound_is_found(reader: str) -> None:
    document = _nested((MAX_DEPTH - 6) // 2, '{"@graph": [', "]}", json.dumps(YOAST_RECIPE))  # two levels each, the recipe five
    assert [r["name"] for r in READERS[reader](document)] == [YOAST_RECIPE["name"]]


def test_find_recipes_over_millions_of_entries_looks_at_a_bounded_number() -> None:
    """Breadth first, never popping the front of a list: a recipe first is found, one past the bound is not looked for."""
    filler: list[Any] = [{}] * 2_400_000
    assert [r["name"] for r in find_recipes({"@graph": [YOAST_RECIPE, *filler]})] == [YOAST_RECIPE["name"]]
    assert find_recipes({"@graph": [*filler, YOAST_RECIPE]}) == []


@pytest.mark.parametrize("reader", READERS)
def test_keys_and_values_with_control_characters_never_reach_a_draft(reader: str) -> None:
    """Odd keys are ignored (only schema.org's are read) and control characters (C0, DEL, C1) are dropped from text."""
    weird = {f"k\u0000{i}\u0085": "x" for i in range(3)}
    if reader == "paprika":
        document = {**PAPRIKA, **weird, "name": "Stew\u0000\u009f", "directions": "Chop\u0007.\nSimmer\u0085."}
    else:
        document = {**YOAST_RECIPE, **weird, "name": "Cod\u0000\u009f", "recipeInstructions": ["Bake\u0007.", "Serve\u0085."]}
    (recipe,) = READERS[reader](json.dumps(document))
    draft, _ = draft_from_recipe(recipe, source_url=None)
    texts = [draft["name"], *draft["instructions"]]
    assert draft["name"] in ("Stew", "Cod") and not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for t in texts for c in t)


def test_a_recipe_with_millions_of_lines_is_read_up_to_what_a_draft_keeps() -> None:
    recipe = {**YOAST_RECIPE, "recipeIngredient": "1 egg\n" * 1_000_000, "recipeInstructions": "Stir.\n" * 1_000_000}
    draft, warnings = draft_from_recipe(recipe, source_url=None)
    assert len(draft["ingredients"]) == 100 and len(draft["instructions"]) == 50 and warnings


@pytest.mark.parametrize("depth", [ARGUMENT_DEPTH + 1, 10_000])
def test_tool_arguments_nested_too_deep_are_refused_naming_where(depth: int) -> None:
    value: Any = "x"
    for _ in range(depth):
        value = {"a": value}
    with pytest.raises(InputError) as raised:
        admit({"data": value})
    assert raised.value.fields["field"] == "data" + ".a" * (ARGUMENT_DEPTH - 1) and "levels deep" in raised.value.message


def test_depth_within_is_iterative() -> None:
    value: Any = 1
    for _ in range(100_000):
        value = [value]
    assert not depth_within(value) and depth_within([[1]])
