"""supabase_vs_postgres: a db_read of 50 rows through Supabase (PostgREST) vs straight to PostgreSQL.

Both stores read the same 50 inventory rows of one user from one database (loopback): the
PostgresStore over psycopg, the SupabaseStore through the /rest/v1 gateway and a real
PostgREST, with that user's JWT. Measured: the store read db_read makes (`Store.select` with the
default order), medians of interleaved runs. `ratio` = Supabase / PostgreSQL.
"""

from __future__ import annotations

import sys
from pathlib import Path

import anyio

from .timing import paired_medians

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

ROWS = 50
REPEAT = 60
TIME_LIMIT = 120.0


async def supabase_vs_postgres(rows: int = ROWS, repeat: int = REPEAT) -> dict[str, object]:
    """The benchmark; {"skipped": reason} when PostgreSQL, PostgREST or supabase-py is unavailable."""
    try:
        import psycopg  # noqa: F401
        import supabase  # noqa: F401
        from pg_harness import PostgresUnavailable, create_database, postgres_server
        from supabase_harness import AUTHENTICATOR_SQL, PostgrestUnavailable, find_postgrest, supabase_stack
    except ImportError as error:
        return {"skipped": f"a component is not installed: {error}"}
    try:
        find_postgrest()
        with postgres_server() as server, anyio.fail_after(TIME_LIMIT):
            dsn = create_database(server, "bench_supabase")
            await _migrate(dsn, AUTHENTICATOR_SQL)
            with supabase_stack(dsn) as stack:
                return await _compare(dsn, stack, rows, repeat)
    except (PostgresUnavailable, PostgrestUnavailable) as error:
        return {"skipped": str(error)}


async def _migrate(dsn: str, role_sql: tuple[str, ...]) -> None:
    import psycopg

    from alfred_mcp.store.postgres import PostgresStore

    store = PostgresStore(dsn)
    await store.open()
    await store.close()
    with psycopg.connect(dsn, autocommit=True) as admin:
        for statement in role_sql:
            admin.execute(statement)


async def _compare(dsn: str, stack: object, rows: int, repeat: int) -> dict[str, object]:
    from alfred_mcp.kitchen.query import Query
    from alfred_mcp.kitchen.schema import INVENTORY
    from alfred_mcp.store.postgres import PostgresStore
    from alfred_mcp.store.supabase import SupabaseStore

    remote = SupabaseStore(stack.url, stack.anon_key, jwt_secret=stack.jwt_secret)  # type: ignore[attr-defined]
    direct = PostgresStore(dsn)
    await remote.open()
    await direct.open()
    try:
        user = await remote.ensure_user("bench")
        await remote.insert(INVENTORY, [{"name": f"item {i:02d}", "quantity": i, "unit": "g"} for i in range(rows)], user_id=user)

        async def via_supabase() -> object:
            found = await remote.select(INVENTORY, Query(), user_id=user)
            assert len(found) == rows
            return found

        async def via_postgres() -> object:
            found = await direct.select(INVENTORY, Query(), user_id=user)
            assert len(found) == rows
            return found

        supabase_s, postgres_s = await paired_medians(via_supabase, via_postgres, repeat=repeat)
    finally:
        await remote.close()
        await direct.close()
    return {
        "ratio": round(supabase_s / postgres_s, 2),
        "supabase_ms": round(supabase_s * 1000, 2),
        "postgres_ms": round(postgres_s * 1000, 2),
        "rows": rows,
    }


if __name__ == "__main__":
    import json

    print(json.dumps(anyio.run(supabase_vs_postgres)))
