"""The kitchen schema described for clients and models: as JSON (describe_table) and as Markdown.

Refs stand for ids and foreign keys; the `user_id` column is never shown.
"""

from __future__ import annotations

from typing import Any

from alfred_mcp.kitchen.schema import TABLES, Column, Table, get_table


def describe_tables(name: str | None = None) -> list[dict[str, Any]]:
    """Every table in brief, or one table with its columns.

    Raises:
        UnknownTableError: no table called `name`.
    """
    if name:
        table = get_table(name)
        return [{**_table_summary(table), "columns": [_describe_column(c) for c in table.columns if c.name != "user_id"]}]
    return [_table_summary(table) for table in TABLES.values()]


def _table_summary(table: Table) -> dict[str, Any]:
    return {
        "name": table.name, "ref_prefix": table.entity_type, "noun": table.noun,
        "subdomain": table.subdomain, "description": table.description, "writable": table.user_owned,
    }


def _describe_column(column: Column) -> dict[str, Any]:
    described: dict[str, Any] = {"name": column.name, "type": column.type, "description": column.description}
    if column.fk is not None:
        target = TABLES[column.fk.table]
        described.update(type="ref", references=target.name, ref_prefix=target.entity_type, on_delete=column.fk.on_delete)
    if column.name == "id":
        described["type"] = "ref"
    described["required"] = column.required_on_create
    described["writable"] = column.writable
    if column.enum is not None:
        described["allowed"] = list(column.enum)
    if column.suggested is not None:
        described["suggested"] = list(column.suggested)
    if column.default not in (None, "now", ()):
        described["default"] = column.default
    return described


def table_markdown(table: Table) -> str:
    """A table described for a model: one line per column, refs for ids and foreign keys."""
    lines = [
        f"# {table.name}",
        "",
        table.description,
        "",
        f"Refs: `{table.entity_type}_N` ({table.noun}). Subdomain: {table.subdomain}. "
        + ("Writable." if table.user_owned else "Read-only (shared catalog)."),
        "",
        "| Column | Type | Required | Notes |",
        "|---|---|---|---|",
    ]
    lines += [_column_line(column) for column in table.columns if column.name != "user_id"]
    return "\n".join(lines) + "\n"


def _column_line(column: Column) -> str:
    kind = "ref" if column.name == "id" or column.fk is not None else column.type
    notes = [column.description]
    if column.fk is not None:
        target = TABLES[column.fk.table]
        notes.append(f"a `{target.entity_type}_N` ref to {target.name} (on delete: {column.fk.on_delete})")
    if column.enum is not None:
        notes.append("one of: " + ", ".join(str(v) for v in column.enum))
    if column.suggested is not None:
        notes.append("e.g. " + ", ".join(column.suggested))
    if not column.writable:
        notes.append("set by the server")
    required = "yes" if column.required_on_create else ""
    return f"| {column.name} | {kind} | {required} | {'; '.join(n for n in notes if n)} |"
