"""The turn ledger: what each tool call of a turn did, recorded by the system, never by a model.

It feeds the turn narrative (what happened), the audit ledger of Summarize and the working set.
"""

from __future__ import annotations

from typing import Literal

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


def ledger_key(turn: int) -> str:
    """The session document holding a turn's ledger."""
    return f"ledger:{turn}"


def append_call(ledger: list[dict], record: CallRecord) -> list[dict]:
    """A new ledger list with `record` appended (refs capped, so a turn's ledger stays small)."""
    trimmed = record.model_copy(update={"refs": record.refs[:MAX_REFS_PER_CALL]})
    return [*ledger, trimmed.model_dump(exclude_none=True)]


def calls_of(ledger: list[dict]) -> list[CallRecord]:
    return [CallRecord.model_validate(entry) for entry in ledger]
