"""The bad-input corpus (`corpus.py`) against the real server on SQLite and PostgreSQL.

For each tool, resource and prompt: every case gets a clear error naming its field (or the
documented acceptance), never an internal error, never a database id in what comes back (the ids
are read from the database itself: UUID-shaped text a case types is data and may come back as
given), and leaves every kitchen table as it was (an accepted write stores no database id in text). Afterwards, and after a
restart, every session resource and every role prompt still renders.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from mcp import Client, types

from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings
from alfred_mcp.contracts import load_contracts
from alfred_mcp.server.mcp_server import AlfredServer, build_server

from .conftest import Kitchen
from .corpus import BASES, WRITES, Case, ResourceRead, ToolCall, all_targets, cases_for
from .harness import (
    KitchenSnapshot,
    Outcome,
    call,
    call_in_process,
    db_ids,
    has_non_finite,
    ids_in_text,
    prompt,
    reach_stage,
    read,
    render_everything,
    scripted_model,
)

pytestmark = pytest.mark.anyio


async def run(client: Client, server: AlfredServer, request: Any) -> Outcome:
    if isinstance(request, ToolCall):
        if request.stage is not None:
            await reach_stage(client, request.stage)
        if has_non_finite(request.args):
            return await call_in_process(server, request.tool, request.args)
        return await call(client, request.tool, request.args)
    if isinstance(request, ResourceRead):
        return await read(client, request.uri)
    return await prompt(client, request.name, request.args)


def _segments(path: str) -> list[str]:
    return [part for part in re.split(r"[.\[\]]+", path) if part and not part.isdigit()]


def names_field(actual: str | None, expected: str | None) -> bool:
    """The error's field is the expected path, or the column/argument that path ends in (or it ends in the path)."""
    if expected is None:
        return bool(actual)
    if not actual:
        return False
    a, e = _segments(actual), _segments(expected)
    return actual == expected or a[-len(e):] == e or e[-len(a):] == a


def judge(case: Case, outcome: Outcome, unchanged: bool, raw_text: list[str], ids: set[str], stored_text: str = "") -> list[str]:
    """Why `outcome` breaks the case's expectation (empty: it holds); `ids` are the database's ids, `stored_text`
    the kitchen as stored after the case (JSON)."""
    problems = []
    if outcome.internal:
        problems.append(f"internal error: {outcome.text[:160]}")
    if outcome.leaked(ids):
        problems.append(f"a database id came back: {outcome.leaked(ids)[:1]}")
    is_tool = isinstance(case.request, ToolCall)
    writes = is_tool and case.target in WRITES
    if outcome.ok:
        if case.expect == "refused":
            problems.append(f"accepted: {outcome.text[:160]}")
        if case.expect == "given" and case.given is not None and not unchanged and case.given not in stored_text:
            problems.append(f"accepted and written, but {case.given} is not stored as given")
        if not (writes and case.expect != "refused") and not unchanged:
            problems.append("the kitchen changed")
    else:
        if case.expect == "accepted":
            problems.append(f"refused: {outcome.text[:200]}")
        field = outcome.fields.get("field") if is_tool else _named_argument(outcome.text, case.field)
        if case.expect != "accepted" and not names_field(field, case.field if case.expect == "refused" else None):
            problems.append(f"does not name {case.field!r} (field {field!r}): {outcome.text[:200]}")
        if case.code and is_tool and outcome.fields.get("code") != case.code:
            problems.append(f"code {outcome.fields.get('code')!r}, expected {case.code!r}: {outcome.text[:160]}")
        if is_tool and field and _segments(str(field)) and _segments(str(field))[-1] not in outcome.text:
            problems.append(f"the message does not mention {field!r}: {outcome.text[:160]}")
        if not unchanged:
            problems.append("refused, yet the kitchen changed")
    if raw_text:
        problems.append(f"a database id stored in text: {raw_text[:2]}")
    return problems


def _named_argument(message: str, expected: str | None) -> str | None:
    """Resources and prompts answer JSON-RPC errors: the argument is named in the message."""
    if expected is not None and expected in message:
        return expected
    head = message.split(":", 1)[0]
    return head if head and " " not in head.strip("'") else None


async def run_corpus(app: AlfredApp, kitchen: Kitchen, cases: list[Case], *, elicitation: Any = None) -> list[str]:
    failures = []
    server = build_server(app)
    snapshot = KitchenSnapshot(kitchen.db)
    try:
        async with Client(server, elicitation_callback=elicitation) as client:
            before = snapshot.take()
            ids = db_ids(before)
            for case in cases:
                outcome = await run(client, server, kitchen.state.resolve(case.request))
                after = snapshot.take()
                unchanged = after == before
                if not unchanged:  # an unchanged kitchen holds no id that `ids` lacks
                    ids |= db_ids(after)
                stored = [] if unchanged else ids_in_text(after, ids)
                stored_text = "" if unchanged else json.dumps(after)
                failures += [f"{case.label}: {problem}" for problem in judge(case, outcome, unchanged, stored, ids, stored_text)]
                before = after
            failures += [f"after the corpus: {problem}" for problem in await render_everything(client, ids)]
    finally:
        snapshot.close()
    return failures


@pytest.mark.parametrize("target", all_targets())
async def test_bad_input_is_refused_naming_its_field_and_changes_nothing(kitchen_app: AlfredApp, kitchen: Kitchen, target: str) -> None:
    kitchen_app.llm = scripted_model()
    failures = await run_corpus(kitchen_app, kitchen, cases_for(target))
    if target.startswith(("resource:", "prompt:")):  # reads store nothing: the rendering after a restart is the tools' concern
        assert not failures, f"{len(failures)} of {len(cases_for(target))} cases failed:\n" + "\n".join(failures)
        return
    restarted = AlfredApp.from_settings(Settings(db=kitchen.db, seed_demo=False))
    await restarted.open()
    try:
        async with Client(build_server(restarted)) as client:
            failures += [f"after a restart: {problem}" for problem in await render_everything(client, _ids_of(kitchen))]
    finally:
        await restarted.close()
    assert not failures, f"{len(failures)} of {len(cases_for(target))} cases failed:\n" + "\n".join(failures)


def _ids_of(kitchen: Kitchen) -> set[str]:
    snapshot = KitchenSnapshot(kitchen.db)
    try:
        return db_ids(snapshot.take())
    finally:
        snapshot.close()


@pytest.mark.sqlite_only
async def test_the_corpus_covers_every_tool_resource_and_prompt(kitchen_app: AlfredApp) -> None:
    """Every published contract (listed by default or on request), resource and prompt has its cases."""
    async with Client(build_server(kitchen_app)) as client:
        templates = {t.name for t in (await client.list_resource_templates()).resource_templates}
        resources = {r.name for r in (await client.list_resources()).resources}
        prompts = {p.name for p in (await client.list_prompts()).prompts}
    offered = set(load_contracts()) | {f"resource:{name}" for name in templates | resources} | {f"prompt:{name}" for name in prompts}
    assert set(all_targets()) == offered


@pytest.mark.parametrize("tool", sorted(BASES))
def test_each_base_call_fits_its_contract(tool: str) -> None:
    """The corpus mutates valid calls: a base that drifted from its contract would test nothing."""
    for base in BASES[tool]:
        load_contracts()[tool].check_arguments(base.args)


def _answering(action: str, asked: list[str]) -> Any:
    """A client's elicitation answer: `action` to every question (a yes confirms), each question kept."""
    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action=action, content={"confirm": True} if action == "accept" else None)  # type: ignore[arg-type]

    return answer


REMOVALS = ("db_delete", "kitchen_undo")


@pytest.mark.parametrize("target", REMOVALS)
async def test_a_client_that_confirms_removals_gets_the_same_answers(kitchen_app: AlfredApp, kitchen: Kitchen, target: str) -> None:
    """The question before a removal looks only at arguments the tool admits: with a client that declares
    elicitation (and says yes), every case of the removing tools is judged as without it."""
    kitchen_app.llm = scripted_model()
    asked: list[str] = []
    cases = cases_for(target)
    failures = await run_corpus(kitchen_app, kitchen, cases, elicitation=_answering("accept", asked))
    assert not failures, f"{len(failures)} of {len(cases)} cases failed:\n" + "\n".join(failures)
    assert len(asked) <= sum(case.expect == "accepted" for case in cases)


@pytest.mark.sqlite_only
async def test_a_removal_submitted_as_acts_tool_call_with_bad_arguments_asks_nothing_and_changes_nothing(
    kitchen_app: AlfredApp, kitchen: Kitchen
) -> None:
    """Every refused case of the removing tools, given as Act's tool call through turn_submit by a client that
    declares elicitation: the question is never asked, no call ends in an internal error, no row changes."""
    kitchen_app.llm = scripted_model()
    asked: list[str] = []
    snapshot = KitchenSnapshot(kitchen.db)
    refused = [case for target in REMOVALS for case in cases_for(target) if case.expect == "refused"]
    try:
        async with Client(build_server(kitchen_app), elicitation_callback=_answering("decline", asked)) as client:
            before = snapshot.take()
            for case in refused:
                request = kitchen.state.resolve(case.request)
                decision = {"action": "tool_call", "tool": request.tool, "arguments": request.args}
                outcome = await call(client, "turn_submit", {"role": "act", "output": decision})
                assert outcome.fields.get("code") != "internal_error", (case.label, outcome.text)
            assert snapshot.take() == before
    finally:
        snapshot.close()
    assert refused and asked == []
