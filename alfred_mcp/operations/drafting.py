"""Generated drafts (gen_* refs) and saving them: kept whole, compiled, written under a manifest.

A draft lives in the session (document DRAFTS) until it is saved or discarded. Saving compiles
each draft (`state/compiler.py`) into its rows, writes a recipe with all its ingredients in one
savepoint, links the gen ref to the saved ref explicitly, and records every item's outcome in a
batch manifest (`state/batch.py`, document BATCHES).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

from alfred_mcp.errors import (
    AlfredError,
    AllergenError,
    DeletedRefError,
    InputError,
    InvalidRefError,
    PendingDraftError,
    StateError,
    require_one_of,
)
from alfred_mcp.kitchen.allergens import allergen_hits
from alfred_mcp.kitchen.jsonschema import describe_value, field_value
from alfred_mcp.kitchen.query import Filter, Query, Where
from alfred_mcp.kitchen.schema import TABLES, Table, table_for_entity_type
from alfred_mcp.operations import allergies
from alfred_mcp.operations.allergies import AllergyOverride
from alfred_mcp.operations.catalog import catalog_index
from alfred_mcp.operations.crud import rows_to_refs
from alfred_mcp.operations.meal_servings import fill_servings
from alfred_mcp.operations.progress import report_progress
from alfred_mcp.session import Session, UnitOfWork
from alfred_mcp.session.documents import BATCH_COUNTER, BATCHES, DRAFTS
from alfred_mcp.state.batch import BatchManifest, BatchPolicy
from alfred_mcp.state.call_log import CallRecord
from alfred_mcp.state.compiler import CatalogIndex, Compiled, compile_draft
from alfred_mcp.state.drafts import (
    DRAFT_KINDS,
    Draft,
    discard_draft,
    draft_label,
    draft_refs,
    ensure_pending,
    mark_draft_saved,
    new_draft,
    parse_draft,
    replace_draft,
    revise_draft,
)
from alfred_mcp.state.refs import parse_ref
from alfred_mcp.state.translate import translate_payload
from alfred_mcp.state.working_set import DraftView
from alfred_mcp.store.base import Children, Row

SAVE_ORDER = ("recipe", "inv", "shop", "meal", "task")
"""Recipes first: meal plans and tasks may point at a recipe drafted in the same batch."""
MAX_DRAFTS_PER_CALL = 50


# -- drafts -----------------------------------------------------------------------------------


def create_drafts(session: Session, entity_type: str, items: Sequence[Mapping[str, Any]]) -> list[Draft]:
    """Validate every item, then hold each as a pending draft under a new gen ref.

    Raises:
        InputError: an unknown draft kind or too many items.
        InvalidPayloadError: an item does not fit its draft model (named by index and field).
    """
    if entity_type not in DRAFT_KINDS:
        raise InputError(
            f"Cannot draft '{entity_type}'. Draft kinds: {', '.join(DRAFT_KINDS)}.",
            field="entity_type", value=field_value(entity_type), valid=list(DRAFT_KINDS),
        )
    models = [_parse_item(entity_type, item, index, len(items)) for index, item in enumerate(items)]
    for index, model in enumerate(models):
        _check_refs(session, model, prefix=f"items[{index}]." if len(items) > 1 else "")
    drafts = []
    for item, model in zip(items, models):
        ref = session.registry.assign_gen_ref(entity_type, draft_label(entity_type, model), turn=session.turn)
        draft = new_draft(ref, item, turn=session.turn)
        session.write(DRAFTS.at(ref), draft)
        drafts.append(draft)
    _record(session, "draft_create", entity_type, "generated", [d.ref for d in drafts])
    return drafts


def _parse_item(entity_type: str, item: Mapping[str, Any], index: int, count: int) -> Any:
    try:
        return parse_draft(entity_type, item)
    except AlfredError as error:
        if count > 1:
            error.message = f"items[{index}]: {error.message}"
            error.args = (error.message,)
            error.fields["item"] = index
        raise


def links_of(model: Any) -> dict[str, str]:
    """The refs a draft names: field -> ref."""
    return {name: ref for name, _, ref in draft_refs(model)}


def _check_refs(session: Session, model: Any, *, prefix: str = "") -> None:
    """Every ref a draft names must be a live row of this session, or a draft that is not discarded.

    Raises:
        InvalidRefError, UnknownRefError, DeletedRefError: naming the field, e.g. 'items[2].recipe'.
    """
    for name, entity_type, ref in draft_refs(model):
        try:
            session.registry.resolve(ref, expected_type=entity_type, field=prefix + name)
        except PendingDraftError:
            continue  # a pending draft of this session: saved first (SAVE_ORDER) when saved together


async def check_rows_exist(work: UnitOfWork, drafts: Sequence[Draft], *, prefix: str = "items") -> None:
    """The saved rows the drafts point at still exist (another session may have deleted them).

    Raises:
        DeletedRefError: naming the field and the ref.
    """
    wanted: dict[str, dict[str, tuple[str, str]]] = {}
    for index, draft in enumerate(drafts):
        for name, entity_type, ref in draft_refs(draft.parsed()):
            row_id = _saved_row(work.session, ref)
            if row_id is not None:
                where = f"{prefix}[{index}].{name}" if len(drafts) > 1 else name
                wanted.setdefault(table_for_entity_type(entity_type).name, {})[row_id] = (where, ref)
    for table_name, by_id in wanted.items():
        query = Query(where=Where(all_of=(Filter("id", "in", list(by_id)),)), columns=("id",))
        found = {row["id"] for row in await work.store.select(TABLES[table_name], query, user_id=work.user_id)}
        for row_id, (where, ref) in by_id.items():
            if row_id not in found:
                raise DeletedRefError(
                    f"{where}: {ref} no longer exists in the kitchen (it was deleted elsewhere); read {table_name} for current refs.",
                    field=where, value=ref,
                )


def _saved_row(session: Session, ref: str) -> str | None:
    entry = session.registry.get(ref)
    if entry is not None and entry.saved_as is not None:
        entry = session.registry.get(entry.saved_as)
    return entry.row_id if entry is not None and entry.deleted_turn is None else None


def load_draft(session: Session, ref: str, field: str = "ref") -> Draft:
    """The draft named `ref` (given as the argument `field`).

    Raises:
        InvalidRefError: `ref` is not a gen ref.
        UnknownRefError: the session has no such draft.
    """
    stored = session.read(DRAFTS.at(ref)) if isinstance(ref, str) else None
    if stored is not None:
        return stored
    parsed = parse_ref(ref)
    if parsed is None or not parsed.generated:
        raise InvalidRefError(
            f"{field}: {describe_value(ref)} is not a draft ref; drafts are named like gen_recipe_1.",
            field=field, value=field_value(ref),
        )
    if ref not in session.registry:
        session.registry.resolve(ref, field=field)  # raises UnknownRefError listing the known drafts
    raise StateError(f"{field}: {ref} has no stored content.", field=field, value=ref)


def load_drafts(session: Session, refs: Sequence[str], *, pending: bool = False) -> list[Draft]:
    """The drafts named in the argument `refs` (each named `refs[i]` in errors); with `pending`, all still pending.

    Raises:
        InvalidRefError, UnknownRefError: a ref that is not a draft of this session.
        StateError: with `pending`, a draft already saved or discarded.
    """
    drafts = [load_draft(session, ref, f"refs[{index}]") for index, ref in enumerate(refs)]
    if pending:
        for index, draft in enumerate(drafts):
            ensure_pending(draft, f"refs[{index}]")
    return drafts


def saved_drafts_references(session: Session, refs: Iterable[str]) -> dict[str, list[str]]:
    """For each saved draft among `refs`, the refs its content names (a meal draft's recipe, a task's meal)."""
    named: dict[str, list[str]] = {}
    for ref in refs:
        draft = session.read(DRAFTS.at(ref)) if ref.startswith("gen_") else None
        if isinstance(draft, Draft) and draft.status == "saved":
            named[ref] = [named_ref for _, _, named_ref in draft_refs(draft.parsed())]
    return named


def list_drafts(session: Session, *, include_done: bool = False) -> list[Draft]:
    """Drafts of the session in creation order (pending only unless `include_done`)."""
    drafts = list(session.read_family(DRAFTS).values())
    drafts.sort(key=lambda d: (d.turn_created, d.entity_type, _number(d.ref)))
    return [d for d in drafts if include_done or d.status == "pending"]


def revise(session: Session, ref: str, *, patch: Mapping[str, Any] | None, content: Mapping[str, Any] | None) -> Draft:
    """Change a pending draft in place (same ref): merge `patch`, or replace with `content`."""
    require_one_of({"patch": patch, "content": content}, {"patch": "fields to change", "content": "the whole draft"})
    draft = load_draft(session, ref)
    revised = revise_draft(draft, patch, turn=session.turn) if patch is not None else replace_draft(draft, content or {}, turn=session.turn)
    _check_refs(session, revised.parsed(), prefix="patch." if patch is not None else "content.")
    session.write(DRAFTS.at(ref), revised)
    session.registry.set_label(ref, revised.label)
    session.registry.touch(ref, turn=session.turn)
    _record(session, "draft_revise", revised.entity_type, "revised", [ref])
    return revised


def discard(session: Session, refs: Sequence[str]) -> list[Draft]:
    """Drop pending drafts; their refs then say they were discarded."""
    drafts = load_drafts(session, refs, pending=True)
    done = []
    for draft in drafts:
        discarded = discard_draft(draft, turn=session.turn)
        session.write(DRAFTS.at(draft.ref), discarded)
        session.registry.mark_deleted(draft.ref, turn=session.turn)
        done.append(discarded)
    _record(session, "draft_discard", None, "discarded", [d.ref for d in done])
    return done


# -- batches ----------------------------------------------------------------------------------


def open_batch(session: Session, refs: Sequence[str], policy: BatchPolicy | None) -> BatchManifest:
    """A manifest of pending drafts to save; `batch_complete` is refused while any is pending."""
    drafts = load_drafts(session, refs, pending=True)
    manifest = BatchManifest.new(next_batch_ref(session), _subdomain(drafts), [(d.ref, _label(session, d)) for d in drafts], policy)
    save_manifest(session, manifest)
    return manifest


def load_manifest(session: Session, batch: str | None) -> BatchManifest:
    """The named batch, or the latest one, each item under its current label (a draft revised since the batch
    opened, a row renamed, is named as it is now).

    Raises:
        InputError: no such batch (the message lists the session's batches).
    """
    names = session.family_suffixes(BATCHES)
    name = batch if batch else max(names, key=_number, default=None)
    found = session.read(BATCHES.at(name)) if isinstance(name, str) else None
    if found is None:
        known = ", ".join(sorted(names, key=_number)) or "none yet"
        if not batch:
            raise InputError("This session has no batches yet; draft_save makes one.", field="batch")
        raise InputError(f"Unknown batch {describe_value(batch)}; this session's batches: {known}.", field="batch", value=field_value(batch))
    for item in found.items:
        entry = session.registry.get(item.ref)
        if entry is not None and entry.label:
            item.label = entry.label
    return found


def save_manifest(session: Session, manifest: BatchManifest) -> None:
    session.write(BATCHES.at(str(manifest.step)), manifest)


def complete_batch(session: Session, batch: str | None) -> BatchManifest:
    """Close a batch: refused, naming the pending refs, while any item is pending."""
    manifest = load_manifest(session, batch)
    manifest.check_can_complete()
    _record(session, "batch_complete", None, "completed", manifest.refs())
    return manifest


def skip_items(session: Session, batch: str | None, refs: Sequence[str], reason: str) -> BatchManifest:
    manifest = load_manifest(session, batch)
    for ref in refs:
        manifest.mark_skipped(ref, reason)
    save_manifest(session, manifest)
    return manifest


def next_batch_ref(session: Session) -> str:
    """A new batch ref for the session: batch_1, batch_2, ..."""
    number = (session.read(BATCH_COUNTER) or 0) + 1
    session.write(BATCH_COUNTER, number)
    return f"batch_{number}"


def _subdomain(drafts: Sequence[Draft]) -> str:
    kinds = {d.entity_type for d in drafts}
    return table_for_entity_type(kinds.pop()).subdomain if len(kinds) == 1 else "mixed"


def _number(text: str) -> int:
    tail = text.rsplit("_", 1)[-1]
    return int(tail) if tail.isdigit() else 0


# -- saving -----------------------------------------------------------------------------------


@dataclass
class SavedItem:
    """What happened to one draft in a save."""

    ref: str
    label: str
    status: str
    saved_as: str | None = None
    reason: str | None = None
    warnings: list[str] = field(default_factory=list)
    children: dict[str, int] = field(default_factory=dict)


@dataclass
class _Written:
    table: str
    row: Row
    children: dict[str, list[Row]]


class _BatchResolver:
    """Refs as the registry resolves them, plus the batch's own: catalog matches and drafts just written."""

    def __init__(self, session: Session, catalog: dict[str, str]) -> None:
        self._registry = session.registry
        self._local = {ref: ("ing", row_id) for ref, row_id in catalog.items()}
        """ref -> (its entity type, row id): parsed once, when the ref becomes local."""

    def add(self, ref: str, row_id: str) -> None:
        parsed = parse_ref(ref)
        if parsed is not None:
            self._local[ref] = (parsed.entity_type, row_id)

    def forget(self, ref: str) -> None:
        """A draft whose write was rolled back no longer names a row."""
        self._local.pop(ref, None)

    def resolve(self, ref: str, *, expected_type: str | None = None, field: str | None = None) -> str:
        local = self._local.get(ref) if isinstance(ref, str) else None
        if local is not None and (expected_type is None or local[0] == expected_type):
            return local[1]
        return self._registry.resolve(ref, expected_type=expected_type, field=field)


async def save_drafts(
    work: UnitOfWork, refs: Sequence[str], *, batch: str | None, policy: BatchPolicy | None,
    allergy_override: AllergyOverride | None = None,
) -> tuple[BatchManifest, list[SavedItem]]:
    """Save drafts as rows: each recipe with all its ingredients or nothing of it.

    A draft naming another draft of the call (a variation's parent_recipe, a meal's recipe) is
    saved after it. Partial batches record each failure and go on; all-or-nothing batches write
    nothing unless every item saves. Either way the manifest records every item's outcome. A draft
    holding an allergen of the user that `allergy_override` does not cover is such a failure in a
    partial batch; in an all-or-nothing one it refuses the call.

    Raises:
        AllergenError: all-or-nothing, and a draft holds an allergen of the user that `allergy_override` does not cover.
    """
    session = work.session
    drafts = _drafts_to_save(session, refs)
    manifest = _manifest_for(session, drafts, batch, policy)
    refused, note = await _check_allergens(work, drafts, allergy_override, whole_call=manifest.policy == "all_or_nothing")
    unsaved = [SavedItem(d.ref, _label(session, d), "failed", reason=refused[d.ref]) for d in drafts if d.ref in refused]
    for item in unsaved:
        manifest.mark_failed(item.ref, item.reason or "")
    drafts = save_order([d for d in drafts if d.ref not in refused])
    catalog, catalog_ids = await catalog_index(work.store)  # the shared catalog: read before the write's transaction
    async with work.atomic():
        resolver = _BatchResolver(session, catalog_ids)
        if manifest.policy == "all_or_nothing":
            items = await _save_all_or_nothing(work, drafts, catalog, resolver, manifest)
        else:
            items = await _save_each(work, drafts, catalog, resolver, manifest) + unsaved
        save_manifest(session, manifest)
        summary = manifest.summary() + (f"; {note}" if note else "")
        _record(session, "draft_save", None, "saved", [i.saved_as for i in items if i.saved_as], note=summary)
    return manifest, items


def save_order(drafts: Sequence[Draft]) -> list[Draft]:
    """Recipes first, then pantry, shopping, meals, tasks; within a kind, a draft after the drafts it names."""
    in_call = {d.ref: d for d in drafts}

    def depth(draft: Draft, seen: frozenset[str] = frozenset()) -> int:
        named = [in_call[ref] for ref in links_of(draft.parsed()).values() if ref in in_call and ref not in seen]
        return 1 + max((depth(d, seen | {draft.ref}) for d in named if d.entity_type == draft.entity_type), default=-1)

    return sorted(drafts, key=lambda d: (SAVE_ORDER.index(d.entity_type), depth(d)))


def _waiting_on(session: Session, draft: Draft, in_call: set[str]) -> str | None:
    """Why `draft` cannot be saved now: it names a draft that is neither saved nor in this call."""
    for name, ref in links_of(draft.parsed()).items():
        entry = session.registry.get(ref)
        if entry is not None and entry.ref.startswith("gen_") and entry.saved_as is None and ref not in in_call:
            label = f" ({entry.label})" if entry.label else ""
            return (f"its {name} {ref}{label} is a draft not saved yet. Fixes: save both in one draft_save call "
                    f"({ref} is saved first); or save {ref} first; or draft_revise {draft.ref} without {name}.")
    return None


async def _check_allergens(
    work: UnitOfWork, drafts: Sequence[Draft], override: AllergyOverride | None, *, whole_call: bool,
) -> tuple[dict[str, str], str | None]:
    """Drafts holding an allergen of the user or the occasion's guests that `override` does not cover (ref -> why they are not saved),
    and the note an override leaves (see operations/allergies.py).

    Raises:
        AllergenError: `whole_call` (all or nothing) and some draft holds one: the call is refused.
    """
    held = await allergies.write_allergies(work)
    if not held.all():
        return {}, None
    in_call = {draft.ref for draft in drafts}
    hits = {draft.ref: allergen_hits(await draft_texts(work, draft, in_call), held.all()) for draft in drafts}
    if whole_call:
        return {}, allergies.verdict([hit for found in hits.values() for hit in found], override, allergies=held)
    refused: dict[str, str] = {}
    allowed = []
    for ref, found in hits.items():
        try:
            allergies.verdict(found, override, outcome="This draft was not saved.", allergies=held)
        except AllergenError as error:
            refused[ref] = error.message
        else:
            allowed += found
    return refused, allergies.verdict(allowed, override, allergies=held)


async def draft_texts(work: UnitOfWork, draft: Draft, in_call: set[str]) -> list[tuple[str, str]]:
    """The texts of a draft a constraint could speak against (its name, its lines; a meal's saved recipe), each with where it is."""
    model: Any = draft.parsed()
    where = f"{draft.ref} ({draft.label})"
    if draft.entity_type == "recipe":
        ingredient = f"{where}: ingredient"
        return [(f"{where}: name", model.name), *((ingredient, part.name) for part in model.ingredients)]
    if draft.entity_type == "shop":
        return [(f"{where}: item", model.name)]
    if draft.entity_type == "meal" and isinstance(model.recipe, str):
        recipe = _saved_recipe(work.session, model.recipe, in_call)
        if recipe is not None:
            return await allergies.recipe_texts(work, recipe, f"{where}: recipe")
    return []


def _saved_recipe(session: Session, ref: str, in_call: set[str]) -> str | None:
    """The saved recipe a meal draft names, to check for allergens: `ref` itself, or the recipe a draft
    (`gen_recipe_N`) was saved as. None for a draft of this call (checked as a draft) or one not saved yet."""
    if not ref.startswith("gen_"):
        return ref
    entry = session.registry.get(ref)
    return entry.saved_as if entry is not None and ref not in in_call else None


def _drafts_to_save(session: Session, refs: Sequence[str]) -> list[Draft]:
    if not refs:
        raise InputError("Name the drafts to save, e.g. refs: [gen_recipe_1].", field="refs")
    if len(refs) > MAX_DRAFTS_PER_CALL:
        raise InputError(f"Save at most {MAX_DRAFTS_PER_CALL} drafts per call.", field="refs")
    return load_drafts(session, refs, pending=True)


def _manifest_for(session: Session, drafts: list[Draft], batch: str | None, policy: BatchPolicy | None) -> BatchManifest:
    if batch is None:
        return BatchManifest.new(next_batch_ref(session), _subdomain(drafts), [(d.ref, _label(session, d)) for d in drafts], policy)
    manifest = load_manifest(session, batch)
    for draft in drafts:
        item = manifest.item(draft.ref)
        if item.status != "pending":
            raise StateError(f"{draft.ref} is already {item.status} in {batch}.", field="refs", value=draft.ref)
    return manifest


async def _save_each(
    work: UnitOfWork, drafts: list[Draft], catalog: CatalogIndex, resolver: _BatchResolver, manifest: BatchManifest
) -> list[SavedItem]:
    """Partial policy: every item that can be saved is; each failure is recorded with its reason."""
    items = {d.ref: SavedItem(d.ref, _label(work.session, d), "failed") for d in drafts}
    ready = []
    in_call = {d.ref for d in drafts}
    for done, draft in enumerate(drafts, start=1):
        waiting = _waiting_on(work.session, draft, in_call)
        try:
            if waiting is not None:
                raise _ItemFailed(draft.ref, StateError(f"{draft.ref} cannot be saved yet: {waiting}", field="refs"))
            ready.append(_compile_for(draft, catalog, items[draft.ref]))
        except _ItemFailed as failure:
            _fail(manifest, items[draft.ref], failure, resolver)
            in_call.discard(draft.ref)
        await _report_checked(done, draft, items[draft.ref], len(drafts))
    written = await _write_together(work, ready, resolver)
    if written is None:
        written = await _write_one_by_one(work, ready, resolver, items, manifest)
    await _register_all(work, drafts, written, items, manifest)
    return list(items.values())


async def _save_all_or_nothing(
    work: UnitOfWork, drafts: list[Draft], catalog: CatalogIndex, resolver: _BatchResolver, manifest: BatchManifest
) -> list[SavedItem]:
    """All-or-nothing policy: one savepoint for every item; the first failure undoes them all."""
    items = {d.ref: SavedItem(d.ref, _label(work.session, d), "failed") for d in drafts}
    written: dict[str, _Written] = {}
    try:
        async with work.atomic():
            in_call = {d.ref for d in drafts}
            for done, draft in enumerate(drafts, start=1):
                waiting = _waiting_on(work.session, draft, in_call)
                if waiting is not None:
                    raise _ItemFailed(draft.ref, StateError(f"{draft.ref} cannot be saved yet: {waiting}", field="refs"))
                compiled = _compile_for(draft, catalog, items[draft.ref])
                await _report_checked(done, draft, items[draft.ref], len(drafts))
                written[draft.ref] = await _write(work, compiled, resolver)
    except _ItemFailed as failure:
        manifest.mark_failed(failure.ref, failure.error.message)
        for item in items.values():
            recorded = manifest.item(item.ref)
            item.status, item.reason = recorded.status, recorded.reason
        return list(items.values())
    await _register_all(work, drafts, written, items, manifest)
    return list(items.values())


class _ItemFailed(Exception):
    def __init__(self, ref: str, error: AlfredError) -> None:
        super().__init__(error.message)
        self.ref, self.error = ref, error


def _compile_for(draft: Draft, catalog: CatalogIndex, item: SavedItem) -> Compiled:
    try:
        compiled = compile_draft(draft, catalog)
    except AlfredError as error:
        raise _ItemFailed(draft.ref, error) from None
    item.warnings = list(compiled.warnings)
    return compiled


def _fail(manifest: BatchManifest, item: SavedItem, failure: _ItemFailed, resolver: _BatchResolver) -> None:
    resolver.forget(failure.ref)
    item.reason = failure.error.message
    manifest.mark_failed(failure.ref, item.reason)


async def _write_together(work: UnitOfWork, ready: list[Compiled], resolver: _BatchResolver) -> dict[str, _Written] | None:
    """The fast path: every root of a table with all their children in one write, a group at a time.

    Returns None (and writes nothing) if anything is refused; the caller then saves one by one
    to find out which item failed and why.
    """
    written: dict[str, _Written] = {}
    groups = _groups(ready)
    try:
        # A group is one store write, all or nothing by itself; several are made one by an atomic block.
        async with work.atomic() if len(groups) > 1 else nullcontext():
            for group in groups:
                written.update(await _write_group(work, group, resolver))
    except (AlfredError, _ItemFailed):
        for compiled in ready:
            resolver.forget(compiled.ref)
        return None
    return written


def _groups(ready: list[Compiled]) -> list[list[Compiled]]:
    """Consecutive drafts with the same root table (drafts are already in save order), a draft that names
    another of the group (a variation of a recipe drafted with it) starting a new group after it."""
    groups: list[list[Compiled]] = []
    for compiled in ready:
        group = groups[-1] if groups else None
        linked = _linked_refs(compiled)
        names_one = group is not None and any(c.ref in linked for c in group)
        if group is not None and group[0].rows[0].table == compiled.rows[0].table and not names_one:
            group.append(compiled)
        else:
            groups.append([compiled])
    return groups


def _linked_refs(compiled: Compiled) -> set[str]:
    row = compiled.rows[0].data
    return {value for key, value in row.items() if key.endswith("_id") and isinstance(value, str) and value.startswith("gen_")}


async def _write_group(work: UnitOfWork, group: list[Compiled], resolver: _BatchResolver) -> dict[str, _Written]:
    """The group's root rows and all their children (a recipe's ingredients) in one store write."""
    table = TABLES[group[0].rows[0].table]
    payloads = [translate_payload(table, c.rows[0].data, resolver, mode="create", validated=True) for c in group]
    if table.name == "meal_plans":
        payloads = (await fill_servings(work, payloads)).payloads
    children = [_children_of(group, name, resolver, parent=table) for name in sorted({child.table for c in group for child in c.rows[0].children})]
    roots, stored = await work.store.insert_with_children(table, payloads, children, user_id=work.user_id)
    written = {}
    for compiled, row in zip(group, roots):
        resolver.add(compiled.ref, row["id"])
        written[compiled.ref] = _Written(table.name, row, {})
    for spec, rows in zip(children, stored):
        for parent, row in zip(spec.parents, rows):
            written[group[parent].ref].children.setdefault(spec.table.name, []).append(row)
    return written


def _children_of(group: list[Compiled], name: str, resolver: _BatchResolver, *, parent: Table) -> Children:
    """The group's child rows of table `name`, each pointing at its own draft's root (the store fills the link)."""
    table = TABLES[name]
    (link,) = [c.name for c in table.fk_columns if c.fk is not None and c.fk.table == parent.name and c.fk.on_delete == "cascade"]
    rows, parents = [], []
    for index, compiled in enumerate(group):
        for child in compiled.rows[0].children:
            if child.table == name:
                rows.append(translate_payload(table, child.data, resolver, mode="create", validated=True))
                parents.append(index)
    return Children(table, link, rows, parents)


async def _write_one_by_one(
    work: UnitOfWork, ready: list[Compiled], resolver: _BatchResolver, items: dict[str, SavedItem], manifest: BatchManifest
) -> dict[str, _Written]:
    written = {}
    for compiled in ready:
        try:
            async with work.atomic():
                written[compiled.ref] = await _write(work, compiled, resolver)
        except _ItemFailed as failure:
            _fail(manifest, items[compiled.ref], failure, resolver)
    return written


async def _write(work: UnitOfWork, compiled: Compiled, resolver: _BatchResolver) -> _Written:
    """Insert one draft's root row, then its children pointing at it; raise _ItemFailed on any refusal."""
    try:
        return (await _write_group(work, [compiled], resolver))[compiled.ref]
    except AlfredError as error:
        raise _ItemFailed(compiled.ref, error) from None


async def _register_all(
    work: UnitOfWork, drafts: list[Draft], written: dict[str, _Written], items: dict[str, SavedItem], manifest: BatchManifest
) -> None:
    """Refs for the saved rows (labels fetched once per table), then link each draft to its ref."""
    # Only the saved roots get refs now: child rows (a recipe's ingredients) are not shown by
    # draft_save, and a later read assigns their refs as every read does.
    session = work.session
    saved = [d for d in drafts if d.ref in written]
    refs = await _refs_by_table(work, [(written[d.ref].table, written[d.ref].row) for d in saved])
    for draft in drafts:
        item = items[draft.ref]
        if draft.ref in written:
            saved_ref = refs[written[draft.ref].row["id"]]
            session.registry.link_saved(draft.ref, saved_ref, turn=session.turn)
            session.write(DRAFTS.at(draft.ref), mark_draft_saved(draft, saved_ref))
            manifest.mark_completed(draft.ref, saved_ref)
            item.status, item.saved_as = "completed", saved_ref
            item.children = {name: len(rows) for name, rows in written[draft.ref].children.items()}
    outcomes = [(items[d.ref].ref, items[d.ref].saved_as) for d in drafts]
    work.after_commit(lambda: _report_saved(outcomes))


# Progress of a save counts 2 per draft: checked (compiled and validated, before any commit), then
# saved. "saved" is only ever announced after the call's commit (UnitOfWork.after_commit), so a
# client never hears of a ref that a crash could still take away.


async def _report_checked(done: int, draft: Draft, item: SavedItem, total: int) -> None:
    verdict = "failed" if item.reason else "ok"
    await report_progress(done, 2 * total, f"checked {done}/{total} {draft.ref}: {verdict}")


async def _report_saved(outcomes: list[tuple[str, str | None]]) -> None:
    total = len(outcomes)
    for done, (ref, saved_as) in enumerate(outcomes, start=1):
        await report_progress(total + done, 2 * total, f"saved {done}/{total} {ref}: {saved_as or 'failed'}")


async def _refs_by_table(work: UnitOfWork, rows: list[tuple[str, Row]]) -> dict[str, str]:
    """Register created rows, one call per table; row id -> its new ref."""
    by_table: dict[str, list[Row]] = {}
    for name, row in rows:
        by_table.setdefault(name, []).append(row)
    refs: dict[str, str] = {}
    for name, table_rows in by_table.items():
        out = await rows_to_refs(work, TABLES[name], table_rows, action="created")
        refs.update((row["id"], view["id"]) for row, view in zip(table_rows, out))
    return refs


def _record(session: Session, tool: str, entity_type: str | None, action: str, refs: list[str], note: str | None = None) -> None:
    table = table_for_entity_type(entity_type).name if entity_type else None
    session.record_call(CallRecord(turn=session.turn, tool=tool, table=table, action=action, refs=refs, count=len(refs), note=note))


def pending_draft_views(session: Session) -> list[DraftView]:
    """The session's drafts still waiting to be saved, as the working set shows them."""
    return [DraftView(d.ref, d.entity_type, _label(session, d)) for d in session.read_family(DRAFTS).values() if d.status == "pending"]


def _label(session: Session, draft: Draft) -> str:
    """A draft's label as its gen ref carries it (kept current by create and revise), else from its content."""
    entry = session.registry.get(draft.ref)
    return entry.label if entry is not None and entry.label is not None else draft.label
