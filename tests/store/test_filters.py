"""Compiling the filter AST to SQL text and bound parameters (pure; no database)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from alfred_mcp.errors import InvalidFilterError, UnknownColumnError
from alfred_mcp.kitchen.query import Filter, OrderBy, Where
from alfred_mcp.kitchen.schema import RECIPE_INGREDIENTS, RECIPES, TASKS, Table
from alfred_mcp.store.filters import (
    compile_limit,
    compile_order,
    compile_where,
    default_order,
    get_dialect,
    quote_identifier,
)

INJECTION = "x'); DROP TABLE recipes;--"


def where(*all_of: Filter, any_of: tuple[Filter, ...] = ()) -> Where:
    return Where(all_of=all_of, any_of=any_of)


@pytest.mark.parametrize(
    ("clause", "sql", "params"),
    [
        pytest.param(Filter("name", "eq", "Curry"), '"name" = ?', ["Curry"], id="eq"),
        pytest.param(Filter("cuisine", "neq", "thai"), '"cuisine" IS NOT ?', ["thai"], id="neq-null-safe"),
        pytest.param(Filter("servings", "gt", 2), '"servings" > ?', [2], id="gt"),
        pytest.param(Filter("servings", "gte", 2), '"servings" >= ?', [2], id="gte"),
        pytest.param(Filter("servings", "lt", 2), '"servings" < ?', [2], id="lt"),
        pytest.param(Filter("servings", "lte", 2), '"servings" <= ?', [2], id="lte"),
        pytest.param(Filter("cuisine", "in", ["thai", "indian"]), '"cuisine" IN (?, ?)', ["thai", "indian"], id="in"),
        pytest.param(
            Filter("cuisine", "not_in", ["thai", "indian", "greek"]),
            '("cuisine" IS NULL OR "cuisine" NOT IN (?, ?, ?))',
            ["thai", "indian", "greek"],
            id="not_in-many-values",
        ),
        pytest.param(Filter("name", "ilike", "%cod_"), 'lower("name") LIKE lower(?)', ["%cod_"], id="ilike"),
        pytest.param(Filter("description", "is_null", True), '"description" IS NULL', [], id="is_null-true"),
        pytest.param(Filter("description", "is_null", False), '"description" IS NOT NULL', [], id="is_null-false"),
        pytest.param(
            Filter("tags", "is_null", True), '("tags" IS NULL OR json_array_length("tags") = 0)', [], id="is_null-array-empty"
        ),
        pytest.param(
            Filter("tags", "contains", "quick"),
            'EXISTS (SELECT 1 FROM json_each("tags") WHERE value = ?)',
            ["quick"],
            id="contains-one",
        ),
        pytest.param(
            Filter("tags", "contains", ["quick", "spicy"]),
            '(EXISTS (SELECT 1 FROM json_each("tags") WHERE value = ?) AND EXISTS (SELECT 1 FROM json_each("tags") WHERE value = ?))',
            ["quick", "spicy"],
            id="contains-every-value",
        ),
        pytest.param(Filter("is_system", "eq", True), '"is_system" = ?', [1], id="bool-as-int"),
    ],
)
def test_each_operator_compiles_to_sql_and_params(clause: Filter, sql: str, params: list[Any]) -> None:
    """Every operator has one spelling in SQLite, with its value bound, never inlined."""
    assert compile_where(RECIPES, where(clause)) == (sql, params)


def test_and_list_and_or_group_combine() -> None:
    """all_of AND (any_of joined by OR), params in the order of their placeholders."""
    compiled = compile_where(
        RECIPES,
        where(Filter("cuisine", "eq", "thai"), Filter("servings", "gte", 2),
              any_of=(Filter("name", "ilike", "%cod%"), Filter("tags", "contains", "fish"))),
    )
    assert compiled == (
        '"cuisine" = ? AND "servings" >= ? AND (lower("name") LIKE lower(?) OR '
        'EXISTS (SELECT 1 FROM json_each("tags") WHERE value = ?))',
        ["thai", 2, "%cod%", "fish"],
    )


def test_empty_where_compiles_to_nothing() -> None:
    """No filters: no fragment and no params (the store adds only the user scope)."""
    assert compile_where(RECIPES, Where()) == ("", [])


def test_postgres_dialect_spells_the_differences() -> None:
    """The same AST in PostgreSQL: %s placeholders, IS DISTINCT FROM, ILIKE, = ANY, real bools."""
    compiled = compile_where(
        RECIPES,
        where(Filter("cuisine", "neq", "thai"), Filter("name", "ilike", "%cod%"),
              Filter("tags", "contains", "fish"), Filter("is_system", "eq", False)),
        "postgres",
    )
    assert compiled == (
        '"cuisine" IS DISTINCT FROM %s AND "name" ILIKE %s ESCAPE \'\' AND %s = ANY("tags") AND "is_system" = %s',
        ["thai", "%cod%", "fish", False],
    )


def test_unknown_dialect_is_a_programming_error() -> None:
    """Dialect names come from code, so an unknown one is a ValueError, not an InputError."""
    with pytest.raises(ValueError, match="oracle"):
        get_dialect("oracle")


@pytest.mark.parametrize(
    "clause",
    [
        pytest.param(Filter("name", "eq", INJECTION), id="eq"),
        pytest.param(Filter("name", "ilike", INJECTION), id="ilike"),
        pytest.param(Filter("name", "in", [INJECTION, "a"]), id="in"),
        pytest.param(Filter("name", "not_in", [INJECTION]), id="not_in"),
        pytest.param(Filter("tags", "contains", [INJECTION]), id="contains"),
    ],
)
def test_values_only_travel_as_params(clause: Filter) -> None:
    """A hostile value appears in params unchanged and never in the SQL text."""
    sql, params = compile_where(RECIPES, where(clause))
    assert INJECTION in params
    assert "DROP" not in sql and "'" not in sql


@pytest.mark.parametrize(
    "table",
    [pytest.param(RECIPES, id="recipes"), pytest.param(RECIPE_INGREDIENTS, id="recipe_ingredients"), pytest.param(TASKS, id="tasks")],
)
def test_identifiers_come_only_from_the_schema(table: Table) -> None:
    """Every quoted identifier in a compiled filter and order is a column of the table."""
    text_column = next(c.name for c in table.columns if c.type == "text")
    sql, _ = compile_where(table, where(Filter(text_column, "eq", "v"), any_of=(Filter("id", "is_null", False),)))
    order = compile_order(table, default_order(table))
    quoted = re.findall(r'"([^"]+)"', sql + order)
    assert quoted and set(quoted) <= set(table.visible_columns)


@pytest.mark.parametrize(
    ("clause", "error"),
    [
        pytest.param(Filter(INJECTION, "eq", "x"), UnknownColumnError, id="hostile-column"),
        pytest.param(Filter("user_id", "eq", "x"), UnknownColumnError, id="user_id-is-not-filterable"),
        pytest.param(Filter("name", INJECTION, "x"), InvalidFilterError, id="hostile-operator"),  # type: ignore[arg-type]
        pytest.param(Filter("servings", "ilike", "%2%"), InvalidFilterError, id="ilike-on-int"),
        pytest.param(Filter("tags", "eq", "x"), InvalidFilterError, id="eq-on-array"),
        pytest.param(Filter("name", "not_in", []), InvalidFilterError, id="empty-not_in"),
        pytest.param(Filter("name", "eq", None), InvalidFilterError, id="eq-null"),
    ],
)
def test_filters_are_checked_against_the_schema_before_compiling(clause: Filter, error: type[Exception]) -> None:
    """compile_where runs the schema check itself (defense in depth)."""
    with pytest.raises(error):
        compile_where(RECIPES, where(clause))


def test_order_puts_nulls_last_and_breaks_ties_by_insertion() -> None:
    """Ascending NULLS LAST, descending NULLS FIRST, then rowid so ties are stable."""
    order = (OrderBy("due_date"), OrderBy("title", descending=True))
    assert compile_order(TASKS, order) == 'ORDER BY "due_date" ASC NULLS LAST, "title" DESC NULLS FIRST, rowid'


def test_default_order_comes_from_the_table() -> None:
    """recipe_ingredients read in recipe, then position order unless told otherwise."""
    assert compile_order(RECIPE_INGREDIENTS, default_order(RECIPE_INGREDIENTS)) == (
        'ORDER BY "recipe_id" ASC NULLS LAST, "position" ASC NULLS LAST, rowid'
    )


@pytest.mark.parametrize(
    ("order", "error"),
    [
        pytest.param(OrderBy(INJECTION), UnknownColumnError, id="hostile-column"),
        pytest.param(OrderBy("tags"), InvalidFilterError, id="array-column"),
    ],
)
def test_order_rejects_columns_outside_the_schema(order: OrderBy, error: type[Exception]) -> None:
    """Only orderable schema columns may appear in ORDER BY."""
    with pytest.raises(error):
        compile_order(RECIPES, (order,))


def test_limit_is_a_bound_param() -> None:
    """LIMIT takes a placeholder; no limit compiles to nothing."""
    assert compile_limit(25) == ("LIMIT ?", [25])
    assert compile_limit(None) == ("", [])


@pytest.mark.parametrize("limit", [pytest.param(-1, id="negative"), pytest.param(True, id="bool"), pytest.param("5", id="text")])
def test_limit_must_be_a_whole_number(limit: Any) -> None:
    """A negative, boolean or text limit is refused rather than passed to SQL."""
    with pytest.raises(InvalidFilterError):
        compile_limit(limit)


def test_quote_identifier_doubles_embedded_quotes() -> None:
    """Identifier quoting is total even for names no schema would use."""
    assert quote_identifier('a"b') == '"a""b"'
