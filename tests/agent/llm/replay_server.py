"""A real HTTP server on 127.0.0.1 that replays recorded model API responses and records what it received.

Each POST takes the next queued `Reply` (status, headers, JSON body, optional delay before answering);
with nothing queued it answers 418, which no provider retries, so a missing reply fails loudly.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

RECORDINGS = Path(__file__).with_name("recordings")


@dataclass(frozen=True)
class Reply:
    """One HTTP response to replay."""

    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=lambda: {"content-type": "application/json"})
    delay: float = 0.0
    """Seconds to wait before answering (to provoke client timeouts)."""

    @classmethod
    def recording(cls, name: str, *, delay: float = 0.0) -> Reply:
        """The response stored in recordings/<name>.json."""
        recorded = json.loads((RECORDINGS / f"{name}.json").read_text(encoding="utf-8"))
        return cls(recorded["status"], recorded["body"], recorded["headers"], delay)

    def encoded(self) -> bytes:
        return (self.body if isinstance(self.body, str) else json.dumps(self.body)).encode()


@dataclass(frozen=True)
class Received:
    """One request as the server saw it; header names lower-cased."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


class ReplayServer:
    """Start with `with ReplayServer() as server:`; queue replies, point a provider at `server.url`."""

    def __init__(self, *replies: Reply) -> None:
        self._replies = list(replies)
        self.received: list[Received] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def queue(self, *replies: Reply) -> None:
        with self._lock:
            self._replies.extend(replies)

    def __enter__(self) -> ReplayServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def _take(self, received: Received) -> Reply:
        with self._lock:
            self.received.append(received)
            if self._replies:
                return self._replies.pop(0)
        return Reply(418, {"error": {"type": "replay_error", "message": "the replay server has no reply queued"}})


def _handler_for(server: ReplayServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            raw = self.rfile.read(int(self.headers.get("content-length", 0)))
            headers = {name.lower(): value for name, value in self.headers.items()}
            reply = server._take(Received("POST", self.path, headers, json.loads(raw) if raw else None))
            time.sleep(reply.delay)
            payload = reply.encoded()
            try:
                self.send_response(reply.status)
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout test): nothing left to answer

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep test output clean

    return Handler
