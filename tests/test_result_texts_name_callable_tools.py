"""Every text a tool's result can carry (a note, a hint, a warning, a refusal) names only tools its reader can call.

A model decides from tools/list and the answers alone: a note saying "tick with X" when X is in neither its tools/list
nor (for a stage client) the catalog of Act's tools sends it guessing. The texts are the string literals of the code
that builds results (operations, state, kitchen, the tool handlers), docstrings and attribute docstrings left out;
each tool a text names must be callable by every client that reads it: a plain client of the default listing and a
stage client (`--listed stages`: its listing and Act's catalog); the stage answers' own modules only by the latter.
"""

from __future__ import annotations

import ast
import re
from dataclasses import replace
from pathlib import Path

import pytest

import alfred_mcp
from alfred_mcp.config import Settings
from alfred_mcp.contracts import load_contracts
from alfred_mcp.server.tools.stage_listing import in_catalog
from alfred_mcp.server.toolsets import HostControls

PACKAGE = Path(alfred_mcp.__file__).parent
RESULT_CODE = ("operations", "state", "kitchen", "server/tools")
STAGE_ONLY = ("server/tools/agent_turns.py", "server/tools/stage_view.py", "server/tools/sent_ahead.py",
              "server/tools/stage_listing.py", "state/batch.py", "state/client_memo.py")
"""Modules whose texts only a turn's stages read (the stage tools' answers, a write step's batch)."""
CONTRACTS = load_contracts()
_NAMES = re.compile(r"\b(" + "|".join(sorted(CONTRACTS, key=len, reverse=True)) + r")\b")


def _callable(listed: tuple[str, ...]) -> frozenset[str]:
    controls = HostControls.from_settings(replace(Settings(), listed=listed), CONTRACTS)
    shown = {name for name, contract in CONTRACTS.items() if controls.lists(contract, has_model=False, renders_views=False)}
    return frozenset(shown | in_catalog(controls))


PLAIN = _callable(())
STAGE = _callable(("stages",))


def _documentation(tree: ast.AST) -> set[int]:
    """The ids of every bare string statement: docstrings, and the attribute docstrings under constants."""
    return {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)}


def _texts() -> list[tuple[str, int, str, frozenset[str]]]:
    """(module, line, text, the tools it names) for every string literal of the result code that names a tool; a
    literal that is a tool's name alone (a key, a comparison) is no text a reader reads."""
    found = []
    for folder in RESULT_CODE:
        for path in sorted((PACKAGE / folder).rglob("*.py")):
            tree = ast.parse(path.read_text())
            documentation = _documentation(tree)
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in documentation \
                        and " " in node.value.strip():
                    named = frozenset(_NAMES.findall(node.value))
                    if named:
                        found.append((path.relative_to(PACKAGE).as_posix(), node.lineno, node.value, named))
    return found


TEXTS = _texts()


def test_the_result_code_has_texts_naming_tools() -> None:
    assert len(TEXTS) >= 10 and any("db_update" in named for *_, named in TEXTS)


@pytest.mark.parametrize(("module", "line", "text", "named"), TEXTS, ids=[f"{m}:{n}" for m, n, *_ in TEXTS])
def test_a_result_text_names_only_tools_its_reader_can_call(module: str, line: int, text: str, named: frozenset[str]) -> None:
    readers = {"stage client": STAGE} if module in STAGE_ONLY else {"plain client": PLAIN, "stage client": STAGE}
    for reader, tools in readers.items():
        assert named <= tools, f"{module}:{line} names {sorted(named - tools)}, which a {reader} cannot call: {text!r}"


def test_a_stage_client_can_tick_a_line_bought_the_way_the_view_does() -> None:
    """shopping_list_check stocks the pantry with what a line says to buy: Act may call it, so the catalog lists it."""
    assert "shopping_list_check" in STAGE and "shopping_list_check" not in PLAIN
