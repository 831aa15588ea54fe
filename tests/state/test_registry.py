"""SessionIdRegistry: refs assigned once, resolved strictly, deleted and draft refs explained."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alfred_mcp.errors import (
    DeletedRefError,
    InvalidRefError,
    PendingDraftError,
    StateError,
    UnknownRefError,
)
from alfred_mcp.state.registry import RefEntry, SessionIdRegistry

ROW_A = "0b8c2f4e-0000-4000-8000-00000000000a"
ROW_B = "0b8c2f4e-0000-4000-8000-00000000000b"
ROW_C = "0b8c2f4e-0000-4000-8000-00000000000c"


def registry_with_recipes(*labels: str, turn: int = 1) -> tuple[SessionIdRegistry, list[str]]:
    registry = SessionIdRegistry()
    refs = [registry.register_row("recipe", f"row-{i}", label, turn=turn, action="read") for i, label in enumerate(labels)]
    return registry, refs


def test_refs_are_assigned_in_order_per_entity_type() -> None:
    """Each entity type counts on its own, from 1."""
    registry = SessionIdRegistry()
    assigned = [
        registry.register_row("recipe", ROW_A, "Thai Curry", turn=1, action="read"),
        registry.register_row("inv", ROW_B, "Eggs", turn=1, action="read"),
        registry.register_row("recipe", ROW_C, "Pasta", turn=1, action="read"),
    ]
    assert assigned == ["recipe_1", "inv_1", "recipe_2"]
    assert [e.ref for e in registry.entries()] == assigned
    assert registry.counters() == {"recipe": 2, "inv": 1}


def test_same_row_keeps_its_ref_and_updates_label_action_and_turn() -> None:
    registry = SessionIdRegistry()
    first = registry.register_row("recipe", ROW_A, "Thai Curry", turn=1, action="read")
    again = registry.register_row("recipe", ROW_A, "Thai Green Curry", turn=3, action="updated")
    assert again == first == "recipe_1"
    assert registry.entry(first) == RefEntry("recipe_1", "recipe", ROW_A, "Thai Green Curry", "updated", 1, 3)
    assert len(registry) == 1


def test_registering_without_a_label_keeps_the_known_label() -> None:
    registry = SessionIdRegistry()
    ref = registry.register_row("recipe", ROW_A, "Thai Curry", turn=1, action="read")
    registry.register_row("recipe", ROW_A, None, turn=2, action="read")
    assert registry.entry(ref).label == "Thai Curry"


def test_one_row_cannot_become_two_entity_types() -> None:
    registry = SessionIdRegistry()
    registry.register_row("recipe", ROW_A, "Thai Curry", turn=1, action="read")
    with pytest.raises(StateError):
        registry.register_row("inv", ROW_A, "Eggs", turn=1, action="read")


def test_counters_are_never_reused_after_delete_or_reload() -> None:
    """A deleted ref's number is not handed out again, also after a reload from entries and counters."""
    registry, refs = registry_with_recipes("A", "B")
    registry.mark_deleted(refs[1], turn=2)
    reloaded = SessionIdRegistry(registry.entries(), registry.counters())
    assert reloaded.register_row("recipe", ROW_C, "C", turn=3, action="created") == "recipe_3"
    assert reloaded.assign_gen_ref("recipe", "Draft", turn=3) == "gen_recipe_1"


def test_counters_cover_entries_even_when_stored_counters_lag() -> None:
    entries = [RefEntry("recipe_7", "recipe", ROW_A, "A", "read", 1, 1)]
    registry = SessionIdRegistry(entries, {"recipe": 2})
    assert registry.register_row("recipe", ROW_B, "B", turn=2, action="read") == "recipe_8"


def test_reload_does_not_share_entries_with_the_original() -> None:
    registry, refs = registry_with_recipes("A")
    reloaded = SessionIdRegistry(registry.entries(), registry.counters())
    reloaded.mark_deleted(refs[0], turn=5)
    assert registry.entry(refs[0]).deleted_turn is None


@pytest.mark.parametrize(
    "entries",
    [
        pytest.param([RefEntry("recipe_1", "recipe", ROW_A, "A", "read", 1, 1)] * 2, id="duplicate-ref"),
        pytest.param(
            [RefEntry("recipe_1", "recipe", ROW_A, "A", "read", 1, 1), RefEntry("recipe_2", "recipe", ROW_A, "B", "read", 1, 1)],
            id="row-mapped-twice",
        ),
        pytest.param([RefEntry("recipe_1", "inv", ROW_A, "A", "read", 1, 1)], id="type-mismatch"),
        pytest.param([RefEntry("recipe-1", "recipe", ROW_A, "A", "read", 1, 1)], id="bad-grammar"),
    ],
)
def test_inconsistent_stored_entries_are_refused(entries: list[RefEntry]) -> None:
    with pytest.raises(StateError):
        SessionIdRegistry(entries)


def test_entry_round_trips_through_dict() -> None:
    """to_dict/from_dict keep every persisted field."""
    entry = RefEntry("gen_recipe_2", "recipe", None, "Honey Cod", "saved", 2, 4, deleted_turn=None, saved_as="recipe_9")
    data = entry.to_dict()
    assert data == {
        "ref": "gen_recipe_2", "entity_type": "recipe", "row_id": None, "label": "Honey Cod", "action": "saved",
        "turn_created": 2, "turn_last_ref": 4, "deleted_turn": None, "saved_as": "recipe_9",
    }
    assert RefEntry.from_dict(data) == entry


def test_registry_round_trips_through_dicts_and_counters() -> None:
    registry, refs = registry_with_recipes("A", "B")
    registry.mark_deleted(refs[0], turn=2)
    draft = registry.assign_gen_ref("recipe", "Draft", turn=2)
    stored = [e.to_dict() for e in registry.entries()]
    reloaded = SessionIdRegistry([RefEntry.from_dict(d) for d in stored], registry.counters())
    assert reloaded.entries() == registry.entries()
    assert reloaded.counters() == registry.counters()
    assert reloaded.ref_for_row("row-1") == refs[1] and draft in reloaded


def test_touch_records_the_last_turn_a_ref_was_used() -> None:
    registry, refs = registry_with_recipes("A", turn=1)
    registry.touch(refs[0], turn=4)
    entry = registry.entry(refs[0])
    assert (entry.turn_created, entry.turn_last_ref, entry.action) == (1, 4, "read")


def test_mark_updated_sets_action_and_turn() -> None:
    registry, refs = registry_with_recipes("A", turn=1)
    registry.mark_updated(refs[0], turn=2)
    entry = registry.entry(refs[0])
    assert (entry.action, entry.turn_last_ref) == ("updated", 2)


def test_resolve_gives_the_row_id() -> None:
    registry, refs = registry_with_recipes("A", "B")
    assert registry.resolve(refs[1], expected_type="recipe", field="recipe_id") == "row-1"
    assert registry.resolve(refs[0]) == "row-0"


def test_deleted_ref_is_rejected_with_its_label_and_turn() -> None:
    registry, refs = registry_with_recipes("Thai Curry", "Pasta")
    registry.mark_deleted(refs[0], turn=4)
    with pytest.raises(DeletedRefError) as raised:
        registry.resolve(refs[0], expected_type="recipe", field="id")
    assert raised.value.message == "id: recipe_1 (Thai Curry) was deleted in turn 4."
    assert raised.value.fields == {"field": "id", "value": "recipe_1", "label": "Thai Curry", "deleted_turn": 4}


def test_deleted_ref_keeps_its_mapping_and_metadata() -> None:
    """A deleted ref stays known: same row, label and creation turn; its number stays taken."""
    registry, refs = registry_with_recipes("Thai Curry")
    registry.mark_deleted(refs[0], turn=4)
    registry.mark_deleted(refs[0], turn=6)
    assert registry.ref_for_row("row-0") == refs[0]
    assert registry.entry(refs[0]) == RefEntry("recipe_1", "recipe", "row-0", "Thai Curry", "deleted", 1, 6, deleted_turn=4)


def test_a_deleted_row_seen_again_is_revived() -> None:
    """The database is the truth: a row a read returns exists, whatever the registry thought."""
    registry, refs = registry_with_recipes("Thai Curry")
    registry.mark_deleted(refs[0], turn=2)
    assert registry.register_row("recipe", "row-0", "Thai Curry", turn=3, action="read") == refs[0]
    assert registry.resolve(refs[0]) == "row-0"


def test_unknown_ref_error_lists_known_refs_compactly() -> None:
    registry, refs = registry_with_recipes("A", "B", "C", "D", "E", "F", "G")
    registry.mark_deleted(refs[4], turn=2)
    with pytest.raises(UnknownRefError) as raised:
        registry.resolve("recipe_9", expected_type="recipe", field="id")
    assert raised.value.message == (
        "id: Unknown ref 'recipe_9': this session knows recipe_1..recipe_4, recipe_6..recipe_7; read recipes to get refs."
    )
    assert raised.value.fields == {"field": "id", "value": "recipe_9"}


def test_unknown_ref_error_says_when_no_refs_of_the_type_are_known() -> None:
    registry, _ = registry_with_recipes("A")
    with pytest.raises(UnknownRefError, match=r"knows no inv refs yet; read inventory to get refs"):
        registry.resolve("inv_2")


def test_unknown_ref_error_caps_a_long_list() -> None:
    registry, refs = registry_with_recipes(*"ABCDEFGHIJKLMNOPQRST")
    for ref in refs[1::2]:
        registry.mark_deleted(ref, turn=2)
    with pytest.raises(UnknownRefError, match=r"recipe_15 and 2 more ranges;"):
        registry.resolve("recipe_99")


@pytest.mark.parametrize(
    ("value", "field", "words"),
    [
        pytest.param("inv_1", "recipe_id", ["recipe_id takes a recipe ref (recipe_N)", "'inv_1' is a pantry item"], id="wrong-type"),
        pytest.param("gen_inv_1", "recipe_id", ["'gen_inv_1' is a pantry item draft"], id="wrong-type-draft"),
        pytest.param("Thai Curry", "id", ["id takes a recipe ref", "'Thai Curry' is not a ref", "not raw ids"], id="a-name"),
        pytest.param("recipe_01", None, ["Expected a recipe ref", "is not a ref"], id="leading-zero"),
        pytest.param("batch_2024", "id", ["is not a ref"], id="ref-lookalike"),
        pytest.param(ROW_A, "id", ["a raw id is not a ref", "not raw ids"], id="raw-uuid"),
        pytest.param(7, "id", ["7 is not a ref"], id="not-a-string"),
    ],
)
def test_strings_that_are_not_refs_of_the_expected_type_are_invalid(value: object, field: str | None, words: list[str]) -> None:
    registry, _ = registry_with_recipes("A")
    registry.register_row("inv", "row-inv", "Eggs", turn=1, action="read")
    with pytest.raises(InvalidRefError) as raised:
        registry.resolve(value, expected_type="recipe", field=field)  # type: ignore[arg-type]
    for word in words:
        assert word in raised.value.message
    assert ROW_A not in raised.value.message and ROW_A not in str(raised.value.fields)


def test_gen_ref_lifecycle_from_draft_to_saved_row() -> None:
    """A draft is refused until saved; then the draft ref and the saved ref both name the row."""
    registry = SessionIdRegistry()
    draft = registry.assign_gen_ref("recipe", "Honey Cod", turn=1)
    assert draft == "gen_recipe_1"
    assert registry.entry(draft) == RefEntry("gen_recipe_1", "recipe", None, "Honey Cod", "generated", 1, 1)
    with pytest.raises(PendingDraftError, match=r"gen_recipe_1 \(Honey Cod\) is a draft that has not been saved"):
        registry.resolve(draft, expected_type="recipe", field="recipe_id")
    saved = registry.register_row("recipe", ROW_A, "Honey Cod", turn=2, action="created")
    registry.link_saved(draft, saved, turn=2)
    assert registry.resolve(draft, expected_type="recipe") == ROW_A
    assert registry.resolve(saved, expected_type="recipe") == ROW_A
    entry = registry.entry(draft)
    assert (entry.action, entry.saved_as, entry.row_id, entry.turn_last_ref) == ("saved", "recipe_1", None, 2)
    assert registry.ref_for_row(ROW_A) == saved


def test_saved_draft_of_a_deleted_row_names_both_refs() -> None:
    registry = SessionIdRegistry()
    draft = registry.assign_gen_ref("recipe", "Honey Cod", turn=1)
    saved = registry.register_row("recipe", ROW_A, "Honey Cod", turn=1, action="created")
    registry.link_saved(draft, saved, turn=1)
    registry.mark_deleted(saved, turn=3)
    with pytest.raises(DeletedRefError) as raised:
        registry.resolve(draft)
    assert raised.value.message == "gen_recipe_1 was saved as recipe_1 (Honey Cod), which was deleted in turn 3."


def test_link_saved_gives_the_saved_row_the_draft_label() -> None:
    registry = SessionIdRegistry()
    draft = registry.assign_gen_ref("recipe", "Honey Cod", turn=1)
    saved, _ = registry.register_link("recipe", ROW_A, turn=1)
    registry.link_saved(draft, saved, turn=1)
    assert registry.entry(saved).label == "Honey Cod"


@pytest.mark.parametrize(
    ("gen_ref", "saved_ref", "error"),
    [
        pytest.param("recipe_1", "recipe_1", InvalidRefError, id="not-a-draft"),
        pytest.param("gen_recipe_1", "inv_1", InvalidRefError, id="other-type"),
        pytest.param("gen_recipe_1", "gen_recipe_2", InvalidRefError, id="saved-as-a-draft"),
        pytest.param("gen_recipe_1", "recipe_9", UnknownRefError, id="unknown-saved-ref"),
        pytest.param("gen_recipe_9", "recipe_1", UnknownRefError, id="unknown-draft"),
    ],
)
def test_link_saved_refuses_bad_pairs(gen_ref: str, saved_ref: str, error: type[Exception]) -> None:
    registry = SessionIdRegistry()
    registry.assign_gen_ref("recipe", "A", turn=1)
    registry.assign_gen_ref("recipe", "B", turn=1)
    registry.register_row("recipe", ROW_A, "A", turn=1, action="created")
    registry.register_row("inv", ROW_B, "Eggs", turn=1, action="read")
    with pytest.raises(error):
        registry.link_saved(gen_ref, saved_ref, turn=1)


def test_a_draft_cannot_be_saved_as_two_rows() -> None:
    registry = SessionIdRegistry()
    draft = registry.assign_gen_ref("recipe", "A", turn=1)
    first = registry.register_row("recipe", ROW_A, "A", turn=1, action="created")
    second = registry.register_row("recipe", ROW_B, "A", turn=1, action="created")
    registry.link_saved(draft, first, turn=1)
    with pytest.raises(StateError, match="already saved as recipe_1"):
        registry.link_saved(draft, second, turn=1)


def test_unknown_gen_ref_hint_talks_about_drafts() -> None:
    registry = SessionIdRegistry()
    registry.assign_gen_ref("recipe", "A", turn=1)
    with pytest.raises(UnknownRefError) as raised:
        registry.resolve("gen_recipe_4")
    assert raised.value.message == (
        "Unknown ref 'gen_recipe_4': this session knows gen_recipe_1; only drafts generated in this session have gen refs."
    )


def test_register_link_registers_a_new_target_once() -> None:
    registry = SessionIdRegistry()
    assert registry.register_link("recipe", ROW_A, turn=1) == ("recipe_1", True)
    assert registry.register_link("recipe", ROW_A, turn=2) == ("recipe_1", False)
    assert registry.entry("recipe_1") == RefEntry("recipe_1", "recipe", ROW_A, None, "linked", 1, 1)


def test_register_link_leaves_a_known_row_unchanged() -> None:
    registry, refs = registry_with_recipes("Thai Curry")
    before = registry.entry(refs[0]).to_dict()
    registry.clear_dirty()
    assert registry.register_link("recipe", "row-0", turn=5) == (refs[0], False)
    assert registry.entry(refs[0]).to_dict() == before and registry.dirty_entries() == []


def test_set_label_changes_the_label() -> None:
    registry = SessionIdRegistry()
    ref, _ = registry.register_link("recipe", ROW_A, turn=1)
    registry.set_label(ref, "Thai Curry")
    assert registry.entry(ref).label == "Thai Curry"


def test_entry_and_get_for_unknown_refs() -> None:
    registry = SessionIdRegistry()
    assert registry.get("recipe_1") is None
    assert "recipe_1" not in registry
    with pytest.raises(UnknownRefError):
        registry.entry("recipe_1")
    with pytest.raises(UnknownRefError, match="'pasta' is not a ref"):
        registry.entry("pasta")


def test_dirty_entries_are_those_changed_since_the_last_clear() -> None:
    """Loading is clean; new, touched, deleted and relabelled refs become dirty once each."""
    registry, refs = registry_with_recipes("A", "B", "C")
    assert [e.ref for e in registry.dirty_entries()] == refs
    registry.clear_dirty()
    assert registry.dirty_entries() == []
    registry.touch(refs[2], turn=2)
    registry.mark_deleted(refs[0], turn=2)
    registry.touch(refs[2], turn=3)
    new = registry.assign_gen_ref("recipe", "D", turn=3)
    assert [e.ref for e in registry.dirty_entries()] == [refs[2], refs[0], new]
    reloaded = SessionIdRegistry(registry.entries(), registry.counters())
    assert reloaded.dirty_entries() == []


def test_seeing_a_row_again_unchanged_does_not_dirty_it() -> None:
    """Re-reads in the same turn, no-op touches and same labels cost no save."""
    registry, refs = registry_with_recipes("A", turn=2)
    registry.clear_dirty()
    registry.register_row("recipe", "row-0", "A", turn=2, action="read")
    registry.register_row("recipe", "row-0", None, turn=2, action="read")
    registry.touch(refs[0], turn=2)
    registry.set_label(refs[0], "A")
    assert registry.dirty_entries() == []
    registry.register_row("recipe", "row-0", "A", turn=3, action="read")
    assert registry.dirty_entries() == [registry.entry(refs[0])]


def test_unknown_entity_type_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="unknown entity type"):
        SessionIdRegistry().assign_gen_ref("pizza", None, turn=1)


# -- property: refs and row ids stay in one-to-one correspondence ------------------------------

_TYPES = ("recipe", "inv", "meal")
_operations = st.lists(
    st.one_of(
        st.tuples(st.just("register"), st.sampled_from(_TYPES), st.integers(0, 9)),
        st.tuples(st.just("link"), st.sampled_from(_TYPES), st.integers(0, 9)),
        st.tuples(st.just("delete"), st.integers(0, 50)),
        st.tuples(st.just("gen"), st.sampled_from(_TYPES)),
        st.tuples(st.just("save"), st.integers(0, 50), st.integers(0, 9)),
        st.tuples(st.just("reload")),
    ),
    max_size=60,
)


def _apply(registry: SessionIdRegistry, operation: tuple, turn: int) -> SessionIdRegistry:
    kind = operation[0]
    refs = [e.ref for e in registry.entries()]
    if kind == "register":
        registry.register_row(operation[1], f"{operation[1]}-row-{operation[2]}", "label", turn=turn, action="read")
    elif kind == "link":
        registry.register_link(operation[1], f"{operation[1]}-row-{operation[2]}", turn=turn)
    elif kind == "delete" and refs:
        registry.mark_deleted(refs[operation[1] % len(refs)], turn=turn)
    elif kind == "gen":
        registry.assign_gen_ref(operation[1], "draft", turn=turn)
    elif kind == "save" and refs:
        draft = registry.entry(refs[operation[1] % len(refs)])
        if draft.ref.startswith("gen_") and draft.saved_as is None:
            saved = registry.register_row(draft.entity_type, f"{draft.entity_type}-row-{operation[2]}", None, turn=turn, action="created")
            registry.link_saved(draft.ref, saved, turn=turn)
    elif kind == "reload":
        return SessionIdRegistry([RefEntry.from_dict(e.to_dict()) for e in registry.entries()], registry.counters())
    return registry


@settings(max_examples=200, deadline=None)
@given(_operations)
def test_random_operations_keep_refs_bijective_and_counters_monotonic(operations: list[tuple]) -> None:
    """Whatever happens, each row has one ref and back, refs never change meaning, counters never fall."""
    registry = SessionIdRegistry()
    meaning: dict[str, tuple[str, str | None]] = {}
    for turn, operation in enumerate(operations, start=1):
        before = registry.counters()
        registry = _apply(registry, operation, turn)
        after = registry.counters()
        assert all(after[key] >= value for key, value in before.items())
        rows = {}
        for entry in registry.entries():
            assert meaning.setdefault(entry.ref, (entry.entity_type, entry.row_id)) == (entry.entity_type, entry.row_id)
            number = int(entry.ref.rsplit("_", 1)[1])
            key = f"gen_{entry.entity_type}" if entry.ref.startswith("gen_") else entry.entity_type
            assert number <= after[key]
            if entry.row_id is not None:
                assert entry.row_id not in rows
                rows[entry.row_id] = entry.ref
                assert registry.ref_for_row(entry.row_id) == entry.ref
            if entry.saved_as is not None and entry.deleted_turn is None:
                saved = registry.entry(entry.saved_as)
                if saved.deleted_turn is None:
                    assert registry.resolve(entry.ref) == saved.row_id
        assert set(meaning) == {e.ref for e in registry.entries()}
