"""A write that puts an item where it already is: a shopping line for what the list holds unbought (the same ingredient
by catalog link or folded name and kind, as `shopping_list_from` decides 'already listed'), or a second pantry row of
an item kept in the same place.

db_create on the shopping list keeps one line per item (`add_to_open_lines`), and says what it did as a note fact:
amounts that add are added (converted as `shopping_list_from` joins them: 1 gallon of milk and 2 cups more are 1 1/8
gallons); an amount in a unit that does not compare is kept on the same line beside its own ('2 lb + 3 pieces'); an
amount given for a line with none becomes its amount; an item named with no amount is already there: nothing is
written ('Milk is already on your shopping list (1 gallon).'). Undo restores a line as it was. A payload with fields of
its own (another note, another section), a saved draft, or a pantry row is written as asked (what a person asked for is
never dropped) and a warning names the row already there, its ref and amount.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from alfred_mcp.kitchen.measures import Amount, amount_text
from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import INGREDIENTS, INVENTORY, SHOPPING_LIST, Table
from alfred_mcp.kitchen.shopping_lines import extra_amounts, with_extra_amounts
from alfred_mcp.operations import allergies, crud
from alfred_mcp.operations.allergies import AllergyOverride
from alfred_mcp.operations.crud import ref_of
from alfred_mcp.operations.shopping import _added_extra, joined_amount
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.note_facts import NoteFact, already_on_list, merged
from alfred_mcp.state.pantry import Stock, row_kind
from alfred_mcp.store.base import Row

CHECKED = (SHOPPING_LIST.name, INVENTORY.name)
"""The tables where a second row of one item is worth a word."""


async def already_there(work: UnitOfWork, table: Table, refs: Sequence[str]) -> list[str]:
    """One warning per row just written (`refs`) whose item a row written before it already holds: an unbought line
    on the list, or a pantry row in the same place; none for other tables."""
    if table.name not in CHECKED or not refs:
        return []
    registry = work.session.registry
    written = [registry.resolve(ref, expected_type=table.entity_type, field="id") for ref in refs]
    rows = await work.store.select(table, Query(limit=5_000), user_id=work.user_id)
    by_id = {str(row["id"]): row for row in rows}
    new = [by_id[row_id] for row_id in written if row_id in by_id]
    fresh = set(written)
    before = Stock([row for row in rows if str(row["id"]) not in fresh and not row.get("is_purchased")])
    warnings = []
    for row in new:
        there = [other for other in before.matching(str(row["name"]), row.get("ingredient_id"), row_kind(row))
                 if table.name == SHOPPING_LIST.name or other.get("location") == row.get("location")]
        if there:
            warnings.append(_warning(work, table, row, there[0]))
    return warnings


def _warning(work: UnitOfWork, table: Table, row: Row, there: Row) -> str:
    amount = amount_text(there.get("quantity"), there.get("unit")) or "no amount"
    if table.name == SHOPPING_LIST.name:
        added = amount_text(row.get("quantity"), row.get("unit")) or "no amount"
        return f"{row['name']} is already on the list: {ref_of(work, table, there)}, {amount}; a second line was added ({added}): merge them if one."
    return f"{row['name']} is already in the {there.get('location') or 'pantry'}: {ref_of(work, table, there)}, {amount}; a second row was added (merge them if one)."


@dataclass
class Joined:
    """What db_create on the shopping list did before inserting: the open lines it added to, and what is left to insert."""

    rest: list[Mapping[str, Any]] = field(default_factory=list)
    """The payloads no open line took, to insert as asked."""
    rows: list[dict[str, Any]] = field(default_factory=list)
    """The open lines topped up, as the update gives them (refs)."""
    facts: list[NoteFact] = field(default_factory=list)
    """One fact per payload an open line took: `merged` (its note: 'added 1 gallon to the milk already on the list:
    shop_2, now 2 gallons'), or `already_on_list` for one that gave no amount (nothing written)."""


async def add_to_open_lines(work: UnitOfWork, data: Sequence[Mapping[str, Any]], override: AllergyOverride | None) -> Joined:
    """Each shopping payload whose item an unbought line holds taken by that line (`_joined_line`: an update, so undo
    restores it; nothing written for one with no amount); the others, and those with fields of their own, left to
    insert. Every payload is checked for allergens first, as an insert is (nothing is written when one is refused)."""
    await allergies.check_rows(work, SHOPPING_LIST, data, override)
    rows = await work.store.select(SHOPPING_LIST, Query(where=Where(all_of=(Filter("is_purchased", "eq", False),)), limit=5_000),
                                   user_id=work.user_id)
    stock, joined = Stock(rows), Joined()
    for payload in data:
        line = _line_for(work, stock, payload)
        if line is None or not _adds_only_amount(line, payload):
            joined.rest.append(payload)
            continue
        ref, name, had = ref_of(work, SHOPPING_LIST, line), str(line["name"]), _shown(line)
        change = _joined_line(line, payload)
        if change is None:
            joined.facts.append(already_on_list(ref, name, had))
            continue
        updated = await crud.update(work, SHOPPING_LIST, Where(all_of=(Filter("id", "eq", ref),)), change, all_rows=False)
        line.update(change)
        joined.rows += updated.rows
        joined.facts.append(merged(ref, name, amount_text(payload.get("quantity"), payload.get("unit")), _shown(line), had=had))
    return joined


def _joined_line(line: Row, payload: Mapping[str, Any]) -> dict[str, Any] | None:
    """What the open line becomes with the payload's amount in it: the two added where they add, else the payload's kept
    beside the line's own in its notes ('+ 3 pieces'), or the payload's amount where the line has none; None when the
    payload gives no amount (the item is on the list already: nothing to change)."""
    more = _number(payload.get("quantity"))
    if more is None:
        return None
    if _number(line.get("quantity")) is None:
        return {"quantity": more, "unit": payload.get("unit")}
    total = _total(line, payload)
    if total is not None:
        return {"quantity": total.quantity, "unit": total.unit}
    extras = _added_extra(line.get("notes"), Amount(more, payload.get("unit")), str(line["name"]))
    return {"notes": with_extra_amounts(line.get("notes"), extras)}


def _shown(line: Row) -> str:
    """The line's amounts as a shopper reads them ('1 gallon', '2 lb + 3 pieces'); '' when it has none."""
    return " + ".join(filter(None, [amount_text(line.get("quantity"), line.get("unit")), *extra_amounts(line.get("notes"))]))


def _line_for(work: UnitOfWork, stock: Stock, payload: Mapping[str, Any]) -> Row | None:
    """The open line holding the payload's item (by catalog link or folded name and kind), if any."""
    name, link = payload.get("name"), payload.get("ingredient_id")
    if not isinstance(name, str) or not name.strip():
        return None
    linked = work.session.registry.resolve(link, expected_type=INGREDIENTS.entity_type, field="ingredient_id") if isinstance(link, str) and link.strip() else None
    found = stock.matching(name, linked, row_kind(dict(payload)))
    return found[0] if found else None


_AMOUNT_AND_ITEM = frozenset({"name", "quantity", "unit", "ingredient_id", "category"})
"""A payload's fields that say the item and its amount (its store section is the item's too)."""


def _adds_only_amount(line: Row, payload: Mapping[str, Any]) -> bool:
    """Whether the payload says nothing of its own beside the item and its amount (every other field given is the
    line's already): else it is written as its own line, so nothing the user gave is lost in a merge."""
    return all(key in _AMOUNT_AND_ITEM or value in (None, "") or line.get(key) == value for key, value in payload.items())


def _total(line: Row, payload: Mapping[str, Any]) -> Amount | None:
    """The line's amount with the payload's added, in the line's unit where it converts; None: they do not add (either
    has no amount, or the units do not compare)."""
    mine, more = _number(line.get("quantity")), _number(payload.get("quantity"))
    if mine is None or more is None:
        return None
    joined = joined_amount(str(line["name"]), Amount(mine, line.get("unit")), Amount(more, payload.get("unit")))
    return None if joined is None else Amount(round(joined.quantity, 3), joined.unit)


def _number(value: Any) -> float | None:
    """A positive amount, else None."""
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0 else None
