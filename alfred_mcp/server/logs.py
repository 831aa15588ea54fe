"""The server's log on stderr: text (the default) or JSON lines (`ALFRED_LOG_FORMAT=json`).

In JSON every record is one object on one line: `time` (ISO-8601 UTC), `level`, `logger`, `event`
(`tool_call`, `session_conflict`, `serving`, `stopped`, `readiness`; `log` for any other record),
`message`, and the event's fields. A tool call's line (`CallLog`) holds the tool, `duration_ms`,
`outcome`, the error `code`, the `user` hashed (`observe.hashed_user`: never the handle or the id),
the JSON-RPC `request_id` and, when the call belongs to a trace (a W3C `traceparent` in its
`_meta`, or a span of this process), the `trace_id`. JSON logs INFO and up unless -vv asks for more;
text keeps its levels (-v INFO, -vv DEBUG). On stdio the protocol owns stdout, so logs stay on stderr.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import datetime, timezone
from typing import Any, Literal

from opentelemetry import trace

from alfred_mcp.errors import ConfigError
from alfred_mcp.server.observe import ToolCall, hashed_user

LOG_FORMAT_ENV = "ALFRED_LOG_FORMAT"
LogFormat = Literal["text", "json"]
TEXT_FORMAT = "%(levelname)s %(name)s: %(message)s"
calls_logger = logging.getLogger("alfred_mcp.calls")
calls_logger.setLevel(logging.WARNING)  # on only through configure_logging: see below
"""The per-call log. Off until `configure_logging` asks for INFO (JSON, or text with -v): the `mcp` SDK
sets the root logger to INFO in any process that has not configured logging (tests, benchmarks, a host
embedding the server), and a line per call is the operator's choice, not a side effect."""


def log_format(value: str | None) -> LogFormat:
    """`text` (unset or empty) or `json`.

    Raises:
        ConfigError: any other value, naming ALFRED_LOG_FORMAT and the two it takes.
    """
    chosen = (value or "text").strip().lower() or "text"
    if chosen == "text":
        return "text"
    if chosen == "json":
        return "json"
    raise ConfigError(f"{LOG_FORMAT_ENV} takes 'text' or 'json' (got {value!r}).", field=LOG_FORMAT_ENV, value=value,
                      valid=["text", "json"])


def configure_logging(verbosity: int, form: LogFormat) -> None:
    """Log to stderr in `form`: text at WARNING (-v INFO, -vv DEBUG), JSON at INFO (-vv DEBUG)."""
    if verbosity >= 2:
        level = logging.DEBUG
    elif verbosity == 1 or form == "json":
        level = logging.INFO
    else:
        level = logging.WARNING
    calls_logger.setLevel(logging.INFO if level <= logging.INFO else logging.WARNING)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLines() if form == "json" else logging.Formatter(TEXT_FORMAT))
    logging.basicConfig(level=level, handlers=[handler])


def event(name: str, *, operator_only: bool = False, **fields: Any) -> dict[str, Any]:
    """`extra=` for a log call that is a lifecycle event: `logger.info("...", extra=event("serving", port=8765))`.
    `operator_only`: the record stays in the server's log, never sent to an MCP client (`client_log.py`)."""
    return {"event": name, "fields": fields, "operator_only": operator_only}


class JsonLines(logging.Formatter):
    """One JSON object per record, on one line."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname.lower(), "logger": record.name, "event": getattr(record, "event", "log"),
            "message": record.getMessage(),
        }
        fields = getattr(record, "fields", None)
        if isinstance(fields, dict):
            entry.update({key: value for key, value in fields.items() if key not in entry})
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, ensure_ascii=False)


class CallLog:
    """A `CallObserver` writing one INFO record per tool call (and per session conflict) to `alfred_mcp.calls`."""

    def tool_call(self, call: ToolCall) -> None:
        if not calls_logger.isEnabledFor(logging.INFO):
            return
        milliseconds = round(call.seconds * 1e3, 3)
        fields = {"tool": call.tool, "duration_ms": milliseconds, "outcome": call.outcome, "code": call.code,
                  "user": hashed_user(call.user), "request_id": call.request_id, "trace_id": current_trace_id()}
        calls_logger.info("%s %s in %.1f ms", call.tool, call.code or call.outcome, milliseconds, extra=event("tool_call", operator_only=True, **fields))

    def session_conflict(self, tool: str, *, retried: bool) -> None:
        calls_logger.info("%s: session conflict, %s", tool, "run again" if retried else "given up",
                          extra=event("session_conflict", operator_only=True, tool=tool, retried=retried,
                                      trace_id=current_trace_id()))


def current_trace_id() -> str | None:
    """The W3C trace id (32 hex digits) of the span the caller runs in, or None outside any trace."""
    context = trace.get_current_span().get_span_context()
    return format(context.trace_id, "032x") if context.is_valid else None
