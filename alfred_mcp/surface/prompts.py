"""Prompts: one per role, the role's instructions (`prompts/*.md`) filled with the session's context.

`role_prompt` is the one function that builds a role's prompt text; the MCP prompts call it and
so can the bundled agent loop. Act has a shared template (`act.md`) with a `{step_guidance}`
slot that takes the step type's own file (`act_read.md`, `act_write.md`, ...).
"""

from __future__ import annotations

from datetime import date
from functools import cache
from typing import TYPE_CHECKING, Annotated

from pydantic import Field

from alfred_mcp.errors import AlfredError, ConfigError
from alfred_mcp.paths import contract_dir
from alfred_mcp.session import Session
from alfred_mcp.state.context import STEP_KINDS, StepView, build_context, render_prompt
from alfred_mcp.store.base import Store
from alfred_mcp.surface.sessions import checked_text, invalid_params, session_arg
from alfred_mcp.turns import context_inputs

if TYPE_CHECKING:
    from alfred_mcp.app import AlfredApp
    from alfred_mcp.server import AlfredServer

STEP_GUIDANCE = "{step_guidance}"

SessionArg = Annotated[str, Field(description="'current' (default) or a session name such as session_2.")]
MessageArg = Annotated[str, Field(description="The user's message, if it is not recorded yet (turn_begin records it).")]


@cache
def load_template(name: str) -> str:
    """The text of `prompts/<name>.md`.

    Raises:
        ConfigError: no such template.
    """
    path = contract_dir("prompts") / f"{name}.md"
    if not path.is_file():
        raise ConfigError(f"alfred-mcp is missing the prompt template {name}.md; reinstall the package.", field=name)
    return path.read_text(encoding="utf-8")


def template_for(role: str, step: StepView | None = None) -> str:
    """The role's template; Act's with its step type's guidance in place."""
    if role != "act":
        return load_template(role)
    kind = step.step_type if step is not None else "read"
    return load_template("act").replace(STEP_GUIDANCE, load_template(f"act_{kind}").strip())


async def role_prompt(
    store: Store, session: Session, role: str, *, step: StepView | None = None, message: str | None = None,
    today: date | None = None,
) -> str:
    """The role's instructions filled with the session's current context (refs only)."""
    inputs = await context_inputs(store, session, today=today or date.today(), with_dashboard=role == "think",
                                  user_message=message)
    return render_prompt(template_for(role, step), build_context(role, inputs, step=step))


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
    try:
        async with app.sessions.acting_on(app.user_id, session_arg(session)) as found:
            text = await role_prompt(app.store, found, role, step=step, message=message or None)
    except AlfredError as error:
        raise invalid_params(error) from None
    return checked_text(text, where=f"the {role} prompt")


def register(server: AlfredServer) -> None:
    """Add the four role prompts to `server`."""
    app = server.app

    @server.prompt(name="understand", title="Understand: memory manager")
    async def understand(message: MessageArg = "", session: SessionArg = "current") -> str:
        """Resolve what the user's message refers to, curate which entities stay in view, and snapshot constraints."""
        return await _prompt(app, "understand", session, message=message)

    @server.prompt(name="think", title="Think: planner")
    async def think(message: MessageArg = "", session: SessionArg = "current") -> str:
        """Plan the turn from compiled state: profile, dashboard, constraints, entities, what happened, conversation."""
        return await _prompt(app, "think", session, message=message)

    @server.prompt(name="act", title="Act: run one step")
    async def act(
        step_type: Annotated[str, Field(description="read, analyze, generate or write.")],
        description: Annotated[str, Field(description="What the step must do (from the plan).")] = "",
        subdomain: Annotated[str, Field(description="The step's kitchen area, e.g. recipes.")] = "",
        step_number: Annotated[str, Field(description="This step's number, from 1.")] = "",
        total_steps: Annotated[str, Field(description="How many steps the plan has.")] = "",
        session: SessionArg = "current",
    ) -> str:
        """Execute one plan step with the tools; the context is this turn's step, entities and constraints."""
        try:
            step = step_view(step_type, description, subdomain, step_number, total_steps)
        except AlfredError as error:
            raise invalid_params(error) from None
        return await _prompt(app, "act", session, step=step)

    @server.prompt(name="reply", title="Reply: tell the user what happened")
    async def reply(session: SessionArg = "current") -> str:
        """Answer the user from what this turn actually did, continuing the conversation."""
        return await _prompt(app, "reply", session)
