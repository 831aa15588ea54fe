"""Settings from flags and environment: database location, Supabase project, model."""

from __future__ import annotations

import pytest

from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings, TurnSettings
from alfred_mcp.errors import ConfigError
from alfred_mcp.operations.windows import context_config


def test_supabase_url_selects_the_supabase_store(monkeypatch: pytest.MonkeyPatch) -> None:
    """SUPABASE_URL plus the anon key and JWT secret make the store Supabase; nothing connects yet."""
    monkeypatch.setenv("SUPABASE_URL", "http://127.0.0.1:54321")
    monkeypatch.setenv("SUPABASE_KEY", "anon-key")
    monkeypatch.setenv("SUPABASE_JWT_SECRET", "a-test-secret-of-at-least-32-characters")
    settings = Settings.from_env()
    assert settings.supabase is not None and settings.supabase.url == "http://127.0.0.1:54321"
    assert "secret" not in repr(settings.supabase)
    assert type(AlfredApp.from_settings(settings).store).__name__ == "SupabaseStore"


def test_supabase_without_its_jwt_secret_is_refused_not_downgraded(monkeypatch: pytest.MonkeyPatch) -> None:
    """No silent fall-back to a service key: without the JWT secret there is no Supabase store at all."""
    monkeypatch.setenv("SUPABASE_SERVICE_KEY", "service-key")
    monkeypatch.delenv("SUPABASE_JWT_SECRET", raising=False)
    with pytest.raises(ConfigError, match="JWT secret"):
        Settings.from_env(supabase_url="http://127.0.0.1:54321", supabase_key="anon-key")


def test_postgres_url_stays_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SUPABASE_URL", raising=False)
    settings = Settings.from_env(db="postgresql://alfred@localhost:5432/kitchen")
    assert settings.db == "postgresql://alfred@localhost:5432/kitchen" and settings.supabase is None
    assert type(AlfredApp.from_settings(settings).store).__name__ == "PostgresStore"


def test_context_windows_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seed 001's configuration table: turn retention, verbatim turns, compression; and the quick-mode gate."""
    monkeypatch.setenv("ALFRED_TURN_RETENTION", "4")
    monkeypatch.setenv("ALFRED_CONVERSATION_TURNS", "5")
    monkeypatch.setenv("ALFRED_COMPRESS_OLDER_TURNS", "false")
    monkeypatch.setenv("ALFRED_QUICK_MODE_THRESHOLD", "0.95")
    settings = Settings.from_env()
    assert settings.turns == TurnSettings(turn_retention=4, conversation_turns=5, compress_older_turns=False, quick_mode_threshold=0.95)
    config = context_config(settings.turns)
    assert (config.entity_window, config.narrative_turns, config.conversation.verbatim_turns, config.compress_older) == (4, 4, 5, False)


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        pytest.param("ALFRED_TURN_RETENTION", "two", "must be a number", id="not-a-number"),
        pytest.param("ALFRED_CONVERSATION_TURNS", "0", "must be 1 to 50", id="out-of-range"),
        pytest.param("ALFRED_COMPRESS_OLDER_TURNS", "maybe", "must be true or false", id="not-a-flag"),
        pytest.param("ALFRED_QUICK_MODE_THRESHOLD", "2", "must be 0 to 1", id="not-a-confidence"),
    ],
)
def test_a_bad_setting_names_itself(monkeypatch: pytest.MonkeyPatch, name: str, value: str, message: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match=message):
        Settings.from_env()
