"""The context windows a unit of work follows, from the settings (seed 001's configuration table)."""

from __future__ import annotations

from functools import cache

from alfred_mcp.config import TurnSettings
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.context import ContextConfig
from alfred_mcp.state.conversation import ConversationConfig


@cache
def context_config(turns: TurnSettings) -> ContextConfig:
    """Turn retention (entity window and narratives kept whole), verbatim exchanges, compression of older turns."""
    return ContextConfig(
        entity_window=turns.turn_retention, narrative_turns=turns.turn_retention,
        conversation=ConversationConfig(verbatim_turns=turns.conversation_turns),
        compress_older=turns.compress_older_turns,
    )


def config_of(work: UnitOfWork) -> ContextConfig:
    """The context configuration of this call."""
    return context_config(work.turns)
