"""Settings: where the database is and who the local user is. No I/O beyond reading env."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from platformdirs import user_data_dir

DB_ENV = "ALFRED_DB"
USER_ENV = "ALFRED_USER"
CHECK_RESULTS_ENV = "ALFRED_CHECK_RESULTS"
MODEL_ENV = "ALFRED_MODEL"


def default_db_path() -> Path:
    """The per-user data dir's kitchen.db (e.g. ~/.local/share/alfred-mcp/kitchen.db)."""
    return Path(user_data_dir("alfred-mcp", appauthor=False)) / "kitchen.db"


@dataclass(frozen=True)
class Settings:
    """What the server needs to start; built from flags, then env, then defaults."""

    db: str = field(default_factory=lambda: str(default_db_path()))
    """A SQLite file path or a postgresql:// URL (kept as text: a Path would mangle the URL)."""
    user: str = "local"
    seed_demo: bool = True
    check_results: bool = False
    """Validate every tool result against its published outputSchema on the server too (tests, debugging)."""
    model: str | None = None
    """The agent loop's model, e.g. 'anthropic:claude-sonnet-4-5' (None: no server-side model)."""

    @classmethod
    def from_env(
        cls, db: str | None = None, user: str | None = None, seed_demo: bool = True, model: str | None = None
    ) -> Settings:
        location = db or os.environ.get(DB_ENV)
        return cls(
            db=location if location else str(default_db_path()),
            user=user or os.environ.get(USER_ENV) or "local",
            seed_demo=seed_demo,
            check_results=os.environ.get(CHECK_RESULTS_ENV, "") not in ("", "0", "false"),
            model=model or os.environ.get(MODEL_ENV) or None,
        )
