"""Recorded conversations replayed as a model that knew its plan would drive them: role outputs sent ahead (`then`).

Each turn's Understand and Think outputs that the server accepted right after turn_start go with turn_start's `then`;
the refused tries and turn_context calls among them, which such a model would not make, are left out; every other call
is made as recorded. A mechanical re-send of the recorded outputs: an upper bound of what sending ahead saves.

As `LookupsAnswered`, a turn the server answers from its rows (a lookup: `answered`) is replayed without its accepted
reply (nor the refused tries and turn_context calls before it): a model that tells the user from the rows, as the
answer says it may; every other call is made as recorded.

With `replies` (for a round driven with `then` already), each turn's accepted reply goes ahead instead, last in the
`then` of the turn's call that carried its other outputs (the outputs that call had not applied left out: a reply the
model had sent ahead and the server passed over is sent there again); the refused tries and turn_context calls between
are left out. A reply ahead that is refused or not applied is then submitted as recorded; a reply the model sent ahead
and had applied is replayed as recorded (`RepliesAhead.ahead_as_recorded`). The recorded reply was written after its model read the results, so this too is an upper bound: on a lookup
a model could not have written it ahead (`RepliesAhead.lookups` counts those accepted; with `on_lookups` false a
lookup is replayed as recorded, as a model that sends a reply ahead only when it knows the outcome would drive it).

A model can only name refs the session gave it, and refs are numbered as rows are first shown: a turn sent ahead
shows fewer contexts, so the same row may get another number than in the recording. The replay therefore runs turn
by turn beside the recording's own replay (`replay`, kept after each turn) on two copies of one seeded kitchen (same
row ids): every ref a call names is translated to the ref the session sent ahead gave the same row (or draft, by its label); an output naming a row that
session has not shown yet waits, sent with the submit after the answer that shows it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from e2e.conftest import SeededKitchens
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.server.leak_guard import find_uuid

from .kitchen_digest import digest_changes, kitchen_digest
from .recorded import RecordedCall, RecordedTurn, Recording, ReplayedTurn, on_day, recording_server, replay
from .ref_translation import RecordedRefs, session_refs

AHEAD_ROLES = ("understand", "think")
"""The roles whose recorded outputs are sent ahead with turn_start, in this order."""


@dataclass
class _Session:
    """One of the two kitchens replayed in lockstep: its app, client and the log of the turn being replayed."""

    app: AlfredApp
    client: Client
    folder: Path
    log: ReplayedTurn

    async def run(self, call: RecordedCall, *, sent_ahead: bool = False) -> dict[str, Any]:
        """Make `call`, its answer returned; a divergence is an outcome other than recorded, or (`sent_ahead`) outputs not
        all applied."""
        result = await self.client.call_tool(call.tool, call.arguments)
        text = "".join(block.text for block in result.content if block.type == "text")
        assert find_uuid(text) is None, f"{call.tool} showed a raw id in {self.log.label}"
        self.log.calls += 1
        self.log.bytes += len(text.encode())
        if bool(result.is_error) != call.is_error:
            said = "refused" if result.is_error else "accepted"
            self.log.diverged.append(f"{call.tool} #{self.log.calls}: {said}, unlike the recording: {text[:300]}")
        missed = {key: value for key, value in (result.structured_content or {}).items() if key in ("refused", "not_applied")}
        if sent_ahead and missed:
            self.log.diverged.append(f"{call.tool} #{self.log.calls}: outputs sent ahead not all applied: {missed}")
        return dict(result.structured_content or {})

    async def shown(self, translation: RecordedRefs, arguments: dict[str, Any]) -> dict[str, Any] | None:
        """`arguments` as this session names the recording's refs; None when one names what it has not shown yet."""
        return translation.shown(arguments, await session_refs(self.app))


@dataclass
class RepliesAhead:
    """Which replies to send ahead (`on_lookups`: also a lookup's), and what became of them: per outcome, the turns'
    labels."""

    on_lookups: bool = True
    accepted: list[str] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    not_applied: list[str] = field(default_factory=list)
    lookups: list[str] = field(default_factory=list)
    """Of those accepted, the lookups: a model could not have known the rows its reply speaks of."""
    kept_quick_route: list[str] = field(default_factory=list)
    """The lookups replayed as recorded (not `on_lookups`)."""
    ahead_as_recorded: list[str] = field(default_factory=list)
    """The turns whose model had sent its reply ahead and had it applied (a round driven with replies ahead): replayed
    as recorded, none of the above."""

    def counts(self) -> dict[str, int]:
        return {"accepted": len(self.accepted), "refused": len(self.refused), "not_applied": len(self.not_applied),
                "accepted_lookups": len(self.lookups), "kept_quick_route": len(self.kept_quick_route),
                "ahead_as_recorded": len(self.ahead_as_recorded)}


@dataclass
class LookupsAnswered:
    """The turns whose recorded reply was left out, the answer before it saying the turn was `answered` (`answered`; of
    them, those that were no lookup, told by the state's account: `by_state`), and the lookups replayed as recorded,
    their answer not saying so (`replied`). `only_lookups`: a reply is left out only after a lookup's answer; else after
    any answer saying `answered`, as a client following the answers would."""

    only_lookups: bool = True
    answered: list[str] = field(default_factory=list)
    by_state: list[str] = field(default_factory=list)
    replied: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return {"answered": len(self.answered), "replied_lookups": len(self.replied),
                **({} if self.only_lookups else {"answered_by_state": len(self.by_state)})}


async def replay_sent_ahead(recording: Recording, folder: Path, kitchens: SeededKitchens, *,
                            replies: RepliesAhead | LookupsAnswered | None = None,
                            replayed: list[ReplayedTurn] | None = None) -> tuple[list[ReplayedTurn], list[ReplayedTurn]]:
    """The recording replayed call for call (`replay`, or `replayed`: its replay already made from `kitchens`), and sent
    ahead turn by turn beside it on another copy of the same seeded kitchen (from `kitchens`: the same row ids), each
    turn's refs translated from those the replay's session had given after the same turn; the logs of each turn of both
    (the digest: the kitchen after the turn). With `replies`, each turn's reply is sent ahead (`_turn_reply_ahead`) and
    what became of it is kept there; as `LookupsAnswered`, a lookup's reply is left out where the server said it was
    answered from its rows (`_turn_answered_from_rows`)."""
    one_by_one, ahead = folder / "one_by_one", folder / "ahead"
    for made in (one_by_one, ahead):
        made.mkdir()
    if replayed is None:
        replayed = await replay(recording, one_by_one, kitchens)
    logs: list[ReplayedTurn] = []
    with on_day(recording.today):
        async with kitchens.copy(ahead, recording.today) as app_ahead, Client(recording_server(app_ahead, recording)) as client_ahead:
            for turn, recorded in zip(recording.turns, replayed, strict=True):
                sent = _Session(app_ahead, client_ahead, ahead, ReplayedTurn(turn.label))
                translation = RecordedRefs(recorded.refs)
                if replies is None:
                    await _turn_sent_ahead(recorded.as_made(turn), sent, translation)
                elif isinstance(replies, LookupsAnswered):
                    await _turn_answered_from_rows(recorded.as_made(turn), sent, translation, replies)
                else:
                    await _turn_reply_ahead(recorded.as_made(turn), sent, translation, replies)
                sent.log.digest = kitchen_digest(ahead / "kitchen.db")
                logs.append(sent.log)
    return replayed, logs


async def _turn_sent_ahead(turn: RecordedTurn, session: _Session, translation: RecordedRefs) -> None:
    calls = turn.calls
    start = next((number for number, call in enumerate(calls) if call.tool == "turn_start" and not call.is_error), None)
    pending: list[dict[str, Any]] = []
    last = start if start is not None else len(calls)  # the last recorded call the calls sent ahead stand for
    for number in range(last + 1, len(calls)):
        call, role = calls[number], calls[number].arguments.get("role")
        wanted = AHEAD_ROLES[len(pending)] if len(pending) < len(AHEAD_ROLES) else None
        if call.tool == "turn_submit" and role == wanted and not call.is_error:
            pending.append({"role": role, "output": call.arguments["output"]})
            last = number
        elif not (call.tool == "turn_context" or (call.tool == "turn_submit" and call.is_error and role == wanted)):
            break
    if start is None or not pending:
        for call in calls:
            await session.run(await _as_recorded(call, session, translation))
        return
    for call in calls[:start]:
        await session.run(await _as_recorded(call, session, translation))
    sent = await _shown(pending, session, translation)
    await session.run(RecordedCall("turn_start", {**calls[start].arguments, **({"then": sent} if sent else {})}, False, 0),
                      sent_ahead=bool(sent))
    pending = pending[len(sent):]
    while pending:
        head = await session.shown(translation, pending[0]) or pending[0]
        sent = await _shown(pending[1:], session, translation)
        await session.run(RecordedCall("turn_submit", {**head, **({"then": sent} if sent else {})}, False, 0), sent_ahead=bool(sent))
        pending = pending[1 + len(sent):]
    for call in calls[last + 1:]:
        await session.run(await _as_recorded(call, session, translation))


async def _turn_reply_ahead(turn: RecordedTurn, session: _Session, translation: RecordedRefs, replies: RepliesAhead) -> None:
    """The turn with its accepted reply sent ahead in the call that carried the turn's last other outputs."""
    calls = turn.calls
    reply = next((number for number in range(len(calls) - 1, -1, -1) if _is_accepted_reply(calls[number])), None)
    carrier = next((number for number in range(reply - 1, -1, -1) if _carries_outputs(calls[number])), None) if reply else None
    skipped = calls[carrier + 1:reply] if carrier is not None and reply is not None else ()
    lookup = is_lookup(turn)
    if reply is None and any(item["role"] == "reply" for call in calls for item in call.applied_ahead()):
        replies.ahead_as_recorded.append(turn.label)
    if lookup and not replies.on_lookups and reply is not None:
        replies.kept_quick_route.append(turn.label)
    if carrier is None or reply is None or not all(call.tool == "turn_context" or _is_refused_reply(call) for call in skipped) \
            or (lookup and not replies.on_lookups):
        for call in calls:
            await session.run(await _as_recorded(call, session, translation))
        return
    for call in calls[:carrier]:
        await session.run(await _as_recorded(call, session, translation))
    carried = await _as_recorded(calls[carrier], session, translation)
    then = carried.arguments.get("then") or []
    applied = then[: len(calls[carrier].applied_ahead())]
    said = translation.translated(calls[reply].arguments["output"], await session_refs(session.app))[0]
    answer = await session.run(RecordedCall(carried.tool, {**carried.arguments, "then": [*applied, {"role": "reply", "output": said}]},
                                            False, 0))
    missed = "refused" if "refused" in answer else "not_applied" if answer.get("not_applied") else None
    if missed is None:
        replies.accepted.append(turn.label)
        replies.lookups += [turn.label] if lookup else []
    else:
        getattr(replies, missed).append(turn.label)
        await session.run(await _as_recorded(calls[reply], session, translation))
    for call in calls[reply + 1:]:
        await session.run(await _as_recorded(call, session, translation))


async def _turn_answered_from_rows(turn: RecordedTurn, session: _Session, translation: RecordedRefs, tally: LookupsAnswered) -> None:
    """The turn as recorded, but for its accepted reply where the answer before it said the turn was `answered` (from its
    rows, or, unless `tally.only_lookups`, by the state's account): the model told the user from them, so that reply, and
    the refused tries and turn_context calls before it, are left out."""
    calls = turn.calls
    reply = next((number for number in range(len(calls) - 1, -1, -1) if _is_accepted_reply(calls[number])), None)
    left_out = range(0)
    for number, call in enumerate(calls):
        if number in left_out:
            continue
        answer = await session.run(await _as_recorded(call, session, translation))
        if reply is not None and number < reply and _carries_outputs(call) and answer.get("answered") \
                and (is_lookup(turn) or not tally.only_lookups) \
                and all(later.tool == "turn_context" or _is_refused_reply(later) for later in calls[number + 1:reply]):
            left_out = range(number + 1, reply + 1)
    if left_out:
        tally.answered.append(turn.label)
        if not is_lookup(turn):
            tally.by_state.append(turn.label)
    elif is_lookup(turn) and reply is not None:
        tally.replied.append(turn.label)


def same_kitchens(recording: Recording, one_by_one: list[ReplayedTurn],
                  replayed: list[ReplayedTurn]) -> list[tuple[RecordedTurn, ReplayedTurn, ReplayedTurn]]:
    """Each turn with its two replays, asserted first: neither diverged and both left the recording's kitchen."""
    turns = list(zip(recording.turns, one_by_one, replayed, strict=True))
    for turn, recorded, sent in turns:
        assert not recorded.diverged and not sent.diverged, f"{turn.label} {turn.message!r}: {recorded.diverged or sent.diverged}"
        assert sent.digest == recorded.digest == turn.digest, f"{turn.label}: {digest_changes(turn.digest, sent.digest)}"
    return turns


def is_lookup(turn: RecordedTurn) -> bool:
    """Whether the turn only read: Understand's quick read, or a plan whose steps all read or analyze."""
    outputs = turn.role_outputs()
    steps = [step for plan in outputs.get("think", []) for step in plan.get("steps") or ()]
    if not outputs.get("think"):
        return any(output.get("quick_mode") and output.get("quick_read") for output in outputs.get("understand", []))
    return bool(steps) and all(step.get("step_type") in ("read", "analyze") for step in steps)


def _is_accepted_reply(call: RecordedCall) -> bool:
    return call.tool == "turn_submit" and not call.is_error and call.arguments.get("role") == "reply" and not call.arguments.get("then")


def _is_refused_reply(call: RecordedCall) -> bool:
    return call.tool == "turn_submit" and call.is_error and call.arguments.get("role") == "reply"


def _carries_outputs(call: RecordedCall) -> bool:
    """A turn_start or an accepted turn_submit: the call a reply sent ahead goes with."""
    return call.tool in ("turn_start", "turn_submit") and not call.is_error


async def _as_recorded(call: RecordedCall, session: _Session, translation: RecordedRefs) -> RecordedCall:
    arguments = await session.shown(translation, call.arguments)
    return RecordedCall(call.tool, call.arguments if arguments is None else arguments, call.is_error, call.bytes)


async def _shown(outputs: list[dict[str, Any]], session: _Session, translation: RecordedRefs) -> list[dict[str, Any]]:
    """The first of `outputs`, in order, naming only refs the session has shown, translated."""
    known = []
    for output in outputs:
        translated = await session.shown(translation, output)
        if translated is None:
            break
        known.append(translated)
    return known
