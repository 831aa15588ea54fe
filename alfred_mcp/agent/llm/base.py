"""The one seam between the agent loop and any language model: the `LLM` protocol and its values."""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

MessageRole = Literal["user", "assistant"]
SCHEMA_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
"""Both APIs accept tool / schema names of this shape; anything else is a programming error."""


@dataclass(frozen=True)
class Message:
    """One turn of the conversation sent to the model."""

    role: MessageRole
    content: str


@dataclass(frozen=True)
class ModelRequest:
    """Everything one role call sends: instructions, conversation, and the JSON Schema the answer must satisfy."""

    role: str
    """The agent role asking ("understand", "think", "act", "reply", "summarize"); scripted models key on it."""
    system: str
    messages: tuple[Message, ...]
    output_schema: Mapping[str, Any]
    schema_name: str
    """Names the forced tool (Anthropic) or the json_schema (OpenAI); letters, digits, `_` and `-`."""
    max_tokens: int = 4096
    temperature: float | None = None

    def __post_init__(self) -> None:
        if not SCHEMA_NAME.match(self.schema_name):
            raise ValueError(f"schema_name {self.schema_name!r} must match {SCHEMA_NAME.pattern}")
        if not self.messages:
            raise ValueError("a ModelRequest needs at least one message")
        if self.max_tokens < 1:
            raise ValueError(f"max_tokens must be positive, got {self.max_tokens}")
        object.__setattr__(self, "messages", tuple(self.messages))

    @classmethod
    def ask(cls, role: str, system: str, prompt: str, output_schema: Mapping[str, Any], schema_name: str, **options: Any) -> ModelRequest:
        """A request with a single user message."""
        return cls(role, system, (Message("user", prompt),), output_schema, schema_name, **options)

    def prompt_text(self) -> str:
        """Every piece of text the model will read, for audits such as "no UUID reaches a prompt"."""
        return "\n\n".join([self.system, *(message.content for message in self.messages)])


@dataclass(frozen=True)
class Usage:
    """Token counts as the provider reported them."""

    input_tokens: int | None = None
    output_tokens: int | None = None


@dataclass(frozen=True)
class ModelResponse:
    """A model's answer: the parsed JSON object, the text it came from, and who produced it."""

    data: dict[str, Any]
    raw_text: str
    model: str
    usage: Usage = field(default_factory=Usage)
    requests: int = 1
    """HTTP requests this answer took: retries and JSON-mode fallbacks included (errors carry `fields["requests"]`)."""


@runtime_checkable
class LLM(Protocol):
    """A language model that answers one role call with a JSON object.

    Implementations return `data` parsed from the model's answer but do not validate it against
    `output_schema`: the role that asked validates, so it can feed the error back for a retry.
    """

    async def complete(self, request: ModelRequest) -> ModelResponse:
        """Ask the model once (retrying transient failures internally) and return its JSON answer.

        Cancelling the call (an anyio cancel scope) abandons the request and closes its connection.

        Raises:
            ModelUnavailableError: no answer (timeout, connection failure, retries exhausted).
            ModelOutputError: the answer is not a JSON object.
            ModelError: the provider refused the request (bad key, bad request); the message is the API's.
        """
        ...



class RequestTally:
    """How many requests went out to the model inside `tally_requests()`: answered, failed, cancelled alike."""

    def __init__(self) -> None:
        self.count = 0


_TALLY: ContextVar[RequestTally | None] = ContextVar("alfred_model_request_tally", default=None)


@contextmanager
def tally_requests() -> Iterator[RequestTally]:
    """Count every request a provider sends in this block (`note_request_sent`), even one cancelled mid-answer."""
    tally = RequestTally()
    token = _TALLY.set(tally)
    try:
        yield tally
    finally:
        _TALLY.reset(token)


def note_request_sent() -> None:
    """A provider calls this as each request leaves (every retry and JSON-mode fallback too), before it is answered."""
    tally = _TALLY.get()
    if tally is not None:
        tally.count += 1
