"""Properties over random sequences through the real MCP client and a real SQLite file.

1. Whatever a client sends (valid or not, refs or raw ids), no result, structured content or
   error ever carries a UUID.
2. Any valid recipe draft, saved and read back, returns its content (compile -> save -> read).
"""

from __future__ import annotations

import shutil
import uuid
from datetime import date
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client

from alfred_mcp.app import AlfredApp
from alfred_mcp.config import Settings
from alfred_mcp.operations.seeding import seed
from alfred_mcp.server.leak_guard import find_uuid
from alfred_mcp.server.mcp_server import build_server

TABLES = ["recipes", "recipe_ingredients", "inventory", "shopping_list", "meal_plans", "tasks", "preferences", "cooking_log"]
REFS = [f"{prefix}_{n}" for prefix in ("recipe", "ri", "inv", "shop", "meal", "task", "pref", "log", "ing") for n in (1, 2, 3, 7, 40)]
VALUES = st.one_of(
    st.sampled_from(REFS), st.sampled_from(["gen_recipe_1", "recipe_0", "chicken_5", "", "x'); DROP TABLE recipes;--"]),
    st.builds(lambda: str(uuid.uuid4())), st.integers(-3, 50), st.booleans(), st.none(), st.text(max_size=12),
    st.sampled_from(["2026-01-20", "dinner", "fridge", "%cod%"]),
)
FIELDS = st.sampled_from(["id", "name", "recipe_id", "meal_type", "date", "quantity", "location", "colour", "tags", "title", "ingredient_id"])
OPS = st.sampled_from(["eq", "neq", "gt", "in", "not_in", "ilike", "is_null", "contains", "like"])
FILTERS = st.lists(st.fixed_dictionaries({"field": FIELDS, "op": OPS, "value": st.one_of(VALUES, st.lists(VALUES, max_size=3))}), max_size=2)
PAYLOADS = st.dictionaries(FIELDS, VALUES, max_size=4)

CALLS = st.one_of(
    st.builds(lambda t, f, lim: ("db_read", {"table": t, "filters": f, "limit": lim}), st.sampled_from(TABLES), FILTERS, st.integers(1, 30)),
    st.builds(lambda t, d: ("db_create", {"table": t, "data": d}), st.sampled_from(TABLES), PAYLOADS),
    st.builds(lambda t, f, d: ("db_update", {"table": t, "filters": f, "data": d}), st.sampled_from(TABLES), FILTERS, PAYLOADS),
    st.builds(lambda t, f: ("db_delete", {"table": t, "filters": f}), st.sampled_from(TABLES), FILTERS),
    st.just(("turn_begin", {})),
    st.builds(lambda r: ("draft_save", {"refs": [r]}), st.sampled_from(["gen_recipe_1", "gen_meal_2"])),
    st.builds(lambda r: ("show_working_set", {}), st.none()),
)


@pytest.fixture(scope="module")
def seeded_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One seeded kitchen file; each example works on a copy."""
    path = tmp_path_factory.mktemp("template") / "kitchen.db"

    async def build() -> None:
        app = AlfredApp.from_settings(Settings(db=str(path), seed_demo=False))
        await app.open()
        await seed(app.store, app.user_id, today=date(2026, 1, 12))
        await app.close()

    anyio.run(build)
    return path


def _fresh_copy(template: Path) -> Path:
    folder = Path(template.parent.parent / f"run-{uuid.uuid4().hex[:8]}")
    folder.mkdir()
    shutil.copy(template, folder / "kitchen.db")
    return folder / "kitchen.db"


async def _run(path: Path, calls: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """Run the calls; return every leak found (tool, where)."""
    app = AlfredApp.from_settings(Settings(db=str(path), seed_demo=False, check_results=True))
    leaks = []
    async with Client(build_server(app)) as client:
        await client.call_tool("db_read", {"table": "recipes", "limit": 5})
        for tool, arguments in calls:
            result = await client.call_tool(tool, arguments)
            text = "".join(block.text for block in result.content if block.type == "text")
            for where, payload in (("text", text), ("structured", result.structured_content)):
                if find_uuid(payload) is not None:
                    leaks.append(f"{tool} {where}")
            assert result.is_error or result.structured_content is not None
    return leaks


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(calls=st.lists(CALLS, min_size=1, max_size=12))
def test_random_call_sequences_never_show_a_uuid(seeded_template: Path, calls: list[tuple[str, dict[str, Any]]]) -> None:
    """Reads, creates, updates and deletes, valid or not, with refs, raw ids and junk: refs only, always."""
    assert anyio.run(_run, _fresh_copy(seeded_template), calls) == []


_NAMES = st.text(alphabet=st.characters(categories=["L", "N", "Zs"]), min_size=1, max_size=40).filter(str.strip)
_TEXT = st.text(alphabet=st.characters(exclude_categories=["Cc", "Cs"]), max_size=80)
"""Any text a person can type (control characters are refused at the door: tests/adversarial)."""
_RECIPES = st.fixed_dictionaries(
    {
        "name": _NAMES,
        "ingredients": st.lists(
            st.fixed_dictionaries(
                {"name": _NAMES},
                optional={"quantity": st.one_of(st.integers(0, 1000), st.floats(0, 1000, allow_nan=False)),
                          "unit": st.sampled_from(["g", "tbsp", "cup", "clove", "piece"]),
                          "notes": _TEXT.map(lambda text: text[:40]), "is_optional": st.booleans()},
            ),
            min_size=1, max_size=12,
        ),
        "instructions": st.lists(_NAMES, min_size=1, max_size=6),
    },
    optional={"servings": st.integers(1, 12), "prep_time_minutes": st.integers(0, 600), "description": _TEXT},
)


async def _save_and_read(path: Path, content: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    app = AlfredApp.from_settings(Settings(db=str(path), seed_demo=False, check_results=True))
    async with Client(build_server(app)) as client:
        drafted = await client.call_tool("draft_create", {"entity_type": "recipe", "items": [content]})
        assert not drafted.is_error, drafted.content[0].text
        draft = drafted.structured_content["drafts"][0]
        saved = await client.call_tool("draft_save", {"refs": [draft["ref"]]})
        assert not saved.is_error and saved.structured_content["saved"] == 1, saved.content[0].text
        ref = saved.structured_content["items"][0]["saved_as"]
        recipe = (await client.call_tool("db_read", {"table": "recipes", "filters": [{"field": "id", "op": "eq", "value": ref}]})).structured_content["rows"][0]
        ingredients = (await client.call_tool("db_read", {
            "table": "recipe_ingredients", "filters": [{"field": "recipe_id", "op": "eq", "value": ref}],
            "order_by": [{"field": "position"}], "limit": 500,
        })).structured_content["rows"]
    return recipe, ingredients, draft["content"]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(content=_RECIPES)
def test_any_valid_draft_saved_and_read_back_returns_its_content(seeded_template: Path, content: dict[str, Any]) -> None:
    """compile -> save -> read gives back the draft: name, steps, every ingredient in order with its details."""
    recipe, ingredients, draft = anyio.run(_save_and_read, _fresh_copy(seeded_template), content)
    assert recipe["name"] == draft["name"] and recipe["instructions"] == draft["instructions"]
    assert recipe["servings"] == draft["servings"] and recipe["prep_time_minutes"] == draft["prep_time_minutes"]
    assert len(ingredients) == len(draft["ingredients"])
    for row, source in zip(ingredients, draft["ingredients"], strict=True):
        assert row["name"] == source["name"]
        assert row["quantity"] == pytest.approx(source["quantity"]) if source["quantity"] is not None else row["quantity"] is None
        assert row["is_optional"] == source["is_optional"]
        assert (row["notes"] or "") == (source["notes"] or "")
