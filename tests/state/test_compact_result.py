"""A result as compact lines: whole while it fits, its columns named once, and a cut that names the rows left out."""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from alfred_mcp.state.compact_result import compact_lines

WORDS = st.text(st.characters(min_codepoint=97, max_codepoint=122), min_size=1, max_size=30)
ROWS = st.lists(st.fixed_dictionaries({"name": WORDS, "note": st.one_of(st.none(), WORDS), "count": st.integers(0, 99)}),
                min_size=2, max_size=120)
HINT = "db_read a row by its ref"


def _result(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"lines": [{"ref": f"shop_{n}", **row} for n, row in enumerate(rows, 1)], "count": len(rows)}


@given(rows=ROWS)
def test_a_result_that_fits_is_whole_and_shorter_than_its_json(rows: list[dict[str, Any]]) -> None:
    result = _result(rows)
    lines = compact_lines(result, budget=100_000, rest_hint=HINT)
    columns = lines[1].removeprefix(f"lines ({len(rows)}): ").split(" | ")
    assert sorted(columns) == sorted(["ref", "name", "count", *(["note"] if any(r["note"] for r in rows) else [])])
    assert len(lines) == 2 + len(rows)
    for row, line in zip(result["lines"], lines[2:], strict=True):
        cells = line.removeprefix("- ").split(" | ")
        assert cells == [str(row[column]) if row[column] is not None else "" for column in columns][:len(cells)]
    assert len("\n".join(lines)) < len(json.dumps(result, separators=(",", ":")))


@given(rows=ROWS, budget=st.integers(400, 3_000))
def test_a_cut_names_exactly_the_rows_left_out_and_how_to_get_them(rows: list[dict[str, Any]], budget: int) -> None:
    lines = compact_lines(_result(rows), budget=budget, rest_hint=HINT)
    assert len("\n".join(lines)) <= budget
    shown = [line for line in lines if line.startswith("- ")]
    if len(shown) == len(rows):
        return
    assert HINT in lines[-1]
    (cut,) = [line for line in lines if line.startswith("+")]
    assert f"+{len(rows) - len(shown)} more rows of lines not shown (rows {len(shown) + 1}-{len(rows)}" in cut
    assert re.search(rf"shop_{len(shown) + 1}\b", cut) and re.search(rf"shop_{len(rows)}\b", cut)


@given(first=ROWS, second=ROWS, budget=st.integers(1_500, 4_000))
def test_lists_share_a_cut_each_keeping_rows_and_naming_those_left_out(first: list[dict[str, Any]], second: list[dict[str, Any]],
                                                                       budget: int) -> None:
    """'covered' does not crowd out 'already_listed': past the budget, the lists after the first give up rows first,
    each keeping at least 3, the first (the result's own rows) last."""
    result = {"covered": first, "already_listed": second}
    lines = compact_lines(result, budget=budget, rest_hint=HINT)
    assert len("\n".join(lines)) <= budget
    shown = {key: _shown(lines, key) for key in result}
    for key, rows in result.items():
        assert shown[key] >= min(len(rows), 3)
        if shown[key] < len(rows):
            assert f"+{len(rows) - shown[key]} more rows of {key} not shown (rows {shown[key] + 1}-{len(rows)})" in lines
    if shown["covered"] < len(first):
        assert shown["already_listed"] == min(len(second), 3)


def _shown(lines: list[str], key: str) -> int:
    header = next(n for n, line in enumerate(lines) if line.startswith(f"{key} ("))
    rows = 0
    for line in lines[header + 1:]:
        if not line.startswith("- "):
            break
        rows += 1
    return rows


def test_a_list_of_one_object_is_shown_as_that_object() -> None:
    assert compact_lines({"tables": [{"name": "recipes", "columns": [{"name": "id"}, {"name": "name"}]}]}, budget=1_000,
                         rest_hint=HINT) == ["tables.name: recipes", "tables.columns (2): name", "- id", "- name"]


def test_empty_values_are_left_out_and_nested_objects_flattened() -> None:
    lines = compact_lines({"recipe": "recipe_1", "notes": None, "tags": [], "constraints": {"must_exclude": ["olives"], "goal": None}},
                          budget=1_000, rest_hint=HINT)
    assert lines == ["recipe: recipe_1", "constraints.must_exclude: olives"]
