"""OpenTelemetry traces, exported over OTLP (HTTP/protobuf) only when `OTEL_EXPORTER_OTLP_ENDPOINT`
(or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set.

The `mcp` SDK already opens a span per MCP request (`tools/call db_read`, ...), continuing the
client's trace when its `_meta` holds a W3C `traceparent`. Inside it alfred adds spans for the
store (`store.<method>`: `store/traced.py`), the bundled agent's model calls (`model.complete <role>`:
`agent/llm/traced.py`) and recipe page fetches (`import.fetch`, in `operations/importing.py`). Without an
endpoint no provider is installed: the API's spans are no-ops and nothing leaves the process.
The exporter reads the standard OTEL_* variables (headers, timeout, service name).
"""

from __future__ import annotations

import os
from collections.abc import Callable

from opentelemetry import trace

from alfred_mcp.errors import ConfigError

ENDPOINT_ENVS = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")


def tracing_wanted() -> bool:
    return any(os.environ.get(name, "").strip() for name in ENDPOINT_ENVS)


def start_tracing() -> Callable[[], None] | None:
    """Install an OTLP-exporting tracer provider when an endpoint is configured; the function that flushes
    and stops it (call it at exit), or None when tracing is off.

    Raises:
        ConfigError: an endpoint is set but the OpenTelemetry SDK and OTLP exporter are not installed.
    """
    if not tracing_wanted():
        return None
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        raise ConfigError.missing_extra("OTEL_EXPORTER_OTLP_ENDPOINT (traces)", "otel", "OTEL_EXPORTER_OTLP_ENDPOINT") from None
    provider = TracerProvider(resource=Resource.create({"service.name": os.environ.get("OTEL_SERVICE_NAME") or "alfred-mcp"}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    return provider.shutdown
