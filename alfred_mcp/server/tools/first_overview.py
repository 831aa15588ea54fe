"""A stage client's first answer of a session carries a compact overview of the kitchen, once.

A client that sends Understand's and Think's outputs ahead (the cheapest route) never reads Think's context, so its
model plans and answers without the week's meals or the household: it plans a second dinner on a day that has one,
answers "what can I cook tonight" without tonight's planned meal. The first turn_start answer of a session whose
client was never sent the kitchen dashboard carries, under `kitchen`, the household and the meals planned next with
refs (the dashboard's own line, its cut marker saying how a turn shows the rest), and the profile's allergies, dislikes and
diet (`limits_line`), so what its model drafts or replies after it is informed. It is sent once a session (the
client memo records it), and only when Think's context is passed over: not while Understand or Think is expected next
(Think's context carries the dashboard).
"""

from __future__ import annotations

from datetime import date
from typing import Any

from alfred_mcp.operations.dashboard import build_dashboard
from alfred_mcp.operations.meal_servings import household_of
from alfred_mcp.operations.understanding import preferences_row
from alfred_mcp.session import UnitOfWork
from alfred_mcp.session.documents import CLIENT_MEMO
from alfred_mcp.state.client_memo import ClientMemo
from alfred_mcp.state.context import DASHBOARD_HEADING, dashboard_section, limits_line

KEY = "kitchen_overview"
"""The client memo's key for the overview sent."""
LINES = ("- Next meals",)
"""The dashboard's lines the overview carries."""
MEALS = 4
"""Meals it names (the dashboard's line says how many more are planned; MORE_MEALS how a stage client reads them)."""
READ_MEALS = "read meal_plans"
"""How the dashboard's line says to read the meals it leaves out: a tool a stage client calls only inside a turn."""
MORE_MEALS = "a turn's read step shows them, e.g. turn_start 'show my meal plan'"
"""What the overview says instead."""


HEAD = "Your kitchen (sent once a session):"


async def with_first_overview(work: UnitOfWork, answer: dict[str, Any], *, today: date) -> dict[str, Any]:
    """`answer` with the overview under `kitchen`, for a session's client that has neither it nor the dashboard and is
    not about to read Think's context."""
    memo = work.session.read(CLIENT_MEMO) or ClientMemo()
    if KEY in memo.sent or DASHBOARD_HEADING in memo.sections or answer.get("expected_role") in ("understand", "think"):
        return answer
    dashboard = dashboard_section(await build_dashboard(work, today=today, meals=MEALS))
    profile = await preferences_row(work.store, work.user_id)
    found, limits = household_of(profile), limits_line(profile)
    lines = [*([f"- Household: {found.described} (meals default to {found.servings} servings)"] if found else []),
             *([f"- {limits}"] if limits else []),
             *(line.replace(READ_MEALS, MORE_MEALS) for line in dashboard.splitlines() if line.startswith(LINES))]
    if not lines:
        return answer
    text = "\n".join([HEAD, *lines])
    memo.remember(KEY, text, work.session.turn)
    work.session.write(CLIENT_MEMO, memo)
    return {**answer, "kitchen": text}
