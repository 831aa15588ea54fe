"""A role's prompt for a turn: the role template filled with the session context (system), plus
this turn's own facts (user): the step's batch, its tool results and refusals, the drafts it covers.

The same prompt serves the bundled loop (one stateless model call per role output: everything is
in it, each tool's arguments as a typed signature) and stage-by-stage clients (`for_client=True`: their model has
tools/list, so the step's tools are named, not re-described).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from alfred_mcp.agent import act_tools
from alfred_mcp.agent.present import relinked_items, unlinked_items
from alfred_mcp.agent.role_templates import load_template, template_for, template_name
from alfred_mcp.agent.role_templates import role_prompt as filled_template
from alfred_mcp.contracts import ToolContract, load_contracts
from alfred_mcp.operations import drafting
from alfred_mcp.state.agent_turn import StepState, TurnState
from alfred_mcp.state.cards import CARD_BUDGET, READ_TOOLS, cards_within, draft_size, draft_text
from alfred_mcp.state.context import RoleContext, StepView, render_prompt
from alfred_mcp.state.folding import clip
from alfred_mcp.state.headings import without_empty_headings
from alfred_mcp.state.schema_text import named_enums, signature

if TYPE_CHECKING:
    from alfred_mcp.agent.machine import TurnMachine

MAX_ARGUMENTS = 100
"""Characters of an earlier call's arguments the step's prompt shows (its result line says what it did)."""
SEPARATOR = "\n---\n"
"""Templates put their fixed rules above this line and the context placeholders below it."""


@dataclass(frozen=True)
class Prompt:
    system: str
    """Instructions and session context: what a stateless model call needs."""
    user: str
    """This turn's own facts for the role."""
    template: str
    """The template it came from: understand, think, act_read, act_write, ..., reply."""

    @property
    def instructions(self) -> str:
        """The template's fixed rules (the same every turn)."""
        return self.system.split(SEPARATOR, 1)[0].strip()

    def instruction_parts(self) -> list[tuple[str, str]]:
        """The instructions by template: Act's shared rules apart from its step type's guidance (sent once each)."""
        if not self.template.startswith("act_"):
            return [(self.template, self.instructions)]
        guidance = load_template(self.template).strip()
        return [("act", self.instructions.replace(guidance, "").strip()), (self.template, guidance)]

    @property
    def context(self) -> str:
        """The session context sections, then this turn's own facts."""
        parts = self.system.split(SEPARATOR, 1)
        return "\n\n".join(part for part in (parts[1].strip() if len(parts) > 1 else "", self.user) if part)


async def role_prompt(
    machine: TurnMachine, state: TurnState, role: str, *, for_client: bool = False, full: bool = False
) -> Prompt:
    """The system text (instructions + session context) and the turn text for `role`.

    For a client (`for_client`), tools are named rather than described, and the drafts a step covers
    are listed with their size (its model wrote them) unless `full` asks for their whole content, and the context
    quotes back the user's message and the last exchange only when `full` asks (its model sent and read them).
    """
    step = state.step if role == "act" else None
    view = _step_view(state, step) if step is not None else None
    system = await filled_template(machine.work, role, step=view, message=state.message, for_client=for_client, echo_client=full)
    if role == "understand":
        user = ""
    elif role == "think":
        user = _think_turn(state, for_client=for_client)
    elif role == "act":
        user = _act_turn(machine, state, for_client=for_client, whole_drafts=full or not for_client)
    else:
        user = _reply_turn(machine, state, said=system, for_client=for_client)
    if not for_client:  # a client's model has the output schema and the instructions: no closing request
        user = "\n\n".join(part for part in (user, ASK[role].format(turn=state.turn)) if part)
    return Prompt(system=without_empty_headings(system), user=without_empty_headings(user), template=template_name(role, view))


def fixed_prompt(role: str) -> Prompt:
    """`role`'s prompt without a session's context (not Act's, whose instructions depend on the step): its instructions
    exactly as every turn's prompt carries them."""
    empty = RoleContext(role, (), budget=0)
    return Prompt(system=without_empty_headings(render_prompt(template_for(role), empty)), user="", template=template_name(role))


ASK = {
    "understand": "Answer with the understand output (JSON) for the user's message of turn {turn} above.",
    "think": "Answer with the think output (the plan) as JSON.",
    "act": "Answer with one act decision as JSON: a tool_call, step_complete, ask_user or blocked.",
    "reply": "Report exactly what the state says: saved is saved, generated is not saved, failed is failed. "
             "Answer with the reply output as JSON.",
}
"""What each role's request ends with in the bundled loop."""


def _step_view(state: TurnState, step: StepState) -> StepView:
    return StepView(step.step.step_type, step.step.description, step.step.subdomain, step.index + 1, len(state.steps))


def _think_turn(state: TurnState, *, for_client: bool = False) -> str:
    """Understand's reading of the turn (not for a client: its model wrote it), a notice, or why Think plans again."""
    lines = []
    understanding = state.understanding
    if understanding is not None and not for_client:
        lines += ["## Understanding (this turn)", f"Referenced: {', '.join(understanding.referenced_refs) or 'nothing specific'}"]
        if understanding.processed_message:
            lines.append(f"Request: {understanding.processed_message}")
    if state.notice and state.stage == "think" and not state.replan_note:
        lines.append(f"Note: {state.notice}")
    if state.replan_note:
        lines += ["", "## Re-plan (once)", f"Act stopped the plan: {state.replan_note}"]
        done = [s for s in state.superseded_steps if s.status == "completed"]
        lines += [f"Already done: {s.step.description}: {s.result_summary or 'done'}" for s in done] or ["Nothing of it was done."]
        lines.append("Plan again from here; do not repeat what is done.")
    return "\n".join(lines).strip()


def _act_turn(machine: TurnMachine, state: TurnState, *, for_client: bool, whole_drafts: bool) -> str:
    step = state.step
    assert step is not None and state.plan is not None
    lines = [_batch_block(machine, step)]
    if not for_client:  # a client's model read them in the notices; a stateless call sees them here
        lines += _earlier_reads_block(state, step)
    lines += _calls_block(step)
    lines += _drafts_block(machine, state, step, whole=whole_drafts)
    step_type = step.step.step_type
    lines += ["", "## Tools for this step", _tools_block(machine.step_tools(step_type), names_only=for_client, step_type=step_type,
                                                      listed=machine.listed_tools())]
    return "\n".join(line for line in lines if line is not None).strip()


def _batch_block(machine: TurnMachine, step: StepState) -> str:
    if step.batch is None:
        expected = step.step.expected_count
        return f"## Step progress\nDrafts to generate: {expected} (so far: {', '.join(step.drafts) or 'none'})." if expected else ""
    manifest = drafting.load_manifest(machine.session, step.batch)
    lines = [f"## Batch {step.batch} ({manifest.policy})", manifest.summary()]
    lines += [f"- {item.ref} {item.label or ''} [{manifest.shown(item)}]" for item in manifest.items]
    return "\n".join(lines)



def _calls_block(step: StepState) -> list[str]:
    lines = []
    if step.tool_calls:
        lines += ["", "## This step so far"]
        last = len(step.tool_calls) - 1
        for number, call in enumerate(step.tool_calls):
            arguments = json.dumps(call.arguments, ensure_ascii=False)
            lines.append(f"- {call.tool} {clip(arguments, MAX_ARGUMENTS)} -> "
                         f"{'ok' if call.ok else 'ERROR'}: {call.summary}")
            if call.ok and call.card and number == last:
                lines += [f"  {line}" for line in call.card.splitlines()[1:]]
    if step.refused:
        lines += ["", "## Refused by the state (nothing ran)", *(f"- {reason}" for reason in step.refused)]
    return lines


def _earlier_reads_block(state: TurnState, step: StepState) -> list[str]:
    """What the turn's earlier steps read, as their cards (the latest whole, within CARD_BUDGET)."""
    earlier = [*state.superseded_steps, *state.steps[: step.index]]
    card = cards_within([c.card for s in earlier for c in s.tool_calls if c.ok and c.card and c.tool in READ_TOOLS], CARD_BUDGET)
    return ["", "## Read by earlier steps (this turn)", card] if card else []


def covered_drafts(state: TurnState, step: StepState) -> list[str]:
    """The drafts a step works on: its batch's drafts, those earlier steps of this turn generated (for a
    write step), and the drafts the user named this turn."""
    refs = [entry.ref for entry in step.step.batch if entry.ref.startswith("gen_")]
    if step.step.step_type == "write":
        earlier = [*state.superseded_steps, *state.steps[: step.index]]
        refs += [ref for s in earlier if s.step.step_type == "generate" for ref in s.drafts]
    if state.understanding is not None:
        refs += [ref for ref in state.understanding.referenced_refs if ref.startswith("gen_")]
    return list(dict.fromkeys(refs))


DRAFTS_BUDGET = 1_500
"""Characters of whole drafts a step's prompt shows; past it, each draft by its size, whole through draft_read."""


def _drafts_block(machine: TurnMachine, state: TurnState, step: StepState, *, whole: bool) -> list[str]:
    """The covered drafts: whole (a write step saves exactly this content, never a summary of it) while they
    fit DRAFTS_BUDGET, or by size with draft_read to get them whole (also for a client, whose model wrote them)."""
    pending = {d.ref: d for d in drafting.list_drafts(machine.session)}
    drafts = [pending[ref] for ref in covered_drafts(state, step) if ref in pending]
    if not drafts:
        return []
    contents = [draft_text(draft.content) for draft in drafts]
    if whole and sum(len(text) for text in contents) <= DRAFTS_BUDGET:
        lines = ["", "## Drafts this step covers (pending, full content)"]
        return lines + [f"### {draft.ref}: {draft.label}\n{text}" for draft, text in zip(drafts, contents)]
    lines = ["", "## Drafts this step covers (pending; whole with draft_read" + (", or turn_context full: true)" if not whole else ")")]
    return lines + [f"- {draft.ref}: {draft.label} ({draft_size(draft.content)})" for draft in drafts]


ALWAYS_DESCRIBED = ("db_read", "draft_read")
"""Read tools a step of any type leans on: described in every step, beside the step's own class of tools."""
_OWN_CLASS = {"read": "read", "analyze": "read", "generate": "generate", "write": "write"}


EVERY_TOOL = "Every kitchen tool (read, draft, write; not chat or the turn tools): arguments as in tools/list; leave out `session`."
"""A client's write step's tools when its tools/list (or the stage listing's catalog) has every one: a write step may call
each tool Act may (`act_tools.act_callable`), so naming them all would only repeat the listing."""


def _tools_block(names: tuple[str, ...], *, names_only: bool, step_type: str, listed: frozenset[str] = frozenset()) -> str:
    """The step's tools for the model. A client's model (`names_only`) gets the names of those its tools/list shows
    (`listed`; a write step whose every tool it shows: EVERY_TOOL), and every other one as the bundled loop's model gets the tools it describes: a typed signature and its
    first clause, so a tool the client was not listed is as callable as a listed one. The bundled loop's model gets
    that for the tools of the step's own class (and db_read, draft_read), and the others' names with their arguments
    on one line, so every tool stays reachable within a small model's context."""
    contracts = load_contracts()
    if names_only:
        seen = [name for name in names if name in listed]
        unlisted = [name for name in names if name not in listed]
        if step_type == "write" and seen and not unlisted:  # a write step may call every tool Act may: no need to list them
            return EVERY_TOOL
        text = ", ".join(seen) + " (arguments as in tools/list; leave out `session`)." if seen else ""
        if not unlisted:
            return text
        return "\n".join(part for part in (text, "Not in your tools/list (call them by these arguments; the server runs them):",
                                              _described(unlisted, contracts)) if part)
    own = _OWN_CLASS[step_type]
    described = [name for name in names if name in ALWAYS_DESCRIBED or act_tools.tool_class(contracts[name]) == own]
    others = [_argument_names(contracts[name]) for name in names if name not in described]
    also = [f"- Also: {', '.join(others)}."] if others else []
    return _described(described, contracts, also)


def _described(names: list[str], contracts: dict[str, ToolContract], after: list[str] | None = None) -> str:
    """Each tool as '- signature: first clause', then the named shapes their signatures use (once each), enums named."""
    lines, shapes = [], []
    for name in names:
        contract = contracts[name]
        head, *own_shapes = signature(name, _without_session(contract.input_schema)).splitlines()
        lines.append(f"- {head}: {_first_sentence(contract.description)}")
        shapes += [shape for shape in own_shapes if shape not in shapes]
    return named_enums("\n".join([*lines, *(after or []), *shapes]))


def tool_catalog(names: Iterable[str]) -> str:
    """The tools `names` as a step's context describes a tool its client was not listed (one source): what a stage
    listing's tools/list carries once, so Think can give any step its `call` and Act's steps name tools only."""
    return _described(list(names), load_contracts())


def _argument_names(contract: ToolContract) -> str:
    """'recipes_scale(recipe, servings)': a tool by its arguments' names, optional ones marked '?'."""
    schema = _without_session(contract.input_schema)
    required = set(schema.get("required", ()))
    arguments = [name if name in required else f"{name}?" for name in schema.get("properties", {})]
    return f"{contract.name}({', '.join(arguments)})"


DESCRIPTION_CHARS = 90
"""How much of a tool's first clause the bundled loop's model reads (its signature says the rest)."""


def _first_sentence(text: str) -> str:
    """A tool's description up to its first full stop, colon or semicolon outside parentheses ('Rows of a table
    (columns: ...)' is not cut inside them), at most DESCRIPTION_CHARS (the step's guidance says the rest)."""
    depth, end = 0, None
    for index, char in enumerate(text):
        depth += {"(": 1, ")": -1 if depth else 0}.get(char, 0)
        if depth == 0 and char in ".:;" and text[index + 1: index + 2] == " ":
            end = index
            break
    clause = text if end is None else text[:end] + "."
    if len(clause) <= DESCRIPTION_CHARS:
        return clause
    return clause[: clause.rfind(" ", 0, DESCRIPTION_CHARS)].rstrip(" ,(") + "…"


def _without_session(schema: dict[str, Any]) -> dict[str, Any]:
    properties = {k: v for k, v in schema.get("properties", {}).items() if k != "session"}
    return {**schema, "properties": properties}


def _reply_turn(machine: TurnMachine, state: TurnState, *, said: str = "", for_client: bool = False) -> str:
    """The turn's outcome for Reply: how it ended, its batches, what a removal left unlinked, and the drafts of this
    turn not saved yet unless the context (`said`) already lists them. For a client (`for_client`), whose answer
    names the outcome, nothing when that is all there is to say."""
    lines = [f"## Outcome: {state.outcome}"]
    if state.plan is not None and not state.steps and not state.superseded_steps:
        lines.append(f"Nothing needed doing, so no step ran and nothing changed: {state.plan.goal}")
    if state.blocked_reason:
        lines.append(f"Stopped before finishing: {state.blocked_reason}")
    if state.replan_note:
        lines.append(f"Re-planned once: {state.replan_note}")
    batches = sorted({s.batch for s in [*state.superseded_steps, *state.steps] if s.batch}
                     | {c.batch for s in [*state.superseded_steps, *state.steps] for c in s.tool_calls if c.batch})
    for batch in batches:
        lines.append(f"Batch {batch}: {drafting.load_manifest(machine.session, batch).summary()}")
    unlinked = unlinked_items(machine.session, state)
    if unlinked:
        lines.append("Left pointing at a removed row (tell the user, e.g. a meal now without its recipe): "
                     + ", ".join(item.show() for item in unlinked))
    relinked = relinked_items(machine.session, state)
    if relinked:
        lines.append("Pointing at what the undo restored again (tell the user, e.g. a meal with its recipe back): "
                     + ", ".join(item.show() for item in relinked))
    pending = [d for d in drafting.list_drafts(machine.session) if d.turn_created == state.turn]
    listed = next((line for line in said.splitlines() if line.startswith("**Generated, not saved:**")), "")
    if pending and not all(f"{d.ref} ({d.label})" in listed for d in pending):
        lines.append("Generated this turn, not saved yet: " + ", ".join(f"{d.ref} ({d.label})" for d in pending))
    return "" if for_client and len(lines) == 1 else "\n".join(lines)
