"""A stage client's first answer of a session carries a compact overview of the kitchen, once.

A client that sends Understand's and Think's outputs ahead (the cheapest route) never reads Think's context, so its
model plans and answers without the week's meals or the household: it plans a second dinner on a day that has one,
answers "what can I cook tonight" without tonight's planned meal. The first turn_start answer of a session whose
client was never sent the kitchen dashboard carries, under `kitchen`, the household, the profile's allergies, dislikes
and diet (`limits_line`), the meals planned next with refs (the dashboard's own line, its cut marker saying how a turn
shows the rest), what to use soon, and the saved recipes by name (a name works where a ref is asked): the facts a
later turn decides from, so its model can send the whole turn ahead ("plan something else with chicken" names the
recipe). What the same answer's notice shows is not repeated: a meal it shows is named by its ref only, a recipe it
names is left out. It is sent once a session (the client memo records it), and only when Think's context is passed
over: not while Understand or Think is expected next (Think's context carries the dashboard).
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from alfred_mcp.kitchen.query import OrderBy, Query
from alfred_mcp.kitchen.schema import RECIPES
from alfred_mcp.operations.dashboard import Dashboard, build_dashboard
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
MORE_MEALS = "a turn's read step shows them"
"""What the overview says instead."""


HEAD = "Your kitchen (sent once a session):"
RECIPES_NAMED = 15
"""Saved recipes the overview names (the rest counted, and how to find them)."""
USE_SOON = 5
"""Items to use soon (expiring, or past their date) it names."""


async def with_first_overview(work: UnitOfWork, answer: dict[str, Any], *, today: date) -> dict[str, Any]:
    """`answer` with the overview under `kitchen`, for a session's client that has neither it nor the dashboard and is
    not about to read Think's context."""
    memo = work.session.read(CLIENT_MEMO) or ClientMemo()
    if KEY in memo.sent or DASHBOARD_HEADING in memo.sections or answer.get("expected_role") in ("understand", "think"):
        return answer
    shown = str(answer.get("notice") or "")
    dashboard = await build_dashboard(work, today=today, meals=MEALS)
    dashboard["next_meals"] = [{**meal, "label": "(in the notice)", "recipe": None} if _shows(shown, meal["ref"]) else meal
                               for meal in dashboard["next_meals"]]
    profile = await preferences_row(work.store, work.user_id)
    found, limits = household_of(profile), limits_line(profile)
    lines = [*([f"- Household: {found.described} (meals default to {found.servings} servings)"] if found else []),
             *([f"- {limits}"] if limits else []),
             *(line.replace(READ_MEALS, MORE_MEALS) for line in dashboard_section(dashboard).splitlines() if line.startswith(LINES)),
             *_use_soon(dashboard)]
    lines += await _recipes(work, "\n".join([shown, *lines]))
    if not lines:
        return answer
    text = "\n".join([HEAD, *lines])
    memo.remember(KEY, text, work.session.turn)
    work.session.write(CLIENT_MEMO, memo)
    return {**answer, "kitchen": text}


def _shows(notice: str, ref: str) -> bool:
    """Whether `notice` names `ref` (not a longer ref that starts with it: meal_1 is not meal_12)."""
    return re.search(rf"\b{re.escape(ref)}\b", notice) is not None


def _use_soon(dashboard: Dashboard) -> list[str]:
    """'- Use soon: salmon fillets Nov 28, avocado Nov 29 (+2 more); Past their date: milk Nov 26': by name and day."""
    parts = []
    for items, total, words in ((dashboard["expiring_soon"], dashboard["expiring_soon_total"], "Use soon"),
                                (dashboard["expired"], dashboard["expired_total"], "Past their date")):
        named = ", ".join(f"{item['label']} {date.fromisoformat(item['expiry_date']):%b} "
                          f"{date.fromisoformat(item['expiry_date']).day}" for item in items[:USE_SOON])
        if named:
            parts.append(f"{words}: {named}" + (f" (+{total - min(len(items), USE_SOON)} more)" if total > min(len(items), USE_SOON) else ""))
    return [f"- {'; '.join(parts)}"] if parts else []


async def _recipes(work: UnitOfWork, shown: str) -> list[str]:
    """'- Recipes besides those above: Chicken Fajitas, …': the saved recipes by name that `shown` (the notice,
    the overview's lines before) does not name (none left: no line)."""
    rows = await work.store.select(RECIPES, Query(columns=("name",), order_by=(OrderBy("name"),)), user_id=work.user_id)
    names = [str(row["name"]) for row in rows if row.get("name") and str(row["name"]) not in shown]
    if not names:
        return []
    more = len(names) - RECIPES_NAMED
    rest = f" (+{more} more: recipes_search)" if more > 0 else ""
    return [f"- Recipes besides those above: {', '.join(names[:RECIPES_NAMED])}{rest}"]
