"""Counts with nouns that agree: '1 meal', '3 servings', never 'meal(s)' in any text the product writes."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from alfred_mcp.kitchen.plurals import counted

PRODUCT = Path(__file__).resolve().parents[2] / "alfred_mcp"
EITHER_NUMBER = re.compile(r"[A-Za-z]\((?:s|es)\)")
"""'meal(s)', 'pinch(es)': a noun written for one or many at once."""
NOT_A_NOUN = ("http(s)",)


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring constants (text for the reader of the code, not the product's text)."""
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            found.add(id(node.value))  # an attribute's docstring
    return found


def _either_number_strings() -> list[str]:
    wrong = []
    for path in sorted(PRODUCT.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        if not EITHER_NUMBER.search(source):
            continue
        tree = ast.parse(source)
        skip = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
                text = node.value
                for word in NOT_A_NOUN:
                    text = text.replace(word, "")
                if EITHER_NUMBER.search(text):
                    wrong.append(f"{path.relative_to(PRODUCT)}:{node.lineno}: {node.value!r}")
    for path in sorted([*PRODUCT.rglob("*.html"), *PRODUCT.rglob("*.js"), *PRODUCT.parent.joinpath("tools").glob("*.json")]):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if EITHER_NUMBER.search(line.replace("http(s)", "")):
                wrong.append(f"{path.name}:{number}: {line.strip()}")
    return wrong


def test_no_text_the_product_writes_counts_with_a_noun_for_one_or_many() -> None:
    """Every string the product writes (tool text, errors, views, tool descriptions) says '3 meals' or '1 meal'."""
    assert _either_number_strings() == []


@pytest.mark.parametrize(("count", "noun", "text"), [
    (1, "meal", "1 meal"), (0, "meal", "0 meals"), (3, "serving", "3 servings"), (2, "entry", "2 entries"),
    (1, "row", "1 row"), (12, "row", "12 rows"), (2, "pinch", "2 pinches"),
])
def test_a_count_says_its_noun_in_the_number_it_has(count: int, noun: str, text: str) -> None:
    assert counted(count, noun) == text


@given(st.integers(min_value=0, max_value=10_000), st.sampled_from(["meal", "serving", "row", "ref", "recipe", "error"]))
def test_one_is_singular_and_every_other_count_plural(count: int, noun: str) -> None:
    assert counted(count, noun) == f"{count} {noun}" + ("" if count == 1 else "s")
