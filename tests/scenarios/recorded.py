"""Conversations recorded from a client's model (`live.py`), replayed call for call against a fresh kitchen.

A recording holds, per user turn, every call the model made (tool and arguments, and whether it was
refused) and the kitchen's digest after the turn. Replays run on the recording's day (the seeded
kitchen and every date the model wrote are relative to it), over the real `mcp` Client in memory.
Each replay serves the listing the recording was made with (its `listed`: ALFRED_LISTED then).
The same turns also run through the bundled loop (one `chat` turn per agent turn the model started), their accepted
role outputs (those sent ahead only as far as the server applied them: `ahead_applied`) as its scripted model, each output's
refs translated to those the loop's session gave the same rows (`ref_translation.py`): both kitchens are copies of one
seeded file, and the refs of the recording's session after each turn are kept by its replay.
Every call is made with its refs as the replay's session names what they named when recorded (`ref_mapping.py`), so a
fix that shows rows in another order does not make a replay act on another row.
"""

from __future__ import annotations

import functools
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field, replace
from datetime import date, datetime, time
from pathlib import Path
from typing import Any

import pytest
import time_machine
from e2e.conftest import SeededKitchens, seeded_app
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.contracts import load_contracts
from alfred_mcp.server.leak_guard import find_uuid
from alfred_mcp.server.mcp_server import AlfredServer, build_server
from alfred_mcp.state.registry import RefEntry

from .kitchen_digest import Digest, digest_changes, kitchen_digest
from .loop_driver import ScenarioModel, Translate, loop_turn
from .ref_mapping import Named, RefMapper
from .ref_translation import RecordedRefs, session_refs

RECORDED = Path(__file__).parent / "recorded"
STAGE_TOOLS = frozenset({"turn_start", "turn_submit", "turn_context"})


@dataclass(frozen=True)
class RecordedCall:
    tool: str
    arguments: dict[str, Any]
    is_error: bool
    bytes: int
    ahead_applied: int | None = None
    """Of the role outputs sent ahead in `then`, how many the server applied (the first ones, in order); None: all
    (a recording made before the count was kept)."""
    named: Named | None = None
    """What each ref of `arguments` named when the call was made (`ref_mapping.py`); None: made as recorded."""

    def accepted_outputs(self) -> list[tuple[str, dict[str, Any]]]:
        """The role outputs this call had accepted, in order: a submit's own, then those of `then` applied."""
        if self.is_error or self.tool not in ("turn_start", "turn_submit"):
            return []
        own = [(self.arguments["role"], self.arguments["output"])] if self.tool == "turn_submit" else []
        return own + [(item["role"], item["output"]) for item in self.applied_ahead()]

    def applied_ahead(self) -> list[dict[str, Any]]:
        """The items of `then` the server applied (none when the call was refused)."""
        ahead = [] if self.is_error else self.arguments.get("then") or []
        return ahead if self.ahead_applied is None else ahead[: self.ahead_applied]


@dataclass(frozen=True)
class RecordedTurn:
    label: str
    message: str
    calls: tuple[RecordedCall, ...]
    digest: Digest

    @property
    def bytes(self) -> int:
        return sum(call.bytes for call in self.calls)

    @property
    def staged_only(self) -> bool:
        """Whether the model stayed inside the turn (no plain tool called on the side)."""
        return all(call.tool in STAGE_TOOLS for call in self.calls)

    @property
    def writes_only_in_turn(self) -> bool:
        """Whether every change was made inside the turn: a plain tool called on the side only read (readOnlyHint),
        so the bundled loop, which has no such side calls, can reach the same kitchen."""
        contracts = load_contracts()
        return all(call.tool in STAGE_TOOLS or contracts[call.tool].hint("readOnlyHint") for call in self.calls)

    @property
    def one_step_read(self) -> bool:
        """Whether the turn was one lookup (the turn the read targets of issue 24 name): Think's accepted plan a single
        read step, or Understand's quick mode (a table's rows, or one read tool, with no plan)."""
        outputs = self.role_outputs()
        plans = outputs.get("think", [])
        if not plans:
            return any(output.get("quick_mode") for output in outputs.get("understand", []))
        return len(plans) == 1 and [step.get("step_type") for step in plans[0].get("steps", [])] == ["read"]

    def role_outputs(self) -> dict[str, list[dict[str, Any]]]:
        """The outputs the server accepted, per role, in order."""
        outputs: dict[str, list[dict[str, Any]]] = {}
        for call in self.calls:
            for role, output in call.accepted_outputs():
                outputs.setdefault(role, []).append(output)
        return outputs

    def agent_turns(self) -> list[dict[str, list[dict[str, Any]]]]:
        """The outputs the server accepted, per role, of each agent turn the model started (an accepted turn_start
        begins one: a model may start anew after a turn that was blocked): what the bundled loop's model answers, one
        `chat` turn each. One turn of no outputs when the model started none."""
        turns: list[dict[str, list[dict[str, Any]]]] = []
        for call in self.calls:
            if (call.tool == "turn_start" and not call.is_error) or not turns:
                turns.append({})
            for role, output in call.accepted_outputs():
                turns[-1].setdefault(role, []).append(output)
        return [outputs for outputs in turns if outputs] or [{}]


@dataclass(frozen=True)
class Recording:
    name: str
    today: date
    turns: tuple[RecordedTurn, ...]
    listed: tuple[str, ...] = ()
    """The listing its model's tools/list showed (ALFRED_LISTED when it was recorded; empty: the default list)."""

    @property
    def plain(self) -> bool:
        """A recording of the same conversation with plain tools only (named `<name>.plain`), kept to compare."""
        return self.name.endswith(".plain")


def load_recordings(folder: Path = RECORDED) -> list[Recording]:
    """Every recording in `folder` (frozen: read once per test process, however many modules collect them)."""
    return list(_read_recordings(folder))


@functools.cache
def _read_recordings(folder: Path) -> tuple[Recording, ...]:
    return tuple(recording_of(json.loads(path.read_text())) for path in sorted(folder.glob("*.json")))


def recording_of(data: dict[str, Any]) -> Recording:
    turns = tuple(
        RecordedTurn(turn["label"], turn["message"] or "", tuple(RecordedCall(**call) for call in turn["calls"]), turn["digest"])
        for turn in data["turns"])
    return Recording(data["name"], date.fromisoformat(data["today"]), turns, tuple(data.get("listed") or ()))


@dataclass
class ReplayedTurn:
    label: str
    calls: int = 0
    bytes: int = 0
    digest: Digest = field(default_factory=dict)
    diverged: list[str] = field(default_factory=list)
    """Calls whose outcome differs from the recording: 'turn_submit #3: refused (recorded: accepted)'."""
    refs: list[RefEntry] = field(default_factory=list)
    """Every ref the session had given after the turn (kept by `replay`)."""
    made: list[RecordedCall] = field(default_factory=list)
    """The turn's calls as the replay made them: their refs those its session gave what the recorded refs named."""

    def as_made(self, turn: RecordedTurn) -> RecordedTurn:
        """`turn` with the calls as the replay made them (the recorded ones when it made none)."""
        return replace(turn, calls=tuple(self.made)) if self.made else turn


@contextmanager
def on_day(day: date) -> Iterator[None]:
    """The clock set to `day` at noon and running: the day the recording was made."""
    with time_machine.travel(datetime.combine(day, time(12)), tick=True):
        yield


@asynccontextmanager
async def recorded_kitchen(recording: Recording, folder: Path) -> AsyncIterator[AlfredApp]:
    with on_day(recording.today):
        async with seeded_app(folder, recording.today) as app:
            yield app


def recording_server(app: AlfredApp, recording: Recording) -> AlfredServer:
    """The server a recording's calls are replayed on: `app` with the listing the recording was made with."""
    app.settings = replace(app.settings, listed=recording.listed)
    return build_server(app)


async def replayed_answers(recording: Recording, folder: Path) -> list[list[dict[str, Any]]]:
    """Per turn, every answer the recorded calls get (refused ones left out), replayed in order on the listing the
    recording was made with."""
    turns: list[list[dict[str, Any]]] = []
    async with recorded_kitchen(recording, folder) as app, Client(recording_server(app, recording)) as client:
        for turn in recording.turns:
            results = [await client.call_tool(call.tool, call.arguments) for call in turn.calls]
            turns.append([result.structured_content or {} for result in results if not result.is_error])
    return turns


async def replay(recording: Recording, folder: Path, kitchens: SeededKitchens) -> list[ReplayedTurn]:
    """Every recorded call, in order, through the real client on a copy of the seeded kitchen (from `kitchens`); the
    kitchen's digest and the session's refs after each turn."""
    replayed: list[ReplayedTurn] = []
    with on_day(recording.today):
        async with kitchens.copy(folder, recording.today) as app, Client(recording_server(app, recording)) as client:
            mapper = RefMapper(app, folder / "kitchen.db")
            for turn in recording.turns:
                log = ReplayedTurn(turn.label)
                ended = False
                for number, call in enumerate(turn.calls, 1):
                    if ended and call.tool == "turn_submit" and call.arguments.get("role") == "reply":
                        continue  # the reply sent ahead ended the turn (its warnings told by the state): none is asked
                    made = await made_call(mapper, call, log, number)
                    if made is None:
                        continue
                    result = await client.call_tool(call.tool, made.arguments)
                    answered = result.structured_content or {}
                    ended = not result.is_error and answered.get("expected_role", "") is None and not answered.get("not_applied") \
                        and "refused" not in answered and any(isinstance(item, dict) and item.get("role") == "reply"
                                                              for item in call.arguments.get("then") or ())
                    text = "".join(block.text for block in result.content if block.type == "text")
                    assert find_uuid(text) is None, f"{call.tool} showed a raw id in {turn.label}"
                    log.calls += 1
                    log.bytes += len(text.encode())
                    if bool(result.is_error) != call.is_error:
                        log.diverged.append(f"{call.tool} #{number}: {_said(bool(result.is_error))} (recorded: {_said(call.is_error)}): {text[:300]}")
                log.digest = kitchen_digest(folder / "kitchen.db")
                log.refs = await session_refs(app)
                replayed.append(log)
    return replayed


class Replays:
    """Each recording replayed (`replay`) once per test process, from `kitchens`, kept by the recording (its listing
    included): the tests that check the same calls made the same way read one replay, and change nothing in it."""

    def __init__(self, folder: Path, kitchens: SeededKitchens) -> None:
        self.folder = folder
        self.kitchens = kitchens
        self._made: dict[str, list[ReplayedTurn]] = {}

    async def of(self, recording: Recording) -> list[ReplayedTurn]:
        key = repr(recording)
        if key not in self._made:
            folder = self.folder / str(len(self._made))
            folder.mkdir()
            self._made[key] = await replay(recording, folder, self.kitchens)
        return self._made[key]


def same_replay(recordings: list[Recording]) -> list[Any]:
    """One param per recording, named by it, in the recording's xdist group: under `--dist loadgroup` every test that
    reads its replay (`Replays`) runs in one worker, where it is made once."""
    return [pytest.param(recording, id=recording.name, marks=pytest.mark.xdist_group(recording.name)) for recording in recordings]


async def made_call(mapper: RefMapper, call: RecordedCall, log: ReplayedTurn, number: int) -> RecordedCall | None:
    """`call` as the replay makes it (its refs those the replay's session gave what they named), kept in `log.made`;
    None when a ref names nothing in the replay: a divergence saying which ref and why, and the call is not made."""
    mapped = await mapper.mapped(call.arguments, call.named)
    made = replace(call, arguments=mapped.arguments)
    log.made.append(made)
    if mapped.problems:
        log.diverged.append(f"{call.tool} #{number}: not made: {'; '.join(mapped.problems)}")
        return None
    return made


def _said(refused: bool) -> str:
    return "refused" if refused else "accepted"


async def rebase(recording: Recording, data: dict[str, Any], folder: Path) -> tuple[dict[str, Any], list[str]]:
    """The recording as the current server answers it: a role output the server no longer expects (the retry of one
    it refused before and now accepts) is dropped, and each call's outcome is taken anew (its bytes stay those read
    live: the recording keeps what the model was shown when it decided), its refs as the server's session names what
    they named (`ref_mapping.py`); a call that does not say what its refs named is made as recorded, and keeps what they
    name then (a recording exported on the code it was made with is rebased to keep it). Returns the new
    recording and what could not be rebased: a call refused now that was accepted, or a turn that leaves the kitchen
    otherwise than recorded (then the recording is kept as it was)."""
    problems: list[str] = []
    turns: list[dict[str, Any]] = []
    async with recorded_kitchen(recording, folder) as app, Client(recording_server(app, recording)) as client:
        mapper = RefMapper(app, folder / "kitchen.db")
        for turn, recorded in zip(recording.turns, data["turns"], strict=True):
            expected: str | None = None
            calls: list[dict[str, Any]] = []
            for call in turn.calls:
                if call.tool == "turn_submit" and call.arguments.get("role") != expected:
                    continue  # the server moved on: a retry of an output it now accepts
                named = call.named if call.named is not None else await mapper.named(call.arguments)
                mapped = await mapper.mapped(call.arguments, named)
                if mapped.problems:
                    problems.append(f"{turn.label}: {call.tool} is not made: {'; '.join(mapped.problems)}")
                    continue
                result = await client.call_tool(call.tool, mapped.arguments)
                text = "".join(block.text for block in result.content if block.type == "text")
                if result.is_error and not call.is_error:
                    problems.append(f"{turn.label}: {call.tool} is refused now: {text[:300]}")
                if call.tool in ("turn_start", "turn_submit") and not result.is_error:
                    answer = result.structured_content or {}  # a lookup answered from its rows still takes a reply
                    expected = answer.get("expected_role") or ("reply" if "answered" in answer else None)
                calls.append({"tool": call.tool, "arguments": call.arguments, "is_error": bool(result.is_error),
                              "bytes": call.bytes, **ahead_applied(call.arguments, result.structured_content),
                              **({"named": named} if named else {})})
            digest = kitchen_digest(folder / "kitchen.db")
            if digest != turn.digest:
                problems.append(f"{turn.label}: the kitchen differs: {digest_changes(turn.digest, digest)}")
            turns.append({**recorded, "calls": calls})
    return {**data, "turns": turns}, problems


def ahead_applied(arguments: dict[str, Any], answer: dict[str, Any] | None) -> dict[str, int]:
    """`{"ahead_applied": n}` for a call that sent role outputs ahead: how many the answer says were applied (those
    neither `not_applied` nor `refused`); empty for any other call."""
    ahead = arguments.get("then") or []
    if not ahead:
        return {}
    answer = answer or {}
    missed = len(answer.get("not_applied") or []) + (1 if answer.get("refused") else 0)
    return {"ahead_applied": len(ahead) - missed}


async def replay_through_loop(recording: Recording, folder: Path, kitchens: SeededKitchens,
                              replayed: list[ReplayedTurn]) -> list[Digest]:
    """The recording's turns through the bundled loop (`chat`'s path) on a copy of the seeded kitchen (from
    `kitchens`), the accepted role outputs as its model, their refs translated from those the recording's own
    `replay`d session had given after the same turn; the kitchen's digest after each turn. Only for recordings whose
    model made every change inside a turn."""
    digests: list[Digest] = []
    with on_day(recording.today):
        async with kitchens.copy(folder, recording.today) as app:
            model = ScenarioModel()
            for turn, log in zip(recording.turns, replayed, strict=True):
                for outputs in log.as_made(turn).agent_turns():
                    await loop_turn(app, model, turn.message, outputs, _as_loop_names(RecordedRefs(log.refs)))
                digests.append(kitchen_digest(folder / "kitchen.db"))
    return digests


def _as_loop_names(recorded: RecordedRefs) -> Translate:
    """An output with the refs of the recording's session turned into those the loop's session gave the same rows; a
    ref it has not given yet (a draft or row the turn's plan makes on the way) is kept as recorded."""
    return lambda role, output, theirs: recorded.translated(output, theirs)[0]
