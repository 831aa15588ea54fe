"""Record a conversation as a client's model drives it: one MCP call per invocation, over stdio, with the real client.

    python -m tests.scenarios.live --db K.db list                     # tools/list as the client sees it
    python -m tests.scenarios.live --db K.db --label t1 call turn_start '{"message": "..."}'
    python -m tests.scenarios.live --db K.db prompts | resources | read URI
    python -m tests.scenarios.live --db K.db stats                    # calls and bytes per label
    python -m tests.scenarios.live --db K.db export NAME --out tests/scenarios/recorded/NAME.json
    python -m tests.scenarios.live --db X rebase tests/scenarios/recorded/NAME.json   # after a fix: see `rebase`

`export` replays the conversation on the code it was recorded with (`recorded.rebase`), so every call keeps what its
refs named (`named`, `ref_mapping.py`) and how many of the outputs it sent ahead were applied (`ahead_applied`): later
replays name the same rows whatever order a fix shows them in, and feed the bundled loop only the outputs applied. Run
it with the repository on PYTHONPATH (the replay opens its kitchen as the tests do).

The kitchen (a SQLite file, seeded as of today on the first call) and the conversation session persist
between invocations, like one client session. ALFRED_TOOLS, ALFRED_LISTED (e.g. `stages`: the listing a stage
client reads) and ALFRED_MODEL are passed to the server; the listing is kept with each call, and `export` records it
(`listed`), so the replays run the conversation with the tools/list its model read. Every call is appended to K.db.record.jsonl with its
label (one label per user turn), its arguments, the text the model read, and the kitchen's digest
after it; `export` turns that log into the replayed scenario `test_recorded_conversations` runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import date
from pathlib import Path
from typing import Any

from mcp import Client, StdioServerParameters

from .kitchen_digest import kitchen_digest

ROOT = Path(__file__).resolve().parents[2]


def _server(db: Path) -> StdioServerParameters:
    env = {"PYTHONPATH": str(ROOT), "ALFRED_DB": str(db), "PATH": os.environ.get("PATH", ""),
           "HOME": os.environ.get("HOME", "/root")}
    env.update({key: value for key, value in os.environ.items() if key in ("ALFRED_TOOLS", "ALFRED_LISTED", "ALFRED_MODEL")})
    return StdioServerParameters(command=sys.executable, args=["-m", "alfred_mcp"], env=env)


def _listing() -> list[str]:
    """The tools/list listing the server is started with (ALFRED_LISTED, names and toolsets; empty: the default list)."""
    return [name.strip() for name in os.environ.get("ALFRED_LISTED", "").split(",") if name.strip()]


def _dump(items: Any) -> str:
    return json.dumps([item.model_dump(mode="json", exclude_none=True, by_alias=True) for item in items], indent=1)


@asynccontextmanager
async def _client(db: Path, in_process: bool) -> AsyncIterator[Client]:
    """A client of the kitchen's server: its own stdio process, as a recorder runs it, or (`in_process`, for tests that
    make many calls) the same server built in this process from the same settings, opened and closed around the call."""
    if not in_process:
        async with Client(_server(db)) as client:
            yield client
        return
    from alfred_mcp.app import AlfredApp
    from alfred_mcp.config import Settings
    from alfred_mcp.server.mcp_server import build_server

    app = AlfredApp.from_settings(Settings.from_env(db=str(db)))
    await app.open()
    try:
        async with Client(build_server(app)) as client:
            yield client
    finally:
        await app.close()


async def _call(db: Path, what: str, rest: list[str], label: str, *, in_process: bool = False) -> str:
    async with _client(db, in_process) as client:
        if what == "list":
            return _dump((await client.list_tools()).tools)
        if what == "prompts":
            return _dump((await client.list_prompts()).prompts)
        if what == "resources":
            return _dump((await client.list_resources()).resources) + "\n" + _dump((await client.list_resource_templates()).resource_templates)
        if what == "read":
            return "\n".join(getattr(block, "text", "") for block in (await client.read_resource(rest[0])).contents)
        if what != "call":
            raise SystemExit(f"unknown command: {what}")
        arguments = json.loads(rest[1]) if len(rest) > 1 else {}
        result = await client.call_tool(rest[0], arguments)
        text = "".join(block.text for block in result.content if block.type == "text")
        entry = {"label": label, "tool": rest[0], "arguments": arguments, "is_error": bool(result.is_error),
                 "bytes": len(text.encode()), "text": text, "today": date.today().isoformat(), "t": time.time(),
                 "listed": _listing()}
    entry["digest"] = kitchen_digest(db)
    with Path(f"{db}.record.jsonl").open("a") as log:
        log.write(json.dumps(entry) + "\n")
    return ("ERROR " if entry["is_error"] else "") + text


def _entries(db: Path) -> list[dict[str, Any]]:
    """The calls recorded on `db`, in order (none yet: no record file, or an empty one)."""
    record = Path(f"{db}.record.jsonl")
    return [json.loads(line) for line in record.read_text().splitlines() if line.strip()] if record.is_file() else []


NO_CALLS = "no calls yet"
"""What stats and export say of a database no call was recorded on."""


def stats(db: Path) -> str:
    """Calls and bytes per label, or NO_CALLS."""
    if not (entries := _entries(db)):
        return NO_CALLS
    per: dict[str, list[int]] = {}
    for entry in entries:
        tally = per.setdefault(entry["label"], [0, 0])
        tally[0] += 1
        tally[1] += entry["bytes"]
    return "\n".join(f"{label or '(no label)'}: {calls} calls, {size} bytes" for label, (calls, size) in per.items())


def answer_of(text: str) -> dict[str, Any] | None:
    """The JSON object an answer's text carries (after its summary line, `turn_start (session_1, turn 2)`); None when
    it carries none (an error's message)."""
    body = text if text.startswith("{") else text.partition("\n")[2]
    try:
        answer = json.loads(body)
    except json.JSONDecodeError:
        return None
    return answer if isinstance(answer, dict) else None


def export(db: Path, name: str) -> dict[str, Any]:
    """The recorded conversation: its day, and per turn every call in order with what the kitchen held after the turn
    (each call's `ahead_applied` read from its answer; `named` is added by `annotated`)."""
    from .recorded import ahead_applied

    entries = _entries(db)
    if not entries:
        raise SystemExit(f"export: {NO_CALLS} on {db.name}")
    turns: list[dict[str, Any]] = []
    for entry in entries:
        if not entry["label"]:
            continue
        if not turns or turns[-1]["label"] != entry["label"]:
            turns.append({"label": entry["label"], "message": None, "calls": []})
        turn = turns[-1]
        if entry["tool"] == "turn_start":
            turn["message"] = entry["arguments"].get("message")
        answer = None if entry["is_error"] else answer_of(entry["text"])
        turn["calls"].append({"tool": entry["tool"], "arguments": entry["arguments"], "is_error": entry["is_error"],
                              "bytes": entry["bytes"], **ahead_applied(entry["arguments"], answer)})
        turn["digest"] = entry["digest"]
    listings = {tuple(entry.get("listed") or ()) for entry in entries if entry["label"]}
    if len(listings) > 1:
        raise SystemExit(f"the calls were made with different listings (ALFRED_LISTED): {sorted(listings)}; record one per conversation")
    listed = list(listings.pop()) if listings else []
    return {"name": name, "today": entries[0]["today"], **({"listed": listed} if listed else {}), "turns": turns}


def _rebased(data: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """`data` as the current server answers it (`recorded.rebase`: every call with what its refs named), and what
    could not be rebased."""
    from .recorded import rebase, recording_of

    with tempfile.TemporaryDirectory() as folder:
        return asyncio.run(rebase(recording_of(data), data, Path(folder)))


def annotated(data: dict[str, Any]) -> dict[str, Any]:
    """An exported recording with what each call's refs named, by replaying it on the code it was recorded with; as it
    was (a warning on stderr) when the replay does not make the same calls or reach the same kitchens."""
    rebased, problems = _rebased(data)
    if problems:
        print("export: the replay differs, so `named` is left out (rebase it once it replays):\n  " + "\n  ".join(problems),
              file=sys.stderr)
        return data
    return rebased


def _rebase(path: Path) -> str:
    """Rewrite a recording as the current server answers it (recorded.rebase), unless a call or the kitchen differs."""
    data = json.loads(path.read_text())
    rebased, problems = _rebased(data)
    if problems:
        return "kept as it was:\n  " + "\n  ".join(problems)
    path.write_text(json.dumps(rebased, indent=1, ensure_ascii=False) + "\n")
    dropped = sum(len(a["calls"]) - len(b["calls"]) for a, b in zip(data["turns"], rebased["turns"]))
    return f"rebased ({dropped} retries dropped)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", required=True, type=Path)
    parser.add_argument("--label", default="", help="the user turn this call belongs to (e.g. t1)")
    parser.add_argument("--out", type=Path, help="export: the file to write")
    parser.add_argument("what")
    parser.add_argument("rest", nargs="*")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "tests"))  # export and rebase replay on a kitchen opened as the tests do (tests/e2e)
    db = args.db.resolve()
    if args.what == "rebase":
        for path in map(Path, args.rest):
            print(f"{path.name}: " + _rebase(path))
    elif args.what == "stats":
        print(stats(db))
    elif args.what == "export":
        text = json.dumps(annotated(export(db, args.rest[0])), indent=1, ensure_ascii=False) + "\n"
        if args.out:
            args.out.write_text(text)
        else:
            print(text)
    else:
        print(asyncio.run(_call(db, args.what, args.rest, args.label)))


if __name__ == "__main__":
    main()
