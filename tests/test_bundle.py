"""The MCP Bundle (bundle/build.py): validated and packed by the official mcpb CLI, then installed on a fresh home
and started exactly as its manifest says (server type uv: the host's uv installs the dependencies from the package
index on first start), answering `initialize` and a `db_read` over stdio."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

import pytest
from mcp import Client, StdioServerParameters

from tests.conformance.node_tools import node_tool

REPO = Path(__file__).resolve().parents[1]
pytestmark = [pytest.mark.anyio, pytest.mark.xdist_group("bundle")]
"""One worker runs this module under -n, so the bundle is built once."""
PLACEHOLDER = re.compile(r"\$\{([^}]+)\}")
NETWORK_ENV = {"SSL_CERT_FILE", "SSL_CERT_DIR", "UV_INDEX_URL", "UV_DEFAULT_INDEX", "UV_NATIVE_TLS"}
"""The machine's network settings (a proxy, its CA), which a host passes on to uv like the rest of its environment."""


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """bundle/build.py run as a user runs it: the .mcpb file it writes."""
    node_tool("@anthropic-ai/mcpb/dist/cli/cli.js")  # skips (fails under CI=true) without npm ci
    output = tmp_path_factory.mktemp("bundle") / "alfred-mcp.mcpb"
    done = subprocess.run([sys.executable, str(REPO / "bundle" / "build.py"), "--out", str(output)],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return output


def install(bundle: Path, home: Path) -> tuple[Path, dict[str, Any]]:
    """Unpack the bundle where a host keeps extensions, in a fresh home; returns its folder and manifest."""
    folder = home / "extensions" / "alfred-mcp"
    with zipfile.ZipFile(bundle) as archive:
        archive.extractall(folder)
    return folder, json.loads((folder / "manifest.json").read_text(encoding="utf-8"))


def launch(manifest: dict[str, Any], folder: Path, home: Path, user_config: dict[str, str]) -> StdioServerParameters:
    """The manifest's mcp_config with its variables replaced as a host replaces them (a user option left out takes
    its default); only uv and the system's tools on PATH, nothing of this checkout."""
    values = {"__dirname": str(folder), "HOME": str(home)}
    for key, option in manifest["user_config"].items():
        values[f"user_config.{key}"] = str(user_config.get(key, option.get("default", "")))

    def fill(text: str) -> str:
        return PLACEHOLDER.sub(lambda match: values[match.group(1)], text)

    config = manifest["server"]["mcp_config"]
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    assert uv, "uv is missing: the test extra installs it (pip install -e '.[test]')"
    path = os.pathsep.join([str(Path(uv).parent), "/usr/local/bin", "/usr/bin", "/bin"])
    network = {name: value for name, value in os.environ.items() if name in NETWORK_ENV or name.lower().endswith("_proxy")}
    env = {"HOME": str(home), "PATH": path, **network, **{name: fill(value) for name, value in config.get("env", {}).items()}}
    return StdioServerParameters(command=fill(config["command"]), args=[fill(arg) for arg in config["args"]], env=env)


async def first_recipes(params: StdioServerParameters) -> list[dict[str, Any]]:
    async with Client(params) as client:
        assert client.protocol_version
        result = await client.call_tool("db_read", {"table": "recipes", "limit": 2, "columns": ["name"]})
        assert not result.is_error, result.content
        rows: list[dict[str, Any]] = result.structured_content["rows"]
        return rows


def test_the_manifest_names_what_the_server_serves_and_what_the_bundle_holds(bundle: Path, tmp_path: Path) -> None:
    folder, manifest = install(bundle, tmp_path / "home")
    with (REPO / "pyproject.toml").open("rb") as file:
        project = tomllib.load(file)["project"]
    assert (manifest["name"], manifest["version"]) == (project["name"], project["version"])
    assert manifest["server"]["type"] == "uv" and (folder / manifest["server"]["entry_point"]).is_file()
    assert (folder / manifest["icon"]).read_bytes().startswith(b"\x89PNG")
    default_list = json.loads((REPO / "tests" / "snapshots" / "tools_list.json").read_text(encoding="utf-8"))["tools"]
    assert [tool["name"] for tool in manifest["tools"]] == [tool["name"] for tool in default_list]
    assert [prompt["name"] for prompt in manifest["prompts"]] == ["understand", "think", "act", "reply"]
    assert not list(folder.rglob("__pycache__")) and not list(folder.rglob("*.db"))


async def test_the_bundle_installs_on_a_fresh_home_and_serves_the_demo_kitchen(bundle: Path, tmp_path: Path) -> None:
    """First start on an empty home: uv builds the environment, the server seeds the demo kitchen in the database the
    user chose; a second start with the option left empty uses the default data folder of that home."""
    home = tmp_path / "home"
    home.mkdir()
    folder, manifest = install(bundle, home)
    chosen = home / "Documents" / "kitchen.db"
    chosen.parent.mkdir()
    rows = await first_recipes(launch(manifest, folder, home, {"database": str(chosen)}))
    assert [row["id"] for row in rows] == ["recipe_1", "recipe_2"] and all(row["name"] for row in rows)
    assert chosen.is_file()
    rows = await first_recipes(launch(manifest, folder, home, {}))
    assert [row["id"] for row in rows] == ["recipe_1", "recipe_2"]
    assert (home / ".local" / "share" / "alfred-mcp" / "kitchen.db").is_file()
