"""2026-07-28 resource notifications that reach only the user who caused them.

The SDK's in-process bus fans an event out to every `subscriptions/listen` stream whose filter
matches the URI. Our URIs are per user only in meaning (`alfred://session/current/...` and
`session_1` exist for every user), so that would tell one user when another's kitchen changed.
This bus remembers which user opened each listen stream and delivers an event only to the streams
of the user whose call published it.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

from mcp.server.subscriptions import InMemorySubscriptionBus, ServerEvent

_publisher: ContextVar[str | None] = ContextVar("alfred_publishing_user", default=None)


class UserScopedBus:
    """A SubscriptionBus over the SDK's in-memory one, scoped per acting user."""

    def __init__(self, acting_user: Callable[[], str | None]) -> None:
        self._inner = InMemorySubscriptionBus()
        self._acting_user = acting_user

    async def publish(self, event: ServerEvent) -> None:
        token = _publisher.set(self._acting_user())
        try:
            await self._inner.publish(event)  # listeners run synchronously, in this context
        finally:
            _publisher.reset(token)

    def subscribe(self, listener: Callable[[ServerEvent], None]) -> Callable[[], None]:
        owner = self._acting_user()

        def for_owner(event: ServerEvent) -> None:
            if _publisher.get() == owner:
                listener(event)

        return self._inner.subscribe(for_owner)
