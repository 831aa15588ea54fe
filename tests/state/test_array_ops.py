"""List columns change by add/remove: order kept, no duplicates, case-insensitive."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from alfred_mcp.errors import InvalidPayloadError, UnknownColumnError
from alfred_mcp.kitchen.schema import PREFERENCES, RECIPES
from alfred_mcp.state.array_ops import ListChange, dropped, split_list_changes


def test_add_keeps_order_and_skips_what_is_there() -> None:
    assert ListChange(add=("Shellfish", "peanuts")).apply(["peanuts"]) == ["peanuts", "Shellfish"]


def test_remove_is_case_insensitive_and_wins_over_add() -> None:
    assert ListChange(add=("dill",), remove=("PEANUTS", "dill")).apply(["peanuts", "sesame"]) == ["sesame"]


def test_split_separates_plain_values_from_list_changes() -> None:
    plain, changes = split_list_changes(PREFERENCES, {"cooking_skill_level": "advanced", "allergies": {"add": ["shellfish"]}})
    assert plain == {"cooking_skill_level": "advanced"} and changes == {"allergies": ListChange(add=("shellfish",))}


@pytest.mark.parametrize(
    ("data", "field"),
    [
        pytest.param({"name": {"add": ["x"]}}, "name", id="not-a-list-column"),
        pytest.param({"tags": {"append": ["x"]}}, "tags", id="unknown-key"),
        pytest.param({"tags": {}}, "tags", id="empty"),
        pytest.param({"tags": {"add": [""]}}, "tags", id="blank-item"),
    ],
)
def test_a_bad_list_change_names_the_column(data: dict[str, object], field: str) -> None:
    with pytest.raises(InvalidPayloadError) as raised:
        split_list_changes(RECIPES, data)
    assert raised.value.fields["field"] == field


def test_an_unknown_column_is_refused() -> None:
    with pytest.raises(UnknownColumnError):
        split_list_changes(RECIPES, {"colour": {"add": ["red"]}})


def test_dropped_names_what_a_replacement_loses() -> None:
    assert dropped(["peanuts", "Sesame"], ["sesame", "shellfish"]) == ["peanuts"]


@given(st.lists(st.sampled_from(["a", "B", "c", "d"]), unique_by=str.lower), st.lists(st.sampled_from(["a", "b", "e"])))
def test_adding_never_drops_and_never_duplicates(current: list[str], added: list[str]) -> None:
    after = ListChange(add=tuple(added)).apply(current)
    assert after[: len(current)] == current and len({item.lower() for item in after}) == len(after)
    assert dropped(current, after) == []
