"""What a stage client was sent is not sent again while unchanged, whichever role it was sent for; full: true
resends everything."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from alfred_mcp.state.client_memo import KEEP_TURNS, ClientMemo, elide_sections, row_ref, split_sections

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


def test_old_sections_and_rows_are_forgotten_but_schemas_are_not() -> None:
    memo = ClientMemo()
    memo.remember_section("## Profile", "x", 1, "think")
    memo.remember_rows(["- recipe_1 Cod"], 1)
    memo.remember("schema:understand", "{}", 1)
    pruned = memo.pruned(2 + KEEP_TURNS)
    assert not pruned.sections and not pruned.row_sent("- recipe_1 Cod") and pruned.seen("schema:understand", "{}") == 1
    assert memo.pruned(1 + KEEP_TURNS).row_sent("  - recipe_1 Cod")


def test_a_section_that_only_grew_is_sent_as_its_new_lines_under_their_headings() -> None:
    memo = ClientMemo()
    first = "## Entities\n### Recent\n- recipe_1: Cod [read]\n### Pending\n- gen_recipe_1: Soup"
    elide_sections(first, memo, 1, full=False)
    grown = "## Entities\n### Recent\n- recipe_1: Cod [read]\n- recipe_2: Salmon [read]\n### Pending\n- gen_recipe_1: Soup"
    assert elide_sections(grown, memo, 1, full=False) == (
        "## Entities (as sent before, with these lines added:)\n### Recent\n- recipe_2: Salmon [read]")


def test_a_section_that_only_gained_blank_lines_is_unchanged() -> None:
    memo = ClientMemo()
    elide_sections("## Constraints\n- Never use: cod", memo, 1, full=False)
    assert elide_sections("## Constraints\n- Never use: cod\n\n", memo, 2, full=False) == "(As sent before, unchanged: Constraints.)"


def test_a_changed_section_names_the_ref_lines_the_client_has_by_their_refs() -> None:
    memo = ClientMemo()
    elide_sections("## Entities\n### Recent\n- recipe_1: Cod [read]\n- recipe_2: Salmon [read]", memo, 1, full=False)
    changed = "## Entities\n### Excluded\n- recipe_1: Cod [read]\n- recipe_3: Tacos [read]\n### Recent\n- recipe_2: Salmon [read]"
    assert elide_sections(changed, memo, 2, full=False) == (
        "## Entities\n### Excluded\n- as sent before: recipe_1\n- recipe_3: Tacos [read]\n### Recent\n- as sent before: recipe_2")


def test_a_version_sent_for_another_role_is_named_by_role_and_turn() -> None:
    """Understand and Think each get their own 'Entities': Reply, given Understand's again, is told which one."""
    memo = ClientMemo()
    elide_sections("## Entities\n- recipe_1: Cod [background]", memo, 1, full=False, role="understand")
    elide_sections("## Entities\nNone in view yet.", memo, 1, full=False, role="think")
    assert elide_sections("## Entities\n- recipe_1: Cod [background]", memo, 1, full=False, role="reply") == (
        "(As sent before, unchanged: Entities, as sent to understand in turn 1.)")
    assert elide_sections("## Entities\nNone in view yet.", memo, 1, full=False, role="reply") == "(As sent before, unchanged: Entities.)"


def test_two_versions_the_words_cannot_tell_apart_are_sent_whole() -> None:
    memo = ClientMemo()
    elide_sections("## Step\nstep 1", memo, 1, full=False, role="act")
    elide_sections("## Step\nstep 2", memo, 1, full=False, role="act")
    assert elide_sections("## Step\nstep 1", memo, 1, full=False, role="act") == "## Step\nstep 1"


def test_a_new_group_is_sent_with_every_line_under_it() -> None:
    """A line that moved under a new '### ' heading (Recent -> Excluded) is sent again, under it."""
    memo = ClientMemo()
    recent = [f"- recipe_{n}: Recipe number {n} [read]" for n in range(3, 12)]
    elide_sections("\n".join(["## Entities", "### Recent", "- recipe_1: Cod [read]", *recent, "- recipe_2: Salmon [read]"]), memo, 1, full=False)
    moved = "\n".join(["## Entities", "### Recent", "- recipe_1: Cod [read]", *recent, "### Excluded", "- recipe_2: Salmon [read]"])
    assert elide_sections(moved, memo, 2, full=False) == (
        "## Entities (as sent before, with these lines added:)\n### Excluded\n- recipe_2: Salmon [read]")


def test_a_line_changed_after_its_start_is_sent_as_a_replacement() -> None:
    """The dashboard after one line changed: that line only, replacing the one that starts the same."""
    lines = ["- Recipes: 11 saved (italian: 2, mediterranean: 2, mexican: 2)", "- Inventory: 49 items (fridge: 19, pantry: 11)",
             "- Past their date: inv_8 milk (2026-11-26)", "- Shopping list: 9 to buy | Tasks: 5 open"]
    memo = ClientMemo()
    elide_sections("## Kitchen dashboard\n" + "\n".join(lines), memo, 1, full=False)
    changed = "\n".join([*lines[:3], "- Shopping list: 11 to buy | Tasks: 5 open"])
    assert elide_sections("## Kitchen dashboard\n" + changed, memo, 2, full=False) == (
        "## Kitchen dashboard (as sent before, with these lines added or replacing the line with the same start:)\n"
        "- Shopping list: 11 to buy | Tasks: 5 open")


LINES = st.lists(st.sampled_from(["### Recent", "### Excluded", "- recipe_1: Cod", "- recipe_1: Cod [created]", "- recipe_2: Salmon",
                                  "- inv_1: eggs", "note", ""]),
                 min_size=1, max_size=8)
SENDINGS = st.lists(st.tuples(LINES, st.sampled_from(["understand", "think", "act", "reply"]), st.integers(0, 2)), min_size=1, max_size=5)


def _read_again(sent: str, heading: str) -> str | None:
    """The body of `heading` in one answer as the client reads it (None: named as unchanged, or absent)."""
    for section in split_sections(sent):
        title, _, body = section.partition("\n")
        if title == heading or title.startswith(heading + " (as sent"):
            return body
    return None


@given(sendings=SENDINGS)
def test_what_an_answer_leaves_out_the_client_read_before_under_the_same_heading(
    sendings: list[tuple[list[str], str, int]],
) -> None:
    """Whatever versions of a section go to whichever roles: every line an answer leaves out, names by its ref or
    calls unchanged, the client read verbatim in an earlier answer under that heading; a version named by role and
    turn was sent to that role in that turn; nothing is left out the first time."""
    memo = ClientMemo()
    read: list[tuple[str, int, str]] = []  # (role, turn, line) the client read under '## Entities'
    whole: list[tuple[str, int, list[str]]] = []  # versions as the client has them
    turn = 1
    for lines, role, later in sendings:
        turn += later
        body = "\n".join(lines)
        sent = elide_sections("## Entities\n" + body, memo, turn, full=False, role=role)
        if not body.strip():
            assert sent == "## Entities"  # an empty section is the caller's to drop (state/headings.py)
            continue
        got = _read_again(sent, "## Entities")
        known = {line for _, _, line in read}
        if got is None:
            named = re.search(r"unchanged: Entities(?:, as sent to (\w+) in turn (\d+))?\.\)", sent)
            assert named is not None, sent
            if named.group(1):
                assert any(r == named.group(1) and t == int(named.group(2)) and [x for x in v if x.strip()] == [x for x in lines if x.strip()]
                           for r, t, v in whole)
            assert all(line in known for line in lines if line.strip())
        else:
            shown = got.splitlines()
            by_ref = {ref for line in shown if line.startswith("- as sent before: ") for ref in line[18:].split(", ")}
            for line in lines:
                if line.strip() and line not in shown:
                    assert line in known, (line, sent)
                    assert not line.startswith("- ") or line[2:].split(":")[0] in by_ref or "lines added" in sent, (line, sent)
            assert read or got.strip() == body.strip()
        read += [(role, turn, line) for line in lines]
        whole.append((role, turn, lines))


@given(st.lists(st.text(alphabet="abc xyz", min_size=1, max_size=30), min_size=1, max_size=6),
       st.lists(st.text(alphabet="abc xyz", min_size=1, max_size=30), min_size=1, max_size=6))
def test_the_conversation_goes_once_a_turn_whatever_a_later_role_is_cut_to(first: list[str], later: list[str]) -> None:
    """Understand's conversation is the turn's; Think's or Reply's version of it (another budget) is named, not sent.
    The next turn sends it again (as its new lines or whole)."""
    memo = ClientMemo()
    understand = "## Conversation\n" + "\n".join(f"User: {line}" for line in first)
    assert "## Conversation" in elide_sections(understand, memo, 3, full=False, role="understand")
    think = elide_sections("## Conversation\n" + "\n".join(f"Alfred: {line}" for line in later) + "\n\n## Task\nplan it", memo, 3,
                           full=False, role="think")
    assert "## Conversation" not in think and "Conversation, as sent to understand this turn" in think and "## Task\nplan it" in think
    assert elide_sections("## Conversation\nUser: something new", memo, 4, full=False, role="understand").startswith("## Conversation")
    assert "## Conversation\n" in elide_sections("## Conversation\nAlfred: whole", ClientMemo(), 3, full=True, role="think")


ENTITY_LINES = st.lists(st.from_regex(r"[a-z]{3,8}_[1-9][0-9]?: [A-Z][a-z]{2,9} \[read\]", fullmatch=True), min_size=1, max_size=6, unique=True)


@given(lines=ENTITY_LINES, held_count=st.integers(min_value=0, max_value=6), new=st.booleans())
def test_lines_the_client_holds_from_a_notice_are_never_sent_and_count_as_sent(lines: list[str], held_count: int, new: bool) -> None:
    """Entity lines a notice showed the rows of are not sent; a later version with them (and maybe one new line)
    sends only what is new, or is unchanged; a section left with nothing to send is left out."""
    rows = [f"- {line}" for line in lines]
    held = frozenset(rows[:held_count])
    memo = ClientMemo()
    first = elide_sections("## Entities\n### Recent\n" + "\n".join(rows), memo, 1, full=False, held=held)
    assert not any(row in first for row in held)
    assert ("## Entities" in first) == (len(held) < len(rows))
    added = ["- zzz_99: Later [read]"] if new else []
    later = elide_sections("## Entities\n### Recent\n" + "\n".join(rows + added), memo, 2, full=False)
    assert not any(row in later for row in rows), later
    assert (added[0] in later) if new else later == "(As sent before, unchanged: Entities.)"


@given(lines=ENTITY_LINES, roles=st.lists(st.sampled_from(["act (step 2)", "reply", "think"]), min_size=1, max_size=3))
def test_a_section_whose_rows_only_notices_showed_is_never_named_as_sent_before(lines: list[str], roles: list[str]) -> None:
    """'None in view yet' sent, then versions whose every row a notice showed (left out whole): no later answer says
    the section is 'as sent before, unchanged', since the client was never sent it with those rows."""
    rows = [f"- {line}" for line in lines]
    memo = ClientMemo()
    elide_sections("## Entities\nNone in view yet: read or search to get refs.", memo, 1, full=False, role="think")
    for role in roles:
        answer = elide_sections("## Entities\n### Recent\n" + "\n".join(rows), memo, 1, full=False, role=role, held=frozenset(rows))
        assert answer == "", answer


@given(ref=st.from_regex(r"(recipe|shop|meal|inv|task)_[1-9][0-9]{0,2}", fullmatch=True), name=st.from_regex(r"[A-Z][a-z]{2,9}( [a-z]{3,8}){0,3}", fullmatch=True))
def test_a_notice_line_shows_the_row_of_its_first_ref_in_any_form(ref: str, name: str) -> None:
    shown = [f"- {ref} | {name} | 1 | piece | added", f"  [ ] 1 bag {name} ({ref}) - for a salad",
             f"removed.ref: {ref}; removed.table: recipes; removed.label: {name}", f"- gen_recipe_1 {name} -> {ref}",
             f"  dinner: {name} ({ref}), meal_2, 4 serving(s)"]
    assert [row_ref(line) for line in shown] == [ref] * len(shown)
    assert [row_ref(line) for line in (f"recipes: {ref}, recipe_4", "drafts_reopened: gen_recipe_1", "meals: 8")] == [None] * 3


@given(gap=st.integers(min_value=1, max_value=4 * KEEP_TURNS), changed=st.booleans())
def test_the_kitchen_dashboard_goes_once_a_session_then_as_its_changed_lines(gap: int, changed: bool) -> None:
    """However many turns later Think runs again, the dashboard it was sent is not sent again: unchanged, it is
    named; changed, only the changed line goes."""
    lines = ["- Recipes: 11 saved (italian: 2, mediterranean: 2, mexican: 2, american: 1, greek: 1, indian: 1, japanese: 1)",
             "- Inventory: 49 items (fridge: 19, pantry: 11, cabinet: 8, counter: 7, freezer: 4)",
             "- Expiring within 3 days: inv_1 salmon fillets (2026-11-28), inv_2 avocado (2026-11-29), inv_3 chicken thighs (2026-11-29)",
             "- Next meals (7 of 10 planned from today): meal_1 Fri Nov 27 [dinner] → recipe_5 Miso-Glazed Salmon with Bok Choy",
             "- Shopping list: 9 to buy | Tasks: 5 open"]
    memo = ClientMemo()
    elide_sections("## Kitchen dashboard\n" + "\n".join(lines), memo, 1, full=False, role="think")
    later = [*lines[:4], "- Shopping list: 12 to buy | Tasks: 5 open"] if changed else lines
    sent = elide_sections("## Kitchen dashboard\n" + "\n".join(later), memo.pruned(1 + gap), 1 + gap, full=False, role="think")
    assert lines[0] not in sent and lines[1] not in sent
    assert ("- Shopping list: 12 to buy" in sent) if changed else sent == "(As sent before, unchanged: Kitchen dashboard.)"


def test_the_day_and_the_phase_unchanged_go_unnamed() -> None:
    """A stage client's task and flow sections hold only the day and the phase: unchanged, not even named; changed,
    sent again."""
    memo = ClientMemo()
    context = "## Current task\n**Today:** 2026-11-27\n\n## Conversation flow\n**Phase:** exploring\n\n## Profile\nSkill: beginner"
    assert elide_sections(context, memo, 1, full=False) == context
    assert elide_sections(context, memo, 2, full=False) == "(As sent before, unchanged: Profile.)"
    moved = context.replace("2026-11-27", "2026-11-28").replace("exploring", "executing")
    assert elide_sections(moved, memo, 3, full=False) == "\n\n".join(moved.split("\n\n")[:2] + ["(As sent before, unchanged: Profile.)"])
