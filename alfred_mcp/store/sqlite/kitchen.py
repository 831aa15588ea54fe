"""Kitchen rows on SQLite: select, count, insert, update, delete, reset, and the users who own them."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Sequence
from typing import Any

from alfred_mcp.errors import ConstraintViolationError
from alfred_mcp.kitchen.query import Query, Where
from alfred_mcp.kitchen.schema import TABLES, Table
from alfred_mcp.store.base import Row
from alfred_mcp.store.ddl import tables_in_fk_order
from alfred_mcp.store.filters import compile_limit, compile_order, compile_where, default_order
from alfred_mcp.store.filters import quote_identifier as q
from alfred_mcp.store.payloads import selected_columns
from alfred_mcp.store.sqlite.codec import insert_values, now_text, rows_out, update_assignments
from alfred_mcp.store.sqlite.connection import SQLiteConnection
from alfred_mcp.store.sqlite.errors import with_table_errors

_IN_CHUNK = 500


class SQLiteKitchenStore(SQLiteConnection):
    """The KitchenStore protocol on a SQLite file."""

    async def select(self, table: Table, query: Query, *, user_id: str) -> list[Row]:
        names = selected_columns(table, query.columns)
        where_sql, params = _where_sql(table, query.where, user_id)
        order_sql = compile_order(table, query.order_by or default_order(table))
        limit_sql, limit_params = compile_limit(query.limit)
        sql = _join(f"SELECT {_column_list(names)} FROM {q(table.name)}", where_sql, order_sql, limit_sql)
        rows = await self._read(lambda c: c.execute(sql, [*params, *limit_params]).fetchall())
        return rows_out(table, names, rows)

    async def count(self, table: Table, where: Where, *, user_id: str) -> int:
        where_sql, params = _where_sql(table, where, user_id)
        sql = _join(f"SELECT count(*) FROM {q(table.name)}", where_sql)
        row = await self._read(lambda c: c.execute(sql, params).fetchone())
        return int(row[0])

    async def insert(self, table: Table, rows: Sequence[Row], *, user_id: str) -> list[Row]:
        return await self._insert(table, rows, user_id, restoring=False)

    async def restore(self, table: Table, rows: Sequence[Row], *, user_id: str) -> list[Row]:
        return await self._insert(table, rows, user_id, restoring=True)

    async def _insert(self, table: Table, rows: Sequence[Row], user_id: str, *, restoring: bool) -> list[Row]:
        if not rows:
            return []
        now = now_text()
        values = [insert_values(table, row, user_id=user_id, now=now, restoring=restoring) for row in rows]
        names = table.visible_columns
        sql = f"INSERT INTO {q(table.name)} ({_column_list(c.name for c in table.columns)}) VALUES ({_marks(len(table.columns))})"

        def work(connection: sqlite3.Connection) -> None:
            _check_references(connection, table, rows, user_id)
            connection.executemany(sql, values)

        await self._write(lambda c: with_table_errors(c, table, user_id, work))
        # Every column was given explicitly (ids, stamps and defaults filled above), so the
        # stored rows are exactly these values: no RETURNING round trip per row.
        visible = [i for i, column in enumerate(table.columns) if column.name in names]
        return rows_out(table, names, [tuple(row[i] for i in visible) for row in values])

    async def update(self, table: Table, where: Where, values: Row, *, user_id: str) -> list[Row]:
        assignments = update_assignments(table, values)
        if "updated_at" in table.visible_columns:
            assignments.append(("updated_at", now_text()))
        where_sql, params = _where_sql(table, where, user_id)
        names = table.visible_columns
        set_sql = ", ".join(f"{q(name)} = ?" for name, _ in assignments)
        sql = _join(f"UPDATE {q(table.name)} SET {set_sql}", where_sql, f"RETURNING {_column_list(names)}")

        def work(connection: sqlite3.Connection) -> list[tuple[Any, ...]]:
            _check_references(connection, table, [values], user_id)
            return connection.execute(sql, [value for _, value in assignments] + params).fetchall()

        updated = await self._write(lambda c: with_table_errors(c, table, user_id, work))
        return rows_out(table, names, updated)

    async def delete(self, table: Table, where: Where, *, user_id: str) -> list[Row]:
        where_sql, params = _where_sql(table, where, user_id)
        names = table.visible_columns
        sql = _join(f"DELETE FROM {q(table.name)}", where_sql, f"RETURNING {_column_list(names)}")

        def work(connection: sqlite3.Connection) -> list[tuple[Any, ...]]:
            return connection.execute(sql, params).fetchall()

        deleted = await self._write(lambda c: with_table_errors(c, table, user_id, work))
        return rows_out(table, names, deleted)

    async def reset_kitchen(self, user_id: str) -> None:
        owned = [table for table in reversed(tables_in_fk_order()) if table.user_owned]

        def work(connection: sqlite3.Connection) -> None:
            for table in owned:
                connection.execute(f'DELETE FROM {q(table.name)} WHERE "user_id" = ?', (user_id,))

        await self._write(work)

    async def ensure_user(self, handle: str) -> str:
        def work(connection: sqlite3.Connection) -> str:
            connection.execute(
                'INSERT INTO "users" ("id", "handle", "created_at") VALUES (?, ?, ?) ON CONFLICT ("handle") DO NOTHING',
                (str(uuid.uuid4()), handle, now_text()),
            )
            return str(connection.execute('SELECT "id" FROM "users" WHERE "handle" = ?', (handle,)).fetchone()[0])

        return await self._write(work)


def _check_references(connection: sqlite3.Connection, table: Table, rows: Sequence[Row], user_id: str) -> None:
    """Every FK value must name an existing row of the same user (the catalog is shared).

    Raises:
        ConstraintViolationError: naming the column, never the value.
    """
    for column in table.fk_columns:
        if column.fk is None:
            continue
        wanted = {row[column.name] for row in rows if row.get(column.name) is not None}
        target = TABLES[column.fk.table]
        if wanted and _existing_ids(connection, target, sorted(wanted, key=str), user_id) != wanted:
            raise ConstraintViolationError(
                f"{column.name} does not point at an existing {target.noun}.", field=column.name, table=table.name
            )


def _existing_ids(connection: sqlite3.Connection, table: Table, ids: list[Any], user_id: str) -> set[Any]:
    found: set[Any] = set()
    scope, scope_params = (' AND "user_id" = ?', [user_id]) if table.user_owned else ("", [])
    for start in range(0, len(ids), _IN_CHUNK):
        chunk = ids[start:start + _IN_CHUNK]
        sql = f'SELECT "id" FROM {q(table.name)} WHERE "id" IN ({_marks(len(chunk))}){scope}'
        found.update(row[0] for row in connection.execute(sql, [*chunk, *scope_params]))
    return found


def _marks(count: int) -> str:
    return ", ".join(["?"] * count)


def _join(*parts: str) -> str:
    return " ".join(part for part in parts if part)


def _column_list(names: Any) -> str:
    return ", ".join(q(name) for name in names)


def _where_sql(table: Table, where: Where, user_id: str) -> tuple[str, list[Any]]:
    fragment, params = compile_where(table, where)
    conditions, scope = (['"user_id" = ?'], [user_id]) if table.user_owned else ([], [])
    if fragment:
        conditions.append(f"({fragment})")
    return ("WHERE " + " AND ".join(conditions) if conditions else ""), [*scope, *params]
