"""A throwaway PostgreSQL cluster for tests: initdb in a temp dir, a free port, fsync off.

Debian's `postgresql` package puts its binaries in /usr/lib/postgresql/<major>/bin. initdb
refuses to run as root, so as root the server runs as the `postgres` user (via runuser) while
pytest itself stays root. Data and the unix socket live in a temp dir (on /dev/shm when there
is one: cloning a database is file copying); clients use 127.0.0.1.

No cluster outlives the process that started it: it is stopped when its block ends, however it
ends (`stopped_on_exit`): an exception, Ctrl-C, SIGTERM or SIGHUP (turned into KeyboardInterrupt,
so pytest tears its fixtures down and every `finally` runs), or interpreter exit.
"""

from __future__ import annotations

import atexit
import os
import pwd
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from ports import free_port

INSTALL_HINT = "apt-get install -y postgresql"
SEARCH_GLOB = "/usr/lib/postgresql/*/bin"
SERVER_USER = "postgres"
SHM_DIR = "/dev/shm"
_SERVER_OPTIONS = "-F -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200"


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL binaries (or no account to run them as) on this machine."""


@dataclass(frozen=True)
class PostgresServer:
    """A running throwaway cluster; `superuser` connects with trust authentication."""

    host: str
    port: int
    root: Path
    bin_dir: Path
    superuser: str = SERVER_USER

    def dsn(self, database: str = "postgres", user: str | None = None) -> str:
        return f"postgresql://{user or self.superuser}@{self.host}:{self.port}/{database}"


class DatabaseFactory:
    """Fresh databases on one server, each cloned from a template (about 15 ms a copy on tmpfs).

    A released database is dropped at the next `create` or at `close`: by then its sessions
    have ended, so DROP does not sit in the server's 100 ms wait for exiting backends.
    """

    def __init__(self, server: PostgresServer, template: str) -> None:
        import psycopg

        self.server = server
        self.template = template
        self._admin = psycopg.connect(server.dsn(), autocommit=True)
        self._count = 0
        self._released: list[str] = []

    def create(self, *, empty: bool = False, owner: str | None = None) -> str:
        """A new database copied from the template (or `empty`), owned by `owner` if given; its DSN."""
        self._drop_released()
        self._count += 1
        name = f"{self.template}_{self._count}"
        source = "template1" if empty else self.template
        owned = f' OWNER "{owner}"' if owner else ""
        self._admin.execute(f'CREATE DATABASE "{name}" TEMPLATE "{source}" STRATEGY FILE_COPY{owned}')
        return self.server.dsn(name)

    def execute(self, sql: str) -> None:
        """Run an administrative statement (roles, grants) as the superuser."""
        self._admin.execute(sql)

    def release(self, dsn: str) -> None:
        """The database behind `dsn` is no longer needed."""
        self._released.append(dsn.rsplit("/", 1)[-1])

    def close(self) -> None:
        self._drop_released()
        self._admin.close()

    def _drop_released(self) -> None:
        while self._released:
            self._admin.execute(f'DROP DATABASE IF EXISTS "{self._released.pop()}" WITH (FORCE)')


def create_database(server: PostgresServer, name: str) -> str:
    """An empty database called `name` on `server`; its DSN."""
    import psycopg

    with psycopg.connect(server.dsn(), autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    return server.dsn(name)


def find_bin_dir() -> Path:
    """The newest /usr/lib/postgresql/*/bin holding initdb and pg_ctl.

    Raises:
        PostgresUnavailable: none is installed; the message says how to install one.
    """
    candidates = sorted(Path("/").glob(SEARCH_GLOB.lstrip("/")), key=lambda p: _major(p.parent.name), reverse=True)
    for bin_dir in candidates:
        if (bin_dir / "initdb").is_file() and (bin_dir / "pg_ctl").is_file():
            return bin_dir
    raise PostgresUnavailable(f"PostgreSQL is not installed (no initdb under {SEARCH_GLOB}); install it with: {INSTALL_HINT}")


_pending: dict[int, Callable[[], None]] = {}
"""What still has to be stopped, by registration number; run at interpreter exit if a block never ended."""
_TERMINATING = (signal.SIGTERM, signal.SIGHUP)


@contextmanager
def stopped_on_exit(stop: Callable[[], None]) -> Iterator[None]:
    """Run `stop` once when the block ends, however it ends: normally, by an exception, by Ctrl-C or SIGTERM/SIGHUP
    (raised as KeyboardInterrupt in the main thread), or at interpreter exit if the block never gets to end."""
    _interrupt_on_termination()
    key = max(_pending, default=0) + 1
    _pending[key] = stop
    try:
        yield
    finally:
        if _pending.pop(key, None) is not None:
            stop()


def _interrupt_on_termination() -> None:
    """SIGTERM and SIGHUP interrupt like Ctrl-C does (where nobody else handles them), so cleanup code runs."""
    if threading.current_thread() is not threading.main_thread():
        return
    for signum in _TERMINATING:
        if signal.getsignal(signum) is signal.SIG_DFL:
            signal.signal(signum, _raise_interrupt)


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt(f"stopped by signal {signal.Signals(signum).name}")


@atexit.register
def _stop_pending() -> None:
    while _pending:
        _pending.pop(max(_pending))()


@contextmanager
def postgres_server() -> Iterator[PostgresServer]:
    """Start a fresh cluster (about a second), yield it, stop it and delete its files (see `stopped_on_exit`)."""
    bin_dir = find_bin_dir()
    run_as = _server_account()
    root = Path(tempfile.mkdtemp(prefix="alfred-pg-", dir=_scratch_dir()))
    server = PostgresServer("127.0.0.1", free_port(), root, bin_dir)
    with stopped_on_exit(lambda: _stop(server, run_as)):
        root.chmod(0o755)
        if run_as is not None:
            shutil.chown(root, user=run_as)
        _initdb(server, run_as)
        _start(server, run_as)
        yield server


def stop_server(server: PostgresServer) -> None:
    """Stop a running cluster and keep its files: `start_server` brings it back on the same port."""
    data = server.root / "data"
    _run(_server_account(), [str(server.bin_dir / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"], server.root / "stop.log")


def start_server(server: PostgresServer) -> None:
    """Start a cluster `stop_server` stopped."""
    _start(server, _server_account())


def _stop(server: PostgresServer, run_as: str | None) -> None:
    """Stop the cluster if it runs (immediate mode: it is throwaway) and delete its files."""
    data = server.root / "data"
    try:
        if (data / "postmaster.pid").exists():
            _run(run_as, [str(server.bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"], server.root / "stop.log")
    finally:
        shutil.rmtree(server.root, ignore_errors=True)


def _initdb(server: PostgresServer, run_as: str | None) -> None:
    command = [
        str(server.bin_dir / "initdb"), "-D", str(server.root / "data"), "-U", server.superuser,
        "-A", "trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync",
    ]
    _run(run_as, command, server.root / "initdb.log")


def _start(server: PostgresServer, run_as: str | None) -> None:
    options = f"-c listen_addresses={server.host} -p {server.port} -k {server.root} {_SERVER_OPTIONS}"
    command = [
        str(server.bin_dir / "pg_ctl"), "-D", str(server.root / "data"), "-l", str(server.root / "server.log"),
        "-w", "-t", "30", "-o", options, "start",
    ]
    _run(run_as, command, server.root / "pg_ctl.log")


def _run(run_as: str | None, command: list[str], log: Path) -> None:
    """Run a server command (as `run_as` when given); on failure raise with its log's tail."""
    full = ["runuser", "-u", run_as, "--", *command] if run_as else command
    result = subprocess.run(full, capture_output=True, text=True, timeout=60, check=False)
    if result.returncode != 0:
        server_log = log.parent / "server.log"
        tail = server_log.read_text(errors="replace")[-2000:] if server_log.exists() else ""
        raise RuntimeError(f"{Path(command[0]).name} failed ({result.returncode}): {result.stderr[-2000:]}{tail}")


def _server_account() -> str | None:
    """None when not root (run as ourselves); as root the `postgres` account, which must exist."""
    if os.geteuid() != 0:
        return None
    try:
        pwd.getpwnam(SERVER_USER)
    except KeyError:
        raise PostgresUnavailable(f"running as root needs a '{SERVER_USER}' account; {INSTALL_HINT} creates it") from None
    return SERVER_USER


def _scratch_dir() -> str | None:
    """/dev/shm when it is a writable tmpfs (copying a database there is ~20x faster), else the temp dir."""
    return SHM_DIR if os.path.isdir(SHM_DIR) and os.access(SHM_DIR, os.W_OK) else None


def _major(version: str) -> int:
    return int(version) if version.isdigit() else -1
