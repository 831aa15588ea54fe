"""The reply check: Reply is a witness, so a reply that claims what did not happen, or leaves out
what the user must know, is refused with exactly what is wrong, never patched.

`ReplyFacts` is what the state recorded for the turn; `check_reply` compares a reply's text
with it: a past-tense claim ("I saved ...", "added to your list") needs a matching action this
turn; every failed item, every draft left unsaved and a stopped turn must be mentioned. The
check is deliberately literal (words, refs, labels), so it is the same every time.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

_CLAIMS: dict[str, frozenset[str]] = {
    "saved": frozenset({"saved", "created", "updated"}),
    "created": frozenset({"created", "saved"}),
    "added": frozenset({"created", "saved", "updated"}),
    "scheduled": frozenset({"created", "saved", "updated"}),
    "deleted": frozenset({"deleted", "discarded"}),
    "removed": frozenset({"deleted", "updated", "discarded"}),
    "updated": frozenset({"updated"}),
    "changed": frozenset({"updated"}),
}
_CLAIM = re.compile(r"\b(" + "|".join(_CLAIMS) + r")\b", re.IGNORECASE)
_HEDGE = re.compile(
    r"\b(not|no|never|nothing|nor|none|if|once|when|would|could|should|can|will|shall|want|wants|unless|before|until|"
    r"ready|yet|\w+n't|cannot)\b",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")
_NOT_SAVED = re.compile(
    r"not (?:be |been |yet )?saved|unsaved|n't (?:be |been |yet )?saved|draft|want me to save|shall i save|"
    r"should i save|save (?:them|it|these|those|any|all)",
    re.IGNORECASE,
)
_STOPPED = re.compile(
    r"couldn'?t|could not|can'?t|cannot|unable|didn'?t|did not|wasn'?t able|weren'?t able|not able|failed|stopped|"
    r"blocked|wasn'?t|not (?:yet )?(?:done|finished|complete)|ran into|problem|issue|went wrong",
    re.IGNORECASE,
)

_UNLINKED = re.compile(
    r"without (?:a |its |their |any )?(?:recipe|meal)|no (?:longer )?(?:has |have )?(?:a )?recipe|unlinked|left empty|"
    r"(?:now|is|are) empty|emptied|still (?:names?|lists?|mentions?|says?)|no longer (?:linked|points?|has|have)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Item:
    """A ref, its label and (for a failure) why."""

    ref: str
    label: str = ""
    reason: str = ""

    def named_in(self, text: str) -> bool:
        lowered = text.lower()
        return self.ref.lower() in lowered or bool(self.label) and self.label.lower() in lowered

    def show(self) -> str:
        return f"{self.ref} ({self.label})" if self.label else self.ref


@dataclass(frozen=True)
class ReplyFacts:
    """What the state recorded for the turn, as far as the reply must honor it."""

    done: frozenset[str] = frozenset()
    """The actions of this turn's successful calls: created, updated, deleted, saved, generated, discarded, read."""
    failed: Sequence[Item] = field(default_factory=tuple)
    unsaved: Sequence[Item] = field(default_factory=tuple)
    """Drafts generated this turn and still not saved."""
    stopped: str | None = None
    """Why the turn stopped before its plan was done (None: it was not stopped)."""
    unlinked: Sequence[Item] = field(default_factory=tuple)
    """Rows a removal of this turn left pointing at nothing (a meal without its recipe): the user must hear of them."""


def claims(text: str) -> list[str]:
    """The past-tense action words the reply asserts (hedged, negated or asked ones are not claims)."""
    found: list[str] = []
    for sentence in _SENTENCE.findall(text):
        if sentence.strip().endswith("?"):
            continue
        for match in _CLAIM.finditer(sentence):
            if not _HEDGE.search(sentence[: match.start()]) and not re.match(r"\s+yet\b", sentence[match.end():]):
                found.append(match.group(1).lower())
    return list(dict.fromkeys(found))


def check_reply(text: str, facts: ReplyFacts) -> list[str]:
    """Each way the reply contradicts or leaves out the state, as one sentence; empty when it is truthful."""
    problems = []
    for word in claims(text):
        if not facts.done & _CLAIMS[word]:
            happened = ", ".join(sorted(facts.done - {"read"})) or "nothing was written"
            problems.append(f"it says '{word}', but no row was {word} this turn (what happened: {happened})")
    for item in facts.failed:
        if not item.named_in(text):
            problems.append(f"it leaves out {item.show()}, which failed: {item.reason or 'see the batch'}")
    failed = {item.ref for item in facts.failed}
    unsaved = [item for item in facts.unsaved if item.ref not in failed]  # a failed draft is named above already
    missing = [item for item in unsaved if not item.named_in(text)]
    if missing:
        problems.append("it leaves out the drafts generated and not saved: " + ", ".join(item.show() for item in missing))
    elif unsaved and not _NOT_SAVED.search(text):
        problems.append("it must say that " + ", ".join(item.show() for item in unsaved) + " are not saved yet")
    if facts.unlinked and not _UNLINKED.search(text) and not any(item.named_in(text) for item in facts.unlinked):
        shown = ", ".join(item.show() + (f": {item.reason}" if item.reason else "") for item in facts.unlinked[:5])
        problems.append(f"it leaves out what the removal left pointing at nothing ({shown}); say so")
    if facts.stopped and not _STOPPED.search(text):
        problems.append(f"it must tell the user the turn stopped before finishing (the state says: {facts.stopped})")
    return problems
