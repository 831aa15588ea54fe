"""Rows named the way people name them where a call takes one ref: 'pancakes' for recipe_1.

An argument that takes a single ref of a table people name (`NAMED_TABLES`: recipes, pantry and shopping items,
tasks) may hold a row's name instead: the kitchen tools' `recipe`, each item of a list of such refs (`REF_LISTS`), a `filters`/`or_filters` clause `id eq` of
db_read, db_update and db_delete on such a table, and a foreign key to such a table in db_create's and db_update's
`data` (a meal's `recipe_id`). Before the call runs, the name becomes the ref of the row whose
label is that name (case and spacing aside), else of the one row whose label holds all its words
(`state/entity_resolver.match_name`, plurals folded). A call that changes or removes rows (`CHANGES`) takes only an exact
name: a row matched by some words may be another one than meant, and changing the wrong row is worse than a question
(a read, or a new row pointing at it, shows which row it was, and an added row is undone with kitchen_undo).
No row, several, or a words-only match for a change: `UnmatchedNameError` listing the candidates with their refs
(which enter the session, so the next try can give one), nothing changed. A ref, or text shaped like a database id,
is left as given, for the translation layer to resolve or refuse.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from alfred_mcp.errors import InputError, UnmatchedNameError
from alfred_mcp.kitchen.query import Filter, OrderBy, Query, Where
from alfred_mcp.kitchen.raw_ids import find_raw_id
from alfred_mcp.kitchen.schema import RECIPES, SHOPPING_LIST, TABLES, Table, row_label
from alfred_mcp.kitchen.taxonomy import ingredient_words
from alfred_mcp.operations.entities import NAMED_TABLES, link_row
from alfred_mcp.session import UnitOfWork
from alfred_mcp.state.entity_resolver import MAX_CANDIDATES, Candidate, match_name, name_words
from alfred_mcp.state.refs import is_ref
from alfred_mcp.store.base import Row

NAME_ARGUMENTS: dict[str, tuple[str, ...]] = {
    "recipe_show": ("recipe",), "recipes_scale": ("recipe",), "recipes_export": ("recipe",), "meal_cooked": ("recipe",),
}
"""Kitchen tools' arguments that take one recipe ref, and so a recipe's name."""
FILTER_TOOLS = frozenset({"db_read", "db_update", "db_delete"})
"""Tools whose `id eq` filter clauses take a name, on a table people name."""
DATA_TOOLS = frozenset({"db_create", "db_update"})
"""Tools whose rows' foreign keys (`data`) take a name of a row of a table people name."""
REF_LISTS: dict[str, tuple[str, Table]] = {"shopping_list_check": ("items", SHOPPING_LIST), "shopping_list_from": ("recipes", RECIPES)}
"""Tools' arguments that take a list of refs of a table people name, and so names, each item as a single ref takes one
(the refs a `servings` object is keyed by follow the names they were given as)."""
CHANGES = frozenset({"db_update", "db_delete", "meal_cooked", "shopping_list_check"})
"""Calls that change or remove existing rows: an exact name or a ref only."""
MAX_NAME = 200
"""The longest name looked up (a row's label is shorter; longer text is no name)."""
FETCHED = 50
"""Rows read per name: enough to see that a common word names several."""
_NAMED = frozenset(table.name for table in NAMED_TABLES)


@dataclass(frozen=True)
class NamedArgument:
    """A name given where the call takes a ref: where it is, what it says, which table it names a row of."""

    path: tuple[str | int, ...]
    value: str
    table: Table

    @property
    def field(self) -> str:
        """The argument's path as errors name it: `recipe`, `filters[0].value`."""
        return "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in self.path).lstrip(".")


def named_arguments(tool: str, args: Mapping[str, Any]) -> list[NamedArgument]:
    """The arguments of this call that hold a name where a ref is asked (none for refs and id-shaped text)."""
    found = [NamedArgument((name,), args[name], RECIPES) for name in NAME_ARGUMENTS.get(tool, ()) if _is_name(args.get(name))]
    if tool in REF_LISTS and isinstance(listed := args.get(REF_LISTS[tool][0]), list):
        name, of = REF_LISTS[tool]
        found += [NamedArgument((name, index), value, of) for index, value in enumerate(listed) if _is_name(value)]
    table = args.get("table")
    if tool in FILTER_TOOLS and table in _NAMED:
        for key in ("filters", "or_filters"):
            for index, clause in enumerate(args.get(key) or ()):
                if isinstance(clause, Mapping) and clause.get("field") == "id" and clause.get("op") == "eq" \
                        and _is_name(clause.get("value")):
                    found.append(NamedArgument((key, index, "value"), clause["value"], TABLES[table]))
    if tool in DATA_TOOLS and table in TABLES:
        found += _named_foreign_keys(TABLES[table], args.get("data"))
    for argument in found:
        if len(argument.value) > MAX_NAME:
            raise InputError(f"{argument.field}: a ref, or a name of at most {MAX_NAME} characters.", field=argument.field)
    return found


def _named_foreign_keys(table: Table, data: object) -> list[NamedArgument]:
    """The foreign keys of a write's row (or rows) that hold a name of a row of a table people name."""
    rows = list(enumerate(data)) if isinstance(data, list) else [(None, data)]
    found = []
    for index, row in rows:
        if not isinstance(row, Mapping):
            continue
        for column in table.fk_columns:
            target = column.fk.table if column.fk is not None else None
            if target in _NAMED and _is_name(row.get(column.name)):
                path: tuple[str | int, ...] = ("data", column.name) if index is None else ("data", index, column.name)
                found.append(NamedArgument(path, row[column.name], TABLES[target]))
    return found


def _is_name(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip()) and not is_ref(value) and find_raw_id(value) is None


def with_refs(args: Mapping[str, Any], refs: Mapping[tuple[str | int, ...], str]) -> dict[str, Any]:
    """`args` with the ref put in at each path (and a `servings` object keyed by a name listed in a ref list, keyed
    by its ref)."""
    out: dict[str, Any] = dict(args)
    for path, ref in refs.items():
        if isinstance(servings := out.get("servings"), Mapping) and len(path) == 2 and isinstance(path[1], int):
            name = args[str(path[0])][path[1]]
            out["servings"] = {ref if key == name else key: value for key, value in servings.items()}
        _put(out, path, ref)
    return out


def _put(container: Any, path: tuple[str | int, ...], value: str) -> None:
    head, rest = path[0], path[1:]
    if not rest:
        container[head] = value
        return
    inner = container[head]
    copied = list(inner) if isinstance(inner, list) else dict(inner)
    container[head] = copied
    _put(copied, rest, value)


async def ref_for_name(work: UnitOfWork, tool: str, named: NamedArgument) -> str:
    """The ref of the one row `named` means, registered in the session.

    Raises:
        UnmatchedNameError: no row, several, or (for a call that changes rows) a match by some words only; the
            candidates are registered and listed with their refs.
    """
    table, name = named.table, named.value
    candidates = [_candidate(work, table, row) for row in await _rows_named(work, table, name)]
    resolution, matches = match_name(name, candidates)
    if len(matches) == 1 and (resolution == "exact" or tool not in CHANGES):
        return matches[0].ref
    noun = table.noun
    if len(matches) > 1:
        reason = f'"{name}" names {len(matches)} {noun}s: {_listed(matches)}. Give the ref of the one meant'
    elif matches:
        reason = (f'"{name}" is not the name of a {noun}; it matches {_listed(matches)} by some words. {tool} changes rows, '
                  "so it takes only an exact name or a ref (a row matched by some words may not be the one meant): give "
                  f"{matches[0].ref} if it is")
    near: list[Candidate] = []
    if not matches:
        near = [_candidate(work, table, row) for row in await _rows_with_any_word(work, table, name)]
        also = f"; {noun}s with some of its words: {_listed(near)}" if near else ""
        reason = f'no {noun} is named "{name}" or holds all its words{also}. Give a ref, or its name as the kitchen shows it'
    absent = not matches and not near  # the row the name means is not there: nothing for the model to choose from
    raise UnmatchedNameError(f"{named.field}: {reason}; nothing was changed.", field=named.field, value=name,
                             candidates=[c.ref for c in matches] or None, absent_from=table.name if absent else None)


def _listed(candidates: Sequence[Candidate]) -> str:
    return ", ".join(f"{c.ref} {c.label}" for c in candidates[:MAX_CANDIDATES]) + (
        f" and {len(candidates) - MAX_CANDIDATES} more" if len(candidates) > MAX_CANDIDATES else "")


def _candidate(work: UnitOfWork, table: Table, row: Row) -> Candidate:
    ref = link_row(work, table, row)
    return Candidate(ref, table.entity_type, row_label(table, row), "background")


async def _rows_named(work: UnitOfWork, table: Table, name: str) -> list[Row]:
    """Rows whose label is `name` (case aside), else rows whose label holds each of its words' stems."""
    (column,) = table.label_columns
    wanted = " ".join(name.casefold().split())
    exact = await _select(work, table, Where(all_of=(Filter(column, "ilike", " ".join(name.split())),)))
    if any(" ".join(str(row[column]).casefold().split()) == wanted for row in exact):
        return exact
    stems = _stems(name_words(name))
    if not stems:
        return []
    return await _select(work, table, Where(all_of=tuple(Filter(column, "ilike", f"%{stem}%") for stem in stems)))


async def _rows_with_any_word(work: UnitOfWork, table: Table, name: str) -> list[Row]:
    (column,) = table.label_columns
    stems = _stems(name_words(name))
    if not stems:
        return []
    rows = await _select(work, table, Where(any_of=tuple(Filter(column, "ilike", f"%{stem}%") for stem in stems)))
    words = name_words(name)
    return [row for row in rows if words & set(ingredient_words(row_label(table, row)))][:MAX_CANDIDATES]


def _stems(words: set[str]) -> list[str]:
    """What a label holding each word (in any plural form) holds: 'berry' -> 'berr' (berries), 'pancake' -> 'pancak'."""
    return sorted(word[:-1] if len(word) > 3 else word for word in words)


async def _select(work: UnitOfWork, table: Table, where: Where) -> list[Row]:
    query = Query(where=where, columns=("id", *table.label_columns), order_by=(OrderBy(table.label_columns[0]),), limit=FETCHED)
    return list(await work.store.select(table, query, user_id=work.user_id))
