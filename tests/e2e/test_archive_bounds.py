"""A Paprika archive is read within budgets, on a real stdio server process: only the entries one call
imports are decompressed and parsed, so a crafted archive (2,000 entries, each at the limits of what an
entry may hold) keeps the server's peak memory under 400 MB; only a regular file is read (a symlink to
/dev/zero, a fifo, a directory are refused naming `source`), and an archive whose directory declares
more entries than allowed is refused before its directory is read."""

from __future__ import annotations

import gzip
import io
import json
import os
import zipfile
from pathlib import Path

import pytest
from mcp import Client
from recipe_site import PAPRIKA_RECIPE, paprika_archive

from alfred_mcp.kitchen.recipe_sources import MAX_ARCHIVE_RECIPES, MAX_RECIPE_BYTES, MAX_RECIPE_VALUES

from .helpers import call, call_error
from .test_stdio import server_params

pytestmark = pytest.mark.anyio
PEAK_LIMIT = 400 * 1024 * 1024


def _heavy_entry(index: int) -> bytes:
    """One entry near every limit: about 2 MB decompressed, a photo, long texts, as many values as allowed."""
    filler = MAX_RECIPE_VALUES - 100
    record = {**PAPRIKA_RECIPE, "name": f"Heavy {index}", "directions": "Stir well.\n" * 60_000,
              "ingredients": "1 cup flour\n" * 30_000, "categories": ["x"] * filler, "photo_data": "A" * 780_000}
    body = json.dumps(record).encode()
    assert len(body) <= MAX_RECIPE_BYTES
    return gzip.compress(body, compresslevel=1)


def _crafted_archive(path: Path) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        entry = _heavy_entry(0)
        for index in range(MAX_ARCHIVE_RECIPES):
            archive.writestr(f"{index}.paprikarecipe", entry)


def _server_pid() -> int:
    """The stdio server this test process started (its child running alfred_mcp)."""
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == os.getpid() and b"alfred_mcp" in cmdline:
                return int(entry.name)
    raise AssertionError("no server process found")


def _peak_rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="peak memory is read from /proc (Linux)")
async def test_a_crafted_archive_keeps_the_server_under_400_mb(tmp_path: Path) -> None:
    archive = tmp_path / "crafted.paprikarecipes"
    _crafted_archive(archive)
    async with Client(server_params(tmp_path / "kitchen.db")) as client:
        pid = _server_pid()
        for offset in (0, MAX_ARCHIVE_RECIPES // 2, MAX_ARCHIVE_RECIPES - 20):
            imported = await call(client, "recipes_import", source=str(archive), offset=offset)
            assert imported["count"] == 20 and imported["remaining"] == MAX_ARCHIVE_RECIPES - offset - 20
            assert len(imported["drafts"][0]["content"]["ingredients"]) == 100
        peak = _peak_rss(pid)
    assert peak < PEAK_LIMIT, f"peak RSS {peak / 2**20:.0f} MB"


def _declaring(entries: int) -> bytes:
    """A zip whose end record declares `entries` files (its directory holds one)."""
    data = bytearray(paprika_archive(PAPRIKA_RECIPE))
    at = data.rfind(b"PK\x05\x06")
    data[at + 8:at + 12] = entries.to_bytes(2, "little") * 2
    return bytes(data)


def _kinds(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    link = tmp_path / "zero.paprikarecipes"
    link.symlink_to("/dev/zero")
    fifo = tmp_path / "pipe.paprikarecipes"
    os.mkfifo(fifo)
    folder = tmp_path / "folder.paprikarecipes"
    folder.mkdir()
    many = tmp_path / "many.paprikarecipes"
    many.write_bytes(_declaring(0xFFFF))
    over = tmp_path / "over.paprikarecipes"
    over.write_bytes(_declaring(MAX_ARCHIVE_RECIPES + 1))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for index in range(MAX_ARCHIVE_RECIPES + 1):
            archive.writestr(f"{index}.paprikarecipe", b"")
    listed = tmp_path / "listed.paprikarecipes"
    listed.write_bytes(buffer.getvalue())
    return {"symlink to /dev/zero": (link, "symbolic link"), "fifo": (fifo, "not a regular file"),
            "directory": (folder, "not a regular file"), "end record declaring 65,535": (many, "more than 65,534"),
            "end record declaring one too many": (over, f"at most {MAX_ARCHIVE_RECIPES}"),
            "one entry too many": (listed, f"at most {MAX_ARCHIVE_RECIPES}")}


async def test_only_a_regular_archive_within_its_entry_budget_is_read(tmp_path: Path) -> None:
    kinds = _kinds(tmp_path)
    async with Client(server_params(tmp_path / "kitchen.db")) as client:
        for kind, (path, words) in kinds.items():
            refused = await call_error(client, "recipes_import", source=str(path))
            assert refused["field"] == "source" and words in refused["message"], (kind, refused["message"])
        assert (await call(client, "draft_read"))["count"] == 0
