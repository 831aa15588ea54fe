"""The call log: what each tool call of a turn did, recorded by the system, never by a model.

It feeds the turn narrative (what happened), the audit ledger of Summarize and the working set.
Each call is its own session document (`session/documents.py` CALLS), so recording one is O(1)
however many calls the turn has made.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Outcome = Literal["ok", "error"]
MAX_REFS_PER_CALL = 50


class CallRecord(BaseModel):
    """One tool call: which tool, on which table, which refs it touched, and how it ended."""

    model_config = ConfigDict(extra="forbid")

    turn: int
    tool: str
    table: str | None = None
    action: str | None = Field(default=None, description="read, created, updated, deleted, generated, saved, ...")
    refs: list[str] = Field(default_factory=list, description="Refs the call touched (at most 50 kept).")
    count: int = 0
    outcome: Outcome = "ok"
    error_code: str | None = None
    note: str | None = Field(default=None, description="One line: what happened, or why it failed.")
    card: str | None = Field(default=None, description="For a read: the rows it returned as a compact card.")
    unlinked: list[str] | None = Field(
        default=None, description="A removal's rows left pointing at nothing (a meal without its recipe), by ref.")
    relinked: list[str] | None = Field(
        default=None, description="An undone removal's rows pointing at the restored row again (a meal with its recipe back), by ref.")
    columns: list[str] | None = Field(default=None, description="An update's columns set (notes, date, ...).")
    cleared: list[str] | None = Field(default=None, description="Of an update's columns, those set to nothing (null or empty).")


def to_document(record: CallRecord) -> dict[str, Any]:
    """A record as stored: refs capped so one call stays small, unset optional fields left out.

    Built field by field (the model is flat): every read records one, so it is on the read's path.
    """
    stored = {name: value for name, value in record.__dict__.items() if value is not None}
    stored["refs"] = record.refs[:MAX_REFS_PER_CALL]
    if record.unlinked is not None:
        stored["unlinked"] = record.unlinked[:MAX_REFS_PER_CALL]
    if record.relinked is not None:
        stored["relinked"] = record.relinked[:MAX_REFS_PER_CALL]
    return stored
