"""Resources: the session's context layers, the kitchen dashboard, the schema and the taxonomy.

`{session}` is `current` (the user's current session) or a name such as `session_2`. JSON
resources are what the context builders read; every payload is refs only and checked for raw
ids before it leaves.
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any

from mcp.server.mcpserver.exceptions import ResourceNotFoundError

from alfred_mcp import drafting, turns
from alfred_mcp.agent.turn_state import CURRENT_TURN_KEY, turn_key
from alfred_mcp.dashboard import build_dashboard
from alfred_mcp.errors import AlfredError
from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import TABLES, Column, Table, table_for_entity_type
from alfred_mcp.kitchen.taxonomy import taxonomy_path
from alfred_mcp.session import Session
from alfred_mcp.state.constraints import compile_constraints, render_constraints
from alfred_mcp.state.folding import render_folded
from alfred_mcp.state.turn_state import DRAFT_PREFIX
from alfred_mcp.state.working_set import build_working_set
from alfred_mcp.store.base import Store
from alfred_mcp.surface.sessions import bare_ref, session_for_resource, to_json

if TYPE_CHECKING:
    from alfred_mcp.server import AlfredServer

JSON = "application/json"
MARKDOWN = "text/markdown"
SESSION_RESOURCES = ("working-set", "constraints", "narratives", "conversation", "decisions")
DASHBOARD_URI = "alfred://kitchen/dashboard"


def session_uri(session: str, kind: str) -> str:
    return f"alfred://session/{session}/{kind}"


def register(server: AlfredServer) -> None:
    """Add every resource and resource template to `server`."""
    app = server.app

    @server.resource("alfred://session/{session}/working-set", name="working-set", title="Working set", mime_type=JSON,
                     description="Entities in view this turn: recent, retained (with reasons), pending drafts, excluded.")
    async def working_set(session: str) -> str:
        async with session_for_resource(app, session) as found:
            return to_json({**_head(found), **working_set_view(found)}, where="working set")

    @server.resource("alfred://session/{session}/constraints", name="constraints", title="Constraints", mime_type=JSON,
                     description="Permanent constraints, the active goal, and the compiled view Think and Act use.")
    async def constraints(session: str) -> str:
        async with session_for_resource(app, session) as found:
            current = await turns.current_constraints(app.store, found)
            compiled = compile_constraints(current)
            payload = {**_head(found), "constraints": compiled.model_dump(mode="json"),
                       "goal": current.active_goal.model_dump(mode="json") if current.active_goal else None,
                       "permanent": current.permanent.model_dump(mode="json"), "markdown": render_constraints(compiled)}
            return to_json(payload, where="constraints")

    @server.resource("alfred://session/{session}/narratives", name="narratives", title="Turn narratives", mime_type=JSON,
                     description="What happened: the last turns whole, older ones folded, and this turn so far.")
    async def narratives(session: str) -> str:
        async with session_for_resource(app, session) as found:
            whole, folded = turns.recent_narratives(found)
            payload = {**_head(found), "recent": [n.model_dump(mode="json") for n in whole],
                       "earlier": render_folded(folded), "current": turns.summarize_current(found).model_dump(mode="json")}
            return to_json(payload, where="narratives")

    @server.resource("alfred://session/{session}/conversation", name="conversation", title="Conversation", mime_type=JSON,
                     description="The last turns verbatim and a bounded summary of older ones.")
    async def conversation(session: str) -> str:
        async with session_for_resource(app, session) as found:
            history = turns.conversation_of(found)
            payload = {**_head(found), "recent": [e.model_dump(mode="json") for e in history.recent],
                       "earlier": render_folded(history.earlier), "folded_turns": _folded_range(history.earlier)}
            return to_json(payload, where="conversation")

    @server.resource("alfred://session/{session}/decisions", name="decisions", title="Curation decisions", mime_type=JSON,
                     description="Understand's curation log (last 20), retained refs with reasons, dropped refs.")
    async def decisions(session: str) -> str:
        async with session_for_resource(app, session) as found:
            curation = turns.curation_of(found)
            payload = {**_head(found), **curation.to_dict()}
            return to_json(payload, where="decisions")

    @server.resource("alfred://session/{session}/ref/{ref}", name="ref", title="One ref", mime_type=JSON,
                     description="What the session knows about one ref: type, label, turns, and its row or draft content.")
    async def one_ref(session: str, ref: str) -> str:
        async with session_for_resource(app, session) as found:
            return to_json({**_head(found), **await ref_view(app.store, found, bare_ref(ref))}, where="ref")

    @server.resource("alfred://session/{session}/turns/{turn}", name="turn", title="A turn, stage by stage", mime_type=JSON,
                     description="Every stage's output of an agent turn (`current`, `last` or a number): understanding, plan, "
                                 "steps with tool calls and refusals, batch progress, reply and the audit ledger.")
    async def turn(session: str, turn: str) -> str:
        async with session_for_resource(app, session) as found:
            return to_json({**_head(found), **turn_view(found, turn)}, where="turn")

    @server.resource("alfred://session/{session}/batches/{batch}", name="batch", title="A batch manifest", mime_type=JSON,
                     description="A batch's items (pending, completed, failed with reason, skipped) and progress; `latest` for the newest.")
    async def batch(session: str, batch: str) -> str:
        async with session_for_resource(app, session) as found:
            manifest = _manifest(found, batch)
            return to_json({**_head(found), **manifest.to_dict(), "progress": manifest.progress(), "summary": manifest.summary()},
                           where="batch")

    @server.resource(DASHBOARD_URI, name="dashboard", title="Kitchen dashboard", mime_type=JSON,
                     description="Counts by type, what expires soon, the next meals (refs in the current session).")
    async def dashboard() -> str:
        async with session_for_resource(app, None) as found:
            return to_json(await build_dashboard(app.store, found, today=date.today()), where="dashboard")

    @server.resource("alfred://kitchen/schema/{table}", name="schema", title="Table schema", mime_type=MARKDOWN,
                     description="One kitchen table: columns, types, allowed values, foreign keys as refs.")
    def schema(table: str) -> str:
        if table not in TABLES:
            raise ResourceNotFoundError(f"Unknown table '{table}'. Tables: {', '.join(TABLES)}.")
        return table_markdown(TABLES[table])

    @server.resource("alfred://taxonomy", name="taxonomy", title="Ingredient taxonomy", mime_type=JSON,
                     description="Ingredient categories (fish -> cod, salmon, ...) that recipes_search expands.")
    def taxonomy() -> str:
        return taxonomy_path().read_text(encoding="utf-8")


def _head(session: Session) -> dict[str, Any]:
    return {"session": session.name, "turn": session.turn}


def _folded_range(folded: Any) -> list[int] | None:
    return None if folded.first_turn is None else [folded.first_turn, folded.last_turn]


def turn_view(session: Session, which: str) -> dict[str, Any]:
    """An agent turn's recorded stages; `current` is the newest, `last` the one before it.

    Raises:
        ResourceNotFoundError: no such turn was run by the agent loop.
    """
    newest = session.document(CURRENT_TURN_KEY)
    numbers = sorted(int(key.rsplit(":", 1)[1]) for key in session.documents_with_prefix("agent:turn:"))
    if which == "current":
        number = newest
    elif which == "last":
        earlier = [n for n in numbers if newest is None or n < newest]
        number = earlier[-1] if earlier else None
    else:
        number = int(which) if which.isdigit() else None
    stored = session.document(turn_key(number)) if number is not None else None
    if stored is None:
        raise ResourceNotFoundError(f"No agent turn {which!r} in {session.name}; agent turns: {numbers or 'none yet'}.")
    return {"state": stored}


def _manifest(session: Session, batch: str) -> Any:
    try:
        return drafting.load_manifest(session, None if batch == "latest" else batch)
    except AlfredError as error:
        raise ResourceNotFoundError(error.message) from None


def working_set_view(session: Session) -> dict[str, Any]:
    working = build_working_set(session.registry.entries(), turns.curation_of(session), turns.pending_drafts(session),
                                turn=session.turn)
    return working.to_dict()


async def ref_view(store: Store, session: Session, ref: str) -> dict[str, Any]:
    """A ref's registry entry, plus its row (refs only) or its draft content.

    Raises:
        ResourceNotFoundError: the session does not know `ref`.
    """
    try:
        entry = session.registry.entry(ref)
    except AlfredError as error:
        raise ResourceNotFoundError(error.message) from None
    view: dict[str, Any] = {
        "ref": entry.ref, "entity_type": entry.entity_type, "table": table_for_entity_type(entry.entity_type).name,
        "label": entry.label, "action": entry.action, "turn_created": entry.turn_created,
        "turn_last_ref": entry.turn_last_ref, "deleted_turn": entry.deleted_turn, "saved_as": entry.saved_as,
    }
    draft = session.document(f"{DRAFT_PREFIX}{entry.ref}")
    if draft is not None:
        view["draft"] = {"status": draft.get("status"), "content": draft.get("content")}
    elif entry.row_id is not None and entry.deleted_turn is None:
        view["row"] = await _row(store, session, entry.entity_type, entry.row_id)
    return view


async def _row(store: Store, session: Session, entity_type: str, row_id: str) -> dict[str, Any] | None:
    """The row with its id and foreign keys as refs; FK targets are linked without being touched."""
    table = table_for_entity_type(entity_type)
    rows = await store.select(table, Query(where=Where(all_of=(Filter("id", "eq", row_id),))), user_id=session.user_id)
    if not rows:
        return None
    row = {key: value for key, value in rows[0].items() if key != "user_id"}
    row["id"] = session.registry.ref_for_row(row_id)
    for column in table.fk_columns:
        target = row.get(column.name)
        if target is not None and column.fk is not None:
            linked, _ = session.registry.register_link(TABLES[column.fk.table].entity_type, target, turn=session.turn)
            row[column.name] = linked
            row[f"{column.name}_label"] = session.registry.entry(linked).label
    await session.save(store)
    return row


def table_markdown(table: Table) -> str:
    """A table described for a model: one line per column, refs for ids and foreign keys."""
    lines = [
        f"# {table.name}",
        "",
        table.description,
        "",
        f"Refs: `{table.entity_type}_N` ({table.noun}). Subdomain: {table.subdomain}. "
        + ("Writable." if table.user_owned else "Read-only (shared catalog)."),
        "",
        "| Column | Type | Required | Notes |",
        "|---|---|---|---|",
    ]
    lines += [_column_line(column) for column in table.columns if column.name != "user_id"]
    return "\n".join(lines) + "\n"


def _column_line(column: Column) -> str:
    kind = "ref" if column.name == "id" or column.fk is not None else column.type
    notes = [column.description]
    if column.fk is not None:
        target = TABLES[column.fk.table]
        notes.append(f"a `{target.entity_type}_N` ref to {target.name} (on delete: {column.fk.on_delete})")
    if column.enum is not None:
        notes.append("one of: " + ", ".join(str(v) for v in column.enum))
    if column.suggested is not None:
        notes.append("e.g. " + ", ".join(column.suggested))
    if not column.writable:
        notes.append("set by the server")
    required = "yes" if column.required_on_create else ""
    return f"| {column.name} | {kind} | {required} | {'; '.join(n for n in notes if n)} |"
