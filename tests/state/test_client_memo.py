"""What a stage client was sent is not sent again while unchanged; full: true resends everything."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from alfred_mcp.state.client_memo import KEEP_TURNS, ClientMemo, elide_sections, split_sections

CONTEXT = "## Profile\nAllergies: peanuts\n\n## Task\nUser says: hi"


def test_sections_split_at_level_two_headings() -> None:
    assert split_sections("intro\n## A\none\n### sub\n## B\ntwo") == ["intro", "## A\none\n### sub", "## B\ntwo"]


def test_unchanged_sections_are_left_out_and_named_in_one_line() -> None:
    memo = ClientMemo()
    assert elide_sections(CONTEXT, memo, 1, full=False) == CONTEXT
    again = elide_sections(CONTEXT.replace("hi", "hello"), memo, 2, full=False)
    assert again == "## Task\nUser says: hello\n\n(As sent before, unchanged: Profile.)"
    assert elide_sections(CONTEXT.replace("hi", "hello"), memo, 3, full=False) == "(As sent before, unchanged: Profile; Task.)"


def test_full_sends_everything_again() -> None:
    memo = ClientMemo()
    elide_sections(CONTEXT, memo, 1, full=False)
    assert elide_sections(CONTEXT, memo, 2, full=True) == CONTEXT


def test_old_sections_are_forgotten_but_schemas_are_not() -> None:
    memo = ClientMemo()
    memo.remember("## Profile", "x", 1)
    memo.remember("schema:understand", "{}", 1)
    pruned = memo.pruned(2 + KEEP_TURNS)
    assert pruned.seen("## Profile", "x") is None and pruned.seen("schema:understand", "{}") == 1


def test_a_section_that_only_grew_is_sent_as_its_new_lines_under_their_headings() -> None:
    memo = ClientMemo()
    first = "## Entities\n### Recent\n- recipe_1: Cod [read]\n### Pending\n- gen_recipe_1: Soup"
    elide_sections(first, memo, 1, full=False)
    grown = "## Entities\n### Recent\n- recipe_1: Cod [read]\n- recipe_2: Salmon [read]\n### Pending\n- gen_recipe_1: Soup"
    assert elide_sections(grown, memo, 1, full=False) == (
        "## Entities (as sent before, with these lines added:)\n### Recent\n- recipe_2: Salmon [read]")


def test_a_section_that_lost_or_reordered_a_line_is_sent_whole() -> None:
    memo = ClientMemo()
    elide_sections("## Entities\n### Recent\n- recipe_1: Cod [read]\n- recipe_2: Salmon [read]", memo, 1, full=False)
    changed = "## Entities\n### Excluded\n- recipe_1: Cod [read]\n### Recent\n- recipe_2: Salmon [read]"
    assert elide_sections(changed, memo, 2, full=False) == changed


def test_a_new_group_is_sent_with_every_line_under_it() -> None:
    """A line that moved under a new '### ' heading (Recent -> Excluded) is sent again, under it."""
    memo = ClientMemo()
    elide_sections("## Entities\n### Recent\n- recipe_1: Cod [read]\n- recipe_2: Salmon [read]", memo, 1, full=False)
    moved = "## Entities\n### Recent\n- recipe_1: Cod [read]\n### Excluded\n- recipe_2: Salmon [read]"
    assert elide_sections(moved, memo, 2, full=False) == (
        "## Entities (as sent before, with these lines added:)\n### Excluded\n- recipe_2: Salmon [read]")


LINES = st.lists(st.sampled_from(["### Recent", "### Excluded", "- recipe_1: Cod", "- recipe_2: Salmon", "- inv_1: eggs", "note"]),
                 min_size=1, max_size=8)


@given(first=LINES, second=LINES)
def test_what_is_left_out_was_sent_before_under_the_same_heading(first: list[str], second: list[str]) -> None:
    """Whatever two versions of a section: a line the second sending leaves out was in the first, and its
    '### ' group is named wherever a line of it is sent."""
    memo = ClientMemo()
    elide_sections("## Entities\n" + "\n".join(first), memo, 1, full=False)
    sent = elide_sections("## Entities\n" + "\n".join(second), memo, 2, full=False)
    if sent == "(As sent before, unchanged: Entities.)":
        assert second == first
        return
    body = sent.split("\n")[1:]
    if sent.startswith("## Entities\n"):
        assert body == second
    else:
        assert sent.startswith("## Entities (as sent before, with these lines added:)")
        left_out = list(second)
        for line in body:
            if line in left_out:
                left_out.remove(line)
        assert all(line in first for line in left_out)
