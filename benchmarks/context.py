"""Issue 4 benchmarks: role context size over a long session, and the cost of building one.

context_growth drives a scripted 50-turn session through the real MCP client (messages,
understanding, reads, searches, writes, replies) and compares Think's context at turn 50 with
turn 5; a naive prompt holding the full history is measured beside it. context_build times the
pure builders at turn 50 with 1,000 refs, from the session's JSON documents to the text.
"""

from __future__ import annotations

import tempfile
from datetime import date
from pathlib import Path
from typing import Any

from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings
from alfred_mcp.operations import history
from alfred_mcp.operations.role_context import context_inputs
from alfred_mcp.operations.seeding import seed
from alfred_mcp.server.mcp_server import build_server
from alfred_mcp.session.documents import NARRATIVES
from alfred_mcp.state.call_log import CallRecord
from alfred_mcp.state.constraints import (
    Constraint,
    ConstraintSnapshot,
    PermanentConstraints,
    SessionConstraints,
    compile_constraints,
    merge_constraints,
)
from alfred_mcp.state.context import DEFAULT_CONFIG, ROLES, ContextInputs, StepView, build_context, naive_history
from alfred_mcp.state.conversation import ConversationHistory, record_reply, record_user_message
from alfred_mcp.state.curation import CurationState, EntityCuration, RetentionDecision, apply_curation
from alfred_mcp.state.folding import fold_line
from alfred_mcp.state.narrative import TurnExecutionSummary, narrative_line, summarize_turn
from alfred_mcp.state.registry import RefEntry
from alfred_mcp.state.understanding import NarrativeIndex
from alfred_mcp.state.working_set import DraftView

from .timing import median_seconds, report

TODAY = date(2026, 1, 12)
TURNS = 50
EARLY, LATE = 5, 50
TOPICS = ["fish", "poultry", "legumes", "pasta", "leafy greens", "cheese", "red meat", "mushrooms"]


def _message(turn: int) -> str:
    topic = TOPICS[turn % len(TOPICS)]
    return f"Turn {turn}: could you show me some {topic} recipes that work for a weeknight, nothing too fancy please?"


def _reply(turn: int) -> str:
    topic = TOPICS[turn % len(TOPICS)]
    return (f"Here are the {topic} recipes I found for turn {turn}. Two of them fit a weeknight and use what is "
            "already in your pantry; the third needs a quick shop. Want me to plan one of them for tomorrow, or "
            "should I look for something lighter instead?")


def _snapshot(turn: int) -> dict[str, Any]:
    topic = TOPICS[turn % len(TOPICS)]
    return {"new_constraints": [{"type": "ingredient_required", "field": "main", "value": topic}],
            "goal_update": f"{topic} dinners", "goal_subdomain": "recipes"}


async def _think_size(app: AlfredApp) -> tuple[int, int]:
    """Think's context size now, and the size of the naive full-history prompt for the same session."""
    async with app.work("benchmark") as work:
        session = work.session
        inputs = await context_inputs(work, today=TODAY)
        context = build_context("think", inputs)
        talk = history.conversation_of(session)
        narratives = [n for t in range(1, session.turn) if (n := session.read(NARRATIVES.at(t))) is not None]
        messages = _all_messages(session, talk)
        naive = naive_history(messages, narratives, session.registry.entries())
        return context.size, len(naive) + len(context.section("profile")) + len(context.section("dashboard"))


def _all_messages(session: Any, history: ConversationHistory) -> list[tuple[str | None, str | None]]:
    """Every exchange of the session (the benchmark's script is replayed, since older ones are folded)."""
    return [(_message(t), _reply(t)) for t in range(2, session.turn)] + [(e.user, e.assistant) for e in history.recent[-1:]]


async def _play_turn(client: Client, turn: int) -> None:
    calls = [
        ("recipes_search", {"category": TOPICS[turn % len(TOPICS)], "honor_constraints": False}),
        ("db_read", {"table": "inventory", "limit": 8, "filters": [{"field": "location", "op": "eq",
                                                                        "value": ("fridge", "pantry", "cabinet")[turn % 3]}]}),
    ]
    if turn % 4 == 0:
        calls.append(("db_create", {"table": "tasks", "data": {"title": f"Prep for turn {turn}"}}))
    for tool, arguments in calls:
        result = await client.call_tool(tool, arguments)
        assert not result.is_error, result.content


async def context_growth() -> dict[str, object]:
    """Think's context at turn 50 vs turn 5 of a scripted session, with the naive full-history ratio beside it."""
    sizes: dict[int, tuple[int, int]] = {}
    with tempfile.TemporaryDirectory() as folder:
        app = AlfredApp.from_settings(Settings(db=str(Path(folder) / "bench.db"), seed_demo=False))
        await app.open()
        await seed(app.store, app.user_id, today=TODAY)
        try:
            async with Client(build_server(app)) as client:
                first = await client.call_tool("turn_begin", {"message": _message(1)})  # a fresh session's first message stays turn 1
                assert first.structured_content["turn"] == 1
                for turn in range(2, TURNS + 1):
                    begun = await client.call_tool("turn_begin", {"message": _message(turn)})
                    assert begun.structured_content["turn"] == turn
                    await client.call_tool("understanding_submit", {"message": _message(turn), "constraint_snapshot": _snapshot(turn)})
                    if turn in (EARLY, LATE):
                        sizes[turn] = await _think_size(app)
                    await _play_turn(client, turn)
                    await client.call_tool("turn_reply", {"response": _reply(turn)})
        finally:
            await app.close()
    (early, naive_early), (late, naive_late) = sizes[EARLY], sizes[LATE]
    return report(late / early, 1.3, naive_ratio=round(naive_late / naive_early, 3), chars_turn_5=early,
                  chars_turn_50=late, naive_chars_turn_5=naive_early, naive_chars_turn_50=naive_late)


# -- context_build ----------------------------------------------------------------------------


def _documents(refs: int = 1_000, turn: int = LATE) -> dict[str, Any]:
    """A turn-50 session as its JSON documents: registry entries, curation, constraints, narratives, conversation."""
    per_turn = refs // turn
    entries = [
        RefEntry(f"recipe_{n}" if n % 3 else f"inv_{n}", "recipe" if n % 3 else "inv", f"row-{n}", f"Item number {n}",
                 "read", 1 + n // per_turn, min(turn, 1 + n // per_turn))
        for n in range(1, refs + 1)
    ]
    known = {e.ref for e in entries}
    curation = CurationState()
    for t in range(turn - 10, turn):
        decision = EntityCuration(retain_active=[RetentionDecision(ref=f"recipe_{t * 7 + 1}", reason="part of the plan")],
                                  demote=[f"recipe_{t * 11 + 2}"], curation_summary="kept the plan")
        curation = apply_curation(curation, decision, turn=t, known_refs=known)
    history = ConversationHistory()
    index = NarrativeIndex()
    narratives: dict[str, Any] = {}
    for t in range(1, turn + 1):
        history = record_reply(record_user_message(history, t, _message(t)), t, _reply(t))
        calls = [CallRecord(turn=t, tool="db_read", table="recipes", action="read", refs=[f"recipe_{t * 3 + k}" for k in range(1, 3)], count=2)] * 4
        summary = summarize_turn(t, calls, user_message=_message(t), reply=_reply(t))
        narratives[f"narrative:{t}"] = summary.model_dump(mode="json", exclude_defaults=True)
        whole = [*index.whole, t]
        folded = index.folded
        if len(whole) > DEFAULT_CONFIG.narrative_turns:
            old = TurnExecutionSummary.model_validate(narratives[f"narrative:{whole.pop(0)}"])
            folded = fold_line(folded, narrative_line(old), turn=old.turn, cap=DEFAULT_CONFIG.narrative_chars)
        index = NarrativeIndex(whole=whole, folded=folded)
    constraints = merge_constraints(
        SessionConstraints(permanent=PermanentConstraints(allergies=["peanuts"], dislikes=["olives"])),
        ConstraintSnapshot(new_constraints=[Constraint(type="ingredient_required", field="protein", value="cod")]), turn=turn,
    ).constraints
    return {
        "entries": entries, "curation": curation.to_dict(), "conversation": history.model_dump(mode="json"),
        "narrative_digest": index.model_dump(mode="json"), "constraints": constraints.model_dump(mode="json"), **narratives,
    }


PROFILE = {"allergies": ["peanuts"], "disliked_ingredients": ["olives"], "available_equipment": ["oven", "air-fryer"],
           "favorite_cuisines": ["italian", "thai"], "cooking_skill_level": "beginner", "household_adults": 2}
DASHBOARD = {"counts": {"recipes": 340, "inventory": 660}, "recipes_by_cuisine": {"thai": 40, "italian": 60},
             "expiring_soon": [{"ref": "inv_3", "label": "milk", "expiry_date": "2026-01-13"}], "next_meals": []}


def _inputs(docs: dict[str, Any], turn: int = LATE) -> ContextInputs:
    """What role_context.context_inputs does after its store reads: parse the documents into values."""
    index = NarrativeIndex.model_validate(docs["narrative_digest"])
    return ContextInputs(
        turn=turn, user_message=_message(turn), entries=docs["entries"],
        curation=CurationState.from_dict(docs["curation"]),
        constraints=compile_constraints(SessionConstraints.model_validate(docs["constraints"])),
        drafts=[DraftView(f"gen_recipe_{n}", "recipe", f"Draft {n}") for n in range(1, 4)],
        narratives=[TurnExecutionSummary.model_validate(docs[f"narrative:{t}"]) for t in index.whole],
        narrative_digest=index.folded,
        conversation=ConversationHistory.model_validate(docs["conversation"]),
        profile=PROFILE, dashboard=DASHBOARD, today=TODAY.isoformat(),
    )


def context_build(repeat: int = 200) -> dict[str, object]:
    """Milliseconds to build each role's context at turn 50 with 1,000 refs (documents parsed included)."""
    docs = _documents()
    per_role = {}
    for role in ROLES:
        step = StepView("write", "Save the drafts", "recipes", 2, 3) if role == "act" else None
        seconds = median_seconds(lambda role=role, step=step: build_context(role, _inputs(docs), step=step), repeat=repeat)
        per_role[role] = round(seconds * 1e3, 3)
    worst = max(per_role.values())
    return {"ms": worst, "target": 5, "ok": worst <= 5, "per_role_ms": per_role, "refs": len(docs["entries"]), "turn": LATE}
