"""POST one JSON body to a model API over httpx2: bounded retries with backoff, every failure a ModelError.

Retried: HTTP 429/500/502/503/529 and connection failures, honouring `retry-after`. Not retried:
timeouts (a model that did not answer in time is reported at once) and other 4xx (the request is wrong).
Messages carry the API's own error text with any API key scrubbed out; headers are never shown.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import anyio
import httpx2

from alfred_mcp.errors import ModelError, ModelUnavailableError

Sleep = Callable[[float], Awaitable[None]]
RETRY_STATUSES = frozenset({429, 500, 502, 503, 529})
KEY_LIKE = re.compile(r"\b(?:sk|key)-[A-Za-z0-9_*\-]{6,}")
"""Masked or partial keys some APIs echo back ("Incorrect API key provided: sk-ab***yz")."""
BODY_EXCERPT_CHARS = 300


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently to retry a transient failure."""

    attempts: int = 3
    """Total tries, the first included."""
    base_delay: float = 1.0
    """Seconds before the second try; doubles for each further try."""
    max_delay: float = 30.0
    """Cap on any single wait, `retry-after` included."""

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise ValueError(f"RetryPolicy.attempts must be at least 1, got {self.attempts}")

    def delay(self, retry_number: int, retry_after: float | None) -> float:
        """Seconds to wait before retry number `retry_number` (1-based)."""
        wanted = retry_after if retry_after is not None else self.base_delay * 2 ** (retry_number - 1)
        return max(0.0, min(wanted, self.max_delay))


class ModelEndpoint:
    """One model API URL with its headers, timeout and retry policy."""

    def __init__(
        self,
        provider: str,
        url: str,
        headers: Mapping[str, str],
        *,
        secret: str | None,
        timeout: float,
        retry: RetryPolicy,
        client: httpx2.AsyncClient | None,
        sleep: Sleep = anyio.sleep,
    ) -> None:
        self.provider = provider
        self.url = url
        self._headers = dict(headers)
        self._secret = secret
        self.timeout = timeout
        self.retry = retry
        self._client = client
        self._sleep = sleep

    def __repr__(self) -> str:
        return f"ModelEndpoint({self.provider!r}, {self.url!r})"

    async def post(self, body: Mapping[str, Any]) -> dict[str, Any]:
        """POST `body`; return the decoded JSON answer of the first successful try.

        Raises:
            ModelUnavailableError: timeout, or transient failures on every try.
            ModelError: a non-retryable HTTP error (the API's message), or a body that is not JSON.
        """
        if self._client is not None:
            return await self._post_with_retries(self._client, body)
        async with httpx2.AsyncClient() as client:
            return await self._post_with_retries(client, body)

    async def _post_with_retries(self, client: httpx2.AsyncClient, body: Mapping[str, Any]) -> dict[str, Any]:
        failure, status = "", None
        for attempt in range(1, self.retry.attempts + 1):
            try:
                response = await client.post(self.url, json=body, headers=self._headers, timeout=self.timeout)
            except httpx2.TimeoutException as exc:
                raise ModelUnavailableError(
                    f"{self.provider} did not answer within {self.timeout:g}s ({self._scrub(self.url)})", provider=self.provider
                ) from exc
            except httpx2.TransportError as exc:
                failure, retry_after = f"could not reach {self.provider} at {self._scrub(self.url)} ({type(exc).__name__})", None
            else:
                if response.is_success:
                    return self._decode(response)
                if response.status_code not in RETRY_STATUSES:
                    raise self._refusal(response)
                status, retry_after = response.status_code, _retry_after(response)
                failure = f"{self.provider} answered HTTP {status}: {self._message(response)}"
            if attempt < self.retry.attempts:
                await self._sleep(self.retry.delay(attempt, retry_after))
        raise ModelUnavailableError(
            f"{failure} (gave up after {self.retry.attempts} attempts)", provider=self.provider, status=status, attempts=self.retry.attempts
        )

    def _decode(self, response: httpx2.Response) -> dict[str, Any]:
        payload = _json_body(response)
        if not isinstance(payload, dict):
            raise ModelError(
                f"{self.provider} answered HTTP {response.status_code} with a body that is not a JSON object: {self._excerpt(response)!r}",
                provider=self.provider,
                status=response.status_code,
            )
        return payload

    def _refusal(self, response: httpx2.Response) -> ModelError:
        message = self._message(response)
        if response.status_code in (401, 403):
            message = f"{message.rstrip('.')}. Check the API key (ALFRED_MODEL_API_KEY)."
        return ModelError(
            f"{self.provider} refused the request (HTTP {response.status_code}): {message}",
            provider=self.provider,
            status=response.status_code,
            error_type=_error_type(response),
        )

    def _message(self, response: httpx2.Response) -> str:
        return self._scrub(_error_message(response) or self._excerpt(response) or response.reason_phrase)

    def _excerpt(self, response: httpx2.Response) -> str:
        return self._scrub(response.text.strip()[:BODY_EXCERPT_CHARS])

    def _scrub(self, text: str) -> str:
        if self._secret:
            text = text.replace(self._secret, "[api key]")
        return KEY_LIKE.sub("[api key]", text)


def _json_body(response: httpx2.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def _error_message(response: httpx2.Response) -> str | None:
    """The API's own words: {"error": {"message"}} (Anthropic, OpenAI, llama.cpp), {"error": "..."} or {"message"}."""
    body = _json_body(response)
    if not isinstance(body, dict):
        return None
    error = body.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])
    if isinstance(error, str):
        return error
    message = body.get("message")
    return message if isinstance(message, str) else None


def _error_type(response: httpx2.Response) -> str | None:
    body = _json_body(response)
    error = body.get("error") if isinstance(body, dict) else None
    kind = error.get("type") if isinstance(error, dict) else None
    return kind if isinstance(kind, str) else None


def _retry_after(response: httpx2.Response) -> float | None:
    """Seconds from `retry-after-ms` or a numeric `retry-after`; an HTTP-date is left to the backoff."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = response.headers.get(name)
        if value is None:
            continue
        try:
            return float(value) * scale
        except ValueError:
            continue
    return None
