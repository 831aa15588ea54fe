"""The held-constraints measure (`held_probes.py`, `benchmarks/held.py`): labels written from the user's messages, probes
whose outcome is the server's answer, and the staged and plain end kitchens probed alike."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from e2e.conftest import SeededKitchens

from .held_probes import ACTIONS, STOPPED, HeldTurn, Stated, conversation_of, held_replay, load_labels, user_turns
from .recorded import Recording, load_recordings

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from benchmarks.held import latest_pairs  # noqa: E402

pytestmark = pytest.mark.anyio

RECORDINGS = load_recordings()
LABELS = load_labels()
STAGED = [recording for recording in RECORDINGS if not recording.plain]
STATED = [item for items in LABELS.values() for item in items]


def _by_name(name: str) -> Recording:
    return next(recording for recording in RECORDINGS if recording.name == name)


def test_every_recorded_conversation_is_labelled_and_every_label_is_a_recorded_conversation() -> None:
    assert {conversation_of(recording) for recording in RECORDINGS} == set(LABELS)


@pytest.mark.parametrize("stated", STATED, ids=lambda item: f"{item.conversation}.{item.id}")
def test_a_statement_quotes_the_users_message_of_its_turn_in_every_staged_round(stated: Stated) -> None:
    """Labels come from what the user said: its words are in that turn's message (and the words that dropped it in
    the dropped turn's), in every round that recorded the conversation's messages."""
    rounds = [recording for recording in STAGED if conversation_of(recording) == stated.conversation]
    assert rounds
    for recording in rounds:
        messages = {turn.label: turn.message.lower() for turn in recording.turns}
        assert stated.words.lower() in messages[stated.turn], (recording.name, stated.turn, messages[stated.turn])
        if stated.dropped is not None:
            assert stated.dropped_words and stated.dropped_words.lower() in messages[stated.dropped], recording.name


@pytest.mark.parametrize("stated", STATED, ids=lambda item: f"{item.conversation}.{item.id}")
def test_a_statement_has_probes_of_known_actions_naming_what_stops_them_from_a_turn_of_the_conversation(stated: Stated) -> None:
    recording = next(recording for recording in STAGED if conversation_of(recording) == stated.conversation)
    order = user_turns(recording)
    assert stated.probes
    for probe in stated.probes:
        assert probe.action in ACTIONS and probe.terms and all(term.strip() for term in probe.terms)
        assert order.index(probe.start or stated.turn) >= order.index(stated.turn)
    if stated.dropped is not None:
        assert order.index(stated.dropped) > order.index(stated.turn)


def _outcomes(turns: list[HeldTurn]) -> dict[tuple[str, str], str]:
    return {(result.turn, result.probe): result.outcome for turn in turns for result in turn.results}


async def test_every_turn_of_the_staged_gluten_conversation_stops_the_probes_until_the_user_drops_it(
        tmp_path: Path, seeded_kitchens: SeededKitchens) -> None:
    """b4: 'I'm avoiding gluten for now' (t1), 'forget the gluten thing' (t3): every probe is stopped after t1 and t2,
    read from the server's answer (a warning naming gluten, a search leaving the gluten recipes out), and goes
    through from t3 on."""
    recording = _by_name("r3_b4_constraints")
    turns = await held_replay(recording, LABELS["b4_constraints"], tmp_path, seeded_kitchens, every_turn=True)
    assert [turn.label for turn in turns] == user_turns(recording)
    assert not [line for turn in turns for line in turn.diverged]
    results = [result for turn in turns for result in turn.results]
    assert len(results) == 3 * len(turns)
    for result in results:
        assert result.ok, (result.turn, result.probe, result.outcome, result.evidence)
        assert (result.outcome in STOPPED) == (result.turn in ("t1", "t2"))
        if result.outcome in STOPPED:
            assert "gluten" in result.evidence
    assert "exclude gluten (goal:ingredient)" in turns[0].holds and not any("gluten" in line for line in turns[-1].holds)


async def test_the_guests_allergies_and_number_stop_the_staged_end_kitchens_probes_and_nothing_stops_the_plain_ones(
        tmp_path: Path, seeded_kitchens: SeededKitchens) -> None:
    """a2 at its end (after the undo of t6): the staged session holds the occasion, its guests' allergies and number,
    so planning the sesame salmon for Saturday is refused, saving a shrimp or sesame starter warned, and a Saturday
    meal for 4 warned; the plain run, whose model recorded nothing, lets each through. The probes are the same calls
    on both sides."""
    staged = await held_replay(_by_name("r3_a2_guests"), LABELS["a2_guests"], tmp_path / "staged", seeded_kitchens)
    plain = await held_replay(_by_name("r2_a2_guests.plain"), LABELS["a2_guests"], tmp_path / "plain", seeded_kitchens)
    stopped = {("t6", "save_shrimp_starter"): "warned", ("t6", "plan_miso_salmon_saturday"): "refused",
                 ("t6", "save_sesame_starter"): "warned", ("t6", "plan_saturday_for_four"): "warned"}
    assert _outcomes(staged) == stopped
    assert set(_outcomes(plain).values()) == {"through"}
    assert not [line for turn in staged + plain for line in turn.diverged]
    assert {"exclude sesame (guest allergy)", "exclude shellfish (guest allergy)"} <= set(staged[-1].holds)
    assert plain[-1].holds == []


@pytest.mark.parametrize(("conversation", "stopped", "held"), [
    ("a3_import", {"delete_chicken_dinner": "refused", "add_sour_cream": "warned"}, "keep: chicken"),
    ("b5_edit_recipe", {"add_milk_to_new_version": "warned"}, "only recipe_1: exclude milk; include oat milk"),
])
async def test_what_stays_and_a_substitution_the_users_words_state_stop_the_latest_rounds_probes_after_every_turn(
        tmp_path: Path, seeded_kitchens: SeededKitchens, conversation: str, stopped: dict[str, str], held: str) -> None:
    """a3's 'Leave the chicken for now' (t4) and b5's 'use oat milk instead of milk' (t2): round 6's Understand stated
    neither (only its processed message did); the user's words hold them, so after every turn from
    the statement's, deleting Saturday's chicken dinner is refused naming the chicken and whole milk added to the new
    version of the pancakes is warned about, the replay never leaving the recording (a lookup turn that noted what
    stays is still answered from its rows)."""
    staged = _by_name(f"r6_{conversation}")  # a later round's model may state them itself: this one did not
    turns = await held_replay(staged, LABELS[conversation], tmp_path, seeded_kitchens, every_turn=True)
    assert not [line for turn in turns for line in turn.diverged]
    results = [result for turn in turns for result in turn.results]
    assert {result.probe for result in results} == set(stopped)
    for result in results:
        assert result.ok and result.outcome == stopped[result.probe], (result.turn, result.probe, result.outcome, result.evidence)
    assert held in turns[-1].holds


def test_each_conversation_is_measured_on_its_latest_staged_round_beside_its_plain_run() -> None:
    """The benchmark pairs every labelled conversation's latest staged recording with the plain run recorded_turns
    compares it with (its own, else an earlier round's), and both have every turn a statement, its drop or a probe
    starts at (b1's plain run made no call in t3: it has no such turn, and no statement)."""
    pairs = latest_pairs({recording.name: recording for recording in RECORDINGS})
    assert set(pairs) == set(LABELS)
    for conversation, (staged, plain) in pairs.items():
        rounds = [recording.name for recording in STAGED if conversation_of(recording) == conversation]
        assert staged.name == max(rounds, key=lambda name: int(name[1]) if name[0] == "r" and name[1].isdigit() else 1)
        assert plain.plain and conversation_of(plain) == conversation
        for item in LABELS[conversation]:
            named = {item.turn, *([item.dropped] if item.dropped else []), *(probe.start for probe in item.probes if probe.start)}
            assert named <= set(user_turns(staged)) & set(user_turns(plain)), (conversation, item.id)
