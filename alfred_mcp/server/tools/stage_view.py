"""What a stage-by-stage client's model is sent: where the turn stands, and what the expected role needs.

Every answer of turn_start and turn_submit carries `next` (`next_role`), so a client that follows the
answers never needs turn_context, which re-fetches the same view (`role_view` with markers). What the
session's client was already sent, for any role, is left out (state/client_memo.py): instructions once, each
role's output shape once, context sections it has verbatim or that only grew (as their new lines), rows a
notice showed; and no heading is left without content (state/headings.py).
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Mapping
from typing import Any

from alfred_mcp.agent.machine import TurnMachine, answered_by_state, answered_from_rows
from alfred_mcp.agent.present import noted_sentence
from alfred_mcp.agent.prompting import Prompt, role_prompt
from alfred_mcp.operations.understanding import preferences_row
from alfred_mcp.session import UnitOfWork
from alfred_mcp.session.documents import CLIENT_MEMO
from alfred_mcp.state.agent_turn import StepState, TurnState
from alfred_mcp.state.client_memo import ClientMemo, elide_sections, row_ref, split_sections
from alfred_mcp.state.context import limits_line
from alfred_mcp.state.headings import without_empty_headings
from alfred_mcp.state.role_outputs import output_schema
from alfred_mcp.state.schema_text import schema_text


def status_view(machine: TurnMachine, state: TurnState, written: Collection[str] = ()) -> dict[str, Any]:
    """Where the turn stands, compactly: the stage, the Act step (not its whole record), the reply (unless it is one
    the client `written` in this call: its model has it), the last notice."""
    step = state.step if state.stage == "act" else None
    reply = None if state.reply is not None and state.reply.strip() in {text.strip() for text in written} else state.reply
    view = {
        "stage": state.stage, "expected_role": machine.expected_role(state), "outcome": state.outcome,
        "step": step_view(state, step) if step else None, "reply": reply, "notice": state.notice,
    }
    return {key: value for key, value in view.items() if value is not None or key == "expected_role"}


def replies_written(arguments: Mapping[str, Any]) -> list[str]:
    """The replies a turn_start or turn_submit call's arguments carry (its `output` and those in `then`): the client's
    model wrote them, so an answer does not echo them back."""
    outputs = [arguments] if "output" in arguments else []
    outputs += [item for item in arguments.get("then") or () if isinstance(item, Mapping)]
    return [item["output"]["response"] for item in outputs if item.get("role") == "reply" and isinstance(item.get("output"), Mapping)
            and isinstance(item["output"].get("response"), str)]


def step_view(state: TurnState, step: StepState) -> dict[str, Any]:
    return {"index": step.index, "number": step.index + 1, "of": len(state.steps), "step_type": step.step.step_type,
            "description": step.step.description}


async def role_view(
    work: UnitOfWork, machine: TurnMachine, state: TurnState, role: str, *, full: bool = False, markers: bool = False,
    notice: str | None = None, with_context: bool = True, only: Collection[str] = (),
) -> dict[str, Any]:
    """What `role`'s model needs that this session's client lacks: the instructions and output shapes
    it was not sent yet, and the context without what it has: rows a notice showed (this answer's `notice` or an
    earlier one), sections it has verbatim or as an earlier version (see `elide_sections`), and no heading left
    without content. Instructions already sent are left out, or (`markers`, for turn_context) replaced by a line
    saying when they were sent. A role's first answer in a session carries its output as a typed signature
    (`output_shapes`, a third of the JSON Schema's size; a turn that ends early never pays for the roles it did not
    reach); turn_context gives the role's JSON Schema
    (`output_schema`) or the turn it was sent. Not `with_context` (the role's output sent ahead was refused, which changed
    nothing): the context is not sent, a line says so; `only` (headings): only those sections of it are. The memo records
    exactly what this answer sends."""
    prompt = await role_prompt(machine, state, role, for_client=True, full=full)
    memo = (work.session.read(CLIENT_MEMO) or ClientMemo()).pruned(state.turn)
    parts = []
    for key, text in instructions_sent(prompt):
        sent = _sent_before(memo, f"instructions:{key}", text, state.turn, full)
        if sent is None:
            parts.append(text)
        elif markers:
            since = "in tools/list (turn_start's input schema)" if sent == IN_TOOLS_LIST else f"unchanged since turn {sent}"
            parts.append(f"(the {key} instructions: {since}; full: true sends them again)")
    view: dict[str, Any] = {"role": role}
    if markers and role == "act" and state.step is not None:  # the step's place and goal, as turn_start and turn_submit
        view["step"] = step_view(state, state.step)          # name it (the context leaves them to the answer)
    if parts:
        view["instructions"] = "\n\n".join(parts)
    context, held = (prompt.context, frozenset[str]()) if full else _without_rows_of(notice, memo, state.turn, prompt.context)
    if only:
        context = "".join(section for section in split_sections(context) if section.partition("\n")[0].strip() in only)
    sent_to = f"act (step {state.step.index + 1})" if role == "act" and state.step is not None else role
    view["context"] = (elide_sections(without_empty_headings(context), memo, state.turn, full=full, role=sent_to, held=held)
                       if with_context else NOT_RESENT)
    if (limits := await _limits_unsent(work, state, role, view["context"])) is not None:
        view["limits"] = limits
    memo.remember_rows((notice or "").splitlines()[1:], state.turn)
    schemas = {role: output_schema(role)}
    sent_in = {r: _sent_before(memo, f"schema:{r}", schema_digested(schema), state.turn, full) for r, schema in schemas.items()}
    if markers:
        view.update({"output_schema": schemas[role]} if sent_in[role] is None else {"output_schema_sent_turn": sent_in[role]})
    elif any(turn is None for turn in sent_in.values()):
        view["output_shapes"] = {r: schema_text(schema) for r, schema in schemas.items() if sent_in[r] is None}
    work.session.write(CLIENT_MEMO, memo)
    return view


async def _limits_unsent(work: UnitOfWork, state: TurnState, role: str, context: str) -> str | None:
    """For a generate step whose context does not carry the constraints section whole (sent before, or cut): the
    profile's allergies, dislikes and diet in one line, so what the model drafts next respects them."""
    if role != "act" or state.step is None or state.step.step.step_type != "generate" or CONSTRAINTS_HEADING in context:
        return None
    return limits_line(await preferences_row(work.store, work.user_id))


CONSTRAINTS_HEADING = "## Constraints\n"
"""The constraints section's heading followed by its lines (an elided section is named on one line, not headed)."""


NOT_RESENT = "(not sent: the refused output changed nothing; fix what `refused` names and send it again; turn_context sends it)"
"""The context of an answer whose output sent ahead for the expected role was refused."""


SEND_AHEAD = {
    "understand": "Knowing the output shapes, send this in turn_start's `then`, Think's after it if you know the plan: no "
                  "round trip per role.",
    "think": "Need the kitchen's facts before you can propose or ask? Plan only read steps: the answer ends `answered` "
             "with the rows; propose from them in your own words.",
    "reply": "When you know the outcome before the calls run (a write, a constraint noted), send this last in `then` with "
             "the turn's other outputs: the turn is 1 call.",
}
"""What a stage client's model is told, with a role's instructions, of sending its output ahead (sent_ahead.py); the
bundled loop's model, which calls no tool, is not."""


IN_TOOLS_LIST = 0
"""The turn the memo gives what a stage listing's tools/list carried (server/tools/stage_listing.py): before any turn."""


def instructions_sent(prompt: Prompt) -> list[tuple[str, str]]:
    """The instructions an answer sends for `prompt`, by template: each with what SEND_AHEAD adds to it."""
    return [(key, f"{text}\n\n{SEND_AHEAD[key]}" if key in SEND_AHEAD else text) for key, text in prompt.instruction_parts()]


def schema_digested(schema: dict[str, Any]) -> str:
    """The text of a role's output schema the memo keeps the digest of (`schema:<role>`), whatever form it was sent in."""
    return json.dumps(schema, sort_keys=True)


def _sent_before(memo: ClientMemo, key: str, text: str, turn: int, full: bool) -> int | None:
    """The turn the client was sent `text` unchanged (None: it goes now, also when `full`); remembered."""
    sent = None if full else memo.seen(key, text)
    memo.remember(key, text, turn if sent is None else sent)
    return sent


async def answer(work: UnitOfWork, machine: TurnMachine, state: TurnState, written: Collection[str] = (), *,
                 refused: bool = False, reply_held: bool = False, reply_refused: bool = False) -> dict[str, Any]:
    """Where the turn stands and, while a role is expected, what it needs (`next`): the client follows the
    answers and never needs turn_context. A lookup answered from its rows (`answered_from_rows`) ends as a table's quick
    read does, `stage: answered` with no expected role, and gets `answered` instead of Reply's `next`: its client's model tells the user from the rows (a plan
    that read before proposing proposes from them), and its `answered` text says what it noted or dropped; no reply is needed. So does a turn the state's own account tells
    whole (`answered_by_state`: a write, a constraint noted, drafts not saved), the account in `reply`, unless the call
    carried a reply that was `reply_held` (refused or not applied: its model writes it again from the results). Rows a notice showed (this one or an earlier one) are not repeated, nor the
    reply the client `written` in this call (only one the state changed is sent), nor, when an output of the role now
    expected was `refused`, its context (`role_view`); a reply sent ahead and `reply_refused` gets only what its fix needs,
    what happened this turn (the refusal names what to fix, the notice shows the results)."""
    status = status_view(machine, state, written)
    role = machine.expected_role(state)
    if role is None:
        return {**status, "stage": "answered", "answered": ANSWERED_WORDED} if state.outcome == "quick" and state.owner is None else status
    if answered_from_rows(work.session, state):
        remember_notice(work, state.turn, status.get("notice"))
        noted = noted_sentence(work.session, state)
        return {**status, "stage": "answered", "expected_role": None, "answered": f"{ANSWERED} {noted}" if noted else ANSWERED}
    if not reply_held and (account := answered_by_state(work.session, state)) is not None:
        remember_notice(work, state.turn, status.get("notice"))
        return {**status, "stage": "answered", "expected_role": None, "reply": account, "answered": ANSWERED_BY_STATE}
    only = REPLY_FIX_NEEDS if reply_refused and role == "reply" else ()
    return {**status, "next": await role_view(work, machine, state, role, notice=status.get("notice"), with_context=not refused,
                                              only=only)}


REPLY_FIX_NEEDS = ("## What happened this turn",)
"""The sections of Reply's context a reply sent ahead and refused is sent again: its refusal names what to fix, and the
model wrote it knowing the rest."""


def remember_notice(work: UnitOfWork, turn: int, notice: str | None) -> None:
    """The rows `notice` showed the client, remembered (an answer that sends no role view): no later context repeats them."""
    memo = (work.session.read(CLIENT_MEMO) or ClientMemo()).pruned(turn)
    memo.remember_rows((notice or "").splitlines()[1:], turn)
    work.session.write(CLIENT_MEMO, memo)


ANSWERED = "from the rows (notice): tell the user, or propose, from them; no turn_submit needed (a question to the user: send it as reply)"
"""What the answer of a lookup answered from its rows says instead of Reply's `next` (a reply submitted anyway is still
accepted, and checked: one that asks the user something is kept, so the next turn knows what a "yes" answers)."""
ANSWERED_BY_STATE = ("by the state: `reply` tells what was done; tell the user this (and what the results showed); no "
                     "turn_submit needed (a reply of your own is still accepted and checked)")
"""What the answer of a turn its state's own account tells whole says instead of Reply's `next`."""
ANSWERED_WORDED = "from the rows: `reply` words them for the user; no turn_submit needed"
"""What the answer of a table's quick read says: the state worded its rows. A lookup ends one way for a stage client
(`stage: answered`, no expected role), whether a tool or a table answered it."""


def _without_rows_of(notice: str | None, memo: ClientMemo, turn: int, context: str) -> tuple[str, frozenset[str]]:
    """`context` without what repeats rows the client was shown in a notice: a step's result line that is a line of
    this answer's notice (the tool named, the rest pointed at); a card's row lines (each run replaced
    by one pointer after the card's head, which names the notice); and the entity lines of the refs whose rows a
    notice of this turn showed, in any form (the notice says more), apart: the client holds them (`elide_sections`
    does not send them, now or in a later turn while they are unchanged)."""
    rows = {line.strip() for line in (notice or "").splitlines()[1:] if line.strip()}
    heads = {line.strip() for line in (notice or "").splitlines() if line.strip() and not line.startswith((" ", "- "))}
    refs = {ref for row in rows if (ref := row_ref(row)) is not None}
    out: list[str] = []
    held: set[str] = set()
    for line in context.splitlines():
        done = _RESULT_LINE.match(line)
        if done is not None and f"{done.group(2)}: {done.group(3)}" in heads:  # a step's result line that is the notice's own line
            out.append(f"{done.group(1)}{done.group(2)}: {_AS_IN_NOTICE}")
            continue
        entity = _ENTITY_REF.match(line)
        if entity is not None and (entity.group(1) in refs or memo.shown_in_notice(entity.group(1), turn)):
            held.add(line.strip())
            out.append(line)
            continue
        if not line.strip() or (line.strip() not in rows and not memo.row_sent(line)):
            out.append(line)
            continue
        if not out or out[-1].strip() != _ROWS_IN_NOTICE:
            out.append(line[: len(line) - len(line.lstrip())] + _ROWS_IN_NOTICE)
    return "\n".join(out), frozenset(held)


_ENTITY_REF = re.compile(r"^- ([a-z]+_\d+): ")
_RESULT_LINE = re.compile(r"^(- ✓ )([a-z_]+): (.+)$")
_AS_IN_NOTICE = "as in the notice"
_ROWS_IN_NOTICE = "(rows: as in the notice)"
