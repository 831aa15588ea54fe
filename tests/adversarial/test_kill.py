"""kill -9 during a 30-recipe save: every ref announced as saved exists after a restart.

A real server subprocess over stdio saves 30 recipe drafts with progress notifications and is
killed with SIGKILL at a chosen notification: while the drafts are still being checked, and
right after the first "saved" announcement. Restarted on the same database, the session must
know every announced ref as a row that exists, and the save must be all there or not at all.
"""

from __future__ import annotations

from .conftest import Kitchen
from .corpus import RECIPE
from .stdio_raw import StdioServer

DRAFTS = 30
KILL_POINTS = {"while-checking": "checked 15/", "after-the-first-saved": "saved 1/"}


def _recipes(count: int) -> list[dict[str, object]]:
    return [{**RECIPE, "name": f"Crash Test Traybake {n}", "parent_recipe": None} for n in range(1, count + 1)]


def _announced(notifications: list[dict[str, object]]) -> dict[str, str]:
    """gen ref -> saved ref, from the 'saved k/N gen_recipe_x: recipe_y' progress messages."""
    saved = {}
    for note in notifications:
        message = str(note.get("params", {}).get("message", ""))  # type: ignore[union-attr]
        if message.startswith("saved ") and not message.endswith(": failed"):
            gen_ref, saved_ref = message.split(" ", 2)[2].split(": ")
            saved[gen_ref] = saved_ref
    return saved


def _kill_mid_save(server: StdioServer, marker: str) -> tuple[list[str], dict[str, str]]:
    """Draft 30 recipes, save them with progress, SIGKILL at the first message containing `marker`."""
    first = server.call("draft_create", {"entity_type": "recipe", "items": _recipes(DRAFTS)[: DRAFTS // 2]})
    second = server.call("draft_create", {"entity_type": "recipe", "items": _recipes(DRAFTS)[DRAFTS // 2:]})
    refs = [d["ref"] for d in first["structuredContent"]["drafts"] + second["structuredContent"]["drafts"]]
    server.notifications.clear()
    request = server.start("tools/call", {"name": "draft_save", "arguments": {"refs": refs}, "_meta": {"progressToken": "save"}})
    response = server.wait(request, until=lambda note: marker in str(note.get("params", {}).get("message", "")))
    assert response is None, f"the save finished before '{marker}' was announced"
    server.kill()
    return refs, _announced(server.notifications)


def _check_after_restart(server: StdioServer, refs: list[str], announced: dict[str, str]) -> None:
    drafts = server.call("draft_read", {"refs": refs})["structuredContent"]["drafts"]
    statuses = {d["status"] for d in drafts}
    assert statuses in ({"pending"}, {"saved"}), f"a save is all or nothing, found {statuses}"
    saved = {d["ref"]: d["saved_as"] for d in drafts if d["status"] == "saved"}
    assert all(saved.get(gen_ref) == ref for gen_ref, ref in announced.items()), "an announced save is not in the session"
    if announced:
        filters = [{"field": "id", "op": "in", "value": sorted(announced.values())}]
        rows = server.call("db_read", {"table": "recipes", "filters": filters, "limit": 50})["structuredContent"]["rows"]
        assert sorted(row["id"] for row in rows) == sorted(announced.values())
    else:
        assert statuses == {"pending"}, "nothing was announced, so nothing may be saved yet (the commit comes after checking)"


def test_every_ref_announced_as_saved_exists_after_a_kill(kitchen: Kitchen) -> None:
    """Killed while checking: nothing announced, nothing saved. Killed after the first 'saved': all of it is there."""
    server = StdioServer(kitchen.db)
    try:
        for point, marker in KILL_POINTS.items():
            refs, announced = _kill_mid_save(server, marker)
            assert bool(announced) == (point == "after-the-first-saved")
            server = StdioServer(kitchen.db)
            _check_after_restart(server, refs, announced)
    finally:
        server.close()
