"""The JSON Schema a written row must satisfy, derived from the kitchen schema.

`validate_row` reports the first violation as a specific error that names the column, the
bad value and what is allowed. Server-set columns and values carrying a raw id are refused
before the schema runs, so no error message ever repeats a raw id.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Literal

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

from alfred_mcp.errors import AlfredError, InvalidPayloadError, InvalidRefError, UnknownColumnError
from alfred_mcp.kitchen.day_words import WORDS_HINT
from alfred_mcp.kitchen.raw_ids import find_raw_id
from alfred_mcp.kitchen.schema import MAX_TEXT, TABLES, Column, Table, ref_pattern

Mode = Literal["create", "update"]

DATE_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
MAX_TIMESTAMP = 40
_SHOWN_CHARS = 60


def describe_value(value: object) -> str:
    """`value` as an error message shows it: text quoted, anything else as JSON spells it (true, null,
    ["a", "b"]: what the caller sent), shortened, and never a raw id."""
    text = repr(value) if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=repr)
    if find_raw_id(text):
        return "a raw id"
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 3] + "..."


def field_value(value: object) -> object:
    """`value` for an error's fields: itself, or None when it is long or carries a raw id."""
    text = repr(value)
    return None if len(text) > _SHOWN_CHARS or find_raw_id(text) else value


# -- the schema -------------------------------------------------------------------------------


def column_schema(column: Column) -> dict[str, Any]:
    """The JSON Schema of one writable column's value."""
    schema = _VALUE_SCHEMAS[column.type](column)
    if column.nullable:
        schema["type"] = [schema["type"], "null"]
        if "enum" in schema:
            schema["enum"] = [*schema["enum"], None]
    if column.description:
        schema["description"] = column.description
    return schema


def _string(column: Column) -> dict[str, Any]:
    if column.enum is not None:
        return {"type": "string", "enum": list(column.enum)}
    schema: dict[str, Any] = {"type": "string", "maxLength": column.max_length or MAX_TEXT}
    if column.type == "text" and column.required_on_create:
        schema["pattern"] = NOT_BLANK  # a row's required text (its name, a task's title) says something
    return schema


NOT_BLANK = r"\S"
"""Required text holds at least one character that is not white space."""


def _number(json_type: str) -> Callable[[Column], dict[str, Any]]:
    def build(column: Column) -> dict[str, Any]:
        schema: dict[str, Any] = {"type": json_type}
        if column.enum is not None:
            schema["enum"] = list(column.enum)
        if column.minimum is not None:
            schema["minimum"] = column.minimum
        if column.maximum is not None:
            schema["maximum"] = column.maximum
        return schema

    return build


def _tags(column: Column) -> dict[str, Any]:
    return {"type": "array", "maxItems": column.max_items, "items": _string(column)}


def _ref(column: Column) -> dict[str, Any]:
    if column.fk is None:
        raise ValueError(f"column {column.name!r} is a uuid without a foreign key; it cannot be written")
    target = TABLES[column.fk.table].entity_type
    return {"type": "string", "pattern": ref_pattern(target, allow_generated=True)}


_VALUE_SCHEMAS: dict[str, Callable[[Column], dict[str, Any]]] = {
    "text": _string,
    "int": _number("integer"),
    "numeric": _number("number"),
    "bool": lambda column: {"type": "boolean"},
    "date": lambda column: {"type": "string", "pattern": DATE_PATTERN},
    "timestamp": lambda column: {"type": "string", "maxLength": MAX_TIMESTAMP},
    "text[]": _tags,
    "uuid": _ref,
}


def _build_schema(table: Table, mode: Mode) -> dict[str, Any]:
    writable = table.writable_columns
    schema: dict[str, Any] = {"type": "object"}
    if mode == "create":
        schema["required"] = [c.name for c in writable if c.required_on_create]
    else:
        schema["minProperties"] = 1
    schema["properties"] = {c.name: column_schema(c) for c in writable}
    schema["additionalProperties"] = False
    return schema


# -- the fast path ----------------------------------------------------------------------------
#
# jsonschema costs ~100 us per row; a batch save validates hundreds. `_fast_check` is built from
# the same schema dicts and accepts exactly what they accept (a hypothesis test holds it to
# that), so jsonschema only runs to explain a row the fast check refused.

Check = Callable[[Any], bool]


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


_TYPE_CHECKS: dict[str, Check] = {
    "string": lambda v: isinstance(v, str),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer()),
    "number": _is_number,
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def _json_equal(a: Any, b: Any) -> bool:
    """Equality as JSON Schema's enum means it: 1 == 1.0, but true is not 1."""
    if _is_number(a) and _is_number(b):
        return bool(a == b)
    return type(a) is type(b) and a == b


def _value_check(schema: Mapping[str, Any]) -> Check:
    """One predicate for a column's value schema, null included."""
    check, nullable = _non_null_check(schema)
    return (lambda v: v is None or check(v)) if nullable else check


def _non_null_check(schema: Mapping[str, Any]) -> tuple[Check, bool]:
    """(a predicate for the column's non-null values, whether null is allowed), specialised for the
    shapes the kitchen uses: one call per value, as a batch save checks thousands of them."""
    types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
    nullable = "null" in types
    kinds = [t for t in types if t != "null"]
    keys = set(schema) - {"type", "description"}
    if kinds == ["string"] and keys <= {"maxLength", "enum", "pattern"}:
        return _string_check(schema), nullable
    if kinds in (["integer"], ["number"]) and keys <= {"minimum", "maximum", "enum"}:
        return _number_check(kinds[0], schema), nullable
    if kinds == ["boolean"] and not keys:
        return (lambda v: v is True or v is False), nullable
    if kinds == ["array"] and keys <= {"maxItems", "items"}:
        return _array_check(schema), nullable
    generic = _generic_check(schema, types)
    return generic, generic(None)  # whether null passes is the generic rules' own answer (an enum may leave it out)


def _string_check(schema: Mapping[str, Any]) -> Check:
    if "enum" in schema:
        allowed = frozenset(v for v in schema["enum"] if isinstance(v, str))
        return lambda v: isinstance(v, str) and v in allowed
    limit = schema.get("maxLength")
    pattern = re.compile(schema["pattern"]) if "pattern" in schema else None
    if pattern is not None:
        return lambda v: isinstance(v, str) and (limit is None or len(v) <= limit) and pattern.search(v) is not None
    if limit is not None:
        return lambda v: isinstance(v, str) and len(v) <= limit
    return lambda v: isinstance(v, str)


def _number_check(kind: str, schema: Mapping[str, Any]) -> Check:
    is_kind = _TYPE_CHECKS[kind]
    low, high = schema.get("minimum"), schema.get("maximum")
    if "enum" in schema:
        allowed = [v for v in schema["enum"] if v is not None]
        return lambda v: is_kind(v) and (low is None or v >= low) and (high is None or v <= high) and any(
            _json_equal(v, a) for a in allowed
        )
    # Bounds as JSON Schema compares them; a missing one is infinite. (NaN fails here and is left to
    # jsonschema, which explains or accepts it: the fast check may refuse more, never accept more.)
    least = -math.inf if low is None else low
    most = math.inf if high is None else high
    if kind == "number":
        return lambda v: isinstance(v, (int, float)) and v.__class__ is not bool and least <= v <= most
    return lambda v: (
        (isinstance(v, int) and v.__class__ is not bool) or (isinstance(v, float) and v.is_integer())
    ) and least <= v <= most


def _array_check(schema: Mapping[str, Any]) -> Check:
    most = schema.get("maxItems")
    item = _value_check(schema["items"]) if "items" in schema else (lambda v: True)
    return lambda v: isinstance(v, list) and (most is None or len(v) <= most) and all(map(item, v))


def _generic_check(schema: Mapping[str, Any], types: list[str]) -> Check:
    type_checks = [_TYPE_CHECKS[t] for t in types]
    rules: list[Check] = []
    if "enum" in schema:
        allowed = schema["enum"]
        rules.append(lambda v: any(_json_equal(v, a) for a in allowed))
    if "maxLength" in schema:
        limit = schema["maxLength"]
        rules.append(lambda v: not isinstance(v, str) or len(v) <= limit)
    if "minimum" in schema:
        low = schema["minimum"]
        rules.append(lambda v: not _is_number(v) or v >= low)
    if "maximum" in schema:
        high = schema["maximum"]
        rules.append(lambda v: not _is_number(v) or v <= high)
    if "pattern" in schema:
        pattern = re.compile(schema["pattern"])
        rules.append(lambda v: not isinstance(v, str) or pattern.search(v) is not None)
    if "maxItems" in schema:
        most = schema["maxItems"]
        rules.append(lambda v: not isinstance(v, list) or len(v) <= most)
    if "items" in schema:
        item_check = _value_check(schema["items"])
        rules.append(lambda v: not isinstance(v, list) or all(item_check(item) for item in v))
    return lambda v: any(check(v) for check in type_checks) and all(rule(v) for rule in rules)


@dataclass(frozen=True)
class _FastCheck:
    """The schema as plain checks: per column a check of its non-null values, the columns that may be
    null, the required ones, the least number of columns."""

    columns: dict[str, Check]
    nullable: frozenset[str]
    required: frozenset[str]
    least: int

    def __call__(self, row: Mapping[str, Any]) -> bool:
        if len(row) < self.least or not row.keys() >= self.required:
            return False
        return self._values(row.items())

    def _values(self, items: Iterable[tuple[str, Any]]) -> bool:
        columns, nullable = self.columns, self.nullable
        return all(
            name in columns and (columns[name](value) if value is not None else name in nullable) for name, value in items
        )

    def all(self, rows: Sequence[Mapping[str, Any]], given: Mapping[str, Any]) -> bool:
        """The same check for many rows, each with the `given` columns too (none of which a row may
        hold itself): column by column, with set operations and `map` rather than calls per row."""
        if not self._values(given.items()):
            return False
        required, least = self.required.difference(given), self.least - len(given)
        if not all(row.keys() >= required and len(row) >= least and row.keys().isdisjoint(given) for row in rows):
            return False
        names = set().union(*rows)
        columns, nullable = self.columns, self.nullable
        if not names <= columns.keys():
            return False
        for name in names:
            values = [row[name] for row in rows] if name in required else [row[name] for row in rows if name in row]
            if name in nullable:
                values = [value for value in values if value is not None]
            elif None in values:
                return False
            if not all(map(columns[name], values)):
                return False
        return True


def _fast_check(schema: Mapping[str, Any]) -> _FastCheck:
    checks = {name: _non_null_check(column) for name, column in schema["properties"].items()}
    return _FastCheck(
        {name: check for name, (check, _) in checks.items()}, frozenset(name for name, (_, null) in checks.items() if null),
        frozenset(schema.get("required", ())), schema.get("minProperties", 0),
    )


@dataclass(frozen=True)
class _Compiled:
    table: Table
    schema: dict[str, Any]
    validator: Draft202012Validator
    fast: _FastCheck
    writable: tuple[str, ...]
    writable_set: frozenset[str]
    dates: tuple[str, ...]
    timestamps: tuple[str, ...]


_COMPILED: dict[tuple[str, str], _Compiled] = {}


def _compiled(table: Table, mode: Mode) -> _Compiled:
    found = _COMPILED.get((table.name, mode))
    if found is None or found.table is not table:
        schema = _build_schema(table, mode)
        writable = table.writable_columns
        names = tuple(c.name for c in writable)
        found = _Compiled(
            table, schema, Draft202012Validator(schema), _fast_check(schema), names, frozenset(names),
            tuple(c.name for c in writable if c.type == "date"),
            tuple(c.name for c in writable if c.type == "timestamp"),
        )
        _COMPILED[(table.name, mode)] = found
    return found


def row_schema(table: Table, mode: Mode) -> dict[str, Any]:
    """The JSON Schema of a row to create or of the values of an update (cached; do not mutate)."""
    return _compiled(table, mode).schema


# -- validation -------------------------------------------------------------------------------


def validate_rows(
    table: Table, rows: Sequence[Mapping[str, Any]], mode: Mode, *, raw_ids: bool = True, given: Mapping[str, Any] | None = None
) -> None:
    """`validate_row` for many rows of one table (a recipe's ingredients): the same checks, made column
    by column; when any fails, the rows are checked one by one so the error names the first bad one.

    `raw_ids=False`: the caller has scanned the text the rows were made from for raw ids already.
    `given`: columns each row gets from the caller (its parent's ref), checked once as part of every row.

    Raises:
        UnknownColumnError, InvalidPayloadError: as `validate_row`.
    """
    compiled = _compiled(table, mode)
    given = given or {}
    clean = (
        all(isinstance(row, Mapping) for row in rows)
        and compiled.writable_set.issuperset(set().union(*rows, given))
        and (not raw_ids or not any(_carries_raw_id(value) for value in _fk_values(table, (*rows, given))))
        and compiled.fast.all(rows, given)
    )
    if not clean:
        for row in rows:
            validate_row(table, {**row, **given} if given and isinstance(row, Mapping) else row, mode, raw_ids=raw_ids)
    if compiled.dates or compiled.timestamps:
        for row in (*rows, given):
            _check_dates(compiled, row)


def validate_row(table: Table, row: Mapping[str, Any], mode: Mode, *, raw_ids: bool = True) -> None:
    """Check a row (create) or the values to set (update) against the table's schema.

    `raw_ids=False`: the caller has scanned the text the row was made from for raw ids already.

    Raises:
        UnknownColumnError: a key is not a column of the table.
        InvalidPayloadError: a server-set column, a raw id, a missing required column, or a
            value of the wrong type, out of range, too long or not among the allowed values.
    """
    if not isinstance(row, Mapping):
        raise InvalidPayloadError("Each row must be an object of column values.", field="data")
    compiled = _compiled(table, mode)
    _check_keys(compiled, row)
    if raw_ids:
        _check_no_raw_ids(table, row)
    if not compiled.fast(row):
        error = next(compiled.validator.iter_errors(row), None)
        if error is not None:
            raise _payload_error(table, error)
    _check_dates(compiled, row)


def _check_keys(compiled: _Compiled, row: Mapping[str, Any]) -> None:
    """Every unknown or server-set key at once, so one correction fixes them all."""
    if compiled.writable_set.issuperset(row):
        return
    table = compiled.table
    unknown = [name for name in row if name not in compiled.writable_set and name != "user_id" and not table.has_column(name)]
    server_set = [name for name in row if name not in compiled.writable_set and name not in unknown]
    if unknown:
        valid = list(compiled.writable)
        shown = ", ".join(describe_value(name) for name in unknown)
        also = f" ({', '.join(server_set)} {'is' if len(server_set) == 1 else 'are'} set by the server: leave them out.)" if server_set else ""
        raise UnknownColumnError(
            f"Table '{table.name}' has no writable column{'s' if len(unknown) > 1 else ''} {shown}. "
            f"Writable columns: {', '.join(valid)}.{also}",
            table=table.name, field=field_value(unknown[0]), valid=valid,
            columns=[field_value(n) for n in unknown] if len(unknown) > 1 else None,
        )
    if server_set:
        raise InvalidPayloadError(f"{', '.join(server_set)} {'is' if len(server_set) == 1 else 'are'} set by the server; leave "
                                  f"{'it' if len(server_set) == 1 else 'them'} out.", field=server_set[0])


def _check_no_raw_ids(table: Table, row: Mapping[str, Any]) -> None:
    """A foreign key takes a ref; a raw id there is refused. UUID-shaped text in a text column is data, kept as given."""
    for column in table.fk_columns:
        if column.name in row and _carries_raw_id(row[column.name]):
            assert column.fk is not None
            example = f"{TABLES[column.fk.table].entity_type}_1"
            raise InvalidRefError(
                f"{column.name} contains a raw id; use refs such as {example}, not raw ids.", field=column.name, expected=f"a ref such as {example}"
            )


def _fk_values(table: Table, rows: Sequence[Any]) -> list[Any]:
    return [row[column.name] for row in rows if isinstance(row, Mapping) for column in table.fk_columns if column.name in row]


def _carries_raw_id(value: Any) -> bool:
    if isinstance(value, str):
        return find_raw_id(value) is not None
    if isinstance(value, (list, tuple)):
        return any(_carries_raw_id(item) for item in value)
    if isinstance(value, Mapping):
        return any(_carries_raw_id(item) for item in (*value.keys(), *value.values()))
    return False


def _check_dates(compiled: _Compiled, row: Mapping[str, Any]) -> None:
    for name in compiled.dates:
        value = row.get(name)
        if isinstance(value, str) and not parses(date.fromisoformat, value):
            raise InvalidPayloadError(f"{name}: {value!r} is not a real date; give {WORDS_HINT}.", field=name, value=value)
    for name in compiled.timestamps:
        value = row.get(name)
        if isinstance(value, str) and not parses(datetime.fromisoformat, value.removesuffix("Z")):
            raise InvalidPayloadError(
                f"{name} must be an ISO-8601 timestamp such as 2026-01-20T18:30:00Z, got {describe_value(value)}.",
                field=name, value=field_value(value),
            )


def parses(parse: Callable[[str], object], value: str) -> bool:
    """True when `parse(value)` does not raise ValueError (a real date, a real timestamp)."""
    try:
        parse(value)
    except ValueError:
        return False
    return True


# -- errors -----------------------------------------------------------------------------------

_TYPE_WORDS = {
    "integer": "an integer", "number": "a number", "string": "a string", "boolean": "true or false",
    "array": "a list of strings", "null": "null", "object": "an object",
}


def _payload_error(table: Table, error: ValidationError) -> AlfredError:
    path = list(error.absolute_path)
    if not path:
        return _row_error(table, error)
    name = str(path[0])
    where = name + "".join(f"[{part}]" for part in path[1:])
    column = table.column(name)
    message = _describe(column, where, error)
    allowed: Any = error.validator_value
    valid = [v for v in allowed if v is not None] if error.validator == "enum" else None
    return InvalidPayloadError(message, field=name, value=field_value(error.instance), valid=valid)


def _describe(column: Column, where: str, error: ValidationError) -> str:
    rule = error.validator
    limit: Any = error.validator_value  # the rule's argument (jsonschema types it loosely)
    value: Any = error.instance
    shown = describe_value(value)
    if rule == "type":
        expected = limit if isinstance(limit, list) else [limit]
        return f"{where} must be {' or '.join(_TYPE_WORDS[t] for t in expected)}, got {shown}."
    if rule == "enum":
        return f"{where}: {shown} is not one of {', '.join(str(v) for v in limit if v is not None)}."
    if rule == "maxLength":
        return f"{where} is too long ({len(value)} characters); the limit is {limit}."
    if rule == "maxItems":
        return f"{where} has {len(value)} items; the limit is {limit}."
    if rule in ("minimum", "maximum"):
        bound = "at least" if rule == "minimum" else "at most"
        return f"{where} must be {bound} {limit:g}, got {shown}."
    if rule == "pattern" and column.fk is not None:
        target = TABLES[column.fk.table]
        return f"{where} takes a {target.noun} ref such as {target.entity_type}_1, got {shown}."
    if rule == "pattern" and limit == NOT_BLANK:
        return f"{where} must not be empty or only spaces, got {shown}."
    if rule == "pattern":
        return f"{where} must be a date: give {WORDS_HINT}; got {shown}."
    return f"{where}: {shown} breaks the rule {rule} {limit!r}."


def _row_error(table: Table, error: ValidationError) -> AlfredError:
    if error.validator == "required":
        required: Any = error.validator_value
        given: Any = error.instance
        missing = next(name for name in required if name not in given)
        return InvalidPayloadError(f"{missing} is required to create a {table.noun}.", field=missing)
    if error.validator == "minProperties":
        return InvalidPayloadError("An update needs at least one column to set.", field="data")
    return InvalidPayloadError("Each row must be an object of column values.", field="data")
