"""The ref value type: `recipe_1` names a saved row, `gen_recipe_1` a draft not yet saved.

The grammar is strict: a known entity type, an underscore, a positive integer with no leading
zero, optionally behind `gen_`. Anything else is not a ref (so `batch_2024` or `chicken_5` never
are); only id and FK columns are ever read as refs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from alfred_mcp.kitchen.schema import ENTITY_TYPES, ref_pattern

__all__ = ["Ref", "is_ref", "name_refs", "parse_ref", "ref_pattern", "refs_in"]

_REF = re.compile(r"^(gen_)?(" + "|".join(sorted(ENTITY_TYPES, key=len, reverse=True)) + r")_([1-9][0-9]{0,8})$")
_REF_IN_TEXT = re.compile(r"(?<![\w])(?:gen_)?(?:" + "|".join(sorted(ENTITY_TYPES, key=len, reverse=True)) + r")_[1-9][0-9]{0,8}(?![\w])")


@dataclass(frozen=True, order=True)
class Ref:
    """A parsed ref; `str(ref)` gives it back."""

    entity_type: str
    number: int
    generated: bool = False

    def __str__(self) -> str:
        return f"{'gen_' if self.generated else ''}{self.entity_type}_{self.number}"


def parse_ref(text: object) -> Ref | None:
    """The Ref that `text` spells, or None when it is not a ref."""
    if not isinstance(text, str):
        return None
    match = _REF.match(text)
    if match is None:
        return None
    return Ref(entity_type=match.group(2), number=int(match.group(3)), generated=match.group(1) is not None)


def is_ref(text: object) -> bool:
    return parse_ref(text) is not None


def refs_in(text: str) -> set[str]:
    """Every ref `text` names, as written."""
    return set(_REF_IN_TEXT.findall(text))


def name_refs(text: str, label_of: Callable[[str], str | None]) -> str:
    """`text` for a person: each ref in it written as its label ('recipe_10' -> 'Salmon Tacos'); a ref without a
    label is left as it is. "Plan recipe_10 (Salmon Tacos)" says the name once: a label already beside it is kept."""
    def named(found: re.Match[str]) -> str:
        label = label_of(found.group(0))
        return label if label else found.group(0)

    text = re.sub(r"(?<![\w])(" + _REF_IN_TEXT.pattern + r")\s*\(([^()]*)\)",
                  lambda m: m.group(0) if not label_of(m.group(1)) else _beside(m.group(1), m.group(2), label_of), text)
    return _REF_IN_TEXT.sub(named, text)


def _beside(ref: str, inside: str, label_of: Callable[[str], str | None]) -> str:
    """'recipe_10 (Salmon Tacos)' -> 'Salmon Tacos'; 'recipe_10 (for 4)' -> 'Salmon Tacos (for 4)'."""
    label = label_of(ref) or ref
    return label if inside.strip().lower() == label.lower() else f"{label} ({inside})"
