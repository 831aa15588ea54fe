"""The profile's allergies, dislikes and diet in one compact line (what a model that drafts must know): every value
set is in it under its word, in the order allergies, dislikes, diet; a profile setting none of them gives no line."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from alfred_mcp.state.context import LIMITS, limits_line

WORDS = st.lists(st.text(alphabet="abcdefghij ", min_size=1, max_size=12).map(str.strip).filter(bool), max_size=3)


@given(st.fixed_dictionaries({column: WORDS for column, _ in LIMITS}))
def test_every_allergy_dislike_and_diet_set_is_in_the_line_under_its_word(profile: dict[str, Any]) -> None:
    line = limits_line(profile)
    set_ones = [(column, word) for column, word in LIMITS if profile[column]]
    if not set_ones:
        assert line is None
        return
    assert line is not None
    expected = " ".join(f"{word}: {', '.join(profile[column])}." for column, word in set_ones)
    assert line == expected


def test_no_profile_gives_no_line() -> None:
    assert limits_line(None) is None and limits_line({}) is None
