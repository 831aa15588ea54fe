"""Liveness and readiness probes for `serve --http`: /healthz and /readyz.

- `/healthz`: the process answers (200), whatever its database does.
- `/readyz`: the database answers within READY_TIMEOUT seconds and holds exactly this alfred-mcp's
  migrations and schema version (200); otherwise 503 with the reason, e.g. "The database
  connection failed; try again." or "The database lacks migration 0005_table_stamps.sql; ...".

Both answer GET and HEAD without a token, outside the Host check: load balancers and orchestrators
probe a replica at its own address (a pod IP, localhost inside a container), which is not a name
the DNS-rebinding check knows. They tell nothing else: the reason is the store's own client-safe
message (never a host, a password or SQL), and no CORS header lets another site's page read it.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable

import anyio
from starlette.types import ASGIApp, Receive, Scope, Send

from alfred_mcp.errors import StoreError
from alfred_mcp.server.logs import event

logger = logging.getLogger(__name__)
HEALTH_PATH = "/healthz"
READY_PATH = "/readyz"
PROBE_PATHS = (HEALTH_PATH, READY_PATH)
READY_TIMEOUT = 3.0
"""Seconds the database has to answer a readiness probe (orchestrators time out probes at 1 to 10 s)."""

ReadyCheck = Callable[[], Awaitable[None]]
"""Raises StoreError when the database cannot serve (`Store.check_ready`)."""


async def readiness(check: ReadyCheck, timeout: float = READY_TIMEOUT) -> str | None:
    """None when `check` passes within `timeout` seconds, else why not (one sentence)."""
    try:
        with anyio.fail_after(timeout):
            await check()
    except TimeoutError:
        return f"The database did not answer within {timeout:g} s."
    except StoreError as error:
        return error.message
    return None


class HealthProbes:
    """ASGI: answers /healthz and /readyz itself; every other request goes on to `app`."""

    def __init__(self, app: ASGIApp, check: ReadyCheck, *, timeout: float = READY_TIMEOUT) -> None:
        self.app, self.check, self.timeout = app, check, timeout
        self._was_ready = True

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] not in PROBE_PATHS:
            await self.app(scope, receive, send)
            return
        if scope["method"] not in ("GET", "HEAD"):
            await _respond(send, scope, 405, {"error": f"{scope['path']} answers GET and HEAD."}, [(b"allow", b"GET, HEAD")])
            return
        if scope["path"] == HEALTH_PATH:
            await _respond(send, scope, 200, {"status": "ok"})
            return
        problem = await readiness(self.check, self.timeout)
        self._log_change(problem)
        if problem is None:
            await _respond(send, scope, 200, {"status": "ready"})
        else:
            await _respond(send, scope, 503, {"status": "not ready", "reason": problem})

    def _log_change(self, problem: str | None) -> None:
        """One log line when readiness changes, not one per probe."""
        if (problem is None) != self._was_ready:
            if problem is None:
                logger.info("ready again: the database answers", extra=event("readiness", ready=True))
            else:
                logger.warning("not ready: %s", problem, extra=event("readiness", ready=False, reason=problem))
        self._was_ready = problem is None


async def _respond(send: Send, scope: Scope, status: int, payload: dict[str, str], extra: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps(payload).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
               (b"cache-control", b"no-store"), *(extra or [])]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})
