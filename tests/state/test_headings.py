"""No heading or bold lead-in is left without content; no line of content is lost."""

from __future__ import annotations

from empty_markers import HEADING, LEAD_IN, empty_markers
from hypothesis import given
from hypothesis import strategies as st

from alfred_mcp.state.headings import without_empty_headings

PIECES = st.lists(st.sampled_from([
    "## Entities in context", "### Recent (loaded: use these refs)", "### Excluded", "## Constraints",
    "**Steps:**", "- recipe_1: Cod [read]", "  1. ✓ [read] found recipe_1", "Referenced: nothing specific", "",
]), max_size=14)


@given(pieces=PIECES)
def test_no_heading_or_lead_in_is_left_without_content_and_no_content_is_lost(pieces: list[str]) -> None:
    text = "\n".join(pieces)
    cleaned = without_empty_headings(text)
    assert empty_markers(cleaned) == []
    content = [line for line in pieces if line.strip() and not HEADING.match(line) and not LEAD_IN.match(line)]
    assert [line for line in cleaned.split("\n") if line in content] == content


@given(pieces=PIECES)
def test_a_text_without_empty_markers_is_returned_as_it_is(pieces: list[str]) -> None:
    text = "\n".join(pieces)
    if empty_markers(text) == []:
        assert without_empty_headings(text) == text


def test_a_group_emptied_by_what_the_notice_shows_goes_with_its_section() -> None:
    """The sample from a client model's run: Act's context after a read, every recent entity in the notice."""
    text = "## Entities in context\n### Recent (loaded: use these refs)\n\n## This step so far\n- db_read ok"
    assert without_empty_headings(text) == "## This step so far\n- db_read ok"
