"""Kitchen rows on SQLite: select, count, insert, update, delete, reset, and the users who own them."""

from __future__ import annotations

import sqlite3
import uuid
from collections.abc import Sequence
from operator import itemgetter
from typing import Any

from alfred_mcp.errors import ConstraintViolationError
from alfred_mcp.kitchen.query import Query, Where
from alfred_mcp.kitchen.schema import TABLES, Table
from alfred_mcp.store.base import Children, Row
from alfred_mcp.store.ddl import KITCHEN_STAMPS, TABLE_STAMPS, tables_a_write_reaches, tables_in_fk_order
from alfred_mcp.store.filters import compile_limit, compile_order, compile_where, default_order
from alfred_mcp.store.filters import quote_identifier as q
from alfred_mcp.store.keyset import KeyTerm, anchor_columns, cursor_anchor_gone, key_terms, keyset_sql
from alfred_mcp.store.payloads import selected_columns
from alfred_mcp.store.sqlite.codec import encode_inserts, now_text, restore_values, rows_out, update_assignments
from alfred_mcp.store.sqlite.connection import SQLiteConnection
from alfred_mcp.store.sqlite.errors import with_table_errors

_IN_CHUNK = 500
_STAMP = (
    f'INSERT INTO "{KITCHEN_STAMPS}" ("user_id", "stamp") VALUES (?, abs(random())) '
    'ON CONFLICT ("user_id") DO UPDATE SET "stamp" = excluded."stamp"'
)
_READ_STAMP = f'SELECT "stamp" FROM "{KITCHEN_STAMPS}" WHERE "user_id" = ?'
_STAMP_TABLE = (
    f'INSERT INTO "{TABLE_STAMPS}" ("user_id", "table_name", "stamp") VALUES (?, ?, abs(random())) '
    'ON CONFLICT ("user_id", "table_name") DO UPDATE SET "stamp" = excluded."stamp"'
)
_STAMP_EVERY_KITCHEN = f'UPDATE "{KITCHEN_STAMPS}" SET "stamp" = abs(random())'
_STAMP_TABLE_OF_EVERYONE = f'UPDATE "{TABLE_STAMPS}" SET "stamp" = abs(random()) WHERE "table_name" = ?'
_OWNED = tuple(table.name for table in tables_in_fk_order() if table.user_owned)


class SQLiteKitchenStore(SQLiteConnection):
    """The KitchenStore protocol on a SQLite file."""

    async def select(self, table: Table, query: Query, *, user_id: str) -> list[Row]:
        names = selected_columns(table, query.columns)
        order = query.order_by or default_order(table)
        where_sql, params = _where_sql(table, query.where, user_id)
        order_sql = compile_order(table, order)
        limit_sql, limit_params = compile_limit(query.limit)
        head = f"SELECT {_column_list(names)} FROM {q(table.name)}"
        if query.after is None:
            sql = _join(head, where_sql, order_sql, limit_sql)
            rows = await self._read_bounded(lambda c: c.execute(sql, [*params, *limit_params]).fetchall())
            return rows_out(table, names, rows)
        terms = key_terms(table, order, "rowid")
        anchor_sql, anchor_params = _anchor_sql(table, terms, query.after, user_id)

        def page(connection: sqlite3.Connection) -> list[tuple[Any, ...]]:
            anchor = connection.execute(anchor_sql, anchor_params).fetchone()
            if anchor is None:
                raise cursor_anchor_gone(table)
            keyset, keyset_params = keyset_sql(terms, anchor, "?")
            sql = _join(head, f"{where_sql} AND {keyset}" if where_sql else f"WHERE {keyset}", order_sql, limit_sql)
            return connection.execute(sql, [*params, *keyset_params, *limit_params]).fetchall()

        return rows_out(table, names, await self._read_bounded(page))

    async def count(self, table: Table, where: Where, *, user_id: str) -> int:
        where_sql, params = _where_sql(table, where, user_id)
        sql = _join(f"SELECT count(*) FROM {q(table.name)}", where_sql)
        row = await self._read_bounded(lambda c: c.execute(sql, params).fetchone())
        return int(row[0])

    async def insert(self, table: Table, rows: Sequence[Row], *, user_id: str) -> list[Row]:
        return await self._insert(table, rows, user_id, restoring=False)

    async def restore(self, table: Table, rows: Sequence[Row], *, user_id: str) -> list[Row]:
        return await self._insert(table, rows, user_id, restoring=True)

    async def _insert(self, table: Table, rows: Sequence[Row], user_id: str, *, restoring: bool) -> list[Row]:
        if not rows:
            return []
        if restoring:
            values: Sequence[Sequence[Any]] = [restore_values(table, row, user_id=user_id) for row in rows]
            names = table.visible_columns
            pick = itemgetter(*(i for i, column in enumerate(table.columns) if column.name in names))
            written = rows_out(table, names, [pick(row) for row in values])
        else:
            values, written = encode_inserts(table, rows, user_id=user_id, now=now_text())
        await self._write(lambda c: _insert_checked(c, table, rows, values, user_id))
        # Every column was given explicitly (ids, stamps and defaults filled above), so the
        # stored rows are exactly these values: no RETURNING round trip per row.
        return written

    async def insert_with_children(
        self, table: Table, rows: Sequence[Row], children: Sequence[Children], *, user_id: str
    ) -> tuple[list[Row], list[list[Row]]]:
        # One write (one worker-thread hop, one savepoint inside a transaction) for parents and children.
        now = now_text()
        values, parents = encode_inserts(table, rows, user_id=user_id, now=now) if rows else ([], [])
        groups = []
        for group in children:
            link = (group.column, [parents[i]["id"] for i in group.parents])
            group_values, written = encode_inserts(group.table, group.rows, user_id=user_id, now=now, link=link) if group.rows else ([], [])
            groups.append((group, group_values, written))

        def work(connection: sqlite3.Connection) -> None:
            if values:
                _insert_checked(connection, table, rows, values, user_id)
            for group, group_values, _ in groups:
                if group_values:
                    # The rows as given leave out the link: it names parents this write made, not rows to check.
                    _insert_checked(connection, group.table, group.rows, group_values, user_id)

        if values or any(group_values for _, group_values, _ in groups):
            await self._write(work)
        return parents, [written for _, _, written in groups]

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
            updated = connection.execute(sql, [value for _, value in assignments] + params).fetchall()
            _stamp(connection, table, user_id)
            return updated

        updated = await self._write(lambda c: with_table_errors(c, table, user_id, work))
        return rows_out(table, names, updated)

    async def delete(self, table: Table, where: Where, *, user_id: str) -> list[Row]:
        where_sql, params = _where_sql(table, where, user_id)
        names = table.visible_columns
        sql = _join(f"DELETE FROM {q(table.name)}", where_sql, f"RETURNING {_column_list(names)}")

        def work(connection: sqlite3.Connection) -> list[tuple[Any, ...]]:
            deleted = connection.execute(sql, params).fetchall()
            _stamp(connection, table, user_id, deleting=True)
            return deleted

        deleted = await self._write(lambda c: with_table_errors(c, table, user_id, work))
        return rows_out(table, names, deleted)

    async def reset_kitchen(self, user_id: str) -> None:
        owned = [table for table in reversed(tables_in_fk_order()) if table.user_owned]

        def work(connection: sqlite3.Connection) -> None:
            for table in owned:
                connection.execute(f'DELETE FROM {q(table.name)} WHERE "user_id" = ?', (user_id,))
            connection.execute(_STAMP, (user_id,))
            connection.executemany(_STAMP_TABLE, [(user_id, name) for name in _OWNED])

        await self._write(work)

    async def kitchen_stamp(self, user_id: str) -> int:
        row = await self._read_now(lambda c: c.execute(_READ_STAMP, (user_id,)).fetchone())
        return 0 if row is None else int(row[0])

    async def table_stamps(self, user_id: str, tables: Sequence[str]) -> tuple[int, ...]:
        sql = f'SELECT "table_name", "stamp" FROM "{TABLE_STAMPS}" WHERE "user_id" = ? AND "table_name" IN ({_marks(len(tables))})'
        found = dict(await self._read_now(lambda c: c.execute(sql, (user_id, *tables)).fetchall()))
        return tuple(int(found.get(name, 0)) for name in tables)

    async def ensure_user(self, handle: str, *, formerly: str | None = None) -> str:
        def work(connection: sqlite3.Connection) -> str:
            if formerly is not None and connection.execute('SELECT 1 FROM "users" WHERE "handle" = ?', (handle,)).fetchone() is None:
                connection.execute('UPDATE "users" SET "handle" = ? WHERE "handle" = ?', (handle, formerly))
            connection.execute(
                'INSERT INTO "users" ("id", "handle", "created_at") VALUES (?, ?, ?) ON CONFLICT ("handle") DO NOTHING',
                (str(uuid.uuid4()), handle, now_text()),
            )
            return str(connection.execute('SELECT "id" FROM "users" WHERE "handle" = ?', (handle,)).fetchone()[0])

        return await self._write(work)


def _insert_checked(connection: sqlite3.Connection, table: Table, rows: Sequence[Row], values: Sequence[Sequence[Any]], user_id: str) -> None:
    """Insert the encoded `values` of `rows` after checking the rows' references; errors told in terms of `table`."""
    sql = f"INSERT INTO {q(table.name)} ({_column_list(c.name for c in table.columns)}) VALUES ({_marks(len(table.columns))})"

    def work(connection: sqlite3.Connection) -> None:
        _check_references(connection, table, rows, user_id)
        connection.executemany(sql, values)
        _stamp(connection, table, user_id)

    with_table_errors(connection, table, user_id, work)


def _stamp(connection: sqlite3.Connection, table: Table, user_id: str, *, deleting: bool = False) -> None:
    """New stamps for what a write to `table` changed: the user's kitchen stamp and the stamp of each table
    it reached (its own; a delete also the tables its ON DELETE actions change). A delete from the shared
    catalog reaches every user's rows that referenced it; other catalog writes change no user's rows."""
    reached = tables_a_write_reaches(table.name) if deleting else (table.name,)
    if table.user_owned:
        connection.execute(_STAMP, (user_id,))
        connection.executemany(_STAMP_TABLE, [(user_id, name) for name in reached])
    elif len(reached) > 1:
        connection.execute(_STAMP_EVERY_KITCHEN)
        connection.executemany(_STAMP_TABLE_OF_EVERYONE, [(name,) for name in reached[1:]])


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


def _anchor_sql(table: Table, terms: list[KeyTerm], row_id: str, user_id: str) -> tuple[str, list[Any]]:
    scope, scope_params = (' AND "user_id" = ?', [user_id]) if table.user_owned else ("", [])
    return f'SELECT {anchor_columns(terms)} FROM {q(table.name)} WHERE "id" = ?{scope}', [row_id, *scope_params]


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
