"""A loopback OpenAI-compatible chat server that behaves like the real ones did when measured.

`FakeModelServer(behaviour)` answers POST .../chat/completions with what `behaviour(request)` returns:

- `Answer(content)`: a completion, as JSON or (when the request asked to stream) as llama-cpp-python's SSE
  framing (`json.dumps` spacing, a role-only first chunk, a `finish_reason` chunk, `data: [DONE]`);
- `Refuse(status, body)`: an error body, e.g. `LLAMA_CPP_PYTHON_JSON_SCHEMA` (its 500 for `json_schema`);
- `Silent()`: read the request and never answer (until the client leaves or the server stops);
- `Die()`: close the connection without a response and stop listening (a crashed server);
- `Runaway()`: generate tokens until `max_tokens` if `honours_max_tokens`, else forever; streamed, it stops
  when the client disconnects; not streamed, it keeps "generating" after the client gave up, as
  llama-cpp-python does (`busy_seconds` says for how long).

Behaviours built from role outputs: `by_role(...)`, `llama_cpp_python(...)` (refuses `json_schema`,
answers otherwise). The role of a request is read from its schema name (`<role>_output`).
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

LLAMA_CPP_PYTHON_JSON_SCHEMA = {
    "error": {
        "message": "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': "
        "\"Input should be 'text' or 'json_object'\", 'input': 'json_schema', 'ctx': {'expected': \"'text' or "
        "'json_object'\"}}\n\n  File \"/srv/llama-venv/lib/python3.11/site-packages/llama_cpp/server/app.py\", line 376, "
        "in create_chat_completion\n    POST /v1/chat/completions",
        "type": "internal_server_error",
        "param": None,
        "code": None,
    }
}
"""llama-cpp-python 0.3.36's answer to `response_format: json_schema`, byte for byte but the install path."""
ROLE_NAME = re.compile(r"\b(understand|think|act|reply)_output\b")
RUNAWAY_TOKEN = "and "


@dataclass(frozen=True)
class Answer:
    content: str
    finish_reason: str = "stop"
    delay: float = 0.0


@dataclass(frozen=True)
class Refuse:
    status: int
    body: Any
    content_type: str = "application/json"
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Silent:
    pass


@dataclass(frozen=True)
class Die:
    pass


@dataclass(frozen=True)
class Runaway:
    tokens_per_second: float = 400.0
    honours_max_tokens: bool = False


Action = Answer | Refuse | Silent | Die | Runaway
Behaviour = Callable[["Request"], Action]


@dataclass
class Request:
    """One request as the server saw it."""

    path: str
    body: dict[str, Any]
    started: float
    ended: float | None = None
    outcome: str = ""
    busy_seconds: float = 0.0
    """How long the server kept generating for it (a runaway's cost)."""

    @property
    def role(self) -> str | None:
        """The agent role asking, from the schema name in the request."""
        found = ROLE_NAME.search(json.dumps(self.body))
        return found.group(1) if found else None

    @property
    def json_mode(self) -> str:
        response_format = self.body.get("response_format")
        if not isinstance(response_format, dict):
            return "prompt"
        kind = str(response_format.get("type"))
        return f"{kind}+schema" if kind == "json_object" and "schema" in response_format else kind

    @property
    def streamed(self) -> bool:
        return bool(self.body.get("stream"))


def by_role(outputs: Mapping[str, Sequence[dict[str, Any]]], *, fallback: Action | None = None) -> Behaviour:
    """Answer each role with its next output (the last one repeats); other requests get `fallback` or `{}`."""
    played: dict[str, int] = {}
    lock = threading.Lock()

    def behave(request: Request) -> Action:
        role = request.role
        if role not in outputs or not outputs[role]:
            return fallback or Answer("{}")
        with lock:
            index = played.get(role, 0)
            played[role] = index + 1
        items = outputs[role]
        return Answer(json.dumps(items[min(index, len(items) - 1)]))

    return behave


def llama_cpp_python(answer: Behaviour) -> Behaviour:
    """llama-cpp-python 0.3.x: HTTP 500 for `response_format: json_schema`, `answer` for anything else."""

    def behave(request: Request) -> Action:
        if request.json_mode == "json_schema":
            return Refuse(500, LLAMA_CPP_PYTHON_JSON_SCHEMA)
        return answer(request)

    return behave


def always(action: Action) -> Behaviour:
    return lambda request: action


def dies_after(count: int, answer: Behaviour) -> Behaviour:
    """Answer the first `count` requests, then crash (no response, nothing listening any more)."""
    seen = [0]

    def behave(request: Request) -> Action:
        seen[0] += 1
        return answer(request) if seen[0] <= count else Die()

    return behave


class FakeModelServer:
    """`with FakeModelServer(behaviour) as server:` then use `server.base_url` (ends in /v1)."""

    def __init__(self, behaviour: Behaviour) -> None:
        self.behaviour = behaviour
        self.requests: list[Request] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._httpd = _QuietServer(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
        self._workers: list[threading.Thread] = []
        host, port = self._httpd.server_address[:2]
        self.base_url = f"http://{host}:{port}/v1"
        self.dead = False

    def __enter__(self) -> FakeModelServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def stop(self) -> None:
        self._stopping.set()
        if not self.dead:
            self._httpd.shutdown()
            self._httpd.server_close()
            self.dead = True
        self._thread.join(timeout=5)
        for worker in list(self._workers):
            worker.join(timeout=5)

    def calls(self, role: str | None = None) -> list[Request]:
        with self._lock:
            return [r for r in self.requests if role is None or r.role == role]

    def _record(self, request: Request) -> None:
        with self._lock:
            self.requests.append(request)
            self._workers.append(threading.current_thread())

    def _die(self) -> None:
        """Stop listening at once, as a segfaulted server does; later connections are refused."""
        if not self.dead:
            self.dead = True
            threading.Thread(target=self._close_listener, daemon=True).start()

    def _close_listener(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()


class _QuietServer(ThreadingHTTPServer):
    """Clients that leave mid-request (timeouts, cancellations) are the point here, not an error to print."""

    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


def _handler_for(server: FakeModelServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
            raw = self.rfile.read(int(self.headers.get("content-length", 0)))
            request = Request(self.path, json.loads(raw) if raw else {}, time.monotonic())
            server._record(request)
            action = server.behaviour(request)
            try:
                self._act(request, action)
            except (BrokenPipeError, ConnectionResetError):
                request.outcome = request.outcome or "client left"
            finally:
                request.ended = time.monotonic()

        def do_GET(self) -> None:  # noqa: N802
            models = {"object": "list", "data": [{"id": "fake", "object": "model", "owned_by": "me", "permissions": []}]}
            self._send_json(200, models)

        def _act(self, request: Request, action: Action) -> None:
            if isinstance(action, Refuse):
                request.outcome = f"refused {action.status}"
                self._send_json(action.status, action.body, action.content_type, action.headers)
            elif isinstance(action, Silent):
                request.outcome = "silent"
                self._wait_for_client_to_leave()
            elif isinstance(action, Die):
                request.outcome = "died"
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
                server._die()
            elif isinstance(action, Runaway):
                self._runaway(request, action)
            else:
                time.sleep(action.delay)
                request.outcome = "answered"
                if request.streamed:
                    self._stream(request, action.content, action.finish_reason)
                else:
                    self._send_json(200, _completion(request, action.content, action.finish_reason))

        def _wait_for_client_to_leave(self) -> None:
            self.connection.settimeout(0.05)
            while not server._stopping.is_set():
                try:
                    if self.connection.recv(1, socket.MSG_PEEK) == b"":
                        return
                except TimeoutError:
                    continue
                except OSError:
                    return
            self.close_connection = True

        def _runaway(self, request: Request, action: Runaway) -> None:
            limit = _max_tokens(request.body) if action.honours_max_tokens else None
            pause = 1.0 / action.tokens_per_second
            started = time.monotonic()
            produced = 0
            if request.streamed:
                self._start_stream()
                self._event(_chunk(request, {"role": "assistant"}, None))
                self._event(_chunk(request, {"content": '{"response": "'}, None))
            try:
                while not server._stopping.is_set() and (limit is None or produced < limit):
                    time.sleep(pause)
                    produced += 1
                    if request.streamed:
                        self._event(_chunk(request, {"content": RUNAWAY_TOKEN}, None))
                    elif self._client_gone() and request.outcome == "":
                        request.outcome = "client left, still generating"
            finally:
                request.busy_seconds = time.monotonic() - started
            if request.streamed:
                self._event(_chunk(request, {}, "length"))
                self._event("[DONE]")
                self._end_stream()
            else:
                self._send_json(200, _completion(request, '{"response": "' + RUNAWAY_TOKEN * produced, "length"))
            request.outcome = request.outcome or "generated to the limit"

        def _client_gone(self) -> bool:
            self.connection.settimeout(0)
            try:
                return self.connection.recv(1, socket.MSG_PEEK) == b""
            except (BlockingIOError, TimeoutError):
                return False
            except OSError:
                return True
            finally:
                self.connection.settimeout(None)

        def _stream(self, request: Request, content: str, finish_reason: str) -> None:
            self._start_stream()
            self._event(_chunk(request, {"role": "assistant"}, None))
            for piece in _pieces(content):
                self._event(_chunk(request, {"content": piece}, None))
            self._event(_chunk(request, {}, finish_reason))
            self._event("[DONE]")
            self._end_stream()

        def _start_stream(self) -> None:
            self.send_response(200)
            self.send_header("content-type", "text/event-stream; charset=utf-8")
            self.send_header("cache-control", "no-store")
            self.send_header("transfer-encoding", "chunked")
            self.end_headers()

        def _event(self, data: Any) -> None:
            text = data if isinstance(data, str) else json.dumps(data)
            payload = f"data: {text}\r\n\r\n".encode()
            self.wfile.write(f"{len(payload):x}\r\n".encode() + payload + b"\r\n")
            self.wfile.flush()

        def _end_stream(self) -> None:
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

        def _send_json(self, status: int, body: Any, content_type: str = "application/json", headers: Mapping[str, str] = {}) -> None:
            payload = (body if isinstance(body, str) else json.dumps(body)).encode()
            self.send_response(status)
            self.send_header("content-type", content_type)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler


def _max_tokens(body: Mapping[str, Any]) -> int | None:
    value = body.get("max_tokens")
    return value if isinstance(value, int) and value > 0 else None


def _pieces(content: str, size: int = 8) -> list[str]:
    return [content[i : i + size] for i in range(0, len(content), size)] or [""]


def _completion(request: Request, content: str, finish_reason: str) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.body.get("model", "fake"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "logprobs": None, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 100, "completion_tokens": max(1, len(content) // 4), "total_tokens": 100 + len(content) // 4},
    }


def _chunk(request: Request, delta: dict[str, Any], finish_reason: str | None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-fake",
        "model": request.body.get("model", "fake"),
        "created": int(time.time()),
        "object": "chat.completion.chunk",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}],
    }


ROLE_SCRIPT: dict[str, list[dict[str, Any]]] = {
    "understand": [{"quick_mode": True, "quick_mode_confidence": 0.9, "quick_read": {"table": "tasks", "limit": 3}}, {}],
    "think": [{"goal": "Check the fridge", "decision": "plan_direct",
               "steps": [{"description": "Read the fridge", "step_type": "read", "subdomain": "inventory"}]}],
    "act": [{"decision": {"action": "tool_call", "tool": "db_read", "arguments": {"table": "inventory"}}},
            {"decision": {"action": "step_complete", "result_summary": "read the fridge"}}],
    "reply": [{"response": "Your fridge is well stocked."}],
}
"""Two good turns: a quick lookup of the tasks, then a one-step plan that reads the fridge."""


@dataclass(frozen=True)
class Misbehaviour:
    """A server behaviour measured on a real server, and what two turns against it must come to."""

    make: Callable[[], Behaviour]
    outcomes: tuple[str, str]
    max_calls_per_turn: int
    timeout: float = 5.0
    """Seconds per model call in the test: short only where waiting is the behaviour."""


MISBEHAVIOURS: dict[str, Misbehaviour] = {
    "refuses-json-schema": Misbehaviour(lambda: llama_cpp_python(by_role(ROLE_SCRIPT)), ("quick", "completed"), 5),
    "answers-empty-objects": Misbehaviour(lambda: always(Answer("{}")), ("blocked", "blocked"), 4),
    "answers-prose": Misbehaviour(lambda: always(Answer("Lyon is a French city with a long history of cooking.")), ("blocked", "blocked"), 3),
    "never-answers": Misbehaviour(lambda: always(Silent()), ("blocked", "blocked"), 1, timeout=0.5),
    "dies-mid-turn": Misbehaviour(lambda: dies_after(1, by_role(ROLE_SCRIPT)), ("quick", "blocked"), 1),
    "streams-a-runaway-answer": Misbehaviour(lambda: always(Runaway(tokens_per_second=4000)), ("blocked", "blocked"), 3),
}
"""Two turns each; a blocked turn says why in one sentence, and no model is asked to tell it (the most calls a
turn may cost are its role's three tries). Run with small token budgets."""
