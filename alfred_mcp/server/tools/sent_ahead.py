"""Role outputs sent ahead: the `then` of turn_start and turn_submit.

A client's model that knows the output shapes and its plan sends the next roles' outputs with the call, so a write turn
whose outcome it knows is 1 call (turn_start with Understand's, Think's and Reply's outputs) instead of one per role.
Each output in `then` is applied in order exactly as a turn_submit of it would be (`TurnMachine.submit`: the same
validation, checks, attempt counting and state enforcement), while the turn expects its role:

- the turn expects another role (Understand asked the user, a quick read did Think's work, a step waits for Act, the
  turn is done): that output and the rest are not applied, each named in `not_applied` with why, in plain words;
- an output is refused: the earlier ones stay applied, its refusal is `refused` (the message a turn_submit refusal
  gives, its attempt counted, its field under `then[i]`), and the rest are not applied.

Neither is an error: the answer is the normal one for the role now expected (the refused role again, so the client
sends it anew), its `next` built once, for that role only: the roles passed over were never sent anything. A refused
output changed nothing, so that `next` carries no context (`refused` says what to fix; turn_context sends it), but
for a reply: the calls made in the same request changed what Reply reads. The notices of every output applied are
kept, in order.

`then` holds up to 4 outputs (the contracts' maxItems): Understand, Think, Act and Reply is a whole turn. A reply
may only be last (it ends the turn). It is applied where the turn expects Reply, after the planned calls ran,
and judged by the reply check against what they did, as a submitted reply: a model writing it ahead claims only what
it knows will happen (a write, a constraint noted); a refused one leaves Reply expected, its `next` showing the results,
so the reply is written from them as it would have been anyway; its `next` sends again only what the fix needs (what
happened this turn). What the calls made in the same call revealed and the reply does not tell (a warning: a meal
already there, a dislike; what a removal left pointing at nothing; a draft an undo kept open; a note's fact or offer) is
appended in the state's sentences (`present.revealed_sentences`: said to a person; reply_source `model+state`) when each
warning has one, no call did a part less than asked, and the reply so told passes the check; a warning the reply already
tells in its own words (its day and thing named) is not told again. Else it is not applied, nor when all the reply check
finds is a fact it leaves out that those calls' results revealed (a part not done, a failure; no try is counted, unless
it also claims something untrue: that is refused), nor after a lookup (every call of the request only read): its
model could not have known what the notice shows, and a reply about rows it never read is not checked against them
(a lookup needs none: its client's model tells the user from the rows, `answered_from_rows`).
A refused `output` of turn_submit is its error, as before, and none of `then` is applied. A turn whose reply sent
ahead was refused or not applied asks for Reply again (`reply_held`), even where the state's own account would have
told it (`answered_by_state`): its model writes the reply again from the results.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import ValidationError

from alfred_mcp.agent.act_tools import only_reads
from alfred_mcp.agent.machine import TurnMachine, answered_from_rows
from alfred_mcp.agent.present import reply_facts, revealed_sentences, unworded_warnings
from alfred_mcp.errors import InputError, RoleOutputError
from alfred_mcp.kitchen.plurals import counted
from alfred_mcp.session.documents import AGENT_TURNS
from alfred_mcp.state.agent_turn import ToolCallRecord, TurnState
from alfred_mcp.state.reply_check import check_reply, left_out_of_results
from alfred_mcp.state.role_outputs import ReplyOutput
from alfred_mcp.state.shortfalls import Shortfall


def check_reply_last(tool: str, then: Sequence[dict[str, Any]], *, after_reply: bool = False) -> None:
    """Raises InputError (before anything is applied) when an output follows a reply, which ends the turn: in `then`,
    or, `after_reply`, after turn_submit's own `output` that is one."""
    if after_reply and then:
        raise InputError(f"{tool}: then must be empty after a reply (role=reply ends the turn); it has "
                         f"{counted(len(then), 'output')}. Nothing was applied.", field="then")
    for number, item in enumerate(then[:-1]):
        if item["role"] == "reply":
            following = ", ".join(f"then[{later}] {then[later]['role']}" for later in range(number + 1, len(then)))
            raise InputError(f"{tool}: then[{number}] is a reply, which ends the turn, so it can only come last ({following} "
                             "after it). Nothing was applied.", field=f"then[{number}].role")


def calls_made(state: TurnState) -> int:
    """How many tool calls the turn has made so far."""
    return len(_calls(state))


def _calls(state: TurnState) -> list[ToolCallRecord]:
    """The turn's tool calls in order, a re-plan's superseded steps' first."""
    return [call for step in [*state.superseded_steps, *state.steps] for call in step.tool_calls]


async def apply_ahead(machine: TurnMachine, state: TurnState, then: Sequence[dict[str, Any]], *,
                      seen: int = 0) -> tuple[TurnState, dict[str, Any]]:
    """Apply `then`'s outputs in order while the turn expects each one's role; the state they leave, and what the
    answer says of those not applied (`not_applied`) or refused (`refused`), when any was. A reply is not applied
    after a call that warned since the client's first `seen` calls: its model wrote the reply without knowing it."""
    said: dict[str, Any] = {}
    notices = [state.notice] if state.notice else []
    for number, item in enumerate(then):
        role = item["role"]
        if role != machine.expected_role(state):
            said["not_applied"] = [f"then[{later}] {then[later]['role']}: {_why_not(machine, state, then[later]['role'])}"
                                   for later in range(number, len(then))]
            break
        output, appended = _with_state_told(machine, state, item["output"], seen) if role == "reply" else (item["output"], False)
        if role == "reply" and not appended and (warned := _warned_since(state, seen)) \
                and not _warnings_told(machine, state, output, seen):
            said["not_applied"] = [f"then[{number}] reply: not applied: {', '.join(warned)} warned (see the notice), so the "
                                   "reply is written knowing it"]
            break
        if role == "reply" and (missed := _left_out_of_results(machine, state, output, seen)):
            said["not_applied"] = [f"then[{number}] reply: not applied: {'; '.join(missed)}. The results (see the notice) "
                                   "showed it after the reply was written, so it is written knowing them (no try counted)"]
            break
        if role == "reply" and _only_read_since(state, seen):
            said["not_applied"] = [f"then[{number}] reply: not applied: the turn only read; tell the user from the rows "
                                   "(see the notice)" + ("; no reply is needed" if answered_from_rows(machine.session, state) else "")]
            break
        try:
            state = await machine.submit(state, role, output)
            if appended:
                state.reply_source = "model+state"
                machine.work.session.write(AGENT_TURNS.at(state.turn), state)
        except RoleOutputError as refusal:
            field = refusal.fields.get("field")
            said["refused"] = {**refusal.to_dict(), "field": f"then[{number}].{field or 'output'}"}
            if number + 1 < len(then):
                said["not_applied"] = [f"then[{later}] {then[later]['role']}: not applied, since then[{number}] was refused"
                                       for later in range(number + 1, len(then))]
            break
        if state.notice:
            notices.append(state.notice)
    state.notice = "\n\n".join(notices) or None
    return state, said


def refused_before_reply(said: dict[str, Any]) -> bool:
    """Whether `apply_ahead` refused an output other than a reply (its role's context is as it was: not sent again)."""
    refused = said.get("refused")
    return isinstance(refused, dict) and refused.get("role") != "reply"


def reply_refused(said: dict[str, Any]) -> bool:
    """Whether `apply_ahead` refused a reply sent ahead (its answer sends again only what the fix needs)."""
    refused = said.get("refused")
    return isinstance(refused, dict) and refused.get("role") == "reply"


def reply_held(said: dict[str, Any]) -> bool:
    """Whether `apply_ahead` refused, or did not apply, a reply sent ahead: the turn asks for Reply again, so its model
    writes it from the results (the state's account does not end it)."""
    refused = said.get("refused")
    return (isinstance(refused, dict) and refused.get("role") == "reply") or any(
        " reply: " in line for line in said.get("not_applied") or ())


def _warned_since(state: TurnState, seen: int) -> list[str]:
    """The tools whose calls after the first `seen` of the turn warned (an allergen, a dislike, a meal already there)."""
    return sorted({call.tool for call in _calls(state)[seen:] if call.warnings})


def _with_state_told(machine: TurnMachine, state: TurnState, output: Any, seen: int) -> tuple[Any, bool]:
    """A reply sent ahead with the state's sentences appended for what the calls made since the client's first `seen`
    revealed and it does not tell (`present.revealed_sentences`: their warnings, what a removal left pointing at nothing,
    a draft an undo kept open, their notes' facts and offers): what its model could not foresee, said to a person. Applied
    (True) when every warning has a sentence, no call did a part less than asked (a shortfall: the model words it) and the
    reply so told passes the reply check; else the reply as sent (False: held back, or judged, as ever)."""
    calls = _calls(state)[seen:]
    if not calls or _short_since(state, seen) or unworded_warnings(machine.session, state, since=seen):
        return output, False
    try:
        reply = ReplyOutput.model_validate(output)
    except ValidationError:
        return output, False
    sentences = revealed_sentences(machine.session, state, reply.response, since=seen)
    if not sentences:
        return output, False
    told = " ".join([reply.response.rstrip(), *sentences])
    if check_reply(told, reply_facts(machine.session, state)):
        return output, False
    return {**reply.model_dump(exclude_none=True), "response": told}, True


def _warnings_told(machine: TurnMachine, state: TurnState, output: Any, seen: int) -> bool:
    """Whether the reply sent ahead already tells, in its own words, all the calls made since the client's first `seen`
    revealed (every warning: `warning_words.told_in`, the thing and the day named; a draft kept open), none being a part
    not done: nothing is left to append."""
    if _short_since(state, seen):
        return False
    try:
        reply = ReplyOutput.model_validate(output)
    except ValidationError:
        return False
    return not unworded_warnings(machine.session, state, since=seen) and \
        not revealed_sentences(machine.session, state, reply.response, since=seen)


def _short_since(state: TurnState, seen: int) -> bool:
    """Whether a call made since the client's first `seen` did a part less than asked (a shortfall, not a draft kept)."""
    return any(not Shortfall(**entry).is_draft for call in _calls(state)[seen:] for entry in call.shortfalls)


def _left_out_of_results(machine: TurnMachine, state: TurnState, output: Any, seen: int) -> list[str]:
    """What a reply sent ahead leaves out that only the results of the calls made since the client's first `seen`
    revealed (a removal's side effects, a part not done, a failure): its model could not have known it. Empty when the
    request made no call, or the reply also claims something untrue or leaves out what was known (then the reply check
    refuses it, as a submitted reply's), or its shape is wrong (refused too)."""
    if not _calls(state)[seen:]:
        return []
    try:
        reply = ReplyOutput.model_validate(output)
    except ValidationError:
        return []
    return left_out_of_results(reply.response, reply_facts(machine.session, state))


def _only_read_since(state: TurnState, seen: int) -> bool:
    """Whether the calls after the first `seen` of the turn are a lookup: at least one, and every one only reads."""
    return only_reads([call.tool for call in _calls(state)[seen:]])


def _why_not(machine: TurnMachine, state: TurnState, role: str) -> str:
    """One line: why the turn does not take `role`'s output now."""
    expected = machine.expected_role(state)
    if expected is None:
        return f"not applied: the turn is done ({_ENDED.get(state.outcome, state.outcome)})"
    if expected == "act":
        return "not applied: a step waits for Act (a call failed or warned, or Think gave the step none; see the notice)"
    if expected == "reply" and role == "think":
        return "not applied: Understand's quick read was the plan, so Reply is expected"
    return f"not applied: the turn expects {expected} now"


_ENDED = {
    "completed": "it is complete", "quick": "the quick read answered it", "clarify": "it asks the user a question",
    "propose": "it asks the user to confirm a proposal", "ask_user": "it asks the user a question",
    "blocked": "it ended blocked", "in_progress": "it ended",
}
"""How a turn ended, as the line of an output not applied says it."""
