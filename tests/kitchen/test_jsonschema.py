"""The write schema derived from the kitchen schema, and the errors a bad row gets."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from alfred_mcp.errors import InvalidPayloadError, InvalidRefError, UnknownColumnError
from alfred_mcp.kitchen import jsonschema as row_validation
from alfred_mcp.kitchen.day_words import WORDS_HINT
from alfred_mcp.kitchen.jsonschema import describe_value, field_value, row_schema, validate_row
from alfred_mcp.kitchen.schema import COOKING_LOG, INVENTORY, MEAL_PLANS, PREFERENCES, RECIPE_INGREDIENTS, RECIPES, TABLES, Table

RAW_ID = "3f1b2c4d-1111-2222-3333-444455556666"


@pytest.mark.parametrize("mode", ["create", "update"])
@pytest.mark.parametrize("name", list(TABLES))
def test_every_table_schema_is_valid_json_schema(name: str, mode: str) -> None:
    Draft202012Validator.check_schema(row_schema(TABLES[name], mode))  # type: ignore[arg-type]


def test_schema_has_only_writable_columns_and_forbids_others() -> None:
    schema = row_schema(RECIPES, "create")
    assert schema["additionalProperties"] is False
    assert not {"id", "user_id", "created_at", "updated_at", "is_system"} & set(schema["properties"])
    assert schema["required"] == ["name"]


def test_schema_is_cached() -> None:
    assert row_schema(MEAL_PLANS, "create") is row_schema(MEAL_PLANS, "create")


def test_update_schema_requires_nothing_but_one_column() -> None:
    schema = row_schema(MEAL_PLANS, "update")
    assert "required" not in schema and schema["minProperties"] == 1


@pytest.mark.parametrize(
    ("table", "column", "expected"),
    [
        pytest.param(MEAL_PLANS, "meal_type", {"type": "string", "enum": ["breakfast", "lunch", "dinner", "snack", "other"]}, id="enum"),
        pytest.param(RECIPES, "cuisine", {"type": ["string", "null"]}, id="nullable-enum-type"),
        pytest.param(RECIPES, "name", {"type": "string", "maxLength": 200}, id="text"),
        pytest.param(RECIPES, "servings", {"type": ["integer", "null"], "minimum": 1, "maximum": 1000}, id="int"),
        pytest.param(COOKING_LOG, "rating", {"type": ["integer", "null"], "enum": [1, 2, 3, 4, 5, None]}, id="int-enum"),
        pytest.param(INVENTORY, "quantity", {"type": "number", "minimum": 0}, id="numeric"),
        pytest.param(RECIPE_INGREDIENTS, "is_optional", {"type": "boolean"}, id="bool"),
        pytest.param(MEAL_PLANS, "date", {"type": "string", "pattern": "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"}, id="date"),
        pytest.param(COOKING_LOG, "cooked_at", {"type": "string", "maxLength": 40}, id="timestamp"),
        pytest.param(PREFERENCES, "current_vibes", {"type": "array", "maxItems": 5, "items": {"type": "string", "maxLength": 2000}}, id="tags"),
        pytest.param(RECIPES, "occasions", {"items": {"type": "string", "enum": ["weeknight", "batch-prep", "hosting", "weekend", "comfort"]}}, id="tags-enum"),
        pytest.param(RECIPES, "parent_recipe_id", {"type": ["string", "null"], "pattern": "^(gen_)?recipe_[1-9][0-9]{0,8}$"}, id="fk-nullable"),
        pytest.param(RECIPE_INGREDIENTS, "recipe_id", {"type": "string", "pattern": "^(gen_)?recipe_[1-9][0-9]{0,8}$"}, id="fk-required"),
        pytest.param(COOKING_LOG, "from_meal_plan_id", {"pattern": "^(gen_)?meal_[1-9][0-9]{0,8}$"}, id="fk-meal-plan"),
    ],
)
def test_column_schema_follows_the_column_type(table: Any, column: str, expected: dict[str, Any]) -> None:
    schema = row_schema(table, "create")["properties"][column]
    assert {key: schema[key] for key in expected} == expected


@pytest.mark.parametrize(
    ("table", "row", "mode"),
    [
        pytest.param(RECIPES, {"name": "Thai Curry", "servings": 4, "instructions": ["Cook."], "parent_recipe_id": "recipe_2"}, "create", id="recipe"),
        pytest.param(RECIPES, {"parent_recipe_id": "gen_recipe_1"}, "update", id="draft-fk-passes-schema"),
        pytest.param(MEAL_PLANS, {"date": "2026-02-28", "meal_type": "dinner", "recipe_id": None}, "create", id="null-fk"),
        pytest.param(INVENTORY, {"name": "Eggs", "quantity": 12, "unit": "piece", "expiry_date": "2026-01-20"}, "create", id="inventory"),
        pytest.param(COOKING_LOG, {"cooked_at": "2026-01-20T18:30:00Z", "rating": 5}, "create", id="timestamp-z"),
        pytest.param(RECIPE_INGREDIENTS, {"recipe_id": "recipe_1", "position": 1, "name": "cod", "quantity": 0.5}, "create", id="child"),
    ],
)
def test_valid_rows_pass(table: Any, row: dict[str, Any], mode: str) -> None:
    validate_row(table, row, mode)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("table", "row", "mode", "message", "fields"),
    [
        pytest.param(
            MEAL_PLANS, {"date": "2026-01-20", "meal_type": "brunch"}, "create",
            "meal_type: 'brunch' is not one of breakfast, lunch, dinner, snack, other.",
            {"field": "meal_type", "value": "brunch", "valid": ["breakfast", "lunch", "dinner", "snack", "other"]},
            id="enum",
        ),
        pytest.param(
            RECIPES, {"cuisine": "martian"}, "update",
            "cuisine: 'martian' is not one of italian, mexican, chinese, indian, american, french, japanese, thai, "
            "mediterranean, korean, vietnamese, middle-eastern, greek, spanish, caribbean, african, british, other.",
            None, id="nullable-enum-lists-no-null",
        ),
        pytest.param(RECIPES, {"name": "X", "servings": "four"}, "create", "servings must be an integer or null, got 'four'.",
                     {"field": "servings", "value": "four"}, id="wrong-type"),
        pytest.param(RECIPE_INGREDIENTS, {"is_optional": "yes"}, "update", "is_optional must be true or false, got 'yes'.", None, id="bool-type"),
        pytest.param(RECIPES, {"servings": True}, "update", "servings must be an integer or null, got true.", None, id="bool-is-not-int"),
        pytest.param(RECIPES, {"servings": 0}, "update", "servings must be at least 1, got 0.", None, id="minimum"),
        pytest.param(RECIPES, {"prep_time_minutes": 20000}, "update", "prep_time_minutes must be at most 10000, got 20000.", None, id="maximum"),
        pytest.param(COOKING_LOG, {"rating": 6}, "create", "rating: 6 is not one of 1, 2, 3, 4, 5.", None, id="int-enum"),
        pytest.param(MEAL_PLANS, {"meal_type": "dinner"}, "create", "date is required to create a meal plan entry.", {"field": "date"}, id="missing-required"),
        pytest.param(RECIPES, {}, "update", "An update needs at least one column to set.", {"field": "data"}, id="empty-update"),
        pytest.param(RECIPES, {"name": "x" * 5000}, "update", "name is too long (5000 characters); the limit is 200.",
                     {"field": "name"}, id="huge-string"),
        pytest.param(PREFERENCES, {"current_vibes": list("abcdef")}, "update", "current_vibes has 6 items; the limit is 5.", None, id="too-many-items"),
        pytest.param(RECIPES, {"occasions": ["weeknight", "brunch"]}, "update",
                     "occasions[1]: 'brunch' is not one of weeknight, batch-prep, hosting, weekend, comfort.", None, id="tag-enum"),
        pytest.param(RECIPES, {"tags": ["ok", 3]}, "update", "tags[1] must be a string, got 3.", None, id="tag-type"),
        pytest.param(RECIPES, {"instructions": "Cook."}, "update", "instructions must be a list of strings, got 'Cook.'.", None, id="tags-not-list"),
        pytest.param(MEAL_PLANS, {"date": "20 Jan"}, "update", f"date must be a date: give {WORDS_HINT}; got '20 Jan'.", None, id="date-format"),
        pytest.param(MEAL_PLANS, {"date": "2026-02-30"}, "update", f"date: '2026-02-30' is not a real date; give {WORDS_HINT}.", None, id="impossible-date"),
        pytest.param(COOKING_LOG, {"cooked_at": "yesterday"}, "update",
                     "cooked_at must be an ISO-8601 timestamp such as 2026-01-20T18:30:00Z, got 'yesterday'.", None, id="timestamp"),
        pytest.param(MEAL_PLANS, {"recipe_id": "inv_1"}, "update", "recipe_id takes a recipe ref such as recipe_1, got 'inv_1'.",
                     None, id="fk-wrong-ref"),
        pytest.param(RECIPES, {"id": "recipe_1", "name": "X"}, "create", "id is set by the server; leave it out.", {"field": "id"}, id="id"),
        pytest.param(RECIPES, {"user_id": "u"}, "update", "user_id is set by the server; leave it out.", None, id="user-id"),
        pytest.param(RECIPES, {"is_system": True}, "update", "is_system is set by the server; leave it out.", None, id="is-system"),
        pytest.param(INVENTORY, {"updated_at": "2026-01-01"}, "update", "updated_at is set by the server; leave it out.", None, id="updated-at"),
        pytest.param(RECIPES, ["name"], "create", "Each row must be an object of column values.", None, id="not-an-object"),
    ],
)
def test_invalid_rows_get_a_specific_payload_error(
    table: Any, row: Any, mode: str, message: str, fields: dict[str, Any] | None
) -> None:
    with pytest.raises(InvalidPayloadError) as raised:
        validate_row(table, row, mode)  # type: ignore[arg-type]
    assert raised.value.message == message
    if fields is not None:
        assert raised.value.fields == fields
    assert RAW_ID not in str(raised.value.to_dict()).lower()


def test_unknown_column_lists_the_writable_columns() -> None:
    with pytest.raises(UnknownColumnError) as raised:
        validate_row(MEAL_PLANS, {"date": "2026-01-20", "colour": "red"}, "create")
    assert raised.value.message == (
        "Table 'meal_plans' has no writable column 'colour'. Writable columns: date, meal_type, recipe_id, notes, servings."
    )
    assert raised.value.fields == {
        "table": "meal_plans", "field": "colour", "valid": ["date", "meal_type", "recipe_id", "notes", "servings"],
    }


def test_server_set_columns_are_checked_before_types() -> None:
    """A row with both a server column and a bad type is told about the server column first."""
    with pytest.raises(InvalidPayloadError, match="created_at is set by the server"):
        validate_row(RECIPES, {"servings": "four", "created_at": "now"}, "update")


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        pytest.param("brunch", "'brunch'", id="string"),
        pytest.param(4, "4", id="int"),
        pytest.param("y" * 100, "'" + "y" * 56 + "...", id="long"),
        pytest.param(RAW_ID, "a raw id", id="raw-id"),
        pytest.param(["a", RAW_ID], "a raw id", id="raw-id-in-list"),
    ],
)
def test_describe_value_shortens_and_never_shows_raw_ids(value: object, shown: str) -> None:
    assert describe_value(value) == shown


@pytest.mark.parametrize(
    ("value", "kept"),
    [
        pytest.param("brunch", "brunch", id="short"),
        pytest.param("y" * 100, None, id="long"),
        pytest.param(RAW_ID, None, id="raw-id"),
    ],
)
def test_field_value_drops_long_values_and_raw_ids(value: object, kept: object) -> None:
    assert field_value(value) == kept


# -- the fast path agrees with jsonschema -------------------------------------------------------



_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 2_000), st.floats(-5, 2_000, allow_nan=False), st.sampled_from([4.0, 1.0, 0.5]),
    st.text(max_size=5), st.sampled_from(["dinner", "brunch", "recipe_1", "gen_recipe_2", "inv_3", "2026-01-12", "x" * 300, "easy", "air-fryer"]),
)
_VALUES = st.one_of(_SCALARS, st.lists(st.sampled_from(["weeknight", "spicy", "nope", "", "x" * 60]), max_size=4))


@st.composite
def _rows(draw: st.DrawFn) -> tuple[str, str, dict]:
    table = draw(st.sampled_from([t for t in TABLES.values() if t.user_owned]))
    mode = draw(st.sampled_from(["create", "update"]))
    names = [c.name for c in table.writable_columns]
    keys = draw(st.lists(st.sampled_from(names), unique=True, max_size=len(names)))
    return table.name, mode, {key: draw(_VALUES) for key in keys}


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_rows())
def test_fast_check_accepts_exactly_what_jsonschema_accepts(case: tuple[str, str, dict]) -> None:
    """The fast path never accepts a row jsonschema rejects, nor refuses one it accepts."""
    name, mode, row = case
    compiled = row_validation._compiled(TABLES[name], mode)  # noqa: SLF001
    assert compiled.fast(row) == compiled.validator.is_valid(row)


@pytest.mark.parametrize(
    "column",
    [
        pytest.param({"type": ["string", "null"], "enum": ["a", None], "minLength": 1}, id="null-in-enum"),
        pytest.param({"type": ["string", "null"], "enum": ["a"], "minLength": 1}, id="null-typed-but-not-in-enum"),
        pytest.param({"type": ["integer", "string"], "minimum": 2}, id="not-nullable"),
    ],
)
@pytest.mark.parametrize("value", [None, "a", "b", "", 1, 3, 2.0])
def test_columns_outside_the_kitchen_shapes_are_judged_as_jsonschema_judges_them(column: dict[str, Any], value: object) -> None:
    """The generic check (no kitchen column needs it today) agrees with jsonschema, null included, alone and in a batch."""
    schema = {"type": "object", "properties": {"c": column}}
    fast = row_validation._fast_check(schema)  # noqa: SLF001
    expected = Draft202012Validator(schema).is_valid({"c": value})
    assert fast({"c": value}) == expected
    assert fast.all([{"c": value}, {}], {}) == expected


@st.composite
def _batches(draw: st.DrawFn) -> tuple[str, str, list[dict]]:
    table = draw(st.sampled_from([t for t in TABLES.values() if t.user_owned]))
    mode = draw(st.sampled_from(["create", "update"]))
    names = [c.name for c in table.writable_columns]
    rows = draw(st.lists(st.lists(st.sampled_from(names), unique=True, max_size=len(names)), min_size=1, max_size=4))
    raw = draw(st.sampled_from(["", "see 3f1b2c4d-1111-2222-3333-444455556666"]))
    batch = [{key: draw(_VALUES) for key in keys} for keys in rows]
    if raw and names[0] in batch[-1] and isinstance(batch[-1][names[0]], str):
        batch[-1][names[0]] += raw
    return table.name, mode, batch


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_batches())
def test_validating_rows_together_refuses_what_one_by_one_refuses_with_the_same_error(case: tuple[str, str, list]) -> None:
    """validate_rows accepts a batch iff every row passes validate_row, and names the first bad row's problem."""
    name, mode, rows = case
    first: Exception | None = None
    for row in rows:
        try:
            validate_row(TABLES[name], row, mode)  # type: ignore[arg-type]
        except (InvalidPayloadError, InvalidRefError, UnknownColumnError) as error:
            first = error
            break
    if first is None:
        row_validation.validate_rows(TABLES[name], rows, mode)  # type: ignore[arg-type]
    else:
        with pytest.raises(type(first)) as refused:
            row_validation.validate_rows(TABLES[name], rows, mode)  # type: ignore[arg-type]
        assert refused.value.message == first.message  # type: ignore[attr-defined]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_batches(), st.data())
def test_rows_validated_with_given_columns_are_judged_as_the_merged_rows(case: tuple[str, str, list], data: st.DataObject) -> None:
    """validate_rows(rows, given=g) accepts iff every {**row, **g} passes validate_row, with the first bad row's message
    (a compiled recipe's ingredients are checked with their parent's ref given once, not copied into each)."""
    name, mode, rows = case
    table = TABLES[name]
    column = data.draw(st.sampled_from([c.name for c in table.writable_columns]))
    given = {column: data.draw(_VALUES)}
    first: Exception | None = None
    for row in rows:
        try:
            validate_row(table, {**row, **given}, mode)  # type: ignore[arg-type]
        except (InvalidPayloadError, InvalidRefError, UnknownColumnError) as error:
            first = error
            break
    if first is None:
        row_validation.validate_rows(table, rows, mode, given=given)  # type: ignore[arg-type]
    else:
        with pytest.raises(type(first)) as refused:
            row_validation.validate_rows(table, rows, mode, given=given)  # type: ignore[arg-type]
        assert refused.value.message == first.message  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        pytest.param("a 3f1b2c4d-1111-2222-3333-444455556666 b", "3f1b2c4d-1111-2222-3333-444455556666", id="inside-text"),
        pytest.param("3F1B2C4D-1111-2222-3333-444455556666", "3F1B2C4D-1111-2222-3333-444455556666", id="upper-case"),
        pytest.param("2026-01-12 and 12-34-56", None, id="dates-are-not-ids"),
        pytest.param("1b2c4d-1111-2222-3333-444455556666", None, id="too-short-head"),
        pytest.param("recipe_1", None, id="refs-are-not-ids"),
    ],
)
def test_raw_ids_are_found_wherever_they_are(text: str, found: str | None) -> None:
    from alfred_mcp.kitchen.raw_ids import find_raw_id

    assert find_raw_id(text) == found


def test_every_unknown_column_is_named_at_once() -> None:
    """Three bad columns, one refusal naming all three: one correction fixes the call."""
    with pytest.raises(UnknownColumnError) as raised:
        validate_row(MEAL_PLANS, {"date": "2026-01-20", "colour": "red", "size": 2, "taste": "ok", "meal_type": "dinner"}, "create")
    assert raised.value.fields["columns"] == ["colour", "size", "taste"]
    assert "no writable columns 'colour', 'size', 'taste'" in raised.value.message


_REQUIRED_TEXT = [
    (table, column.name) for table in TABLES.values() for column in table.writable_columns
    if column.type == "text" and column.enum is None and column.required_on_create
]


@pytest.mark.parametrize(("table", "column"), _REQUIRED_TEXT, ids=[f"{t.name}.{c}" for t, c in _REQUIRED_TEXT])
@pytest.mark.parametrize("blank", ["", " ", "\t\n", "\u00a0\u2003"], ids=["empty", "space", "tab-newline", "unicode-spaces"])
def test_required_text_is_never_blank_on_create_or_update(table: Table, column: str, blank: str) -> None:
    """Every required text column of every table (its name, a title, a unit): blank is refused naming the column."""
    for mode, row in (("create", {**_minimal_row(table), column: blank}), ("update", {column: blank})):
        with pytest.raises(InvalidPayloadError) as refused:
            validate_row(table, row, mode)  # type: ignore[arg-type]
        assert refused.value.fields["field"] == column and "empty or only spaces" in refused.value.message
    validate_row(table, {column: " x "}, "update")


def _minimal_row(table: Table) -> dict[str, Any]:
    """A valid row to create: each required column with a value of its kind."""
    samples = {"text": "x", "int": 1, "numeric": 1, "bool": True, "date": "2026-01-12", "timestamp": "2026-01-12T10:00:00Z"}
    row: dict[str, Any] = {}
    for column in table.writable_columns:
        if column.required_on_create:
            if column.fk is not None:
                row[column.name] = f"{TABLES[column.fk.table].entity_type}_1"
            else:
                row[column.name] = column.enum[0] if column.enum else samples.get(column.type, "x")
    validate_row(table, row, "create")
    return row
