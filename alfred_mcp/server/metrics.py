"""Prometheus metrics for `serve --http`, scraped at /metrics with their own bearer token.

Each served app gets its own registry (`Metrics`), so servers in one process (tests) never share
counts. What is counted:

- `alfred_tool_calls_total{tool,outcome}`: outcome ok, refused (the caller's mistake) or internal_error;
- `alfred_tool_call_duration_seconds{tool}`: a histogram per tool;
- `alfred_tool_errors_total{code}`: refused and failed calls by error code;
- `alfred_session_conflicts_total{result}`: tries refused because another call saved the session
  first: `retried` (run again) or `gave_up` (the conflict was the answer);
- `alfred_db_pool_connections{state}`: PostgreSQL pool size, idle, waiting requests and max;
- `alfred_model_calls_total{role,outcome}`, `alfred_model_requests_total`, `alfred_model_tokens_total{kind}`:
  the bundled agent's model calls (outcome ok or the error code), HTTP requests (retries
  included) and tokens (input, output) as the provider reported them;
- `alfred_import_fetches_total{outcome}`: recipes_import calls that fetched a URL.

/metrics is served only when ALFRED_METRICS_TOKEN is set (at least 16 characters); a scrape must
send it as `Authorization: Bearer <token>` (401 otherwise). Like the probes it is answered before
the Host check, since Prometheus scrapes a replica at its own address; the token is what guards it.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Callable, Iterator

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.exposition import generate_latest
from prometheus_client.registry import Collector
from starlette.types import ASGIApp, Receive, Scope, Send

from alfred_mcp.agent.llm.base import LLM, ModelRequest, ModelResponse
from alfred_mcp.errors import ConfigError, ModelError
from alfred_mcp.server.observe import ToolCall

METRICS_PATH = "/metrics"
METRICS_TOKEN_ENV = "ALFRED_METRICS_TOKEN"
MIN_METRICS_TOKEN = 16
TEXT_FORMAT = b"text/plain; version=0.0.4; charset=utf-8"
"""The classic text exposition, which every Prometheus reads (the names here are plain ASCII)."""
DURATION_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
"""Seconds: a memoized read takes about a millisecond, an agent turn with a model up to a minute."""

PoolStats = Callable[[], dict[str, int]]


class Metrics:
    """One server's instruments in a registry of its own; also a `CallObserver` (`observe.py`)."""

    def __init__(self, pool_stats: PoolStats | None = None) -> None:
        self.registry = CollectorRegistry()
        r = self.registry
        self.tool_calls = Counter("alfred_tool_calls", "Tool calls by tool and outcome (ok, refused, internal_error).",
                                  ["tool", "outcome"], registry=r)
        self.tool_seconds = Histogram("alfred_tool_call_duration_seconds", "Tool call duration in seconds.", ["tool"],
                                      buckets=DURATION_BUCKETS, registry=r)
        self.tool_errors = Counter("alfred_tool_errors", "Refused or failed tool calls by error code.", ["code"], registry=r)
        self.conflicts = Counter("alfred_session_conflicts", "Tries refused by a session conflict: retried or gave_up.",
                                 ["result"], registry=r)
        self.model_calls = Counter("alfred_model_calls", "The bundled agent's model calls by role and outcome (ok or error code).",
                                   ["role", "outcome"], registry=r)
        self.model_requests = Counter("alfred_model_requests", "HTTP requests to the model provider, retries included.", registry=r)
        self.model_tokens = Counter("alfred_model_tokens", "Model tokens as the provider reported them, by kind (input, output).",
                                    ["kind"], registry=r)
        self.import_fetches = Counter("alfred_import_fetches", "recipes_import calls that fetched a URL, by outcome.",
                                      ["outcome"], registry=r)
        if pool_stats is not None:
            r.register(_PoolCollector(pool_stats))

    def tool_call(self, call: ToolCall) -> None:
        self.tool_calls.labels(call.tool, call.outcome).inc()
        self.tool_seconds.labels(call.tool).observe(call.seconds)
        if call.code is not None:
            self.tool_errors.labels(call.code).inc()
        if call.fetched:
            self.import_fetches.labels(call.code or "ok").inc()

    def session_conflict(self, tool: str, *, retried: bool) -> None:
        self.conflicts.labels("retried" if retried else "gave_up").inc()

    def exposition(self) -> bytes:
        """The registry in Prometheus' text format."""
        return generate_latest(self.registry)


class _PoolCollector(Collector):
    """The database pool's state, read at each scrape."""

    def __init__(self, stats: PoolStats) -> None:
        self.stats = stats

    def collect(self) -> Iterator[Metric]:
        family = GaugeMetricFamily("alfred_db_pool_connections", "Database pool: size, idle, waiting requests, max.",
                                   labels=["state"])
        for state, value in self.stats().items():
            family.add_metric([state], value)
        yield family


class CountedModel:
    """An `LLM` that counts its calls, requests, tokens and failures in `metrics`, then answers as `model` does."""

    def __init__(self, model: LLM, metrics: Metrics) -> None:
        self.model, self.metrics = model, metrics

    async def complete(self, request: ModelRequest) -> ModelResponse:
        try:
            response = await self.model.complete(request)
        except ModelError as error:
            self.metrics.model_calls.labels(request.role, error.code).inc()
            requests = error.fields.get("requests")
            self.metrics.model_requests.inc(requests if isinstance(requests, int) and requests > 0 else 1)
            raise
        self.metrics.model_calls.labels(request.role, "ok").inc()
        self.metrics.model_requests.inc(response.requests)
        for kind, tokens in (("input", response.usage.input_tokens), ("output", response.usage.output_tokens)):
            if tokens:
                self.metrics.model_tokens.labels(kind).inc(tokens)
        return response


def metrics_token(value: str | None) -> str | None:
    """The metrics scrape token from ALFRED_METRICS_TOKEN's value (None: /metrics is not served).

    Raises:
        ConfigError: a token shorter than MIN_METRICS_TOKEN characters.
    """
    if value is None or not value.strip():
        return None
    if len(value.strip()) < MIN_METRICS_TOKEN:
        raise ConfigError(f"{METRICS_TOKEN_ENV} must have at least {MIN_METRICS_TOKEN} characters.", field="metrics_token")
    return value.strip()


class MetricsEndpoint:
    """ASGI: GET /metrics with the scrape token answers the exposition; everything else goes on to `app`."""

    def __init__(self, app: ASGIApp, metrics: Metrics, token: str) -> None:
        self.app, self.metrics, self.token = app, metrics, token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != METRICS_PATH:
            await self.app(scope, receive, send)
            return
        if scope["method"] not in ("GET", "HEAD"):
            await _send(send, 405, b"application/json", _json(f"{METRICS_PATH} answers GET and HEAD."), [(b"allow", b"GET, HEAD")])
            return
        if not hmac.compare_digest(_bearer(scope), self.token):
            await _send(send, 401, b"application/json", _json(f"A scrape of {METRICS_PATH} needs 'Authorization: Bearer <{METRICS_TOKEN_ENV}>'."),
                        [(b"www-authenticate", b'Bearer realm="alfred-mcp metrics"')])
            return
        await _send(send, 200, TEXT_FORMAT, self.metrics.exposition(), head=scope["method"] == "HEAD")


def _bearer(scope: Scope) -> bytes:
    for key, value in scope["headers"]:
        if key == b"authorization":
            scheme, _, token = value.partition(b" ")
            return token.strip() if scheme.lower() == b"bearer" else b""
    return b""


def _json(message: str) -> bytes:
    return json.dumps({"error": message}).encode()


async def _send(
    send: Send, status: int, content_type: bytes, body: bytes, extra: list[tuple[bytes, bytes]] | None = None, *, head: bool = False
) -> None:
    headers: list[tuple[bytes, bytes]] = [(b"content-type", content_type), (b"content-length", str(len(body)).encode()),
                                          (b"cache-control", b"no-store"), *(extra or [])]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": b"" if head else body})

