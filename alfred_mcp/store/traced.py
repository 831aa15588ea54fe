"""A store whose database calls each run in an OpenTelemetry span `store.<method>` (with the table, when
there is one). Installed only when traces are exported (`server/tracing.py`); otherwise spans are no-ops."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from opentelemetry import trace

tracer = trace.get_tracer("alfred_mcp.store")
_STORE_CALLS = frozenset({
    "select", "count", "insert", "insert_with_children", "restore", "update", "delete", "reset_kitchen", "kitchen_stamp",
    "table_stamps", "ensure_user", "current_session", "create_session", "get_session", "load_session_state", "session_version",
    "save_session_state", "load_documents", "save_documents", "check_ready",
})
"""The store's async calls that talk to the database."""


class TracedStore:
    """A store whose database calls each run in a span `store.<method>` (with the table, when there is one)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        found = getattr(self.inner, name)
        if name not in _STORE_CALLS:
            return found
        return _traced_call(f"store.{name}", found, self.inner.dialect)


def _traced_call(span: str, call: Callable[..., Awaitable[Any]], dialect: str) -> Callable[..., Awaitable[Any]]:
    async def traced(*args: Any, **kwargs: Any) -> Any:
        table = getattr(args[0], "name", None) if args else None
        attributes = {"db.system": dialect, **({"db.collection.name": table} if isinstance(table, str) else {})}
        with tracer.start_as_current_span(span, kind=trace.SpanKind.CLIENT, attributes=attributes):
            return await call(*args, **kwargs)

    return traced
