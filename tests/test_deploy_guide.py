"""docs/deploy.md, run as written: every command block in order, in one shell, against a throwaway PostgreSQL,
real `alfred-mcp serve --http` replicas and HAProxy, each output block compared with what the commands printed,
each configuration file written from the guide and used, each example log line matched with a line the replicas
wrote. Between blocks the test does only what the guide's prose says it does (stop and start PostgreSQL), and
checks the guide's claims with the real `mcp` client through the load balancer: handshake-era sessions stay on
their replica, stateless calls reach both, the OAuth issuer's tokens are accepted, and every call made while the
replicas are rolled forward is answered.

The variables the guide declares (its "Before you start" table) are filled with addresses on 127.0.0.1, the test
cluster, a loopback OAuth issuer, and a next version: this code plus one more additive migration. Without curl,
HAProxy, sqlite3 or promtool the run skips with the install command, except under CI=true, where it fails.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any, NoReturn

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from prometheus_client.parser import text_string_to_metric_families

sys.path[:0] = [str(Path(__file__).parent), str(Path(__file__).parent / "transport")]
from asgi_server import serving  # noqa: E402
from guide_blocks import Block, GuideError, blocks, declared_variables, output_matches  # noqa: E402
from guide_shell import BlockFailed, GuideShell  # noqa: E402
from http_harness import free_port  # noqa: E402
from oauth_issuer import authorization_server, signed  # noqa: E402
from pg_harness import PostgresServer, PostgresUnavailable, postgres_server, start_server, stop_server  # noqa: E402

GUIDE = Path(__file__).resolve().parents[1] / "docs" / "deploy.md"
VARIABLES_HEADING = "Before you start"
TOOLS = {"bash": "bash", "curl": "curl", "haproxy": "haproxy", "sqlite3": "sqlite3", "promtool": "prometheus", "python3": "python3"}
"""Each program the guide's commands run (beside alfred-mcp and PostgreSQL's clients), with its Debian package."""
STOPS_POSTGRES = "While PostgreSQL is down"
STARTS_POSTGRES = "Once PostgreSQL is back"
CALLS_THROUGH_THE_BALANCER = "A call through HAProxy"
ROLLS = ("Back up first, then roll", "replace it now")
"""Prose before blocks: the test stops/starts PostgreSQL before them, checks clients after one, keeps calling during the rolls."""
CLIENT_CALLS = 6
BLOCK_TIMEOUT = 180.0
"""Seconds a block may run: its own waits are bounded (curl's retries), this catches one that hangs."""
NEXT_VERSION = '''#!{python}
"""alfred-mcp as its next version: this code plus one more, additive, migration."""
import sys

from alfred_mcp.store.postgres import migrate, migrations as known

current = known.migrations()
step = known.Migration(current[-1].version + 1, "deploy_guide_next", 'CREATE TABLE IF NOT EXISTS "deploy_guide_next" ("note" text)')
known.migrations = migrate.migrations = lambda: (*current, step)

from alfred_mcp.cli import main

sys.exit(main())
'''

pytestmark = pytest.mark.anyio


def test_every_block_of_the_guide_is_one_the_test_knows_how_to_run_or_check() -> None:
    """Commands, their outputs, configuration files and log lines only; each prose hook names exactly one command block."""
    markdown = GUIDE.read_text(encoding="utf-8")
    found = blocks(markdown)
    commands = [block for block in found if block.kind == "command"]
    assert commands and {block.kind for block in found} <= {"command", "output", "file", "log"}
    for hook in (STOPS_POSTGRES, STARTS_POSTGRES, CALLS_THROUGH_THE_BALANCER, *ROLLS):
        assert sum(hook in block.prose for block in commands) == 1, f"no single command block follows prose with {hook!r}"
    assert set(_variables(Path("/"), PostgresServer("127.0.0.1", 5432, Path("/"), Path("/")), "https://auth.example")) <= set(
        declared_variables(markdown, VARIABLES_HEADING))


@pytest.mark.parametrize("fence", ["```bash", "```console", "```shell", "```", "```python", "  ```zsh", "~~~sh", "```sh title"])
def test_a_block_the_test_would_not_run_or_check_is_refused(fence: str) -> None:
    """A new block in a language the test does not run (or a fence it would not see) fails instead of being passed over."""
    with pytest.raises(GuideError, match="line 3"):
        blocks(f"# Guide\n\n{fence}\necho hi\n```\n")


@pytest.mark.parametrize(("markdown", "problem"), [
    ("Output:\n\n```text\nok\n```\n", "no"),
    ("```sh\necho hi\n```\n\nThen:\n\n```text\nhi\n```\n", "no"),
    ("```yaml\nkey: value\n```\n", "file name"),
    ("```sh\necho hi\n", "never closed"),
])
def test_an_output_without_its_commands_a_nameless_file_or_an_open_block_is_refused(markdown: str, problem: str) -> None:
    with pytest.raises(GuideError, match=problem):
        blocks(markdown)


@pytest.mark.parametrize(("expected", "actual", "matches"), [
    ("a\nb", "a\nb\n", True),
    ("a\nb", "a\nc", False),
    ("a\n...\nd", "a\nb\nc\nd", True),
    ("a\n...\nd", "a\nd", True),
    ("a\n...", "b", False),
    ('size ... of 10', "size 3.0 of 10", True),
    ('size ... of 10', "size 3.0 of 11", False),
    ("a", "a\nb", False),
    ("a.b", "axb", False),
])
def test_an_output_block_matches_what_the_commands_printed(expected: str, actual: str, matches: bool) -> None:
    """Lines equal; a line `...` stands for any run of lines, `...` in a line for any text; nothing else is loose."""
    assert output_matches(expected, actual) is matches


@pytest.mark.parametrize(("block", "says"), [
    ("echo before; false; echo after", "before"),
    ("echo $NEVER_SET_BY_THE_GUIDE", "NEVER_SET_BY_THE_GUIDE: unbound variable"),
    ("false | cat", "exited with 1"),
    ("sleep 30", "did not finish within 1 s"),
])
def test_a_block_fails_on_a_failed_command_an_unset_variable_or_a_hang(tmp_path: Path, block: str, says: str) -> None:
    """A block is run as an operator's shell would, under `set -euo pipefail`: the first failure ends it, saying why."""
    with GuideShell(tmp_path, {"PATH": os.environ["PATH"]}) as shell:
        assert shell.run("STEP=one; printf '%s\\n' \"$STEP\"") == "one\n"
        with pytest.raises(BlockFailed, match=says):
            shell.run(block, timeout=1)
        with pytest.raises(BlockFailed):
            shell.run("echo $STEP")


def test_what_the_blocks_started_in_the_background_ends_with_the_shell(tmp_path: Path) -> None:
    with GuideShell(tmp_path, {"PATH": os.environ["PATH"]}) as shell:
        assert shell.run("sleep 300 & echo $! > sleep.pid; echo $(( $(cat sleep.pid) > 0 ))") == "1\n"
        pid = int((tmp_path / "sleep.pid").read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


async def test_every_command_of_the_deployment_guide_runs_as_written(tmp_path: Path) -> None:
    _require_tools()
    guide = blocks(GUIDE.read_text(encoding="utf-8"))
    issuer: dict[str, str] = {}
    with _postgres() as server:
        async with serving(lambda port: authorization_server(issuer)) as issuer["issuer"]:
            variables = _variables(tmp_path, server, issuer["issuer"])
            _write_next_version(Path(variables["NEW_ALFRED_MCP"]))
            with GuideShell(tmp_path, _environment(variables, server)) as shell:
                done = await _run(guide, shell, server, variables)
    assert done == len(guide), "every block of the guide is run, compared, written or checked"


async def _run(guide: list[Block], shell: GuideShell, server: PostgresServer, variables: dict[str, str]) -> int:
    """Run the guide's blocks in order; how many were run, compared, written or checked."""
    done = 0
    for index, block in enumerate(guide):
        if block.kind == "file":
            (shell.folder / block.file_name).write_text(block.text + "\n", encoding="utf-8")
        elif block.kind == "command":
            output = await _run_command(block, shell, server, variables)
            following = guide[index + 1] if index + 1 < len(guide) else None
            if following is not None and following.kind == "output":
                assert output_matches(following.text, output), f"line {block.line}: the output differs from the guide's:\n{output}"
                done += 1
            if CALLS_THROUGH_THE_BALANCER in block.prose:
                await _check_clients_through_the_balancer(variables, shell.folder)
        done += block.kind not in ("output", "log")
    for block in guide:  # last: a replica's lines are all written once it stopped
        if block.kind == "log":
            _check_log_lines(block, shell.folder)
            done += 1
    return done


async def _run_command(block: Block, shell: GuideShell, server: PostgresServer, variables: dict[str, str]) -> str:
    if STOPS_POSTGRES in block.prose:
        stop_server(server)
    if STARTS_POSTGRES in block.prose:
        start_server(server)
    run = lambda: shell.run(block.text, timeout=BLOCK_TIMEOUT)  # noqa: E731
    if not any(roll in block.prose for roll in ROLLS):
        return await anyio.to_thread.run_sync(run)
    async with _calling(variables["PUBLIC_URL"], _alice_token(shell.folder)) as answered:
        output = await anyio.to_thread.run_sync(run)
    failures = [failure for failure in answered if failure]
    assert len(answered) >= 3 and failures == [], (
        f"line {block.line}: {len(failures)} of {len(answered)} calls made while the replicas were rolled failed: {failures[:3]}")
    return output


@asynccontextmanager
async def _calling(public_url: str, token: str) -> AsyncIterator[list[str]]:
    """Stateless tool calls through the load balancer, one after another, until the block ends; each answer's
    failure ('' when answered)."""
    answered: list[str] = []

    async def keep_calling() -> None:
        async with _client(public_url, token, "auto") as client:
            while True:
                try:
                    result = await client.call_tool("db_read", {"table": "shopping_list"})
                    answered.append("" if not result.is_error else str(result.content))
                except Exception as error:  # noqa: BLE001 - every failure is recorded and fails the test
                    answered.append(repr(error))
                await anyio.sleep(0.1)

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(keep_calling)
        try:
            yield answered
        finally:
            tasks.cancel_scope.cancel()


async def _check_clients_through_the_balancer(variables: dict[str, str], folder: Path) -> None:
    """A 2025-11-25 client's session stays on its replica (each of its calls answered); stateless calls reach both;
    the OAuth issuer's token for the public URL reaches its subject's own kitchen."""
    public_url, token = variables["PUBLIC_URL"], _alice_token(folder)
    jwt = signed(variables["OAUTH_ISSUER"], f"{public_url}/mcp", sub="carol")
    before = [await _tool_calls(address, folder) for address in (variables["REPLICA_1"], variables["REPLICA_2"])]
    for mode, bearer, rows in (("legacy", token, 1), ("auto", token, 1), ("auto", jwt, 0)):
        async with _client(public_url, bearer, mode) as client:
            for _ in range(CLIENT_CALLS):
                result = await client.call_tool("db_read", {"table": "shopping_list"})
                assert not result.is_error and result.structured_content["count"] == rows, (mode, result.content)
    after = [await _tool_calls(address, folder) for address in (variables["REPLICA_1"], variables["REPLICA_2"])]
    served = [now - then for now, then in zip(after, before, strict=True)]
    assert sum(served) == 3 * CLIENT_CALLS and all(count > 0 for count in served), served


def _client(url: str, token: str, mode: str) -> Client:
    headers = {"Authorization": f"Bearer {token}"}
    return Client(streamable_http_client(f"{url}/mcp", http_client=httpx2.AsyncClient(headers=headers, timeout=30)), mode=mode)


async def _tool_calls(address: str, folder: Path) -> float:
    """The tool calls a replica counted, from its /metrics."""
    scrape = (folder / "scrape-token").read_text(encoding="utf-8")
    async with httpx2.AsyncClient(timeout=10) as raw:
        answer = await raw.get(f"http://{address}/metrics", headers={"Authorization": f"Bearer {scrape}"})
    return sum(sample.value for family in text_string_to_metric_families(answer.text) for sample in family.samples
               if sample.name == "alfred_tool_calls_total")


def _alice_token(folder: Path) -> str:
    tokens: dict[str, str] = json.loads((folder / "tokens.json").read_text(encoding="utf-8"))
    return next(token for token, user in tokens.items() if user == "alice")


def _check_log_lines(block: Block, folder: Path) -> None:
    """Each example line has the event, level, logger, readiness and keys of a line the replicas wrote (replica-*.log)."""
    written = [json.loads(line) for log in sorted(folder.glob("replica-*.log")) for line in log.read_text(encoding="utf-8").splitlines()
               if line.startswith("{")]
    shapes = {_shape(entry) for entry in written}
    for line in block.text.splitlines():
        example = json.loads(line)
        assert _shape(example) in shapes, f"line {block.line}: no replica wrote a line shaped like {line}"


def _shape(entry: dict[str, Any]) -> tuple[Any, ...]:
    return entry.get("event"), entry.get("level"), entry.get("logger"), entry.get("ready"), tuple(sorted(entry))


def _variables(folder: Path, server: PostgresServer, issuer: str) -> dict[str, str]:
    """The guide's declared variables, filled for this machine and the loopback OAuth `issuer`."""
    lb = f"127.0.0.1:{free_port()}"
    return {
        "PGHOST": server.host, "PGPORT": str(server.port), "PGUSER": server.superuser,
        "REPLICA_1": f"127.0.0.1:{free_port()}", "REPLICA_2": f"127.0.0.1:{free_port()}", "SPARE": f"127.0.0.1:{free_port()}",
        "LB": lb, "LB_STATS": f"127.0.0.1:{free_port()}", "PUBLIC_URL": f"http://{lb}",
        "OAUTH_ISSUER": issuer, "NEW_ALFRED_MCP": str(folder / "next" / "alfred-mcp"),
    }


def _environment(variables: dict[str, str], server: PostgresServer) -> dict[str, str]:
    """This process's environment without alfred-mcp's, libpq's or OpenTelemetry's settings, with the variables; this
    Python's scripts (alfred-mcp) and the test cluster's PostgreSQL clients first on PATH."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("ALFRED_", "PG", "OTEL_"))}
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), str(server.bin_dir), env.get("PATH", "")])
    return {**env, **variables}


def _write_next_version(path: Path) -> None:
    path.parent.mkdir()
    path.write_text(NEXT_VERSION.format(python=sys.executable), encoding="utf-8")
    path.chmod(0o755)


def _require_tools() -> None:
    missing = [package for tool, package in TOOLS.items() if shutil.which(tool) is None]
    if missing:
        _unavailable(f"the deployment guide's commands need {', '.join(missing)} (apt-get install -y {' '.join(missing)})")
    if not (Path(sys.executable).parent / "alfred-mcp").exists():
        _unavailable("the guide runs the alfred-mcp command beside this Python: install the checkout (pip install -e '.[test]')")


@contextmanager
def _postgres() -> Iterator[PostgresServer]:
    try:
        import psycopg  # noqa: F401
    except ImportError as error:
        _unavailable(f"psycopg is missing: {error}")
    try:
        with postgres_server() as server:
            yield server
    except PostgresUnavailable as error:
        _unavailable(str(error))


def _unavailable(reason: str) -> NoReturn:
    """Skip, saying what to install; under CI=true, fail."""
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason}; required under CI=true", pytrace=False)
    pytest.skip(f"{reason} (under CI=true this fails instead)")
