"""Role prompts: a role's instructions (`prompts/*.md`) filled with the session's current context.

`role_prompt` is the one function that builds a role's prompt text; the bundled agent loop uses it
and the MCP prompts serve it. Act has a shared template (`act.md`) with a `{step_guidance}` slot
that takes the step type's own file (`act_read.md`, `act_write.md`, ...).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from functools import cache

from alfred_mcp.errors import ConfigError
from alfred_mcp.operations.role_context import context_inputs
from alfred_mcp.operations.windows import config_of
from alfred_mcp.paths import contract_dir
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.context import StepView, build_context, render_prompt

STEP_GUIDANCE = "{step_guidance}"


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


def template_name(role: str, step: StepView | None = None) -> str:
    """Which template a role's prompt comes from: the role's name, or act_<step type>."""
    return role if role != "act" else f"act_{step.step_type if step is not None else 'read'}"


def template_for(role: str, step: StepView | None = None) -> str:
    """The role's template; Act's with its step type's guidance in place."""
    if role != "act":
        return load_template(role)
    kind = step.step_type if step is not None else "read"
    return load_template("act").replace(STEP_GUIDANCE, load_template(f"act_{kind}").strip())


OWN_REPLY_CHARS = 200
"""Characters of each earlier reply a stage client's model is sent back: it wrote them."""


async def role_prompt(
    work: UnitOfWork, role: str, *, step: StepView | None = None, message: str | None = None, today: date | None = None,
    for_client: bool = False, echo_client: bool = True,
) -> str:
    """The role's instructions filled with the session's current context (refs only); for a stage client
    (`for_client`), Alfred's earlier replies are cut to their start: its own model wrote them; without `echo_client`,
    the context does not quote back the user's message and the last exchange (the client's model has them)."""
    inputs = await context_inputs(work, today=today or date.today(), with_dashboard=role == "think", user_message=message,
                                  with_background=role == "understand")
    config = config_of(work)
    if for_client:
        config = replace(config, conversation=replace(config.conversation, reply_chars=OWN_REPLY_CHARS), echo_client=echo_client)
    return render_prompt(template_for(role, step), build_context(role, inputs, step=step, config=config))
