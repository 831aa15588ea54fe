"""SupabaseStore: the Store protocol over Supabase's REST API, kitchen rows and sessions on one client."""

from __future__ import annotations

from alfred_mcp.store.supabase.kitchen import SupabaseKitchenStore
from alfred_mcp.store.supabase.sessions import SupabaseSessionStore


class SupabaseStore(SupabaseKitchenStore, SupabaseSessionStore):
    """The Store on a Supabase project (PostgREST, row-level security); semantics are SQLiteStore's."""
