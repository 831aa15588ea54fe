"""Drift checks: import direction, published contracts, README tool list."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from alfred_mcp.contracts import ANNOTATION_KEYS, load_contracts
from alfred_mcp.server.tools import HANDLERS

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "alfred_mcp"
PURE_ALLOWED = ("alfred_mcp.state", "alfred_mcp.kitchen", "alfred_mcp.errors")
PURE_FORBIDDEN_MODULES = {"sqlite3", "anyio", "mcp", "uuid", "time", "asyncio", "httpx", "psycopg"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


@pytest.mark.parametrize("layer", ["state", "kitchen"])
def test_pure_layers_import_no_io(layer: str) -> None:
    """state/ and kitchen/ import only each other, errors, stdlib and pydantic/jsonschema."""
    for path in sorted((PACKAGE / layer).glob("*.py")):
        for module in _imports(path):
            top = module.split(".")[0]
            assert top not in PURE_FORBIDDEN_MODULES, f"{path.name} imports {module}"
            if top == "alfred_mcp":
                assert module.startswith(PURE_ALLOWED), f"{path.name} imports {module}"
            if layer == "kitchen":
                assert not module.startswith("alfred_mcp.state"), f"{path.name} imports {module}"


def test_every_contract_is_complete_and_has_a_handler() -> None:
    """Each tools/*.json has a title, description, all four hints and a handler."""
    contracts = load_contracts()
    assert set(contracts) == set(HANDLERS)
    for contract in contracts.values():
        assert contract.title and len(contract.description) > 20
        assert set(contract.annotations) == set(ANNOTATION_KEYS)
        assert all(isinstance(contract.annotations[key], bool) for key in ANNOTATION_KEYS)
        assert contract.input_schema["type"] == "object" and contract.output_schema["type"] == "object"


def test_contract_file_names_match_tool_names() -> None:
    for path in (ROOT / "tools").glob("*.json"):
        assert json.loads(path.read_text())["name"] == path.stem


def test_readme_lists_every_tool() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in load_contracts():
        assert f"`{name}`" in readme, f"README does not mention {name}"
