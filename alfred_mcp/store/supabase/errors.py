"""PostgREST errors -> StoreError / ConstraintViolationError: SQLSTATE first, the rule recovered from the message."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from alfred_mcp.errors import ConstraintViolationError, SessionConflictError, StoreError
from alfred_mcp.kitchen.schema import Table
from alfred_mcp.store.base import session_save_refused
from alfred_mcp.store.postgres.errors import BUSY_STATES, constraint_error
from alfred_mcp.store.postgres.rpc import CONFLICT_STATE, GONE_STATE

if TYPE_CHECKING:
    from postgrest.exceptions import APIError

_CONSTRAINT = re.compile(r'constraint "([^"]+)"')
_COLUMN = re.compile(r'column "([^"]+)"')


def to_store_error(error: APIError, table: Table | None) -> StoreError | SessionConflictError:
    """A PostgREST error as a StoreError: SQLSTATE first, the rule recovered from the message."""
    state = str(error.code or "")
    message = str(error.message or "")
    if state.startswith("23"):
        constraint = _CONSTRAINT.search(message)
        column = _COLUMN.search(message)
        return constraint_error(state, constraint.group(1) if constraint else None, column.group(1) if column else None, table)
    if state.startswith("22"):
        return ConstraintViolationError("A value does not fit its column's type.", table=table.name if table else None, reason=state)
    if state == GONE_STATE:
        return session_save_refused(None)
    if state == CONFLICT_STATE:
        return session_save_refused(int(message) if message.isdigit() else None)
    if state in BUSY_STATES:
        return StoreError("The database was busy with a conflicting change; try again.", reason=state)
    if state == "42501" or state.startswith("PGRST3"):
        return StoreError("The database refused access to these rows.", reason=state)
    return StoreError(f"The database failed ({state or 'no code'}).", reason=state or None)
