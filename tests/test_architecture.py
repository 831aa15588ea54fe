"""Drift checks: the folder tree keeps its arrows, the contracts stay complete, the README lists every tool.

The import rules are read from the source with `ast` (module-level and function-level imports
alike), so a late import inside a function cannot hide a loop or a layer breach.
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from alfred_mcp.contracts import ANNOTATION_KEYS, HINT_DEFAULTS, load_contracts
from alfred_mcp.server.tools import HANDLERS

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "alfred_mcp"
IO_MODULES = {"sqlite3", "anyio", "mcp", "mcp_types", "uuid", "time", "asyncio", "httpx", "httpx2", "psycopg", "psycopg_pool",
              "supabase", "postgrest", "socket", "subprocess", "starlette", "uvicorn"}
MAX_ROOT_MODULES = 8


def _modules() -> dict[str, Path]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


MODULES = _modules()


def _imported(name: str, path: Path) -> set[str]:
    """Every module `name` imports: absolute names, relative ones resolved, `from pkg import sub` as the submodule."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(up + ([base] if base else []))
            children = [f"{base}.{alias.name}" for alias in node.names]
            out.update(child for child in children if child in MODULES)
            if not all(child in MODULES for child in children):
                out.add(base)
    return out


def _internal(module: str) -> str | None:
    while module and module not in MODULES:
        module = module.rpartition(".")[0]
    return module or None


GRAPH = {name: {t for m in _imported(name, path) if (t := _internal(m)) and t != name} for name, path in MODULES.items()}


def _cycles() -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in GRAPH[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in GRAPH:
        if module not in index:
            visit(module)
    return found


def _in_layer(layer: str) -> Iterator[tuple[str, Path]]:
    prefix = f"alfred_mcp.{layer}"
    return ((name, path) for name, path in MODULES.items() if name == prefix or name.startswith(prefix + "."))


def test_the_package_has_no_import_cycles() -> None:
    assert _cycles() == []


def test_at_most_eight_modules_sit_at_the_package_root() -> None:
    """The tree shows the architecture: loose modules are the entry points and what every layer shares."""
    loose = sorted(p.name for p in PACKAGE.glob("*.py") if p.name not in ("__init__.py", "__main__.py"))
    assert len(loose) <= MAX_ROOT_MODULES, loose


@pytest.mark.parametrize("layer", ["state", "kitchen"])
def test_pure_layers_import_no_io(layer: str) -> None:
    """state/ and kitchen/ import only each other (kitchen not even state), errors, paths, stdlib, pydantic and jsonschema."""
    allowed = ("alfred_mcp.state", "alfred_mcp.kitchen", "alfred_mcp.errors", "alfred_mcp.paths")
    for name, path in _in_layer(layer):
        for module in _imported(name, path):
            top = module.split(".")[0]
            assert top not in IO_MODULES, f"{name} imports {module}"
            if top == "alfred_mcp":
                assert module.startswith(allowed), f"{name} imports {module}"
                assert layer == "state" or not module.startswith("alfred_mcp.state"), f"{name} imports {module}"


@pytest.mark.parametrize(
    ("layer", "forbidden"),
    [
        pytest.param("agent", ("mcp", "mcp_types", "alfred_mcp.server", "alfred_mcp.app", "alfred_mcp.headless", "alfred_mcp.cli"),
                     id="agent-imports-no-mcp-and-no-server"),
        pytest.param("operations", ("mcp", "mcp_types", "alfred_mcp.server", "alfred_mcp.agent", "alfred_mcp.app"),
                     id="operations-are-protocol-free"),
        pytest.param("session", ("mcp", "mcp_types", "alfred_mcp.server", "alfred_mcp.agent", "alfred_mcp.operations",
                                 "alfred_mcp.app"), id="session-sits-below-the-use-cases"),
        pytest.param("store", ("mcp", "mcp_types", "alfred_mcp.server", "alfred_mcp.agent", "alfred_mcp.operations",
                               "alfred_mcp.session", "alfred_mcp.app"), id="store-knows-only-the-domain"),
    ],
)
def test_layers_import_only_downward(layer: str, forbidden: tuple[str, ...]) -> None:
    for name, path in _in_layer(layer):
        for module in _imported(name, path):
            assert not any(module == f or module.startswith(f + ".") for f in forbidden), f"{name} imports {module}"


def _calls(path: Path, attribute: str) -> list[int]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == attribute]


@pytest.mark.parametrize("attribute", ["transaction", "save"])
def test_only_the_unit_of_work_saves_sessions_and_opens_transactions(attribute: str) -> None:
    """Outside store/, `.transaction()` and `.save()` are called in session/unit_of_work.py alone."""
    owner = "alfred_mcp.session.unit_of_work"
    for name, path in MODULES.items():
        if name == owner or name.startswith("alfred_mcp.store"):
            continue
        assert _calls(path, attribute) == [], f"{name} calls .{attribute}() at lines {_calls(path, attribute)}"


def test_session_documents_are_declared_in_one_module() -> None:
    """Document declarations live in session/documents.py; stored JSON is touched only inside session/."""
    for name, path in MODULES.items():
        if name.startswith("alfred_mcp.session"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute):
                assert node.attr != "stored_documents", f"{name}:{node.lineno} reads a session's stored JSON"
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                assert node.func.id not in ("Document", "DocumentFamily"), f"{name}:{node.lineno} declares a document"


def test_every_contract_is_complete_and_has_a_handler() -> None:
    """Each tools/*.json has a title, description, a handler, and hints that are the four known ones as booleans,
    stating only the values that differ from the spec's defaults (read-only tools say so; so do safe writes)."""
    contracts = load_contracts()
    assert set(contracts) == set(HANDLERS)
    for contract in contracts.values():
        assert contract.title and len(contract.description) > 20
        assert set(contract.annotations) <= set(ANNOTATION_KEYS), contract.name
        assert all(isinstance(value, bool) for value in contract.annotations.values()), contract.name
        assert all(contract.annotations[key] != default for key, default in HINT_DEFAULTS.items() if key in contract.annotations)
        assert contract.input_schema["type"] == "object" and contract.output_schema["type"] == "object"


def test_contract_file_names_match_tool_names() -> None:
    for path in (ROOT / "tools").glob("*.json"):
        assert json.loads(path.read_text())["name"] == path.stem


def test_readme_lists_every_tool() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in load_contracts():
        assert f"`{name}`" in readme, f"README does not mention {name}"
