"""PostgresStore on a real PostgreSQL: migrations, row-level security, two processes, errors, storage.

The backend-neutral contract runs on PostgreSQL from test_sqlite_store.py and
test_store_backends.py; this file covers what only PostgreSQL has.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import pytest
from pg_harness import DatabaseFactory
from ports import free_port

from alfred_mcp.errors import ConstraintViolationError, StoreError
from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import COOKING_LOG, INGREDIENTS, INVENTORY, MEAL_PLANS, RECIPES, Table
from alfred_mcp.state.registry import RefEntry
from alfred_mcp.store.base import Row, Store
from alfred_mcp.store.postgres.migrations import migrations

pytestmark = pytest.mark.anyio

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
MISSING_ID = "00000000-0000-4000-8000-000000000000"


def postgres_store(dsn: str, **options: Any) -> Any:
    from alfred_mcp.store.postgres import PostgresStore

    return PostgresStore(dsn, **options)


def sql(dsn: str, statement: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Run one statement over a separate superuser connection; its rows (if any)."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as connection:
        cursor = connection.execute(statement, params)
        return cursor.fetchall() if cursor.description else []


async def add(store: Store, table: Table, user: str, **values: Any) -> Row:
    (row,) = await store.insert(table, [values], user_id=user)
    return row


@pytest.fixture
async def pg(pg_dsn: str) -> AsyncIterator[Any]:
    """An opened PostgresStore on a fresh migrated database."""
    store = postgres_store(pg_dsn)
    await store.open()
    yield store
    await store.close()


@pytest.fixture
async def alice(pg: Any) -> str:
    return await pg.ensure_user("alice")


@pytest.fixture
def empty_dsn(pg_databases: DatabaseFactory) -> Iterator[str]:
    """A database with nothing in it yet."""
    dsn = pg_databases.create(empty=True)
    yield dsn
    pg_databases.release(dsn)


# -- the contract ----------------------------------------------------------------------------


def test_postgres_store_implements_the_whole_store_protocol() -> None:
    """Every Store method exists on PostgresStore with the same parameters."""
    from alfred_mcp.store.postgres import PostgresStore

    members = {name: getattr(Store, name) for name in dir(Store) if not name.startswith("_") and callable(getattr(Store, name))}
    assert members
    for name, member in members.items():
        ours = inspect.signature(getattr(PostgresStore, name)).parameters
        theirs = inspect.signature(member).parameters
        assert [(p.name, p.kind) for p in ours.values()] == [(p.name, p.kind) for p in theirs.values()], name
    assert PostgresStore.dialect == "postgres"


# -- migrations ------------------------------------------------------------------------------


async def test_open_migrates_an_empty_database_once_and_reopening_keeps_the_data(empty_dsn: str) -> None:
    """The first open applies every migration; later opens apply nothing and see the same rows."""
    first = postgres_store(empty_dsn)
    await first.open()
    await first.open()
    user = await first.ensure_user("alice")
    await add(first, RECIPES, user, name="Curry")
    await first.close()
    second = postgres_store(empty_dsn)
    await second.open()
    assert await second.ensure_user("alice") == user
    assert [row["name"] for row in await second.select(RECIPES, Query(), user_id=user)] == ["Curry"]
    await second.close()
    applied = sql(empty_dsn, 'SELECT "version", "name" FROM "alfred_schema_migrations" ORDER BY 1')
    assert applied == [(migration.version, migration.name) for migration in migrations()]


async def test_replicas_opening_a_fresh_database_together_migrate_it_once(empty_dsn: str) -> None:
    """Three stores opening at the same moment: all succeed, each migration is recorded once."""
    stores = [postgres_store(empty_dsn) for _ in range(3)]
    with anyio.fail_after(30):
        async with anyio.create_task_group() as group:
            for store in stores:
                group.start_soon(store.open)
    for store in stores:
        await store.close()
    assert sql(empty_dsn, 'SELECT count(*) FROM "alfred_schema_migrations"') == [(len(migrations()),)]


@pytest.mark.parametrize(
    ("tamper", "message"),
    [
        pytest.param("UPDATE alfred_schema_migrations SET checksum = 'x' WHERE version = 1", "0001_kitchen.sql differs", id="edited"),
        pytest.param("INSERT INTO alfred_schema_migrations VALUES (99, 'future', 'x')", "newer than this alfred-mcp", id="newer"),
        pytest.param("UPDATE alfred_meta SET value = '99' WHERE key = 'schema_version'", "schema version 99", id="schema-version"),
    ],
)
async def test_a_database_migrated_by_another_build_is_refused(pg_dsn: str, tamper: str, message: str) -> None:
    """An edited or unknown migration, or another schema version, stops open() with a clear StoreError."""
    sql(pg_dsn, tamper)
    with pytest.raises(StoreError, match=message):
        await postgres_store(pg_dsn).open()


async def test_an_unreachable_server_is_a_store_error_without_secrets() -> None:
    """Connection failures name host, port and database, never the password."""
    port = free_port()
    store = postgres_store(f"postgresql://alice:s3cret@127.0.0.1:{port}/kitchen", timeout=2)
    with pytest.raises(StoreError) as caught:
        await store.open()
    assert f"127.0.0.1:{port}/kitchen" in caught.value.message and "s3cret" not in str(caught.value.to_dict())
    with pytest.raises(StoreError, match="not open"):
        await store.count(RECIPES, Where(), user_id=MISSING_ID)


@pytest.mark.parametrize(("dsn", "env", "named"), [
    ("postgresql:///kitchen", {"PGHOST": "127.0.0.1", "PGPORT": "{port}"}, "127.0.0.1:{port}/kitchen"),
    ("postgresql://", {"PGHOST": "127.0.0.1", "PGPORT": "{port}", "PGDATABASE": "pantry"}, "127.0.0.1:{port}/pantry"),
    ("postgresql://127.0.0.1:{port}/kitchen", {"PGHOST": "db.invalid", "PGPORT": "1"}, "127.0.0.1:{port}/kitchen"),
])
async def test_an_unreachable_server_is_named_as_libpq_reached_for_it(
        dsn: str, env: dict[str, str], named: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A URL that leaves the host, port or database to libpq's PGHOST, PGPORT, PGDATABASE names what they gave."""
    port = str(free_port())
    for name, value in env.items():
        monkeypatch.setenv(name, value.format(port=port))
    monkeypatch.setenv("PGPASSWORD", "s3cret")
    with pytest.raises(StoreError) as caught:
        await postgres_store(dsn.format(port=port), timeout=2).open()
    assert caught.value.message.startswith(f"Cannot connect to PostgreSQL at {named.format(port=port)}: ")
    assert "s3cret" not in str(caught.value.to_dict())


# -- storage and values ----------------------------------------------------------------------


async def test_rows_are_stored_in_native_types(pg: Any, pg_dsn: str, alice: str) -> None:
    """uuid, text[], boolean, timestamptz, date and numeric columns, not text."""
    await add(pg, RECIPES, alice, name="Curry", tags=["quick"])
    await add(pg, INVENTORY, alice, name="milk", quantity=1.5, unit="l", expiry_date="2026-01-12")
    types = sql(pg_dsn, "SELECT pg_typeof(id)::text, pg_typeof(tags)::text, pg_typeof(is_system)::text, "
                        "pg_typeof(created_at)::text, tags FROM recipes")
    assert types == [("uuid", "text[]", "boolean", "timestamp with time zone", ["quick"])]
    assert sql(pg_dsn, "SELECT pg_typeof(expiry_date)::text, quantity::text FROM inventory") == [("date", "1.5")]


@pytest.mark.parametrize(
    ("table", "values", "field", "message"),
    [
        pytest.param(INVENTORY, {"expiry_date": "soon"}, "expiry_date", "expiry_date must be a date (YYYY-MM-DD).", id="date"),
        pytest.param(INVENTORY, {"expiry_date": "2026-02-30"}, "expiry_date", "expiry_date must be a date (YYYY-MM-DD).", id="no-such-day"),
        pytest.param(COOKING_LOG, {"cooked_at": "yesterday"}, "cooked_at", "cooked_at must be an ISO-8601 timestamp.", id="timestamp"),
        pytest.param(INVENTORY, {"name": "mi\x00lk"}, "name", "name must not contain NUL characters.", id="nul"),
        pytest.param(RECIPES, {"servings": 2**40}, "servings", "servings must be between 1 and 1000.", id="huge-int"),
        pytest.param(RECIPES, {"servings": "four"}, "servings", "servings must be a whole number.", id="text-for-int"),
        pytest.param(INVENTORY, {"quantity": float("nan")}, "quantity", "quantity must be a finite number.", id="nan"),
        pytest.param(RECIPES, {"tags": [1, 2]}, "tags", "tags must be a list of strings.", id="array-of-ints"),
        pytest.param(MEAL_PLANS, {"recipe_id": "recipe_1"}, "recipe_id", "recipe_id does not point at an existing recipe.", id="fk-not-a-uuid"),
    ],
)
async def test_values_the_column_cannot_hold_are_refused_naming_it(
    pg: Any, alice: str, table: Table, values: dict[str, Any], field: str, message: str
) -> None:
    """PostgreSQL's strict types never surface as driver errors: the column is named, nothing is written."""
    base = {INVENTORY: {"name": "milk", "quantity": 1, "unit": "l"}, RECIPES: {"name": "Curry"},
            MEAL_PLANS: {"date": "2026-01-12", "meal_type": "dinner"}, COOKING_LOG: {}}[table]
    with pytest.raises(ConstraintViolationError) as caught:
        await pg.insert(table, [{**base, **values}], user_id=alice)
    assert (caught.value.message, caught.value.fields["field"]) == (message, field)
    assert not UUID.search(str(caught.value.to_dict()))
    assert await pg.count(table, Where(), user_id=alice) == 0


def _psycopg_errors() -> list[type[Exception]]:
    try:
        import psycopg
    except ImportError:
        return []
    found = [getattr(psycopg.errors, name) for name in dir(psycopg.errors)]
    return sorted({c for c in found if isinstance(c, type) and issubclass(c, psycopg.Error)}, key=lambda c: c.__name__)


@pytest.mark.parametrize("error_class", _psycopg_errors(), ids=lambda c: c.__name__)
def test_every_driver_error_maps_to_a_store_error_without_sql(error_class: type[Exception]) -> None:
    """The mapping is total over psycopg's error classes and never echoes the driver's text."""
    from alfred_mcp.store.postgres.errors import to_store_error

    mapped = to_store_error(error_class(f'syntax error at "DROP" in SELECT * FROM recipes WHERE id = \'{MISSING_ID}\''), RECIPES)  # type: ignore[arg-type]
    assert isinstance(mapped, StoreError)
    assert "DROP" not in mapped.message and "SELECT" not in mapped.message and MISSING_ID not in str(mapped.to_dict())


# -- row-level security ----------------------------------------------------------------------


async def test_row_level_security_shows_each_user_only_their_rows(pg: Any, pg_dsn: str, alice: str) -> None:
    """As role `authenticated` a session sees and writes only rows whose user_id is its claim."""
    import psycopg

    bob = await pg.ensure_user("bob")
    await add(pg, RECIPES, alice, name="Curry")
    with psycopg.connect(pg_dsn) as connection:
        connection.execute("SET ROLE authenticated")
        for claim, expected in ((alice, 1), (bob, 0), ("", 0)):
            connection.execute("SELECT set_config('request.jwt.claim.sub', %s, false)", (claim,))
            assert connection.execute("SELECT count(*) FROM recipes").fetchone() == (expected,)
        connection.execute("SELECT set_config('request.jwt.claim.sub', %s, false)", (bob,))
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            connection.execute("INSERT INTO recipes (user_id, name) VALUES (%s, 'Forged')", (alice,))


async def test_the_store_runs_user_calls_as_authenticated_and_catalog_calls_as_itself(pg: Any, pg_dsn: str, alice: str) -> None:
    """A trigger records current_user: kitchen rows are written under RLS, the catalog by the login role."""
    sql(pg_dsn, """
        CREATE TABLE who (tbl text, role text);
        GRANT INSERT ON who TO authenticated;
        CREATE FUNCTION record_who() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN INSERT INTO who VALUES (TG_TABLE_NAME, current_user); RETURN NEW; END $$;
        CREATE TRIGGER who_recipes AFTER INSERT ON recipes FOR EACH ROW EXECUTE FUNCTION record_who();
        CREATE TRIGGER who_ingredients AFTER INSERT ON ingredients FOR EACH ROW EXECUTE FUNCTION record_who();
    """)
    await add(pg, RECIPES, alice, name="Curry")
    await pg.insert(INGREDIENTS, [{"name": "garlic"}], user_id="")
    async with pg.transaction():
        await add(pg, RECIPES, alice, name="Soup")
        await pg.insert(INGREDIENTS, [{"name": "onion"}], user_id="")
    assert sql(pg_dsn, "SELECT tbl, role FROM who") == [
        ("recipes", "authenticated"), ("ingredients", "postgres"), ("recipes", "authenticated"), ("ingredients", "postgres"),
    ]


async def test_a_role_switch_undone_by_a_rollback_is_not_trusted(pg_dsn: str) -> None:
    """After a rollback the connection's role is re-established, so a catalog write never runs as a user."""
    store = postgres_store(pg_dsn, min_size=1, max_size=1)
    await store.open()
    user = await store.ensure_user("alice")
    await add(store, RECIPES, user, name="Curry")  # the one connection now acts for alice
    with pytest.raises(ZeroDivisionError):
        async with store.transaction():
            await store.insert(INGREDIENTS, [{"name": "garlic"}], user_id="")  # switches back to the login role
            raise ZeroDivisionError  # the rollback also undoes that switch
    await store.insert(INGREDIENTS, [{"name": "onion"}], user_id="")
    assert [row["name"] for row in await store.select(INGREDIENTS, Query(), user_id="")] == ["onion"]
    await store.close()


async def test_a_non_superuser_owner_runs_the_store_under_rls(pg_databases: DatabaseFactory) -> None:
    """A deployment's own login role (owner, not superuser) migrates, and its users stay apart."""
    pg_databases.execute("DO $$ BEGIN CREATE ROLE alfred_owner LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$")
    pg_databases.execute("GRANT authenticated TO alfred_owner")  # the one step a DBA does (PostgreSQL 16+ needs it)
    dsn = pg_databases.create(empty=True, owner="alfred_owner")
    try:
        store = postgres_store(pg_databases.server.dsn(dsn.rsplit("/", 1)[-1], user="alfred_owner"))
        await store.open()
        alice, bob = await store.ensure_user("alice"), await store.ensure_user("bob")
        await add(store, RECIPES, alice, name="Curry")
        assert await store.count(RECIPES, Where(), user_id=bob) == 0
        assert await store.count(RECIPES, Where(), user_id=alice) == 1
        await store.close()
    finally:
        pg_databases.release(dsn)


async def test_a_migration_the_login_role_may_not_run_leaves_the_database_untouched(pg_databases: DatabaseFactory) -> None:
    """Without the right to act as `authenticated`, open() fails saying why, and no table is left behind."""
    pg_databases.execute("DO $$ BEGIN CREATE ROLE alfred_limited LOGIN; EXCEPTION WHEN duplicate_object THEN NULL; END $$")
    dsn = pg_databases.create(empty=True, owner="alfred_limited")
    try:
        store = postgres_store(pg_databases.server.dsn(dsn.rsplit("/", 1)[-1], user="alfred_limited"))
        with pytest.raises(StoreError, match="Cannot migrate the database at .*role \"authenticated\""):
            await store.open()
        assert sql(dsn, "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == [(0,)]
    finally:
        pg_databases.release(dsn)


# -- two processes on one database -----------------------------------------------------------


async def test_two_stores_on_one_database_number_sessions_without_duplicates(pg: Any, pg_dsn: str, alice: str) -> None:
    """Twenty sessions created at once through two pools: numbers 1..20 and exactly one current."""
    other = postgres_store(pg_dsn)
    await other.open()
    numbers: list[int] = []

    async def create(store: Any) -> None:
        numbers.append((await store.create_session(alice)).number)

    with anyio.fail_after(20):
        async with anyio.create_task_group() as group:
            for i in range(20):
                group.start_soon(create, pg if i % 2 else other)
    await other.close()
    assert sorted(numbers) == list(range(1, 21))
    assert sql(pg_dsn, "SELECT count(*) FROM alfred_sessions WHERE is_current") == [(1,)]


async def test_concurrent_saves_of_one_session_from_two_stores_lose_nothing(pg: Any, pg_dsn: str, alice: str) -> None:
    """Both processes' refs are kept with distinct positions; counters end at the highest number saved."""
    other = postgres_store(pg_dsn)
    await other.open()
    session = await pg.create_session(alice)

    async def save(store: Any, prefix: str, count: int) -> None:
        for i in range(1, count + 1):
            entry = RefEntry(f"{prefix}_{i}", prefix, f"row-{prefix}-{i}", f"{prefix} {i}", "read", 1, 1)
            await store.save_session_state(session.session_id, turn=1, entries=[entry], counters={prefix: i, "shared": i})

    with anyio.fail_after(20):
        async with anyio.create_task_group() as group:
            group.start_soon(save, pg, "recipe", 15)
            group.start_soon(save, other, "inv", 10)
    await other.close()
    entries, counters = await pg.load_session_state(session.session_id)
    assert sorted(entry.ref for entry in entries) == sorted([f"recipe_{i}" for i in range(1, 16)] + [f"inv_{i}" for i in range(1, 11)])
    assert sql(pg_dsn, "SELECT count(DISTINCT seq), count(*) FROM alfred_session_refs") == [(25, 25)]
    assert counters == {"recipe": 15, "inv": 10, "shared": 15}


async def test_incremental_save_writes_only_the_changed_rows(pg: Any, pg_dsn: str, alice: str) -> None:
    """Saving 1 changed entry of 1000 writes one ref row; the rest stay as they were."""
    session = await pg.create_session(alice)
    entries = [RefEntry(f"recipe_{i}", "recipe", f"row-{i}", f"Recipe {i}", "read", 1, 1) for i in range(1, 1001)]
    await pg.save_session_state(session.session_id, turn=1, entries=entries, counters={"recipe": 1000})
    sql(pg_dsn, """
        CREATE TABLE ref_writes (ref text);
        CREATE FUNCTION log_ref() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN INSERT INTO ref_writes VALUES (NEW.ref); RETURN NEW; END $$;
        CREATE TRIGGER ref_written AFTER INSERT OR UPDATE ON alfred_session_refs FOR EACH ROW EXECUTE FUNCTION log_ref();
    """)
    entries[499].label, entries[499].turn_last_ref = "Renamed", 2
    await pg.save_session_state(session.session_id, turn=2, entries=[entries[499]], counters={"recipe": 1000})
    assert sql(pg_dsn, "SELECT ref FROM ref_writes") == [("recipe_500",)]
    assert await pg.load_session_state(session.session_id) == (entries, {"recipe": 1000})


async def test_saving_an_unknown_session_fails_and_writes_nothing(pg: Any, pg_dsn: str) -> None:
    """A session id the store does not have (or that is no id at all) is a StoreError."""
    entry = RefEntry("recipe_1", "recipe", "row-a", "Curry", "read", 1, 1)
    for session_id in (MISSING_ID, "session-1"):
        with pytest.raises(StoreError, match="no longer exists"):
            await pg.save_session_state(session_id, turn=1, entries=[entry], counters={"recipe": 1})
    assert sql(pg_dsn, "SELECT count(*) FROM alfred_session_refs") == [(0,)]
    assert await pg.load_session_state("session-1") == ([], {})


# -- cancellation ----------------------------------------------------------------------------


async def test_a_write_cancelled_while_waiting_on_a_lock_changes_nothing(pg: Any, pg_dsn: str, alice: str) -> None:
    """An update blocked by another session's row lock is cancelled: no change, and the store keeps working."""
    import psycopg

    curry = await add(pg, RECIPES, alice, name="Curry")
    with psycopg.connect(pg_dsn) as blocker:
        blocker.execute("SELECT 1 FROM recipes FOR UPDATE")
        with anyio.move_on_after(0.3) as scope:
            await pg.update(RECIPES, Where((Filter("id", "eq", curry["id"]),)), {"name": "Renamed"}, user_id=alice)
        assert scope.cancelled_caught
        blocker.rollback()
    with anyio.fail_after(5):
        assert [row["name"] for row in await pg.select(RECIPES, Query(), user_id=alice)] == ["Curry"]
        await pg.update(RECIPES, Where((Filter("id", "eq", curry["id"]),)), {"name": "Stew"}, user_id=alice)
    assert sql(pg_dsn, "SELECT name FROM recipes") == [("Stew",)]
