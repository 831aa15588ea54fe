"""Settings from flags and environment: database location, Supabase project, model."""

from __future__ import annotations

import re

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
        pytest.param("ALFRED_TURN_RETENTION", "two", "ALFRED_TURN_RETENTION takes a whole number (got 'two')", id="not-a-number"),
        pytest.param("ALFRED_CONVERSATION_TURNS", "0", "takes a whole number from 1 to 50 (got 0)", id="out-of-range"),
        pytest.param("ALFRED_COMPRESS_OLDER_TURNS", "maybe", "takes 1, true, yes, on or 0, false, no, off (got 'maybe')", id="not-a-flag"),
        pytest.param("ALFRED_QUICK_MODE_THRESHOLD", "2", "takes a number from 0 to 1 (got 2.0)", id="not-a-confidence"),
    ],
)
def test_a_bad_setting_names_itself(monkeypatch: pytest.MonkeyPatch, name: str, value: str, message: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError, match=re.escape(message)):
        Settings.from_env()


def test_model_options_default_to_auto_json_streaming_and_sized_budgets() -> None:
    from alfred_mcp.config import DEFAULT_MAX_TOKENS, ModelOptions

    options = ModelOptions.from_env(env={})
    assert (options.json_mode, options.timeout, options.stream, options.turn_calls, options.turn_seconds) == ("auto", 120.0, True, 30, 600.0)
    assert options.max_tokens == DEFAULT_MAX_TOKENS and max(DEFAULT_MAX_TOKENS.values()) < 4096


def test_model_option_flags_win_over_the_environment() -> None:
    from alfred_mcp.config import ModelOptions

    env = {"ALFRED_MODEL_JSON_MODE": "prompt", "ALFRED_MODEL_TIMEOUT": "9", "ALFRED_TURN_MAX_CALLS": "12", "ALFRED_MODEL_STREAM": "0",
           "ALFRED_MODEL_MAX_TOKENS": "act=4096,reply=512", "ALFRED_TURN_MAX_SECONDS": "90"}
    options = ModelOptions.from_env(env=env, overrides={"ALFRED_MODEL_JSON_MODE": "json_object", "ALFRED_TURN_MAX_CALLS": "8"})
    assert (options.json_mode, options.timeout, options.turn_calls, options.turn_seconds, options.stream) == ("json_object", 9.0, 8, 90.0, False)
    assert (options.max_tokens["act"], options.max_tokens["reply"], options.max_tokens["think"]) == (4096, 512, 1536)
    assert set(ModelOptions.from_env(env={"ALFRED_MODEL_MAX_TOKENS": "2048"}).max_tokens.values()) == {2048}


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        pytest.param("ALFRED_MODEL_JSON_MODE", "json", "is not a JSON mode: use one of auto, json_schema, json_object, prompt", id="json-mode"),
        pytest.param("ALFRED_MODEL_TIMEOUT", "-1", "must be a positive number of seconds", id="negative-timeout"),
        pytest.param("ALFRED_MODEL_TIMEOUT", "nan", "must be a positive number of seconds", id="nan-timeout"),
        pytest.param("ALFRED_TURN_MAX_CALLS", "2.5", "must be a positive whole number", id="fractional-calls"),
        pytest.param("ALFRED_TURN_MAX_SECONDS", "inf", "must be a positive number of seconds", id="infinite-seconds"),
        pytest.param("ALFRED_MODEL_STREAM", "maybe", "takes 1, true, yes, on or 0, false, no, off (got 'maybe')", id="stream"),
        pytest.param("ALFRED_MODEL_MAX_TOKENS", "plan=100", "'plan' is not a role", id="unknown-role"),
        pytest.param("ALFRED_MODEL_MAX_TOKENS", "act=many", "write a number of tokens", id="not-a-number"),
        pytest.param("ALFRED_MODEL_MAX_TOKENS", "8", "write a number of tokens (16 or more)", id="too-small"),
    ],
)
def test_a_bad_model_option_names_the_variable_and_what_it_takes(name: str, value: str, expected: str) -> None:
    from alfred_mcp.config import ModelOptions

    with pytest.raises(ConfigError, match=re.escape(expected)) as caught:
        ModelOptions.from_env(env={name: value})
    assert caught.value.message.startswith(name) and caught.value.fields["field"] == name
