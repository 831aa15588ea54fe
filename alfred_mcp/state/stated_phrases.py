"""Two kinds of statement compiled from the user's own words, in fixed forms: a substitution and what is to stay.

Understand states a turn's constraints; these two are the ones its snapshot leaves out most, as they read like the
turn's own action: a substitution ('use oat milk instead of milk': what is made takes oat milk and no milk, for as
long as it exists) and what stays ('leave the chicken for now': deleting it is refused). Said in one of the forms
below, they are compiled here with no model, as the reset phrases are (`constraints.find_trigger_phrase`), and merged
with the snapshot as new constraints (`with_stated`): what the snapshot already holds is not added twice, and they are
dropped, overridden and reset as any other. Pure: the same message and refs give the same constraints.

Scope: a substitution is about the one recipe (or recipe draft) the turn refers to, else the whole goal; what stays
is about the one ref the turn refers to whose label holds its words, else it is matched by its words.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from alfred_mcp.state.constraints import Constraint, ConstraintSnapshot, constraint_values, fold_words, holds_phrase
from alfred_mcp.state.refs import parse_ref

_WORD = r"[a-z][a-z'\-]*"
_THING = rf"{_WORD}(?:\s+{_WORD}){{0,3}}"
_FEW = rf"{_WORD}(?:\s+{_WORD}){{0,3}}?"
_ARTICLE = r"(?:(?:the|some|any|my|that)\s+)?"
_SUBSTITUTIONS: tuple[tuple[re.Pattern[str], bool], ...] = (
    (re.compile(rf"\b(?:use|using|with|try|add)\s+{_ARTICLE}(?P<first>{_FEW})\s+(?:instead of|in place of|rather than)\s+"
                rf"{_ARTICLE}(?P<second>{_THING})"), True),
    (re.compile(rf"\b(?:swap|switch|replace|trade)\s+(?:out\s+)?{_ARTICLE}(?P<first>{_FEW})\s+(?:for|with)\s+"
                rf"{_ARTICLE}(?P<second>{_THING})"), False),
    (re.compile(rf"\bsubstitute\s+{_ARTICLE}(?P<first>{_FEW})\s+for\s+{_ARTICLE}(?P<second>{_THING})"), True),
)
"""(form, whether its first thing is the new one): 'use A instead of B', 'swap B for A', 'substitute A for B'."""
_KEEPS: tuple[re.Pattern[str], ...] = (
    re.compile(rf"\b(?:leave|keep)\s+{_ARTICLE}(?P<first>{_FEW})\s+(?:for now|as is|as it is|alone|where it is|in place|"
               r"on the plan|planned)\b"),
    re.compile(rf"\b(?:do not|don't|dont)\s+(?:delete|remove|touch|cancel|drop)\s+{_ARTICLE}(?P<first>{_THING})"),
)
"""'leave the chicken for now', 'keep the salmon as is', "don't delete the chicken"."""
_STOP = frozenset({"and", "or", "but", "in", "on", "for", "to", "from", "please", "then", "so", "if", "this", "too",
                   "also", "instead", "now", "tonight", "today", "tomorrow", "at", "of", "as", "with", "yet"})
_PRONOUNS = frozenset({"it", "that", "this", "them", "those", "these", "one", "everything", "all", "things", "something"})
_NEGATED = re.compile(r"(?:\bdon'?t|\bdo not|\bnever|\bnot)\s*$")


def stated_constraints(message: str, labels: Mapping[str, str | None]) -> list[Constraint]:
    """The substitutions and what stays that `message` states, scoped by the refs the turn refers to (`labels`: each
    referenced ref and its label), in the order said."""
    text = " ".join(message.replace("\u2019", "'").lower().split())
    found: list[Constraint] = []
    for pattern, new_first in _SUBSTITUTIONS:
        for match in pattern.finditer(text):
            first, second = _thing(match["first"]), _thing(match["second"])
            if first and second and first != second and not _negated(text, match.start()):
                new, old = (first, second) if new_first else (second, first)
                about = _one([ref for ref in labels if _is_recipe(ref)])
                found += [Constraint(type="ingredient_excluded", field="swap", value=old, about=about),
                          Constraint(type="ingredient_required", field="swap", value=new, about=about)]
    for pattern in _KEEPS:
        for match in pattern.finditer(text):
            what = _thing(match["first"])
            if what and not (pattern is _KEEPS[0] and _negated(text, match.start())):
                about = _one([ref for ref, label in labels.items() if label and holds_phrase(label, what)])
                found.append(Constraint(type="keep", field="stays", value=what, about=about))
    return list(dict.fromkeys(found))


def with_stated(snapshot: ConstraintSnapshot, message: str | None, labels: Mapping[str, str | None]) -> ConstraintSnapshot:
    """`snapshot` with the constraints `message` states in the fixed forms that it does not hold already (same type,
    values and scope, in its additions or overrides); unchanged when there are none, or the turn resets the goal."""
    if not message or snapshot.reset_all:
        return snapshot
    held = {_key(c) for c in [*snapshot.new_constraints, *snapshot.overrides]}
    added = [c for c in stated_constraints(message, labels) if _key(c) not in held and not _loose_key(c) & _loose(snapshot)]
    if not added:
        return snapshot
    return snapshot.model_copy(update={"new_constraints": [*snapshot.new_constraints, *added]})


def _key(constraint: Constraint) -> tuple[str, tuple[str, ...], str | None]:
    return constraint.type, tuple(sorted(fold_words(" ".join(constraint_values(constraint))))), constraint.about


def _loose_key(constraint: Constraint) -> set[tuple[str, tuple[str, ...]]]:
    return {(constraint.type, fold_words(value)) for value in constraint_values(constraint)}


def _loose(snapshot: ConstraintSnapshot) -> set[tuple[str, tuple[str, ...]]]:
    """What the snapshot states by type and value, whatever its field or scope: the model's own scope wins."""
    return {key for c in [*snapshot.new_constraints, *snapshot.overrides] for key in _loose_key(c)}


def _thing(words: str) -> str | None:
    """The thing named: cut at the first word that is not part of a name ('milk and eggs' -> 'milk'); none for a
    pronoun ('leave it')."""
    kept: list[str] = []
    for word in words.split():
        if word in _STOP:
            break
        kept.append(word)
    thing = " ".join(kept).strip("'-")
    return None if not thing or thing in _PRONOUNS or kept[0] in _PRONOUNS else thing


def _negated(text: str, start: int) -> bool:
    return bool(_NEGATED.search(text[:start]))


def _is_recipe(ref: str) -> bool:
    parsed = parse_ref(ref)
    return parsed is not None and parsed.entity_type == "recipe"


def _one(refs: Sequence[str]) -> str | None:
    unique = list(dict.fromkeys(refs))
    return unique[0] if len(unique) == 1 else None
