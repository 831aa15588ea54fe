"""BatchManifest: a step's promised items, per-item outcomes, and the rule for completing the step."""

from __future__ import annotations

import pytest

from alfred_mcp.errors import BatchIncompleteError, InputError, InvalidRefError, StateError
from alfred_mcp.state.batch import BatchItem, BatchManifest

COD = {"gen_recipe_1": "Honey Garlic Cod", "gen_recipe_2": "Lemon Butter Cod", "gen_recipe_3": "Piri Piri Fish"}


def cod_batch() -> BatchManifest:
    return BatchManifest.new(2, "recipes", COD)


def week_batch() -> BatchManifest:
    items = [("gen_meal_1", "Sun Jan 11 [dinner]"), ("gen_meal_2", None), ("gen_meal_3", None)]
    return BatchManifest.new("plan-week", "meal_plans", items)


@pytest.mark.parametrize(
    ("subdomain", "policy"),
    [
        pytest.param("recipes", "partial", id="recipes"),
        pytest.param("meal_plans", "all_or_nothing", id="meal_plans"),
        pytest.param("shopping", "partial", id="shopping"),
        pytest.param("inventory", "partial", id="inventory"),
        pytest.param("tasks", "partial", id="tasks"),
    ],
)
def test_policy_defaults_from_the_subdomain(subdomain: str, policy: str) -> None:
    """Meal plans are all-or-nothing; everything else saves what it can."""
    assert BatchManifest.new(1, subdomain, {"gen_task_1": None}).policy == policy


def test_new_batch_has_every_item_pending_in_order() -> None:
    """The manifest holds the declared items, each pending, with its label."""
    batch = cod_batch()
    assert batch.items == [BatchItem(ref, label) for ref, label in COD.items()]
    assert batch.pending() == list(COD)
    assert batch.progress() == {"pending": 3, "completed": 0, "failed": 0, "skipped": 0, "total": 3}
    assert (batch.is_done, batch.outcome) == (False, "in_progress")


def test_step_cannot_complete_with_pending_items() -> None:
    """Seed failure 2: saving one recipe's ingredients and calling step_complete is refused, naming the rest."""
    batch = cod_batch()
    batch.mark_completed("gen_recipe_1", "recipe_1")
    with pytest.raises(BatchIncompleteError) as caught:
        batch.check_can_complete()
    assert caught.value.code == "batch_incomplete"
    assert caught.value.fields == {"step": 2, "pending": ["gen_recipe_2", "gen_recipe_3"]}
    assert "2 of 3 items are still pending (gen_recipe_2, gen_recipe_3)" in caught.value.message


def test_failure_does_not_block_the_others_in_a_partial_batch() -> None:
    """One recipe failing leaves the others to save; the step completes as partial."""
    batch = cod_batch()
    batch.mark_failed("gen_recipe_3", "name is required")
    batch.mark_completed("gen_recipe_1", "recipe_1")
    batch.mark_completed("gen_recipe_2", "recipe_2")
    batch.check_can_complete()
    assert (batch.is_done, batch.outcome) == (True, "partial")
    assert batch.progress() == {"pending": 0, "completed": 2, "failed": 1, "skipped": 0, "total": 3}
    assert batch.summary() == "2 of 3 saved; gen_recipe_3 failed: name is required"


def test_failed_item_can_be_retried_in_a_partial_batch() -> None:
    """A retry that succeeds clears the failure."""
    batch = cod_batch()
    batch.mark_failed("gen_recipe_2", "database busy")
    batch.mark_completed("gen_recipe_2", "recipe_5")
    assert batch.item("gen_recipe_2") == BatchItem("gen_recipe_2", "Lemon Butter Cod", "completed", "recipe_5", None)


def test_all_failed_is_a_failed_outcome_even_when_partial() -> None:
    """Nothing saved is a failure, whatever the policy."""
    batch = BatchManifest.new(1, "recipes", {"gen_recipe_1": None})
    batch.mark_failed("gen_recipe_1", "too many ingredients")
    batch.check_can_complete()
    assert batch.outcome == "failed"


def test_all_or_nothing_failure_fails_the_batch_and_skips_the_rest() -> None:
    """In a meal-plan batch one failure skips the pending items and the step is refused as a whole."""
    batch = week_batch()
    batch.mark_failed("gen_meal_2", "date is required")
    assert [item.status for item in batch.items] == ["skipped", "failed", "skipped"]
    assert batch.outcome == "failed"
    with pytest.raises(BatchIncompleteError) as caught:
        batch.check_can_complete()
    assert caught.value.fields == {"step": "plan-week", "failed": ["gen_meal_2"]}
    assert "gen_meal_2: date is required" in caught.value.message
    assert batch.summary() == (
        "0 of 3 saved; gen_meal_2 failed: date is required; "
        "gen_meal_1, gen_meal_3 skipped: not saved: gen_meal_2 failed and this batch is all-or-nothing"
    )


def test_all_or_nothing_batch_refuses_completions_after_a_failure() -> None:
    """Once the batch failed, nothing more may be recorded as saved."""
    batch = week_batch()
    batch.mark_failed("gen_meal_1", "unknown recipe")
    with pytest.raises(StateError) as caught:
        batch.mark_completed("gen_meal_3", "meal_3")
    assert caught.value.fields["failed"] == ["gen_meal_1"]


def test_all_or_nothing_batch_completes_when_everything_saves() -> None:
    """The happy path of a meal-plan batch."""
    batch = week_batch()
    for n in (1, 2, 3):
        batch.mark_completed(f"gen_meal_{n}", f"meal_{n + 10}")
    batch.check_can_complete()
    assert (batch.outcome, batch.summary()) == ("completed", "3 of 3 saved")


def test_completing_twice_is_idempotent_but_never_as_another_row() -> None:
    """The same item cannot be recorded as two rows (seed failure 3: one entity, two ids)."""
    batch = cod_batch()
    batch.mark_completed("gen_recipe_1", "recipe_1")
    batch.mark_completed("gen_recipe_1", "recipe_1")
    with pytest.raises(StateError) as caught:
        batch.mark_completed("gen_recipe_1", "recipe_9")
    assert "already saved as recipe_1" in caught.value.message


def test_completed_item_cannot_fail_or_be_skipped() -> None:
    """What was saved stays saved in the manifest."""
    batch = cod_batch()
    batch.mark_completed("gen_recipe_1", "recipe_1")
    with pytest.raises(StateError):
        batch.mark_failed("gen_recipe_1", "oops")
    with pytest.raises(StateError):
        batch.mark_skipped("gen_recipe_1", "duplicate")


def test_failures_and_skips_need_a_reason() -> None:
    """The reply has to say why, so the manifest insists on a reason."""
    batch = cod_batch()
    with pytest.raises(InputError):
        batch.mark_failed("gen_recipe_1", "  ")


def test_skipped_items_let_the_step_complete_and_are_summarized() -> None:
    """A deliberate skip is done, not pending."""
    batch = cod_batch()
    batch.mark_completed("gen_recipe_1", "recipe_1")
    batch.mark_skipped("gen_recipe_2", "user dropped it")
    batch.mark_skipped("gen_recipe_3", "user dropped it")
    batch.check_can_complete()
    assert batch.summary() == "1 of 3 saved; gen_recipe_2, gen_recipe_3 skipped: user dropped it"


def test_summary_lists_pending_items() -> None:
    """An unfinished batch says what is left."""
    batch = cod_batch()
    batch.mark_completed("gen_recipe_2", "recipe_2")
    assert batch.summary() == "1 of 3 saved; pending: gen_recipe_1, gen_recipe_3"


def test_summary_uses_the_batch_action() -> None:
    """A delete batch reports deletions."""
    batch = BatchManifest.new(3, "inventory", {"inv_1": "milk", "inv_2": "eggs"}, action="deleted")
    batch.mark_completed("inv_1", "inv_1")
    assert batch.summary() == "1 of 2 deleted; pending: inv_2"


def test_unknown_item_names_the_batch_refs() -> None:
    """Asking about a ref the batch does not hold lists the refs it does."""
    with pytest.raises(InputError) as caught:
        cod_batch().mark_completed("gen_recipe_4", "recipe_4")
    assert caught.value.fields["valid"] == list(COD)
    assert "gen_recipe_1, gen_recipe_2, gen_recipe_3" in caught.value.message


@pytest.mark.parametrize(
    ("items", "error"),
    [
        pytest.param([], InputError, id="empty"),
        pytest.param([("gen_recipe_1", "A"), ("gen_recipe_1", "A again")], InputError, id="duplicate"),
        pytest.param([("Honey Garlic Cod", None)], InvalidRefError, id="not-a-ref"),
    ],
)
def test_batch_items_are_distinct_refs(items: list[tuple[str, str | None]], error: type[Exception]) -> None:
    """A batch declares at least one item, each a ref, each once."""
    with pytest.raises(error):
        BatchManifest.new(1, "recipes", items)


def test_result_must_be_a_ref_and_a_raw_id_is_not_repeated() -> None:
    """A raw id is not a result, and the error does not echo it."""
    with pytest.raises(InvalidRefError) as caught:
        cod_batch().mark_completed("gen_recipe_1", "3f1b2c4d-1111-2222-3333-444455556666")
    assert "3f1b2c4d" not in caught.value.message and "value" not in caught.value.fields


def test_unknown_policy_is_refused() -> None:
    """Only partial and all_or_nothing exist."""
    with pytest.raises(InputError):
        BatchManifest.new(1, "recipes", COD, "best_effort")  # type: ignore[arg-type]


def test_manifest_round_trips_through_a_dict() -> None:
    """to_dict/from_dict persist every item's status, result and reason."""
    batch = week_batch()
    batch.mark_completed("gen_meal_1", "meal_4")
    batch.mark_failed("gen_meal_2", "date is required")
    restored = BatchManifest.from_dict(batch.to_dict())
    assert restored == batch
    assert restored.to_dict() == batch.to_dict()


@pytest.mark.parametrize(
    "stored",
    [
        pytest.param({"step": 1}, id="missing-keys"),
        pytest.param({**cod_batch().to_dict(), "policy": "sometimes"}, id="bad-policy"),
        pytest.param({**cod_batch().to_dict(), "items": [{"ref": "gen_recipe_1", "status": "done"}]}, id="bad-status"),
        pytest.param({**cod_batch().to_dict(), "items": [{"ref": "gen_recipe_1"}, {"ref": "gen_recipe_1"}]}, id="duplicate"),
        pytest.param({**cod_batch().to_dict(), "items": [{"ref": "gen_recipe_1", "colour": "red"}]}, id="unknown-item-key"),
    ],
)
def test_malformed_stored_manifest_is_a_state_error(stored: dict[str, object]) -> None:
    """Corrupt persisted manifests are reported, not loaded."""
    with pytest.raises(StateError):
        BatchManifest.from_dict(stored)
