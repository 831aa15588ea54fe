"""A recorded call's refs as the replay's own session names the same things, by what each named when recorded.

A model names the refs its session gave it, numbered as rows were first shown. A fix that shows another row first (a
shopping line added before the others) numbers the same rows otherwise, so a call made as recorded would act on
another row. Each recorded call therefore keeps what every ref in its arguments named when the model made it (`named`:
`{"shop_19": "vegetable broth"}`, a row's name, with its recipe for a recipe's ingredient or a meal): the replay names
the same thing by the ref its session gave it, or fails saying which ref and why. A description several rows share
names the n-th of them in the order the session gave their refs (`"vegetable broth (#2 of 2)"`); where the replay's
session has given another number of refs so named, which one is meant is not known, and the replay fails so.

`named` is written by replaying a recording on the code it was recorded with (`annotate`): the replay's refs are then
the recording's, and what they name is read from the replay's kitchen. A call that has no `named` is made as recorded.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.schema import table_for_entity_type
from alfred_mcp.state.refs import parse_ref
from alfred_mcp.state.registry import RefEntry

from .ref_translation import session_refs

_WORD = re.compile(r"\b(?:gen_)?[a-z]+_\d+\b")
_NTH = re.compile(r"^(.*) \(#(\d+) of (\d+)\)$", re.DOTALL)
_OWNER = {"ri": "recipe_id", "meal": "recipe_id", "log": "recipe_id"}
"""The recipe a row belongs to, named beside it: an ingredient's recipe, the recipe of a meal or of a cooked meal."""

Named = dict[str, str | None]
"""What each ref of a call's arguments named when the call was made; None: a ref the session had not given."""


def refs_in(arguments: dict[str, Any]) -> list[str]:
    """The refs `arguments` spell, each once, in order (text that only looks like a ref is left out)."""
    return list(dict.fromkeys(word for word in _WORD.findall(json.dumps(arguments)) if parse_ref(word) is not None))


@dataclass(frozen=True)
class Mapped:
    """A call's arguments with the refs of its session's numbering, and why a ref could not be named (empty: all were)."""

    arguments: dict[str, Any]
    problems: list[str]


class RefMapper:
    """Names, in the session of `app` over the kitchen file `db`, what a recorded call's refs named."""

    def __init__(self, app: AlfredApp, db: Path) -> None:
        self.app = app
        self.db = db

    async def named(self, arguments: dict[str, Any]) -> Named:
        """What each ref of `arguments` names in this session now (to keep with a call made as recorded)."""
        refs = refs_in(arguments)
        if not refs:
            return {}
        entries = await session_refs(self.app)
        known = {entry.ref: entry for entry in entries}
        described = self._described([known[ref] for ref in refs if ref in known], entries)
        return {ref: described.get(ref) for ref in refs}

    async def mapped(self, arguments: dict[str, Any], named: Named | None) -> Mapped:
        """`arguments` with each ref of `named` turned into the ref this session gave what it named; a ref that names
        nothing here, or that named nothing when recorded and names a row here, is a problem (the call is not to be
        made: it would act on another row)."""
        if not named:
            return Mapped(arguments, [])
        entries = await session_refs(self.app)
        given = {entry.ref for entry in entries}
        described = self._described([entry for entry in entries if _kind(entry.ref) in {_kind(ref) for ref in named}], entries)
        to: dict[str, str] = {}
        problems: list[str] = []
        for ref, what in named.items():
            if what is None:
                if ref in given:
                    problems.append(f"{ref} named nothing when recorded (its session had not given it), and names "
                                    f"{described.get(ref)!r} in the replay")
                continue
            name, nth, of = _split(what)
            same = [entry.ref for entry in entries if _kind(entry.ref) == _kind(ref) and _split(described.get(entry.ref))[0] == name]
            if len(same) != of:
                problems.append(_not_found(ref, what, same, [entry.ref for entry in entries if _kind(entry.ref) == _kind(ref)], described))
            else:
                to[ref] = same[nth - 1]
        if problems or all(ref == other for ref, other in to.items()):
            return Mapped(arguments, problems)
        text = _WORD.sub(lambda found: to.get(found.group(0), found.group(0)), json.dumps(arguments))
        return Mapped(dict(json.loads(text)), [])

    def _described(self, wanted: Iterable[RefEntry], entries: list[RefEntry]) -> dict[str, str]:
        """Each of `wanted` as `named` says it: its description, with its place among those of its kind that share it."""
        wanted = list(wanted)
        kinds = {_kind(entry.ref) for entry in wanted}
        of_kinds = [entry for entry in entries if _kind(entry.ref) in kinds]
        plain = _descriptions(self.db, of_kinds)
        seen: dict[tuple[tuple[str, bool], str], int] = {}
        places: dict[str, int] = {}
        for entry in of_kinds:
            key = (_kind(entry.ref), plain[entry.ref])
            seen[key] = places[entry.ref] = seen.get(key, 0) + 1
        shared = {entry.ref: seen[(_kind(entry.ref), plain[entry.ref])] for entry in wanted}
        return {entry.ref: plain[entry.ref] + (f" (#{places[entry.ref]} of {shared[entry.ref]})" if shared[entry.ref] > 1 else "")
                for entry in wanted}


def _not_found(ref: str, what: str, same: list[str], kind: list[str], described: dict[str, str]) -> str:
    name, _, of = _split(what)
    if same:
        return (f"{ref} named {what!r} when recorded, one of {of} so named; the replay's session has given {len(same)} "
                f"refs so named ({', '.join(same)}): which one is meant is not known")
    shown = ", ".join(f"{other} {described[other]!r}" for other in kind[:12]) or "none"
    return f"{ref} named {name!r} when recorded; the replay's session has given no ref that names it (refs of its kind: {shown})"


def _split(what: str | None) -> tuple[str | None, int, int]:
    """A description, which of those sharing it, and how many share it (1, 1: it names one thing)."""
    found = _NTH.match(what or "")
    return (found.group(1), int(found.group(2)), int(found.group(3))) if found else (what, 1, 1)


def _kind(ref: str) -> tuple[str, bool]:
    parsed = parse_ref(ref)
    return (parsed.entity_type, parsed.generated) if parsed else (ref, False)


def _descriptions(db: Path, entries: list[RefEntry]) -> dict[str, str]:
    """What each entry names, as a person reads it in the kitchen `db`: a row's label (its name, title, or day and
    meal) with the recipe it belongs to; a draft's or a deleted row's label as the session keeps it."""
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    connection.row_factory = sqlite3.Row
    try:
        rows: dict[str, dict[str, Any]] = {}
        for entity_type in {entry.entity_type for entry in entries if entry.row_id}:
            table = table_for_entity_type(entity_type)
            ids = [entry.row_id for entry in entries if entry.entity_type == entity_type and entry.row_id]
            for start in range(0, len(ids), 500):
                part = ids[start:start + 500]
                query = f"SELECT * FROM {table.name} WHERE id IN ({', '.join('?' * len(part))})"  # noqa: S608 (names from the schema)
                rows.update({str(row["id"]): dict(row) for row in connection.execute(query, part)})
        recipes = {str(row["id"]): str(row["name"]) for row in connection.execute("SELECT id, name FROM recipes")}
        return {entry.ref: _description(entry, rows.get(entry.row_id or ""), recipes) for entry in entries}
    finally:
        connection.close()


def _description(entry: RefEntry, row: dict[str, Any] | None, recipes: dict[str, str]) -> str:
    if row is None or entry.row_id is None:
        return entry.label or ""
    table = table_for_entity_type(entry.entity_type)
    if table.name == "meal_plans":
        label = f"{str(row['date'])[:10]} {row['meal_type']}"
    elif table.name == "cooking_log":
        label = f"cooked {str(row['cooked_at'])[:10]}"
    else:
        label = next((str(row[name]) for name in table.label_columns if row.get(name)), table.noun)
    owner = _OWNER.get(entry.entity_type)
    recipe = recipes.get(str(row.get(owner))) if owner else None
    return f"{label}, of {recipe}" if recipe else label
