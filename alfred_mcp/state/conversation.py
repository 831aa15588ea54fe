"""Conversation history: the last few exchanges verbatim, older ones folded under a cap (seed 001).

An exchange is one turn's user message and Alfred's reply. The last `verbatim_turns` stay whole
(stored whole, however long an input schema let them be; a prompt shows each cut past
`message_chars`); an exchange leaving that window is folded into one
line by a `Summarizer` (deterministic `exchange_line` by default), so the history has a fixed
ceiling however long the session runs. When a model is configured, `with_model_summary` lets its
summary replace the folded lines.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from alfred_mcp.errors import ConfigError, StateError
from alfred_mcp.kitchen.text import sanitize
from alfred_mcp.state.folding import FoldedLines, clip, fold_line, render_folded, replace_with_summary


@dataclass(frozen=True)
class ConversationConfig:
    """Window sizes: exchanges kept whole, and the caps that bound everything else."""

    verbatim_turns: int = 3
    message_chars: int = 1_500
    summary_chars: int = 800
    reply_chars: int | None = None
    """Alfred's replies cut past this many characters (None: `message_chars`): a stage client's model wrote them, so it
    is sent their start only."""

    def __post_init__(self) -> None:
        if self.verbatim_turns < 1:
            raise ConfigError("verbatim_turns must be at least 1.", field="verbatim_turns", value=self.verbatim_turns)
        if self.message_chars < 40 or self.summary_chars < 80:
            raise ConfigError("message_chars must be >= 40 and summary_chars >= 80.", field="conversation")


DEFAULT_CONVERSATION = ConversationConfig()


Said = Annotated[str | None, BeforeValidator(sanitize)]
"""Text of the dialogue: whole and as given, control characters removed (whoever recorded it, whenever it was stored)."""


class Exchange(BaseModel):
    """One turn of dialogue: what the user said and what Alfred answered (either may be missing)."""

    model_config = ConfigDict(extra="forbid")

    turn: int
    user: Said = None
    assistant: Said = None
    flow: dict[str, str] = Field(
        default_factory=dict, description="Reply's conversation-flow fields for this exchange: tone, user_expressed, next_step."
    )


class ConversationHistory(BaseModel):
    """The session's dialogue: recent exchanges whole (oldest first) and the folded rest."""

    model_config = ConfigDict(extra="forbid")

    recent: list[Exchange] = Field(default_factory=list)
    earlier: FoldedLines = Field(default_factory=FoldedLines)

    def exchange(self, turn: int) -> Exchange | None:
        return next((e for e in self.recent if e.turn == turn), None)


Summarizer = Callable[[Exchange], str]
"""How an exchange leaving the verbatim window becomes one folded line."""


def exchange_line(exchange: Exchange) -> str:
    """The deterministic fold: the start of both sides of the exchange."""
    user = f'User: "{clip(exchange.user, 80)}"' if exchange.user else "User: (no message)"
    reply = f' / Alfred: "{clip(exchange.assistant, 70)}"' if exchange.assistant else ""
    return user + reply


def record_user_message(
    history: ConversationHistory,
    turn: int,
    message: str,
    *,
    config: ConversationConfig = DEFAULT_CONVERSATION,
    summarize: Summarizer = exchange_line,
) -> ConversationHistory:
    """The history with the user's message of `turn` (replacing one already recorded for it)."""
    return _put(history, turn, config, summarize, user=message.strip())


def record_reply(
    history: ConversationHistory,
    turn: int,
    reply: str,
    *,
    config: ConversationConfig = DEFAULT_CONVERSATION,
    summarize: Summarizer = exchange_line,
    flow: dict[str, str] | None = None,
) -> ConversationHistory:
    """The history with Alfred's reply of `turn` (replacing one already recorded for it), and its flow fields."""
    fields: dict[str, Any] = {"assistant": reply.strip()}
    if flow:
        fields["flow"] = {key: _cut(value, config.message_chars) for key, value in flow.items() if value}
    return _put(history, turn, config, summarize, **fields)


def without_turn(history: ConversationHistory, turn: int) -> ConversationHistory:
    """The history without `turn`'s exchange (a turn nobody answered is not part of the dialogue)."""
    return history.model_copy(update={"recent": [e for e in history.recent if e.turn != turn]})


def with_model_summary(
    history: ConversationHistory, summary: str, *, config: ConversationConfig = DEFAULT_CONVERSATION
) -> ConversationHistory:
    """The history with a model-written summary in place of everything folded so far."""
    through = history.earlier.last_turn or 0
    earlier = replace_with_summary(history.earlier, summary, through_turn=through, cap=config.summary_chars)
    return history.model_copy(update={"earlier": earlier})


OWN_REPLY_CUT = " (your reply, cut: you have it whole)"


def _cut(text: str, message_chars: int) -> str:
    return text if len(text) <= message_chars else text[: message_chars - 1].rstrip() + "…"


def _put(
    history: ConversationHistory, turn: int, config: ConversationConfig, summarize: Summarizer, **fields: Any
) -> ConversationHistory:
    fields = {key: sanitize(value) for key, value in fields.items()}  # model_copy below does not validate
    recent = list(history.recent)
    if recent and turn < recent[-1].turn:
        raise StateError(f"Turn {turn} is before the last recorded turn {recent[-1].turn}.", value=turn)
    if recent and recent[-1].turn == turn:
        recent[-1] = recent[-1].model_copy(update=fields)
    else:
        recent.append(Exchange(turn=turn, **fields))
    earlier = history.earlier
    while len(recent) > config.verbatim_turns:
        oldest = recent.pop(0)
        earlier = fold_line(earlier, summarize(oldest), turn=oldest.turn, cap=config.summary_chars)
    return ConversationHistory(recent=recent, earlier=earlier)


def render_conversation(
    history: ConversationHistory, *, current_turn: int | None = None, config: ConversationConfig = DEFAULT_CONVERSATION,
    earlier_first: bool = False,
) -> str:
    """Markdown: the recent exchanges (each message cut past `message_chars`, the current turn marked),
    then the folded earlier turns (before them with `earlier_first`, so the text runs oldest to newest)."""
    lines: list[str] = []
    for exchange in history.recent:
        lines += exchange_lines(exchange, current_turn=current_turn, message_chars=config.message_chars, reply_chars=config.reply_chars)
        lines.append("")
    earlier = render_folded(history.earlier)
    recent = "\n".join(lines).strip()
    if not earlier:
        return recent
    return f"### Earlier\n{earlier}\n### Recent\n{recent}" if earlier_first else f"{recent}\n### Earlier\n{earlier}".strip()


def exchange_lines(
    exchange: Exchange, *, current_turn: int | None = None, message_chars: int = DEFAULT_CONVERSATION.message_chars,
    reply_chars: int | None = None,
) -> list[str]:
    """One exchange as 'User: …' / 'Alfred: …' lines (the current turn marked when it has no reply yet); a reply cut
    past `reply_chars` says the reader wrote it whole."""
    lines: list[str] = []
    if exchange.user:
        lines.append(f"User: {_cut(exchange.user, message_chars)}")
    if exchange.assistant:
        cut = min(message_chars, reply_chars or message_chars)
        reply = " ".join(exchange.assistant.split()) if len(exchange.assistant) > cut and reply_chars else exchange.assistant
        lines.append(f"Alfred: {_cut(reply, cut)}" + (OWN_REPLY_CUT if len(reply) > cut and reply_chars else ""))
    elif exchange.turn == current_turn:
        lines.append("→ (current turn, being processed)")
    return lines
