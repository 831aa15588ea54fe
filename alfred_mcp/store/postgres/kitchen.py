"""Kitchen rows on PostgreSQL: select, count, insert, update, delete, reset, and the users who own them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from alfred_mcp.errors import ConstraintViolationError, StoreError
from alfred_mcp.kitchen.query import Query, Where
from alfred_mcp.kitchen.schema import TABLES, Table
from alfred_mcp.store.base import Children, Row, insert_with_children_in_steps
from alfred_mcp.store.ddl import KITCHEN_STAMPS, TABLE_STAMPS, tables_in_fk_order
from alfred_mcp.store.filters import compile_limit, compile_order, compile_where, default_order
from alfred_mcp.store.filters import quote_identifier as q
from alfred_mcp.store.ids import new_ids
from alfred_mcp.store.keyset import KeyTerm, anchor_columns, cursor_anchor_gone, key_terms, keyset_sql
from alfred_mcp.store.payloads import selected_columns
from alfred_mcp.store.postgres.codec import (
    new_row_values,
    postgres_where,
    restored_row_values,
    update_assignments,
    utc_now,
    uuid_key,
)
from alfred_mcp.store.postgres.connection import PooledConnection, PostgresConnection
from alfred_mcp.store.postgres.schema import INSERT_ORDER_COLUMN


class PostgresKitchenStore(PostgresConnection):
    """The KitchenStore protocol on a PostgreSQL database."""

    async def select(self, table: Table, query: Query, *, user_id: str) -> list[Row]:
        names = selected_columns(table, query.columns)
        order = query.order_by or default_order(table)
        where_sql, params = _where_sql(table, query.where, user_id)
        order_sql = compile_order(table, order, "postgres")
        limit_sql, limit_params = compile_limit(query.limit, "postgres")
        head = f"SELECT {_column_list(names)} FROM {q(table.name)}"
        terms = key_terms(table, order, INSERT_ORDER_COLUMN) if query.after is not None else []
        anchor_sql, anchor_params = _anchor_sql(table, terms, query.after, user_id) if terms else ("", [])
        # Inside a write's transaction a user's rows are read locked until it ends: the write that follows works
        # on them as read (a read-modify-write of a list column, a top-up), and no other writer slips in between.
        lock_sql = f"FOR UPDATE OF {q(table.name)}" if table.user_owned and self.in_transaction() else ""

        async def work(connection: PooledConnection) -> list[tuple[Any, ...]]:
            if not terms:
                sql = _join(head, where_sql, order_sql, limit_sql, lock_sql)
                return await (await connection.execute(sql, [*params, *limit_params])).fetchall()
            anchor = await (await connection.execute(anchor_sql, anchor_params)).fetchone()
            if anchor is None:
                raise cursor_anchor_gone(table)
            keyset, keyset_params = keyset_sql(terms, anchor, "%s")
            sql = _join(head, f"{where_sql} AND {keyset}" if where_sql else f"WHERE {keyset}", order_sql, limit_sql, lock_sql)
            return await (await connection.execute(sql, [*params, *keyset_params, *limit_params])).fetchall()

        return _rows_out(names, await self._read(work, _acting_for(table, user_id), table))

    async def count(self, table: Table, where: Where, *, user_id: str) -> int:
        where_sql, params = _where_sql(table, where, user_id)
        sql = _join(f"SELECT count(*) FROM {q(table.name)}", where_sql)

        async def work(connection: PooledConnection) -> int:
            row = await (await connection.execute(sql, params)).fetchone()
            return int(row[0]) if row else 0

        return await self._read(work, _acting_for(table, user_id), table)

    async def insert(self, table: Table, rows: Sequence[Row], *, user_id: str) -> list[Row]:
        return await self._insert(table, rows, user_id, restoring=False)

    async def insert_with_children(
        self, table: Table, rows: Sequence[Row], children: Sequence[Children], *, user_id: str
    ) -> tuple[list[Row], list[list[Row]]]:
        return await insert_with_children_in_steps(self, table, rows, children, user_id=user_id)

    async def restore(self, table: Table, rows: Sequence[Row], *, user_id: str) -> list[Row]:
        return await self._insert(table, rows, user_id, restoring=True)

    async def _insert(self, table: Table, rows: Sequence[Row], user_id: str, *, restoring: bool) -> list[Row]:
        if not rows:
            return []
        scope = uuid_key(user_id)
        now = utc_now()
        if restoring:
            values = [restored_row_values(table, row, user_id=scope) for row in rows]
        else:
            values = [new_row_values(table, row, row_id=row_id, user_id=scope, now=now) for row, row_id in zip(rows, new_ids(len(rows)))]
        columns = table.columns
        names = table.visible_columns
        sql = (
            f"INSERT INTO {q(table.name)} ({_column_list(c.name for c in columns)}) "
            f"VALUES ({', '.join(['%s'] * len(columns))}) RETURNING {_column_list(names)}"
        )
        column_names = [column.name for column in columns]

        async def work(connection: PooledConnection) -> list[tuple[Any, ...]]:
            await _check_references(connection, table, [dict(zip(column_names, row)) for row in values], scope)
            if len(values) == 1:
                return await (await connection.execute(sql, values[0])).fetchall()
            cursor = connection.cursor()
            await cursor.executemany(sql, values, returning=True)
            stored = []
            while True:
                stored.extend(await cursor.fetchall())
                if not cursor.nextset():
                    return stored

        return _rows_out(names, await self._write(work, _acting_for(table, user_id), table))

    async def update(self, table: Table, where: Where, values: Row, *, user_id: str) -> list[Row]:
        scope = uuid_key(user_id)
        assignments = update_assignments(table, values)
        if "updated_at" in table.visible_columns:
            assignments.append(("updated_at", utc_now()))
        where_sql, params = _where_sql(table, where, user_id)
        names = table.visible_columns
        set_sql = ", ".join(f"{q(name)} = %s" for name, _ in assignments)
        sql = _join(f"UPDATE {q(table.name)} SET {set_sql}", where_sql, f"RETURNING {_column_list(names)}")

        async def work(connection: PooledConnection) -> list[tuple[Any, ...]]:
            await _check_references(connection, table, [dict(assignments)], scope)
            return await (await connection.execute(sql, [value for _, value in assignments] + params)).fetchall()

        return _rows_out(names, await self._write(work, _acting_for(table, user_id), table))

    async def delete(self, table: Table, where: Where, *, user_id: str) -> list[Row]:
        where_sql, params = _where_sql(table, where, user_id)
        names = table.visible_columns
        sql = _join(f"DELETE FROM {q(table.name)}", where_sql, f"RETURNING {_column_list(names)}")

        async def work(connection: PooledConnection) -> list[tuple[Any, ...]]:
            return await (await connection.execute(sql, params)).fetchall()

        return _rows_out(names, await self._write(work, _acting_for(table, user_id), table))

    async def reset_kitchen(self, user_id: str) -> None:
        owned = [table for table in reversed(tables_in_fk_order()) if table.user_owned]
        scope = uuid_key(user_id)

        async def work(connection: PooledConnection) -> None:
            for table in owned:
                await connection.execute(f'DELETE FROM {q(table.name)} WHERE "user_id" = %s', (scope,))

        await self._write(work, scope, None)

    async def kitchen_stamp(self, user_id: str) -> int:
        sql = f'SELECT "stamp" FROM {q(KITCHEN_STAMPS)} WHERE "user_id" = %s'

        async def work(connection: PooledConnection) -> int:
            row = await (await connection.execute(sql, (uuid_key(user_id),))).fetchone()
            return 0 if row is None else int(row[0])

        return await self._read(work, None, None)

    async def table_stamps(self, user_id: str, tables: Sequence[str]) -> tuple[int, ...]:
        sql = f'SELECT "table_name", "stamp" FROM {q(TABLE_STAMPS)} WHERE "user_id" = %s AND "table_name" = ANY(%s)'

        async def work(connection: PooledConnection) -> dict[str, int]:
            rows = await (await connection.execute(sql, (uuid_key(user_id), list(tables)))).fetchall()
            return {str(name): int(stamp) for name, stamp in rows}

        found = await self._read(work, None, None)
        return tuple(found.get(name, 0) for name in tables)

    async def ensure_user(self, handle: str, *, formerly: str | None = None) -> str:
        async def work(connection: PooledConnection) -> str:
            if formerly is not None:
                await connection.execute(
                    'UPDATE "users" SET "handle" = %s WHERE "handle" = %s AND NOT EXISTS (SELECT 1 FROM "users" WHERE "handle" = %s)',
                    (handle, formerly, handle),
                )
            sql = 'INSERT INTO "users" ("handle") VALUES (%s) ON CONFLICT ("handle") DO NOTHING RETURNING "id"'
            row = await (await connection.execute(sql, (handle,))).fetchone()
            if row is None:
                row = await (await connection.execute('SELECT "id" FROM "users" WHERE "handle" = %s', (handle,))).fetchone()
            if row is None:
                raise StoreError("The user vanished while being created; try again.", field="user")
            return str(row[0])

        return await self._write(work, None, None)


def _acting_for(table: Table, user_id: str) -> str | None:
    """Whom a call on `table` runs as: the user for user-owned tables, the login role for the catalog."""
    return uuid_key(user_id) if table.user_owned else None


def _where_sql(table: Table, where: Where, user_id: str) -> tuple[str, list[Any]]:
    fragment, params = compile_where(table, postgres_where(table, where), "postgres")
    conditions, scope = (['"user_id" = %s'], [uuid_key(user_id)]) if table.user_owned else ([], [])
    if fragment:
        conditions.append(f"({fragment})")
    return ("WHERE " + " AND ".join(conditions) if conditions else ""), [*scope, *params]


async def _check_references(connection: PooledConnection, table: Table, rows: Sequence[Row], user_id: str) -> None:
    """Every FK value must name an existing row of the same user (the catalog is shared).

    Raises:
        ConstraintViolationError: naming the column, never the value.
    """
    for column in table.fk_columns:
        if column.fk is None:
            continue
        wanted = {row[column.name] for row in rows if row.get(column.name) is not None}
        if not wanted:
            continue
        target = TABLES[column.fk.table]
        scope, params = (' AND "user_id" = %s', [user_id]) if target.user_owned else ("", [])
        sql = f'SELECT "id" FROM {q(target.name)} WHERE "id" = ANY(%s::uuid[]){scope}'
        found = {row[0] for row in await (await connection.execute(sql, [sorted(wanted), *params])).fetchall()}
        if found != wanted:
            raise ConstraintViolationError(
                f"{column.name} does not point at an existing {target.noun}.", field=column.name, table=table.name
            )


def _anchor_sql(table: Table, terms: list[KeyTerm], row_id: str | None, user_id: str) -> tuple[str, list[Any]]:
    scope, scope_params = (' AND "user_id" = %s', [uuid_key(user_id)]) if table.user_owned else ("", [])
    return f'SELECT {anchor_columns(terms)} FROM {q(table.name)} WHERE "id" = %s{scope}', [uuid_key(row_id), *scope_params]


def _join(*parts: str) -> str:
    return " ".join(part for part in parts if part)


def _column_list(names: Any) -> str:
    return ", ".join(q(name) for name in names)


def _rows_out(names: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[Row]:
    return [dict(zip(names, values)) for values in rows]
