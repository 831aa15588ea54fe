"""A write step whose batch names existing rows completes when its writes handle them: a row created that refers to
the item (for every foreign key of every table: a meal planned with the recipe, a task for the meal, a pantry line
of a catalog ingredient), a draft saved that names it, the item updated or deleted; any item of the batch, a saved
row's ref as well as a draft's, can be skipped with batch_skip. A pending item's refusal says what handles it.
(Scripted model, real store, the real MCP client.)
"""

from __future__ import annotations

from typing import Any

import pytest
from e2e.helpers import call, eq
from mcp import Client

from alfred_mcp.agent.llm.scripted import ScriptedLLM
from alfred_mcp.app import AlfredApp
from alfred_mcp.contracts import load_contracts
from alfred_mcp.kitchen.schema import TABLES, Table
from alfred_mcp.state.batch import BatchManifest

pytestmark = pytest.mark.anyio

WRITABLE = set(load_contracts()["db_create"].input_schema["properties"]["table"]["enum"])
FOREIGN_KEYS = [(table, column.name, column.fk.table) for table in TABLES.values() if table.name in WRITABLE
                for column in table.fk_columns if column.fk is not None]
SAMPLES = {"text": "x", "int": 1, "numeric": 1, "bool": False, "date": "2026-03-02", "timestamp": "2026-03-02T10:00:00Z"}


def tool(name: str, **arguments: Any) -> dict[str, Any]:
    return {"decision": {"action": "tool_call", "tool": name, "arguments": arguments}}


def complete(summary: str) -> dict[str, Any]:
    return {"decision": {"action": "step_complete", "result_summary": summary}}


def write_step(table: Table, *batch: str) -> dict[str, Any]:
    return {"description": f"Write {table.noun}s", "step_type": "write", "subdomain": table.subdomain,
            "batch": [{"ref": ref} for ref in batch]}


async def first_ref(client: Client, table: str) -> str:
    """The ref of a row of `table` (created when the demo kitchen has none, as its cooking log)."""
    rows = (await call(client, "db_read", table=table, limit=1))["rows"]
    if not rows:
        rows = (await call(client, "db_create", table=table, data=await row_referring_to(client, TABLES[table], "", "")))["rows"]
    return str(rows[0]["id"])


async def row_referring_to(client: Client, table: Table, column: str, ref: str) -> dict[str, Any]:
    """A valid new row of `table` whose `column` is `ref`, other required columns filled (foreign keys with real refs)."""
    row: dict[str, Any] = {}
    for other in table.writable_columns:
        if other.name == column:
            row[column] = ref
        elif other.required_on_create and other.fk is not None:
            row[other.name] = await first_ref(client, other.fk.table)
        elif other.required_on_create:
            row[other.name] = other.enum[0] if other.enum else SAMPLES.get(other.type, "x")
    return row


async def run_turn(app: AlfredApp, client: Client, plan_steps: list[dict[str, Any]], act: list[dict[str, Any]]) -> dict[str, Any]:
    app.llm = ScriptedLLM({
        "understand": [{"referenced_refs": []}],
        "think": [{"goal": "Write them", "decision": "plan_direct", "steps": plan_steps}],
        "act": act, "reply": [{"response": "Done."}]})
    return await call(client, "chat", message="do it")


async def step_batch(client: Client) -> BatchManifest:
    state = (await call(client, "turn_status"))["state"]
    batches = {str(b["step"]): b for b in (await call(client, "turn_status"))["batches"]}
    return BatchManifest.from_dict(batches[state["steps"][0]["batch"]])


@pytest.mark.parametrize(("table", "column", "parent"), FOREIGN_KEYS, ids=[f"{t.name}.{c}" for t, c, _ in FOREIGN_KEYS])
async def test_a_row_created_that_refers_to_an_item_handles_it(
    app: AlfredApp, client: Client, table: Table, column: str, parent: str
) -> None:
    item = await first_ref(client, parent)
    row = await row_referring_to(client, table, column, item)
    result = await run_turn(app, client, [write_step(table, item)], [tool("db_create", table=table.name, data=row), complete("written")])
    assert result["outcome"] == "completed", result["reply"]
    manifest = await step_batch(client)
    (done,) = manifest.items
    assert done.status == "completed" and done.result_ref is not None and done.result_ref.startswith(table.entity_type + "_")
    assert manifest.action != "created"  # recipe_1 was not created: 'planned', 'given a task', ...
    assert manifest.action == "planned" or table.name != "meal_plans"


@pytest.mark.parametrize("tool_name", ["db_update", "db_delete"])
@pytest.mark.parametrize("table", [t for t in TABLES.values() if t.name in WRITABLE and t.name != "preferences"], ids=lambda t: t.name)
async def test_an_item_updated_or_deleted_is_handled(app: AlfredApp, client: Client, table: Table, tool_name: str) -> None:
    item = await first_ref(client, table.name)
    text = next(c.name for c in table.writable_columns if c.type == "text" and c.enum is None and c.fk is None)
    arguments: dict[str, Any] = {"table": table.name, "filters": [eq("id", item)]}
    if tool_name == "db_update":
        arguments["data"] = {text: "changed"}
    result = await run_turn(app, client, [write_step(table, item)], [tool(tool_name, **arguments), complete("written")])
    assert result["outcome"] == "completed", result["reply"]
    assert [(i.ref, i.status) for i in (await step_batch(client)).items] == [(item, "completed")]


async def test_a_saved_draft_that_names_an_item_handles_it(app: AlfredApp, client: Client) -> None:
    recipe = await first_ref(client, "recipes")
    meal = {"date": "2026-03-02", "meal_type": "dinner", "recipe": recipe}
    result = await run_turn(app, client, [
        {"description": "Draft the meal", "step_type": "generate", "subdomain": "meal_plans", "expected_count": 1},
        write_step(TABLES["meal_plans"], recipe)],
        [tool("draft_create", entity_type="meal", items=[meal]), complete("drafted"),
         tool("draft_save", refs=["gen_meal_1"]), complete("saved")])
    assert result["outcome"] == "completed", result["reply"]
    state = (await call(client, "turn_status"))["state"]
    batches = {str(b["step"]): b for b in (await call(client, "turn_status"))["batches"]}
    (item,) = BatchManifest.from_dict(batches[state["steps"][1]["batch"]]).items
    assert item.ref == recipe and item.status == "completed" and (item.result_ref or "").startswith("meal_")


@pytest.mark.parametrize("table", [t for t in TABLES.values() if t.name != "preferences"], ids=lambda t: t.name)
async def test_batch_skip_takes_a_saved_rows_ref_of_the_steps_batch(app: AlfredApp, client: Client, table: Table) -> None:
    recipe, skipped = await first_ref(client, "recipes"), await first_ref(client, table.name)
    meal = {"date": "2026-03-02", "meal_type": "dinner", "recipe_id": recipe}
    items = [recipe] if skipped == recipe else [recipe, skipped]
    act = [tool("db_create", table="meal_plans", data=meal),
           *([tool("batch_skip", batch="batch_1", refs=[skipped], reason="not wanted")] if skipped != recipe else []),
           complete("planned")]
    result = await run_turn(app, client, [write_step(TABLES["meal_plans"], *items)], act)
    assert result["outcome"] == "completed", result["reply"]
    statuses = {i.ref: i.status for i in (await step_batch(client)).items}
    assert statuses == {recipe: "completed", **({skipped: "skipped"} if skipped != recipe else {})}


async def test_a_pending_item_is_refused_saying_what_handles_it(app: AlfredApp, client: Client) -> None:
    recipe = await first_ref(client, "recipes")
    app.llm = ScriptedLLM({
        "understand": [{"referenced_refs": []}],
        "think": [{"goal": "Plan it", "decision": "plan_direct", "steps": [write_step(TABLES["meal_plans"], recipe)]}],
        "act": [complete("planned"), {"decision": {"action": "blocked", "reason_code": "tool_failure", "reason": "stuck"}}],
        "reply": [{"response": "I could not plan it."}]})
    await call(client, "chat", message="plan it")
    refused = " ".join((await call(client, "turn_status"))["state"]["steps"][0]["refused"])
    assert recipe in refused and "creating a row that refers to it" in refused and "batch_skip" in refused
