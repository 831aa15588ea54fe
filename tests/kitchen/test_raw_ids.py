"""What counts as a raw id in text: the dashed UUID form, or a run of 32+ hex characters mixing digits and letters."""

from __future__ import annotations

import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from alfred_mcp.kitchen.raw_ids import find_raw_id, is_raw_id, redact_raw_ids

DIGITS_32 = "12345678901234567890123456789012"


@pytest.mark.parametrize(
    ("text", "found"),
    [
        pytest.param(f"card no {DIGITS_32}", None, id="a-long-number-is-no-id"),
        pytest.param("code " + "deadbeef" * 4, None, id="a-run-of-letters-is-no-id"),
        pytest.param("A" * 1000, None, id="a-long-word-is-no-id"),
        pytest.param("ref 123e4567e89b12d3a456426614174000 end", "123e4567e89b12d3a456426614174000", id="compact-uuid"),
        pytest.param("x " + DIGITS_32 + "abcdef", DIGITS_32 + "abcdef", id="a-run-mixing-both-is-one-id-whole"),
        pytest.param("a 3f1b2c4d-1111-2222-3333-444455556666 b", "3f1b2c4d-1111-2222-3333-444455556666", id="dashed"),
        pytest.param("11111111-1111-1111-1111-111111111111", "11111111-1111-1111-1111-111111111111", id="dashed-digits-only"),
    ],
)
def test_raw_ids_in_text(text: str, found: str | None) -> None:
    assert find_raw_id(text) == found


@given(st.lists(st.sampled_from([uuid.uuid4, uuid.uuid1]), min_size=1, max_size=20))
def test_every_uuid_is_found_dashed_and_compact(makers: list) -> None:  # type: ignore[type-arg]
    for make in makers:
        value = make()
        assert is_raw_id(str(value)) and is_raw_id(value.hex) and is_raw_id(value.hex.upper())


@given(st.text(alphabet="0123456789abcdefX-", max_size=120), st.data())
def test_text_without_a_raw_id_has_no_piece_with_one(text: str, data: st.DataObject) -> None:
    """Closed under substrings: what passed on the way in cannot grow an id when clipped on the way out."""
    if find_raw_id(text) is None:
        start = data.draw(st.integers(0, len(text)))
        end = data.draw(st.integers(start, len(text)))
        assert find_raw_id(text[start:end]) is None


def test_redaction_keeps_numbers_and_words_and_removes_ids_whole() -> None:
    text = f"card {DIGITS_32}, word {'feed' * 8}, id {uuid.UUID(int=7).hex}9a, dashed {uuid.UUID(int=9)}"
    assert redact_raw_ids(text) == f"card {DIGITS_32}, word {'feed' * 8}, id [id], dashed [id]"
