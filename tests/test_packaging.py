"""The package as users install it (pip, pipx, uvx): a wheel that carries the contracts, built without touching the tree."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SKIPPED = {".git", ".venv", "node_modules", "__pycache__", ".mypy_cache", ".ruff_cache", ".hypothesis", ".pytest_cache"}


def tree() -> set[Path]:
    """Every file and folder of the checkout, caches and installed tools aside."""
    found: set[Path] = set()
    pending = [REPO]
    while pending:
        for entry in pending.pop().iterdir():
            if entry.name not in SKIPPED:
                found.add(entry.relative_to(REPO))
                if entry.is_dir() and not entry.is_symlink():
                    pending.append(entry)
    return found


def test_building_a_wheel_leaves_the_tree_as_it_was_and_ships_the_contracts(tmp_path: Path) -> None:
    before = tree()
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path), str(REPO)],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    assert tree() == before, f"the build left: {sorted(map(str, tree() ^ before))}"
    (wheel,) = tmp_path.glob("alfred_mcp-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    shipped = {f"alfred_mcp/contracts/{folder}/{p.name}" for folder in ("tools", "resources", "prompts") for p in (REPO / folder).iterdir()}
    assert shipped <= names and "alfred_mcp/py.typed" in names and "alfred_mcp/cli.py" in names
    assert not [name for name in names if name.startswith(("tests/", "benchmarks/"))]
