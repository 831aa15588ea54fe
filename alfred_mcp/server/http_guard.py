"""What an HTTP request must get right before anything else looks at it.

`RequestGuard` runs first, before authentication: the Host header must name this server (421)
and, on /mcp, the Origin too (403), so a DNS-rebinding page learns nothing, not even that a token
is needed. It answers CORS preflights from allowed origins and marks their responses.

`MessageGate` runs after authentication, on /mcp: a `MCP-Protocol-Version` this server does not
speak gets the spec's unsupported-version error listing the ones it does (a 2026-07-28 envelope is
left to the SDK, which lists the stateless versions, as `server/discover` does), and a POST body
that is not one JSON-RPC message (a batch array, a JSON value of another shape) gets -32600 with a
short message instead of a validation dump. Unparseable JSON is left to the SDK, which answers -32700.
"""

from __future__ import annotations

import json
from typing import Any

from mcp.server.transport_security import DEFAULT_MAX_REQUEST_BODY_SIZE, TransportSecurityMiddleware, TransportSecuritySettings
from mcp.types import INVALID_REQUEST, PROTOCOL_VERSION_META_KEY, UNSUPPORTED_PROTOCOL_VERSION
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

SUPPORTED_VERSIONS = (*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS)
CORS_HEADERS = ["Authorization", "Content-Type", "Accept", "Mcp-Session-Id", "MCP-Protocol-Version", "Mcp-Method", "Mcp-Name",
                "Last-Event-ID"]
CORS_EXPOSED = ["Mcp-Session-Id", "MCP-Protocol-Version", "WWW-Authenticate"]


class RequestGuard:
    """ASGI: Host (421) and, on `mcp_path`, Origin (403) checked before anything else; CORS for allowed origins."""

    def __init__(self, app: ASGIApp, security: TransportSecuritySettings, *, mcp_path: str) -> None:
        self.checks = TransportSecurityMiddleware(security)
        self.mcp_path = mcp_path
        self.app = CORSMiddleware(app, allow_origins=["*"], allow_methods=["GET", "POST", "DELETE"], allow_headers=CORS_HEADERS,
                                  expose_headers=CORS_EXPOSED, max_age=600)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            checked = scope
            if scope["path"] != self.mcp_path:  # metadata is public to any origin: only its Host is checked
                checked = {**scope, "headers": [(key, value) for key, value in scope["headers"] if key != b"origin"]}
            refusal = await self.checks.validate_request(Request(checked), is_post=False)
            if refusal is not None:
                await refusal(scope, receive, send)
                return
        await self.app(scope, receive, send)


class MessageGate:
    """ASGI, on `mcp_path`: a protocol version this server speaks, and one JSON-RPC message per POST."""

    def __init__(self, app: ASGIApp, *, mcp_path: str, max_body: int = DEFAULT_MAX_REQUEST_BODY_SIZE) -> None:
        self.app, self.mcp_path, self.max_body = app, mcp_path, max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] != self.mcp_path:
            await self.app(scope, receive, send)
            return
        version = _header(scope, b"mcp-protocol-version")
        body = await _read_body(receive, self.max_body) if scope["method"] == "POST" else b""
        if body is None:
            await _json_response(413, _rpc_error(None, INVALID_REQUEST, "Request body too large"))(scope, receive, send)
            return
        message = _parsed(body)
        refusal = _version_refusal(version, message) or _shape_refusal(message)
        if refusal is not None:
            await _json_response(400, refusal)(scope, receive, send)
            return
        await self.app(scope, _replay(body, receive) if scope["method"] == "POST" else receive, send)


def _version_refusal(version: str | None, message: Any) -> dict[str, Any] | None:
    if version is None or version in SUPPORTED_VERSIONS or _is_modern_envelope(message):
        return None
    return _rpc_error(_request_id(message), UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version",
                      {"supported": list(SUPPORTED_VERSIONS), "requested": version})


def _shape_refusal(message: Any) -> dict[str, Any] | None:
    if message is _UNPARSED:
        return None
    if isinstance(message, list):
        return _rpc_error(None, INVALID_REQUEST, "Invalid request: batches are not supported; send one JSON-RPC message per request.")
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0" or not {"method", "result", "error"} & message.keys():
        return _rpc_error(_request_id(message), INVALID_REQUEST,
                          'Invalid request: not a JSON-RPC 2.0 message (an object with "jsonrpc": "2.0" and a "method").')
    return None


def _is_modern_envelope(message: Any) -> bool:
    params = message.get("params") if isinstance(message, dict) else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    return isinstance(meta, dict) and PROTOCOL_VERSION_META_KEY in meta


_UNPARSED = object()
"""Not JSON (or too deep for Python's parser): the SDK answers it with -32700."""


def _parsed(body: bytes) -> Any:
    if not body:
        return _UNPARSED
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        return _UNPARSED


def _request_id(message: Any) -> int | str | None:
    found = message.get("id") if isinstance(message, dict) else None
    return found if isinstance(found, (int, str)) and not isinstance(found, bool) else None


def _rpc_error(request_id: int | str | None, code: int, message: str, data: Any = None) -> dict[str, Any]:
    error: dict[str, Any] = {"code": code, "message": message, **({"data": data} if data is not None else {})}
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def _header(scope: Scope, name: bytes) -> str | None:
    return next((value.decode("latin-1") for key, value in scope["headers"] if key == name), None)


async def _read_body(receive: Receive, limit: int) -> bytes | None:
    """The whole body, or None past `limit` bytes."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks)
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replayed() -> Message:
        nonlocal sent
        if sent:
            return await receive()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return replayed


def _json_response(status: int, payload: dict[str, Any]) -> ASGIApp:
    body = json.dumps(payload).encode()

    async def respond(scope: Scope, receive: Receive, send: Send) -> None:
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    return respond
