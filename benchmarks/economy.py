"""Issues 14 and 24 benchmarks: what a model reads. The size of tools/list; the calls and bytes of each
stage-by-stage turn of the scenario conversations (tests/scenarios/scripts.py); and the size of every
role's prompt when the bundled loop drives the same conversations."""

from __future__ import annotations

import json
import re
import sys
import tempfile
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import Any

from mcp import Client

from alfred_mcp.agent.act_tools import STEP_TYPES
from alfred_mcp.agent.role_templates import STEP_GUIDANCE, load_template
from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings
from alfred_mcp.operations.seeding import seed
from alfred_mcp.server.mcp_server import build_server
from alfred_mcp.state.role_outputs import ROLE_OUTPUTS, output_schema
from alfred_mcp.state.schema_text import schema_text

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from e2e.conftest import SeededKitchens  # noqa: E402
from scenarios.driver import StageClient, resent_characters  # noqa: E402
from scenarios.first_turn import followed_first_turn, sent_ahead_first_turn  # noqa: E402
from scenarios.loop_driver import CHARS_PER_TOKEN, PROMPT_TOKENS_BUDGET, ScenarioModel, loop_turn  # noqa: E402
from scenarios.recorded import Recording, ReplayedTurn, load_recordings, replay  # noqa: E402
from scenarios.scripts import (  # noqa: E402
    READ_TURN_BYTES_BUDGET,
    READ_TURN_CALLS_BUDGET,
    SCENARIOS,
    TURN_BYTES_BUDGET,
    TURN_CALLS_BUDGET,
    drive,
)
from scenarios.sent_ahead_replay import LookupsAnswered, RepliesAhead, replay_sent_ahead  # noqa: E402

TOOLS_LIST_BUDGET = 40_000


async def _listed(folder: Path, *, tools: tuple[str, ...] = (), listed: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    """tools/list as a client receives it from a server with these host controls (--tools, --listed)."""
    name = "_".join(("tools", *tools, "listed", *listed))
    app = AlfredApp.from_settings(Settings(db=str(folder / f"{name}.db"), seed_demo=False, tools=tools, listed=listed))
    async with Client(build_server(app)) as client:
        found = (await client.list_tools()).tools
    return [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in found]


def _wire_bytes(tools: list[dict[str, Any]]) -> int:
    """tools/list's bytes as it travels (compact JSON)."""
    return len(json.dumps({"tools": tools}, separators=(",", ":"), ensure_ascii=False).encode())


STAGE_LISTING = ("stages",)
"""The listing of a client whose model drives the stages (`--listed stages`)."""


async def tools_list_bytes() -> dict[str, object]:
    """The default tools/list as it travels (compact JSON, `bytes`) and pretty-printed with ', ' and ': ' separators
    (`spaced_bytes`, how the 72.6 KB of issue 14 was measured); `all_bytes` lists every tool (ALFRED_TOOLS=all), and
    `stage_listing_bytes` the stage listing (ALFRED_LISTED=stages: the turn tools, turn_start carrying the role texts),
    and `first_turn` what a session's first turn reads on each (`_first_turns`)."""
    with tempfile.TemporaryDirectory() as folder:
        default = await _listed(Path(folder))
        everything = await _listed(Path(folder), tools=("all",))
        staged = await _listed(Path(folder), listed=STAGE_LISTING)
        first = await _first_turns(Path(folder), {"default": _wire_bytes(default), "stage_listing": _wire_bytes(staged)})
    wire = _wire_bytes(default)
    spaced = len(json.dumps({"tools": default}).encode())
    return {"bytes": wire, "spaced_bytes": spaced, "tools": len(default), "all_bytes": _wire_bytes(everything),
            "all_tools": len(everything), "stage_listing_bytes": _wire_bytes(staged), "stage_listing_tools": len(staged),
            "stage_listing_ratio": _ratio(_wire_bytes(staged), wire), "first_turn": first, "target": TOOLS_LIST_BUDGET,
            "ok": max(wire, spaced) <= TOOLS_LIST_BUDGET}


async def _first_turns(folder: Path, listed_bytes: dict[str, int]) -> dict[str, object]:
    """A session's first turn (the category search, tests/scenarios/first_turn.py) on each listing: on the default one
    following the answers (they bring the shapes), on the stage listing with Understand's and Think's outputs in the
    first turn_start; its calls and bytes, alone and with the tools/list the model read first."""
    out: dict[str, object] = {}
    for name, listed in (("default", ()), ("stage_listing", STAGE_LISTING)):
        app = await _seeded(folder, f"first_turn_{name}")
        app.settings = replace(app.settings, listed=listed)
        try:
            async with Client(build_server(app)) as client:
                counted = (await followed_first_turn(client))[2] if not listed else await sent_ahead_first_turn(client)
        finally:
            await app.close()
        out[name] = {"calls": counted.calls, "bytes": counted.bytes, "with_tools_list": counted.bytes + listed_bytes[name]}
    return out


async def _seeded(folder: Path, name: str) -> AlfredApp:
    app = AlfredApp.from_settings(Settings(db=str(folder / f"{name}.db"), seed_demo=False))
    await app.open()
    await seed(app.store, app.user_id, today=date.today())
    return app


async def stage_turns() -> dict[str, object]:
    """Per conversation, each turn driven stage by stage by a client that follows the answers: its calls and the
    bytes it returned to the model; the largest of each, and of one-step read turns after a session's first; in
    all, the bytes and the characters of lines sent again after the model had read them (`resent_characters`)."""
    out: dict[str, object] = {}
    worst = {"calls": 0, "bytes": 0, "read_calls": 0, "read_bytes": 0}
    total = {"bytes": 0, "resent_characters": 0}
    with tempfile.TemporaryDirectory() as folder:
        for scenario in SCENARIOS:
            app = await _seeded(Path(folder), scenario.name)
            try:
                async with Client(build_server(app)) as client:
                    logs = await drive(StageClient(client), scenario)
            finally:
                await app.close()
            out[scenario.name] = {"calls": [log.count for log in logs], "bytes": [log.bytes for log in logs]}
            total["bytes"] += sum(log.bytes for log in logs)
            total["resent_characters"] += resent_characters(logs)
            for number, (turn, log) in enumerate(zip(scenario.turns, logs)):
                worst["calls"], worst["bytes"] = max(worst["calls"], log.count), max(worst["bytes"], log.bytes)
                if turn.one_step_read and number > 0:
                    worst["read_calls"], worst["read_bytes"] = max(worst["read_calls"], log.count), max(worst["read_bytes"], log.bytes)
    targets = {"calls": TURN_CALLS_BUDGET, "bytes": TURN_BYTES_BUDGET, "read_calls": READ_TURN_CALLS_BUDGET,
               "read_bytes": READ_TURN_BYTES_BUDGET}
    return {**out, "max": worst, "total": total, "target": targets, "ok": all(worst[key] <= targets[key] for key in targets)}


def fixed_tokens() -> dict[str, int]:
    """What every prompt of a role carries whatever the turn: its instructions (the template before its context; Act's
    shared part and each step type's guidance apart) and its output shape as text, in tokens: the words to weigh."""
    parts = {name: load_template(name).split("\n---\n", 1)[0] for name in ("understand", "think", "reply")}
    parts["act"] = load_template("act").split("\n---\n", 1)[0].replace(STEP_GUIDANCE, "")
    parts.update({f"act_{kind}": load_template(f"act_{kind}") for kind in STEP_TYPES})
    parts.update({f"{role} shape": schema_text(output_schema(role)) for role in ROLE_OUTPUTS})
    return {name: round(len(text.strip()) / CHARS_PER_TOKEN) for name, text in parts.items()}


async def prompt_tokens() -> dict[str, object]:
    """The same conversations through the bundled loop: the largest prompt (tokens at 3.5 characters, the output
    schema as text included) per role and Act step type, over one-step turns (the target) and over all turns."""
    one_step: dict[str, int] = {}
    every: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as folder:
        for scenario in SCENARIOS:
            app = await _seeded(Path(folder), f"loop_{scenario.name}")
            model = ScenarioModel()
            try:
                for turn in scenario.turns:
                    await loop_turn(app, model, turn.message, turn.outputs)
                    for asked in model.asked:
                        every[asked.kind] = max(every.get(asked.kind, 0), asked.tokens)
                        if turn.steps <= 1:
                            one_step[asked.kind] = max(one_step.get(asked.kind, 0), asked.tokens)
            finally:
                await app.close()
    return {"one_step_turns": dict(sorted(one_step.items())), "all_turns": dict(sorted(every.items())),
            "fixed": fixed_tokens(), "estimator": f"characters / {CHARS_PER_TOKEN}", "target": PROMPT_TOKENS_BUDGET,
            "ok": max(one_step.values()) <= PROMPT_TOKENS_BUDGET}


ROUND_NAME = re.compile(r"r(\d+)_")
"""A recording's round: r2_* were driven on the code with the stages' fast paths (quick mode with any read tool, Act's
complete_step), r3_* with role outputs sent ahead, r4_* through the stage listing (ALFRED_LISTED=stages) with replies
sent ahead too; the others, the first round, on the code of the day before."""


def _round_of(name: str) -> str:
    found = ROUND_NAME.match(name)
    return found.group(1) if found else "1"


def _plain_of(name: str, recordings: dict[str, Recording]) -> Recording | None:
    """The plain-tool run beside a staged one: its own, else the latest earlier round's of the same conversation (a
    round that re-drove only the staged side compares with the plain side replayed on the same code)."""
    own = recordings.get(f"{name}.plain")
    if own is not None:
        return own
    base = ROUND_NAME.sub("", name, count=1)
    for earlier in range(int(_round_of(name)) - 1, 0, -1):
        plain = recordings.get(f"{base}.plain" if earlier == 1 else f"r{earlier}_{base}.plain")
        if plain is not None:
            return plain
    return None


async def recorded_turns() -> dict[str, object]:
    """The conversations a client's model drove (tests/scenarios/recorded), replayed call for call: per turn the calls
    and bytes the model read, stage by stage; beside each, the same conversation driven with plain tools, replayed in
    the same run, and the ratios of the totals (staged / plain). Per round of recordings (`rounds`): the totals, their
    ratios and the largest turns; the targets are judged on the latest round, as a model drives the code today. Round 2
    is also replayed with its role outputs sent ahead (`sent_ahead` of its round, `ahead_*` per conversation), and the
    latest with each turn's reply sent ahead (`replies_ahead`; `replies_ahead_not_lookups`: lookups as recorded), per
    conversation with what became of the replies (on a round driven with replies ahead, those its model had sent ahead
    and had applied are replayed as recorded: `ahead_as_recorded`), each in lockstep with its own replay. Each replay serves the listing
    its recording was made with; beside the totals of the answers, `with_tools_list` (per round, and
    `total_with_tools_list` over all) adds the tools/list each side's model read once per conversation: the plain side's
    listing (the default), the staged side's listing (`tools_list_bytes` per conversation: the default, or e.g. the
    stage listing). The latest round's recordings made on the default listing are also replayed on the stage listing
    (`as_stage_listing` of the round, `listed_bytes` per conversation): the same calls, as a client reading that listing
    would be answered."""
    recordings = {recording.name: recording for recording in load_recordings()}
    latest = max((_round_of(name) for name, recording in recordings.items() if not recording.plain), key=int, default="1")
    out: dict[str, object] = {}
    rounds: dict[str, dict[str, Any]] = {}
    listings: dict[tuple[str, ...], int] = {}
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "seeded").mkdir()
        kitchens = SeededKitchens(Path(folder) / "seeded")

        async def listing_bytes(listed: tuple[str, ...]) -> int:
            if listed not in listings:
                listings[listed] = _wire_bytes(await _listed(Path(folder), listed=listed))
            return listings[listed]

        for name, recording in recordings.items():
            if recording.plain:
                continue
            tally = rounds.setdefault(_round_of(name), _round())
            variants = AHEAD_VARIANTS.get("2" if _round_of(name) == "2" else "latest" if _round_of(name) == latest else "", ())
            logs, entry_ahead = [], {}
            for variant in variants:  # beside the replay, the same conversation with its role outputs sent ahead
                (made := Path(folder) / f"{name}.{variant}").mkdir()
                replies = (None if variant == "sent_ahead" else LookupsAnswered() if variant == "lookups_answered"
                           else LookupsAnswered(only_lookups=False) if variant == "followed_answers"
                           else RepliesAhead(on_lookups=variant == "replies_ahead"))
                one_by_one, ahead = await replay_sent_ahead(recording, made, kitchens, replies=replies)
                logs = logs or one_by_one
                tally["max"]["diverged"] += sum(len(log.diverged) for log in ahead)
                if variant in ("lookups_answered", "followed_answers"):  # leaving out a reply the answer said was not needed changes no kitchen
                    tally["max"]["diverged"] += sum(log.digest != same.digest for log, same in zip(ahead, one_by_one, strict=True))
                sent = _user_turns(recording, ahead)
                ahead_tally = tally.setdefault(variant, dict(AHEAD_TALLIES[variant]))
                ahead_tally["calls"] += sum(turn.calls for turn in sent)
                ahead_tally["bytes"] += sum(turn.bytes for turn in sent)
                shown: dict[str, object] = {"calls": [turn.calls for turn in sent], "bytes": [turn.bytes for turn in sent]}
                if replies is not None:
                    shown["replies"] = replies.counts()
                    ahead_tally["replies"] = {key: ahead_tally.get("replies", {}).get(key, 0) + count
                                              for key, count in replies.counts().items()}
                entry_ahead.update({"ahead_calls": shown["calls"], "ahead_bytes": shown["bytes"]} if variant == "sent_ahead"
                                   else {variant: shown})
            if not variants:
                (made := Path(folder) / name).mkdir()
                logs = await replay(recording, made, kitchens)
            worst = tally["max"]
            worst["diverged"] += sum(len(log.diverged) for log in logs)
            turns = _user_turns(recording, logs)
            entry_listed: dict[str, object] = {}
            if _round_of(name) == latest and not recording.listed:  # beside it, the same calls as a stage listing's client
                (made := Path(folder) / f"{name}.listed").mkdir()
                listed_logs = await replay(replace(recording, listed=STAGE_LISTING), made, kitchens)
                listed_turns = _user_turns(recording, listed_logs)
                staged = tally.setdefault("as_stage_listing", dict(AS_STAGE_LISTING))
                staged["diverged"] += sum(len(log.diverged) for log in listed_logs)
                staged["calls"] += sum(turn.calls for turn in listed_turns)
                staged["bytes"] += sum(turn.bytes for turn in listed_turns)
                staged["bytes_with_tools_list"] += sum(turn.bytes for turn in listed_turns) + await listing_bytes(STAGE_LISTING)
                entry_listed = {"listed_bytes": [turn.bytes for turn in listed_turns]}
            entry: dict[str, object] = {"calls": [turn.calls for turn in turns], "bytes": [turn.bytes for turn in turns], **entry_ahead,
                                        **entry_listed}
            for number, turn in enumerate(turns):
                worst["calls"], worst["bytes"] = max(worst["calls"], turn.calls), max(worst["bytes"], turn.bytes)
                if turn.one_step_read and number > 0:
                    worst["read_calls"], worst["read_bytes"] = max(worst["read_calls"], turn.calls), max(worst["read_bytes"], turn.bytes)
            tally["turns"] += len(turns)
            tally["calls"] += sum(turn.calls for turn in turns)
            tally["bytes"] += sum(turn.bytes for turn in turns)
            entry["tools_list_bytes"] = await listing_bytes(recording.listed)
            listed_tally = tally["with_tools_list"]
            listed_tally["bytes"] += sum(turn.bytes for turn in turns) + entry["tools_list_bytes"]
            plain = _plain_of(name, recordings)
            if plain is not None:
                (made := Path(folder) / f"{plain.name}.{name}").mkdir()
                plain_logs = await replay(plain, made, kitchens)
                worst["diverged"] += sum(len(log.diverged) for log in plain_logs)
                plain_turns = _user_turns(plain, plain_logs)
                entry["plain_calls"] = [turn.calls for turn in plain_turns]
                entry["plain_bytes"] = [turn.bytes for turn in plain_turns]
                entry["calls_ratio"] = _ratio(sum(turn.calls for turn in turns), sum(turn.calls for turn in plain_turns))
                entry["bytes_ratio"] = _ratio(sum(turn.bytes for turn in turns), sum(turn.bytes for turn in plain_turns))
                tally["plain_calls"] += sum(turn.calls for turn in plain_turns)
                tally["plain_bytes"] += sum(turn.bytes for turn in plain_turns)
                entry["plain_tools_list_bytes"] = await listing_bytes(plain.listed)
                tally["with_tools_list"]["plain_bytes"] += sum(turn.bytes for turn in plain_turns) + entry["plain_tools_list_bytes"]
            out[name] = entry
    overall = {"what": WITH_TOOLS_LIST, "bytes": 0, "plain_bytes": 0}
    for tally in rounds.values():
        tally["calls_ratio"] = _ratio(tally["calls"], tally["plain_calls"])
        tally["bytes_ratio"] = _ratio(tally["bytes"], tally["plain_bytes"])
        listed = tally["with_tools_list"]
        listed["bytes_ratio"] = _ratio(listed["bytes"], listed["plain_bytes"])
        overall["bytes"] += listed["bytes"]
        overall["plain_bytes"] += listed["plain_bytes"]
        if "as_stage_listing" in tally:
            staged = tally["as_stage_listing"]
            staged["bytes_ratio"] = _ratio(staged["bytes"], tally["plain_bytes"])
            staged["with_tools_list_ratio"] = _ratio(staged["bytes_with_tools_list"], listed["plain_bytes"])
        for ahead in (tally[key] for key in AHEAD_TALLIES if key in tally):
            ahead["calls_ratio"] = _ratio(ahead["calls"], tally["plain_calls"])
            ahead["bytes_ratio"] = _ratio(ahead["bytes"], tally["plain_bytes"])
    overall["bytes_ratio"] = _ratio(overall["bytes"], overall["plain_bytes"])
    targets = {"calls": TURN_CALLS_BUDGET, "bytes": TURN_BYTES_BUDGET, "read_calls": READ_TURN_CALLS_BUDGET,
               "read_bytes": READ_TURN_BYTES_BUDGET, "diverged": 0}
    latest = rounds[max(rounds, key=int)]["max"] if rounds else {key: 0 for key in targets}
    return {**out, "rounds": rounds, "total_with_tools_list": overall, "max": latest, "target": targets,
            "ok": all(latest[key] <= targets[key] for key in targets)}


AS_STAGE_LISTING: dict[str, object] = {
    "what": "the latest round's recordings made on the default listing, replayed call for call on the stage listing "
            "(ALFRED_LISTED=stages: the role texts in tools/list, not in the answers; Act's unlisted tools as typed "
            "signatures): what the same model calls read there; ratios against plain tools, with_tools_list_ratio with "
            "each side's tools/list once per conversation",
    "calls": 0, "bytes": 0, "bytes_with_tools_list": 0, "diverged": 0,
}


WITH_TOOLS_LIST = ("the answers' bytes plus the tools/list each side's model read once per conversation: the plain side's "
                   "listing (the default) and the staged side's (the listing the recording was made with)")


AHEAD_VARIANTS = {"2": ("sent_ahead",), "latest": ("replies_ahead", "replies_ahead_not_lookups", "lookups_answered",
                                                   "followed_answers")}
"""The replays beside a round's own: round 2's role outputs sent ahead; the latest round's replies sent ahead, on every
turn and on every turn but lookups (a reply its model had already sent ahead and had applied stays as recorded), its
lookups answered from their rows, their replies left out, and every turn whose answer said `answered` without its reply
(followed the answers)."""
AHEAD_TALLIES: dict[str, dict[str, object]] = {
    "sent_ahead": {
        "what": "the same recorded turns with each turn's Understand and Think outputs sent ahead in turn_start's then: a "
                "mechanical re-send of the recorded outputs (tests/scenarios/sent_ahead_replay.py), an upper bound of what "
                "a model that knew its plan would save; ratios against plain tools",
        "calls": 0, "bytes": 0,
    },
    "replies_ahead": {
        "what": "the same recorded turns with each turn's accepted reply sent ahead, last in the then of the call that "
                "carried the turn's other outputs; one refused or not applied is then submitted as recorded: a mechanical "
                "re-send of replies written after their model read the results (tests/scenarios/sent_ahead_replay.py), "
                "an upper bound (accepted_lookups: accepted on a lookup, whose rows a model could not know ahead; "
                "ahead_as_recorded: replies its model had sent ahead and had applied, replayed as recorded); "
                "ratios against plain tools",
        "calls": 0, "bytes": 0,
    },
    "lookups_answered": {
        "what": "the same recorded turns with the reply of each lookup the server answered from its rows (`answered`) "
                "left out, with the turn_context calls and refused replies before it: the model told the user from the "
                "rows (tests/scenarios/sent_ahead_replay.py; answered: those turns, replied_lookups: lookups whose answer "
                "did not say so, replayed as recorded); its end kitchens must be the recording's (else diverged); ratios "
                "against plain tools",
        "calls": 0, "bytes": 0,
    },
    "followed_answers": {
        "what": "followed the answers: the same recorded turns with the reply left out wherever the answer before it said "
                "the turn was `answered` (a lookup from its rows, or a turn the state's own account tells whole), with the "
                "turn_context calls and refused replies before it: calls a client following the answers would not make "
                "(answered_by_state: of the answered turns, those no lookup); its end kitchens must be the recording's "
                "(else diverged); ratios against plain tools",
        "calls": 0, "bytes": 0,
    },
    "replies_ahead_not_lookups": {
        "what": "as replies_ahead, but a lookup (Understand's quick read, or a plan that only reads) is replayed as "
                "recorded, its reply after the rows: what a model that sends a reply ahead only when it knows the outcome "
                "would save (kept_quick_route: those lookups)",
        "calls": 0, "bytes": 0,
    },
}
"""What each replay beside a round's own is, and its totals."""


@dataclass
class _UserTurn:
    calls: int = 0
    bytes: int = 0
    one_step_read: bool = False


USER_TURN = re.compile(r"[tp]\d+")
"""A user turn's label (t1, t2, ...; p1, p2, ... in the first round's plain runs); calls labelled otherwise (a recorder's `check` reads between turns) are replayed,
as the session saw them, but are no turn's cost."""


def _user_turns(recording: Recording, logs: list[ReplayedTurn]) -> list[_UserTurn]:
    """The calls and bytes of each user turn, in order; a turn a check read split in two counts as one."""
    turns: dict[str, _UserTurn] = {}
    for turn, log in zip(recording.turns, logs):
        if USER_TURN.fullmatch(turn.label):
            tally = turns.setdefault(turn.label, _UserTurn())
            tally.calls, tally.bytes = tally.calls + log.calls, tally.bytes + log.bytes
            tally.one_step_read = tally.one_step_read or turn.one_step_read
    return list(turns.values())


def _round() -> dict[str, Any]:
    return {"turns": 0, "calls": 0, "bytes": 0, "plain_calls": 0, "plain_bytes": 0,
            "with_tools_list": {"what": WITH_TOOLS_LIST, "bytes": 0, "plain_bytes": 0},
            "max": {"calls": 0, "bytes": 0, "read_calls": 0, "read_bytes": 0, "diverged": 0}}


def _ratio(staged: int, plain: int) -> float:
    return round(staged / max(1, plain), 2)
