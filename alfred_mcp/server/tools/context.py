"""Context tools: submit a turn's understanding, read the constraints, resolve words to refs, record a reply."""

from __future__ import annotations

from datetime import date
from typing import Any

from alfred_mcp.app import AlfredApp
from alfred_mcp.errors import InputError
from alfred_mcp.kitchen.jsonschema import describe_value, field_value
from alfred_mcp.kitchen.schema import ENTITY_TYPES, TABLE_BY_ENTITY_TYPE
from alfred_mcp.operations import drafting, history, understanding
from alfred_mcp.operations.entities import resolve_text
from alfred_mcp.operations.windows import config_of
from alfred_mcp.server.tools.common import Handler, ToolArgs, ToolResult, parse_model, work_on
from alfred_mcp.server.tools.common import session_context as _context
from alfred_mcp.state.constraints import ConstraintSnapshot, SessionConstraints, compile_constraints, render_constraints
from alfred_mcp.state.curation import EntityCuration
from alfred_mcp.state.working_set import build_working_set


def _goal(constraints: SessionConstraints) -> dict[str, Any] | None:
    goal = constraints.active_goal
    return None if goal is None else goal.model_dump(mode="json")


async def understanding_submit(app: AlfredApp, args: ToolArgs) -> ToolResult:
    curation = parse_model(EntityCuration, args.get("curation"), "curation")
    snapshot = parse_model(ConstraintSnapshot, args.get("constraint_snapshot"), "constraint_snapshot")
    async with work_on(app, "understanding_submit", args) as work:
        session = work.session
        submitted = await understanding.submit_understanding(
            work, message=args.get("message"), referenced=args.get("referenced_refs", []), curation=curation, snapshot=snapshot,
        )
        merged = submitted.merge.constraints
        working = build_working_set(session.registry.entries(), submitted.curation, drafting.pending_draft_views(session),
                                    turn=session.turn)
        return {
            "constraints": compile_constraints(merged).model_dump(mode="json"),
            "goal": _goal(merged),
            "active": working.to_dict(),
            "rejected": [item.model_dump(mode="json") for item in submitted.merge.rejected],
            "reset_reason": submitted.merge.reset_reason,
            "decisions": [entry.model_dump(mode="json") for entry in submitted.decisions],
            **_context(session),
        }


async def constraints_read(app: AlfredApp, args: ToolArgs) -> ToolResult:
    async with work_on(app, "constraints_read", args) as work:
        current = await understanding.read_constraints(work, "constraints_read")
        compiled = compile_constraints(current)
        return {
            "constraints": compiled.model_dump(mode="json"),
            "goal": _goal(current),
            "permanent": current.permanent.model_dump(mode="json"),
            "markdown": render_constraints(compiled),
            **_context(work.session),
        }


async def turn_reply(app: AlfredApp, args: ToolArgs) -> ToolResult:
    async with work_on(app, "turn_reply", args) as work:
        flow = {key: args[key] for key in ("tone", "user_expressed", "next_step") if args.get(key)}
        recorded = history.record_assistant_reply(work.session, args["response"], config_of(work), flow=flow)
        return {
            "verbatim_turns": [exchange.turn for exchange in recorded.recent],
            "folded": not recorded.earlier.is_empty,
            **_context(work.session),
        }


async def entity_resolve(app: AlfredApp, args: ToolArgs) -> ToolResult:
    entity_type = args.get("entity_type")
    if entity_type is not None and entity_type not in TABLE_BY_ENTITY_TYPE:
        raise InputError(
            f"entity_type: {describe_value(entity_type)} is no ref prefix; use one of: {', '.join(sorted(ENTITY_TYPES))}.",
            field="entity_type", value=field_value(entity_type), valid=sorted(ENTITY_TYPES),
        )
    async with work_on(app, "entity_resolve", args) as work:
        mentions = await resolve_text(work, args["text"], today=date.today(), entity_type=entity_type)
        return {"mentions": [mention.to_dict() for mention in mentions], **_context(work.session)}


HANDLERS: dict[str, Handler] = {
    "understanding_submit": understanding_submit,
    "entity_resolve": entity_resolve,
    "constraints_read": constraints_read,
    "turn_reply": turn_reply,
}
