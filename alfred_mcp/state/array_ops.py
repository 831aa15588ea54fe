"""List columns (allergies, tags, ...) changed by adding and removing items, not only by replacement.

An update may give a list column `{"add": [...]}` and/or `{"remove": [...]}`: the stored list keeps
its order, gains the new items at the end (no duplicates, compared case-insensitively) and loses
the removed ones. A plain list still replaces the whole column.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from alfred_mcp.errors import InvalidPayloadError
from alfred_mcp.kitchen.schema import Table

_KEYS = frozenset({"add", "remove"})


@dataclass(frozen=True)
class ListChange:
    """Items to add to and remove from one list column."""

    add: tuple[str, ...] = ()
    remove: tuple[str, ...] = ()

    def apply(self, current: Sequence[Any] | None) -> list[Any]:
        gone = {_fold(item) for item in self.remove}
        kept = [item for item in current or [] if _fold(item) not in gone]
        seen = {_fold(item) for item in kept}
        for item in self.add:
            if _fold(item) not in seen and _fold(item) not in gone:
                kept.append(item)
                seen.add(_fold(item))
        return kept


def _fold(item: Any) -> str:
    return " ".join(str(item).split()).lower()


def split_list_changes(table: Table, data: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, ListChange]]:
    """The plain values of an update, and the add/remove changes of its list columns.

    Raises:
        InvalidPayloadError: an object given for a column that is not a list, or one with other keys than add and remove.
    """
    plain: dict[str, Any] = {}
    changes: dict[str, ListChange] = {}
    for name, value in data.items():
        if not isinstance(value, Mapping):
            plain[name] = value
            continue
        column = table.column(name)
        if column.type != "text[]":
            raise InvalidPayloadError(
                f"{name} is not a list column; {{add, remove}} works on list columns only. Give the value itself.", field=name
            )
        extra = sorted(set(value) - _KEYS)
        if extra or not value:
            raise InvalidPayloadError(
                f"{name}: give {{\"add\": [...]}} and/or {{\"remove\": [...]}}" + (f"; unknown key {extra[0]!r}" if extra else "") + ".",
                field=name,
            )
        changes[name] = ListChange(add=_items(name, value.get("add")), remove=_items(name, value.get("remove")))
    return plain, changes


def _items(name: str, value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
        raise InvalidPayloadError(f"{name}: add and remove take a list of non-empty texts.", field=name)
    return tuple(item.strip() for item in value)


def dropped(current: Sequence[Any] | None, new: Sequence[Any] | None) -> list[str]:
    """Items of `current` that `new` no longer holds (compared case-insensitively)."""
    kept = {_fold(item) for item in new or []}
    return [str(item) for item in current or [] if _fold(item) not in kept]
