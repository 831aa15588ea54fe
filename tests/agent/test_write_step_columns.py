"""A write step's context gives the columns of its subdomain's tables (names, types, required, allowed values), so
Act need not call describe_table; a stage client is sent them once a session. Generated over every subdomain a
write step may name, from the kitchen schema."""

from __future__ import annotations

from typing import Any

import pytest
from e2e.helpers import call
from mcp import Client

from alfred_mcp.kitchen.schema import TABLES
from alfred_mcp.state.context import DEFAULT_BUDGETS, ContextInputs, StepView, build_context
from alfred_mcp.state.table_columns import COLUMNS_HEADING, subdomain_tables

pytestmark = pytest.mark.anyio
SUBDOMAINS = sorted({table.subdomain for table in TABLES.values() if table.name != "ingredients"})


async def _to_write_step(client: Client, subdomain: str, message: str) -> dict[str, Any]:
    await call(client, "turn_start", message=message)
    await call(client, "turn_submit", role="understand", output={})
    answer = await call(client, "turn_submit", role="think", output={"goal": "Write it", "decision": "plan_direct", "steps": [
        {"description": f"Write to {subdomain}", "step_type": "write", "subdomain": subdomain}]})
    return dict(answer["next"])


@pytest.mark.parametrize("subdomain", SUBDOMAINS)
def test_a_write_steps_context_has_every_writable_column_of_its_tables(subdomain: str) -> None:
    context = build_context("act", ContextInputs(turn=1), step=StepView("write", subdomain=subdomain))
    section = context.section("columns")
    assert context.size <= DEFAULT_BUDGETS["act"] and section.startswith(COLUMNS_HEADING)
    for table in subdomain_tables(subdomain):
        (line,) = [text for text in section.splitlines() if text.startswith(f"{table.name}: ")]
        for column in table.columns:
            assert (f" {column.name}" in line or f"{table.name}: {column.name}" in line) == column.writable, (table.name, column.name)
            if column.writable and column.required_on_create:
                assert f"{column.name}*" in line
            for value in column.enum or ():
                assert str(value) in line


@pytest.mark.parametrize("kind", ["read", "analyze", "generate"])
def test_other_steps_have_no_columns(kind: str) -> None:
    assert build_context("act", ContextInputs(turn=1), step=StepView(kind, subdomain="tasks")).section("columns") == ""  # type: ignore[arg-type]


@pytest.mark.parametrize("subdomain", ["tasks", "shopping", "meal_plans"])
async def test_a_stage_client_is_sent_a_tables_columns_once_a_session(client: Client, subdomain: str) -> None:
    heading = f"{COLUMNS_HEADING} {', '.join(table.name for table in subdomain_tables(subdomain))}"
    first = await _to_write_step(client, subdomain, "add it")
    assert heading in first["context"]
    await call(client, "turn_abandon")
    later = await _to_write_step(client, subdomain, "add another")
    assert heading not in later["context"] and "As sent before" in later["context"]
