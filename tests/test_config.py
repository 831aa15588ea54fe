"""Settings from flags and environment: database location, Supabase project, model."""

from __future__ import annotations

import pytest

from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings
from alfred_mcp.errors import ConfigError


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
