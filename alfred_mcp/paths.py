"""Where the published contracts live: the repo's top-level folders, or the wheel's copy."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def contract_dir(name: str) -> Path:
    """The folder `tools`, `resources` or `prompts`, whether installed or run from the repo."""
    for candidate in (_PACKAGE / "contracts" / name, _PACKAGE.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"alfred-mcp is missing its '{name}' folder; reinstall the package.")
