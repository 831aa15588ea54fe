"""The door every argument passes (`kitchen/text.py`): every Unicode control character (category Cc: C0,
DEL and C1) is refused alike, in a value and in a key, naming where; tab and line breaks are text; UUID-shaped
text is kept as given."""

from __future__ import annotations

import unicodedata

import pytest

from alfred_mcp.errors import InputError
from alfred_mcp.kitchen.text import admit, sanitize

CC = [chr(code) for code in range(0x110000) if unicodedata.category(chr(code)) == "Cc"]
REFUSED = [c for c in CC if c not in "\t\n\r"]


def test_the_control_characters_are_the_65_of_category_cc() -> None:
    assert len(CC) == 65 and len(REFUSED) == 62 and "\u0085" in REFUSED and "\u009f" in REFUSED


@pytest.mark.parametrize("control", REFUSED, ids=[f"U+{ord(c):04X}" for c in REFUSED])
def test_every_control_character_is_refused_in_a_value_naming_the_field(control: str) -> None:
    with pytest.raises(InputError) as raised:
        admit({"data": {"notes": f"milk{control}"}})
    assert raised.value.fields == {"field": "data.notes", "position": 4}
    assert f"U+{ord(control):04X}" in raised.value.message


@pytest.mark.parametrize("control", REFUSED, ids=[f"U+{ord(c):04X}" for c in REFUSED])
def test_every_control_character_is_refused_in_a_key_naming_the_key_itself(control: str) -> None:
    with pytest.raises(InputError) as raised:
        admit({"data": {f"milk{control}": 1}})
    assert raised.value.fields["field"] == f"data.milk\\u{ord(control):04x}" and "The key" in raised.value.message


@pytest.mark.parametrize("control", REFUSED, ids=[f"U+{ord(c):04X}" for c in REFUSED])
def test_sanitize_drops_every_control_character(control: str) -> None:
    assert sanitize({"a": [f"x{control}y"]}) == {"a": ["xy"]}


def test_tabs_line_breaks_and_uuid_shaped_text_are_kept_as_given() -> None:
    given = {"notes": "a\tb\nc\r\nd", "url": "https://x.test/r/123e4567-e89b-12d3-a456-426614174000",
             "order": "123E4567E89B12D3A456426614174000", "bare": "123e4567-e89b-12d3-a456-426614174000"}
    assert admit(given).value == given


@pytest.mark.parametrize(("value", "large"), [
    ({"items": [{"name": "x"}] * 100}, False), ({"items": [{"name": "x", "quantity": 1}] * 300}, True),
    ({"source": "x" * 100_000}, False), ({"source": "x" * 100_001}, True), ([[[[1]]]] * 10, False),
])
def test_large_arguments_are_told_apart_without_walking_all_of_them(value: object, large: bool) -> None:
    from alfred_mcp.kitchen.text import is_large

    assert is_large(value) is large
