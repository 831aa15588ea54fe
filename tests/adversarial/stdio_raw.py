"""The server as a real subprocess over stdio, spoken to in raw JSON-RPC lines.

Raw lines let a test send what the SDK client never would (`Infinity`, `NaN`, `1e400`) and kill
the process with SIGKILL at an exact notification.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from queue import Empty, Queue
from typing import Any

REPO = Path(__file__).resolve().parents[2]
PROTOCOL = "2025-11-25"
TIMEOUT = 60.0


class StdioServer:
    """`python -m alfred_mcp` on a database, initialized; `request` returns the response, notifications kept."""

    def __init__(self, db: str) -> None:
        env = {"PYTHONPATH": str(REPO), "ALFRED_DB": db, "PATH": os.environ.get("PATH", "")}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "alfred_mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=env, text=True, encoding="utf-8",
        )
        self._lines: Queue[str] = Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self._next = 0
        self.notifications: list[dict[str, Any]] = []
        self.request("initialize", {"protocolVersion": PROTOCOL, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}})
        self.send_line(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}))

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line)

    def send_line(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def start(self, method: str, params: dict[str, Any], *, raw_params: str | None = None) -> int:
        """Send a request (params as JSON, or `raw_params` verbatim); its id."""
        self._next += 1
        body = raw_params if raw_params is not None else json.dumps(params)
        self.send_line(f'{{"jsonrpc":"2.0","id":{self._next},"method":"{method}","params":{body}}}')
        return self._next

    def wait(self, request_id: int, *, until: Callable[[dict[str, Any]], bool] | None = None) -> dict[str, Any] | None:
        """The response to `request_id`; or None as soon as a notification satisfies `until`."""
        while True:
            try:
                message = json.loads(self._lines.get(timeout=TIMEOUT))
            except Empty:
                raise TimeoutError(f"no answer to request {request_id} within {TIMEOUT}s") from None
            if message.get("id") == request_id and "method" not in message:
                return message
            if "method" in message:
                self.notifications.append(message)
                if until is not None and until(message):
                    return None

    def request(self, method: str, params: dict[str, Any], *, raw_params: str | None = None) -> dict[str, Any]:
        response = self.wait(self.start(method, params, raw_params=raw_params))
        assert response is not None
        return response

    def call(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """A tools/call result (structured content or error meta in it)."""
        return self.request("tools/call", {"name": tool, "arguments": arguments})["result"]

    def kill(self) -> None:
        """SIGKILL: no shutdown, no flush, no cleanup."""
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=TIMEOUT)

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()
