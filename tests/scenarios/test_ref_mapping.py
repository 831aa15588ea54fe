"""A recorded conversation replayed against a kitchen that shows its rows otherwise acts on the rows the model named.

For each table a model names rows of, a conversation is recorded on the seeded kitchen (a read, then a delete, a
rename and a delete naming the refs the read gave) and rebased, which keeps what each ref named. It is then replayed
against a copy of the kitchen where a row of that table was added before the others, so that the read numbers every
row one further: the replay still changes the rows the model named (made as recorded, the calls change others). And
against a copy where a row the conversation names is gone, or has a namesake added: the replay says which ref named what
and why it cannot name it now, and makes no call naming it.
"""

from __future__ import annotations

import sqlite3
import uuid
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from e2e.conftest import SeededKitchens

from alfred_mcp.kitchen.schema import get_table

from .kitchen_digest import Digest
from .recorded import RecordedCall, RecordedTurn, Recording, ReplayedTurn, rebase, recording_of, replay

pytestmark = pytest.mark.anyio

DAY = date(2026, 1, 12)
TABLES = ("inventory", "shopping_list", "tasks", "recipes")
"""The tables whose rows a person names by a name or title (`extra_row` makes one of them before the seeded ones)."""


def _where(ref: str) -> list[dict[str, Any]]:
    return [{"field": "id", "op": "eq", "value": ref}]


def _calls(table: str) -> list[tuple[str, list[RecordedCall]]]:
    """A read of the table, then its 2nd row deleted, its 3rd renamed, and the renamed row deleted (named by its new name)."""
    prefix = get_table(table).entity_type
    label = get_table(table).label_columns[0]
    return [
        ("t1", [RecordedCall("db_read", {"table": table}, False, 0)]),
        ("t2", [RecordedCall("db_delete", {"table": table, "filters": _where(f"{prefix}_2")}, False, 0)]),
        ("t3", [RecordedCall("db_update", {"table": table, "filters": _where(f"{prefix}_3"), "data": {label: "Renamed row"}}, False, 0)]),
        ("t4", [RecordedCall("db_delete", {"table": table, "filters": _where(f"{prefix}_3")}, False, 0)]),
    ]


@dataclass
class Recorded:
    """A conversation as recorded on the seeded kitchen, and the same annotated with what its refs named."""

    plain: Recording
    annotated: Recording


async def _recorded(table: str, folder: Path, kitchens: SeededKitchens) -> Recorded:
    """The conversation of `_calls` made on the seeded kitchen (its digests those of that run), then rebased."""
    bare = Recording(table, DAY, tuple(RecordedTurn(label, "", tuple(calls), {}) for label, calls in _calls(table)))
    (folder / "made").mkdir()
    made = await replay(bare, folder / "made", kitchens)
    assert not [log.diverged for log in made if log.diverged]
    data = {"name": table, "today": DAY.isoformat(), "turns": [
        {"label": turn.label, "message": "", "digest": log.digest,
         "calls": [{"tool": call.tool, "arguments": call.arguments, "is_error": call.is_error, "bytes": 0} for call in turn.calls]}
        for turn, log in zip(bare.turns, made, strict=True)]}
    (folder / "rebase").mkdir()
    rebased, problems = await rebase(recording_of(data), data, folder / "rebase")
    assert not problems
    return Recorded(recording_of(data), recording_of(rebased))


def _template(kitchens: SeededKitchens) -> Path:
    return kitchens.folder / DAY.isoformat() / "kitchen.db"


async def _warmed(kitchens: SeededKitchens, folder: Path) -> Path:
    """The seeded file `kitchens` copies for DAY (made now if it was not)."""
    folder.mkdir()
    async with kitchens.copy(folder, DAY):
        pass
    return _template(kitchens)


def extra_row(db: Path, table: str, name: str = "An extra row") -> str:
    """A row added to `table` before every other (its creation time earliest), a copy of one named `name`: its name."""
    connection = sqlite3.connect(db)
    connection.row_factory = sqlite3.Row
    try:
        row = dict(connection.execute(f"SELECT * FROM {table} ORDER BY created_at LIMIT 1").fetchone())  # noqa: S608
        label = get_table(table).label_columns[0]
        row.update(id=str(uuid.uuid4()), created_at="2000-01-01T00:00:00+00:00", **{label: name})
        connection.execute(f"INSERT INTO {table} ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})", list(row.values()))  # noqa: S608
        connection.commit()
        return name
    finally:
        connection.close()


def _without(digest: Digest, name: str) -> Digest:
    return {table: [row for row in rows if name not in row] for table, rows in digest.items()}


@pytest.fixture
def kitchens(tmp_path: Path) -> SeededKitchens:
    """A seeded kitchen of this test's own (its file is changed before the replay)."""
    (tmp_path / "seeded").mkdir()
    return SeededKitchens(tmp_path / "seeded")


@pytest.mark.parametrize("table", TABLES)
async def test_a_replay_acts_on_the_rows_the_model_named_when_a_row_is_shown_before_them(
        table: str, tmp_path: Path, kitchens: SeededKitchens) -> None:
    recorded = await _recorded(table, tmp_path, SeededKitchens(_fresh(tmp_path / "recorded")))
    extra = extra_row(await _warmed(kitchens, tmp_path / "warm"), table)
    (tmp_path / "mapped").mkdir()
    mapped = await replay(recorded.annotated, tmp_path / "mapped", kitchens)
    for turn, log in zip(recorded.annotated.turns, mapped, strict=True):
        assert not log.diverged, f"{turn.label}: {log.diverged}"
        assert _without(log.digest, extra) == turn.digest, turn.label
    (tmp_path / "as_recorded").mkdir()
    as_recorded = await replay(recorded.plain, tmp_path / "as_recorded", kitchens)
    assert any(_without(log.digest, extra) != turn.digest for turn, log in zip(recorded.plain.turns, as_recorded, strict=True)), \
        "made as recorded, the calls should have changed other rows: the test would prove nothing"


def removed_rows(db: Path, table: str, name: str) -> str:
    """The rows of `table` named `name` deleted: `name`."""
    connection = sqlite3.connect(db)
    with connection:
        connection.execute(f"DELETE FROM {table} WHERE {get_table(table).label_columns[0]} = ?", (name,))  # noqa: S608
    connection.close()
    return name


CANNOT_NAME = {
    "gone": (removed_rows, "when recorded; the replay's session has given no ref that names it"),
    "namesake": (extra_row, "when recorded, one of 1 so named; the replay's session has given 2 refs so named"),
}
"""How the kitchen is changed so that the replay cannot name a row the recording named, and what the replay says."""


@pytest.mark.parametrize("change", CANNOT_NAME)
@pytest.mark.parametrize("table", TABLES)
async def test_a_replay_that_cannot_name_a_recorded_row_says_which_ref_and_why_and_makes_no_call_naming_it(
        table: str, change: str, tmp_path: Path, kitchens: SeededKitchens) -> None:
    """The row the conversation deletes in its second turn is gone from the replay's kitchen, or has a namesake there."""
    recorded = await _recorded(table, tmp_path, SeededKitchens(_fresh(tmp_path / "recorded")))
    deleted = recorded.annotated.turns[1].calls[0]
    ref = deleted.arguments["filters"][0]["value"]
    name = deleted.named[ref] if deleted.named else None
    assert name
    changed, says = CANNOT_NAME[change]
    changed(await _warmed(kitchens, tmp_path / "warm"), table, name)
    (tmp_path / "changed").mkdir()
    logs: list[ReplayedTurn] = await replay(recorded.annotated, tmp_path / "changed", kitchens)
    said = " ".join(logs[1].diverged)
    assert f"{ref} named {name!r} {says}" in said, said
    assert logs[1].digest == logs[0].digest, "a call naming a row the replay cannot name must not be made"


def _fresh(folder: Path) -> Path:
    folder.mkdir()
    return folder
