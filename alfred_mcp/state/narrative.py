"""Turn narratives: what happened in a turn, built from its ledger without a model (seeds 001, 003).

`summarize_turn` turns the system-recorded tool calls of a turn (plus, when there is one, the
agent loop's plan and Understand's curation) into a `TurnExecutionSummary`: steps with outcome
and refs, curation, conversation phase, what the user expressed, and the audit counts of seed
000 §4.5. Think and Act read the last two whole; older ones are folded into one line each
(`narrative_line`, `state/folding.py`). Same inputs, same summary.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from alfred_mcp.kitchen.schema import TABLE_BY_ENTITY_TYPE, TABLES
from alfred_mcp.state.call_log import CallRecord
from alfred_mcp.state.constraints import Constraint, ConstraintSnapshot, constraint_values
from alfred_mcp.state.curation import EntityCuration
from alfred_mcp.state.folding import clip
from alfred_mcp.state.refs import parse_ref

StepType = Literal["read", "write", "analyze", "generate"]
StepStatus = Literal["done", "running", "pending", "failed", "blocked", "stopped"]
Phase = Literal["exploring", "narrowing", "confirming", "executing"]
Decision = Literal["plan_direct", "propose", "clarify", "quick_read", "noted"]
"""Think's decision, or how Understand settled the turn without Think: a quick read ('quick_read'), or nothing to do but
record what was said ('noted')."""

MAX_STEPS = 12
MAX_STEP_REFS = 20
MAX_MESSAGE = 300
MAX_OUTCOME = 200
MAX_ERRORS = 5
MAX_CARD = 2_100
"""A stored card: a read card (state.cards.CARD_BUDGET) and the tool's name before it."""
_PLAN_STATUS: dict[str | None, StepStatus] = {"completed": "done", "running": "running", "pending": "pending", "blocked": "blocked",
                                                  "stopped": "stopped"}

_ACTION_STEPS: dict[str, StepType] = {
    "read": "read", "created": "write", "updated": "write", "deleted": "write", "saved": "write",
    "generated": "generate", "revised": "generate", "discarded": "generate",
}
_TOOL_STEPS: dict[str, StepType] = {
    "db_read": "read", "recipes_search": "read", "recipes_makeable": "read",
    "db_create": "write", "db_update": "write", "db_delete": "write",
}
_VERBS = {"read": "Read", "created": "Created", "updated": "Updated", "deleted": "Deleted", "saved": "Saved",
          "generated": "Generated", "revised": "Revised", "discarded": "Discarded"}


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _clipped(width: int) -> Any:
    """A text field of a record derived from longer text: clipped to `width`, never refused (limits agree)."""
    return BeforeValidator(lambda value: clip(value, width) if isinstance(value, str) else value)


class PlannedStep(_Model):
    """One step of Think's plan as the agent loop ran it (optional input to the narrative)."""

    description: Annotated[str, _clipped(300)]
    step_type: StepType
    subdomain: str | None = None
    outcome: Annotated[str | None, _clipped(MAX_OUTCOME)] = Field(default=None, description="What the step found or did.")
    note: Annotated[str | None, _clipped(300)] = Field(default=None, description="Act's note for the next step (refs only).")
    refs: list[str] = Field(default_factory=list)
    status: str | None = Field(default=None, description="pending, running, completed, blocked or stopped, as the loop ran it.")
    card: str | None = Field(default=None, max_length=MAX_CARD, description="The rows the step's last read returned, as a card.")


class TurnPlan(_Model):
    """Think's decision for a turn, as the agent loop records it (document `plan:<turn>`)."""

    decision: Decision | None = None
    goal: Annotated[str | None, _clipped(300)] = None
    steps: list[PlannedStep] = Field(default_factory=list)


class StepExecutionSummary(_Model):
    """One step of a turn: its kind, what it was, how it ended, which refs it touched."""

    step_num: int
    step_type: StepType
    subdomain: str | None = None
    description: str
    outcome: str
    refs: list[str] = Field(default_factory=list, description=f"Refs touched (at most {MAX_STEP_REFS}).")
    note: str | None = None
    ok: bool = True
    status: StepStatus = "done"
    card: str | None = Field(default=None, description="What a read returned: rows with refs and columns, cuts marked.")

    @property
    def glyph(self) -> str:
        """✓ done, ✗ failed or blocked, → running, ‖ stopped (the turn ended first), · pending: never a check mark on
        what has not happened."""
        return {"done": "✓", "running": "→", "pending": "·", "stopped": "‖"}.get(self.status, "✗")


class ToolCount(_Model):
    tool: str
    table: str | None = None
    count: int


class ErrorNote(_Model):
    tool: str
    code: str
    message: str


class TurnExecutionSummary(_Model):
    """What happened in one turn; built by the system, read by Think, Act and Reply."""

    turn: int
    user_message: str | None = None
    think_decision: Decision | None = None
    goal: str | None = None
    steps: list[StepExecutionSummary] = Field(default_factory=list)
    more_steps: int = Field(default=0, description="Steps beyond the ones listed.")
    curation_summary: str | None = None
    retained_refs: list[str] = Field(default_factory=list)
    demoted_refs: list[str] = Field(default_factory=list)
    dropped_refs: list[str] = Field(default_factory=list)
    cleared: bool = False
    conversation_phase: Phase = "exploring"
    user_expressed: str | None = None
    response_summary: str | None = None
    tools_called: list[ToolCount] = Field(default_factory=list)
    created: list[str] = Field(default_factory=list)
    updated: list[str] = Field(default_factory=list)
    deleted: list[str] = Field(default_factory=list)
    errors: list[ErrorNote] = Field(default_factory=list)

    @property
    def is_empty(self) -> bool:
        return not (self.user_message or self.steps or self.errors or self.curation_summary or self.cleared)


def summarize_turn(
    turn: int,
    calls: Sequence[CallRecord],
    *,
    user_message: str | None = None,
    reply: str | None = None,
    curation: EntityCuration | None = None,
    snapshot: ConstraintSnapshot | None = None,
    plan: TurnPlan | None = None,
    phase: Phase | None = None,
) -> TurnExecutionSummary:
    """The turn's narrative from its ledger (and the loop's plan, when given); deterministic."""
    calls = [call for call in calls if call.turn == turn]
    steps = _plan_steps(plan) if plan and plan.steps else _ledger_steps(calls)
    decision = plan.decision if plan else None
    return TurnExecutionSummary(
        turn=turn,
        user_message=clip(user_message, MAX_MESSAGE) if user_message else None,
        think_decision=decision,
        goal=plan.goal if plan else (snapshot.goal_update if snapshot else None),
        steps=steps[:MAX_STEPS],
        more_steps=max(len(steps) - MAX_STEPS, 0),
        **_curation_fields(curation),
        conversation_phase=phase or infer_phase(decision, [step.step_type for step in steps]),
        user_expressed=user_expressed(user_message, snapshot, curation),
        response_summary=clip(reply, MAX_MESSAGE) if reply else None,
        tools_called=_tool_counts(calls),
        created=_refs_with(calls, "created"),
        updated=_refs_with(calls, "updated"),
        deleted=_refs_with(calls, "deleted"),
        errors=[ErrorNote(tool=c.tool, code=c.error_code or "error", message=clip(c.note or "", 160))
                for c in calls if c.outcome == "error"][:MAX_ERRORS],
    )


def infer_phase(decision: Decision | None, step_types: Sequence[StepType]) -> Phase:
    """Seed 003's rule: propose/clarify explore; a write executes; analyze/generate narrow."""
    if decision in ("propose", "clarify"):
        return "exploring"
    if "write" in step_types:
        return "executing"
    if "analyze" in step_types or "generate" in step_types:
        return "narrowing"
    return "exploring"


def user_expressed(
    message: str | None, snapshot: ConstraintSnapshot | None, curation: EntityCuration | None
) -> str | None:
    """What the user asked for, from Understand's structured output; the message when there is none."""
    parts: list[str] = []
    if snapshot is not None:
        if snapshot.reset_all or snapshot.reset_subdomain:
            parts.append("drop the current goal")
        if snapshot.goal_update:
            parts.append(f"goal: {snapshot.goal_update}")
        parts += [_constraint_text(c) for c in snapshot.new_constraints]
        parts += [f"instead {_constraint_text(c)}" for c in snapshot.overrides]
        if snapshot.drop:
            parts.append("drop " + ", ".join(snapshot.drop))
    if curation is not None and curation.clear_all:
        parts.append("start fresh")
    if curation is not None and curation.drop:
        parts.append("forget " + ", ".join(curation.drop))
    if parts:
        return clip("; ".join(parts), MAX_MESSAGE)
    return clip(message, 160) if message else None


_CONSTRAINT_WORDS = {"ingredient_excluded": "no {values}", "allergy": "allergic to {values}", "ingredient_required": "with {values}"}
"""How a constraint of these types reads: an exclusion never reads as a wish ('no fish', not 'diet=fish')."""


def _constraint_text(constraint: Constraint) -> str:
    values = ", ".join(constraint_values(constraint))
    words = _CONSTRAINT_WORDS.get(constraint.type)
    return words.format(values=values) if words else f"{constraint.field}={values}"


def _curation_fields(curation: EntityCuration | None) -> dict[str, Any]:
    if curation is None:
        return {}
    return {
        "curation_summary": curation.curation_summary,
        "retained_refs": [decision.ref for decision in curation.retain_active],
        "demoted_refs": list(curation.demote),
        "dropped_refs": list(curation.drop),
        "cleared": curation.clear_all,
    }


def _plan_steps(plan: TurnPlan) -> list[StepExecutionSummary]:
    return [
        StepExecutionSummary(
            step_num=number, step_type=step.step_type, subdomain=step.subdomain, description=step.description,
            outcome=step.outcome or "done", refs=step.refs[:MAX_STEP_REFS], note=step.note,
            status=_PLAN_STATUS.get(step.status, "done"), ok=step.status != "blocked", card=step.card,
        )
        for number, step in enumerate(plan.steps, start=1)
    ]


def _ledger_steps(calls: Iterable[CallRecord]) -> list[StepExecutionSummary]:
    steps: list[StepExecutionSummary] = []
    for call in calls:
        kind = step_type_of(call)
        if kind is None:
            continue
        table = TABLES.get(call.table or "")
        steps.append(
            StepExecutionSummary(
                step_num=len(steps) + 1, step_type=kind, subdomain=table.subdomain if table else None,
                description=f"{call.tool} {call.table}" if call.table else call.tool,
                outcome=call_outcome(call), refs=call.refs[:MAX_STEP_REFS], ok=call.outcome == "ok",
                status="done" if call.outcome == "ok" else "failed", card=call.card,
            )
        )
    return steps


def step_type_of(call: CallRecord) -> StepType | None:
    """The kind of step a tool call was, or None for bookkeeping calls (turn_begin, describe_table, ...)."""
    if call.action in _ACTION_STEPS:
        return _ACTION_STEPS[call.action]
    if call.tool in _TOOL_STEPS:
        return _TOOL_STEPS[call.tool]
    return "generate" if call.tool.startswith("draft") else None


def call_outcome(call: CallRecord) -> str:
    """One line: 'Read 9 recipes → recipe_1..recipe_9', or why the call failed."""
    if call.outcome == "error":
        where = f" on {call.table}" if call.table else ""
        reason = f": {call.note}" if call.note else ""
        return clip(f"{call.tool}{where} failed ({call.error_code or 'error'}){reason}", MAX_OUTCOME)
    verb = _VERBS.get(call.action or "", call.tool)
    what = _count_noun(call.count or len(call.refs), call.table or _table_of_refs(call.refs))
    refs = f" → {compact_refs(call.refs)}" if call.refs else ""
    note = f" ({call.note})" if call.note else ""
    return clip(f"{verb} {what}{refs}{note}", MAX_OUTCOME)


def _count_noun(count: int, table: str | None) -> str:
    noun = TABLES[table].noun if table in TABLES else "item"
    return f"{count} {noun if count == 1 else plural(noun)}"


def _table_of_refs(refs: Sequence[str]) -> str | None:
    """The table of the first ref (draft_save records refs, not a table)."""
    parsed = parse_ref(refs[0]) if refs else None
    return TABLE_BY_ENTITY_TYPE[parsed.entity_type].name if parsed is not None else None


def plural(noun: str) -> str:
    """'recipe' -> 'recipes', 'meal plan entry' -> 'meal plan entries', 'preferences' stays."""
    if noun.endswith("s"):
        return noun
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def _tool_counts(calls: Iterable[CallRecord]) -> list[ToolCount]:
    counts: dict[tuple[str, str | None], int] = {}
    for call in calls:
        key = (call.tool, call.table)
        counts[key] = counts.get(key, 0) + 1
    return [ToolCount(tool=tool, table=table, count=n) for (tool, table), n in counts.items()]


def _refs_with(calls: Iterable[CallRecord], action: str) -> list[str]:
    return list(dict.fromkeys(ref for call in calls if call.action == action for ref in call.refs))


def compact_refs(refs: Iterable[str], *, max_ranges: int = 6) -> str:
    """['recipe_1', 'recipe_2', 'recipe_3', 'inv_4'] -> 'recipe_1..recipe_3, inv_4' (first-seen type order)."""
    numbers: dict[str, list[int]] = {}
    others: list[str] = []
    for ref in dict.fromkeys(refs):
        parsed = parse_ref(ref)
        if parsed is None:
            others.append(ref)
            continue
        prefix = f"gen_{parsed.entity_type}" if parsed.generated else parsed.entity_type
        numbers.setdefault(prefix, []).append(parsed.number)
    ranges = [_range_text(prefix, low, high) for prefix, found in numbers.items() for low, high in _ranges(found)]
    shown = ranges[:max_ranges] + others
    rest = len(ranges) - max_ranges
    return ", ".join(shown) + (f" and {rest} more" if rest > 0 else "")


def _ranges(numbers: list[int]) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for number in sorted(set(numbers)):
        if spans and number == spans[-1][1] + 1:
            spans[-1] = (spans[-1][0], number)
        else:
            spans.append((number, number))
    return spans


def _range_text(prefix: str, low: int, high: int) -> str:
    if low == high:
        return f"{prefix}_{low}"
    joiner = ", " if high == low + 1 else ".."
    return f"{prefix}_{low}{joiner}{prefix}_{high}"


def narrative_line(summary: TurnExecutionSummary) -> str:
    """The turn in one line, for the folded history: what the user said and what was done."""
    parts: list[str] = []
    if summary.user_message:
        parts.append(f'user: "{clip(summary.user_message, 60)}"')
    if summary.goal:
        parts.append(f"goal: {clip(summary.goal, 50)}")
    if summary.steps:
        parts.append("; ".join(_short_step(step) for step in summary.steps[:3]) + (" …" if len(summary.steps) > 3 else ""))
    if summary.errors:
        parts.append(f"{len(summary.errors)} {'error' if len(summary.errors) == 1 else 'errors'}")
    parts.append(summary.conversation_phase)
    return " — ".join(parts)


def _short_step(step: StepExecutionSummary) -> str:
    return clip(step.outcome, 60)
