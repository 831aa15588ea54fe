"""The turn state machine: Understand -> Think -> Act (per step) -> Reply -> Summarize.

Every driver (the `chat` tool, the stage tools, the headless CLI) goes through `TurnMachine`:
it says which role is expected, validates that role's output against its contract, and applies
it deterministically. The state enforces what the seeds promise: a step cannot complete while
its batch has pending items, quick mode runs only above its confidence threshold and never
writes, a tool error is shown to Act once and then blocks the step (a call refused before it ran
does not count), Act can send a broken plan back to Think once, a reply that contradicts the
state is refused (never amended) and, after the last refusal, replaced by the state's own, and
nothing is applied from an invalid output.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from datetime import date
from typing import Any, Protocol

from pydantic import BaseModel, ValidationError

from alfred_mcp.agent import act_tools
from alfred_mcp.agent.account_words import result_told
from alfred_mcp.agent.present import (
    absent_calls,
    noted_sentence,
    removal_effects,
    reply_facts,
    state_reply,
    turn_told,
    unworded_warnings,
)
from alfred_mcp.agent.quick_answer import quick_answer, quick_refs
from alfred_mcp.agent.summarize import summarize_turn
from alfred_mcp.agent.understanding import apply_understanding, record_conversation, record_plan
from alfred_mcp.contracts import load_contracts
from alfred_mcp.errors import AlfredError, BatchIncompleteError, OutOfOrderError, RoleOutputError, UnknownRefError
from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import get_table
from alfred_mcp.operations import drafting, history
from alfred_mcp.operations.windows import config_of
from alfred_mcp.session import Session, UnitOfWork
from alfred_mcp.session.documents import AGENT_CURRENT_TURN, AGENT_TURNS
from alfred_mcp.state.agent_turn import StepState, ToolCallRecord, TurnOwner, TurnState
from alfred_mcp.state.batch import BatchManifest
from alfred_mcp.state.curation import check_curation_refs
from alfred_mcp.state.note_facts import untold_notes
from alfred_mcp.state.refs import name_refs, refs_in
from alfred_mcp.state.reply_check import CONSTRAINTS_TABLE, check_reply
from alfred_mcp.state.role_outputs import (
    ROLE_OUTPUTS,
    ActOutput,
    AskUserDecision,
    BlockedDecision,
    ReplyOutput,
    StepCall,
    StepCompleteDecision,
    ThinkOutput,
    ThinkStep,
    ToolCallDecision,
    UnderstandOutput,
)
from alfred_mcp.state.shortfalls import shortfalls
from alfred_mcp.state.translate import translate_where

logger = logging.getLogger(__name__)

MAX_INVALID_OUTPUTS = 3
"""Attempts per role output: an invalid one is retried with its errors, then the turn is blocked."""
MAX_DECISIONS_PER_STEP = 8
MAX_TOOL_ERRORS = 2
"""A tool error is shown to Act once to correct; the second in a row blocks the step."""
MAX_REPLANS = 1
"""Act's `blocked` with `plan_invalid` sends the turn back to Think this many times; then it ends blocked."""

class ToolRunner(Protocol):
    """Runs a tool as an MCP call would (contract-checked arguments, the same handler, the turn's session),
    within the host's controls. The driver supplies it: the agent never sees the server or its handler table."""

    @property
    def served(self) -> frozenset[str]:
        """The tools the host serves (--read-only, --tools): no step lists a tool outside them."""
        ...

    @property
    def listed(self) -> frozenset[str]:
        """The served tools a client's tools/list shows (by default not the extras): the others Act names with their arguments."""
        ...

    async def __call__(self, tool: str, arguments: dict[str, Any], /) -> dict[str, Any]: ...


NOTHING_TO_DO = {"nothing_to_undo": "to undo"}
"""Refusals' `reason`s that say there was nothing to do (not that the model's arguments were wrong), by what was not there."""


def _absent(error: AlfredError) -> dict[str, str]:
    """What a refusal found not there: {name, table} of the row the person named (`absent_from`), or {nothing} for a call
    with nothing to do (`NOTHING_TO_DO`); else empty (the model's arguments, which the model corrects)."""
    table, name, reason = error.fields.get("absent_from"), error.fields.get("value"), error.fields.get("reason")
    if isinstance(table, str) and isinstance(name, str):
        return {"name": name, "table": table}
    return {"nothing": NOTHING_TO_DO[reason]} if isinstance(reason, str) and reason in NOTHING_TO_DO else {}


def current_turn(session: Session) -> TurnState | None:
    """The session's latest agent turn (done or not), or None before the first."""
    turn = session.read(AGENT_CURRENT_TURN)
    return session.read(AGENT_TURNS.at(turn)) if turn is not None else None


def answered_from_rows(session: Session, state: TurnState) -> bool:
    """A stage-driven turn at Reply that only looked up: every call it made read (a quick read, or a plan of read and
    analyze steps) and none failed or warned, and it wrote nothing a reply must honor (the constraints it noted or
    dropped are its client model's own words, and the answer names them: `noted_sentence`). Its client's model answers,
    or proposes, from the rows it was shown, so no reply is needed; one submitted is still accepted (and checked). The
    bundled loop (a turn with an owner) runs Reply as ever."""
    if state.stage != "reply" or state.owner is not None:
        return False
    steps = [*state.superseded_steps, *state.steps]
    calls = [call for step in steps for call in step.tool_calls]
    if any(not call.ok or call.warnings or call.shortfalls for call in calls) or not act_tools.only_reads([c.tool for c in calls]):
        return False
    if any(step.step.step_type not in ("read", "analyze") for step in steps):
        return False
    facts = reply_facts(session, state)
    things = [f for f in facts.things if f.table != CONSTRAINTS_TABLE]
    return not (things or facts.failed or facts.unsaved or facts.stopped or facts.unlinked or facts.relinked or facts.partial)


def answered_by_state(session: Session, state: TurnState) -> str | None:
    """The state's own account of a stage-driven turn at Reply (`state_reply`) when it tells the user all a reply must:
    the turn wrote, removed, noted or drafted something, or found nothing to do (a list with all already there, a row
    the person named not there: its step stopped, nothing changed), no call failed otherwise or left a note no fact tells
    (`note_facts`: the account tells facts, and offers last), each warning of its calls has a sentence for a person
    (`warning_words`: the account tells it),
    not only read (a lookup's answer is its rows: `answered_from_rows`), and the account, names and no refs, passes the
    very reply check a model's reply gets. Its client's model tells the user from it, so no reply is needed; one
    submitted is still accepted (and checked). None: the turn asks for Reply. The bundled loop (an owner) runs Reply."""
    if state.stage != "reply" or state.owner is not None or answered_from_rows(session, state):
        return None
    calls = [call for step in [*state.superseded_steps, *state.steps] for call in step.tool_calls]
    absent = absent_calls(state)
    if any((not call.ok and not (call.absent and call.absent in absent)) or call.notes for call in calls) or \
            unworded_warnings(session, state) or (calls and act_tools.only_reads([c.tool for c in calls])):
        return None
    facts, told = reply_facts(session, state), turn_told(session, state)
    if facts.stopped or not (facts.things or facts.failed or facts.unsaved or facts.unlinked or facts.relinked or facts.partial
                             or told.nothing_added or told.note_facts or absent):
        return None  # nothing written to tell (a skip, a write that found nothing to change): the model words it
    account = state_reply(session, state)
    return None if refs_in(account) or check_reply(account, facts) else account


def close_answered(work: UnitOfWork) -> TurnState | None:
    """Close the current turn when it was answered and no reply came: from its rows (`answered_from_rows`: its reply
    what the user was shown, the rows' labels, so "the second one" counts in those rows) or by the state's account
    (`answered_by_state`: its reply that account). It is done, its reply recorded in the conversation and its ledger,
    so the next turn reads it as answered. The closed turn (None: nothing to close)."""
    session = work.session
    state = current_turn(session)
    if state is None:
        return None
    if answered_from_rows(session, state):
        state.reply, state.reply_source = " ".join(filter(None, (shown_rows(session, state), noted_sentence(session, state)))), "rows"
    elif (account := answered_by_state(session, state)) is not None:
        state.reply, state.reply_source = account, "state"
    else:
        return None
    state.stage = "done"
    state.ledger = summarize_turn(session, state)
    record_conversation(session, state, config_of(work))
    session.write(AGENT_TURNS.at(state.turn), state)
    return state


def is_answered(session: Session, state: TurnState) -> bool:
    """Whether a stage-driven turn at Reply ends without one: from its rows, or by the state's account."""
    return answered_from_rows(session, state) or answered_by_state(session, state) is not None


SHOWN_LABELS = 12
"""How many rows' names the conversation keeps of a turn answered from its rows (the rest counted)."""


def shown_rows(session: Session, state: TurnState) -> str:
    """What a turn answered from its rows showed the user, by name in the order shown ('Shown: Lemon Cod, Salmon Tacos.'),
    else what its calls found."""
    calls = [call for step in [*state.superseded_steps, *state.steps] for call in step.tool_calls]
    names = [_label_of(session, ref) for ref in dict.fromkeys(ref for call in calls for ref in call.refs)]
    if not names:  # no rows by ref (a table's description, the constraints, nothing found): what each call found
        return "Shown: " + "; ".join(call.summary for call in calls) + "."
    more = len(names) - SHOWN_LABELS
    return "Shown: " + ", ".join(names[:SHOWN_LABELS]) + (f" and {more} more." if more > 0 else ".")


def _label_of(session: Session, ref: str) -> str:
    """A ref's label as a person reads it ('Fri Mar 6 dinner'), else the ref."""
    entry = session.registry.get(ref)
    return entry.label.replace(" [", " ").replace("]", "") if entry is not None and entry.label else ref


def check_no_open_turn(session: Session) -> None:
    """Raises OutOfOrderError while an agent turn is open: it owns the session's turn counter until it is done
    (close a turn answered from its rows first: `close_answered`)."""
    current = current_turn(session)
    if current is not None and current.stage != "done":
        raise OutOfOrderError(
            f"Turn {current.turn} is still at the {current.stage} stage; finish it (or abandon it with turn_abandon) first.",
            expected=current.stage,
        )


class TurnMachine:
    """One session's turns, driven one validated role output at a time."""

    def __init__(self, work: UnitOfWork, run_tool: ToolRunner) -> None:
        self.work = work
        self.session = work.session
        self._run_tool = run_tool

    # -- reading and starting ---------------------------------------------------------------

    def current(self) -> TurnState | None:
        return current_turn(self.session)

    def step_tools(self, step_type: str) -> tuple[str, ...]:
        """The tools a step of this type may call here: its classes of tools, within what the host serves."""
        return act_tools.tools_for_step(step_type, self._run_tool.served)

    def listed_tools(self) -> frozenset[str]:
        """The tools a client's tools/list shows, so a prompt can give the arguments of the others."""
        return self._run_tool.listed

    def load(self, turn: int) -> TurnState | None:
        return self.session.read(AGENT_TURNS.at(turn))

    async def begin(self, message: str, *, owner: TurnOwner | None = None) -> TurnState:
        """Open the next turn for `message` (the session's turn counter moves on); `owner`: the loop running it."""
        close_answered(self.work)
        check_no_open_turn(self.session)
        history.begin_turn(self.session, message, config_of(self.work))
        state = TurnState(turn=self.session.turn, message=message, owner=owner)
        self._save(state)
        return state

    def abandon(self, state: TurnState, reason: str, *, said: str, hint: str = "") -> TurnState:
        """Stop a turn where it stands: blocked (`reason` on record), the state's account as its reply; saved."""
        state = self._block(state, reason, said=said, hint=hint)
        self._save(state)
        return state

    async def end(self, state: TurnState, reason: str) -> TurnState:
        """End a turn now (blocked, the state's account as its reply), so the next one can begin.

        It cannot fail on a turn in progress: if the turn's ledger or narrative cannot be built
        from what it recorded, the turn still ends (without them) and the failure is logged.
        """
        state = self._block(state, reason, said="it was stopped before it finished", hint="ask again when you are ready")
        self._store(state)
        return state

    async def abandon_current(self, reason: str) -> TurnState:
        """End the current turn, even one whose stored record, or the pointer to it, can no longer be read back
        (the record is replaced; a broken pointer falls back to the session's turn).

        Raises:
            OutOfOrderError: no turn was started in this session.
        """
        try:
            state = self.current()
        except (ValueError, TypeError):  # pydantic's ValidationError is a ValueError; a broken pointer raises either
            logger.exception("the current turn's record could not be read; it is replaced by a stopped turn")
            try:
                turn = self.session.read(AGENT_CURRENT_TURN)
            except (ValueError, TypeError):
                turn = None
            state = TurnState(turn=turn if turn is not None else self.session.turn, message="")
        if state is None:
            raise OutOfOrderError("No turn has been started in this session; call turn_start with the user's message.")
        answered = close_answered(self.work) if is_answered(self.session, state) else None
        return answered or await self.end(state, reason)

    def expected_role(self, state: TurnState) -> str | None:
        """The role whose output the turn waits for, or None when it is done."""
        return None if state.stage == "done" else state.stage

    # -- submitting ---------------------------------------------------------------------------

    async def submit(self, state: TurnState, role: str, output: Mapping[str, Any] | BaseModel) -> TurnState:
        """Validate `output` as `role`'s contract and apply it.

        Raises:
            OutOfOrderError: another role is expected now.
            RoleOutputError: the output breaks its contract, or a reply contradicts the state
                (nothing applied); after MAX_INVALID_OUTPUTS of them the turn ends blocked, or,
                for Reply, with the state's own reply (then nothing is raised).
        """
        expected = self.expected_role(state)
        if role != expected:
            raise OutOfOrderError(
                f"Turn {state.turn} expects {expected or 'nothing (it is done)'} now, not {role}.", expected=expected, got=role
            )
        state.notice = None
        try:
            parsed = self._validate(role, output)
            if isinstance(parsed, ReplyOutput):
                self._check_reply(state, parsed)
        except (ValidationError, RoleOutputError) as error:
            return await self._refuse(state, role, error)
        state.model_calls[role] = state.model_calls.get(role, 0) + 1
        apply: dict[str, Callable[[TurnState, Any], Awaitable[TurnState]]] = {
            "understand": self._apply_understand, "think": self._apply_think, "act": self._apply_act, "reply": self._apply_reply,
        }
        state = await apply[role](state, parsed)
        self._save(state)
        return state

    def _validate(self, role: str, output: Mapping[str, Any] | BaseModel) -> Any:
        data = output.model_dump() if isinstance(output, BaseModel) else output
        parsed = ROLE_OUTPUTS[role].model_validate(data)
        self._check_refs(role, parsed)
        return parsed

    async def _refuse(self, state: TurnState, role: str, error: Exception) -> TurnState:
        """Count a refused output; the last allowed one ends the turn (blocked, or with the state's own reply)."""
        count = state.invalid_outputs.get(role, 0) + 1
        state.invalid_outputs[role] = count
        state.model_calls[role] = state.model_calls.get(role, 0) + 1
        message = _validation_message(role, error)
        state.errors.append({"role": role, "code": RoleOutputError.code, "message": message})
        if count >= MAX_INVALID_OUTPUTS and role == "reply":
            state.notice = f"The reply was refused {count} times ({message}); the state's own reply was used."
            self._save(self._speak(state))
            return state
        if count >= MAX_INVALID_OUTPUTS:
            self._save(self._block(state, f"{role} output was invalid {count} times: {message}", said=model_gave_up(role, count),
                                   hint=MODEL_HINT))
            message += " That was the last try: the turn ended blocked, and the state told the user (turn_status shows its reply)."
        else:
            self._save(state)
        raise RoleOutputError(message, role=role, attempt=count, attempts_left=max(MAX_INVALID_OUTPUTS - count, 0),
                              field=_invalid_field(error))

    async def reply_without_model(self, state: TurnState, reason: str, *, said: str | None = None, hint: str = "") -> TurnState:
        """The model cannot carry the turn further: it ends blocked (`reason` on record; an earlier cause kept) with
        the state's own account; `said`: the plain words for what went wrong (default `reason`), `hint`: what to try."""
        if state.stage != "done":
            self._block(state, state.blocked_reason or reason, said=said or reason, hint=hint)
        self._save(state)
        return state

    def _check_reply(self, state: TurnState, reply: ReplyOutput) -> None:
        """Raises RoleOutputError naming each claim the state does not back and each fact left out."""
        problems = check_reply(reply.response, reply_facts(self.session, state))
        if problems:
            raise RoleOutputError(
                "The reply was refused: " + "; ".join(problems) + ". Answer again with a reply that fixes exactly this, "
                "in your own words for the user (no refs unless the user must pick one, no internal reasons)."
            )

    def _check_refs(self, role: str, parsed: Any) -> None:
        """Refs a role names must be refs the session knows (a model never invents them)."""
        if isinstance(parsed, UnderstandOutput):
            self._check_quick_tool(parsed)
            for ref in parsed.referenced_refs:
                if ref not in self.session.registry:
                    raise RoleOutputError(f"referenced_refs: '{ref}' is not a ref of this session; use refs from the entity context.",
                                          field="output.referenced_refs")
            try:
                check_curation_refs(parsed.curation, self.session.registry)
            except UnknownRefError as error:
                raise RoleOutputError(error.message, field=f"output.{error.fields['field']}") from None
        if isinstance(parsed, ThinkOutput):
            for number, step in enumerate(parsed.steps):
                if step.call is not None:
                    self._check_planned_call(step.call, step.step_type, f"output.steps[{number}].call")
                drafted_before = any(earlier.step_type == "generate" for earlier in parsed.steps[:number])
                for entry in step.batch:
                    if entry.ref not in self.session.registry and not (drafted_before and entry.ref.startswith("gen_")):
                        raise RoleOutputError(
                            f"steps: batch item '{entry.ref}' is not a ref of this session (a gen_ ref is named only after a "
                            "generate step of the plan that makes it).", field=f"output.steps[{number}].batch")

    def _check_quick_tool(self, output: UnderstandOutput) -> None:
        """A quick read's tool must be a read tool this host serves, with arguments its contract accepts."""
        read = output.quick_read if output.quick_mode else None
        if read is not None and read.tool is not None:
            self._check_planned_call(StepCall(tool=read.tool, arguments=read.arguments), "read", "output.quick_read")
        elif read is not None:  # a table's lookup runs as db_read: its fields are db_read's arguments
            arguments = {"table": read.table, "filters": read.filters, "order_by": read.order_by, "limit": read.limit}
            self._check_planned_call(StepCall(tool="db_read", arguments=arguments), "read", "output.quick_read", as_fields=True)

    def _check_planned_call(self, call: StepCall, step_type: str, where: str, *, as_fields: bool = False) -> None:
        """Raises RoleOutputError (nothing runs) unless a step of this type may call the tool here, with arguments its
        contract accepts and the tool's own checks pass (table, columns, filter ops); the field named is the tool or
        the argument at fault, by its path (`as_fields`: the arguments are the output's own fields, a table quick read)."""
        try:
            act_tools.check_tool_allowed(call.tool, step_type, self._run_tool.served)
            act_tools.check_arguments(call.tool, call.arguments)
        except AlfredError as refusal:
            named = refusal.fields.get("field")
            field = "tool" if named == "tool" else named if as_fields and named else f"arguments.{named}" if named else "arguments"
            path = f"{where}.{field}"
            valid = refusal.fields.get("valid")
            allowed = f" Allowed: {', '.join(map(str, valid))}." if isinstance(valid, list) and valid and ", ".join(map(str, valid)) not in refusal.message else ""
            raise RoleOutputError(f"{path.removeprefix('output.')}: {refusal.message}{allowed}", field=path) from None

    # -- understand ---------------------------------------------------------------------------

    async def _apply_understand(self, state: TurnState, output: UnderstandOutput) -> TurnState:
        state.understanding = output
        await apply_understanding(self.work, output, user_message=state.message)
        if output.needs_clarification or output.needs_disambiguation:
            questions = output.clarification_questions or [output.disambiguation_question or ""]
            return self._ask(state, "clarify", " ".join(q for q in questions if q))
        if output.nothing_to_do:
            return self._nothing_to_plan(state, output)
        if output.quick_mode and output.quick_read is not None:
            threshold = self.work.turns.quick_mode_threshold
            if (output.quick_mode_confidence or 0) >= threshold:
                return await self._run_quick_read(state, output)
            state.notice = (f"Quick mode declined: confidence {output.quick_mode_confidence} is below {threshold}; "
                            "the turn is planned instead.")
        state.stage = "think"
        return state

    def _nothing_to_plan(self, state: TurnState, output: UnderstandOutput) -> TurnState:
        """Understand recorded all there was (constraints, curation): an empty plan, as Think's would be, and Reply next;
        with no fact of a change this turn, a reply claiming one is refused."""
        state.plan = ThinkOutput(goal=output.processed_message or state.message[:300], decision="plan_direct", steps=[])
        state.steps, state.current_step = [], 0
        state.stage, state.outcome = "reply", "completed"
        record_plan(self.session, state)
        return state

    async def _run_quick_read(self, state: TurnState, output: UnderstandOutput) -> TurnState:
        """Quick mode: one read-only lookup run by the system. A table's rows are answered without another model
        call; a read tool's result goes to Reply, as a one-step read plan run at once (no Think, no Act)."""
        read = output.quick_read
        assert read is not None
        if read.tool is not None:
            return await self._run_quick_tool(state, output, read.tool, read.arguments)
        arguments = {"table": read.table, "filters": read.filters, "order_by": read.order_by, "limit": read.limit}
        try:
            result = await self.run_tool("db_read", arguments)
        except AlfredError as error:
            return self._block(state, f"The lookup failed: {error.message}", said="the lookup failed", hint="ask again in other words")
        state.quick_result = result
        state.outcome = "quick"
        state.reply = quick_answer(result, filters=read.filters, today=date.today())
        state.notice = quick_refs(result)
        return await self._finish(state)

    async def _run_quick_tool(self, state: TurnState, output: UnderstandOutput, tool: str, arguments: dict[str, Any]) -> TurnState:
        """The read tool runs as the one read step of a plan: on success the step completes and Reply is expected;
        a failure leaves the step open for Act to correct, as any step's would."""
        step = ThinkStep(description=f"{tool} (quick mode)", step_type="read", subdomain=act_tools.subdomain_of(tool, arguments),
                         call=StepCall(tool=tool, arguments=arguments))
        state.plan = ThinkOutput(goal=output.processed_message or state.message[:300], decision="plan_direct", steps=[step])
        state.steps, state.current_step = [StepState(index=0, step=step)], 0
        state.stage = "act"
        self._start_step(state)
        record_plan(self.session, state)
        return await self._run_planned_calls(state)

    async def _run_planned_calls(self, state: TurnState) -> TurnState:
        """Steps whose plan carries their call run it at once, in order, each completing on success (as Act's call with
        complete_step); the first that fails or cannot complete yet stays open for Act, and a call that warns (an
        allergen, a dislike, a meal already planned there) stops the chain before the next step's call, so the
        model can ask first. The notices of all are kept, after the one already given (the call Act just made)."""
        notices: list[str] = [state.notice] if state.notice else []
        while state.stage == "act" and (step := state.step) is not None and step.step.call is not None and not step.tool_calls:
            call = step.step.call
            state = await self._act_tool_call(state, step, ToolCallDecision(action="tool_call", tool=call.tool, arguments=call.arguments,
                                                                            complete_step=True))
            notices.append(state.notice or "")
            if step.status != "completed" or (step.tool_calls and step.tool_calls[-1].warnings):
                break
        if notices:
            state.notice = "\n\n".join(notice for notice in notices if notice)
        return state

    # -- think --------------------------------------------------------------------------------

    async def _apply_think(self, state: TurnState, plan: ThinkOutput) -> TurnState:
        state.plan = plan
        state.current_step = 0
        if plan.decision == "clarify":
            return self._ask(state, "clarify", " ".join(plan.clarification_questions))
        if plan.decision == "propose":
            return self._ask(state, "propose", plan.proposal_message or "")
        state.steps = [StepState(index=i, step=step) for i, step in enumerate(plan.steps)]
        if not state.steps:  # nothing to do (a constraint noted, a request already true): Reply answers, no change made
            state.stage = "reply"
            state.outcome = "completed"
        else:
            state.stage = "act"
            self._start_step(state)
        record_plan(self.session, state)
        return await self._run_planned_calls(state)

    def _start_step(self, state: TurnState) -> None:
        step = state.step
        if step is None or step.status != "pending":
            return
        step.status = "running"
        named = [(self._now_named(e.ref), e.label) for e in step.step.batch]
        missing = [ref for (ref, _), e in zip(named, step.step.batch, strict=True) if ref not in self.session.registry]
        if missing:
            self._block(state, f"Step {step.index + 1} names {', '.join(missing)} in its batch, which no earlier step made.",
                        said=f"{_step_of(state, step)} was about something the plan did not make", hint="ask again")
            return
        items = named or self._generated_for(state, step)
        if items:
            action = {"write": "saved", "read": "read"}.get(step.step.step_type, "done")
            manifest = BatchManifest.new(drafting.next_batch_ref(self.session), step.step.subdomain, items, action=action)
            drafting.save_manifest(self.session, manifest)
            step.batch = str(manifest.step)

    def _now_named(self, ref: str) -> str:
        """What a batch item is now: a draft saved since the plan was made is its saved row ('save it, then plan it':
        the second step's gen_recipe_1 is the recipe it became, completed by the meal that names that recipe)."""
        entry = self.session.registry.get(ref)
        return entry.saved_as if entry is not None and entry.saved_as else ref

    def _generated_for(self, state: TurnState, step: StepState) -> list[tuple[str, str | None]]:
        """A write step after a generate step covers the drafts it generated: 'save all 3' is a batch of 3."""
        if step.step.step_type != "write":
            return []
        earlier_steps = [*state.superseded_steps, *state.steps[: step.index]]
        refs = [ref for earlier in earlier_steps if earlier.step.step_type == "generate" for ref in earlier.drafts]
        pending = {d.ref: d.label for d in drafting.list_drafts(self.session)}
        return [(ref, pending[ref]) for ref in refs if ref in pending]

    # -- act ----------------------------------------------------------------------------------

    async def _apply_act(self, state: TurnState, output: ActOutput) -> TurnState:
        """Act's decision on the current step; a step it leads to whose plan carries its call runs that call at once,
        unless Act's call warned (the model may ask first)."""
        done = state.step
        state = await self._act_decision(state, output)
        if done is not None and done.tool_calls and done.tool_calls[-1].warnings:
            return state
        return await self._run_planned_calls(state)

    async def _act_decision(self, state: TurnState, output: ActOutput) -> TurnState:
        step = state.step
        assert step is not None
        decision = output.decision
        state.notice = None
        if len(step.tool_calls) + len(step.refused) >= MAX_DECISIONS_PER_STEP:
            return self._block(state, f"Step {step.index + 1} made {MAX_DECISIONS_PER_STEP} decisions without completing.",
                               said=f"{_step_of(state, step)} went round {MAX_DECISIONS_PER_STEP} times without finishing",
                               hint="try a simpler request, or a larger model")
        if isinstance(decision, ToolCallDecision):
            return await self._act_tool_call(state, step, decision)
        if isinstance(decision, StepCompleteDecision):
            return self._act_step_complete(state, step, decision)
        if isinstance(decision, AskUserDecision):
            return self._ask(state, "ask_user", decision.question)
        assert isinstance(decision, BlockedDecision)
        if decision.reason_code == "plan_invalid" and state.replans < MAX_REPLANS:
            return self._replan(state, step, decision.reason)
        plan = "the plan could not work, even re-planned" if decision.reason_code == "plan_invalid" else f"{_step_of(state, step)} could not be done"
        return self._block(state, decision.reason, said=plan, hint="say what you want changed, and ask again")

    def _replan(self, state: TurnState, step: StepState, reason: str) -> TurnState:
        """Back to Think within the turn, with Act's reason; what the old plan did stays on record."""
        step.status = "blocked"
        state.replans += 1
        state.replan_note = f"Step {step.index + 1} ({step.step.description}) cannot work: {reason}"
        state.superseded_steps.extend(state.steps)
        state.steps, state.current_step = [], 0
        state.stage = "think"
        state.notice = f"Back to Think to re-plan (once): {reason}"
        return state

    async def _act_tool_call(self, state: TurnState, step: StepState, decision: ToolCallDecision) -> TurnState:
        try:
            act_tools.check_tool_allowed(decision.tool, step.step.step_type, self._run_tool.served)
            act_tools.check_arguments(decision.tool, decision.arguments)
        except AlfredError as refusal:
            step.refused.append(f"{decision.tool} (not run): {refusal.message}")
            state.notice = f"{decision.tool} was not run: {refusal.message} (nothing ran, so this does not count as a failure)"
            return state
        arguments = self._in_step_batch(step, decision.tool, decision.arguments)
        try:
            result = await self.run_tool(decision.tool, arguments)
        except AlfredError as error:
            absent = _absent(error)
            step.tool_calls.append(ToolCallRecord(tool=decision.tool, arguments=arguments, ok=False, summary=error.message,
                                                  error_code=error.code, absent=absent))
            step.consecutive_errors += 1
            state.errors.append({"step": step.index + 1, "tool": decision.tool, "code": error.code, "message": error.message})
            if absent and self._ends_on_absent(state, step):
                return self._stop_on_absent(state, step, error.message)
            if step.consecutive_errors >= MAX_TOOL_ERRORS:
                state.notice = f"{decision.tool} failed: {error.message} (a second failure in a row: the step is blocked)"
                return self._block(state, f"Step {step.index + 1} ({step.step.description}) failed twice: {error.message}",
                                   said=f"{_step_of(state, step)} was refused twice ({_TOOL_REFUSALS.get(error.code, 'the kitchen did not accept it')})",
                                   hint="check the details and ask again")
            left = MAX_TOOL_ERRORS - step.consecutive_errors
            state.notice = f"{decision.tool} failed: {error.message} ({'one more failure' if left == 1 else f'{left} more failures'} blocks the step)"
            if error.code == "allergen_conflict":
                state.notice += " " + act_tools.IN_TURN_OVERRIDE
            return state
        step.consecutive_errors = 0
        touched = act_tools.touched_refs(result)
        card = act_tools.result_card(decision.tool, arguments, result)
        step.tool_calls.append(ToolCallRecord(
            tool=decision.tool, arguments=arguments, ok=True, card=card,
            summary=act_tools.summarize_result(decision.tool, result), refs=list(touched.values())[:50],
            batch=result["batch"]["batch"] if isinstance(result.get("batch"), dict) else None, effects=removal_effects(result),
            warnings=act_tools.result_warnings(result), notes=untold_notes(result), shortfalls=[vars(found) for found in shortfalls(decision.tool, result, self._draft_labels(result))],
            told=result_told(decision.tool, result),
        ))
        step.drafts.extend(ref for ref in act_tools.new_drafts(decision.tool, result) if ref not in step.drafts)
        self._mark_batch(step, decision.tool, arguments, touched, result,
                         covered=await self._covered_whole(step, decision.tool, arguments, result))
        if decision.complete_step:
            return self._complete_after_call(state, step, card)
        state.notice = card
        return state

    def _ends_on_absent(self, state: TurnState, step: StepState) -> bool:
        """A turn's last step, refused because what the person named is not there (or there was nothing to do), ends the
        turn at Reply: nothing is left for Act to choose (an earlier step's refusal stays Act's: the later steps may need
        it). A stage-driven turn then ends answered on the state's account; the bundled loop runs Reply as ever."""
        return step.index == len(state.steps) - 1 and not self._step_wrote(step)

    def _stop_on_absent(self, state: TurnState, step: StepState, message: str) -> TurnState:
        """The step stops, nothing changed, and Reply is next: the state's account says what was not there."""
        step.status = "stopped"
        step.result_summary = message
        state.current_step += 1
        state.stage = "reply"
        state.outcome = "completed"
        state.notice = f"{step.tool_calls[-1].tool} changed nothing: {message}"
        return state

    def _draft_labels(self, result: Mapping[str, Any]) -> dict[str, str]:
        """The label of each draft a result names by ref only (an undo's `drafts_reopened`): its shortfall is recorded by
        the draft's name, as the result's own warning says it (`shortfall_warnings`), so the account tells it as such."""
        reopened = result.get("drafts_reopened")
        refs = [ref for ref in reopened if isinstance(ref, str)] if isinstance(reopened, list) else []
        return {draft.ref: draft.label for draft in drafting.load_drafts(self.session, refs)} if refs else {}

    def _in_step_batch(self, step: StepState, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """A save of the step's own pending items, named without a batch, goes in the step's batch: one save is one
        batch, never the step's and another the save opened beside it."""
        contract = load_contracts().get(tool)
        if step.batch is None or "batch" in arguments or contract is None or "batch" not in contract.input_schema.get("properties", {}):
            return arguments
        manifest = drafting.load_manifest(self.session, step.batch)
        refs = arguments.get("refs")
        pending = set(manifest.pending())
        if isinstance(refs, list) and refs and all(isinstance(ref, str) and ref in pending for ref in refs):
            return {**arguments, "batch": step.batch}
        return arguments

    async def _covered_whole(self, step: StepState, tool: str, arguments: dict[str, Any], result: dict[str, Any]) -> dict[str, str]:
        """Items of the step's batch a shopping_list_from call covers as a whole (each as itself): the recipes it listed,
        the meals of the days it listed."""
        if step.batch is None or tool != "shopping_list_from" or not act_tools.is_write(tool, arguments):
            return {}
        items = [item.ref for item in drafting.load_manifest(self.session, step.batch).items]
        listed = set(result.get("recipes") or ())
        covered = {ref: ref for ref in items if ref in listed}
        span, meals = arguments.get("meal_plans"), [ref for ref in items if ref.startswith("meal_")]
        if isinstance(span, dict) and meals:
            table = get_table("meal_plans")
            where = Where(all_of=(Filter("id", "in", meals), Filter("date", "gte", span["from"]), Filter("date", "lte", span["to"])))
            query = Query(where=translate_where(table, where, self.session.registry), columns=("id",))
            for row in await self.work.store.select(table, query, user_id=self.session.user_id):
                ref = self.session.registry.ref_for_row(str(row["id"]))
                if ref is not None:
                    covered[ref] = ref
        return covered

    def _mark_batch(self, step: StepState, tool: str, arguments: dict[str, Any], touched: dict[str, str], result: dict[str, Any],
                    *, covered: Mapping[str, str] | None = None) -> None:
        """Items of the step's manifest that this call handled (or `covered` as a whole) are completed, or failed, by the state."""
        if step.batch is None:
            return
        manifest = drafting.load_manifest(self.session, step.batch)
        writes = act_tools.is_write(tool, arguments)
        if step.step.step_type == "write" and not writes:
            touched = {}  # reading or revising an item of a write step does not write it
        elif writes:  # an existing row is also handled by a row written that refers to it (a meal planned with it)
            touched = {**act_tools.handled_refs(result, drafting.saved_drafts_references(self.session, touched)), **(covered or {})}
        doing = next((item.ref for item in manifest.items if item.ref in touched), None)
        if writes and doing and not any(item.status == "completed" for item in manifest.items):
            manifest.action = act_tools.batch_action(tool, doing, touched[doing])  # what the first write that handles an item does to them
        failed = {i["ref"]: i.get("reason") or "failed" for i in result.get("items", ()) if isinstance(i, dict) and i.get("status") == "failed"}
        for item in manifest.items:
            if item.status == "completed":
                continue
            if item.ref in touched:  # done now, also when an earlier try failed (a retry)
                manifest.mark_done_elsewhere(item.ref, touched[item.ref])
            elif item.ref in failed and item.status == "pending":
                manifest.mark_failed(item.ref, failed[item.ref])
        drafting.save_manifest(self.session, manifest)

    def _act_step_complete(self, state: TurnState, step: StepState, decision: StepCompleteDecision) -> TurnState:
        try:
            self._check_step_can_complete(step)
        except BatchIncompleteError as refusal:
            step.refused.append(f"step_complete: {refusal.message}")
            state.notice = f"step_complete refused: {refusal.message}"
            return state
        if step.step.step_type == "write" and not self._step_wrote(step):
            if not self._found_nothing(state, step):
                step.result_summary = decision.result_summary
                return self._block(state, f"Step {step.index + 1} is a write step and completed without writing anything.",
                                   said=f"{_step_of(state, step)} was to make the change you asked for, and ended without making it",
                                   hint="ask again")
        self._finish_step(state, step, decision.result_summary, decision.note_for_next_step)
        return state

    @staticmethod
    def _found_nothing(state: TurnState, step: StepState) -> bool:
        """A read of this turn (this step's or an earlier one's) found no rows: a write step over what it looked for
        has nothing to change ('mark the eggs as bought' with no eggs on the list)."""
        return any(call.ok and call.tool in _LOOKUPS and not call.refs
                   for earlier in state.steps[: step.index + 1] for call in earlier.tool_calls)

    def _complete_after_call(self, state: TurnState, step: StepState, card: str) -> TurnState:
        """`complete_step`: the call that just succeeded finishes its step, summarised by the state, unless the step
        cannot complete yet (its batch has pending items, a write step has not written); then it stays open, saying why."""
        try:
            self._check_step_can_complete(step)
            if step.step.step_type == "write" and not self._step_wrote(step):
                raise BatchIncompleteError("a write step completes after a call that writes", pending=1)
        except BatchIncompleteError as refusal:
            state.notice = f"{card}\n(Step {step.index + 1} stays open: {refusal.message})"
            return state
        self._finish_step(state, step, step.tool_calls[-1].summary, None)
        state.notice = card
        return state

    def _finish_step(self, state: TurnState, step: StepState, summary: str, note: str | None) -> None:
        """The step is done: the next one starts, or Reply is expected after the last."""
        step.status = "completed"
        step.result_summary = summary
        step.note_for_next_step = note
        state.current_step += 1
        if state.step is None:
            state.stage = "reply"
            state.outcome = "completed"
        else:
            self._start_step(state)

    def _step_wrote(self, step: StepState) -> bool:
        """A write call of the step succeeded, or an item of its batch is done (also by a direct call between stages)."""
        if any(call.ok and act_tools.is_write(call.tool, call.arguments) for call in step.tool_calls):
            return True
        manifest = drafting.load_manifest(self.session, step.batch) if step.batch is not None else None
        return manifest is not None and any(item.status == "completed" for item in manifest.items)

    def _check_step_can_complete(self, step: StepState) -> None:
        if step.batch is not None:
            manifest = drafting.load_manifest(self.session, step.batch)
            if self._saved_elsewhere(manifest):
                drafting.save_manifest(self.session, manifest)
            manifest.check_can_complete()
        expected = step.step.expected_count
        if step.step.step_type == "generate" and expected and len(step.drafts) < expected:
            raise BatchIncompleteError(
                f"Step {step.index + 1} must generate {expected} drafts; it has {len(step.drafts)} "
                f"({', '.join(step.drafts) or 'none'}). Create the rest with draft_create.",
                pending=expected - len(step.drafts),
            )

    def _saved_elsewhere(self, manifest: BatchManifest) -> bool:
        """Drafts of the step's batch that another call saved (a direct draft_save between stages, a retry in
        a batch of its own) are done: the registry links each to its saved ref. True when any was marked."""
        marked = False
        for item in manifest.items:
            entry = self.session.registry.get(item.ref) if item.status != "completed" else None
            if entry is not None and entry.saved_as is not None:
                manifest.mark_done_elsewhere(item.ref, entry.saved_as)
                marked = True
        return marked

    async def run_tool(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """Run a tool as an MCP call would: contract-checked arguments, the same handler, this session."""
        return await self._run_tool(tool, arguments)

    # -- reply and the end of the turn ----------------------------------------------------------

    async def _apply_reply(self, state: TurnState, output: ReplyOutput) -> TurnState:
        """The reply passed the check: the user reads exactly it, nothing appended."""
        state.reply = output.response
        state.reply_source = "model"
        state.reply_flow = {k: v for k, v in (("tone", output.tone), ("user_expressed", output.user_expressed),
                                              ("next_step", output.next_step)) if v}
        return await self._finish(state)

    def _ask(self, state: TurnState, outcome: str, question: str) -> TurnState:
        state.outcome = outcome  # type: ignore[assignment]
        state.question = name_refs(question, self._person_label)  # the user reads names, never refs
        state.reply = state.question
        state.stage = "done"
        self._close(state)
        return state

    def _person_label(self, ref: str) -> str | None:
        """A ref's label as a person reads it: 'Salmon Tacos', 'Fri Mar 6 dinner'."""
        label = _label_of(self.session, ref)
        return None if label == ref else label

    def _block(self, state: TurnState, reason: str, *, said: str, hint: str = "") -> TurnState:
        """End the turn blocked: `reason` goes on record (status, ledger); the user reads the state's own account,
        `said` being the plain words for what went wrong and `hint` what to try (no model writes this reply).
        A turn already done stays as it ended."""
        if state.stage == "done":
            return state
        state.outcome = "blocked"
        state.blocked_reason = reason
        for step in state.steps:
            if step.status == "running":
                step.status = "blocked"
        return self._speak(state, said=said, hint=hint)

    def _speak(self, state: TurnState, *, said: str | None = None, hint: str = "") -> TurnState:
        """The turn ends with the state's account as its reply (`present.state_reply`, the one code path)."""
        try:
            state.reply = state_reply(self.session, state, said=said, hint=hint)
        except (ValidationError, AlfredError):  # a record that cannot be read back: the stop alone
            logger.exception("turn %s: its account could not be built from its record", state.turn)
            state.reply = f"I couldn't finish this: {said}." if said else "Done."
        state.reply_source = "fallback"
        state.stage = "done"
        try:
            self._close(state)
        except (ValidationError, AlfredError):
            logger.exception("turn %s ended without its ledger: its record could not be summarized", state.turn)
        return state

    async def _finish(self, state: TurnState) -> TurnState:
        state.stage = "done"
        self._close(state)
        return state

    def _close(self, state: TurnState) -> None:
        for step in state.steps:  # the turn ends here: a step still running was stopped, whichever way it ended
            if step.status == "running":
                step.status = "stopped"
                step.result_summary = step.result_summary or _STOPPED_BY.get(state.outcome, "stopped before it finished")
        state.ledger = summarize_turn(self.session, state)
        if state.reply_source == "fallback":  # nobody answered the user: later prompts do not show this exchange
            record_plan(self.session, state)
            history.forget_exchange(self.session)
        else:
            record_conversation(self.session, state, config_of(self.work))

    def _save(self, state: TurnState) -> None:
        if state.plan is not None:
            record_plan(self.session, state)  # the narrative of this turn so far shows each step as it stands
        self._store(state)

    def _store(self, state: TurnState) -> None:
        self.session.write(AGENT_TURNS.at(state.turn), state)
        self.session.write(AGENT_CURRENT_TURN, state.turn)


MODEL_HINT = "try a larger model, or another ALFRED_MODEL_JSON_MODE for this server"
_ROLE_TASKS = {"understand": "understand your message", "think": "make a plan", "act": "carry out the plan", "reply": "write the reply"}


_TOOL_REFUSALS = {
    "allergen_conflict": "it holds something you are allergic to", "unknown_ref": "what it named is not in your kitchen",
    "deleted_ref": "what it named was deleted", "unit_mismatch": "the amounts' units do not match",
    "undo_conflict": "a later change is in the way", "import_failed": "the page could not be imported",
    "session_conflict": "another window changed the same things", "store_error": "the kitchen could not be saved to",
}
"""What a tool's refusal means to the person, by error code (the message itself is written for the model)."""


_LOOKUPS = frozenset({"db_read", "entity_resolve", "recipes_search"})
"""Reads whose finding no rows means what a write step was to change is not there."""


_STOPPED_BY = {"ask_user": "stopped to ask the user", "clarify": "stopped to ask the user",
               "propose": "stopped for the user to confirm"}
"""What a step still running when its turn ended says of itself, by how the turn ended."""


def _step_of(state: TurnState, step: StepState) -> str:
    return f"step {step.index + 1} of {len(state.steps)}"


def model_gave_up(role: str, tries: int) -> str:
    """The plain words for a role whose answers were unusable `tries` times."""
    return f"the model could not {_ROLE_TASKS.get(role, 'answer')} ({tries} tries)"


def _invalid_field(error: Exception) -> str:
    """The output field an invalid output got wrong first, e.g. 'output.steps[0].description'."""
    if isinstance(error, ValidationError) and error.errors():
        loc = error.errors()[0]["loc"]
        return "output" + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in loc)
    if isinstance(error, RoleOutputError) and isinstance(error.fields.get("field"), str):
        return str(error.fields["field"])
    return "output"


def _validation_message(role: str, error: Exception) -> str:
    if isinstance(error, ValidationError):
        parts = []
        for item in error.errors()[:5]:
            where = ".".join(str(p) for p in item["loc"]) or "output"
            parts.append(f"{where}: {item['msg']}")
        return f"The {role} output does not match its schema: " + "; ".join(parts)
    text = str(error)
    return text if text.startswith(f"The {role} output") or text.startswith("The reply was refused") else f"The {role} output was refused: {text}"
