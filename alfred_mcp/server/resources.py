"""Resources: the session's context layers, the kitchen dashboard, the schema and the taxonomy.

`{session}` is `current` (the user's current session) or a name such as `session_2`. JSON
resources are what the context builders read; every payload is refs only and checked for raw
ids before it leaves.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import date
from functools import cache, partial
from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceNotFoundError
from mcp.server.mcpserver.resources import FunctionResource, ResourceTemplate

from alfred_mcp.app import AlfredApp
from alfred_mcp.errors import AlfredError
from alfred_mcp.kitchen.describe import table_markdown
from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import TABLES, table_for_entity_type
from alfred_mcp.kitchen.taxonomy import taxonomy_path
from alfred_mcp.operations import drafting, history, understanding
from alfred_mcp.operations.dashboard import build_dashboard
from alfred_mcp.server.session_args import bare_ref, resource_arg, served_app, session_for_resource, to_json
from alfred_mcp.session import Session, UnitOfWork
from alfred_mcp.session.documents import AGENT_CURRENT_TURN, AGENT_TURNS, DRAFTS
from alfred_mcp.state.constraints import compile_constraints, render_constraints
from alfred_mcp.state.folding import render_folded
from alfred_mcp.state.working_set import build_working_set

JSON = "application/json"
MARKDOWN = "text/markdown"
SESSION_RESOURCES = ("working-set", "constraints", "narratives", "conversation", "decisions")
DASHBOARD_URI = "alfred://kitchen/dashboard"


def session_uri(session: str, kind: str) -> str:
    return f"alfred://session/{session}/{kind}"


TemplateFunction = Callable[..., Awaitable[str] | str]
_DECLARED: list[Callable[[], ResourceTemplate]] = []
"""How to build each resource template, in the order resources/templates/list shows them."""


def _template(uri: str, *, name: str, title: str, description: str, mime_type: str = JSON) -> Callable[[TemplateFunction], TemplateFunction]:
    """Declare a resource template whose function takes the URI's parameters, and the request's `Context` if it needs
    the app; `resource_templates` builds it."""

    def declare(fn: TemplateFunction) -> TemplateFunction:
        _DECLARED.append(partial(ResourceTemplate.from_function, fn, uri_template=uri, name=name, title=title,
                                 description=description, mime_type=mime_type))
        return fn

    return declare


@cache
def resource_templates() -> tuple[ResourceTemplate, ...]:
    """Every resource template, built once per process: the SDK derives each one's argument model and JSON schema,
    which costs more than all the rest of a server, and a template holds nothing of one server's."""
    return tuple(build() for build in _DECLARED)


@cache
def _taxonomy_resource() -> FunctionResource:
    return FunctionResource.from_function(taxonomy, uri="alfred://taxonomy", name="taxonomy", title="Ingredient taxonomy",
                                          mime_type=JSON,
                                          description="Ingredient categories (fish -> cod, salmon, ...) that recipes_search expands.")


def register(server: MCPServer[AlfredApp], app: AlfredApp) -> None:
    """Add every resource and resource template to `server`: the templates and the taxonomy are shared by every server,
    the dashboard reads `app`."""
    templates = server._resource_manager._templates  # the SDK adds a template only by building it anew
    for template in resource_templates():
        templates[template.uri_template] = template
    server.add_resource(FunctionResource(uri=DASHBOARD_URI, name="dashboard", title="Kitchen dashboard", mime_type=JSON,
                                         description="Counts by type, what expires soon, the next meals (refs in the current session).",
                                         fn=partial(dashboard, app)))
    server.add_resource(_taxonomy_resource())


@_template("alfred://session/{session}/working-set", name="working-set", title="Working set",
           description="Entities in view this turn: recent, retained (with reasons), pending drafts, excluded.")
async def working_set(ctx: Context[AlfredApp, Any], session: str) -> str:
    async with session_for_resource(served_app(ctx), session, "working_set") as work:
        found = work.session
        return to_json({**_head(found), **working_set_view(found)}, where="working set")


@_template("alfred://session/{session}/constraints", name="constraints", title="Constraints",
           description="Permanent constraints, the active goal, and the compiled view Think and Act use.")
async def constraints(ctx: Context[AlfredApp, Any], session: str) -> str:
    async with session_for_resource(served_app(ctx), session, "constraints") as work:
        found = work.session
        current = await understanding.current_constraints(work)
        compiled = compile_constraints(current)
        payload = {**_head(found), "constraints": compiled.model_dump(mode="json"),
                   "goal": current.active_goal.model_dump(mode="json") if current.active_goal else None,
                   "permanent": current.permanent.model_dump(mode="json"), "markdown": render_constraints(compiled)}
        return to_json(payload, where="constraints")


@_template("alfred://session/{session}/narratives", name="narratives", title="Turn narratives",
           description="What happened: the last turns whole, older ones folded, and this turn so far.")
async def narratives(ctx: Context[AlfredApp, Any], session: str) -> str:
    async with session_for_resource(served_app(ctx), session, "narratives") as work:
        found = work.session
        whole, folded = history.recent_narratives(found)
        payload = {**_head(found), "recent": [n.model_dump(mode="json") for n in whole],
                   "earlier": render_folded(folded), "current": history.summarize_current(found).model_dump(mode="json")}
        return to_json(payload, where="narratives")


@_template("alfred://session/{session}/conversation", name="conversation", title="Conversation",
           description="The last turns verbatim and a bounded summary of older ones.")
async def conversation(ctx: Context[AlfredApp, Any], session: str) -> str:
    async with session_for_resource(served_app(ctx), session, "conversation") as work:
        found = work.session
        talk = history.conversation_of(found)
        payload = {**_head(found), "recent": [e.model_dump(mode="json", exclude_defaults=True) for e in talk.recent],
                   "earlier": render_folded(talk.earlier), "folded_turns": _folded_range(talk.earlier)}
        return to_json(payload, where="conversation")


@_template("alfred://session/{session}/decisions", name="decisions", title="Curation decisions",
           description="Understand's curation log (last 20), retained refs with reasons, dropped refs.")
async def decisions(ctx: Context[AlfredApp, Any], session: str) -> str:
    async with session_for_resource(served_app(ctx), session, "decisions") as work:
        found = work.session
        curation = understanding.curation_of(found)
        payload = {**_head(found), **curation.to_dict()}
        return to_json(payload, where="decisions")


@_template("alfred://session/{session}/ref/{ref}", name="ref", title="One ref",
           description="What the session knows about one ref: type, label, turns, and its row or draft content.")
async def one_ref(ctx: Context[AlfredApp, Any], session: str, ref: str) -> str:
    async with session_for_resource(served_app(ctx), session, "one_ref") as work:
        found = work.session
        return to_json({**_head(found), **await ref_view(work, bare_ref(resource_arg("ref", ref)))}, where="ref")


@_template("alfred://session/{session}/turns/{turn}", name="turn", title="A turn, stage by stage",
           description="Every stage's output of an agent turn (`current`, `last` or a number): understanding, plan, "
                       "steps with tool calls and refusals, batch progress, reply and the audit ledger.")
async def turn(ctx: Context[AlfredApp, Any], session: str, turn: str) -> str:
    async with session_for_resource(served_app(ctx), session, "turn") as work:
        found = work.session
        return to_json({**_head(found), **turn_view(found, resource_arg("turn", turn))}, where="turn")


@_template("alfred://session/{session}/batches/{batch}", name="batch", title="A batch manifest",
           description="A batch's items (pending, completed, failed with reason, skipped) and progress; `latest` for the newest.")
async def batch(ctx: Context[AlfredApp, Any], session: str, batch: str) -> str:
    async with session_for_resource(served_app(ctx), session, "batch") as work:
        found = work.session
        manifest = _manifest(found, resource_arg("batch", batch))
        return to_json({**_head(found), **manifest.to_dict(), "progress": manifest.progress(), "summary": manifest.summary()},
                       where="batch")


@_template("alfred://kitchen/schema/{table}", name="schema", title="Table schema", mime_type=MARKDOWN,
           description="One kitchen table: columns, types, allowed values, foreign keys as refs.")
def schema(table: str) -> str:
    if resource_arg("table", table) not in TABLES:
        raise ResourceNotFoundError(f"table: Unknown table '{table}'. Tables: {', '.join(TABLES)}.")
    return table_markdown(TABLES[table])


async def dashboard(app: AlfredApp) -> str:
    async with session_for_resource(app, None, "dashboard") as work:
        return to_json(await build_dashboard(work, today=date.today()), where="dashboard")


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
    newest = session.read(AGENT_CURRENT_TURN)
    numbers = sorted(int(turn) for turn in session.family_suffixes(AGENT_TURNS))
    if which == "current":
        number = newest
    elif which == "last":
        earlier = [n for n in numbers if newest is None or n < newest]
        number = earlier[-1] if earlier else None
    else:
        number = int(which) if which.isdigit() else None
    stored = session.read(AGENT_TURNS.at(number)) if number is not None else None
    if stored is None:
        raise ResourceNotFoundError(f"turn: no agent turn {which!r} in {session.name}; agent turns: {numbers or 'none yet'}.")
    return {"state": stored.model_dump(mode="json")}


def _manifest(session: Session, batch: str) -> Any:
    try:
        return drafting.load_manifest(session, None if batch == "latest" else batch)
    except AlfredError as error:
        raise ResourceNotFoundError(f"batch: {error.message}") from None


def working_set_view(session: Session) -> dict[str, Any]:
    working = build_working_set(session.registry.entries(), understanding.curation_of(session), drafting.pending_draft_views(session),
                                turn=session.turn)
    return working.to_dict()


async def ref_view(work: UnitOfWork, ref: str) -> dict[str, Any]:
    """A ref's registry entry, plus its row (refs only) or its draft content.

    Raises:
        ResourceNotFoundError: the session does not know `ref`.
    """
    session = work.session
    try:
        entry = session.registry.entry(ref)
    except AlfredError as error:
        raise ResourceNotFoundError(f"ref: {error.message}") from None
    view: dict[str, Any] = {
        "ref": entry.ref, "entity_type": entry.entity_type, "table": table_for_entity_type(entry.entity_type).name,
        "label": entry.label, "action": entry.action, "turn_created": entry.turn_created,
        "turn_last_ref": entry.turn_last_ref, "deleted_turn": entry.deleted_turn, "saved_as": entry.saved_as,
    }
    draft = session.read(DRAFTS.at(entry.ref))
    if draft is not None:
        view["draft"] = {"status": draft.status, "content": draft.content}
    elif entry.row_id is not None and entry.deleted_turn is None:
        view["row"] = await _row(work, entry.entity_type, entry.row_id)
    return view


async def _row(work: UnitOfWork, entity_type: str, row_id: str) -> dict[str, Any] | None:
    """The row with its id and foreign keys as refs; FK targets are linked without being touched."""
    session = work.session
    table = table_for_entity_type(entity_type)
    rows = await work.store.select(table, Query(where=Where(all_of=(Filter("id", "eq", row_id),))), user_id=session.user_id)
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
    return row
