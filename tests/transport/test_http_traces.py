"""OpenTelemetry traces from a real `serve --http` process to a loopback OTLP/HTTP receiver: the SDK's span per
call continues the client's trace, with spans for the store, the bundled agent's model calls and recipe page
fetches inside it; nothing is sent without OTEL_EXPORTER_OTLP_ENDPOINT."""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from asgi_server import serving
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest, ExportTraceServiceResponse
from starlette.types import Receive, Scope, Send

sys.path.insert(0, str(Path(__file__).parents[1]))
from e2e.helpers import call  # noqa: E402
from http_harness import http_client, http_server  # noqa: E402
from recipe_site import recipe_site  # noqa: E402

pytestmark = pytest.mark.anyio
TOKEN = "traces-user-token-0123456789"
TRACE_ID = "0af7651916cd43dd8448eb211c80319c"
TRACEPARENT = f"00-{TRACE_ID}-b7ad6b7169203331-01"


@dataclass(frozen=True)
class Span:
    name: str
    trace_id: str
    span_id: str
    parent_id: str
    attributes: dict[str, Any]
    service: str


class Receiver:
    """An OTLP/HTTP trace receiver (POST /v1/traces, protobuf) keeping every span it is sent."""

    def __init__(self) -> None:
        self.spans: list[Span] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        body = b""
        while True:
            message = await receive()
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        if scope["path"] == "/v1/traces":
            self._keep(body)
        reply = ExportTraceServiceResponse().SerializeToString()
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"application/x-protobuf")]})
        await send({"type": "http.response.body", "body": reply})

    def _keep(self, body: bytes) -> None:
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        for resource in request.resource_spans:
            service = next((a.value.string_value for a in resource.resource.attributes if a.key == "service.name"), "")
            for scoped in resource.scope_spans:
                for span in scoped.spans:
                    attributes = {a.key: _value(a.value) for a in span.attributes}
                    self.spans.append(Span(span.name, span.trace_id.hex(), span.span_id.hex(), span.parent_span_id.hex(), attributes, service))


def _value(value: Any) -> Any:
    return getattr(value, value.WhichOneof("value")) if value.WhichOneof("value") else None


@asynccontextmanager
async def receiving() -> AsyncIterator[tuple[Receiver, str]]:
    receiver = Receiver()
    async with serving(lambda port: receiver) as url:
        yield receiver, url


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    with recipe_site() as url:
        yield url


def _trace_of(spans: list[Span], name: str, **attributes: Any) -> list[Span]:
    """The spans of the (one) trace whose root call span is `name`."""
    roots = [s for s in spans if s.name == name and all(s.attributes.get(k) == v for k, v in attributes.items())]
    assert len(roots) == 1, [s.name for s in spans]
    return [s for s in spans if s.trace_id == roots[0].trace_id]


def _descends(span: Span, root: Span, spans: list[Span]) -> bool:
    by_id = {s.span_id: s for s in spans}
    while span.parent_id in by_id:
        span = by_id[span.parent_id]
        if span is root:
            return True
    return False


async def test_calls_export_spans_for_the_store_the_model_and_fetches(tmp_path: Path, site: str) -> None:
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": "", "OTEL_BSP_SCHEDULE_DELAY": "100", "ALFRED_MODEL": "scripted:demo",
           "ALFRED_IMPORT_ALLOW_NETWORKS": "127.0.0.0/8"}
    async with receiving() as (receiver, endpoint):
        env["OTEL_EXPORTER_OTLP_ENDPOINT"] = endpoint
        async with http_server(str(tmp_path / "k.db"), {TOKEN: "alice"}, env) as url, http_client(url, TOKEN) as client:
            read = await client.call_tool("db_read", {"table": "recipes"}, meta={"traceparent": TRACEPARENT})
            chat = await client.call_tool("chat", {"message": "what are my tasks?"})
            imported = await call(client, "recipes_import", source=f"{site}/lemon-cod")
        spans = list(receiver.spans)  # the server flushed its spans as it stopped
    assert not read.is_error and not chat.is_error and imported["drafts"]
    assert {span.service for span in spans} == {"alfred-mcp"}

    reading = _trace_of(spans, "tools/call db_read")
    root = next(s for s in reading if s.name == "tools/call db_read")
    assert root.trace_id == TRACE_ID and root.parent_id == "b7ad6b7169203331"  # continues the client's trace
    selects = [s for s in reading if s.name == "store.select" and s.attributes.get("db.collection.name") == "recipes"]
    assert selects and all(_descends(s, root, reading) and s.attributes["db.system"] == "sqlite" for s in selects)

    chatting = _trace_of(spans, "tools/call chat")
    models = [s for s in chatting if s.name.startswith("model.complete ")]
    assert {s.attributes["alfred.role"] for s in models} >= {"understand"}
    assert all(s.name == f"model.complete {s.attributes['alfred.role']}" and s.attributes["alfred.model.requests"] == 1 for s in models)

    importing = _trace_of(spans, "tools/call recipes_import")
    assert [s.name for s in importing].count("import.fetch") == 1
    assert {s.trace_id for s in spans} >= {reading[0].trace_id, chatting[0].trace_id, importing[0].trace_id}


def test_tracing_is_off_without_an_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    """No endpoint: no provider is installed (the API's spans stay no-ops, nothing leaves the process)."""
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider

    from alfred_mcp.server.tracing import ENDPOINT_ENVS, start_tracing

    for name in ENDPOINT_ENVS:
        monkeypatch.delenv(name, raising=False)
    assert start_tracing() is None
    assert not isinstance(trace.get_tracer_provider(), TracerProvider)
