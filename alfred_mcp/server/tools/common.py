"""What every tool handler shares: its signature, its unit of work, and the session fields of a result."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from datetime import date
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from alfred_mcp.app import AlfredApp
from alfred_mcp.errors import InputError, InvalidPayloadError
from alfred_mcp.kitchen.day_words import WORDS_HINT, day_of_words
from alfred_mcp.session import Session, UnitOfWork

ToolArgs = dict[str, Any]
"""A tool's arguments, already checked against its published inputSchema."""
ToolResult = dict[str, Any]
"""A tool's structured result, checked against its published outputSchema."""
Handler = Callable[[AlfredApp, ToolArgs], Awaitable[ToolResult]]
ModelT = TypeVar("ModelT", bound=BaseModel)


def work_on(app: AlfredApp, tool: str, args: ToolArgs) -> AbstractAsyncContextManager[UnitOfWork]:
    """The call's unit of work on the session its arguments name (or the current one)."""
    table = args.get("table")
    return app.work(tool, session=args.get("session"), table=table if isinstance(table, str) else None)


def session_context(session: Session) -> dict[str, Any]:
    """The `session` and `turn` fields every session-scoped result carries."""
    return {"session": session.name, "turn": session.turn}


def parse_model(model: type[ModelT], data: Any, field: str) -> ModelT:
    """`data` as `model`, or InvalidPayloadError naming the first bad field (e.g. 'constraints.new_constraints[0].value')."""
    try:
        return model.model_validate(data if data is not None else {})
    except ValidationError as error:
        first = error.errors(include_url=False)[0]
        path = field + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in first["loc"])
        reason = first["msg"].removeprefix("Value error, ")
        raise InvalidPayloadError(f"{path}: {reason}.", field=path) from None


def iso_date(text: str, field: str, *, end: bool = False) -> date:
    """`text` (YYYY-MM-DD, or a day word resolved on the server's clock: `kitchen/day_words.py`; with `end`, a span
    word is its last day) as a date, or InputError naming `field`."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        said = day_of_words(text, date.today(), end=end)
        if said is not None:
            return said
        raise InputError(f"{field}: {text!r} is not a date; give {WORDS_HINT}.", field=field, value=text) from None
