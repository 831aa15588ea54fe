"""Confirmation of destructive calls (which tools are served at all: `toolsets.py`).

When the client declares elicitation, a destructive call that would remove more than one row, or
any recipe, first asks the user: a call the client makes itself, or one its model submits as Act's
tool call through turn_submit. The SDK carries the question on both protocol eras (`Resolve` +
`Elicit`: a mid-call request on 2025-11-25, an input-required round on 2026-07-28). Decline or
cancel changes nothing and says so. A client without elicitation is not asked (as before); the host
can still serve it read-only or without db_delete, and kitchen_undo brings removed rows back.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import AcceptedElicitation, Context, Elicit, ElicitationResult, Resolve
from mcp.server.mcpserver.resolve import build_resolver_plans, resolve_arguments
from mcp.types import CallToolResult, InputRequiredResult
from pydantic import BaseModel, Field

from alfred_mcp.app import AlfredApp
from alfred_mcp.contracts import ToolContract, load_contracts
from alfred_mcp.errors import AlfredError, DeclinedError
from alfred_mcp.kitchen.plurals import counted
from alfred_mcp.operations.removals import Removal, preview_removal
from alfred_mcp.server.dispatch import error_result


class Confirm(BaseModel):
    """The one field a confirmation form asks for."""

    confirm: bool = Field(description="Yes, remove them.")


class _Ask:
    """A resolver asking one question (a callable object: its wire key is stable across rounds and replicas)."""

    def __init__(self, question: str) -> None:
        self.question = question

    def __call__(self) -> Elicit[Confirm]:
        return Elicit(self.question, Confirm)


async def confirm(
    app: AlfredApp, contract: ToolContract, arguments: dict[str, Any], context: Context[AlfredApp, Any] | None
) -> CallToolResult | InputRequiredResult | None:
    """None: go ahead. Otherwise what to answer instead: the question (2026-07-28) or the refusal after a no."""
    call = _removing_call(contract, arguments)
    if call is None or not _can_elicit(context):
        return None
    assert context is not None
    tool, tool_arguments = call
    removing = load_contracts().get(tool)
    if removing is None:
        return None  # not a tool: the call (or Act's run of it) refuses it, naming it
    try:
        # Only arguments the tool admits are previewed; anything else is refused by the call itself, naming the field.
        session = contract.admit_arguments(arguments).value.get("session")
        admitted = removing.admit_arguments(tool_arguments).value
        async with app.work(contract.name, session=session, log_refusals=False) as work:
            removal = await preview_removal(work, tool, admitted)
    except AlfredError:
        return None
    if removal is None or not removal.needs_confirmation:
        return None
    params = {"answer": (Resolve(_Ask(removal.question())), True)}
    outcome = await resolve_arguments(params, build_resolver_plans(params, set()), {}, context)
    if isinstance(outcome, InputRequiredResult):
        return outcome
    return None if _accepted(outcome["answer"]) else _declined(removal, outcome["answer"])


def _removing_call(contract: ToolContract, arguments: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """The call that may remove rows: a destructive tool's own, or the tool call of an Act output given to
    turn_submit (a client's model driving the stages deletes through it; the user is asked all the same)."""
    if contract.name != "turn_submit":
        return (contract.name, arguments) if contract.hint("destructiveHint") else None
    if arguments.get("role") != "act":
        return None
    output = arguments.get("output")
    decision = output.get("decision", output) if isinstance(output, dict) else None
    if not isinstance(decision, dict) or decision.get("action") != "tool_call" or not isinstance(decision.get("tool"), str):
        return None
    tool_arguments = decision.get("arguments")
    return decision["tool"], tool_arguments if isinstance(tool_arguments, dict) else {}


def _can_elicit(context: Context[AlfredApp, Any] | None) -> bool:
    """The client declared form elicitation (a bare `elicitation: {}` counts, as the SDK counts it)."""
    capabilities = context.client_capabilities if context is not None else None
    elicitation = capabilities.elicitation if capabilities is not None else None
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


def _accepted(answer: ElicitationResult[Confirm]) -> bool:
    return isinstance(answer, AcceptedElicitation) and isinstance(answer.data, Confirm) and answer.data.confirm


def _declined(removal: Removal, answer: ElicitationResult[Confirm]) -> CallToolResult:
    how = {"accept": "did not confirm", "decline": "declined", "cancel": "cancelled"}[answer.action]
    error = DeclinedError(
        f"Nothing was removed: the user {how} the confirmation ({removal.what}, {counted(removal.count, 'row')} of {removal.table}). "
        "Nothing was changed.",
        answer=answer.action, table=removal.table, count=removal.count,
    )
    return error_result(error.to_dict())
