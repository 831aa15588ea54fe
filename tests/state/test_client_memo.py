"""What a stage client was sent is not sent again while unchanged; full: true resends everything."""

from __future__ import annotations

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
