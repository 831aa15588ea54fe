"""A model that replays recorded role outputs (tests, demos) and records every request it receives.

A script is either a mapping `role -> [output, ...]` (each role consumes its own list in order) or a
plain list of outputs consumed in call order whatever the role. An output is a JSON object; in Python
scripts it may also be a `ModelError` instance, raised when its turn comes. In a JSON file, top-level
keys starting with "_" (e.g. "_provenance") are notes, not roles.
"""

from __future__ import annotations

import copy
import json
from collections import Counter, deque
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeAlias

from alfred_mcp.agent.llm.base import ModelRequest, ModelResponse, note_request_sent
from alfred_mcp.errors import ConfigError, ModelError, ModelUnavailableError

ScriptItem: TypeAlias = "dict[str, Any] | ModelError"
Script: TypeAlias = "Mapping[str, Sequence[ScriptItem]] | Sequence[ScriptItem]"
ANY_ROLE = "*"


class ScriptedLLM:
    """`LLM` that answers from a script; `requests` holds every request, in order."""

    def __init__(self, script: Script, *, name: str = "scripted") -> None:
        self.name = name
        by_role = {ANY_ROLE: script} if isinstance(script, Sequence) else script
        self._queues = {role: deque(_checked(role, items)) for role, items in by_role.items()}
        self._played: Counter[str] = Counter()
        self.requests: list[ModelRequest] = []

    @classmethod
    def from_file(cls, path: str | Path) -> ScriptedLLM:
        """Load a script from a JSON file (a role mapping or a list).

        Raises:
            ConfigError: the file is missing, is not JSON, or is not a script.
        """
        path = Path(path)
        try:
            loaded = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigError(f"Cannot read the model script {path}: {exc.strerror}", path=str(path)) from exc
        except json.JSONDecodeError as exc:
            raise ConfigError(f"The model script {path} is not JSON: {exc.msg} at line {exc.lineno}", path=str(path)) from exc
        if isinstance(loaded, dict):
            loaded = {role: items for role, items in loaded.items() if not role.startswith("_")}
        elif not isinstance(loaded, list):
            raise ConfigError(f"The model script {path} must be an object (role -> list of outputs) or a list", path=str(path))
        return cls(loaded, name=f"scripted:{path.name}")

    def __repr__(self) -> str:
        return f"ScriptedLLM({self.name!r}, remaining={self.remaining()})"

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(request)
        note_request_sent()
        role = request.role if request.role in self._queues else ANY_ROLE
        queue = self._queues.get(role)
        if not queue:
            raise ModelUnavailableError(
                f"The scripted model has no more outputs for role '{request.role}' "
                f"(it replayed {self._played[role]}); add outputs for it to the script",
                role=request.role,
                played=self._played[role],
            )
        item = queue.popleft()
        self._played[role] += 1
        if isinstance(item, ModelError):
            raise item
        data = copy.deepcopy(item)
        return ModelResponse(data=data, raw_text=json.dumps(data), model=self.name)

    def calls_by_role(self) -> dict[str, int]:
        """How many requests each role made so far (replayed or not)."""
        return dict(Counter(request.role for request in self.requests))

    def remaining(self) -> dict[str, int]:
        """Outputs not yet replayed, per script key."""
        return {role: len(queue) for role, queue in self._queues.items()}


def _checked(role: str, items: Any) -> list[ScriptItem]:
    if not isinstance(items, Sequence) or isinstance(items, (str, bytes)):
        raise ConfigError(f"Script entry '{role}' must be a list of outputs", role=role)
    for index, item in enumerate(items):
        if not isinstance(item, (dict, ModelError)):
            raise ConfigError(
                f"Script output {index} of '{role}' must be a JSON object, got {type(item).__name__}", role=role, index=index
            )
    return [copy.deepcopy(item) if isinstance(item, dict) else item for item in items]
