"""What a turn leaves in the session besides refs: Understand's submission and the narrative index.

Both are session documents (`session/documents.py`); the operations read and write them, the
context builders only ever see the parsed values.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from alfred_mcp.state.constraints import ConstraintSnapshot, RejectedConstraint, ResetReason
from alfred_mcp.state.curation import EntityCuration
from alfred_mcp.state.folding import FoldedLines

MAX_REFERENCED = 200


class Understanding(BaseModel):
    """One turn's understanding as submitted, and what the merge made of it."""

    model_config = ConfigDict(extra="forbid")

    turn: int
    message: str | None = None
    referenced: list[str] = Field(default_factory=list, max_length=MAX_REFERENCED)
    curation: EntityCuration = Field(default_factory=EntityCuration)
    snapshot: ConstraintSnapshot = Field(default_factory=ConstraintSnapshot)
    rejected: list[RejectedConstraint] = Field(default_factory=list)
    reset_reason: ResetReason | None = None


class NarrativeIndex(BaseModel):
    """Which closed turns' narratives are kept whole, and the folded earlier ones."""

    model_config = ConfigDict(extra="forbid")

    whole: list[int] = Field(default_factory=list, description="Closed turns kept whole, oldest first.")
    folded: FoldedLines = Field(default_factory=FoldedLines)
