"""What stage answers leave out because the client's model has it, over every scripted stage conversation and the
latest round of recorded ones: the reply it wrote (echoed only when the state changed it), the conversation it sent
and read, rows a notice showed, a draft it revised."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from alfred_mcp.agent.act_tools import NAMES_SHOWN, result_card
from alfred_mcp.kitchen.plurals import counted
from alfred_mcp.state.client_memo import row_ref

from .driver import StageClient, TurnLog
from .recorded import Recording, load_recordings, replayed_answers, same_replay
from .scripts import SCENARIOS, Scenario, drive

pytestmark = pytest.mark.anyio

LATEST = [recording for recording in load_recordings() if recording.name.startswith("r3_")]


@pytest.fixture(scope="module")
def answers_made() -> dict[str, list[list[dict[str, Any]]]]:
    """The recordings' `replayed_answers` made in this test process, by recording: its three tests read the same answers."""
    return {}


@pytest.fixture
async def answers(recording: Recording, answers_made: dict[str, list[list[dict[str, Any]]]],
                  tmp_path_factory: pytest.TempPathFactory) -> list[list[dict[str, Any]]]:
    """The recording's `replayed_answers`, made once per test process."""
    if recording.name not in answers_made:
        answers_made[recording.name] = await replayed_answers(recording, tmp_path_factory.mktemp("answers"))
    return answers_made[recording.name]


def _section(context: str, heading: str) -> tuple[str, list[str]] | None:
    """The title line and lines of '## `heading`' (whole or as new lines) in `context`."""
    for piece in re.split(r"(?m)^(?=## )|\n\n(?=\(As sent before)", context):
        title, _, body = piece.strip().partition("\n")
        if title == f"## {heading}" or title.startswith(f"## {heading} ("):
            return title, body.splitlines()
    return None


@pytest.mark.parametrize("recording", same_replay(LATEST))
async def test_the_conversation_is_never_quoted_back_to_the_client_that_held_it(recording: Recording,
                                                                                 answers: list[list[dict[str, Any]]]) -> None:
    """A stage client's model sent every message and wrote every reply of its session: no answer quotes one back, not
    as a conversation section, nor as the tone and offer its last reply took (its model has them in its chat)."""
    said = [turn.message for turn in recording.turns if turn.message]
    checked = 0
    for turn_answers in answers:
        for answer in turn_answers:
            context = (answer.get("next") or {}).get("context", "")
            checked += bool(context) or "answered" in answer  # a lookup answered from its rows sends no context
            assert _section(context, "Conversation") is None, (recording.name, context)
            assert "**Last time you took:**" not in context and "User: " not in context, (recording.name, context)
            assert not [message for message in said if len(message) > 40 and message in context], (recording.name, context)
    assert checked >= len(said), recording.name  # a context at least once a turn: the check ran


async def _driven(stage: StageClient, scenario: Scenario) -> list[TurnLog]:
    return await drive(stage, scenario)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.name for s in SCENARIOS])
async def test_a_finished_turn_echoes_the_reply_only_when_the_state_changed_it(stage: StageClient, scenario: Scenario) -> None:
    logs = await _driven(stage, scenario)
    finished = 0
    for log in logs:
        for call in log.calls:
            if call.result is None or call.result.get("expected_role") is not None:
                continue
            if "answered" in call.result and call is not log.calls[-1]:  # a lookup answered, then a reply sent anyway
                continue
            finished += 1
            written = [call.arguments["output"]["response"]] if call.arguments.get("role") == "reply" else []
            status = await stage.client.call_tool("turn_status", {"turn": call.result["turn"]})
            kept = (status.structured_content or {})["state"]["reply"]
            if kept in written:
                assert "reply" not in call.result, call.result
            else:
                assert call.result.get("reply") == kept, (call.result, kept)
    assert finished == len(logs)


ENTITY = re.compile(r"^\s*- ([a-z]+_\d+): ")


@pytest.mark.parametrize("recording", same_replay(LATEST))
async def test_a_row_a_notice_showed_is_listed_in_no_later_context_of_the_turn(recording: Recording,
                                                                                answers: list[list[dict[str, Any]]]) -> None:
    """Whatever form a notice shows rows in (a card's '- ref | …' lines, a grouped view's '(shop_3)', a removal's
    'removed.ref: …; removed.label: …'), the entity lines of those refs are not sent again in the turn's later
    contexts."""
    for turn_answers in answers:
        shown: set[str] = set()
        for answer in turn_answers:
            shown |= {ref for line in (answer.get("notice") or "").splitlines()[1:] if (ref := row_ref(line)) is not None}
            context = (answer.get("next") or {}).get("context", "")
            again = [line for line in context.splitlines() if (found := ENTITY.match(line)) and found.group(1) in shown]
            assert not again, (recording.name, again)


@pytest.mark.parametrize("recording", same_replay(LATEST))
async def test_a_result_line_the_notice_carries_or_the_outcome_alone_is_not_repeated(recording: Recording,
                                                                                      answers: list[list[dict[str, Any]]]) -> None:
    """A step's result line in the context is not a line of the same answer's notice again: it names its tool and
    points at the notice; and that pointer stands only beside a notice that has such a line. No outcome heading
    stands alone: the answer's `outcome` says it."""
    checked = 0
    for turn_answers in answers:
        for answer in turn_answers:
            notice = [line.strip() for line in (answer.get("notice") or "").splitlines() if line.strip()]
            context = (answer.get("next") or {}).get("context", "")
            assert not BARE_OUTCOME.search(context), (recording.name, context)  # the answer's `outcome` says it
            for line in context.splitlines():
                result = RESULT.match(line)
                if result is None:
                    continue
                checked += 1
                assert result.group(2) not in notice, (recording.name, line)
                if result.group(2).endswith(": as in the notice"):
                    assert any(head.startswith(result.group(2).removesuffix("as in the notice")) for head in notice), line
    answered = any(answer.get("answered") for turn_answers in answers for answer in turn_answers)
    assert checked or answered, recording.name  # every recorded conversation reaches Reply after a step, or is answered


RESULT = re.compile(r"^(- ✓ )(.+)$")
BARE_OUTCOME = re.compile(r"^## Outcome: \w+(?=\n\n(?:## |\()|\n*\Z)", re.MULTILINE)


NAMES = st.from_regex(r"[a-z]{4,10}( [a-z]{4,10})?", fullmatch=True)


@given(ingredients=st.lists(NAMES, min_size=1, max_size=15, unique=True), steps=st.integers(1, 8),
       patched=st.one_of(st.none(), st.lists(st.sampled_from(["name", "ingredients", "instructions", "servings"]), min_size=1, unique=True)))
def test_draft_revise_notice_says_what_changed_and_the_size_not_the_content(ingredients: list[str], steps: int, patched: list[str] | None) -> None:
    content = {"name": "Soup", "servings": 4, "ingredients": [{"name": name, "quantity": 1} for name in ingredients],
               "instructions": [f"Step {n}." for n in range(steps)]}
    arguments = {"ref": "gen_recipe_1", **({"patch": {key: content[key] for key in patched}} if patched else {"content": content})}
    result = {"draft": {"ref": "gen_recipe_1", "label": "Soup", "status": "pending", "content": content}}
    notice = result_card("draft_revise", arguments, result)
    assert not any(f'"{name}"' in notice for name in ingredients), notice
    assert f"{counted(len(ingredients), 'ingredient')}, {counted(steps, 'step')}, serves 4" in notice and 'draft_read refs=["gen_recipe_1"]' in notice
    assert (f"revised {', '.join(patched)}" if patched else "replaced whole") in notice


NOTES = st.sampled_from(["", "need 1 tbsp salt, the pantry has 1 box: covered", "bought already",
                         "need 3 cups broth, the pantry has 1 carton: short by 2 cups", "need 2 carrots, the pantry has 1 lb: check there is enough"])
ROWS = st.lists(st.fixed_dictionaries({"name": NAMES, "recipes": st.just(["recipe_1"]), "note": NOTES}), max_size=30, unique_by=lambda r: r["name"])


@given(covered=ROWS, listed=ROWS, added=st.booleans())
def test_shopping_list_from_shows_rows_needing_attention_whole_and_counts_the_unchanged_rest(
    covered: list[dict[str, Any]], listed: list[dict[str, Any]], added: bool,
) -> None:
    """Whatever a run covered or found listed: each row with a shortfall or an amount to check is shown whole (never
    among rows not shown); a listed row already bought is said apart, counted as bought; the rest, which the run did not
    change, are counted and named with how to list them."""
    covered = [{**row, "name": f"pantry {row['name']}"} for row in covered]
    listed = [{**row, "name": f"listed {row['name']}"} for row in listed]
    lines = [{"ref": "shop_1", "name": "mirin", "quantity": 1, "unit": "bottle", "action": "added"}] if added else []
    result = {"lines": lines, "covered": covered, "already_listed": listed, "recipes": ["recipe_1"], "meals": 1}
    notice = result_card("shopping_list_from", {"recipes": ["recipe_1"]}, result)
    if notice == "shopping_list_from\n" + json.dumps(result, ensure_ascii=False, separators=(",", ":")):
        return  # the plain result was shorter than any card: it goes whole
    bought = [row for row in listed if re.search(r"\bbought\b", row["note"])]
    assert not bought or f"{len(bought)} bought already, not on the list to buy" in notice, notice
    said = notice.split("bought already, not on the list to buy", 1)[-1]
    plain = [row for row in bought if row["note"] == "bought already"]  # named up to NAMES_SHOWN, then counted
    assert all(row["name"] in said for row in bought if row not in plain), notice
    assert sum(row["name"] in said for row in plain) >= min(len(plain), NAMES_SHOWN), notice
    assert len(plain) <= NAMES_SHOWN or f"and {len(plain) - NAMES_SHOWN} more" in said, notice
    listed = [row for row in listed if row not in bought]
    for rows, how in ((covered, "covered by the pantry"), (listed, "shopping_list_show")):
        attention = [row for row in rows if "short" in row["note"] or "check" in row["note"]]
        assert all(row["note"] in notice for row in attention), notice
        rest = [row for row in rows if row not in attention]
        assert not rest or (f"{len(rest)} more" in notice and how in notice), notice
        assert not any(f"- {row['name']} |" in notice for row in rest), notice
    assert "not shown" not in notice, notice
