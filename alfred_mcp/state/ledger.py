"""The turn ledger: what each tool call of a turn did, recorded by the system, never by a model.

It feeds the turn narrative (what happened), the audit ledger of Summarize and the working set.
Each call is its own session document (`ledger:<turn>:<seq>`), so recording one is O(1) however
many calls the turn has made.
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


def ledger_prefix(turn: int) -> str:
    """The key prefix of a turn's call records."""
    return f"ledger:{turn}:"


def ledger_key(turn: int, seq: int) -> str:
    """The session document holding call `seq` (from 1) of `turn`; keys sort in call order."""
    return f"{ledger_prefix(turn)}{seq:05d}"


def to_document(record: CallRecord) -> dict:
    """A record as stored: refs capped so one call stays small."""
    return record.model_copy(update={"refs": record.refs[:MAX_REFS_PER_CALL]}).model_dump(exclude_none=True)


def calls_of(documents: dict[str, dict]) -> list[CallRecord]:
    """A turn's records from its ledger documents (key -> record), in call order."""
    return [CallRecord.model_validate(documents[key]) for key in sorted(documents)]
