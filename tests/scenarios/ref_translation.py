"""A recorded conversation's refs, as another session over a copy of the same seeded kitchen names the same rows.

A model can only name refs its session gave it, and refs are numbered as rows are first shown: a replay that shows
other contexts than the recording did (outputs sent ahead, the bundled loop) may give the same row another number.
Both kitchens are copies of one seeded file, so a seeded row has the same id in both; a row or draft created in the
conversation is found by its kind and label.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from alfred_mcp.app import AlfredApp
from alfred_mcp.state.registry import RefEntry

_REF = re.compile(r"\b(?:gen_)?[a-z]+_\d+\b")


async def session_refs(app: AlfredApp) -> list[RefEntry]:
    """Every ref the current session of `app` has given, in assignment order."""
    async with app.work("replay") as work:
        return work.session.registry.entries()


class RecordedRefs:
    """The refs of the recording's session at one point of the conversation (after a turn replayed as recorded)."""

    def __init__(self, recorded: Iterable[RefEntry]) -> None:
        self.recorded = {entry.ref: entry for entry in recorded}

    def translated(self, arguments: dict[str, Any], theirs: Iterable[RefEntry]) -> tuple[dict[str, Any], list[str]]:
        """`arguments` with every ref of the recording's session turned into the ref `theirs` (the other session's
        entries) gives the same row or draft; and the refs naming what the other session has not shown (kept as
        they are). Text that only looks like a ref (not one the recording's session gave) is kept."""
        theirs = list(theirs)
        by_row = {entry.row_id: entry.ref for entry in theirs if entry.row_id}
        by_label = {_named(entry): entry.ref for entry in theirs}
        missing: list[str] = []

        def translated(found: re.Match[str]) -> str:
            entry = self.recorded.get(found.group(0))
            if entry is None:
                return found.group(0)
            ref = (by_row.get(entry.row_id) if entry.row_id else None) or by_label.get(_named(entry))
            if ref is None:
                missing.append(found.group(0))
            return ref or found.group(0)

        return dict(json.loads(_REF.sub(translated, json.dumps(arguments)))), missing

    def shown(self, arguments: dict[str, Any], theirs: Iterable[RefEntry]) -> dict[str, Any] | None:
        """`arguments` translated for the other session; None when one names what it has not shown yet."""
        translated, missing = self.translated(arguments, theirs)
        return None if missing else translated


def _named(entry: RefEntry) -> tuple[str, str | None, bool]:
    """What names a row or draft created in the conversation (its id differs between the kitchens): its kind and
    label, and whether it is a draft (a saved draft's row has the draft's label)."""
    return entry.entity_type, entry.label, entry.ref.startswith("gen_")
