"""What kitchen_undo needs to revert a call's kitchen writes: before- and after-images, and the checks.

Every unit of work that writes kitchen rows leaves one `UndoEntry` in its session (document family
UNDO): the rows it inserted (after-images), updated (before and after), deleted (before, with the
children the delete cascaded to and the rows whose reference it cleared). Undo reverts the newest
entry only if the rows are still as that call left them: "changed since" compares the columns a
caller can write. The log is bounded: a few entries per session, a few hundred rows per entry.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, Field

from alfred_mcp.kitchen.schema import get_table

MAX_ENTRIES = 10
"""Undo entries kept per session; older ones are dropped (they can no longer be undone)."""
MAX_ROWS = 300
"""Rows an entry may hold in all; a call that wrote more is recorded as too large to undo."""

Row = dict[str, Any]


class Unlinked(BaseModel):
    """A row whose foreign key a delete cleared (ON DELETE SET NULL), as it was before."""

    table: str
    column: str
    row: Row


class UndoStep(BaseModel):
    """One store write of a call."""

    kind: Literal["insert", "update", "delete"]
    table: str
    before: list[Row] = Field(default_factory=list)
    after: list[Row] = Field(default_factory=list)
    cascaded: dict[str, list[Row]] = Field(default_factory=dict)
    unlinked: list[Unlinked] = Field(default_factory=list)

    @property
    def size(self) -> int:
        return len(self.before) + len(self.after) + sum(map(len, self.cascaded.values())) + len(self.unlinked)


class UndoEntry(BaseModel):
    """The kitchen writes of one call, in the order they happened."""

    number: int
    turn: int
    tool: str
    steps: list[UndoStep] = Field(default_factory=list)
    too_large: bool = False
    """The call wrote more than MAX_ROWS rows: it is remembered, but cannot be undone."""

    def describe(self) -> str:
        return f"the {self.tool} call of turn {self.turn}"


def writable_values(table: str, row: Mapping[str, Any]) -> Row:
    """The columns a caller can write (what 'changed since' compares, and what an undo writes back)."""
    return {column.name: row.get(column.name) for column in get_table(table).writable_columns}


def changed_columns(table: str, expected: Mapping[str, Any], current: Mapping[str, Any]) -> list[str]:
    """Writable columns whose value differs between two images of one row."""
    want, have = writable_values(table, expected), writable_values(table, current)
    return [name for name in want if not _same(want[name], have[name])]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)) and not isinstance(a, bool) and not isinstance(b, bool):
        return math.isclose(float(a), float(b), rel_tol=1e-9, abs_tol=1e-9)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return bool(a == b)


def ids_of(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    return [str(row["id"]) for row in rows]
