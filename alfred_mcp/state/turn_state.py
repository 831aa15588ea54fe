"""What a turn leaves in the session besides refs: Understand's submission and the document keys.

Each piece lives in one session document (JSON), so a restart or another replica sees the
same state. The keys are named here once; the I/O side (`alfred_mcp/turns.py`) reads and writes
them, the context builders only ever see the parsed values.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from alfred_mcp.state.constraints import ConstraintSnapshot, RejectedConstraint, ResetReason
from alfred_mcp.state.curation import EntityCuration
from alfred_mcp.state.folding import FoldedLines

CURATION_KEY = "curation"
CONSTRAINTS_KEY = "constraints"
UNDERSTANDING_KEY = "understanding"
CONVERSATION_KEY = "conversation"
NARRATIVE_DIGEST_KEY = "narrative_digest"
NARRATIVE_PREFIX = "narrative:"
PLAN_PREFIX = "plan:"
DRAFT_PREFIX = "draft:"
MAX_REFERENCED = 200


def narrative_key(turn: int) -> str:
    """The document holding a closed turn's TurnExecutionSummary."""
    return f"{NARRATIVE_PREFIX}{turn}"


def plan_key(turn: int) -> str:
    """The document where the agent loop records Think's plan of a turn (a TurnPlan)."""
    return f"{PLAN_PREFIX}{turn}"


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
