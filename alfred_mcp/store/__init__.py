"""All database I/O: the Store contract and its backends.

    base.py          the contract: KitchenStore (rows), SessionStore (sessions), Store (both, one connection)
    factory.py       which Store a database location or Supabase project opens
    filters.py       the filter AST compiled to SQL and parameters, per dialect
    payloads.py      the column checks every backend applies before SQL
    ddl.py           what every backend's DDL shares: version, FK order, indexes, named CHECK rules
    sql_literals.py  schema constants as SQL literals
    user_origins.py  user handles that name their origin (token, local, OAuth issuer, legacy); the user map
    sqlite/          the embedded backend (stdlib sqlite3)
    postgres/        the PostgreSQL backend (psycopg), and the migration set Supabase shares
    supabase/        the Supabase backend (PostgREST), on the PostgreSQL schema
"""
