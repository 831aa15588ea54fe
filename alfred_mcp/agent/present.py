"""The facts a reply must honor, and the state's own account of a turn no model reply tells."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from alfred_mcp.agent.account_words import (
    Told,
    absent_sentence,
    done_sentences,
    listed_names,
    not_done_sentence,
    note_sentences,
    outcome_sentences,
    partial_sentence,
    relinked_sentence,
    told_of,
    unlinked_sentence,
)
from alfred_mcp.kitchen.plurals import counted_name
from alfred_mcp.kitchen.schema import TABLES, table_for_entity_type
from alfred_mcp.operations import drafting
from alfred_mcp.operations.understanding import constraints_of
from alfred_mcp.session import Session
from alfred_mcp.session.documents import BATCHES
from alfred_mcp.state.agent_turn import StepState, ToolCallRecord, TurnState
from alfred_mcp.state.batch import BatchItem
from alfred_mcp.state.constraints import SessionConstraints, describe_constraint
from alfred_mcp.state.note_facts import told_in as note_told_in
from alfred_mcp.state.reply_check import CONSTRAINTS_TABLE, Fact, Item, ReplyFacts, unlinked_told, unsaved_told
from alfred_mcp.state.shortfalls import DRAFT_AGAIN, Shortfall
from alfred_mcp.state.warning_words import person_sentence, told_in

_WRITES = ("created", "updated", "deleted", "saved", "generated", "revised", "discarded", "undone")


def reply_facts(session: Session, state: TurnState) -> ReplyFacts:
    """What the turn recorded that a reply must honor: each thing written (and what a removal unlinked or
    took with it), the things of the few turns before, failures, unsaved drafts, a stop."""
    failed = [Item(item.ref, item.label or "", item.reason or "failed") for item in _failed_items(session, state)]
    found = [Shortfall(**entry) for step in _all_steps(state) for call in step.tool_calls for entry in call.shortfalls]
    reopened = {shortfall.ref for shortfall in found if shortfall.is_draft}
    unsaved = [Item(d.ref, d.label, DRAFT_AGAIN if d.ref in reopened else "") for d in drafting.list_drafts(session)
               if d.turn_created == state.turn or d.ref in reopened]
    named = {item.ref for item in failed} | reopened
    partial = [Item(shortfall.ref, shortfall.label, shortfall.reason) for shortfall in found if shortfall.ref not in named or not shortfall.ref]
    earlier = [fact for turn in range(max(1, state.turn - EARLIER_TURNS), state.turn) for fact in _written(session, turn)]
    things = [*_written(session, state.turn), *_side_effects(state), *constraint_facts(constraints_of(session), state.turn)]
    return ReplyFacts(things=things, failed=failed, unsaved=unsaved, stopped=state.blocked_reason, earlier=earlier,
                      unlinked=unlinked_items(session, state), relinked=relinked_items(session, state),
                      partial=list(dict.fromkeys(partial)))


def constraint_facts(constraints: SessionConstraints, turn: int) -> list[Fact]:
    """What `turn` did to the constraints: each stated then (created) and each a goal's end dropped then (deleted), on
    the constraints ('I've dropped that restriction', 'noted down no dairy')."""
    goal = constraints.active_goal
    stated = [c for c in (*(goal.constraints if goal else ()), *(constraints.occasion.constraints if constraints.occasion else ()))
              if c.source_turn == turn]
    change = constraints.replaced if constraints.replaced is not None and constraints.replaced.turn == turn else None
    dropped = change.dropped if change is not None and change.reason in ("reset_all", "trigger_phrase", "reset_subdomain") else []
    if constraints.dropped is not None and constraints.dropped.turn == turn:
        dropped = [*dropped, *constraints.dropped.constraints]
    return [*(Fact("created", CONSTRAINTS_TABLE, "", describe_constraint(c)) for c in stated),
            *(Fact("deleted", CONSTRAINTS_TABLE, "", describe_constraint(c)) for c in dropped)]


def unlinked_items(session: Session, state: TurnState) -> list[Item]:
    """Rows this turn's removals left pointing at nothing (a meal without its recipe), from the call log."""
    refs = dict.fromkeys(ref for call in session.calls(state.turn) if call.outcome == "ok" for ref in call.unlinked or ())
    return [Item(ref, _label(session, ref), "left pointing at a removed row") for ref in refs]


def relinked_items(session: Session, state: TurnState) -> list[Item]:
    """Rows this turn's undos pointed at a restored row again (a meal with its recipe back), from the call log."""
    refs = dict.fromkeys(ref for call in session.calls(state.turn) if call.outcome == "ok" for ref in call.relinked or ())
    return [Item(ref, _label(session, ref), "pointing at the restored row again") for ref in refs]


def _label(session: Session, ref: str) -> str:
    entry = session.registry.get(ref)
    return entry.label or "" if entry is not None else ""


EARLIER_TURNS = 5
"""How many turns back a reply's "earlier I added…" is checked against."""


def _written(session: Session, turn: int) -> list[Fact]:
    """One fact per row a successful call of `turn` wrote (reads are not facts)."""
    facts = []
    for call in session.calls(turn):
        if call.outcome == "ok" and call.action in _WRITES:
            for ref in call.refs:
                entry = session.registry.get(ref)
                table = call.table or (table_for_entity_type(entry.entity_type).name if entry is not None else None)
                facts.append(Fact(call.action, table, ref, entry.label or "" if entry is not None else "",
                                  columns=tuple(call.columns or ()), cleared=tuple(call.cleared or ())))
    return facts


_EFFECTS = {"unlinked": "unlinked", "cascaded": "cascaded", "relinked": "relinked", "removed": "deleted"}
"""A result's lists of rows written beside its own, and the action each is a fact of: an undo's `removed` rows (the rows an
undone save or add had written) are deleted by it."""


def removal_effects(result: dict[str, Any]) -> list[dict[str, Any]]:
    """A removal's `unlinked` rows (reference set to null) and `cascaded` ones (deleted with it), and an undo's `relinked`
    ones (reference set back) and `removed` ones (deleted: an undo of a save removes the recipe), as facts of the turn."""
    effects = []
    for key, action in _EFFECTS.items():
        entries = result.get(key)
        for entry in entries if isinstance(entries, list) else ():
            if isinstance(entry, dict) and isinstance(entry.get("table"), str):
                effects.append({"action": action, **{k: entry[k] for k in ("table", "ref", "label", "column") if isinstance(entry.get(k), str)}})
    return effects


def _side_effects(state: TurnState) -> list[Fact]:
    """What this turn's removals did beside their own rows: `unlinked` (a reference set to null) and `cascaded`."""
    facts = []
    for step in _all_steps(state):
        for call in step.tool_calls:
            for effect in call.effects:
                facts.append(Fact(str(effect.get("action", "")), _text(effect.get("table")), _text(effect.get("ref")) or "",
                                  _text(effect.get("label")) or ""))
    return facts


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def state_reply(session: Session, state: TurnState, *, said: str | None = None, hint: str = "") -> str:
    """The state's own account of a turn no model reply tells (blocked, failed, or every reply refused): what was
    done, what was not, and, when it stopped (`said`: the plain words for why), what to try, in a person's sentences
    (`account_words`). The one code path for such replies: it never quotes a model, nor the words meant for one."""
    facts = reply_facts(session, state)
    told = turn_told(session, state)
    wrote_by = {ref: call.tool for call in session.calls(state.turn) if call.outcome == "ok" for ref in call.refs}
    noted_facts, offers = note_sentences(told, lambda ref: _person_label(session, ref))
    done = done_sentences(facts, told, wrote_by)
    first = " ".join(part for part in (done, *noted_facts, outcome_sentences(told), unlinked_sentence(facts.unlinked),
                                       relinked_sentence(facts.relinked), absent_sentence(absent_calls(state), changed=bool(done)),
                                       not_done_sentence(facts), partial_sentence(facts), *warned_sentences(session, state),
                                       *offers) if part)
    noted = noted_of(facts)
    if said is None:
        return " ".join(part for part in (first or _read_sentence(session, state) or ("" if noted else
                                                                                      "Nothing needed changing."), noted) if part)
    stop = f"I couldn't finish this: {_clipped(said)}" + (f"; {_clipped(hint)}." if hint else ".")
    return f"{first or 'Nothing was changed.'}{' ' + noted if noted else ''}\n{stop}"


def absent_calls(state: TurnState) -> list[dict[str, str]]:
    """{name, table} of each step that stopped because what the person named is not there (its last call refused so)."""
    return [step.tool_calls[-1].absent for step in _all_steps(state)
            if step.status == "stopped" and step.tool_calls and step.tool_calls[-1].absent]


def turn_told(session: Session, state: TurnState) -> Told:
    """What the turn's successful calls told beside their rows (`account_words.result_told`), merged, refs read as names."""
    return told_of([*(call.told for step in _all_steps(state) for call in step.tool_calls if call.ok),
                    {"meal_recipes": _saved_meal_recipes(session)}], lambda ref: _label(session, ref))


def untold_warnings(call: ToolCallRecord) -> list[str]:
    """A call's warnings other than its shortfalls' lines (a part not done, which the account tells as such)."""
    told = {Shortfall(**entry).warning() for entry in call.shortfalls}
    return [warning for warning in call.warnings if warning not in told]


def warned_sentences(session: Session, state: TurnState, *, since: int = 0, reply: str = "") -> list[str]:
    """Each warning of the turn's calls (after the first `since`; none told twice) as a person reads it
    (`warning_words.person_sentence`), but those the `reply` already tells in its own words (`warning_words.told_in`: the
    thing and the day named); a warning no kind reads is left out (`unworded_warnings` names them)."""
    name_of = lambda ref: _person_label(session, ref)  # noqa: E731
    said = (person_sentence(warning, name_of) for warning in _turn_warnings(state, since) if not (reply and told_in(warning, name_of, reply)))
    return list(dict.fromkeys(sentence for sentence in said if sentence))


def revealed_sentences(session: Session, state: TurnState, reply: str, *, since: int) -> list[str]:
    """The state's sentences for what the calls after the turn's first `since` revealed that `reply`, written before them,
    does not tell: the warnings it does not tell in its own words, what a removal left pointing at nothing, a draft an undo
    kept open, and the facts and offers of their notes it does not tell (`note_facts`: offers last). Said to a person,
    names and no refs."""
    calls = [call for step in _all_steps(state) for call in step.tool_calls][since:]
    if not calls:
        return []
    facts = reply_facts(session, state)
    name_of = lambda ref: _person_label(session, ref)  # noqa: E731
    reopened = [item for item in facts.unsaved if item.reason == DRAFT_AGAIN]
    kept = replace(facts, failed=[], unsaved=reopened)
    told = told_of([call.told for call in calls if call.ok], lambda ref: _label(session, ref))
    untold = replace(told, note_facts=tuple(fact for fact in told.note_facts if not note_told_in(fact, reply)))
    noted, offers = note_sentences(untold, name_of)
    parts = [*warned_sentences(session, state, since=since, reply=reply),
             "" if unlinked_told(reply, facts) else unlinked_sentence(facts.unlinked),
             "" if not reopened or unsaved_told(reply, kept) else not_done_sentence(kept), *noted, *offers]
    return [part for part in dict.fromkeys(parts) if part and part not in reply]


def unworded_warnings(session: Session, state: TurnState, *, since: int = 0) -> list[str]:
    """The turn's warnings (after its first `since` calls) that have no sentence for a person: its model words them."""
    return [warning for warning in _turn_warnings(state, since)
            if person_sentence(warning, lambda ref: _person_label(session, ref)) is None]


def _turn_warnings(state: TurnState, since: int) -> list[str]:
    calls = [call for step in _all_steps(state) for call in step.tool_calls][since:]
    return list(dict.fromkeys(warning for call in calls for warning in untold_warnings(call)))


def _person_label(session: Session, ref: str) -> str | None:
    """A ref's label as a person reads it ('Fri 28 Nov dinner'), or None."""
    label = _label(session, ref)
    return label.replace(" [", " ").replace("]", "") if label else None


def _saved_meal_recipes(session: Session) -> dict[str, str]:
    """The recipe ref of each meal saved from a draft, by the saved meal's ref (the account names the meal by it)."""
    return {draft.saved_as: recipe for draft in drafting.list_drafts(session, include_done=True)
            if draft.entity_type == "meal" and draft.saved_as
            and isinstance(recipe := getattr(draft.parsed(), "recipe", None), str)}


def noted_sentence(session: Session, state: TurnState) -> str:
    """What the turn did to the constraints, for a person ('Noted: no fish. Dropped: dinner only.'; empty: nothing):
    a lookup answered from its rows says it beside them, since no reply tells it."""
    return noted_of(reply_facts(session, state))


def noted_of(facts: ReplyFacts) -> str:
    """'Noted: include cod, equipment: air-fryer.' from the constraints this turn stated (and 'Dropped: ...' for those a
    reset ended): told apart from the kitchen's changes, which they are not."""
    said = {"created": "Noted", "deleted": "Dropped"}
    parts = []
    for action, word in said.items():
        names = list(dict.fromkeys(fact.show() for fact in facts.things if fact.table == CONSTRAINTS_TABLE and fact.action == action))
        if names:
            parts.append(f"{word}: {', '.join(names)}.")
    return " ".join(parts)


def _read_sentence(session: Session, state: TurnState) -> str:
    """'I looked at 3 pantry items and 5 tasks.' for a turn that only read (its reply could not be written)."""
    counts: dict[str, int] = {}
    for call in session.calls(state.turn):
        if call.outcome == "ok" and call.action == "read" and call.table in TABLES:
            counts[call.table] = counts.get(call.table, 0) + call.count
    shown = [f"{count} {counted_name(TABLES[table].noun, count)}" for table, count in counts.items()]
    return f"I looked at {listed_names(shown)}; ask again to hear about them." if shown else ""


def _clipped(text: str, limit: int = 200) -> str:
    """One plain clause: trailing stops dropped, a long text cut at a word."""
    text = " ".join(text.split()).rstrip(".; ")
    return text if len(text) <= limit else text[:limit].rsplit(" ", 1)[0] + "…"


def _all_steps(state: TurnState) -> list[StepState]:
    return [*state.superseded_steps, *state.steps]


def _failed_items(session: Session, state: TurnState) -> list[BatchItem]:
    failed: dict[str, BatchItem] = {}
    for batch in turn_batches(state):
        manifest = session.read(BATCHES.at(batch))
        for item in manifest.items if manifest is not None else ():
            if item.status == "failed":
                failed[item.ref] = item
    return list(failed.values())


def turn_batches(state: TurnState) -> list[str]:
    """The manifests this turn worked on: its steps' batches and those its draft_save calls made."""
    steps = _all_steps(state)
    batches = {step.batch for step in steps if step.batch}
    batches.update(call.batch for step in steps for call in step.tool_calls if call.batch)
    return sorted(batches)
