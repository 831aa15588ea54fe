"""Conversation history: the last turns verbatim, older ones folded under a fixed cap."""

from __future__ import annotations

import pytest

from alfred_mcp.errors import ConfigError, StateError
from alfred_mcp.state.conversation import (
    DEFAULT_CONVERSATION,
    ConversationConfig,
    ConversationHistory,
    Exchange,
    exchange_line,
    record_reply,
    record_user_message,
    render_conversation,
    with_model_summary,
)
from alfred_mcp.state.folding import render_folded


def talk(turns: int, config: ConversationConfig = DEFAULT_CONVERSATION) -> ConversationHistory:
    history = ConversationHistory()
    for turn in range(1, turns + 1):
        history = record_user_message(history, turn, f"message {turn}: what can I cook tonight?", config=config)
        history = record_reply(history, turn, f"reply {turn}: here are three ideas", config=config)
    return history


def test_ten_turns_keep_three_verbatim_and_fold_the_rest() -> None:
    """Seed 000 scenario 4: the last 3 exchanges whole, turns 1-7 one line each."""
    history = talk(10)
    assert history.recent == [
        Exchange(turn=n, user=f"message {n}: what can I cook tonight?", assistant=f"reply {n}: here are three ideas")
        for n in (8, 9, 10)
    ]
    assert [line.split(":")[0] for line in history.earlier.lines] == [f"T{n}" for n in range(1, 8)]
    assert history.earlier.lines[0] == 'T1: User: "message 1: what can I cook tonight?" / Alfred: "reply 1: here are three ideas"'


def test_the_folded_summary_never_outgrows_its_cap() -> None:
    config = ConversationConfig(summary_chars=600)
    history = talk(200, config)
    assert len(render_folded(history.earlier)) <= 600
    assert history.earlier.omitted > 0 and history.earlier.last_turn == 197


def test_reply_joins_the_message_of_its_turn() -> None:
    history = record_user_message(ConversationHistory(), 4, "use cod")
    history = record_reply(history, 4, "Cod it is.")
    assert history.recent == [Exchange(turn=4, user="use cod", assistant="Cod it is.")]


def test_a_long_message_is_kept_whole_and_shown_cut_to_the_configured_size() -> None:
    """Whatever an input schema accepts is stored whole; a prompt shows each message cut past message_chars."""
    config = ConversationConfig(message_chars=100)
    history = record_user_message(ConversationHistory(), 1, "x" * 500, config=config)
    assert history.recent[0].user == "x" * 500
    assert "User: " + "x" * 99 + "…" in render_conversation(history, config=config).splitlines()


def test_an_earlier_turn_cannot_be_recorded_after_a_later_one() -> None:
    history = record_user_message(ConversationHistory(), 5, "hi")
    with pytest.raises(StateError):
        record_user_message(history, 4, "too late")


def test_a_custom_summarizer_folds_the_exchanges() -> None:
    history = ConversationHistory()
    for turn in range(1, 6):
        history = record_user_message(history, turn, f"m{turn}", summarize=lambda e: f"topic of {e.user}")
    assert history.earlier.lines == ["T1: topic of m1", "T2: topic of m2"]


def test_a_model_summary_replaces_what_was_folded() -> None:
    history = with_model_summary(talk(6), "The user wants quick dinners and dislikes cod.")
    assert history.earlier.summary == "The user wants quick dinners and dislikes cod."
    assert history.earlier.lines == [] and history.earlier.summary_through == 3
    later = record_user_message(history, 7, "and tomorrow?")
    assert later.earlier.lines == [f"T4: {exchange_line(history.recent[0])}"]
    assert render_folded(later.earlier).startswith("The user wants quick dinners")


def test_rendering_marks_the_current_turn() -> None:
    history = record_user_message(talk(2), 3, "lets not do the french toast or wings")
    text = render_conversation(history, current_turn=3)
    assert text.startswith("User: message 1: what can I cook tonight?\nAlfred: reply 1: here are three ideas")
    assert text.endswith("User: lets not do the french toast or wings\n→ (current turn, being processed)")


@pytest.mark.parametrize(
    "fields",
    [
        pytest.param({"verbatim_turns": 0}, id="no-verbatim-turns"),
        pytest.param({"summary_chars": 10}, id="tiny-summary"),
        pytest.param({"message_chars": 5}, id="tiny-messages"),
    ],
)
def test_window_config_is_checked(fields: dict[str, int]) -> None:
    with pytest.raises(ConfigError):
        ConversationConfig(**fields)
