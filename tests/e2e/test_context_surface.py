"""Resources, prompts, completions, notifications and the context tools, through the real MCP client."""

from __future__ import annotations

import json
from typing import Any

import anyio
import pytest
from mcp import Client, MCPError
from mcp.shared.subscriptions import ResourceUpdated
from mcp.types import INVALID_PARAMS, PromptReference, ResourceTemplateReference

from alfred_mcp.app import AlfredApp
from alfred_mcp.contracts import load_contracts
from alfred_mcp.operations.dashboard import build_dashboard
from alfred_mcp.server.leak_guard import find_uuid
from alfred_mcp.server.mcp_server import AlfredServer
from alfred_mcp.server.resources import working_set_view
from alfred_mcp.state.compact_schema import compact_schema, without_limits, writable_shape
from alfred_mcp.state.constraints import ConstraintSnapshot
from alfred_mcp.state.curation import EntityCuration
from alfred_mcp.state.drafts import DRAFT_KINDS

from .conftest import TODAY
from .helpers import call, call_error

pytestmark = [pytest.mark.anyio, pytest.mark.both_eras]  # the subject is the protocol: both eras (tests/conftest.py)

SESSION_KINDS = ("working-set", "constraints", "narratives", "conversation", "decisions")
REF_TEMPLATE = ResourceTemplateReference(uri="alfred://session/{session}/ref/{ref}")


async def read_json(client: Client, uri: str) -> dict[str, Any]:
    """A JSON resource, checked for raw ids."""
    text = (await client.read_resource(uri)).contents[0].text
    assert find_uuid(text) is None, uri
    return json.loads(text)


async def prompt_text(client: Client, name: str, **arguments: str) -> str:
    result = await client.get_prompt(name, arguments)
    text = result.messages[0].content.text
    assert find_uuid(text) is None, name
    return text


async def test_resources_and_templates_are_listed(client: Client) -> None:
    static = {resource.uri for resource in (await client.list_resources()).resources}
    assert static == {"alfred://kitchen/dashboard", "alfred://taxonomy"}
    templates = {t.uri_template: t.mime_type for t in (await client.list_resource_templates()).resource_templates}
    assert templates == {
        **{f"alfred://session/{{session}}/{kind}": "application/json" for kind in SESSION_KINDS},
        "alfred://session/{session}/ref/{ref}": "application/json",
        "alfred://session/{session}/turns/{turn}": "application/json",
        "alfred://session/{session}/batches/{batch}": "application/json",
        "alfred://kitchen/schema/{table}": "text/markdown",
    }


async def test_every_resource_reads_refs_only(client: Client) -> None:
    recipes = await call(client, "db_read", table="recipes", limit=3)
    await call(client, "understanding_submit", message="show me cod", referenced_refs=[recipes["rows"][0]["id"]],
               curation={"retain_active": [{"ref": recipes["rows"][1]["id"], "reason": "the user liked it"}]})
    for name in ("current", "session_1"):
        for kind in SESSION_KINDS:
            payload = await read_json(client, f"alfred://session/{name}/{kind}")
            assert payload["session"] == "session_1" and payload["turn"] == 1
    working = await read_json(client, "alfred://session/current/working-set")
    assert [line["ref"] for line in working["recent"]] == [row["id"] for row in recipes["rows"]]
    decisions = await read_json(client, "alfred://session/current/decisions")
    assert decisions["retained"] == {recipes["rows"][1]["id"]: {"reason": "the user liked it", "turn": 1}}
    dashboard = await read_json(client, "alfred://kitchen/dashboard")
    assert dashboard["counts"]["recipes"] == 11 and dashboard["counts"]["inventory"] == 49
    assert all(meal["ref"].startswith("meal_") for meal in dashboard["next_meals"])
    taxonomy = await read_json(client, "alfred://taxonomy")
    assert "cod" in taxonomy["categories"]["fish"]["members"]
    schema = (await client.read_resource("alfred://kitchen/schema/meal_plans")).contents[0].text
    assert "| recipe_id | ref |  | The recipe planned, if any.; a `recipe_N` ref to recipes (on delete: set_null) |" in schema


async def test_a_ref_resource_takes_the_bare_ref_or_the_completion_value(client: Client) -> None:
    recipes = await call(client, "db_read", table="recipes", order_by=[{"field": "name"}], limit=2)
    first = recipes["rows"][0]
    bare = await read_json(client, f"alfred://session/current/ref/{first['id']}")
    labelled = await read_json(client, f"alfred://session/current/ref/{first['id']} — {first['name']}")
    assert bare == labelled and bare["row"]["id"] == first["id"] and bare["label"] == first["name"]
    assert bare["row"]["parent_recipe_id"] is None or bare["row"]["parent_recipe_id"].startswith("recipe_")


async def test_dashboard_lists_what_expires_soon_and_the_next_meals(app: AlfredApp) -> None:
    """As of the seed's day: salmon expires tomorrow, the milk is past its date, dinner tonight is the salmon."""
    async with app.work("test") as work:
        board = await build_dashboard(work, today=TODAY)
        working = working_set_view(work.session)
    soon = {item["label"]: item["days_left"] for item in board["expiring_soon"]}
    assert soon["salmon fillets"] == 1 and all(0 <= days <= 3 for days in soon.values())
    assert [(item["label"], item["days_left"]) for item in board["expired"]] == [("milk", -1)]
    first = board["next_meals"][0]
    assert (first["label"], first["recipe_label"]) == ("Mon Jan 12 [dinner]", "Miso-Glazed Salmon with Bok Choy")
    assert len(board["next_meals"]) == 7 and find_uuid(board) is None
    assert working["recent"] == [], "the dashboard names rows without pulling them into the working set"


async def test_unknown_sessions_refs_and_tables_are_not_found(client: Client) -> None:
    for uri, words in [
        ("alfred://session/session_9/constraints", "Unknown session 'session_9'"),
        ("alfred://session/current/ref/recipe_99", "Unknown ref 'recipe_99'"),
        ("alfred://kitchen/schema/dishes", "Unknown table 'dishes'. Tables: recipes"),
    ]:
        with pytest.raises(MCPError) as error:
            await client.read_resource(uri)
        assert error.value.error.code == INVALID_PARAMS and words in error.value.error.message


async def test_each_role_has_a_prompt_filled_with_the_current_context(client: Client) -> None:
    assert {p.name for p in (await client.list_prompts()).prompts} == {"understand", "think", "act", "reply"}
    await call(client, "turn_begin", message="I want fish recipes")
    await call(client, "recipes_search", category="fish")
    think = await prompt_text(client, "think")
    assert think.startswith("# Think") and "## Kitchen dashboard" in think and "## User profile" in think
    assert '**User says:** "I want fish recipes"' in think and "- Never use: " in think
    understand = await prompt_text(client, "understand", message="use cod")
    assert '**User says:** "use cod"' in understand and "## Previous curation decisions" not in understand  # none yet
    act = await prompt_text(client, "act", step_type="write", description="Save the recipes", step_number="2", total_steps="3")
    assert "## Write steps" in act and "**Step 2 of 3** | Type: write" in act and "{step_guidance}" not in act
    reply = await prompt_text(client, "reply", session="session_1")
    assert "## What happened this turn" in reply and "Read 3 recipes" in reply


async def test_a_bad_prompt_argument_is_an_invalid_params_error(client: Client) -> None:
    with pytest.raises(MCPError) as error:
        await client.get_prompt("act", {"step_type": "cook"})
    assert error.value.error.code == INVALID_PARAMS
    assert "step_type must be one of: read, analyze, generate, write" in error.value.error.message
    with pytest.raises(MCPError) as unknown:
        await client.get_prompt("think", {"session": "session_7"})
    assert "Unknown session 'session_7'" in unknown.value.error.message


async def test_ref_completion_offers_labels_most_recent_first(client: Client) -> None:
    """Typing `rec` offers `recipe_1 — <label>`; refs touched most recently come first."""
    recipes = await call(client, "db_read", table="recipes", order_by=[{"field": "name"}], limit=4)
    await call(client, "turn_begin")
    last = recipes["rows"][3]
    await call(client, "understanding_submit", referenced_refs=[last["id"]])
    offered = (await client.complete(REF_TEMPLATE, {"name": "ref", "value": "rec"})).completion
    assert offered.values[0] == f"{last['id']} — {last['name']}"
    known = await call(client, "show_working_set", entity_type="recipe")
    assert sorted(offered.values) == sorted(f"{r['ref']} — {r['label']}" for r in known["refs"])
    assert offered.total == known["count"] and offered.has_more is False
    by_label = (await client.complete(REF_TEMPLATE, {"name": "ref", "value": "cod"})).completion
    assert by_label.values and all("Cod" in value for value in by_label.values)


async def test_session_table_and_step_completions(client: Client) -> None:
    await call(client, "show_working_set")
    await call(client, "session_start")
    sessions = await client.complete(PromptReference(name="think"), {"name": "session", "value": ""})
    assert sessions.completion.values == ["current", "session_2", "session_1"]
    tables = await client.complete(ResourceTemplateReference(uri="alfred://kitchen/schema/{table}"), {"name": "table", "value": "re"})
    assert tables.completion.values == ["recipes", "recipe_ingredients"]
    steps = await client.complete(PromptReference(name="act"), {"name": "step_type", "value": "a"})
    assert steps.completion.values == ["analyze"]


async def test_resource_updates_reach_a_listening_client(server: AlfredServer) -> None:
    """2026-07-28 listeners hear which resources a tool call changed (by session name and as `current`)."""
    watched = [
        "alfred://session/current/constraints", "alfred://session/session_1/decisions",
        "alfred://session/current/conversation", "alfred://kitchen/dashboard",
    ]
    async with Client(server) as client, client.listen(resource_subscriptions=watched) as subscription:
        await call(client, "understanding_submit", message="keep it simple",
                   constraint_snapshot={"new_constraints": [{"type": "difficulty", "field": "style", "value": "simple"}]})
        await call(client, "db_create", table="tasks", data={"title": "Thaw the cod"})
        seen: set[str] = set()
        with anyio.fail_after(5):
            async for event in subscription:
                assert isinstance(event, ResourceUpdated)
                seen.add(event.uri)
                if seen == set(watched):
                    break
    assert seen == set(watched)


async def test_turn_begin_closes_turns_into_bounded_narratives(client: Client) -> None:
    await call(client, "db_read", table="inventory", limit=2)
    first = await call(client, "turn_begin", message="and the pantry?")
    assert first == {"session": "session_1", "turn": 2, "closed_turn": 1}
    for n in range(3):
        await call(client, "db_read", table="inventory", limit=n + 1)
        await call(client, "turn_begin", message=f"next {n}")
    narratives = await read_json(client, "alfred://session/current/narratives")
    assert [n["turn"] for n in narratives["recent"]] == [3, 4]
    assert narratives["earlier"].splitlines() == [
        "T1: Read 2 pantry items → inv_1, inv_2 — exploring",
        'T2: user: "and the pantry?" — Read 1 pantry item → inv_1 — exploring',
    ]
    quiet = await call(client, "turn_begin")
    assert quiet["closed_turn"] == 5 and (await call(client, "turn_begin"))["closed_turn"] is None


async def test_understanding_with_an_unknown_ref_changes_nothing(client: Client) -> None:
    error = await call_error(client, "understanding_submit", referenced_refs=["recipe_42"],
                             constraint_snapshot={"new_constraints": [{"type": "cuisine", "field": "cuisine", "value": "thai"}]},
                             curation={"clear_all": True})
    assert (error["code"], error["value"], error["field"]) == ("unknown_ref", "recipe_42", "referenced_refs[0]")
    constraints = await call(client, "constraints_read")
    assert constraints["goal"] is None
    decisions = await read_json(client, "alfred://session/current/decisions")
    assert decisions["decision_log"] == [] and decisions["cleared_at_turn"] is None


async def test_an_invalid_constraint_names_its_field(client: Client) -> None:
    error = await call_error(client, "understanding_submit",
                             constraint_snapshot={"new_constraints": [{"type": "time_limit", "field": "max", "value": "soon"}]})
    assert error["code"] == "invalid_payload" and error["field"] == "constraint_snapshot.new_constraints[0].value"
    assert "time_limit needs a positive number" in error["message"]


async def test_allergies_cannot_be_overridden(client: Client) -> None:
    result = await call(client, "understanding_submit", message="make it with peanuts",
                        constraint_snapshot={"overrides": [{"type": "ingredient_required", "field": "sauce", "value": "peanut sauce"}]})
    assert [(r["allergen"], r["constraint"]["value"]) for r in result["rejected"]] == [("peanuts", "peanut sauce")]
    assert [item["value"] for item in result["constraints"]["must_exclude"]] == ["blue cheese", "olives", "peanuts"]
    read = await call(client, "constraints_read")
    assert read["permanent"]["allergies"] == ["peanuts"] and "- Never use: blue cheese (dislike)" in read["markdown"]


def _published(models: Any, shape: Any) -> dict[str, Any]:
    """The $defs a contract publishes for `models`: each model and its nested models, shaped by `shape`."""
    defs: dict[str, Any] = {}
    for model in models:
        schema = model.model_json_schema(ref_template="#/$defs/{model}")
        defs.update(schema.pop("$defs", {}))
        defs[model.__name__] = schema
    return {name: shape(body) for name, body in defs.items()}


def test_contract_defs_match_the_models() -> None:
    """The contracts publish exactly the pydantic models the server validates: understanding's input
    (compact, limits left to the server) and the draft shapes (compact, open, optional fields left out)."""
    contracts = load_contracts()
    understanding = _published([EntityCuration, ConstraintSnapshot], lambda body: without_limits(compact_schema(body)))
    assert contracts["understanding_submit"].input_schema["$defs"] == understanding
    shapes = _published([DRAFT_KINDS["recipe"], DRAFT_KINDS["meal"]], writable_shape)
    published = contracts["draft_create"].input_schema["$defs"]
    # a range may be left to the server (it names the field that breaks one); one the contract gives is the model's
    assert _without_ranges(published) == _without_ranges(shapes), "recipes and meals are published; the rest are table-shaped"
    assert _ranges(published) <= _ranges(shapes)


def _without_ranges(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {key: _without_ranges(value) for key, value in schema.items() if key not in ("minimum", "maximum")}
    return [_without_ranges(item) for item in schema] if isinstance(schema, list) else schema


def _ranges(schema: Any, path: str = "") -> set[tuple[str, str, Any]]:
    """Every (path, 'minimum'|'maximum', value) a schema gives."""
    if isinstance(schema, list):
        return {found for index, item in enumerate(schema) for found in _ranges(item, f"{path}/{index}")}
    if not isinstance(schema, dict):
        return set()
    own = {(path, key, value) for key, value in schema.items() if key in ("minimum", "maximum")}
    return own | {found for key, value in schema.items() for found in _ranges(value, f"{path}/{key}")}
