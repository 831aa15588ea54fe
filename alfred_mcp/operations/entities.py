"""Tiered entity context (seed 000 §5.6, seed 004): active entities from the session, background
entities from the kitchen, and the resolver that maps a user's words to refs over both.

Background rows are the kitchen's recent recipes, the meals planned next, recipes whose names
hold the goal's required ingredients, and the rows of every table people name (recipes, pantry and
shopping items, tasks) named by the words of the message. They get
refs the way foreign-key targets do ('linked': known, not pulled into the working set), so a
model can name them and the resolver can answer with them.

The conversation supplies the rest of what people mean: the last list the user was shown (ordinals
count in it, across turns that read, delete or restore single rows), the refs the previous turn was
about ("that one"), and the conversation's own entities (created, saved, imported or planned in it),
which a name prefers.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date

from alfred_mcp.kitchen.query import MAX_IN_VALUES, Filter, OrderBy, Query, Where
from alfred_mcp.kitchen.schema import MEAL_PLANS, RECIPES, TABLES, Table, row_label
from alfred_mcp.kitchen.taxonomy import ingredient_words
from alfred_mcp.operations.drafting import pending_draft_views
from alfred_mcp.operations.meal_week import cooked_meal_ids
from alfred_mcp.operations.understanding import compiled_constraints, curation_of
from alfred_mcp.operations.windows import config_of
from alfred_mcp.session import Session, UnitOfWork
from alfred_mcp.state.call_log import CallRecord
from alfred_mcp.state.entity_resolver import KIND_WORDS, STOP_WORDS, Candidate, Mention, resolve
from alfred_mcp.state.working_set import build_working_set
from alfred_mcp.store.base import Row

MAX_BACKGROUND = 12
PER_SOURCE = 4
MAX_MESSAGE_WORDS = 4
WORD_MATCH_FETCH = 4
"""Rows fetched per row kept when a message word must be a whole word of the label (substrings are dropped)."""
NAMED_TABLES = tuple(
    table for table in TABLES.values()
    if table.user_owned and len(table.label_columns) == 1 and table.column(table.label_columns[0]).type == "text"
    and not any(column.fk is not None and column.fk.on_delete == "cascade" for column in table.fk_columns)
)
"""Tables whose rows people name (recipes, pantry and shopping items, tasks), not the lines of another row."""


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
        for table in NAMED_TABLES:  # 'the eggs' may be the pantry's, the shopping list's or a recipe's
            (column,) = table.label_columns
            await _add(work, found, skip, table, Where(all_of=(Filter(column, "ilike", f"%{word}%"),)), f"{column} has: {word}",
                       word=word)
    constraints = await compiled_constraints(work)
    for item in constraints.must_include[:3]:
        await _add(work, found, skip, RECIPES, Where(all_of=(Filter("name", "ilike", f"%{item.value}%"),)), f"contains: {item.value}")
    await _add(work, found, skip, RECIPES, Where(), "recent", order=(OrderBy("updated_at", descending=True),), limit=2)
    upcoming = Where(all_of=(Filter("date", "gte", today.isoformat()),))
    await _add(work, found, skip, MEAL_PLANS, upcoming, "planned", order=(OrderBy("date"),))
    kept = list(found.values())[:MAX_BACKGROUND]
    return await _planned_cut_said(work, kept, upcoming)


async def _planned_cut_said(work: UnitOfWork, kept: list[Candidate], upcoming: Where) -> list[Candidate]:
    """The candidates, the last planned meal saying how many more are planned and how to see them, when some are not
    listed: a cut list says it is cut."""
    planned = [index for index, c in enumerate(kept) if c.entity_type == MEAL_PLANS.entity_type and c.reason.startswith("planned")]
    if not planned:
        return kept
    more = await work.store.count(MEAL_PLANS, upcoming, user_id=work.user_id) - len(planned)
    if more > 0:
        last = kept[planned[-1]]
        kept[planned[-1]] = replace(last, reason=f"{last.reason} (+{more} more planned after it: meal_plan_show or db_read "
                                                 "meal_plans shows them)")
    return kept


@dataclass(frozen=True)
class Reading:
    """What a text refers to, and the kitchen's background rows it was resolved over."""

    background: list[Candidate]
    mentions: list[Mention]


async def read_references(work: UnitOfWork, text: str | None, *, today: date, entity_type: str | None = None) -> Reading:
    """Resolve `text` over the session's entities (the conversation's own marked) and the kitchen's background rows."""
    active = active_candidates(work)
    background = await background_candidates(work, text, today=today, active=[c.ref for c in active])
    if not text:
        return Reading(background, [])
    own = await own_refs(work)
    candidates = [replace(c, own=True) if c.ref in own else c for c in [*active, *background]]
    session = work.session
    mentions = resolve(text, candidates, entity_type=entity_type, shown=last_list_shown(session),
                       previous=previous_turn_refs(session))
    return Reading(background, mentions)


async def resolve_text(work: UnitOfWork, text: str, *, today: date, entity_type: str | None = None) -> list[Mention]:
    """What `text` refers to, over the session's entities and the kitchen's background rows."""
    return (await read_references(work, text, today=today, entity_type=entity_type)).mentions


LOOKBACK_TURNS = 30
"""How many turns back the conversation is read for the last list shown and its own entities."""
_NOT_ABOUT = frozenset({"deleted", "discarded", "linked"})
_OWN_ACTIONS = frozenset({"created", "saved", "generated"})


def _ok_calls(session: Session, turns: Iterable[int]) -> list[CallRecord]:
    """The successful calls of `turns` that touched refs, newest first."""
    return [r for turn in turns for r in reversed(session.calls(turn)) if r.outcome == "ok" and r.refs]


def _turns_back(session: Session, start: int) -> range:
    return range(start, max(session.turn - LOOKBACK_TURNS, 0), -1)


def last_list_shown(session: Session) -> list[str]:
    """The refs of the latest successful read that returned two or more rows, in the order returned. Reads,
    deletes and restores of single rows in between do not replace it."""
    return next((list(r.refs) for r in _ok_calls(session, _turns_back(session, session.turn))
                 if r.action == "read" and len(r.refs) >= 2), [])


def previous_turn_refs(session: Session) -> list[str]:
    """The refs the previous turn was about ('that one'): all it touched when that is one, else its last call's
    refs when that call touched one, else all (a list: 'that one' is then a question)."""
    for turn in _turns_back(session, session.turn - 1):
        calls = [r for r in _ok_calls(session, [turn]) if r.action not in _NOT_ABOUT]
        if not calls:
            continue
        touched = list(dict.fromkeys(ref for record in reversed(calls) for ref in record.refs))
        last = list(dict.fromkeys(calls[0].refs))
        return touched if len(touched) == 1 or len(last) != 1 else last
    return []


async def own_refs(work: UnitOfWork) -> frozenset[str]:
    """The conversation's own entities: rows it created, saved or imported, drafts it made, recipes it planned."""
    session = work.session
    calls = [r for r in _ok_calls(session, _turns_back(session, session.turn)) if r.action in _OWN_ACTIONS]
    own = {ref for record in calls for ref in record.refs}
    plans = [ref for record in calls if record.table == MEAL_PLANS.name for ref in record.refs]
    return frozenset(own | set(await _planned_recipes(work, plans)))


async def _planned_recipes(work: UnitOfWork, plan_refs: Sequence[str]) -> list[str]:
    registry = work.session.registry
    ids = [entry.row_id for ref in plan_refs if (entry := registry.get(ref)) is not None and entry.row_id]
    if not ids:
        return []
    query = Query(where=Where(all_of=(Filter("id", "in", ids[:MAX_IN_VALUES]),)), columns=("id", "recipe_id"), limit=len(ids))
    rows = await work.store.select(MEAL_PLANS, query, user_id=work.user_id)
    return [ref for row in rows if row.get("recipe_id") and (ref := registry.ref_for_row(row["recipe_id"])) is not None]


def _message_words(message: str | None) -> list[str]:
    words = [w for w in ingredient_words(message or "")
             if len(w) >= 3 and w not in STOP_WORDS and w not in KIND_WORDS and not w.isdigit()]
    return list(dict.fromkeys(words))[:MAX_MESSAGE_WORDS]


async def _add(
    work: UnitOfWork, found: dict[str, Candidate], skip: set[str], table: Table, where: Where, reason: str,
    *, order: tuple[OrderBy, ...] = (), limit: int = PER_SOURCE, word: str | None = None,
) -> None:
    """Rows of `table` matching `where` as background candidates; with `word`, only rows whose label holds it as a
    whole word ('free' is not in 'freezer'), plurals folded."""
    if len(found) >= MAX_BACKGROUND:
        return
    extra = ("updated_at",) if table is RECIPES else tuple(c.name for c in table.fk_columns if c.name == "recipe_id")
    columns = ("id", *table.label_columns, *extra)
    fetched = limit * WORD_MATCH_FETCH if word else limit
    rows = await work.store.select(table, Query(where=where, columns=columns, order_by=order, limit=fetched),
                                   user_id=work.user_id)
    if word:
        rows = [row for row in rows if word in ingredient_words(row_label(table, row))][:limit]
    recipes = await _recipe_names(work, rows) if table is MEAL_PLANS else {}
    cooked = await cooked_meal_ids(work.store, work.user_id, [row["id"] for row in rows]) if table is MEAL_PLANS else set()
    for row in rows:
        ref = link_row(work, table, row)
        if ref in skip or ref in found:
            continue
        entry = work.session.registry.entry(ref)
        found[ref] = Candidate(ref, table.entity_type, entry.label or ref, "background",
                               _why(reason, table, row, recipes, row["id"] in cooked))


def _why(reason: str, table: Table, row: Row, recipes: dict[str, str], cooked: bool = False) -> str:
    """Why the row is listed; a meal says what is planned ('planned: Mushroom Risotto', 'planned: no recipe'), so a
    model asked what to cook sees what is already on the plan, and whether it was cooked ('... (cooked)')."""
    if reason == "recent" and isinstance(row.get("updated_at"), str):
        return f"recent: updated {row['updated_at'][:10]}"
    if table is MEAL_PLANS:
        recipe = row.get("recipe_id")
        return f"{reason}: {recipes.get(recipe, 'a recipe') if recipe else 'no recipe'}" + (" (cooked)" if cooked else "")
    return reason


async def _recipe_names(work: UnitOfWork, meals: Sequence[Row]) -> dict[str, str]:
    """The names of the meals' recipes, by recipe id (one read)."""
    ids = sorted({row["recipe_id"] for row in meals if row.get("recipe_id")})
    if not ids:
        return {}
    query = Query(where=Where(all_of=(Filter("id", "in", ids),)), columns=("id", "name"), limit=len(ids))
    return {row["id"]: str(row["name"]) for row in await work.store.select(RECIPES, query, user_id=work.user_id)}


def link_row(work: UnitOfWork, table: Table, row: Row) -> str:
    """The row's ref, registered as 'linked' when new (known, not touched), with its label."""
    registry = work.session.registry
    ref, _ = registry.register_link(table.entity_type, row["id"], turn=work.session.turn)
    if registry.entry(ref).label is None:
        registry.set_label(ref, row_label(table, row))
    return ref
