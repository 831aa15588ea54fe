"""CRUD translation: refs in for filters and payloads, refs and labels out for rows."""

from __future__ import annotations

from typing import Any

import pytest

from alfred_mcp.errors import (
    DeletedRefError,
    InvalidFilterError,
    InvalidPayloadError,
    InvalidRefError,
    PendingDraftError,
    UnknownColumnError,
    UnknownRefError,
)
from alfred_mcp.kitchen.query import Filter, Where
from alfred_mcp.kitchen.schema import COOKING_LOG, INVENTORY, MEAL_PLANS, PREFERENCES, RECIPE_INGREDIENTS, RECIPES, TASKS
from alfred_mcp.state.registry import SessionIdRegistry
from alfred_mcp.state.translate import (
    TranslatedRows,
    apply_labels,
    label_columns_for,
    translate_payload,
    translate_rows,
    translate_where,
)

CURRY = "aaaaaaaa-0000-4000-8000-000000000001"
PASTA = "aaaaaaaa-0000-4000-8000-000000000002"
MEAL = "bbbbbbbb-0000-4000-8000-000000000001"
EGGS = "cccccccc-0000-4000-8000-000000000001"
USER = "dddddddd-0000-4000-8000-000000000001"


def kitchen_registry() -> SessionIdRegistry:
    """recipe_1 Thai Curry, recipe_2 Pasta, meal_1, inv_1 Eggs."""
    registry = SessionIdRegistry()
    registry.register_row("recipe", CURRY, "Thai Curry", turn=1, action="read")
    registry.register_row("recipe", PASTA, "Pasta", turn=1, action="read")
    registry.register_row("meal", MEAL, "Mon Jan 12 [dinner]", turn=1, action="read")
    registry.register_row("inv", EGGS, "Eggs", turn=1, action="read")
    return registry


# -- translate_where --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("table", "clause", "expected"),
    [
        pytest.param(RECIPES, Filter("id", "eq", "recipe_1"), Filter("id", "eq", CURRY), id="id-eq"),
        pytest.param(RECIPES, Filter("id", "neq", "recipe_2"), Filter("id", "neq", PASTA), id="id-neq"),
        pytest.param(RECIPES, Filter("id", "in", ["recipe_2", "recipe_1"]), Filter("id", "in", [PASTA, CURRY]), id="id-in"),
        pytest.param(RECIPES, Filter("id", "not_in", ["recipe_1"]), Filter("id", "not_in", [CURRY]), id="id-not-in"),
        pytest.param(MEAL_PLANS, Filter("recipe_id", "eq", "recipe_1"), Filter("recipe_id", "eq", CURRY), id="fk-eq"),
        pytest.param(MEAL_PLANS, Filter("recipe_id", "in", ["recipe_1", "recipe_2"]), Filter("recipe_id", "in", [CURRY, PASTA]), id="fk-in"),
        pytest.param(RECIPES, Filter("parent_recipe_id", "eq", "recipe_2"), Filter("parent_recipe_id", "eq", PASTA), id="parent-recipe"),
        pytest.param(COOKING_LOG, Filter("from_meal_plan_id", "eq", "meal_1"), Filter("from_meal_plan_id", "eq", MEAL), id="from-meal-plan"),
        pytest.param(TASKS, Filter("meal_plan_id", "not_in", ["meal_1"]), Filter("meal_plan_id", "not_in", [MEAL]), id="task-meal-plan"),
        pytest.param(MEAL_PLANS, Filter("recipe_id", "is_null", True), Filter("recipe_id", "is_null", True), id="is-null-untouched"),
        pytest.param(RECIPES, Filter("name", "eq", "recipe_1"), Filter("name", "eq", "recipe_1"), id="ref-like-text-untouched"),
    ],
)
def test_where_refs_become_row_ids(table: Any, clause: Filter, expected: Filter) -> None:
    where = translate_where(table, Where(all_of=(clause,), any_of=(clause,)), kitchen_registry())
    assert where == Where(all_of=(expected,), any_of=(expected,))


@pytest.mark.parametrize(
    ("table", "clause", "error", "words"),
    [
        pytest.param(RECIPES, Filter("id", "eq", CURRY), InvalidRefError, ["id takes a recipe ref", "not raw ids"], id="raw-uuid"),
        pytest.param(RECIPES, Filter("id", "in", ["recipe_1", PASTA]), InvalidRefError, ["not a ref"], id="raw-uuid-in-list"),
        pytest.param(RECIPES, Filter("id", "eq", "Thai Curry"), InvalidRefError, ["'Thai Curry' is not a ref"], id="name"),
        pytest.param(MEAL_PLANS, Filter("recipe_id", "eq", "inv_1"), InvalidRefError, ["recipe_id", "inv_1", "pantry item"], id="wrong-type"),
        pytest.param(RECIPES, Filter("id", "eq", "recipe_9"), UnknownRefError, ["recipe_9", "recipe_1..recipe_2"], id="unknown"),
        pytest.param(RECIPES, Filter("id", "eq", "gen_recipe_1"), PendingDraftError, ["gen_recipe_1"], id="pending-draft"),
        pytest.param(RECIPES, Filter("id", "eq", "recipe_3"), DeletedRefError, ["Old Soup", "turn 2"], id="deleted"),
        pytest.param(RECIPES, Filter("colour", "eq", "red"), UnknownColumnError, ["colour"], id="unknown-column"),
        pytest.param(RECIPES, Filter("id", "ilike", "recipe_%"), InvalidFilterError, ["ilike"], id="bad-op-checked-first"),
    ],
)
def test_where_with_a_bad_ref_is_refused_not_forwarded(table: Any, clause: Filter, error: type[Exception], words: list[str]) -> None:
    registry = kitchen_registry()
    registry.assign_gen_ref("recipe", "Honey Cod", turn=1)
    gone = registry.register_row("recipe", "aaaaaaaa-0000-4000-8000-000000000003", "Old Soup", turn=1, action="read")
    registry.mark_deleted(gone, turn=2)
    with pytest.raises(error) as raised:
        translate_where(table, Where(all_of=(clause,)), registry)
    message = str(raised.value)
    for word in words:
        assert word in message
    assert "aaaaaaaa-" not in message


def test_where_keeps_other_filters_as_they_are() -> None:
    clauses = (Filter("name", "ilike", "%curry%"), Filter("servings", "gte", 2), Filter("id", "eq", "recipe_1"))
    where = translate_where(RECIPES, Where(all_of=clauses), kitchen_registry())
    assert where.all_of[:2] == clauses[:2] and where.all_of[2] == Filter("id", "eq", CURRY)


# -- translate_payload ------------------------------------------------------------------------


def test_payload_fk_refs_become_row_ids() -> None:
    registry = kitchen_registry()
    row = {"title": "Marinate", "recipe_id": "recipe_1", "meal_plan_id": "meal_1", "category": "prep"}
    assert translate_payload(TASKS, row, registry, mode="create") == {**row, "recipe_id": CURRY, "meal_plan_id": MEAL}
    assert row["recipe_id"] == "recipe_1"


@pytest.mark.parametrize(
    ("table", "row", "column", "ref", "row_id"),
    [
        pytest.param(RECIPES, {"name": "Curry II", "parent_recipe_id": "recipe_1"}, "parent_recipe_id", "recipe_1", CURRY, id="parent-recipe"),
        pytest.param(COOKING_LOG, {"from_meal_plan_id": "meal_1"}, "from_meal_plan_id", "meal_1", MEAL, id="from-meal-plan"),
        pytest.param(RECIPE_INGREDIENTS, {"recipe_id": "recipe_2", "position": 1, "name": "basil"}, "recipe_id", "recipe_2", PASTA, id="child"),
    ],
)
def test_every_fk_column_is_translated(table: Any, row: dict[str, Any], column: str, ref: str, row_id: str) -> None:
    assert translate_payload(table, row, kitchen_registry(), mode="create")[column] == row_id


def test_saved_draft_ref_resolves_in_a_payload() -> None:
    registry = kitchen_registry()
    draft = registry.assign_gen_ref("recipe", "Honey Cod", turn=2)
    saved = registry.register_row("recipe", "aaaaaaaa-0000-4000-8000-000000000009", "Honey Cod", turn=2, action="created")
    registry.link_saved(draft, saved, turn=2)
    row = {"recipe_id": draft, "position": 1, "name": "cod"}
    assert translate_payload(RECIPE_INGREDIENTS, row, registry, mode="create")["recipe_id"] == "aaaaaaaa-0000-4000-8000-000000000009"


def test_null_fk_stays_null_and_whole_floats_become_ints() -> None:
    out = translate_payload(MEAL_PLANS, {"recipe_id": None, "servings": 4.0}, kitchen_registry(), mode="update")
    assert out == {"recipe_id": None, "servings": 4} and isinstance(out["servings"], int)


@pytest.mark.parametrize(
    ("table", "row", "mode", "error", "words"),
    [
        pytest.param(MEAL_PLANS, {"date": "2026-01-20", "meal_type": "brunch"}, "create", InvalidPayloadError, ["meal_type", "dinner"], id="enum"),
        pytest.param(RECIPES, {"name": "X", "colour": "red"}, "create", UnknownColumnError, ["colour", "name"], id="unknown-column"),
        pytest.param(RECIPES, {"name": "X", "id": "recipe_1"}, "create", InvalidPayloadError, ["id is set by the server"], id="non-writable"),
        pytest.param(MEAL_PLANS, {"meal_type": "dinner"}, "create", InvalidPayloadError, ["date is required"], id="missing-required"),
        pytest.param(RECIPES, {"name": "x" * 10_000}, "create", InvalidPayloadError, ["too long", "200"], id="huge-string"),
        pytest.param(MEAL_PLANS, {"recipe_id": CURRY}, "update", InvalidRefError, ["recipe_id", "not raw ids"], id="uuid-fk"),
        pytest.param(MEAL_PLANS, {"recipe_id": "recipe_9"}, "update", UnknownRefError, ["recipe_9"], id="unknown-fk-ref"),
        pytest.param(MEAL_PLANS, {"recipe_id": "gen_recipe_1"}, "update", PendingDraftError, ["Honey Cod"], id="pending-fk-ref"),
        pytest.param(MEAL_PLANS, {"recipe_id": "inv_1"}, "update", InvalidPayloadError, ["recipe_id takes a recipe ref"], id="wrong-type-fk"),
        pytest.param(MEAL_PLANS, {"servings": "four", "recipe_id": "recipe_9"}, "update", InvalidPayloadError, ["servings"], id="types-before-refs"),
    ],
)
def test_bad_payloads_get_specific_errors(table: Any, row: dict[str, Any], mode: str, error: type[Exception], words: list[str]) -> None:
    registry = kitchen_registry()
    registry.assign_gen_ref("recipe", "Honey Cod", turn=1)
    with pytest.raises(error) as raised:
        translate_payload(table, row, registry, mode=mode)  # type: ignore[arg-type]
    for word in words:
        assert word in str(raised.value)
    assert "aaaaaaaa-" not in str(raised.value)


# -- translate_rows and apply_labels ----------------------------------------------------------


def test_rows_get_refs_for_id_and_fks_with_labels_and_no_user_id() -> None:
    registry = kitchen_registry()
    rows = [{"id": MEAL, "user_id": USER, "date": "2026-01-12", "meal_type": "dinner", "recipe_id": CURRY, "servings": 2}]
    result = translate_rows(MEAL_PLANS, rows, registry, turn=2, action="read")
    assert result == TranslatedRows(
        rows=[{"id": "meal_1", "date": "2026-01-12", "meal_type": "dinner", "recipe_id": "recipe_1",
               "recipe_id_label": "Thai Curry", "servings": 2}],
        missing_labels={},
    )
    assert registry.entry("meal_1").turn_last_ref == 2
    assert rows[0]["id"] == MEAL and "user_id" in rows[0]


def test_new_rows_are_registered_with_their_labels_in_order() -> None:
    registry = SessionIdRegistry()
    rows = [{"id": f"row-{i}", "name": name} for i, name in enumerate(["Thai Curry", "Pasta"])]
    result = translate_rows(RECIPES, rows, registry, turn=1, action="created")
    assert [row["id"] for row in result.rows] == ["recipe_1", "recipe_2"]
    assert [(e.ref, e.label, e.action) for e in registry.entries()] == [
        ("recipe_1", "Thai Curry", "created"), ("recipe_2", "Pasta", "created"),
    ]


def test_row_labels_come_from_the_domain_label_rule() -> None:
    registry = SessionIdRegistry()
    translate_rows(MEAL_PLANS, [{"id": MEAL, "date": "2026-01-12", "meal_type": "dinner"}], registry, turn=1, action="read")
    translate_rows(PREFERENCES, [{"id": "pref-row"}], registry, turn=1, action="read")
    assert registry.entry("meal_1").label == "Mon Jan 12 [dinner]"
    assert registry.entry("pref_1").label == "Preferences"


def test_unknown_fk_targets_are_linked_lazily_and_labelled_in_one_batch() -> None:
    """Two rows naming the same unknown recipe register it once and ask for its label once."""
    registry = SessionIdRegistry()
    rows = [
        {"id": "task-1", "title": "Marinate", "recipe_id": CURRY, "meal_plan_id": None},
        {"id": "task-2", "title": "Chop", "recipe_id": CURRY, "meal_plan_id": MEAL},
    ]
    result = translate_rows(TASKS, rows, registry, turn=3, action="read")
    assert result.missing_labels == {"recipes": [CURRY], "meal_plans": [MEAL]}
    assert registry.entry("recipe_1").action == "linked" and registry.entry("recipe_1").label is None
    assert [row["recipe_id_label"] for row in result.rows] == [None, None]
    fetched = {
        "recipes": {CURRY: {"id": CURRY, "name": "Thai Curry"}},
        "meal_plans": {MEAL: {"id": MEAL, "date": "2026-01-12", "meal_type": "dinner"}},
    }
    final = apply_labels(result, TASKS, registry, fetched)
    assert final == [
        {"id": "task_1", "title": "Marinate", "recipe_id": "recipe_1", "recipe_id_label": "Thai Curry",
         "meal_plan_id": None, "meal_plan_id_label": None},
        {"id": "task_2", "title": "Chop", "recipe_id": "recipe_1", "recipe_id_label": "Thai Curry",
         "meal_plan_id": "meal_1", "meal_plan_id_label": "Mon Jan 12 [dinner]"},
    ]
    assert registry.entry("recipe_1").label == "Thai Curry"


def test_fk_target_missing_from_the_fetch_keeps_an_empty_label() -> None:
    registry = SessionIdRegistry()
    result = translate_rows(MEAL_PLANS, [{"id": MEAL, "recipe_id": CURRY}], registry, turn=1, action="read")
    assert apply_labels(result, MEAL_PLANS, registry, {"recipes": {}})[0]["recipe_id_label"] is None


def test_every_fk_column_comes_out_as_a_ref() -> None:
    """parent_recipe_id and from_meal_plan_id too: no raw id reaches a model."""
    registry = kitchen_registry()
    recipe = translate_rows(RECIPES, [{"id": "r-3", "name": "Curry II", "parent_recipe_id": CURRY}], registry, turn=1, action="read")
    log = translate_rows(COOKING_LOG, [{"id": "log-1", "cooked_at": "2026-01-12T19:00:00", "recipe_id": PASTA,
                                        "from_meal_plan_id": MEAL}], registry, turn=1, action="read")
    assert recipe.rows[0]["parent_recipe_id"] == "recipe_1" and recipe.rows[0]["parent_recipe_id_label"] == "Thai Curry"
    assert (log.rows[0]["recipe_id"], log.rows[0]["from_meal_plan_id"]) == ("recipe_2", "meal_1")
    assert log.rows[0]["from_meal_plan_id_label"] == "Mon Jan 12 [dinner]"


def test_rows_without_id_register_nothing_but_fks() -> None:
    registry = SessionIdRegistry()
    result = translate_rows(MEAL_PLANS, [{"meal_type": "dinner", "recipe_id": CURRY}], registry, turn=1, action="read")
    assert result.rows == [{"meal_type": "dinner", "recipe_id": "recipe_1", "recipe_id_label": None}]
    assert [e.ref for e in registry.entries()] == ["recipe_1"]


def test_rows_read_without_label_columns_ask_for_their_own_labels() -> None:
    registry = SessionIdRegistry()
    result = translate_rows(RECIPES, [{"id": CURRY, "servings": 2}], registry, turn=1, action="read")
    assert result.missing_labels == {"recipes": [CURRY]} and registry.entry("recipe_1").label is None
    apply_labels(result, RECIPES, registry, {"recipes": {CURRY: {"id": CURRY, "name": "Thai Curry"}}})
    assert registry.entry("recipe_1").label == "Thai Curry"


def test_known_label_is_kept_when_label_columns_are_not_read() -> None:
    registry = kitchen_registry()
    result = translate_rows(RECIPES, [{"id": CURRY, "servings": 2}], registry, turn=2, action="read")
    assert result.missing_labels == {} and registry.entry("recipe_1").label == "Thai Curry"


def test_translated_output_never_carries_a_raw_id() -> None:
    registry = SessionIdRegistry()
    rows = [{"id": EGGS, "user_id": USER, "ingredient_id": "eeeeeeee-0000-4000-8000-000000000001", "name": "Eggs"}]
    result = translate_rows(INVENTORY, rows, registry, turn=1, action="read")
    final = apply_labels(result, INVENTORY, registry, {"ingredients": {"eeeeeeee-0000-4000-8000-000000000001": {"name": "egg"}}})
    assert final == [{"id": "inv_1", "ingredient_id": "ing_1", "ingredient_id_label": "egg", "name": "Eggs"}]


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        pytest.param("recipes", ("id", "name"), id="recipes"),
        pytest.param("meal_plans", ("id", "date", "meal_type"), id="meal-plans"),
        pytest.param("tasks", ("id", "title"), id="tasks"),
        pytest.param("preferences", ("id",), id="preferences"),
    ],
)
def test_label_columns_for_a_target_table(table: str, expected: tuple[str, ...]) -> None:
    assert label_columns_for(table) == expected
