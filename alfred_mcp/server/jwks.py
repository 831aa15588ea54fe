"""The OAuth issuer's signing keys: fetched on the event loop (no worker thread), cached, refreshed at a bounded rate.

A slow or broken issuer must cost only its own tokens. So the JWKS is fetched asynchronously with a
short time limit (never in a worker thread the store's queries need), one fetch at a time (every
request waiting for keys shares it), at most once per `refetch_interval` (an unknown `kid` cannot
make every request call the issuer), and behind a breaker: after `breaker_failures` failed fetches in
a row no fetch is tried for a cooldown that doubles up to `max_cooldown`. Keys already fetched keep
working while a refresh fails. Every failure is a `KeysUnavailable` that says what went wrong.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any

import anyio
import httpx2
import jwt

logger = logging.getLogger(__name__)
MAX_BYTES = 512_000
"""The largest key set read: a real one is a few kilobytes."""


class KeysUnavailable(Exception):
    """No key can check this token now; `reason` says why in a sentence fit for a 401's description."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class JwksCache:
    """The signing keys published at `url`, by key id."""

    def __init__(self, url: str, *, timeout: float = 5.0, lifespan: float = 300.0, refetch_interval: float = 10.0,
                 breaker_failures: int = 3, cooldown: float = 30.0, max_cooldown: float = 300.0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.url, self.timeout, self.lifespan, self.refetch_interval = url, timeout, lifespan, refetch_interval
        self.breaker_failures, self.cooldown, self.max_cooldown, self._clock = breaker_failures, cooldown, max_cooldown, clock
        self._keys: list[jwt.PyJWK] = []
        self._fetched_at: float | None = None
        self._attempted_at: float | None = None
        self._failures = 0
        self._open_until = 0.0
        self._last_error = ""
        self._fetching: anyio.Event | None = None
        self.fetches = 0
        """Fetches started so far (what the rate limit and the breaker bound)."""

    async def signing_key(self, kid: str | None) -> jwt.PyJWK:
        """The key named `kid` (None: the only signing key), fetching the set when it is missing or stale and a fetch is due.

        Raises:
            KeysUnavailable: no such key, and none can be fetched now (the reason names the issuer's failure).
        """
        found = self._find(kid)
        now = self._clock()
        stale = self._fetched_at is None or now - self._fetched_at >= self.lifespan
        if (found is None or stale) and self._may_fetch(now):
            await self._refresh()
            found = self._find(kid)
        if found is not None:
            return found
        raise KeysUnavailable(self._why_missing(kid))

    def _find(self, kid: str | None) -> jwt.PyJWK | None:
        signing = [key for key in self._keys if key.public_key_use in (None, "sig")]
        if kid is None:
            return signing[0] if len(signing) == 1 else None
        return next((key for key in signing if key.key_id == kid), None)

    def _may_fetch(self, now: float) -> bool:
        if self._fetching is not None:
            return True  # join the fetch under way
        if now < self._open_until:
            return False
        return self._attempted_at is None or now - self._attempted_at >= self.refetch_interval

    async def _refresh(self) -> None:
        if self._fetching is not None:
            await self._fetching.wait()
            return
        self._fetching = done = anyio.Event()
        self._attempted_at = self._clock()
        self.fetches += 1
        try:
            with anyio.CancelScope(shield=True):  # bounded by `timeout`; the requests waiting on it share its answer
                keys = await self._fetch()
            self._keys, self._fetched_at, self._failures, self._last_error = keys, self._clock(), 0, ""
        except KeysUnavailable as error:
            self._failed(error.reason)
        finally:
            self._fetching = None
            done.set()

    async def _fetch(self) -> list[jwt.PyJWK]:
        try:
            with anyio.fail_after(self.timeout):
                body = await self._download()
        except TimeoutError:
            raise KeysUnavailable(f"the issuer's keys did not arrive within {self.timeout:g} seconds") from None
        except httpx2.HTTPError as error:
            raise KeysUnavailable(f"the issuer's keys could not be fetched ({type(error).__name__})") from None
        try:
            document: Any = json.loads(body)
        except ValueError:
            raise KeysUnavailable("the issuer's key set is not JSON") from None
        try:
            return jwt.PyJWKSet.from_dict(document).keys if isinstance(document, dict) else _no_keys()
        except jwt.PyJWTError as error:
            raise KeysUnavailable(f"the issuer's key set has no usable key ({error})") from None

    async def _download(self) -> bytes:
        """The key set's bytes (at most `MAX_BYTES`).

        Raises:
            KeysUnavailable: an HTTP status other than 200, or a larger document.
        """
        async with httpx2.AsyncClient(timeout=self.timeout) as client, \
                client.stream("GET", self.url, headers={"Accept": "application/json"}) as response:
            if response.status_code != 200:
                raise KeysUnavailable(f"the issuer's key set answered HTTP {response.status_code}")
            body = bytearray()
            async for chunk in response.aiter_bytes():
                body.extend(chunk)
                if len(body) > MAX_BYTES:
                    raise KeysUnavailable(f"the issuer's key set is larger than {MAX_BYTES:,} bytes")
            return bytes(body)

    def _failed(self, reason: str) -> None:
        self._failures += 1
        self._last_error = reason
        if self._failures >= self.breaker_failures:
            pause = min(self.cooldown * 2 ** (self._failures - self.breaker_failures), self.max_cooldown)
            self._open_until = self._clock() + pause
            logger.warning("the OAuth issuer's keys at %s failed %d times in a row (%s); not fetched again for %g s",
                           self.url, self._failures, reason, pause)
        else:
            logger.warning("the OAuth issuer's keys at %s could not be fetched: %s", self.url, reason)

    def _why_missing(self, kid: str | None) -> str:
        if self._last_error:
            return f"{self._last_error}; try again later"
        named = f"no key with id {kid!r}" if kid is not None else "no key id, and it has more than one key"
        return f"the issuer's key set has {named}"


def _no_keys() -> list[jwt.PyJWK]:
    raise KeysUnavailable("the issuer's key set is not a JSON object with a list of keys")
