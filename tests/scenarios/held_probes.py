"""What the state holds and enforces after a recorded conversation, staged or plain: probes of violating actions.

`held_labels.json` lists, per conversation, what the user stated that should constrain later work (written from the
user's messages) and the actions a model that forgot it would take (probes): plan a recipe holding it, save a
recipe holding it, add it to a recipe, delete what was to stay, search without it. After each turn of a replay the
kitchen and its session are copied (SQLite's backup, the session's state saved with it); each probe runs on a copy of
its own through the real `mcp` Client, so one probe's write never decides another's, and its outcome is read from the
server's answer: `refused` (the call was refused naming the thing), `warned` (a warning names it), `filtered` (a
search left the recipes holding it out and said so), `through` (none of those). A probe on a statement in force
expects the state to stop it; after the user dropped it, to let it through.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from e2e.conftest import SeededKitchens, opened_app
from mcp import Client

from alfred_mcp.server.mcp_server import build_server
from alfred_mcp.session.unit_of_work import flush_deferred

from .recorded import Recording, on_day, recording_server

LABELS = Path(__file__).parent / "held_labels.json"
Outcome = Literal["refused", "warned", "filtered", "through", "failed"]
STOPPED: frozenset[str] = frozenset({"refused", "warned", "filtered"})
ACTIONS = ("plan", "save", "add_ingredient", "delete_plan", "search")


@dataclass(frozen=True)
class Probe:
    """One violating action: what it does (`action` and its arguments) and the words an answer stopping it names."""

    id: str
    action: str
    spec: dict[str, Any]
    terms: tuple[str, ...]
    start: str | None = None
    """The turn from which the action can be made (what it acts on exists), when later than the statement's."""


@dataclass(frozen=True)
class Stated:
    """Something the user stated that should constrain later work, in the words of the turn's message."""

    conversation: str
    id: str
    turn: str
    words: str
    holds: str
    probes: tuple[Probe, ...]
    dropped: str | None = None
    dropped_words: str | None = None

    def expect(self, turn: str, order: list[str]) -> Literal["stop", "pass"]:
        """What the state should do to a probe after `turn`: stop it, or (the user dropped it) let it through."""
        return "pass" if self.dropped is not None and order.index(turn) >= order.index(self.dropped) else "stop"

    def probed_after(self, probe: Probe, order: list[str]) -> list[str]:
        """The turns after which `probe` runs: from the statement's (or the probe's own later start) to the end."""
        return order[order.index(probe.start or self.turn):]


def load_labels(path: Path = LABELS) -> dict[str, list[Stated]]:
    """Per conversation (its name without round or `.plain`), what the user stated, in label order."""
    data = json.loads(path.read_text())
    return {name: [_stated(name, item) for item in entry["stated"]] for name, entry in data["conversations"].items()}


def _stated(conversation: str, item: dict[str, Any]) -> Stated:
    probes = tuple(
        Probe(probe["id"], probe["action"], {k: v for k, v in probe.items() if k not in ("id", "action", "terms", "from")},
              tuple(probe["terms"]), probe.get("from"))
        for probe in item["probes"])
    return Stated(conversation, item["id"], item["turn"], item["words"], item["holds"], probes, item.get("dropped"),
                  item.get("dropped_words"))


@dataclass
class ProbeResult:
    stated: str
    probe: str
    turn: str
    expect: Literal["stop", "pass"]
    outcome: Outcome
    evidence: str = ""
    """The part of the answer the outcome was read from (a refusal, a warning, what a search left out)."""

    @property
    def ok(self) -> bool:
        """Whether the state did what it should: stopped it while the statement held, let it through once dropped."""
        return self.outcome != "failed" and (self.outcome in STOPPED) == (self.expect == "stop")


@dataclass
class HeldTurn:
    """After one turn: what the session's constraints hold, and every probe's result."""

    label: str
    holds: list[str]
    """What the session's constraints hold beyond the preferences (`held_lines`)."""
    results: list[ProbeResult] = field(default_factory=list)
    diverged: list[str] = field(default_factory=list)
    """Calls replayed since the last turn probed whose outcome differs from the recording (the kitchen probed is then
    not the recorded one): 't2 db_update: refused (recorded: accepted)'."""


def conversation_of(recording: Recording) -> str:
    """'r3_a2_guests' and 'r2_a2_guests.plain' -> 'a2_guests'."""
    name = recording.name.removesuffix(".plain")
    return name.split("_", 1)[1] if name[:1] == "r" and name[1:2].isdigit() else name


def user_turns(recording: Recording) -> list[str]:
    """The labels of the user's turns, in order (a recorder's check reads between turns are not turns)."""
    return [turn.label for turn in recording.turns if turn.label[:1] in "tp" and turn.label[1:].isdigit()]


def checkpoints(stated: list[Stated], order: list[str]) -> list[str]:
    """The turns probed by default: the end of each phase of a statement's life (the turn before the user dropped it)
    and the conversation's last turn, where the state has had longest to lose what it holds."""
    before_drop = {order[order.index(item.dropped) - 1] for item in stated if item.dropped is not None}
    return [turn for turn in order if turn in before_drop or turn == order[-1]]


async def held_replay(recording: Recording, stated: list[Stated], folder: Path, kitchens: SeededKitchens, *,
                      every_turn: bool = False) -> list[HeldTurn]:
    """The recording replayed call for call; after each checkpoint turn (`every_turn`: after each user turn) the
    constraints the session holds, and each probe in force run on a copy of the kitchen and session of its own."""
    order = user_turns(recording)
    probed = order if every_turn else checkpoints(stated, order)
    held: list[HeldTurn] = []
    diverged: list[str] = []
    (live := folder / "live").mkdir(parents=True)
    with on_day(recording.today):
        async with kitchens.copy(live, recording.today) as app, Client(recording_server(app, recording)) as client:
            for turn in recording.turns:
                for call in turn.calls:
                    result = await client.call_tool(call.tool, call.arguments)
                    if bool(result.is_error) != call.is_error:
                        said = ("refused", "accepted") if result.is_error else ("accepted", "refused")
                        diverged.append(f"{turn.label} {call.tool}: {said[0]} (recorded: {said[1]})")
                if turn.label not in probed:
                    continue
                read = await client.call_tool("constraints_read", {})
                after = HeldTurn(turn.label, held_lines((read.structured_content or {}).get("constraints", {})), diverged=diverged)
                diverged = []
                await flush_deferred(app.sessions, app.store)
                snapshot = folder / f"after_{turn.label}.db"
                _backup(live / "kitchen.db", snapshot)
                for item in stated:
                    for probe in item.probes:
                        if turn.label in item.probed_after(probe, order):
                            outcome, evidence = await _probe_copy(snapshot, folder / f"{turn.label}_{probe.id}", probe)
                            after.results.append(ProbeResult(item.id, probe.id, turn.label, item.expect(turn.label, order), outcome, evidence))
                held.append(after)
    return held


PREFERENCES_REASONS = frozenset({"allergy", "dislike"})
"""Exclusions the preferences row holds (the same on both sides, before the conversation): left out of `held_lines`."""


def held_lines(compiled: dict[str, Any]) -> list[str]:
    """What the session's constraints hold beyond the user's preferences, one short line each (the compiled view as
    constraints_read gives it): the occasion, exclusions and their source, the guests' allergies, limits, what stays,
    and the constraints about one thing."""
    lines = [f"occasion: {compiled['occasion']}"] if compiled.get("occasion") else []
    lines += [f"exclude {item['value']} ({', '.join(item['why'])})" for item in compiled.get("must_exclude", [])
              if not PREFERENCES_REASONS.issuperset(item["why"])]
    lines += [f"include {item['value']}" for item in compiled.get("must_include", [])]
    for key, label in (("max_minutes", "time limit"), ("servings", "servings")):
        if compiled.get(key) is not None:
            lines.append(f"{label}: {compiled[key]}")
    for key, label in (("meal_types", "meals"), ("days", "days"), ("dietary", "diet"), ("keep", "keep")):
        if compiled.get(key):
            lines.append(f"{label}: {', '.join(compiled[key])}")
    lines += [f"only {ref}: {'; '.join(phrases)}" for ref, phrases in (compiled.get("about") or {}).items()]
    return lines


def _backup(source: Path, target: Path) -> None:
    """A consistent copy of the SQLite file the server has open (its WAL included)."""
    with sqlite3.connect(source) as reading, sqlite3.connect(target) as writing:
        reading.backup(writing)
    reading.close()
    writing.close()


async def _probe_copy(snapshot: Path, folder: Path, probe: Probe) -> tuple[Outcome, str]:
    folder.mkdir()
    _backup(snapshot, folder / "kitchen.db")
    async with opened_app(folder) as app, Client(build_server(app)) as client:
        return await run_probe(client, probe)


async def run_probe(client: Client, probe: Probe) -> tuple[Outcome, str]:
    """Make the probe's action on the session `client` acts on; its outcome and the answer's words it was read from."""
    spec = probe.spec
    if probe.action == "search":
        return await _search(client, spec, probe.terms)
    answers: list[Answer] = []
    if probe.action == "plan":
        recipe = await _recipe_ref(client, [{"field": "name", "op": "eq", "value": spec["recipe"]}])
        if recipe is None:
            return "failed", f"no recipe named {spec['recipe']}"
        data = {"date": spec["date"], "meal_type": spec["meal_type"], "recipe_id": recipe,
                **({"servings": spec["servings"]} if "servings" in spec else {})}
        answers.append(await _call(client, "db_create", {"table": "meal_plans", "data": data}))
    elif probe.action == "save":
        created = await _call(client, "draft_create", {"entity_type": "recipe", "items": [spec["recipe"]]})
        answers.append(created)
        refs = [draft["ref"] for draft in created.structured.get("drafts", []) if isinstance(draft, dict) and "ref" in draft]
        if created.refused or not refs:
            return _outcome(answers, probe.terms) if created.refused else ("failed", created.text[:300])
        answers.append(await _call(client, "draft_save", {"refs": refs}))
    elif probe.action == "add_ingredient":
        recipe = await _recipe_ref(client, [{"field": "name", "op": "ilike", "value": spec["recipe_like"]}])
        if recipe is None:
            return "failed", f"no recipe like {spec['recipe_like']}"
        answers.append(await _call(client, "db_create", {"table": "recipe_ingredients", "data": {"recipe_id": recipe, **spec["ingredient"]}}))
    elif probe.action == "delete_plan":
        meal = await _meal_ref(client, spec)
        if meal is None:
            return "failed", f"no {spec['meal_type']} of {spec['recipe']} on {spec['date']}"
        answers.append(await _call(client, "db_delete", {"table": "meal_plans", "filters": [{"field": "id", "op": "eq", "value": meal}]}))
    else:
        raise ValueError(f"unknown probe action {probe.action!r}; known: {', '.join(ACTIONS)}")
    return _outcome(answers, probe.terms)


@dataclass(frozen=True)
class Answer:
    refused: bool
    text: str
    structured: dict[str, Any]


async def _call(client: Client, tool: str, arguments: dict[str, Any]) -> Answer:
    result = await client.call_tool(tool, arguments)
    text = "".join(block.text for block in result.content if block.type == "text")
    return Answer(bool(result.is_error), text, result.structured_content or {})


def _names(text: str, terms: Iterable[str]) -> bool:
    lowered = text.lower()
    return any(term.lower() in lowered for term in terms)


def _outcome(answers: list[Answer], terms: tuple[str, ...]) -> tuple[Outcome, str]:
    """Refused naming the thing, warned naming it, or through; a refusal for another reason is a failed probe."""
    for answer in answers:
        if answer.refused:
            return ("refused", answer.text[:300]) if _names(answer.text, terms) else ("failed", answer.text[:300])
    warnings = [str(w) for answer in answers for w in answer.structured.get("warnings") or []]
    named = [warning for warning in warnings if _names(warning, terms)]
    return ("warned", named[0][:300]) if named else ("through", "")


async def _search(client: Client, spec: dict[str, Any], terms: tuple[str, ...]) -> tuple[Outcome, str]:
    """Filtered when no recipe holding the thing is shown and the answer says which it left out and why; warned when
    each one shown is marked; through when one is shown unmarked."""
    answer = await _call(client, "recipes_search", spec["arguments"])
    if answer.refused:
        return "failed", answer.text[:300]
    shown = {recipe["name"]: recipe for recipe in answer.structured.get("recipes", [])}
    excluded = {item["name"]: item for item in answer.structured.get("excluded", [])}
    violators = spec["violators"]
    plain = [name for name in violators if name in shown and not _names(json.dumps(shown[name]), terms)]
    if plain:
        return "through", f"shown: {', '.join(plain)}"
    left_out = [name for name in violators if name in excluded and _names(json.dumps(excluded[name]), terms)]
    if left_out and all(name in excluded for name in violators if name not in shown):
        marked = [name for name in violators if name in shown]
        return ("warned" if marked else "filtered"), json.dumps([excluded[name] for name in left_out])[:300]
    return "failed", f"none of {violators} shown or left out with a reason naming {list(terms)}"


async def _recipe_ref(client: Client, filters: list[dict[str, Any]]) -> str | None:
    """The newest recipe the filters find (a new version over its original), by ref."""
    answer = await _call(client, "db_read", {"table": "recipes", "filters": filters, "columns": ["id", "name"],
                                             "order_by": [{"field": "created_at", "direction": "desc"}], "limit": 1})
    rows = answer.structured.get("rows") or []
    return str(rows[0]["id"]) if rows and not answer.refused else None


async def _meal_ref(client: Client, spec: dict[str, Any]) -> str | None:
    answer = await _call(client, "db_read", {"table": "meal_plans", "filters": [
        {"field": "date", "op": "eq", "value": spec["date"]}, {"field": "meal_type", "op": "eq", "value": spec["meal_type"]}]})
    for row in answer.structured.get("rows") or []:
        if row.get("recipe_id_label") == spec["recipe"]:
            return str(row["id"])
    return None
