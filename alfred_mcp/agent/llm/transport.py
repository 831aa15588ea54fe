"""POST one JSON body to a model API over httpx2, bounded in time and in retries; every failure a ModelError.

Retried with backoff (honouring `retry-after`): connection failures, HTTP 429, 502, 503, 529, and a 500 whose
body does not say the request is invalid. Not retried: a timeout (the whole answer must arrive within `timeout`;
past it the request is cancelled, which closes the connection), other 4xx, and a 500 that names an invalid
request (llama-cpp-python answers every validation error with 500).

Messages are one sentence for people: which server, what failed, and (`fields["hint"]`) what to try. The server's
own answer goes to the log at -v and to `ModelError.remote`, never into a message; keys are scrubbed from both.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import anyio
import httpx2

from alfred_mcp.agent.llm.base import note_request_sent
from alfred_mcp.errors import ModelError, ModelUnavailableError

logger = logging.getLogger(__name__)
T = TypeVar("T")
Sleep = Callable[[float], Awaitable[None]]
ReadBody = Callable[[httpx2.Response], Awaitable[T]]
RETRY_STATUSES = frozenset({429, 500, 502, 503, 529})
KEY_LIKE = re.compile(r"\b(?:sk|key)-[A-Za-z0-9_*\-]{6,}")
"""Masked or partial keys some APIs echo back ("Incorrect API key provided: sk-ab***yz")."""
INVALID_REQUEST = re.compile(
    r"validation error|literal_error|input should be|invalid[_ ]request|unrecognized schema|json schema conversion|"
    r"response_format|json_schema|not supported|unsupported|cannot use both|parse error",
    re.IGNORECASE,
)
"""Words of a 500 that is about the request, not the server's health: retrying the same body cannot help."""
SHORT_MESSAGE_CHARS = 160
REMOTE_LOG_CHARS = 2000


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


@dataclass(frozen=True)
class Delivered(Generic[T]):
    """What a successful exchange produced, and how many HTTP requests it took (retries included)."""

    value: T
    requests: int


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
        where: str | None = None,
    ) -> None:
        self.provider = provider
        self.url = url
        self._headers = dict(headers)
        self._secret = secret
        self.timeout = timeout
        self.retry = retry
        self._client = client
        self._sleep = sleep
        self.where = self._scrub(where or f"{provider} at {url}")
        """How messages name this server: the provider and its (base) URL."""

    def __repr__(self) -> str:
        return f"ModelEndpoint({self.provider!r}, {self.url!r})"

    async def post(self, body: Mapping[str, Any]) -> Delivered[dict[str, Any]]:
        """POST `body`; the decoded JSON object of the first successful try."""
        return await self.send(body, self._decode)

    async def send(self, body: Mapping[str, Any], read: ReadBody[T]) -> Delivered[T]:
        """POST `body` and let `read` consume a successful response (JSON, or a stream of events).

        Raises:
            ModelUnavailableError: no complete answer within the timeout, or transient failures on every try.
            ModelError: the server refused the request (not retried), or `read` found the answer unusable.
        """
        if self._client is not None:
            return await self._send_with_retries(self._client, body, read)
        async with httpx2.AsyncClient() as client:
            return await self._send_with_retries(client, body, read)

    async def _send_with_retries(self, client: httpx2.AsyncClient, body: Mapping[str, Any], read: ReadBody[T]) -> Delivered[T]:
        failure: ModelUnavailableError | None = None
        first_loss: str | None = None
        for attempt in range(1, self.retry.attempts + 1):
            retry_after: float | None = None
            note_request_sent()
            try:
                with anyio.fail_after(self.timeout):
                    async with client.stream("POST", self.url, json=body, headers=self._headers, timeout=self.timeout) as response:
                        if response.is_success:
                            return Delivered(await read(response), attempt)
                        await response.aread()
                        failure, retry_after = self._refusal(response, attempt)
            except (TimeoutError, httpx2.TimeoutException) as exc:
                raise self._timed_out(attempt) from exc
            except httpx2.TransportError as exc:
                logger.info("%s: %s on try %d", self.where, type(exc).__name__, attempt)
                first_loss = first_loss or (type(exc).__name__ if _lost_mid_answer(exc) else None)
                failure = self._unreachable(exc, attempt, first_loss)
            except httpx2.HTTPError as exc:  # an answer that cannot be decoded, too many redirects...
                logger.info("%s: %s", self.where, exc)
                raise ModelError(
                    f"{self.where} sent an answer alfred cannot read ({type(exc).__name__})",
                    provider=self.provider, requests=attempt, hint="check that the base URL points at the model API",
                ) from exc
            if attempt < self.retry.attempts:
                await self._sleep(self.retry.delay(attempt, retry_after))
        assert failure is not None
        raise failure

    def _refusal(self, response: httpx2.Response, attempt: int) -> tuple[ModelUnavailableError, float | None]:
        """A retryable failure with its retry-after; a refusal is raised at once."""
        status, remote = response.status_code, self._scrub(response.text.strip())
        logger.info("%s answered HTTP %d: %s", self.where, status, remote[:REMOTE_LOG_CHARS])
        if status not in RETRY_STATUSES or (status == 500 and INVALID_REQUEST.search(remote)):
            raise self._refused(response, remote, attempt)
        said = _short(self._scrub(_error_message(response) or ""))
        error = ModelUnavailableError(
            f"{self.where} kept failing (HTTP {status}{': ' + said if said else ''}) after {attempt} "
            f"{'try' if attempt == 1 else 'tries'}",
            provider=self.provider, status=status, requests=attempt, attempts=attempt, hint="try again in a moment",
        )
        error.remote = remote
        return error, _retry_after(response)

    def _refused(self, response: httpx2.Response, remote: str, attempt: int) -> ModelError:
        status = response.status_code
        said = _short(self._scrub(_error_message(response) or "")) or _error_code(response)
        error = ModelError(
            f"{self.where} refused the request (HTTP {status}{': ' + said if said else ''})",
            provider=self.provider, status=status, error_type=_error_type(response), requests=attempt, hint=_hint(status, remote),
        )
        error.remote = remote
        return error

    def _timed_out(self, attempt: int) -> ModelUnavailableError:
        return ModelUnavailableError(
            f"{self.where} did not answer within {self.timeout:g} s",
            provider=self.provider, timeout=self.timeout, requests=attempt,
            hint="try again, use a faster model, or raise ALFRED_MODEL_TIMEOUT",
        )

    def _unreachable(self, exc: httpx2.TransportError, attempt: int, first_loss: str | None) -> ModelUnavailableError:
        """Unreachable; a server that dropped the connection first (a crash) is said to have, whatever followed."""
        how = "closed the connection without a complete answer" if _lost_mid_answer(exc) else "could not be reached"
        if first_loss and not _lost_mid_answer(exc):
            how = "closed the connection without a complete answer, then could not be reached"
        return ModelUnavailableError(
            f"{self.where} {how} ({type(exc).__name__}, {attempt} {'try' if attempt == 1 else 'tries'})",
            provider=self.provider, requests=attempt, attempts=attempt,
            hint="check that the server is running at that address (and has not crashed)",
        )

    async def _decode(self, response: httpx2.Response) -> dict[str, Any]:
        await response.aread()
        payload = _json_body(response)
        if not isinstance(payload, dict):
            remote = self._scrub(response.text.strip())
            logger.info("%s answered HTTP %d with a body that is not a JSON object: %s", self.where, response.status_code, remote[:REMOTE_LOG_CHARS])
            error = ModelError(
                f"{self.where} answered HTTP {response.status_code} with a body that is not a JSON object "
                f"({response.headers.get('content-type', 'no content type')})",
                provider=self.provider, status=response.status_code, hint="check that the base URL points at the model API",
            )
            error.remote = remote
            raise error
        return payload

    def _scrub(self, text: str) -> str:
        if self._secret:
            text = text.replace(self._secret, "[api key]")
        return KEY_LIKE.sub("[api key]", text)


def _lost_mid_answer(exc: httpx2.TransportError) -> bool:
    return isinstance(exc, (httpx2.RemoteProtocolError, httpx2.ReadError))


def _hint(status: int, remote: str) -> str:
    lowered = remote.lower()
    if status in (401, 403):
        return "check the API key (ALFRED_MODEL_API_KEY)"
    if status == 404:
        return "check the model name and the base URL"
    if "context" in lowered and ("length" in lowered or "size" in lowered or "exceed" in lowered):
        return "start a new session, or give the server a larger context (llama.cpp: -c 8192; llama-cpp-python: --n_ctx 8192)"
    if INVALID_REQUEST.search(remote) and ("response_format" in lowered or "json_schema" in lowered or "schema" in lowered):
        return "set ALFRED_MODEL_JSON_MODE=auto (or json_object, or prompt) for this server"
    return "run with -v to see the server's answer"


def _short(message: str) -> str:
    """The API's message when it is one short, clean line; long dumps and traces stay in the log."""
    message = message.strip()
    if not message or "\n" in message or len(message) > SHORT_MESSAGE_CHARS or 'File "' in message or "Traceback" in message:
        return ""
    return message


def _json_body(response: httpx2.Response) -> Any:
    try:
        return response.json()
    except ValueError:
        return None


def _error_message(response: httpx2.Response) -> str | None:
    """The API's own words: {"error": {"message"}}, {"error": "..."}, {"message"} or FastAPI's {"detail"}."""
    body = _json_body(response)
    if not isinstance(body, dict):
        return None
    error = body.get("error")
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])
    if isinstance(error, str):
        return error
    for key in ("message", "detail"):
        if isinstance(body.get(key), str):
            return str(body[key])
    return None


def _error_field(response: httpx2.Response, name: str) -> str | None:
    body = _json_body(response)
    error = body.get("error") if isinstance(body, dict) else None
    value = error.get(name) if isinstance(error, dict) else None
    return value if isinstance(value, str) and re.fullmatch(r"[A-Za-z0-9_.\-]{1,60}", value) else None


def _error_type(response: httpx2.Response) -> str | None:
    return _error_field(response, "type")


def _error_code(response: httpx2.Response) -> str:
    return _error_field(response, "code") or _error_field(response, "type") or ""


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
