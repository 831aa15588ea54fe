"""BatchManifest: the items a plan step promised, their statuses, and when the step may complete.

"Save all 3" becomes three items, and the step cannot complete while one is pending. Each
failure is recorded on its item with a reason. In a 'partial' batch (the default) a failure does
not block the other items. In an 'all_or_nothing' batch (meal plans: half a planned week is
worse than none) a failure fails the batch: the items not yet done are skipped, nothing more can
complete, and the saver is expected to roll back what it wrote in the same transaction.
"""

from __future__ import annotations

import typing
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from alfred_mcp.errors import BatchIncompleteError, InputError, InvalidRefError, StateError
from alfred_mcp.kitchen.jsonschema import describe_value, field_value
from alfred_mcp.state.refs import is_ref

ItemStatus = Literal["pending", "completed", "failed", "skipped"]
BatchPolicy = Literal["partial", "all_or_nothing"]
BatchOutcome = Literal["in_progress", "completed", "partial", "failed"]

_STATUSES: tuple[ItemStatus, ...] = typing.get_args(ItemStatus)
_POLICIES: tuple[str, ...] = typing.get_args(BatchPolicy)
_DEFAULT_POLICIES: dict[str, BatchPolicy] = {"meal_plans": "all_or_nothing"}


def default_policy(subdomain: str) -> BatchPolicy:
    """'all_or_nothing' for meal plans, 'partial' for everything else."""
    return _DEFAULT_POLICIES.get(subdomain, "partial")


@dataclass
class BatchItem:
    """One promised item, named by its ref (usually a gen ref such as 'gen_recipe_2')."""

    ref: str
    label: str | None = None
    status: ItemStatus = "pending"
    result_ref: str | None = None
    """The ref of the row it became, e.g. 'recipe_7'."""
    reason: str | None = None
    """Why it failed or was skipped."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "ref": self.ref, "label": self.label, "status": self.status,
            "result_ref": self.result_ref, "reason": self.reason,
        }


@dataclass
class BatchManifest:
    """The items of one plan step and what happened to each."""

    step: str | int
    subdomain: str
    policy: BatchPolicy
    items: list[BatchItem] = field(default_factory=list)
    action: str = "saved"
    """The verb for a completed item in summaries: 'saved', 'updated', 'deleted'."""

    @classmethod
    def new(
        cls,
        step: str | int,
        subdomain: str,
        refs_with_labels: Mapping[str, str | None] | Iterable[tuple[str, str | None]],
        policy: BatchPolicy | None = None,
        *,
        action: str = "saved",
    ) -> BatchManifest:
        """A manifest with every item pending; the policy defaults from the subdomain.

        Raises:
            InputError: no items, the same ref twice, or an unknown policy.
            InvalidRefError: an item that is not a ref.
        """
        pairs = list(refs_with_labels.items() if isinstance(refs_with_labels, Mapping) else refs_with_labels)
        if not pairs:
            raise InputError(f"Step {step}'s batch needs at least one item.", field="items")
        chosen = policy or default_policy(subdomain)
        if chosen not in _POLICIES:
            raise InputError(f"Unknown batch policy {chosen!r}.", field="policy", value=chosen, valid=list(_POLICIES))
        manifest = cls(step, subdomain, chosen, [], action)
        for ref, label in pairs:
            manifest._add(ref, label)
        return manifest

    def _add(self, ref: str, label: str | None) -> None:
        if not is_ref(ref):
            raise InvalidRefError(
                f"Batch items are refs such as gen_recipe_1; {describe_value(ref)} is not one.",
                field="ref", value=field_value(ref),
            )
        if any(item.ref == ref for item in self.items):
            raise InputError(
                f"{ref} is listed twice in step {self.step}'s batch; list each item once.", field="ref", value=ref
            )
        self.items.append(BatchItem(ref, label))

    # -- items ------------------------------------------------------------------------------

    def item(self, ref: str) -> BatchItem:
        """The item `ref`.

        Raises:
            InputError: `ref` is not in this batch; the message lists the refs that are.
        """
        for item in self.items:
            if item.ref == ref:
                return item
        refs = self.refs()
        raise InputError(
            f"{describe_value(ref)} is not in step {self.step}'s batch; its items are {', '.join(refs)}.",
            field="ref", value=field_value(ref), valid=refs,
        )

    def refs(self) -> list[str]:
        return [item.ref for item in self.items]

    def mark_completed(self, ref: str, result_ref: str) -> None:
        """Record that `ref` became `result_ref` (idempotent for the same result).

        Raises:
            InvalidRefError: `result_ref` is not a ref.
            StateError: `ref` already completed as another ref, or the all-or-nothing batch failed.
        """
        item = self.item(ref)
        _check_result_ref(result_ref)
        if item.status == "completed":
            if item.result_ref != result_ref:
                raise StateError(
                    f"{ref} was already {self.action} as {item.result_ref}.", value=ref, result_ref=item.result_ref
                )
            return
        self._ensure_not_failed(ref)
        item.status, item.result_ref, item.reason = "completed", result_ref, None

    def mark_done_elsewhere(self, ref: str, result_ref: str) -> None:
        """A later call did `ref` (a retry after it failed, or a call outside the step): it is completed as
        `result_ref`, whatever it was before; what made it fail no longer holds for it.

        Raises:
            InvalidRefError: `result_ref` is not a ref.
            StateError: `ref` already completed as another ref.
        """
        item = self.item(ref)
        if item.status == "completed":
            self.mark_completed(ref, result_ref)  # the same ref: nothing to do; another: refused
            return
        _check_result_ref(result_ref)
        item.status, item.result_ref, item.reason = "completed", result_ref, None

    def mark_failed(self, ref: str, reason: str) -> None:
        """Record that `ref` failed and why; in an all-or-nothing batch, skip the items still pending.

        Raises:
            StateError: `ref` already completed.
        """
        self._set_unfinished(ref, "failed", reason)
        if self.policy == "all_or_nothing":
            for item in self.items:
                if item.status == "pending":
                    item.status = "skipped"
                    item.reason = f"not {self.action}: {ref} failed and this batch is all-or-nothing"

    def mark_skipped(self, ref: str, reason: str) -> None:
        """Record that `ref` was deliberately not done, and why.

        Raises:
            StateError: `ref` already completed.
        """
        self._set_unfinished(ref, "skipped", reason)

    def _set_unfinished(self, ref: str, status: ItemStatus, reason: str) -> None:
        item = self.item(ref)
        if not reason.strip():
            raise InputError(f"Say why {ref} was {status}.", field="reason")
        if item.status == "completed":
            raise StateError(
                f"{ref} was already {self.action} as {item.result_ref}; it cannot be {status} now.", value=ref
            )
        item.status, item.reason = status, reason.strip()

    def _ensure_not_failed(self, ref: str) -> None:
        failed = self.failed()
        if self.policy == "all_or_nothing" and failed:
            raise StateError(
                f"Step {self.step}'s all-or-nothing batch already failed ({', '.join(failed)}), "
                f"so {ref} cannot be {self.action}.",
                value=ref, failed=failed,
            )

    # -- progress ---------------------------------------------------------------------------

    def pending(self) -> list[str]:
        return self._with_status("pending")

    def failed(self) -> list[str]:
        return self._with_status("failed")

    def _with_status(self, status: ItemStatus) -> list[str]:
        return [item.ref for item in self.items if item.status == status]

    def progress(self) -> dict[str, int]:
        """Counts per status, and the total."""
        counts: dict[str, int] = {status: len(self._with_status(status)) for status in _STATUSES}
        return {**counts, "total": len(self.items)}

    @property
    def is_done(self) -> bool:
        """True when no item is pending."""
        return not self.pending()

    @property
    def outcome(self) -> BatchOutcome:
        """in_progress while items are pending; then completed, partial (some failed) or failed."""
        if not self.is_done:
            return "in_progress"
        failed, completed = self.failed(), self._with_status("completed")
        if failed and (self.policy == "all_or_nothing" or not completed):
            return "failed"
        return "partial" if failed else "completed"

    def check_can_complete(self) -> None:
        """Allow the step to complete only when every item is done (and, if all-or-nothing, none failed).

        Raises:
            BatchIncompleteError: items are pending (named), or the all-or-nothing batch failed (naming which).
        """
        pending = self.pending()
        if pending:
            raise BatchIncompleteError(
                f"Step {self.step} cannot complete: {len(pending)} of {len(self.items)} items are still pending "
                f"({', '.join(pending)}). A write in this step handles an item by saving, updating or deleting it, or by "
                f"creating a row that refers to it (a meal planned with it); or skip it with a reason (batch_skip).",
                step=self.step, pending=pending,
            )
        failed = self.failed()
        if self.policy == "all_or_nothing" and failed:
            reasons = "; ".join(f"{item.ref}: {item.reason}" for item in self.items if item.status == "failed")
            raise BatchIncompleteError(
                f"Step {self.step} failed as a whole (all-or-nothing): {reasons}.", step=self.step, failed=failed
            )

    def shown(self, item: BatchItem) -> str:
        """An item's state in the batch's own words: a done item by what was done to it ('saved -> recipe_7', 'updated',
        'undone'), never 'completed' (which reads as a task's own column); a failed or skipped one with why."""
        done = item.status == "completed"
        became = f" -> {item.result_ref}" if done and item.result_ref and item.result_ref != item.ref else ""
        why = f": {item.reason}" if item.reason else ""
        return f"{self.action if done else item.status}{became}{why}"

    def summary(self) -> str:
        """One line, e.g. '2 of 3 saved; gen_recipe_3 failed: name is required'."""
        completed = len(self._with_status("completed"))
        parts = [f"{completed} of {len(self.items)} {self.action}"]
        parts += [f"{item.ref} failed: {item.reason}" for item in self.items if item.status == "failed"]
        skipped: dict[str, list[str]] = {}
        for item in self.items:
            if item.status == "skipped":
                skipped.setdefault(item.reason or "", []).append(item.ref)
        parts += [f"{', '.join(refs)} skipped: {reason}" for reason, refs in skipped.items()]
        if self.pending():
            parts.append(f"pending: {', '.join(self.pending())}")
        return "; ".join(parts)

    # -- persistence ------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "step": self.step, "subdomain": self.subdomain, "policy": self.policy, "action": self.action,
            "items": [item.to_dict() for item in self.items],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> BatchManifest:
        """A manifest from `to_dict` output.

        Raises:
            StateError: the stored manifest is malformed.
        """
        try:
            items = [BatchItem(**item) for item in data["items"]]
            manifest = cls(data["step"], data["subdomain"], data["policy"], items, data.get("action", "saved"))
        except (KeyError, TypeError):
            raise StateError("A stored batch manifest is malformed.") from None
        refs = manifest.refs()
        statuses_known = all(item.status in _STATUSES for item in items)
        if manifest.policy not in _POLICIES or len(set(refs)) != len(refs) or not statuses_known:
            raise StateError(f"The stored batch manifest of step {manifest.step} is malformed.", step=manifest.step)
        return manifest


def _check_result_ref(result_ref: str) -> None:
    """Raises InvalidRefError when what an item became is not a ref."""
    if not is_ref(result_ref):
        raise InvalidRefError(
            f"{describe_value(result_ref)} is not a ref such as recipe_7.", field="result_ref", value=field_value(result_ref)
        )
