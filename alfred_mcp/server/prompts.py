"""Prompts: one per role, the role's instructions filled with the session's context (`agent/role_templates.py`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Annotated, Any

from mcp import MCPError
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.prompts import Prompt as RolePrompt
from mcp.types import INVALID_PARAMS, Prompt
from pydantic import Field

from alfred_mcp.agent.role_templates import role_prompt
from alfred_mcp.app import AlfredApp
from alfred_mcp.errors import AlfredError, ConfigError
from alfred_mcp.kitchen.raw_ids import redact_raw_ids
from alfred_mcp.server.session_args import admitted_args, checked_text, invalid_params, served_app, session_arg
from alfred_mcp.state.context import STEP_KINDS, StepView

SessionArg = Annotated[str, Field(description="'current' (default) or a session name such as session_2.")]
MessageArg = Annotated[str, Field(description="The user's message, if it is not recorded yet (turn_begin records it).")]


def check_prompt_call(prompts: Sequence[Prompt], name: str, arguments: Mapping[str, str] | None) -> None:
    """Refuse, as JSON-RPC invalid params (-32602), a call of an unknown prompt or with arguments it does not take.

    Raises:
        MCPError: unknown prompt, a required argument missing, or an argument the prompt does not have.
    """
    prompt = next((p for p in prompts if p.name == name), None)
    if prompt is None:
        shown = redact_raw_ids(name)  # a client's text is echoed, never a raw id in it
        raise MCPError(code=INVALID_PARAMS, message=f"Unknown prompt: {shown}. Prompts: {', '.join(p.name for p in prompts)}.",
                       data={"name": shown})
    declared = prompt.arguments or []
    given = dict(arguments or {})
    missing = [a.name for a in declared if a.required and a.name not in given]
    if missing:
        raise MCPError(code=INVALID_PARAMS, message=f"Prompt {name} needs the {_arguments(missing)}: {', '.join(missing)}.",
                       data={"name": name, "missing": missing})
    unknown = sorted(redact_raw_ids(key) for key in set(given) - {a.name for a in declared})
    if unknown:
        raise MCPError(code=INVALID_PARAMS, message=f"Prompt {name} has no {_arguments(unknown)} {', '.join(unknown)}; "
                       f"it takes: {', '.join(a.name for a in declared) or 'none'}.", data={"name": name, "unknown": unknown})


def step_view(step_type: str, description: str = "", subdomain: str = "", step_number: str = "", total_steps: str = "") -> StepView:
    """A StepView from a prompt's string arguments.

    Raises:
        ConfigError: an unknown step type, or a step number that is not a positive integer.
    """
    if step_type not in STEP_KINDS:
        raise ConfigError(f"step_type must be one of: {', '.join(STEP_KINDS)}; got {step_type!r}.", field="step_type",
                          valid=list(STEP_KINDS))
    return StepView(step_type, description or None, subdomain or None, _number(step_number, "step_number"),  # type: ignore[arg-type]
                    _number(total_steps, "total_steps"))


def _number(text: str, field: str) -> int | None:
    if not text:
        return None
    if not text.isdigit() or int(text) < 1:
        raise ConfigError(f"{field} must be a whole number from 1, got {text!r}.", field=field)
    return int(text)


async def _prompt(app: AlfredApp, role: str, session: str, *, step: StepView | None = None, message: str = "") -> str:
    args = admitted_args(session=session, message=message)
    session, message = args["session"], args["message"]
    try:
        async with app.work(f"prompt:{role}", session=session_arg(session), log_refusals=False) as work:
            text = await role_prompt(work, role, step=step, message=message or None)
    except AlfredError as error:
        raise invalid_params(error) from None
    return checked_text(text, where=f"the {role} prompt")


def register(server: MCPServer[AlfredApp]) -> None:
    """Add the four role prompts to `server` (shared by every server: each finds its app from the request)."""
    for prompt in role_prompts():
        server.add_prompt(prompt)


@cache
def role_prompts() -> tuple[RolePrompt, ...]:
    """The four role prompts, built once per process: the SDK derives each one's argument model and JSON schema."""
    return (
        RolePrompt.from_function(understand, name="understand", title="Understand: memory manager"),
        RolePrompt.from_function(think, name="think", title="Think: planner"),
        RolePrompt.from_function(act, name="act", title="Act: run one step"),
        RolePrompt.from_function(reply, name="reply", title="Reply: tell the user what happened"),
    )


async def understand(ctx: Context[AlfredApp, Any], message: MessageArg = "", session: SessionArg = "current") -> str:
    """Resolve what the user's message refers to, curate which entities stay in view, and snapshot constraints."""
    return await _prompt(served_app(ctx), "understand", session, message=message)


async def think(ctx: Context[AlfredApp, Any], message: MessageArg = "", session: SessionArg = "current") -> str:
    """Plan the turn from compiled state: profile, dashboard, constraints, entities, what happened, conversation."""
    return await _prompt(served_app(ctx), "think", session, message=message)


async def act(
    ctx: Context[AlfredApp, Any],
    step_type: Annotated[str, Field(description="read, analyze, generate or write.")],
    description: Annotated[str, Field(description="What the step must do (from the plan).")] = "",
    subdomain: Annotated[str, Field(description="The step's kitchen area, e.g. recipes.")] = "",
    step_number: Annotated[str, Field(description="This step's number, from 1.")] = "",
    total_steps: Annotated[str, Field(description="How many steps the plan has.")] = "",
    session: SessionArg = "current",
) -> str:
    """Execute one plan step with the tools; the context is this turn's step, entities and constraints."""
    args = admitted_args(step_type=step_type, description=description, subdomain=subdomain,
                         step_number=step_number, total_steps=total_steps)
    try:
        step = step_view(**args)
    except AlfredError as error:
        raise invalid_params(error) from None
    return await _prompt(served_app(ctx), "act", session, step=step)


async def reply(ctx: Context[AlfredApp, Any], session: SessionArg = "current") -> str:
    """Answer the user from what this turn actually did, continuing the conversation."""
    return await _prompt(served_app(ctx), "reply", session)


def _arguments(names: list[str]) -> str:
    return "argument" if len(names) == 1 else "arguments"
