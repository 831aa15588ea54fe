"""What the user said stays ('leave the chicken for now') is held and enforced through the real server: a delete of
it is refused naming the row and the user's words, changing nothing, on every table a row can be named on; the
statement is held whether the model stated it or the user's words said it in a fixed form; an override, a drop or a
reset releases it as any other constraint, and one about a ref keeps that row only."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from mcp import Client, types

from alfred_mcp.app import AlfredApp
from alfred_mcp.server.mcp_server import build_server

from .helpers import call, call_error

pytestmark = pytest.mark.anyio

ROWS: dict[str, dict[str, Any]] = {
    "recipes": {"name": "Roast Chicken Thighs", "servings": 2, "instructions": ["Roast."]},
    "inventory": {"name": "chicken thighs", "quantity": 2, "unit": "lb"},
    "shopping_list": {"name": "chicken thighs", "quantity": 2, "unit": "lb"},
    "tasks": {"title": "Defrost the chicken"},
}
"""A row named for chicken on each table people name, as db_create takes it (meals are planned below)."""
KEEP = {"type": "keep", "field": "stays", "value": "chicken"}


async def _row(client: Client, table: str) -> str:
    """A chicken row of `table`, by ref (a meal plans a chicken recipe for Saturday dinner)."""
    if table != "meal_plans":
        return str((await call(client, "db_create", table=table, data=ROWS[table]))["rows"][0]["id"])
    recipe = await _row(client, "recipes")
    meal = await call(client, "db_create", table="meal_plans", data={"date": "2026-11-28", "meal_type": "dinner", "recipe_id": recipe})
    return str(meal["rows"][0]["id"])


async def _delete(client: Client, table: str, ref: str) -> tuple[bool, dict[str, Any]]:
    """(refused, the error's fields or the result)."""
    arguments = {"table": table, "filters": [{"field": "id", "op": "eq", "value": ref}]}
    result = await client.call_tool("db_delete", arguments)
    if result.is_error:
        return True, await call_error(client, "db_delete", **arguments)
    return False, result.structured_content or {}


async def _said_by_the_user(client: Client) -> None:
    await call(client, "understanding_submit", message="Leave the chicken for now. What can I cook tonight?")


async def _stated_by_the_model(client: Client) -> None:
    await call(client, "understanding_submit", message="hold on to that one",
               constraint_snapshot={"new_constraints": [KEEP], "source_phrases": ["hold on to that one"]})


HOW: dict[str, Callable[[Client], Awaitable[None]]] = {"user's words": _said_by_the_user, "model's snapshot": _stated_by_the_model}
TABLES = ["meal_plans", *ROWS]


@pytest.mark.parametrize("how", list(HOW))
@pytest.mark.parametrize("table", TABLES)
async def test_a_delete_of_what_the_user_said_stays_is_refused_naming_it_and_changes_nothing(client: Client, table: str, how: str) -> None:
    ref = await _row(client, table)
    await HOW[how](client)
    refused, error = await _delete(client, table, ref)
    assert refused and error["code"] == "kept_row", error
    assert ref in error["message"] and "keep chicken" in error["message"] and "Nothing was deleted" in error["message"]
    rows = await call(client, "db_read", table=table, filters=[{"field": "id", "op": "eq", "value": ref}])
    assert [row["id"] for row in rows["rows"]] == [ref]


RELEASES: dict[str, dict[str, Any]] = {
    "dropped": {"drop": ["keep chicken"]},
    "overridden": {"overrides": [{**KEEP, "value": "salmon"}]},
    "reset": {"reset_all": True},
}


@pytest.mark.parametrize("release", list(RELEASES))
@pytest.mark.parametrize("table", TABLES)
async def test_once_the_user_lets_it_go_the_delete_goes_through(client: Client, table: str, release: str) -> None:
    ref = await _row(client, table)
    await _said_by_the_user(client)
    await call(client, "understanding_submit", message="ok, it can go", constraint_snapshot=RELEASES[release])
    refused, result = await _delete(client, table, ref)
    assert not refused and [row["id"] for row in result["rows"]] == [ref], result


async def test_the_compiled_constraints_say_what_stays(client: Client) -> None:
    compiled = (await call(client, "understanding_submit", message="Leave the chicken for now."))["constraints"]
    assert compiled["keep"] == ["chicken"]
    assert "- Keep (never delete): chicken" in (await call(client, "constraints_read"))["markdown"]


async def test_one_about_a_ref_keeps_that_row_and_the_meals_planning_it_only(client: Client) -> None:
    kept, other = await _row(client, "recipes"), await _row(client, "recipes")
    meal = await call(client, "db_create", table="meal_plans", data={"date": "2026-11-29", "meal_type": "lunch", "recipe_id": kept})
    await call(client, "understanding_submit", message="keep that one", referenced_refs=[kept],
               constraint_snapshot={"new_constraints": [{**KEEP, "about": kept}]})
    for table, ref in (("recipes", kept), ("meal_plans", str(meal["rows"][0]["id"]))):
        refused, error = await _delete(client, table, ref)
        assert refused and error["code"] == "kept_row", error
    refused, result = await _delete(client, "recipes", other)
    assert not refused, result


async def test_a_delete_of_other_rows_is_not_stopped(client: Client) -> None:
    task = str((await call(client, "db_create", table="tasks", data={"title": "Buy salmon"}))["rows"][0]["id"])
    await _said_by_the_user(client)
    refused, result = await _delete(client, "tasks", task)
    assert not refused, result


async def test_a_drop_naming_what_stays_is_checked_like_any_other(client: Client) -> None:
    await _said_by_the_user(client)
    error = await call_error(client, "understanding_submit", message="forget it", constraint_snapshot={"drop": ["keep salmon"]})
    assert error["field"] == "constraint_snapshot.drop[0]" and "keep chicken" in error["message"]


async def test_a_host_that_confirms_deletes_is_never_asked_about_a_kept_row(app: AlfredApp) -> None:
    """A recipe delete is asked about first (elicitation); one the user said stays is refused without a question."""
    asked: list[str] = []

    async def answer(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"confirm": True})

    async with Client(build_server(app), elicitation_callback=answer) as client:
        ref = await _row(client, "recipes")
        await _said_by_the_user(client)
        refused, error = await _delete(client, "recipes", ref)
        assert refused and error["code"] == "kept_row" and asked == []
