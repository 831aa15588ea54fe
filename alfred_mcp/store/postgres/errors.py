"""psycopg errors -> StoreError / ConstraintViolationError, by SQLSTATE and constraint name.

The server's message text is never passed on (it can hold SQL and values); the column or rule
is recovered from the error's diagnostics and the schema's constraint names (`schema.py`),
and told with the same sentences SQLiteStore uses.
"""

from __future__ import annotations

import psycopg
from psycopg_pool import PoolTimeout

from alfred_mcp.errors import ConstraintViolationError, StoreError
from alfred_mcp.kitchen.schema import TABLES, Table
from alfred_mcp.store.ddl import check_messages
from alfred_mcp.store.postgres.schema import fk_constraints, unique_constraints

BUSY_STATES = frozenset({"40001", "40P01", "55P03", "57014"})
"""Serialization failure, deadlock, lock not available, statement cancelled: worth a retry."""


def to_store_error(error: psycopg.Error | PoolTimeout, table: Table | None = None) -> StoreError:
    """The StoreError for a driver error: no SQL, no values, the column or rule named."""
    if isinstance(error, PoolTimeout):
        return StoreError("No database connection became free in time; try again.", reason="pool_timeout")
    state = error.sqlstate or ""
    reason = state or type(error).__name__
    if state.startswith("23"):
        return constraint_error(state, error.diag.constraint_name, error.diag.column_name, table)
    if state.startswith("22"):
        return ConstraintViolationError(
            "A value does not fit its column's type.", table=table.name if table else None, reason=reason
        )
    if state in BUSY_STATES:
        return StoreError("The database was busy with a conflicting change; try again.", reason=reason)
    if state == "42501":
        return StoreError("The database refused access to these rows.", reason=reason)
    if isinstance(error, psycopg.OperationalError):
        return StoreError("The database connection failed; try again.", reason=reason)
    return StoreError(f"The database failed ({reason}).", reason=reason)


def constraint_error(state: str, constraint: str | None, column: str | None, table: Table | None) -> ConstraintViolationError:
    """Class 23 (integrity) errors, in SQLiteStore's words."""
    table_name = table.name if table else None
    if state == "23502" and column:
        return ConstraintViolationError(f"{column} is required.", field=column, table=table_name)
    if state == "23514" and table is not None and constraint in check_messages(table.name):
        column, message = check_messages(table.name)[constraint]
        enum = table.column(column).enum if constraint.endswith("_enum") else None
        return ConstraintViolationError(f"{message}.", field=column, table=table_name, valid=list(enum) if enum else None)
    if state == "23505":
        return _unique_error(constraint, table)
    if state == "23503":
        return _foreign_key_error(constraint, table_name)
    return ConstraintViolationError("A value breaks a rule of the table.", table=table_name)


def _unique_error(constraint: str | None, table: Table | None) -> ConstraintViolationError:
    columns = unique_constraints(table).get(constraint or "") if table is not None else None
    if table is None or columns is None:
        return ConstraintViolationError("Another row already has the same value; try again.", table=table.name if table else None)
    if table.one_per_user and columns == ("user_id",):
        return ConstraintViolationError(f"There is already a {table.noun} row for this user; update it instead.", table=table.name)
    return ConstraintViolationError(
        f"{' and '.join(columns)} must be unique: another row already has the same value.", field=columns[0], table=table.name
    )


def _foreign_key_error(constraint: str | None, table_name: str | None) -> ConstraintViolationError:
    found = fk_constraints().get(constraint or "")
    if found is None:
        return ConstraintViolationError("A referenced row does not exist.", table=table_name)
    owner, column = found
    if column == "user_id":
        return ConstraintViolationError("The user does not exist.", field="user_id", table=owner)
    target = TABLES[owner].column(column).fk
    noun = TABLES[target.table].noun if target else "row"
    return ConstraintViolationError(f"{column} does not point at an existing {noun}.", field=column, table=owner)
