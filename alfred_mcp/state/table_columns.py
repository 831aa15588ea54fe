"""The columns a write step may set, as the few lines Act reads instead of calling describe_table.

One line per table of the step's subdomain: each writable column by name, its type when it is not text, `*`
when a create must give it, its allowed values, and what a foreign key takes (a ref of that table). Pure.
"""

from __future__ import annotations

from collections.abc import Collection

from alfred_mcp.kitchen.schema import TABLES, Column, Table

COLUMNS_HEADING = "## Columns of"
"""The heading every columns section starts with (the stage client's memo keeps it for the whole session)."""


def subdomain_tables(subdomain: str | None) -> tuple[Table, ...]:
    """The tables a step of `subdomain` writes ('recipes': recipes and their ingredient lines); none for an unknown one."""
    return tuple(table for table in TABLES.values() if table.subdomain == subdomain)


def columns_section(subdomain: str | None) -> str:
    """'## Columns of tasks' and one line per table: 'tasks: title*, due_date date, category prep|shopping|…'."""
    tables = subdomain_tables(subdomain)
    if not tables:
        return ""
    lines = [f"{COLUMNS_HEADING} {', '.join(table.name for table in tables)} (* required on create)"]
    return "\n".join(lines + [table_line(table) for table in tables])


def table_line(table: Table, shown: str = "") -> str:
    """'tasks: title*, due_date date, …': a table's writable columns, one line (a long list of allowed values the
    text `shown` beside it already holds is 'values as above')."""
    return f"{table.name}: " + ", ".join(_column(column, shown) for column in table.columns if column.writable)


def writable_tables_text(left_out: Collection[str] = (), shown: str = "") -> str:
    """Every table a client may write but those `left_out`, one line each (`table_line`): what db_create's and
    db_update's `data` take."""
    return "\n".join(table_line(table, shown) for table in TABLES.values() if table.user_owned and table.name not in left_out)


SHORT_VALUES = 40
"""Allowed values written out however often they appear, up to this many characters."""


def _column(column: Column, shown: str = "") -> str:
    text = column.name + ("*" if column.required_on_create else "")
    if column.fk is not None:
        return f"{text} {TABLES[column.fk.table].entity_type} ref"
    kind = "" if column.type == "text" else f" {column.type}"
    listed = "|".join(str(value) for value in column.enum or ())
    if len(listed) > SHORT_VALUES and listed in shown.replace('"', ""):
        return f"{text}{kind} (values as above)"
    return text + kind + (f" {listed}" if listed else "")
