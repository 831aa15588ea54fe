"""SQL functions for the Supabase backend: every write reaches the database through them.

Pure: returns statement text; `migrations.migrations()` emits it as migration 0002, so plain
PostgreSQL and Supabase share it. PostgREST runs each HTTP request in its own transaction, so
a unit of work (rows of several tables, session state, documents) is sent as ONE call:

- `alfred_apply(ops jsonb, dry_run boolean)` runs a list of operations in order, in one
  transaction, and returns each one's affected rows. With `dry_run` it runs them and rolls them
  back (a plpgsql exception block), so a caller learns the rows and the errors of a unit of
  work it has not committed yet.
- `alfred_create_session()` numbers a new session of the calling user under an advisory lock.
- `alfred_pending_<table>(ops jsonb)`, one per kitchen table: the table's rows (those the caller
  may see) as they would be after `ops`, which are rolled back. PostgREST filters, orders and
  limits its result like a table's, so a read inside a unit of work sees the unit's own writes.

All are SECURITY INVOKER: they run as the caller's role with the caller's JWT, so row-level
security applies exactly as to a table call. A foreign key value must name a row the caller can
see (the FK constraint itself would accept another user's row).
"""

from __future__ import annotations

from alfred_mcp.kitchen.schema import TABLES
from alfred_mcp.store.ddl import ENTRY_COLUMNS
from alfred_mcp.store.filters import quote_identifier as q
from alfred_mcp.store.postgres.schema import USER_ROLE

ENTRY_TYPES = {name: "integer" if name.startswith(("turn_", "deleted_")) else "text" for name in ENTRY_COLUMNS}

DRY_RUN_STATE = "AFDRY"
"""SQLSTATE raised (and caught) to roll back a dry run."""
GONE_STATE = "AFGON"
"""SQLSTATE: the session to save does not exist (or is not the caller's)."""
CONFLICT_STATE = "AFVER"
"""SQLSTATE: the session's version moved on; the message carries its number."""


def rpc_sql() -> str:
    """Migration 0002: the functions and who may execute them."""
    statements = [_check_refs_sql(), _run_op_sql(), _apply_sql(), _create_session_sql()]
    statements += [_pending_read_sql(name) for name in sorted(TABLES)]
    signatures = ["alfred_check_refs(text, jsonb)", "alfred_run_op(jsonb)", "alfred_apply(jsonb, boolean)", "alfred_create_session()"]
    signatures += [f'{q(pending_function(name))}(jsonb)' for name in sorted(TABLES)]
    for signature in signatures:
        statements.append(f"REVOKE ALL ON FUNCTION {signature} FROM PUBLIC")
        statements.append(f"GRANT EXECUTE ON FUNCTION {signature} TO {USER_ROLE}, service_role")
    statements.append("NOTIFY pgrst, 'reload schema'")
    return "".join(statement + ";\n\n" for statement in statements).rstrip() + "\n"


def pending_function(table: str) -> str:
    """The name of the function that reads `table` as a unit of work would leave it."""
    return f"alfred_pending_{table}"


def _pending_read_sql(table: str) -> str:
    return f"""CREATE FUNCTION {q(pending_function(table))}(ops jsonb) RETURNS SETOF {q(table)}
LANGUAGE plpgsql SECURITY INVOKER SET search_path = public AS $$
DECLARE
  seen jsonb;
  op jsonb;
BEGIN
  BEGIN
    FOR op IN SELECT value FROM jsonb_array_elements(ops) LOOP
      PERFORM alfred_run_op(op);
    END LOOP;
    SELECT coalesce(jsonb_agg(to_jsonb(t) ORDER BY t."insert_seq"), '[]') INTO seen FROM {q(table)} AS t;
    RAISE EXCEPTION USING ERRCODE = '{DRY_RUN_STATE}', MESSAGE = 'alfred: dry run';
  EXCEPTION WHEN SQLSTATE '{DRY_RUN_STATE}' THEN
    NULL;
  END;
  RETURN QUERY SELECT * FROM jsonb_populate_recordset(NULL::{q(table)}, seen);
END $$"""


def _check_refs_sql() -> str:
    return """CREATE FUNCTION alfred_check_refs(tbl text, rows jsonb) RETURNS void
LANGUAGE plpgsql SECURITY INVOKER SET search_path = public AS $$
DECLARE
  fk record;
  bad boolean;
BEGIN
  FOR fk IN
    SELECT c.conname, a.attname, c.confrelid::regclass AS target
    FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
    WHERE c.conrelid = to_regclass(quote_ident(tbl)) AND c.contype = 'f' AND a.attname <> 'user_id'
  LOOP
    EXECUTE format(
      'SELECT EXISTS (SELECT 1 FROM jsonb_array_elements($1) AS r WHERE r->>%L IS NOT NULL '
      'AND NOT EXISTS (SELECT 1 FROM %s AS t WHERE t."id" = (r->>%L)::uuid))', fk.attname, fk.target, fk.attname)
      INTO bad USING rows;
    IF bad THEN
      RAISE EXCEPTION USING ERRCODE = '23503', CONSTRAINT = fk.conname,
        MESSAGE = format('insert or update on table "%s" violates foreign key constraint "%s"', tbl, fk.conname);
    END IF;
  END LOOP;
END $$"""


def _run_op_sql() -> str:
    tables = ", ".join(f"'{name}'" for name in sorted(TABLES))
    entry_list = ", ".join(f'"{name}"' for name in ENTRY_COLUMNS)
    entry_values = ", ".join(f"(e.v->>'{name}')::{ENTRY_TYPES[name]}" for name in ENTRY_COLUMNS)
    entry_updates = ", ".join(f'"{name}" = excluded."{name}"' for name in ENTRY_COLUMNS[1:])
    return f"""CREATE FUNCTION alfred_run_op(op jsonb) RETURNS jsonb
LANGUAGE plpgsql SECURITY INVOKER SET search_path = public AS $$
DECLARE
  kind text := op->>'op';
  tbl text := op->>'table';
  cols text;
  result jsonb := '[]';
  sid uuid;
  last integer;
  found_number integer;
BEGIN
  IF kind IN ('insert', 'update', 'delete') AND NOT (tbl = ANY (ARRAY[{tables}])) THEN
    RAISE EXCEPTION USING ERRCODE = '42501', MESSAGE = 'alfred: not a kitchen table';
  END IF;
  IF kind = 'insert' THEN
    SELECT string_agg(quote_ident(k), ', ') INTO cols FROM jsonb_object_keys(op->'rows'->0) AS k;
    PERFORM alfred_check_refs(tbl, op->'rows');
    EXECUTE format(
      'WITH done AS (INSERT INTO %I (%s) SELECT %s FROM jsonb_populate_recordset(NULL::%I, $1) RETURNING *) '
      'SELECT coalesce(jsonb_agg(to_jsonb(done) ORDER BY done."insert_seq"), ''[]'') FROM done', tbl, cols, cols, tbl)
      INTO result USING op->'rows';
  ELSIF kind = 'update' THEN
    SELECT string_agg(quote_ident(k), ', ') INTO cols FROM jsonb_object_keys(op->'values') AS k;
    PERFORM alfred_check_refs(tbl, jsonb_build_array(op->'values'));
    EXECUTE format(
      'WITH done AS (UPDATE %I AS t SET (%s) = (SELECT %s FROM jsonb_populate_record(NULL::%I, $1)) '
      'WHERE t."id" = ANY($2) RETURNING t.*) '
      'SELECT coalesce(jsonb_agg(to_jsonb(done) ORDER BY done."insert_seq"), ''[]'') FROM done', tbl, cols, cols, tbl)
      INTO result USING op->'values', ARRAY(SELECT jsonb_array_elements_text(op->'ids'))::uuid[];
  ELSIF kind = 'delete' THEN
    EXECUTE format(
      'WITH done AS (DELETE FROM %I AS t WHERE t."id" = ANY($1) RETURNING t.*) '
      'SELECT coalesce(jsonb_agg(to_jsonb(done) ORDER BY done."insert_seq"), ''[]'') FROM done', tbl)
      INTO result USING ARRAY(SELECT jsonb_array_elements_text(op->'ids'))::uuid[];
  ELSIF kind = 'session_state' THEN
    sid := (op->>'session_id')::uuid;
    UPDATE "alfred_sessions" SET "turn" = (op->>'turn')::integer, "version" = "version" + 1
      WHERE "id" = sid AND (op->'expected_version' IS NULL OR jsonb_typeof(op->'expected_version') = 'null'
                            OR "version" = (op->>'expected_version')::integer);
    IF NOT FOUND THEN
      SELECT "number" INTO found_number FROM "alfred_sessions" WHERE "id" = sid;
      IF found_number IS NULL THEN
        RAISE EXCEPTION USING ERRCODE = '{GONE_STATE}', MESSAGE = 'alfred: no such session';
      END IF;
      RAISE EXCEPTION USING ERRCODE = '{CONFLICT_STATE}', MESSAGE = found_number::text;
    END IF;
    SELECT coalesce(max("seq"), 0) INTO last FROM "alfred_session_refs" WHERE "session_id" = sid;
    INSERT INTO "alfred_session_refs" ("session_id", {entry_list}, "seq")
      SELECT sid, {entry_values}, last + e.n::integer
      FROM jsonb_array_elements(op->'refs') WITH ORDINALITY AS e(v, n)
      ON CONFLICT ("session_id", "ref") DO UPDATE SET {entry_updates};
    INSERT INTO "alfred_session_counters" AS c ("session_id", "key", "last_number")
      SELECT sid, e.key, e.value::integer FROM jsonb_each_text(op->'counters') AS e
      ON CONFLICT ("session_id", "key") DO UPDATE SET "last_number" = greatest(c."last_number", excluded."last_number");
  ELSIF kind = 'documents' THEN
    sid := (op->>'session_id')::uuid;
    IF NOT EXISTS (SELECT 1 FROM "alfred_sessions" WHERE "id" = sid) THEN
      RAISE EXCEPTION USING ERRCODE = '{GONE_STATE}', MESSAGE = 'alfred: no such session';
    END IF;
    INSERT INTO "alfred_session_docs" ("session_id", "key", "value")
      SELECT sid, e.v->>0, (e.v->>1)::json FROM jsonb_array_elements(op->'upserts') AS e(v)
      ON CONFLICT ("session_id", "key") DO UPDATE SET "value" = excluded."value";
    DELETE FROM "alfred_session_docs"
      WHERE "session_id" = sid AND "key" IN (SELECT jsonb_array_elements_text(op->'deletes'));
  ELSE
    RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = 'alfred: unknown operation';
  END IF;
  RETURN result;
END $$"""


def _apply_sql() -> str:
    return f"""CREATE FUNCTION alfred_apply(ops jsonb, dry_run boolean DEFAULT false) RETURNS jsonb
LANGUAGE plpgsql SECURITY INVOKER SET search_path = public AS $$
DECLARE
  results jsonb := '[]';
  op jsonb;
BEGIN
  BEGIN
    FOR op IN SELECT value FROM jsonb_array_elements(ops) LOOP
      results := results || jsonb_build_array(alfred_run_op(op));
    END LOOP;
    IF dry_run THEN
      RAISE EXCEPTION USING ERRCODE = '{DRY_RUN_STATE}', MESSAGE = 'alfred: dry run';
    END IF;
  EXCEPTION WHEN SQLSTATE '{DRY_RUN_STATE}' THEN
    RETURN results;
  END;
  RETURN results;
END $$"""


def _create_session_sql() -> str:
    return """CREATE FUNCTION alfred_create_session() RETURNS jsonb
LANGUAGE plpgsql SECURITY INVOKER SET search_path = public AS $$
DECLARE
  uid uuid := auth.uid();
  next_number integer;
  sid uuid;
BEGIN
  IF uid IS NULL THEN
    RAISE EXCEPTION USING ERRCODE = '42501', MESSAGE = 'alfred: a user is required';
  END IF;
  PERFORM pg_advisory_xact_lock(hashtextextended(uid::text, 0));
  IF NOT EXISTS (SELECT 1 FROM "users" WHERE "id" = uid) THEN
    RAISE EXCEPTION USING ERRCODE = '23503', CONSTRAINT = 'alfred_sessions_user_id_fkey',
      MESSAGE = 'insert or update on table "alfred_sessions" violates foreign key constraint "alfred_sessions_user_id_fkey"';
  END IF;
  SELECT coalesce(max("number"), 0) + 1 INTO next_number FROM "alfred_sessions" WHERE "user_id" = uid;
  UPDATE "alfred_sessions" SET "is_current" = false WHERE "user_id" = uid AND "is_current";
  INSERT INTO "alfred_sessions" ("user_id", "number", "turn", "is_current") VALUES (uid, next_number, 1, true)
    RETURNING "id" INTO sid;
  RETURN jsonb_build_object('id', sid, 'number', next_number);
END $$"""
