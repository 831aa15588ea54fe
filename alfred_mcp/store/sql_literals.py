"""Schema constants (defaults, enum values, bounds) written as SQL literals, for generated DDL.

Only values from the kitchen schema pass through here, never input.
"""

from __future__ import annotations

from typing import Any


def number_literal(value: float | None) -> str | None:
    """A bound as SQL: whole numbers without a decimal point."""
    if value is None:
        return None
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def literal_sql(value: Any, *, true: str = "1", false: str = "0") -> str:
    """A schema constant as a SQL literal: strings single-quoted, booleans as the dialect spells them."""
    if isinstance(value, bool):
        return true if value else false
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    raise TypeError(f"no SQL literal for {type(value).__name__}")
