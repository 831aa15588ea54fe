"""Kitchen rows on Supabase: select, count, insert, update, delete, reset, and the users who own them.

Inside `transaction()`, a read of a table the unit's pending writes can change goes through
`alfred_pending_<table>(ops)`, so it sees those writes (see the package docstring).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from alfred_mcp.kitchen.query import Filter, Query, Where, check_order
from alfred_mcp.kitchen.schema import TABLES, Table
from alfred_mcp.store.base import Children, Row, insert_with_children_in_steps
from alfred_mcp.store.ddl import KITCHEN_STAMPS, TABLE_STAMPS, tables_in_fk_order
from alfred_mcp.store.filters import compile_limit, default_order
from alfred_mcp.store.ids import new_ids
from alfred_mcp.store.keyset import KeyTerm, cursor_anchor_gone, key_terms, keyset_tree
from alfred_mcp.store.payloads import selected_columns
from alfred_mcp.store.postgres.codec import new_row_values, restored_row_values, update_assignments, utc_now, uuid_key
from alfred_mcp.store.postgres.rpc import pending_function
from alfred_mcp.store.supabase.connection import EXACT_COUNT, MAX_ROWS, SupabaseConnection
from alfred_mcp.store.supabase.query import ORDER_TIEBREAK, decode_row, logic_tree, quote, to_json
from alfred_mcp.store.user_origins import LEGACY

if TYPE_CHECKING:
    from postgrest import AsyncRPCFilterRequestBuilder, AsyncSelectRequestBuilder

USER_NAMESPACE = uuid.UUID("6f1c1b8e-5a8e-4c47-9d0e-3b7a2f0c9a11")
"""A user's id is uuid5(USER_NAMESPACE, handle): every replica agrees without a lookup. A legacy user keeps
the id of the handle it had before namespacing (migration 0004 renamed `alice` to `legacy:alice`)."""
TAKEOVER = "takeover:"


def user_uuid(handle: str) -> str:
    """The id of the user `handle` names (a legacy user's: that of its handle before namespacing)."""
    return str(uuid.uuid5(USER_NAMESPACE, handle.removeprefix(LEGACY)))


class SupabaseKitchenStore(SupabaseConnection):
    """The KitchenStore protocol on a Supabase project."""

    async def select(self, table: Table, query: Query, *, user_id: str) -> list[Row]:
        """Pages of at most MAX_ROWS rows (a project's `max_rows` caps every response), joined in keyset order."""
        names = selected_columns(table, query.columns)
        order = query.order_by or default_order(table)
        check_order(table, order)
        compile_limit(query.limit)
        if query.limit == 0:
            return []
        terms = key_terms(table, order, ORDER_TIEBREAK)
        wanted = list(dict.fromkeys([*names, *(term.name for term in terms)]))
        anchor = await self._anchor(table, terms, query.after, user_id) if query.after is not None else None
        rows: list[dict[str, Any]] = []
        while query.limit is None or len(rows) < query.limit:
            size = MAX_ROWS if query.limit is None else min(MAX_ROWS, query.limit - len(rows))
            page = await self._page(table, query.where, wanted, terms, anchor, size, user_id)
            rows += page
            if len(page) < size:
                break
            anchor = [page[-1][term.name] for term in terms]
        return [decode_row(table, names, row) for row in rows]

    async def _page(
        self, table: Table, where: Where, columns: list[str], terms: list[KeyTerm], anchor: list[Any] | None, size: int,
        user_id: str,
    ) -> list[dict[str, Any]]:
        keyset = keyset_tree(terms, anchor, quote) if anchor is not None else None
        if anchor is not None and keyset is None:
            return []
        builder = self._filtered(table, self._source(table, user_id).select(",".join(columns)), where, user_id, keyset)
        for term in terms:
            builder = builder.order(term.name, desc=term.descending, nullsfirst=term.descending)
        return list(await self._execute(builder.limit(size), self._reader(table, user_id), table))

    async def _anchor(self, table: Table, terms: list[KeyTerm], row_id: str, user_id: str) -> list[Any]:
        """The key values of the row a page continues after."""
        builder = self._filtered(table, self._source(table, user_id).select(",".join(t.name for t in terms)),
                                 Where(all_of=(Filter("id", "eq", row_id),)), user_id)
        found = await self._execute(builder.limit(1), self._reader(table, user_id), table)
        if not found:
            raise cursor_anchor_gone(table)
        return [found[0][term.name] for term in terms]

    async def count(self, table: Table, where: Where, *, user_id: str) -> int:
        pending = self._pending_ops(table, self._reader(table, user_id))
        builder: AsyncSelectRequestBuilder | AsyncRPCFilterRequestBuilder
        if pending is None:
            builder = self._postgrest().table(table.name).select("id", count=EXACT_COUNT, head=True)
        else:  # a POST: the pending writes need a read-write transaction (then rolled back)
            builder = self._rpc(pending_function(table.name), {"ops": pending}, count=True).select("*").limit(0)
        builder = self._filtered(table, builder, where, user_id)
        response = await self._send(builder, self._reader(table, user_id), table)
        return int(response.count or 0)

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
        actor = self._writer(table, user_id)
        now = utc_now()
        names = [column.name for column in table.columns]
        owner = uuid_key(user_id)
        if restoring:
            values = [restored_row_values(table, row, user_id=owner) for row in rows]
        else:
            values = [new_row_values(table, row, row_id=row_id, user_id=owner, now=now) for row, row_id in zip(rows, new_ids(len(rows)))]
        payload = [{name: to_json(value) for name, value in zip(names, row_values)} for row_values in values]
        stored = await self._submit({"op": "insert", "table": table.name, "rows": payload}, actor, table)
        return [decode_row(table, table.visible_columns, row) for row in stored]

    async def update(self, table: Table, where: Where, values: Row, *, user_id: str) -> list[Row]:
        actor = self._writer(table, user_id)
        assignments = update_assignments(table, values)
        if "updated_at" in table.visible_columns:
            assignments.append(("updated_at", utc_now()))
        ids = await self._matching_ids(table, where, user_id)
        if not ids:
            return []
        op = {"op": "update", "table": table.name, "ids": ids, "values": {name: to_json(value) for name, value in assignments}}
        return [decode_row(table, table.visible_columns, row) for row in await self._submit(op, actor, table)]

    async def delete(self, table: Table, where: Where, *, user_id: str) -> list[Row]:
        actor = self._writer(table, user_id)
        ids = await self._matching_ids(table, where, user_id)
        if not ids:
            return []
        op = {"op": "delete", "table": table.name, "ids": ids}
        return [decode_row(table, table.visible_columns, row) for row in await self._submit(op, actor, table)]

    async def reset_kitchen(self, user_id: str) -> None:
        async with self.transaction():
            for table in reversed(tables_in_fk_order()):
                if table.user_owned:
                    await self.delete(table, Where(), user_id=user_id)

    async def kitchen_stamp(self, user_id: str) -> int:
        actor = self._require_user(user_id)
        builder = self._postgrest().table(KITCHEN_STAMPS).select("stamp").eq("user_id", actor)
        rows = await self._execute(builder, actor, None)
        return int(rows[0]["stamp"]) if rows else 0

    async def table_stamps(self, user_id: str, tables: Sequence[str]) -> tuple[int, ...]:
        actor = self._require_user(user_id)
        builder = self._postgrest().table(TABLE_STAMPS).select("table_name,stamp").eq("user_id", actor).in_("table_name", list(tables))
        found = {row["table_name"]: int(row["stamp"]) for row in await self._execute(builder, actor, None)}
        return tuple(found.get(name, 0) for name in tables)

    async def ensure_user(self, handle: str, *, formerly: str | None = None) -> str:
        if formerly is not None:
            taken_over = await self._taken_over(handle, formerly)
            if taken_over is not None:
                return taken_over
        user_id = user_uuid(handle)
        await self._insert_user(user_id, handle)
        return user_id

    async def _taken_over(self, handle: str, formerly: str) -> str | None:
        """The id of the user `formerly` names when `handle` takes it over (now or on an earlier visit), else None.

        Ids follow handles and `authenticated` may not update users, so a takeover is not a rename here: a
        marker user whose id follows `formerly` records who took it over, and the first marker written wins.
        """
        if await self._handle_of(user_uuid(handle)) is not None:
            return None
        former = user_uuid(formerly)
        if await self._handle_of(former) is None:
            return None
        marker, claim = str(uuid.uuid5(USER_NAMESPACE, TAKEOVER + formerly)), f"{TAKEOVER}{formerly} by {handle}"
        await self._insert_user(marker, claim)
        return former if await self._handle_of(marker) == claim else None

    async def _handle_of(self, user_id: str) -> str | None:
        builder = self._postgrest().table("users").select("handle").eq("id", user_id)
        rows = await self._execute(builder, self._require_user(user_id), None)
        return str(rows[0]["handle"]) if rows else None

    async def _insert_user(self, user_id: str, handle: str) -> None:
        builder = self._postgrest().table("users").upsert({"id": user_id, "handle": handle}, on_conflict="id", ignore_duplicates=True)
        await self._execute(builder, self._require_user(user_id), None)

    def _source(self, table: Table, user_id: str) -> Any:
        """What a read selects from: the table, or the table as the open unit of work leaves it."""
        pending = self._pending_ops(table, self._reader(table, user_id))
        if pending is None:
            return self._postgrest().table(table.name)
        return _RpcSource(self._rpc(pending_function(table.name), {"ops": pending}))

    def _pending_ops(self, table: Table, actor: str | None) -> list[dict[str, Any]] | None:
        """The open unit's writes when they can change what a read of `table` by `actor` sees."""
        unit = self._unit.get()
        if unit is None or unit.actor is None or unit.actor != actor:
            return None
        touched = {op["table"] for op in unit.ops if "table" in op}
        return list(unit.ops) if touched & _upstream(table.name) else None

    def _filtered(self, table: Table, builder: Any, where: Where, user_id: str, extra: str | None = None) -> Any:
        if table.user_owned:
            builder = builder.eq("user_id", self._require_user(user_id))
        tree = logic_tree(table, where, extra)
        return builder.or_(tree[1:-1]) if tree else builder

    async def _matching_ids(self, table: Table, where: Where, user_id: str) -> list[str]:
        builder = self._filtered(table, self._source(table, user_id).select("id"), where, user_id)
        return [row["id"] for row in await self._execute(builder, self._reader(table, user_id), table)]


class _RpcSource:
    """An rpc call read like a table. It selects every column: PostgREST 12 cannot filter or order a
    function's result on a column the select leaves out (PostgREST issue #3965); rows are projected here.
    """

    def __init__(self, builder: Any) -> None:
        self._builder = builder

    def select(self, columns: str) -> Any:
        return self._builder.select("*")


@cache
def _upstream(name: str) -> frozenset[str]:
    """`name` and every table it references, directly or not: writes there can change its rows."""
    found = {name}
    for column in TABLES[name].fk_columns:
        if column.fk is not None and column.fk.table not in found:
            found |= _upstream(column.fk.table)
    return frozenset(found)
