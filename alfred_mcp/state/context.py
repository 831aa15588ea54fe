"""Context builders: the text each role reads, from plain state values, within a size budget.

Understand, Think, Act (per step type) and Reply each get the sections the seeds lay out
(000 §4.3.1 and §5.6, 001, 003, 004): the working set (recent / retained / pending drafts /
excluded), what happened (turn narratives), the conversation, the compiled constraints, the
profile and the kitchen dashboard. Refs only: nothing here knows a row id. Each role has a
character budget; when the sections exceed it, the lowest-priority sections are cut first and
say so with a marker. A section may have a compact form it is never cut below (the constraints, all of
them; the conversation's last exchange), and the conversation is cut from its oldest end. Same inputs, same text.
"""

from __future__ import annotations

import heapq
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, get_args

from alfred_mcp.errors import ConfigError
from alfred_mcp.state.constraints import DEFAULT_RESET_CONFIG, CompiledConstraints, ResetConfig, render_constraints
from alfred_mcp.state.conversation import (
    DEFAULT_CONVERSATION,
    ConversationConfig,
    ConversationHistory,
    exchange_lines,
    render_conversation,
)
from alfred_mcp.state.curation import DEFAULT_WINDOW, CurationState
from alfred_mcp.state.entity_resolver import Candidate, Mention
from alfred_mcp.state.folding import FoldedLines, clip, render_folded
from alfred_mcp.state.narrative import TurnExecutionSummary, compact_refs
from alfred_mcp.state.table_columns import columns_section
from alfred_mcp.state.working_set import DraftView, EntityLine, Entry, WorkingSet, build_working_set

Role = Literal["understand", "think", "act", "reply"]
StepKind = Literal["read", "analyze", "generate", "write"]
ROLES: tuple[str, ...] = get_args(Role)
STEP_KINDS: tuple[str, ...] = get_args(StepKind)

DEFAULT_BUDGETS: dict[str, int] = {"understand": 2_200, "think": 4_500, "act": 1_500, "reply": 3_500}
"""Characters of each role's session context: with its instructions, this turn's facts and its output schema as
text, a role's prompt of a one-step turn stays within 2,000 tokens (the `prompt_tokens` benchmark)."""
MIN_KEPT = 120
DASHBOARD_HEADING = "## Kitchen dashboard"
_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


@dataclass(frozen=True)
class ContextConfig:
    """Windows, caps and budgets of the three context layers; every size is in characters."""

    entity_window: int = DEFAULT_WINDOW
    narrative_turns: int = 2
    narrative_chars: int = 800
    conversation: ConversationConfig = DEFAULT_CONVERSATION
    labels_per_type: int = 20
    others_shown: int = 30
    budgets: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_BUDGETS))
    reset: ResetConfig = DEFAULT_RESET_CONFIG
    compress_older: bool = True
    """Older turns are shown as a folded digest; False leaves them out of the context."""
    echo_client: bool = True
    """The user's message of this turn and the last exchange are repeated in the context; False for a stage client's
    model, which sent the one and read (or wrote) the other."""

    def __post_init__(self) -> None:
        if set(self.budgets) != set(ROLES) or min(self.budgets.values()) < 1_000:
            raise ConfigError(f"budgets needs one value >= 1000 per role: {', '.join(ROLES)}.", field="budgets")
        if self.entity_window < 0 or self.narrative_turns < 0:
            raise ConfigError("entity_window and narrative_turns must be 0 or more.", field="windows")


DEFAULT_CONFIG = ContextConfig()


@dataclass(frozen=True)
class StepView:
    """The Act step being run: its kind and, when the loop knows them, its place and goal."""

    step_type: StepKind
    description: str | None = None
    subdomain: str | None = None
    number: int | None = None
    total: int | None = None


@dataclass(frozen=True)
class ContextInputs:
    """Everything a role's context is built from, as plain values read from the session."""

    turn: int
    user_message: str | None = None
    entries: Sequence[Entry] = ()
    curation: CurationState = field(default_factory=CurationState)
    constraints: CompiledConstraints | None = None
    drafts: Sequence[DraftView] = ()
    narratives: Sequence[TurnExecutionSummary] = ()
    """Closed turns, oldest first; the builders show the last `narrative_turns` whole."""
    narrative_digest: FoldedLines = field(default_factory=FoldedLines)
    current: TurnExecutionSummary | None = None
    """This turn so far (from its ledger)."""
    conversation: ConversationHistory = field(default_factory=ConversationHistory)
    profile: Mapping[str, Any] | None = None
    dashboard: Mapping[str, Any] | None = None
    today: str | None = None
    background: Sequence[Candidate] = ()
    """Kitchen rows relevant to the session but not in view (the second tier of seed 000 §5.6)."""
    mentions: Sequence[Mention] = ()
    """What the resolver made of the user's message."""


@dataclass(frozen=True)
class Section:
    name: str
    text: str
    priority: int
    """0 is kept longest; the highest number is cut first."""
    compact: str = ""
    """What is kept whatever the cut (the section's essentials, shorter); empty: the section may be left out."""
    oldest_first: bool = False
    """Its lines run oldest to newest, so a cut drops them from the start (after the heading)."""


@dataclass(frozen=True)
class RoleContext:
    """A role's context: its sections in reading order, within `budget` characters."""

    role: str
    sections: tuple[Section, ...]
    budget: int
    truncated: tuple[str, ...] = ()

    def text(self) -> str:
        return "\n\n".join(section.text for section in self.sections if section.text)

    def section(self, name: str) -> str:
        return next((s.text for s in self.sections if s.name == name), "")

    @property
    def size(self) -> int:
        return len(self.text())


# -- entry points -----------------------------------------------------------------------------


def build_context(
    role: str, inputs: ContextInputs, *, step: StepView | None = None, config: ContextConfig = DEFAULT_CONFIG
) -> RoleContext:
    """The context of `role` ('act' needs `step`), cut to the role's budget.

    Raises:
        ConfigError: unknown role, or 'act' without a step.
    """
    if role not in _BUILDERS:
        raise ConfigError(f"Unknown role '{role}'. Roles: {', '.join(ROLES)}.", field="role", value=role, valid=list(ROLES))
    if role == "act" and step is None:
        raise ConfigError("The act context needs the step being run (step_type read, analyze, generate or write).",
                          field="step_type", valid=list(STEP_KINDS))
    working = build_working_set(inputs.entries, inputs.curation, inputs.drafts, turn=inputs.turn, window=config.entity_window)
    sections = _BUILDERS[role](inputs, working, step, config)
    return fit_budget(role, sections, config.budgets[role])


def render_prompt(template: str, context: RoleContext) -> str:
    """Fill `{section}` placeholders (and `{context}`: every section) of a role template.

    Raises:
        ConfigError: the template names a placeholder that is not a section.
    """
    values = {name: "" for name in SECTION_NAMES}
    values.update({section.name: section.text for section in context.sections})
    values["context"] = context.text()
    unknown = sorted({name for name in _PLACEHOLDER.findall(template) if name not in values})
    if unknown:
        raise ConfigError(f"Prompt template has unknown placeholders: {', '.join(unknown)}.", field="template",
                          valid=sorted(values))
    filled = _PLACEHOLDER.sub(lambda match: values[match.group(1)], template)
    return re.sub(r"\n{3,}", "\n\n", filled).strip() + "\n"


def fit_budget(role: str, sections: Sequence[Section], budget: int) -> RoleContext:
    """Cut the lowest-priority sections first (at a line break, with a marker) until all fit.

    A section is not cut below its compact form while another section can give way; only when the
    compact forms alone exceed the budget are they cut too (the budget always holds).
    """
    kept = list(sections)
    truncated: list[str] = []
    for keep_compact in (True, False):
        for index in sorted(range(len(kept)), key=lambda i: (-kept[i].priority, -i)):
            over = _size(kept) - budget
            if over <= 0:
                break
            section = kept[index]
            if not section.text:
                continue
            cut = _cut(section, len(section.text) - over, budget, keep_compact=keep_compact)
            if cut.text == section.text:
                continue
            kept[index] = cut
            if section.name not in truncated:
                truncated.append(section.name)
    return RoleContext(role, tuple(kept), budget, tuple(truncated))


def _size(sections: Sequence[Section]) -> int:
    texts = [s.text for s in sections if s.text]
    return sum(len(t) for t in texts) + 2 * max(len(texts) - 1, 0)


def _cut(section: Section, room: int, budget: int, *, keep_compact: bool = True) -> Section:
    """`section` within `room` characters: its compact form (kept however short the room, while `keep_compact`),
    or its lines cut at a break (the oldest ones when `oldest_first`) with a marker, or a marker alone."""
    compact = section.compact if keep_compact and section.compact != section.text else ""
    marker = f"[… {section.name} cut to fit the {budget}-character budget]"
    lines = _kept_lines(section, room - len(marker) - 1)
    if compact and (not section.oldest_first or lines is None or not _ends_with(lines, compact)):
        return replace(section, text=compact)
    if lines is None:
        return Section(section.name, f"[{section.name} left out to fit the {budget}-character budget]", section.priority)
    if section.oldest_first:
        heading, _, _ = section.text.partition("\n")
        return replace(section, text=f"{heading}\n{marker}\n{lines}", compact="")
    return replace(section, text=f"{lines}\n{marker}", compact="")


def _ends_with(kept: str, compact: str) -> bool:
    """Whether the lines `kept` of an oldest-first section hold its compact form's (after its heading and marker)."""
    kept_lines = set(kept.splitlines())
    return all(line in kept_lines for line in compact.splitlines()[2:])


def _kept_lines(section: Section, room: int) -> str | None:
    """The whole lines that fit `room`: the first ones, or (oldest first) the heading's room kept and the last ones."""
    if room < MIN_KEPT:
        return None
    text = section.text
    if not section.oldest_first:
        head = text[:room]
        return (head[: head.rfind("\n")] if "\n" in head else head).rstrip()
    heading, _, body = text.partition("\n")
    start = len(body) - (room - len(heading) - 1)
    if start > 0 and body[start - 1] != "\n":
        start = body.find("\n", start) + 1 or len(body)
    return body[max(start, 0):].strip("\n") or None


# -- roles ------------------------------------------------------------------------------------

Builder = Callable[[ContextInputs, WorkingSet, StepView | None, ContextConfig], list[Section]]


def _understand(inputs: ContextInputs, working: WorkingSet, step: StepView | None, config: ContextConfig) -> list[Section]:
    return [
        Section("task", task_section(inputs, echo=config.echo_client), 0),
        Section("entities", entities_section(
            working, config, reasons=True, others=True, background=inputs.background, decisions_shown=True), 1),
        Section("resolver", resolver_section(inputs.mentions), 0),  # short (candidates capped): what the message names
        Section("decisions", decisions_section(inputs.curation), 2),
        conversation_of(inputs, config, 3),
        constraints_of(inputs.constraints, 4),
        Section("what_happened", what_happened_section(inputs, config, brief=True, said=_said(working, inputs.curation)), 5),
    ]


def _think(inputs: ContextInputs, working: WorkingSet, step: StepView | None, config: ContextConfig) -> list[Section]:
    return [
        Section("profile", profile_section(inputs.profile), 5),
        Section("dashboard", dashboard_section(inputs.dashboard), 6),
        constraints_of(inputs.constraints, 1),
        Section("entities", entities_section(working, config), 2),
        Section("what_happened", what_happened_section(inputs, config, said=_said(working, talk=inputs.conversation)), 3),
        conversation_of(inputs, config, 4),
        Section("task", task_section(inputs, echo=config.echo_client), 0),
    ]


def _act(inputs: ContextInputs, working: WorkingSet, step: StepView | None, config: ContextConfig) -> list[Section]:
    kind = step.step_type if step is not None else "read"
    sections = [
        Section("step", step_section(step or StepView(kind), inputs.current, echo=config.echo_client), 0),
        # a write step's columns come before the entities, which give way first (same priority, later in order)
        Section("columns", columns_section(step.subdomain if step is not None and kind == "write" else None), 1),
        Section("entities", entities_section(working, config, drafts_first=kind == "write"), 2 if kind == "generate" else 1),
        constraints_of(inputs.constraints, 1 if kind == "generate" else 2),
    ]
    if kind in ("analyze", "generate"):
        sections.append(Section("what_happened", what_happened_section(
            inputs, config, last_only=True, this_turn=False, said=_said(working)), 4))
        sections.append(Section("profile", profile_section(inputs.profile), 3))
    return sections


def _reply(inputs: ContextInputs, working: WorkingSet, step: StepView | None, config: ContextConfig) -> list[Section]:
    sections = [
        Section("flow", flow_section(inputs, echo=config.echo_client), 2),
        Section("results", results_section(inputs.current, working), 1),
        Section("entities", entities_section(working, config), 3),
        conversation_of(inputs, config, 4),
        Section("task", task_section(inputs, echo=config.echo_client), 0),
    ]
    if _reads_constraints(inputs.current):
        sections.append(constraints_of(inputs.constraints, 1))
    return sections


def _reads_constraints(current: TurnExecutionSummary | None) -> bool:
    """Whether Reply's answer is about the constraints: the turn only noted some (no step), or read them (the
    constraints section is where Reply reads them, the one place: constraints_read's card is that same text)."""
    return current is None or not current.steps or any(count.tool == "constraints_read" for count in current.tools_called)


_BUILDERS: dict[str, Builder] = {"understand": _understand, "think": _think, "act": _act, "reply": _reply}
SECTION_NAMES: tuple[str, ...] = (
    "task", "step", "columns", "flow", "results", "entities", "resolver", "decisions", "what_happened", "conversation",
    "constraints", "profile", "dashboard",
)


# -- sections ---------------------------------------------------------------------------------


def task_section(inputs: ContextInputs, *, echo: bool = True) -> str:
    """The turn and the day, and (`echo`) the user's message quoted; without `echo`, the day only (a stage client's
    answers name the turn: the section stays as it was sent while the day does)."""
    lines = ["## Current task"]
    message = inputs.user_message
    if echo:
        lines.append(f'**User says:** "{message}"' if message else "**User says:** (no message recorded for this turn)")
        lines.append(f"**Turn:** {inputs.turn}" + (f" | **Today:** {inputs.today}" if inputs.today else ""))
    elif inputs.today:
        lines.append(f"**Today:** {inputs.today}")
    return "\n".join(lines)


def entities_section(
    working: WorkingSet, config: ContextConfig, *, reasons: bool = False, others: bool = False, drafts_first: bool = False,
    background: Sequence[Candidate] = (), decisions_shown: bool = False,
) -> str:
    """The working set as Markdown; retention reasons only for Understand (seed 004), whose decision log says
    why entities were set aside (`decisions_shown`), so its excluded lines do not say it again."""
    parts = ["## Entities in context"]
    pending = _pending_block(working.pending)
    if drafts_first and pending:
        parts.append(pending)
    if working.recent:
        title = "### Recent (loaded: use these refs)"
        parts.append(title + "\n" + _grouped(working.recent, config.labels_per_type))
    if working.retained:
        parts.append("### Retained (older, kept in view)\n" + "\n".join(_entity(line, with_reason=reasons) for line in working.retained))
    if pending and not drafts_first:
        parts.append(pending)
    if working.excluded:
        excluded = "\n".join(_entity(line) for line in working.excluded) if decisions_shown else _by_reason(working.excluded)
        parts.append("### Excluded (don't use)\n" + excluded)
    if working.cleared_at is not None:
        parts.append(f"### Cleared\nEntities from before turn {working.cleared_at} were set aside; they stay known if named again.")
    if others and working.others:
        parts.append("### Earlier in this session (out of view)\n" + _others(working.others, config.others_shown))
    if background:
        lines = [f"- {c.ref}: {c.label} — {c.reason}" for c in background]
        parts.append("### Background (from the kitchen, not in view yet)\n" + "\n".join(lines))
    if len(parts) == 1:
        parts.append("None in view yet: read or search to get refs.")
    return "\n".join(parts)


def _pending_block(pending: Sequence[DraftView]) -> str:
    if not pending:
        return ""
    lines = [f"- {d.ref}: {d.label} ({d.entity_type}) — generated, not saved" for d in pending]
    return "### Pending drafts (not saved)\n" + "\n".join(lines)


def _entity(line: EntityLine, *, with_reason: bool = False) -> str:
    label = f": {line.label}" if line.label else ""
    text = f"- {line.ref}{label} [{line.action}]"
    return f"{text} — *{line.reason}*" if with_reason and line.reason else text


def _by_reason(lines: Sequence[EntityLine]) -> str:
    """One line per entity; entities set aside for the same reason under that reason, said once."""
    groups: dict[str | None, list[EntityLine]] = {}
    for line in lines:
        groups.setdefault(line.reason, []).append(line)
    out: list[str] = []
    for reason, group in groups.items():
        if reason is None or len(group) == 1:
            out += [_entity(line, with_reason=True) for line in group]
        else:
            out.append(f"- *{reason}*:")
            out += [f"  {_entity(line)}" for line in group]
    return "\n".join(out)


def _grouped(lines: Sequence[EntityLine], per_type: int) -> str:
    """Each type's refs with labels, up to `per_type`; the rest as ref ranges with a count. The type used most
    recently comes first, so a cut (from the end) drops the refs of older turns, not the ones just made."""
    by_type: dict[str, list[EntityLine]] = {}
    for line in lines:
        by_type.setdefault(line.entity_type, []).append(line)
    out: list[str] = []
    for entity_type, group in sorted(by_type.items(), key=lambda item: -max(line.turn_last_ref for line in item[1])):
        out += [_entity(line) for line in group[:per_type]]
        rest = group[per_type:]
        if rest:
            out.append(f"- …and {compact_refs(line.ref for line in rest)} ({len(rest)} more {entity_type} refs)")
    return "\n".join(out)


def _others(entries: Sequence[Entry], shown: int) -> str:
    """The most recently used refs out of view, with labels; the rest counted per type."""
    recent = heapq.nlargest(shown, entries, key=lambda e: e.turn_last_ref)
    out = [f"- {e.ref}" + (f": {e.label}" if e.label else "") + f" [{e.action}] (turn {e.turn_last_ref})" for e in recent]
    rest = Counter(e.entity_type for e in entries)
    rest.subtract(e.entity_type for e in recent)
    counts = ", ".join(f"{n} {kind}" for kind, n in sorted(rest.items()) if n > 0)
    if counts:
        out.append(f"- …and {len(entries) - len(recent)} more ({counts}); read or search to see them again.")
    return "\n".join(out)


def resolver_section(mentions: Sequence[Mention]) -> str:
    """The deterministic resolver's reading of the message: suggestions, not decisions."""
    if not mentions:
        return ""
    return "## Resolver (what the words may refer to)\n" + "\n".join(m.line() for m in mentions)


def decisions_section(curation: CurationState) -> str:
    """The curation decisions of the session, by turn; empty while there are none (nothing to say)."""
    if not curation.decision_log:
        return ""
    by_turn: dict[tuple[int, str | None], dict[str, list[str]]] = {}
    for d in curation.decision_log:
        by_turn.setdefault((d.turn, d.reason), {}).setdefault(d.action, []).extend([d.ref] if d.ref else [])
    lines = [
        f"- Turn {turn}: " + "; ".join(f"{action} {', '.join(refs)}".strip() for action, refs in actions.items())
        + (f" — {reason}" if reason else "")
        for (turn, reason), actions in by_turn.items()
    ]
    return "## Previous curation decisions\n" + "\n".join(lines)


def conversation_section(inputs: ContextInputs, config: ContextConfig = DEFAULT_CONFIG) -> str:
    """Earlier exchanges, oldest first (the current message is the task's): empty at the start of a conversation, and
    without `echo_client` (a stage client's model sent every message and wrote every reply: its chat holds them)."""
    if not config.echo_client:
        return ""
    talk = inputs.conversation if config.compress_older else inputs.conversation.model_copy(update={"earlier": FoldedLines()})
    if all(exchange.turn >= inputs.turn for exchange in talk.recent) and talk.earlier.is_empty:
        return ""
    text = render_conversation(talk, current_turn=inputs.turn, config=config.conversation, earlier_first=True)
    return "## Conversation\n" + text


LAST_MESSAGE_CHARS = 360
"""Characters of each message of the last exchange when the conversation is cut to it."""


def conversation_of(inputs: ContextInputs, config: ContextConfig, priority: int) -> Section:
    """The conversation section: cut from its oldest end, never below the last exchange (what the user
    answers is often Alfred's last question)."""
    text = conversation_section(inputs, config)
    previous = [exchange for exchange in inputs.conversation.recent if exchange.turn < inputs.turn]
    if not text or not previous:
        return Section("conversation", text, priority, oldest_first=True)
    last = previous[-1]
    short = last.model_copy(update={"user": last.user and clip(last.user, LAST_MESSAGE_CHARS),
                                    "assistant": last.assistant and _clip_keeping_end(last.assistant, LAST_MESSAGE_CHARS)})
    compact = "\n".join(["## Conversation", "[… older exchanges cut to fit the budget; the last one:]", *exchange_lines(short)])
    return Section("conversation", text, priority, compact=compact, oldest_first=True)


def _clip_keeping_end(text: str, width: int) -> str:
    """`text` on one line within `width`, its start and its end kept (a reply's question is at its end)."""
    flat = " ".join(text.split())
    if len(flat) <= width:
        return flat
    head = width // 3
    return flat[:head].rstrip() + " … " + flat[len(flat) - (width - head - 3):].lstrip()


def constraints_section(compiled: CompiledConstraints | None) -> str:
    return render_constraints(compiled or CompiledConstraints())


def constraints_of(compiled: CompiledConstraints | None, priority: int) -> Section:
    """The constraints section; a cut compacts it (every constraint, without where each came from), never drops it."""
    compiled = compiled or CompiledConstraints()
    return Section("constraints", render_constraints(compiled), priority, compact=render_constraints(compiled, compact=True))


def what_happened_section(
    inputs: ContextInputs, config: ContextConfig, *, brief: bool = False, last_only: bool = False, this_turn: bool = True,
    said: frozenset[str] = frozenset(),
) -> str:
    """The last closed turns whole, the folded earlier ones, and this turn so far (Act has it in its step section).
    A curation summary the context already gives (`said`: the reasons of its entity lines and decisions) is not repeated."""
    keep = 1 if last_only else config.narrative_turns
    recent = [n for n in inputs.narratives if not n.is_empty][-keep:] if keep else []
    parts = ["## What happened"]
    for number, summary in enumerate(reversed(recent)):
        title = f"### Turn {summary.turn}" + (" (last turn)" if number == 0 else "")
        parts.append(title + "\n" + _narrative(summary, brief=brief, said=said))
    earlier = render_folded(inputs.narrative_digest) if config.compress_older else ""
    if earlier and not last_only:
        parts.append("### Earlier (compressed)\n" + earlier)
    current = inputs.current if this_turn else None
    # a turn with only its goal so far says nothing the constraints section (its Goal line, every role that reads
    # what happened has it) does not
    if current is not None and (current.steps or current.errors or current.curation_summary or current.cleared):
        parts.append("### This turn so far\n" + _narrative(current, brief=True, with_message=False, said=said))
    return "\n".join(parts) if len(parts) > 1 else ""


def _narrative(summary: TurnExecutionSummary, *, brief: bool = False, with_message: bool = True, said: frozenset[str] = frozenset()) -> str:
    lines: list[str] = []
    if with_message and summary.user_message:
        lines.append(f'**User asked:** "{summary.user_message}"')
    if summary.goal or summary.think_decision:
        decision = f" ({summary.think_decision})" if summary.think_decision else ""
        lines.append(f"**Goal:** {summary.goal or 'not stated'}{decision}")
    if summary.steps:
        shown = summary.steps[:4] if brief else summary.steps
        lines.append("**Steps:**")
        for s in shown:
            lines.append(f"  {s.step_num}. {s.glyph} [{s.step_type}] {s.outcome}")
            if s.card and not brief:
                lines.append(_indented(s.card))
        hidden = len(summary.steps) - len(shown) + summary.more_steps
        if hidden:
            lines.append(f"  … {hidden} more {'step' if hidden == 1 else 'steps'}")
    curation = _curation_text(summary, said)
    if curation:
        lines.append(f"**Understand decided:** {curation}")
    if summary.errors:
        lines.append("**Errors:** " + "; ".join(f"{e.tool} ({e.code})" for e in summary.errors))
    if summary.response_summary and not brief and not any(text.startswith(summary.response_summary[:80]) for text in said):
        lines.append(f'**Alfred said:** "{clip(summary.response_summary, 200)}"')
    lines.append(f"**Phase:** {summary.conversation_phase}")
    return "\n".join(lines)


def _said(working: WorkingSet, curation: CurationState | None = None, talk: ConversationHistory | None = None) -> frozenset[str]:
    """What a context says beside its narratives: its excluded entities' reasons, (Understand's) its decisions'
    and (with a conversation section) the replies it quotes."""
    reasons = [line.reason for line in working.excluded]
    reasons += [d.reason for d in curation.decision_log] if curation is not None else []
    reasons += [exchange.assistant for exchange in talk.recent] if talk is not None else []
    return frozenset(reason for reason in reasons if reason)


def _curation_text(summary: TurnExecutionSummary, said: frozenset[str] = frozenset()) -> str:
    parts = []
    if summary.cleared:
        parts.append("cleared the working set")
    for verb, refs in (("retained", summary.retained_refs), ("demoted", summary.demoted_refs), ("dropped", summary.dropped_refs)):
        if refs:
            parts.append(f"{verb} {compact_refs(refs)}")
    if summary.curation_summary and not any(reason.endswith(summary.curation_summary) for reason in said):
        parts.append(summary.curation_summary)
    return "; ".join(parts)


def step_section(step: StepView, current: TurnExecutionSummary | None, *, echo: bool = True) -> str:
    """The step being run and the plan so far; without `echo`, not its place, its goal and the turn's (a stage client's
    answer names the step with its description, and its model wrote the plan)."""
    place = f"Step {step.number} of {step.total}" if step.number and step.total else (f"Step {step.number}" if step.number else "Step")
    kind = f"Type: {step.step_type}" + (f" | Subdomain: {step.subdomain}" if step.subdomain else "")
    lines = ["## Current step", f"**{place}** | {kind}" if echo else kind]
    if step.description and echo:
        lines.append(f"**Goal:** {step.description}")
    if current is not None and current.goal and echo:
        lines.append(f"**Turn goal:** {current.goal}")
    done = current.steps if current is not None else []
    lines.append("### Plan so far (this turn)")
    lines += [f"{s.step_num}. {s.glyph} {s.outcome}" for s in done] or ["No step has run yet."]
    return "\n".join(lines)


def flow_section(inputs: ContextInputs, *, echo: bool = True) -> str:
    """Where the conversation is, so Reply continues it instead of starting over (seed 001); without `echo`, not
    the last exchange, the tone and offer Reply took then, or what the user expressed (a stage client's model said
    and read them), nor the turn (its answers name it)."""
    phase = inputs.current.conversation_phase if inputs.current is not None else "exploring"
    lines = ["## Conversation flow", (f"**Turn:** {inputs.turn} | " if echo else "") + f"**Phase:** {phase}"]
    previous = [e for e in inputs.conversation.recent if e.turn < inputs.turn]
    last = previous[-1] if previous else None
    if echo and last is None:
        lines.append("This is the first exchange of the session.")
    elif echo and last is not None:
        said = f'"{clip(last.user, 160)}"' if last.user else "(nothing recorded)"
        answered = f'"{clip(last.assistant, 200)}"' if last.assistant else "(no reply recorded)"
        lines.append(f"**Last exchange:** User: {said} / You: {answered}")
    flow = last.flow if echo and last is not None else None
    if flow:
        notes = [f"tone {flow['tone']}" if flow.get("tone") else "", f"offered: {flow['next_step']}" if flow.get("next_step") else ""]
        lines.append("**Last time you took:** " + "; ".join(note for note in notes if note))
    if echo and inputs.current is not None and inputs.current.user_expressed:
        lines.append(f"**User expressed:** {inputs.current.user_expressed}")
    return "\n".join(lines)


def results_section(current: TurnExecutionSummary | None, working: WorkingSet) -> str:
    """What this turn did, as state: Reply reports it and nothing more."""
    lines = ["## What happened this turn"]
    if current is not None and current.steps:
        for s in current.steps:
            lines.append(f"- {s.glyph} {s.outcome}")
            if s.card:
                lines.append(_indented(s.card))
    for label, refs in (("Created", current.created if current else []), ("Updated", current.updated if current else []),
                        ("Deleted", current.deleted if current else [])):
        if refs:
            lines.append(f"**{label}:** {compact_refs(refs)}")
    if current is not None and current.errors:
        lines += [f"**Failed:** {e.tool} ({e.code}): {e.message}" for e in current.errors]
    if working.pending:
        lines.append("**Generated, not saved:** " + ", ".join(f"{d.ref} ({d.label})" for d in working.pending))
    if len(lines) == 1:
        lines.append("No tool calls were made this turn.")
    return "\n".join(lines)


def _indented(card: str) -> str:
    return "\n".join(f"     {line}" for line in card.splitlines())


def profile_section(profile: Mapping[str, Any] | None) -> str:
    """The user's tastes, skills and household; not the diet, allergies, dislikes and equipment: the constraints
    section, which every role with a profile reads, carries them (compiled, the allergies absolute)."""
    if not profile:
        return "## User profile\nNo preferences saved."
    lines = ["## User profile"]
    lines.append(_joined("Has", [("Skill", profile.get("cooking_skill_level")),
                                  ("Time budget", _minutes(profile.get("time_budget_minutes"))),
                                  ("Complexity", profile.get("preferred_complexity"))]))
    lines.append(_joined("Likes", [("Cuisines", profile.get("favorite_cuisines")), ("Goals", profile.get("nutrition_goals")),
                                    ("Vibes", profile.get("current_vibes"))]))
    lines.append(_joined("Household", [("Adults", profile.get("household_adults")), ("Kids", profile.get("household_kids")),
                                        ("Babies", profile.get("household_babies"))]))
    lines.append(_joined("Rhythm", [("Cooks", profile.get("cooking_frequency")), ("Habits", profile.get("planning_rhythm"))]))
    return "\n".join(line for line in lines if line)


LIMITS = (("allergies", "Allergies"), ("disliked_ingredients", "Dislikes"), ("dietary_restrictions", "Diet"))
"""The profile's columns a model must know before it generates, with their words in `limits_line`."""


def limits_line(profile: Mapping[str, Any] | None) -> str | None:
    """'Allergies: peanuts. Dislikes: olives, blue cheese.' (what the profile sets of them; None: nothing): what a
    model that drafts must know, compactly, where the constraints section is not sent."""
    parts = [f"{word}: {', '.join(str(item) for item in values)}." for column, word in LIMITS
             if isinstance(values := (profile or {}).get(column), (list, tuple)) and values]
    return " ".join(parts) or None


def _minutes(value: Any) -> str | None:
    return f"{value} min" if value else None


def _joined(title: str, pairs: Sequence[tuple[str, Any]]) -> str:
    shown = [f"{name}: {_value_text(value)}" for name, value in pairs if value not in (None, "", [], ())]
    return f"**{title}:** " + " | ".join(shown) if shown else ""


def _value_text(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return ", ".join(clip(str(item), 60) for item in value[:8]) + (f", +{len(value) - 8} more" if len(value) > 8 else "")
    return clip(str(value), 80)


def dashboard_section(dashboard: Mapping[str, Any] | None) -> str:
    """Counts and what needs attention soon; refs with labels only."""
    if not dashboard:
        return f"{DASHBOARD_HEADING}\nNot available."
    counts: Mapping[str, int] = dashboard.get("counts", {})
    lines = [DASHBOARD_HEADING]
    lines.append(f"- Recipes: {counts.get('recipes', 0)} saved" + _breakdown(dashboard.get("recipes_by_cuisine")))
    lines.append(f"- Inventory: {counts.get('inventory', 0)} items" + _breakdown(dashboard.get("inventory_by_location")))
    soon = dashboard.get("expiring_soon") or []
    if soon:
        lines.append(f"- Expiring within {dashboard.get('horizon_days', 3)} days: " + ", ".join(_dated(item) for item in soon[:10])
                     + _more(dashboard.get("expiring_soon_total", len(soon)), min(len(soon), 10), "read inventory by expiry_date"))
    expired = dashboard.get("expired") or []
    if expired:
        lines.append("- Past their date: " + ", ".join(_dated(item) for item in expired[:5])
                     + _more(dashboard.get("expired_total", len(expired)), min(len(expired), 5), "read inventory by expiry_date"))
    meals = dashboard.get("next_meals") or []
    total = dashboard.get("next_meals_total", len(meals))
    shown = "; ".join(_meal(meal) for meal in meals[:7])
    lines.append(f"- Next meals ({min(len(meals), 7)} of {total} planned from today): {shown}"
                 + _more(total, min(len(meals), 7), "read meal_plans") if meals else "- Next meals: nothing planned")
    lines.append(f"- Shopping list: {dashboard.get('shopping_to_buy', 0)} to buy | Tasks: {dashboard.get('tasks_open', 0)} open")
    return "\n".join(lines)


def _more(total: int, shown: int, how: str) -> str:
    """The cut marker of a list: ' (+3 more: read meal_plans)', or nothing when all is shown."""
    return f" (+{total - shown} more: {how})" if total > shown else ""


def _breakdown(counts: Mapping[str, int] | None) -> str:
    if not counts:
        return ""
    shown = list(counts.items())[:8]
    rest = f", +{len(counts) - 8} more" if len(counts) > 8 else ""
    return " (" + ", ".join(f"{key}: {value}" for key, value in shown) + rest + ")"


def _dated(item: Mapping[str, Any]) -> str:
    return f"{item.get('ref')} {item.get('label')} ({item.get('expiry_date')})"


def _meal(meal: Mapping[str, Any]) -> str:
    recipe = f" → {meal['recipe']} {meal.get('recipe_label') or ''}".rstrip() if meal.get("recipe") else ""
    note = f' "{meal["note"]}"' if meal.get("note") else ""
    return f"{meal.get('ref')} {meal.get('label')}{recipe}{note}" + (" (cooked)" if meal.get("cooked") else "")


def naive_history(
    messages: Sequence[tuple[str | None, str | None]], narratives: Sequence[TurnExecutionSummary], entries: Sequence[Entry]
) -> str:
    """The baseline the budgets are measured against: every message, every narrative, every ref."""
    parts = [f"User: {user or ''}\nAlfred: {reply or ''}" for user, reply in messages]
    parts += [_narrative(summary) for summary in narratives]
    parts += [f"- {e.ref}: {e.label} [{e.action}]" for e in entries]
    return "\n\n".join(parts)

