"""The state of one agent turn, persisted in the session, so any driver can resume it.

`chat` runs a turn in one call; stage-by-stage clients advance the same state one role output
at a time; both read and write this model only through `agent/machine.py`
(stored as the session documents AGENT_TURNS and AGENT_CURRENT_TURN).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from alfred_mcp.kitchen.text import sanitize
from alfred_mcp.state.role_outputs import ThinkOutput, ThinkStep, UnderstandOutput

Stage = Literal["understand", "think", "act", "reply", "done"]
Outcome = Literal["in_progress", "completed", "quick", "clarify", "propose", "ask_user", "blocked"]
StepStatus = Literal["pending", "running", "completed", "blocked", "stopped"]
"""`stopped`: the turn ended while the step ran (Act asked the user, the turn was stopped), neither done nor failed."""

class ToolCallRecord(BaseModel):
    """One tool Act called in a step, as the state saw it (refs only)."""

    model_config = ConfigDict(extra="forbid")

    tool: str
    arguments: dict[str, Any]
    ok: bool
    summary: str = Field(description="One line: rows and refs touched, or the error.")
    card: str | None = Field(default=None, description="What the call returned, as a compact card (rows with refs and columns).")
    refs: list[str] = Field(default_factory=list)
    error_code: str | None = None
    batch: str | None = Field(default=None, description="The manifest a draft_save call recorded its items in.")
    effects: list[dict[str, Any]] = Field(
        default_factory=list,
        description="What a removal did beside its own rows: each {action: unlinked|cascaded, table, ref?, label?, column?}.",
    )
    warnings: list[str] = Field(
        default_factory=list, description="The result's own warnings (an allergen, a dislike, a meal already planned there)."
    )
    notes: list[str] = Field(
        default_factory=list, description="The result's notes no fact of its `note_facts` tells (`state/note_facts.py`): "
                                          "the model's to word."
    )
    absent: dict[str, str] = Field(
        default_factory=dict, description="A call refused because the row the person named is not there ({name, table}) "
                                          "or there was nothing to do ({nothing}: 'to undo'); nothing changed, the state's "
                                          "account says so."
    )
    shortfalls: list[dict[str, str]] = Field(
        default_factory=list,
        description="What the call did less than asked: each {label, reason, ref?} (an item not taken out of the pantry, a "
                    "line left off the list, a draft not saved or open again).",
    )
    told: dict[str, Any] = Field(
        default_factory=dict,
        description="What the result told beside its rows, by ref, for the state's account: each meal's recipe, a cook's "
                    "recipe, servings and the meals still planned with it, lines already listed or covered by the pantry.",
    )


class StepState(BaseModel):
    model_config = ConfigDict(extra="forbid")

    index: int
    step: ThinkStep
    status: StepStatus = "pending"
    batch: str | None = Field(default=None, description="The manifest opened for the step's batch.")
    tool_calls: list[ToolCallRecord] = Field(default_factory=list)
    consecutive_errors: int = 0
    refused: list[str] = Field(
        default_factory=list, description="Decisions the state refused before anything ran (step_complete, a tool call), with why."
    )
    drafts: list[str] = Field(default_factory=list, description="gen refs created in this step.")
    result_summary: str | None = None
    note_for_next_step: str | None = None


class TurnOwner(BaseModel):
    """Who runs a turn with the bundled loop, so a turn left by a run that died can be told from a live one.

    Stage-driven turns have no owner: their client may come back at any time.
    """

    model_config = ConfigDict(extra="forbid")

    driver: Literal["headless", "chat_tool"]
    pid: int
    host: str = Field(description="A digest of the host name (compared, never shown).")
    started: float = Field(description="Unix time the turn began.")
    deadline: float = Field(description="Unix time by which the loop ends the turn itself (its wall-clock budget).")


class TurnState(BaseModel):
    """Everything one turn decided and did, stage by stage."""

    model_config = ConfigDict(extra="forbid")

    turn: int
    message: Annotated[str, BeforeValidator(sanitize)] = Field(
        description="The user's message, whole (as given: control characters removed, whichever driver began the turn).")
    stage: Stage = "understand"
    outcome: Outcome = "in_progress"
    understanding: UnderstandOutput | None = None
    plan: ThinkOutput | None = None
    steps: list[StepState] = Field(default_factory=list)
    current_step: int = 0
    quick_result: dict[str, Any] | None = None
    blocked_reason: str | None = None
    question: str | None = Field(default=None, description="What the turn asks the user (clarify, ask_user, propose).")
    reply: str | None = None
    notice: str | None = Field(default=None, description="What the state did with the last Act decision: a tool's result line, an error or a refusal.")
    reply_additions: list[str] = Field(
        default_factory=list, description="No longer written: a reply is refused with what it missed, never amended (kept for stored turns)."
    )
    reply_source: Literal["model", "fallback", "rows", "state", "model+state"] | None = Field(
        default=None,
        description="fallback: the state wrote the reply itself (the turn ended blocked, or every reply attempt was refused); "
                    "rows: a lookup its client's model answered from the rows, no reply submitted (the reply: what was shown); "
                    "state: a turn its client's model told from the state's account, no reply submitted (the reply: that account); "
                    "model+state: a reply sent ahead with the state's sentences for the warnings its model could not foresee."
    )
    reply_flow: dict[str, str] = Field(
        default_factory=dict, description="Reply's conversation-flow fields: tone, user_expressed, next_step."
    )
    replans: int = Field(default=0, description="How often Act sent the plan back to Think (plan_invalid) this turn.")
    replan_note: str | None = Field(default=None, description="Act's reason for the re-plan, shown to Think.")
    superseded_steps: list[StepState] = Field(default_factory=list, description="Steps of the plan a re-plan replaced.")
    ledger: dict[str, Any] | None = None
    model_calls: dict[str, int] = Field(default_factory=dict, description="Model calls per role, unusable answers included.")
    invalid_outputs: dict[str, int] = Field(default_factory=dict)
    errors: list[dict[str, Any]] = Field(default_factory=list, description="Tool errors (with step) and model failures (with role).")
    model_requests: int = Field(default=0, description="HTTP requests to the model: retries and JSON-mode fallbacks included.")
    owner: TurnOwner | None = Field(default=None, description="The loop running the turn; None when a client drives it stage by stage.")

    @property
    def step(self) -> StepState | None:
        return self.steps[self.current_step] if self.current_step < len(self.steps) else None
