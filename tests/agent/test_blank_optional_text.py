"""An empty string in an optional text field means none, in every draft kind and every kitchen row: draft_create
takes `unit: ""` ('salt and pepper, to taste') as no unit, db_create an empty optional column as null. A required
text left empty is still refused, naming it. Generated over every optional string field of the draft models and every
optional column of the writable tables, through the real MCP client. A refused call fixed later in its turn is told
as fixed in the turn's summary, not as an error standing."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from e2e.helpers import call, call_error
from mcp import Client
from pydantic import BaseModel

from alfred_mcp.app import AlfredApp
from alfred_mcp.kitchen.schema import TABLES
from alfred_mcp.server.mcp_server import build_server
from alfred_mcp.state.drafts import IngredientDraft, InventoryItemDraft, MealPlanDraft, RecipeDraft, ShoppingItemDraft, TaskDraft

pytestmark = pytest.mark.anyio

RECIPE = {"name": "Salted Toast", "servings": 1, "instructions": ["Toast the bread.", "Salt it."],
          "ingredients": [{"name": "bread", "quantity": 1, "unit": "slice"}]}
DRAFTS: dict[str, tuple[type[BaseModel], dict[str, Any]]] = {
    "recipe": (RecipeDraft, RECIPE),
    "meal": (MealPlanDraft, {"date": "2099-01-02", "meal_type": "dinner"}),
    "task": (TaskDraft, {"title": "Soak the beans"}),
    "shop": (ShoppingItemDraft, {"name": "eggs"}),
    "inv": (InventoryItemDraft, {"name": "eggs", "quantity": 6, "unit": "piece"}),
}


def _optional_strings(model: type[BaseModel]) -> list[str]:
    return [name for name, field in model.model_fields.items()
            if not field.is_required() and "str" in str(field.annotation) and "list" not in str(field.annotation)]


DRAFT_CASES = [(kind, name) for kind, (model, _) in DRAFTS.items() for name in _optional_strings(model)]
INGREDIENT_CASES = _optional_strings(IngredientDraft)
ROW_CASES = [(table.name, column.name) for table in TABLES.values() if table.user_owned for column in table.columns
             if column.type in ("text", "uuid") and column.writable and column.nullable and column.name != "id"]
"""Every column a row may leave empty (null), by table: preferences (one row a user, made with the kitchen) by update."""


@pytest.fixture
async def client(app: AlfredApp) -> AsyncIterator[Client]:
    async with Client(build_server(app)) as connected:
        yield connected


def test_the_cases_cover_the_fields_that_broke() -> None:
    assert "unit" in INGREDIENT_CASES and ("meal", "notes") in DRAFT_CASES and ("recipe_ingredients", "unit") in ROW_CASES


@pytest.mark.parametrize("field", INGREDIENT_CASES)
async def test_an_empty_optional_ingredient_text_is_none(client: Client, field: str) -> None:
    line = {"name": "salt and pepper", field: ""}
    drafted = await call(client, "draft_create", entity_type="recipe", items=[{**RECIPE, "ingredients": [*RECIPE["ingredients"], line]}])
    assert drafted["drafts"][0]["ref"].startswith("gen_recipe_")
    shown = await call(client, "draft_read", refs=[drafted["drafts"][0]["ref"]])
    assert shown["drafts"][0]["content"]["ingredients"][-1][field] is None


@pytest.mark.parametrize(("kind", "field"), DRAFT_CASES)
async def test_an_empty_optional_draft_text_is_none(client: Client, kind: str, field: str) -> None:
    drafted = await call(client, "draft_create", entity_type=kind, items=[{**DRAFTS[kind][1], field: ""}])
    shown = await call(client, "draft_read", refs=[drafted["drafts"][0]["ref"]])
    assert shown["drafts"][0]["content"][field] is None


@pytest.mark.parametrize(("table", "column"), ROW_CASES)
async def test_an_empty_optional_row_text_is_stored_as_none(client: Client, table: str, column: str) -> None:
    await call(client, "db_read", table="recipes", limit=1)
    await call(client, "db_read", table="meal_plans", limit=1)
    if table == "preferences":
        await call(client, "db_read", table="preferences")
        created = await call(client, "db_update", table=table, filters=[{"field": "id", "op": "eq", "value": "pref_1"}], data={column: ""})
    else:
        required = {name: _sample(table, name) for name in (c.name for c in TABLES[table].columns if c.required_on_create)}
        created = await call(client, "db_create", table=table, data={**required, column: ""})
    assert created["rows"][0].get(column) is None


async def test_an_empty_required_text_is_still_refused_naming_it(client: Client) -> None:
    refused = await call_error(client, "db_create", table="tasks", data={"title": ""})
    assert "title" in refused["message"]
    refused = await call_error(client, "draft_create", entity_type="task", items=[{"title": " "}])
    assert "title" in refused["message"]


def _sample(table: str, column: str) -> Any:
    """A value each required column takes (the session's first ref of the table a foreign key names)."""
    spec = TABLES[table].column(column)
    if spec.enum:
        return spec.enum[0]
    if spec.fk is not None:
        return f"{TABLES[spec.fk.table].entity_type}_1"
    return {"date": "2099-01-02", "int": 1, "numeric": 1, "bool": False}.get(spec.type, "x")


async def test_a_refused_call_fixed_later_in_the_turn_is_told_as_fixed_not_as_an_error_standing(client: Client) -> None:
    await call(client, "turn_start", message="Draft a task to soak the beans")
    await call(client, "turn_submit", role="understand", output={})
    await call(client, "turn_submit", role="think", output={"goal": "g", "decision": "plan_direct", "steps": [
        {"description": "draft it", "step_type": "generate", "subdomain": "tasks", "expected_count": 1}]})
    failed = await call(client, "turn_submit", role="act", output={"decision": {
        "action": "tool_call", "tool": "draft_create", "arguments": {"entity_type": "task", "items": [{"due_date": "soon"}]}}})
    assert "draft_create failed" in failed["notice"]
    fixed = await call(client, "turn_submit", role="act", output={"decision": {
        "action": "tool_call", "tool": "draft_create", "arguments": {"entity_type": "task", "items": [{"title": "Soak the beans"}]},
        "complete_step": True}})
    assert fixed["expected_role"] == "reply", fixed.get("notice")
    done = await call(client, "turn_submit", role="reply", output={"response": "I drafted a task to soak the beans; it is not saved yet."})
    summary = done["summary"] if isinstance(done["summary"], str) else done["summary"]["summary"]
    assert "1 refused call fixed" in summary and "error" not in summary, summary
