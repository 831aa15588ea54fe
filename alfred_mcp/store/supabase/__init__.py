"""The Supabase backend: the Store protocol over Supabase's REST API (PostgREST), with row-level security.

Semantics are SQLiteStore's (see `store/base.py`); the database is the PostgreSQL migration set
(`postgres/migrations.py`, applied with the project's direct URL). What differs is how it is reached:

- Only the `supabase` package's async client is used, and only `.table()` and `.rpc()`, over an
  httpx client this store owns and closes.
- Every user-owned call carries THAT user's JWT (minted with the project's JWT secret, or given
  by a `tokens` callable), so row-level security applies on top of the explicit `user_id`
  filter. A call without a user is refused; there is no fall-back to a service key. The service
  key, when configured, is used for catalog (`ingredients`) writes only; catalog reads without a
  user use the anon key (the catalog is public). A catalog write is never part of a user's unit of
  work (one call acts for one role): it commits at once, even inside `transaction()`, and stays if
  the block fails (seeding adds missing catalog rows first; they are shared and re-used).
- Filters travel as one quoted PostgREST logic tree (`query.py`).
- Writes: PostgREST runs each request in its own transaction, so every write goes through the
  `alfred_apply` SQL function (`postgres/rpc.py`). Outside `transaction()` a write is one call. Inside,
  writes are buffered as a unit of work and committed by ONE call at the end; each buffered write
  is also dry-run (the unit so far plus it, rolled back) so it returns its real rows and raises its
  real error at once. Ids are made here, so a dry run and the commit agree.
- A read inside `transaction()` sees the unit's own writes: when a pending write touches the
  table read (or a table it references, whose deletes cascade into it), the read goes through
  `alfred_pending_<table>(ops)`, which applies the pending writes, takes the rows and rolls back;
  PostgREST filters, orders and limits that result as it would the table. Other reads (other
  tables, other tasks) see committed data only, so no task ever sees another's uncommitted rows.
- A session's calls act for the user it was found or created for (this store remembers it).

    store.py        SupabaseStore = SupabaseKitchenStore + SupabaseSessionStore
    connection.py   the client, whom each request acts for (its JWT), the unit of work
    kitchen.py      kitchen rows and users; reads that see the unit's own writes
    sessions.py     sessions, refs, counters, documents, versions
    query.py        the filter AST as PostgREST parameters; PostgREST JSON as the store's values
    errors.py       PostgREST errors as StoreError / ConstraintViolationError
"""

from alfred_mcp.store.supabase.store import SupabaseStore

__all__ = ["SupabaseStore"]
