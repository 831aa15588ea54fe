"""Each role's output contract: pydantic models, published as JSON Schema, validated before use.

Understand interprets, Think plans, Act executes one decision at a time, Reply words the
outcome; Summarize is deterministic and has no model output. Nothing a role returns touches
state until it validates here; refs only, never ids.
"""

from __future__ import annotations

import json
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from alfred_mcp.kitchen.schema import TABLES
from alfred_mcp.kitchen.text import sanitize
from alfred_mcp.state.compact_schema import compact_schema, without_limits
from alfred_mcp.state.constraints import ConstraintSnapshot
from alfred_mcp.state.curation import EntityCuration

Role = Literal["understand", "think", "act", "reply"]
StepType = Literal["read", "analyze", "generate", "write"]
Subdomain = Literal["recipes", "inventory", "shopping", "meal_plans", "tasks", "preferences", "history"]
if TYPE_CHECKING:
    TableName = str
else:
    TableName = Literal[tuple(TABLES)]  # the schema lists every table; checkers see a str

MAX_STEPS = 8
MAX_BATCH = 50


class _Contract(BaseModel):
    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _sanitized(cls, data: Any) -> Any:
        """No control character is kept (UUID-shaped text is kept as written: it is data), whoever wrote the output (a client's model went
        through the tools' door already; the server's own model did not) and when it is read back."""
        return sanitize(data)


class QuickRead(_Contract):
    """A read answered without planning: one table (the system words its rows), or one read-only tool (Reply words
    its result). Exactly one of `table` and `tool`."""

    table: TableName | None = Field(default=None, description="A table; the system words its rows.")
    filters: list[dict[str, Any]] = Field(default_factory=list, max_length=10, description="db_read's {field, op, value}.")
    order_by: list[dict[str, Any]] = Field(default_factory=list, max_length=3, description="db_read's [{field, direction}].")
    limit: int = Field(default=20, ge=1, le=100, description="Rows at most; default 20.")
    tool: str | None = Field(default=None, description="Or a read-only tool; Reply words its result.")
    arguments: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _one_source(self) -> QuickRead:
        if (self.table is None) == (self.tool is None):
            raise ValueError("quick_read needs exactly one of table (a one-table lookup) and tool (a read-only tool with its arguments)")
        if self.tool is not None and (self.filters or self.order_by):
            raise ValueError("quick_read: filters and order_by go with table; a tool takes its own arguments")
        if self.table is not None and self.arguments:
            raise ValueError("quick_read: arguments go with tool; a table read takes filters, order_by and limit")
        return self


class UnderstandOutput(_Contract):
    """What the message means for state: refs in play, curation, constraints; ask, look up, or plan."""

    referenced_refs: list[str] = Field(
        default_factory=list, max_length=50, description="Refs the user means ('that one' -> recipe_3), from the context only."
    )
    curation: EntityCuration = Field(default_factory=EntityCuration, description="Which entities stay in view.")
    constraint_snapshot: ConstraintSnapshot = Field(default_factory=ConstraintSnapshot)
    needs_disambiguation: bool = False
    disambiguation_question: str | None = Field(default=None, max_length=500)
    disambiguation_options: list[str] = Field(default_factory=list, max_length=10, description="Candidate refs.")
    needs_clarification: bool = Field(default=False, description="The request cannot be acted on without an answer.")
    clarification_questions: list[str] = Field(default_factory=list, max_length=5)
    quick_mode: bool = Field(
        default=False, description="Look up at once (quick_read), no planning; never a write."
    )
    quick_mode_confidence: float | None = Field(
        default=None, ge=0, le=1, description="0 to 1; too low: the turn is planned."
    )
    quick_read: QuickRead | None = None
    nothing_to_do: bool = Field(
        default=False, description=("Nothing to look up or change: only constraints or curation to record, or a question the "
                                     "context already answers. Reply next, no Think.")
    )
    processed_message: str | None = Field(default=None, max_length=200, description="The request in a few words.")

    @model_validator(mode="after")
    def _quick_mode_needs_a_read(self) -> UnderstandOutput:
        if self.quick_mode and (self.quick_read is None or self.quick_mode_confidence is None):
            raise ValueError("quick_mode needs quick_read (a table to read, or a read-only tool with its arguments) and quick_mode_confidence")
        if self.needs_disambiguation and not self.disambiguation_question:
            raise ValueError("needs_disambiguation needs disambiguation_question")
        if self.needs_clarification and not self.clarification_questions:
            raise ValueError("needs_clarification needs clarification_questions")
        if self.nothing_to_do and self.quick_mode:
            raise ValueError("nothing_to_do and quick_mode contradict each other: a quick read is something to do; give one")
        return self


class BatchEntry(_Contract):
    ref: str = Field(description="A ref the step covers (recipe_3; gen_recipe_1, also one an earlier step drafts).")
    label: str | None = Field(default=None, max_length=200)


class StepCall(_Contract):
    """A step's one call, known when planning: it runs at once, as Act's would."""

    tool: str = Field(description="A tool its step type may use.")
    arguments: dict[str, Any] = Field(default_factory=dict)


class ThinkStep(_Contract):
    """One step of the plan; what it must write item by item is listed in `batch`."""

    description: str = Field(max_length=500, description="What the step does, for the log.")
    step_type: StepType
    subdomain: Subdomain
    batch: list[BatchEntry] = Field(default_factory=list, max_length=MAX_BATCH, description="Each item the step must write (or write a row naming); none may stay pending.")
    expected_count: int | None = Field(default=None, ge=1, le=MAX_BATCH, description="For a generate step: how many drafts it must produce.")
    call: StepCall | None = Field(default=None, description="Its one call, if known: run at once, no Act.")


class ThinkOutput(_Contract):
    """The plan: act directly (no steps: nothing to do, Reply answers), propose first, or ask."""

    goal: str = Field(max_length=300)
    decision: Literal["plan_direct", "propose", "clarify"]
    steps: list[ThinkStep] = Field(default_factory=list, max_length=MAX_STEPS)
    proposal_message: str | None = Field(default=None, max_length=2000)
    clarification_questions: list[str] = Field(default_factory=list, max_length=5)

    @model_validator(mode="after")
    def _decision_has_what_it_needs(self) -> ThinkOutput:
        if self.decision == "propose" and not self.proposal_message:
            raise ValueError("propose needs proposal_message")
        if self.decision == "clarify" and not self.clarification_questions:
            raise ValueError("clarify needs clarification_questions")
        return self


class ToolCallDecision(_Contract):
    action: Literal["tool_call"]
    tool: str = Field(description="One of the tools listed in the context.")
    arguments: dict[str, Any] = Field(default_factory=dict, description="The tool's arguments; refs for ids.")
    complete_step: bool = Field(default=False, description="It finishes the step: done on success, no step_complete.")


class StepCompleteDecision(_Contract):
    action: Literal["step_complete"]
    result_summary: str = Field(max_length=1000, description="What the step achieved, refs only.")
    note_for_next_step: str | None = Field(default=None, max_length=500)


class AskUserDecision(_Contract):
    action: Literal["ask_user"]
    question: str = Field(max_length=1000)


class BlockedDecision(_Contract):
    action: Literal["blocked"]
    reason: str = Field(max_length=1000, description="Why, for the state's record (the user never reads it verbatim).")
    reason_code: Literal["insufficient_info", "plan_invalid", "tool_failure"] = Field(
        default="tool_failure", description="plan_invalid: the plan cannot work; Think re-plans once with your reason."
    )


class ActOutput(_Contract):
    """One Act decision: call a tool, complete the step, ask the user, or report being blocked."""

    decision: Annotated[
        ToolCallDecision | StepCompleteDecision | AskUserDecision | BlockedDecision, Field(discriminator="action")
    ]

    @model_validator(mode="before")
    @classmethod
    def _accept_a_bare_decision(cls, data: Any) -> Any:
        """Models often answer with the decision itself ({"action": ...}); that is unambiguous, so accept it."""
        if isinstance(data, dict) and "action" in data and "decision" not in data:
            return {"decision": data}
        return data


class ReplyOutput(_Contract):
    """What the user reads, and where the conversation goes. A witness: saved, generated, failed as the state says."""

    response: str = Field(max_length=8000, description="The text the user reads.")
    tone: str | None = Field(default=None, max_length=60, description="The tone taken, e.g. 'collaborative'; the next reply keeps it.")
    user_expressed: str | None = Field(default=None, max_length=200, description="What the user expressed this turn, in a few words.")
    next_step: str | None = Field(default=None, max_length=200, description="The one natural next step offered, e.g. 'save them?'.")


ROLE_OUTPUTS: dict[str, type[BaseModel]] = {
    "understand": UnderstandOutput,
    "think": ThinkOutput,
    "act": ActOutput,
    "reply": ReplyOutput,
}


@cache
def _schema(role: str) -> str:
    return json.dumps(without_limits(compact_schema(ROLE_OUTPUTS[role].model_json_schema())))


def output_schema(role: str) -> dict[str, Any]:
    """The JSON Schema a role's output must satisfy, compact (size limits are checked on submission and named
    when broken), built once; a fresh copy per call."""
    schema: dict[str, Any] = json.loads(_schema(role))
    return schema
