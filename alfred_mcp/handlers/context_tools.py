"""Context tools: submit a turn's understanding, read the constraints, search recipes, record a reply."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from alfred_mcp import search, turns
from alfred_mcp.app import AlfredApp
from alfred_mcp.errors import InvalidPayloadError
from alfred_mcp.handlers.common import acting
from alfred_mcp.handlers.common import session_context as _context
from alfred_mcp.session import Session
from alfred_mcp.state.constraints import ConstraintSnapshot, SessionConstraints, compile_constraints, render_constraints
from alfred_mcp.state.curation import EntityCuration
from alfred_mcp.state.working_set import build_working_set

ModelT = TypeVar("ModelT", bound=BaseModel)


def parse_model(model: type[ModelT], data: Any, field: str) -> ModelT:
    """`data` as `model`, or InvalidPayloadError naming the first bad field (e.g. 'constraints.new_constraints[0].value')."""
    try:
        return model.model_validate(data if data is not None else {})
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        path = field + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in first["loc"])
        reason = first["msg"].removeprefix("Value error, ")
        raise InvalidPayloadError(f"{path}: {reason}.", field=path) from None


async def _save(app: AlfredApp, session: Session) -> None:
    async with app.store.transaction():
        await session.save(app.store)


def _goal(constraints: SessionConstraints) -> dict[str, Any] | None:
    goal = constraints.active_goal
    return None if goal is None else goal.model_dump(mode="json")


async def understanding_submit(app: AlfredApp, args: dict[str, Any]) -> dict[str, Any]:
    curation = parse_model(EntityCuration, args.get("curation"), "curation")
    snapshot = parse_model(ConstraintSnapshot, args.get("constraints"), "constraints")
    async with acting(app, "understanding_submit", args) as session:
        submitted = await turns.submit_understanding(
            app.store, session, message=args.get("message"), referenced=args.get("referenced", []),
            curation=curation, snapshot=snapshot,
        )
        await _save(app, session)
        merged = submitted.merge.constraints
        working = build_working_set(session.registry.entries(), submitted.curation, turns.pending_drafts(session),
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


async def constraints_read(app: AlfredApp, args: dict[str, Any]) -> dict[str, Any]:
    async with acting(app, "constraints_read", args) as session:
        current = await turns.current_constraints(app.store, session)
        compiled = compile_constraints(current)
        return {
            "constraints": compiled.model_dump(mode="json"),
            "goal": _goal(current),
            "permanent": current.permanent.model_dump(mode="json"),
            "markdown": render_constraints(compiled),
            **_context(session),
        }


async def recipes_search(app: AlfredApp, args: dict[str, Any]) -> dict[str, Any]:
    honor = args.get("honor_constraints", True)
    query = search.RecipeQuery(
        category=args.get("category"), ingredient=args.get("ingredient"), cuisine=args.get("cuisine"),
        max_minutes=args.get("max_minutes"), equipment=_tag(args.get("equipment")), honor_constraints=honor,
        limit=args.get("limit", 20),
    )
    async with acting(app, "recipes_search", args) as session:
        compiled = await turns.compiled_constraints(app.store, session) if honor else None
        found = await search.search_recipes(app.store, session, query, compiled)
        return {
            "recipes": found.recipes, "count": len(found.recipes), "truncated": found.truncated,
            "category": found.category, "expanded": list(found.expanded), "excluded": found.excluded,
            "constraints_applied": honor, **_context(session),
        }


def _tag(equipment: str | None) -> str | None:
    """'Air Fryer' -> 'air-fryer', the form equipment tags are stored in."""
    return "-".join(equipment.lower().split()) if equipment else None


async def recipes_makeable(app: AlfredApp, args: dict[str, Any]) -> dict[str, Any]:
    honor = args.get("honor_constraints", True)
    async with acting(app, "recipes_makeable", args) as session:
        compiled = await turns.compiled_constraints(app.store, session) if honor else None
        results, excluded, pantry = await search.makeable_recipes(
            app.store, session, compiled, min_coverage=args.get("min_coverage", 0.0), limit=args.get("limit", 10)
        )
        return {
            "recipes": results, "count": len(results), "pantry_items": pantry, "excluded": excluded,
            "constraints_applied": honor, **_context(session),
        }


async def turn_reply(app: AlfredApp, args: dict[str, Any]) -> dict[str, Any]:
    async with acting(app, "turn_reply", args) as session:
        history = turns.record_assistant_reply(session, args["reply"])
        await _save(app, session)
        return {
            "verbatim_turns": [exchange.turn for exchange in history.recent],
            "folded": not history.earlier.is_empty,
            **_context(session),
        }


HANDLERS = {
    "understanding_submit": understanding_submit,
    "constraints_read": constraints_read,
    "recipes_search": recipes_search,
    "recipes_makeable": recipes_makeable,
    "turn_reply": turn_reply,
}
