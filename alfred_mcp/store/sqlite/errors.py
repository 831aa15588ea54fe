"""sqlite3 errors -> StoreError / ConstraintViolationError: no SQL, no values, the column or rule named."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import TypeVar

from alfred_mcp.errors import ConstraintViolationError, StoreError
from alfred_mcp.kitchen.schema import Table
from alfred_mcp.store.ddl import check_messages

T = TypeVar("T")


def to_store_error(error: sqlite3.Error | sqlite3.Warning, table: Table | None = None) -> StoreError:
    """The StoreError for a driver error: no SQL, no values, the column or rule named."""
    if isinstance(error, sqlite3.IntegrityError):
        return _constraint_error(str(error), table)
    reason = getattr(error, "sqlite_errorname", type(error).__name__)
    if "database is locked" in str(error):
        return StoreError("The database is busy (another process holds a lock); try again.", reason=reason)
    return StoreError(f"The database failed ({reason}).", reason=reason)


def _constraint_error(text: str, table: Table | None) -> ConstraintViolationError:
    kind, _, detail = text.partition(" constraint failed")
    detail = detail.removeprefix(": ")
    table_name = table.name if table else None
    if kind == "NOT NULL":
        column = detail.rsplit(".", 1)[-1]
        return ConstraintViolationError(f"{column} is required.", field=column, table=table_name)
    if kind == "CHECK" and table is not None and detail in check_messages(table.name):
        column, message = check_messages(table.name)[detail]
        enum = table.column(column).enum if detail.endswith("_enum") else None
        return ConstraintViolationError(f"{message}.", field=column, table=table_name, valid=list(enum) if enum else None)
    if kind == "UNIQUE":
        return _unique_error([part.rsplit(".", 1)[-1] for part in detail.split(", ")], table)
    if kind == "FOREIGN KEY":
        return ConstraintViolationError("A referenced row does not exist.", table=table_name)
    return ConstraintViolationError("A value breaks a rule of the table.", table=table_name)


def _unique_error(columns: list[str], table: Table | None) -> ConstraintViolationError:
    if table is not None and table.one_per_user and columns == ["user_id"]:
        return ConstraintViolationError(
            f"There is already a {table.noun} row for this user; update it instead.", table=table.name
        )
    shown = " and ".join(columns)
    return ConstraintViolationError(
        f"{shown} must be unique: another row already has the same value.",
        field=columns[0], table=table.name if table else None,
    )


def with_table_errors(
    connection: sqlite3.Connection, table: Table, user_id: str, work: Callable[[sqlite3.Connection], T]
) -> T:
    """Run `work`, telling a constraint failure in terms of `table` (and an unknown user as such)."""
    try:
        return work(connection)
    except sqlite3.IntegrityError as error:
        if table.user_owned and "FOREIGN KEY" in str(error) and not _user_exists(connection, user_id):
            raise ConstraintViolationError("The user does not exist.", field="user_id", table=table.name) from error
        raise to_store_error(error, table) from error


def _user_exists(connection: sqlite3.Connection, user_id: str) -> bool:
    return connection.execute('SELECT 1 FROM "users" WHERE "id" = ?', (user_id,)).fetchone() is not None
