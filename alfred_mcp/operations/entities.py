"""Tiered entity context (seed 000 §5.6, seed 004): active entities from the session, background
entities from the kitchen, and the resolver that maps a user's words to refs over both.

Background rows are the kitchen's recent recipes, the meals planned next, recipes whose names
hold the goal's required ingredients, and recipes named by the words of the message. They get
refs the way foreign-key targets do ('linked': known, not pulled into the working set), so a
model can name them and the resolver can answer with them.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from alfred_mcp.kitchen.query import Filter, OrderBy, Query, Where
from alfred_mcp.kitchen.schema import MEAL_PLANS, RECIPES, Table, row_label
from alfred_mcp.kitchen.taxonomy import ingredient_words
from alfred_mcp.operations.drafting import pending_draft_views
from alfred_mcp.operations.understanding import compiled_constraints, curation_of
from alfred_mcp.operations.windows import config_of
from alfred_mcp.session import Session, UnitOfWork
from alfred_mcp.state.entity_resolver import STOP_WORDS, Candidate, Mention, resolve
from alfred_mcp.state.working_set import build_working_set
from alfred_mcp.store.base import Row

MAX_BACKGROUND = 12
PER_SOURCE = 4
MAX_MESSAGE_WORDS = 4


def active_candidates(work: UnitOfWork) -> list[Candidate]:
    """The working set as resolver candidates: recent, retained and pending drafts (tier 1)."""
    session = work.session
    window = config_of(work).entity_window
    working = build_working_set(session.registry.entries(), curation_of(session), pending_draft_views(session),
                                turn=session.turn, window=window)
    lines = [*working.recent, *working.retained]
    out = [Candidate(line.ref, line.entity_type, line.label or line.ref, "active", f"turn {line.turn_last_ref}: {line.action}",
                     line.turn_last_ref) for line in lines]
    out += [Candidate(d.ref, d.entity_type, d.label, "active", "draft, not saved", session.turn) for d in working.pending]
    out += [Candidate(e.ref, e.entity_type, e.label or e.ref, "background", f"seen in turn {e.turn_last_ref}")
            for e in working.others if e.label]
    return out


async def background_candidates(work: UnitOfWork, message: str | None, *, today: date, active: Sequence[str] = ()) -> list[Candidate]:
    """Kitchen rows relevant to the session but not in view (tier 2), each with why it is listed."""
    found: dict[str, Candidate] = {}
    skip = set(active)
    for word in _message_words(message):
        await _add(work, found, skip, RECIPES, Where(all_of=(Filter("name", "ilike", f"%{word}%"),)), f"name has: {word}")
    constraints = await compiled_constraints(work)
    for item in constraints.must_include[:3]:
        await _add(work, found, skip, RECIPES, Where(all_of=(Filter("name", "ilike", f"%{item.value}%"),)), f"contains: {item.value}")
    await _add(work, found, skip, RECIPES, Where(), "recent", order=(OrderBy("updated_at", descending=True),), limit=2)
    upcoming = Where(all_of=(Filter("date", "gte", today.isoformat()),))
    await _add(work, found, skip, MEAL_PLANS, upcoming, "planned", order=(OrderBy("date"),))
    return list(found.values())[:MAX_BACKGROUND]


async def resolve_text(work: UnitOfWork, text: str, *, today: date, entity_type: str | None = None) -> list[Mention]:
    """What `text` refers to, over the session's entities and the kitchen's background rows."""
    active = active_candidates(work)
    background = await background_candidates(work, text, today=today, active=[c.ref for c in active])
    return resolve(text, [*active, *background], entity_type=entity_type, shown=last_list_shown(work.session))


LIST_LOOKBACK_TURNS = 2
"""How many turns back the last list shown is looked for ('the second one' points into it)."""


def last_list_shown(session: Session) -> list[str]:
    """The refs of the latest successful read that returned two or more rows, in the order returned."""
    for turn in range(session.turn, max(session.turn - LIST_LOOKBACK_TURNS, 0) - 1, -1):
        for record in reversed(session.calls(turn)):
            if record.outcome == "ok" and record.action == "read" and len(record.refs) >= 2:
                return list(record.refs)
    return []


def _message_words(message: str | None) -> list[str]:
    words = [w for w in ingredient_words(message or "") if len(w) >= 4 and w not in STOP_WORDS and not w.isdigit()]
    return list(dict.fromkeys(words))[:MAX_MESSAGE_WORDS]


async def _add(
    work: UnitOfWork, found: dict[str, Candidate], skip: set[str], table: Table, where: Where, reason: str,
    *, order: tuple[OrderBy, ...] = (), limit: int = PER_SOURCE,
) -> None:
    if len(found) >= MAX_BACKGROUND:
        return
    columns = ("id", *table.label_columns, "updated_at") if table is RECIPES else ("id", *table.label_columns, "recipe_id")
    rows = await work.store.select(table, Query(where=where, columns=columns, order_by=order, limit=limit),
                                   user_id=work.user_id)
    for row in rows:
        ref = _link(work, table, row)
        if ref in skip or ref in found:
            continue
        entry = work.session.registry.entry(ref)
        found[ref] = Candidate(ref, table.entity_type, entry.label or ref, "background", _why(reason, table, row))


def _why(reason: str, table: Table, row: Row) -> str:
    if reason == "recent" and isinstance(row.get("updated_at"), str):
        return f"recent: updated {row['updated_at'][:10]}"
    return reason


def _link(work: UnitOfWork, table: Table, row: Row) -> str:
    """The row's ref, registered as 'linked' when new (known, not touched), with its label."""
    registry = work.session.registry
    ref, _ = registry.register_link(table.entity_type, row["id"], turn=work.session.turn)
    if registry.entry(ref).label is None:
        registry.set_label(ref, row_label(table, row))
    return ref
