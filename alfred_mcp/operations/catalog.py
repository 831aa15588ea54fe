"""The shared ingredient catalog as matching reads it: one index per store, and the catalog links it decides.

Callers cannot write the shared catalog (only seeding adds to it), so the index is kept per store
and rebuilt when the catalog's row count changes. It is indexed under local refs (ing_1..) with
those refs' row ids beside it, as the draft compiler (`state/compiler.py`) takes it.
"""

from __future__ import annotations

import weakref
from typing import Any

from alfred_mcp.kitchen.query import Query, Where
from alfred_mcp.kitchen.schema import TABLES
from alfred_mcp.state.compiler import CatalogIndex
from alfred_mcp.store.base import KitchenStore

_CATALOGS: weakref.WeakKeyDictionary[Any, tuple[int, CatalogIndex, dict[str, str]]] = weakref.WeakKeyDictionary()


async def catalog_index(store: KitchenStore) -> tuple[CatalogIndex, dict[str, str]]:
    """The catalog indexed under local refs (ing_1..), and those refs' row ids."""
    table = TABLES["ingredients"]
    count = await store.count(table, Where(), user_id="")
    cached = _CATALOGS.get(store)
    if cached is not None and cached[0] == count:
        return cached[1], cached[2]
    rows = await store.select(table, Query(columns=("id", "name", "aliases", "category"), limit=count or None), user_id="")
    local = {f"ing_{i}": row["id"] for i, row in enumerate(rows, start=1)}
    index = CatalogIndex([{**row, "id": ref, "ref": ref} for ref, row in zip(local, rows)])
    _CATALOGS[store] = (count, index, local)
    return index, local


async def catalog_link(store: KitchenStore, name: str) -> tuple[str | None, str | None]:
    """(row id, category) of the catalog ingredient `name` refers to, or (None, None)."""
    index, local = await catalog_index(store)
    match = index.match(name)
    return (None, None) if match is None else (local[match.ref], match.category)
