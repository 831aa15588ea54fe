"""Recorded conversations replayed as a model that knew its plan would drive them: role outputs sent ahead (`then`).

Each turn's Understand and Think outputs that the server accepted right after turn_start go with turn_start's `then`;
the refused tries and turn_context calls among them, which such a model would not make, are left out; every other call
is made as recorded. A mechanical re-send of the recorded outputs: an upper bound of what sending ahead saves.

A model can only name refs the session gave it, and refs are numbered as rows are first shown: a turn sent ahead
shows fewer contexts, so the same row may get another number than in the recording. The replay therefore runs in
lockstep with the recording's own replay on two copies of one seeded kitchen (same row ids): every ref a call names
is translated to the ref the session sent ahead gave the same row (or draft, by its label); an output naming a row that
session has not shown yet waits, sent with the submit after the answer that shows it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from e2e.conftest import SeededKitchens
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.server.leak_guard import find_uuid
from alfred_mcp.server.mcp_server import build_server

from .kitchen_digest import kitchen_digest
from .recorded import RecordedCall, RecordedTurn, Recording, ReplayedTurn, made_call, on_day
from .ref_mapping import RefMapper
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

    async def run(self, call: RecordedCall, *, sent_ahead: bool = False) -> None:
        """Make `call`; a divergence is an outcome other than recorded, or (`sent_ahead`) outputs not all applied."""
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

    async def shown(self, translation: RecordedRefs, arguments: dict[str, Any]) -> dict[str, Any] | None:
        """`arguments` as this session names the recording's refs; None when one names what it has not shown yet."""
        return translation.shown(arguments, await session_refs(self.app))


async def replay_sent_ahead(recording: Recording, folder: Path, kitchens: SeededKitchens) -> tuple[list[ReplayedTurn], list[ReplayedTurn]]:
    """The recording replayed call for call, and sent ahead, in lockstep on two copies of one seeded kitchen (from
    `kitchens`); the logs of each turn of both (the digest: the kitchen after the turn)."""
    one_by_one, ahead = folder / "one_by_one", folder / "ahead"
    for made in (one_by_one, ahead):
        made.mkdir()
    logs: tuple[list[ReplayedTurn], list[ReplayedTurn]] = ([], [])
    with on_day(recording.today):
        async with kitchens.copy(one_by_one, recording.today) as app_one, kitchens.copy(ahead, recording.today) as app_ahead, \
                Client(build_server(app_one)) as client_one, Client(build_server(app_ahead)) as client_ahead:
            mapper = RefMapper(app_one, one_by_one / "kitchen.db")
            for turn in recording.turns:
                recorded = _Session(app_one, client_one, one_by_one, ReplayedTurn(turn.label))
                for number, call in enumerate(turn.calls, 1):
                    if (made := await made_call(mapper, call, recorded.log, number)) is not None:
                        await recorded.run(made)
                sent = _Session(app_ahead, client_ahead, ahead, ReplayedTurn(turn.label))
                await _turn_sent_ahead(recorded.log.as_made(turn), sent, RecordedRefs(await session_refs(app_one)))
                for session, log in zip((recorded, sent), logs, strict=True):
                    session.log.digest = kitchen_digest(session.folder / "kitchen.db")
                    log.append(session.log)
    return logs


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
