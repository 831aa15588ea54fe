"""The same conversations driven by the bundled loop (`run_turn`), the scripted outputs as its model.

`ScenarioModel` answers each role from the script, like the stage client's model: an output that
names a ref assigned on the way reads it from the prompts the model was sent. Every request is kept
with the role, the Act step's type and its size in tokens, estimated as `prompt_tokens` says. A turn may translate
each output when it is asked for (`Translate`): outputs recorded in another session name the refs that session gave.
"""

from __future__ import annotations

import copy
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from alfred_mcp.agent.llm.base import ModelRequest, ModelResponse
from alfred_mcp.agent.llm.output import schema_instructions
from alfred_mcp.agent.loop import run_turn
from alfred_mcp.agent.machine import TurnMachine
from alfred_mcp.app import AlfredApp
from alfred_mcp.errors import ModelUnavailableError
from alfred_mcp.server.tools.runner import tool_runner
from alfred_mcp.state.agent_turn import TurnState
from alfred_mcp.state.registry import RefEntry, SessionIdRegistry

from .driver import Output, Seen

CHARS_PER_TOKEN = 3.5
"""The estimator: English prose runs about 4 characters a token in the common tokenizers, JSON and refs
fewer; 3.5 errs on the side of more tokens."""
PROMPT_TOKENS_BUDGET = 2_000
"""Every role's prompt of a one-step turn, its output schema as text included, fits in this many tokens:
with Act's 3,072-token answer the whole call fits the 8,192-token context the README recommends."""
_STEP_TYPE = re.compile(r"\| Type: (\w+)")

Translate = Callable[[str, dict[str, Any], list[RefEntry]], dict[str, Any]]
"""A role's scripted output as the loop's session would have it named, given the role and every ref that session has
given at the moment the model is asked."""


def prompt_tokens(request: ModelRequest) -> int:
    """The tokens a model reads in `request` when its schema is sent as text (json_object and prompt modes,
    the most a model reads): the system text, the schema's instructions and the messages, at CHARS_PER_TOKEN."""
    text = "\n\n".join([request.system, schema_instructions(request.output_schema, request.schema_name),
                        *(message.content for message in request.messages)])
    return math.ceil(len(text) / CHARS_PER_TOKEN)


@dataclass(frozen=True)
class Asked:
    """One model request of a turn: which role (and Act step type), and its size."""

    role: str
    step_type: str | None
    tokens: int
    prompt: str

    @property
    def kind(self) -> str:
        return f"act_{self.step_type}" if self.step_type else self.role


class ScenarioModel:
    """An `LLM` answering each role from scripted outputs; an output may be a function of what it was shown."""

    name = "scenario"

    def __init__(self) -> None:
        self.seen = Seen()
        self.queues: dict[str, list[Output]] = {}
        self.asked: list[Asked] = []
        self.translate: Callable[[str, dict[str, Any]], dict[str, Any]] | None = None

    def script(self, outputs: Mapping[str, Sequence[Output]],
               translate: Callable[[str, dict[str, Any]], dict[str, Any]] | None = None) -> None:
        """The outputs of the next turn, per role; `translate`, if given, turns each into what is answered."""
        self.queues = {role: list(items) for role, items in outputs.items()}
        self.asked = []
        self.translate = translate

    async def complete(self, request: ModelRequest) -> ModelResponse:
        text = request.prompt_text()
        self.seen.texts.append(text)
        found = _STEP_TYPE.search(text) if request.role == "act" else None
        self.asked.append(Asked(request.role, found.group(1) if found else None, prompt_tokens(request), text))
        queue = self.queues.get(request.role)
        if not queue:
            raise ModelUnavailableError(f"the script has no {request.role} output left", role=request.role)
        output = queue.pop(0)
        data = copy.deepcopy(dict(output(self.seen) if callable(output) else output))
        if self.translate is not None:
            data = self.translate(request.role, data)
        return ModelResponse(data=data, raw_text=json.dumps(data), model=self.name)


async def loop_turn(app: AlfredApp, model: ScenarioModel, message: str, outputs: Mapping[str, Sequence[Output]],
                    translate: Translate | None = None) -> TurnState:
    """One user turn through the bundled loop; every scripted output is used (`translate`d for the loop's session)."""
    async with app.work("chat") as work:
        model.script(outputs, None if translate is None else _in_session(translate, work.session.registry))
        state = await run_turn(TurnMachine(work, tool_runner(app, work.session.name)), model, message)
    leftover = {role: len(items) for role, items in model.queues.items() if items}
    assert not leftover, f"unused outputs for {message!r}: {leftover} (outcome {state.outcome}: {state.blocked_reason})"
    return state


def _in_session(translate: Translate, registry: SessionIdRegistry) -> Callable[[str, dict[str, Any]], dict[str, Any]]:
    """`translate` given the session's refs as they are when the model is asked."""
    return lambda role, output: translate(role, output, registry.entries())
